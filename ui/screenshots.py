"""``python -m ui.screenshots OUTDIR``: every panel after a run, in each language, theme and size.

What a reviewer looks at before calling a panel done: offscreen PNGs named
``<panel>-<lang>-<theme>-<W>x<H>.png``, and for a lab with validation rows its "How good is this
model?" dialog, ``<panel>-validation-<lang>-<theme>-<W>x<H>.png``. Each panel is driven through its own buttons (the run
a teacher would start, at its quickest preset) and grabbed once its jobs are idle.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

LANGUAGES = ("en", "zh")
THEMES = ("light", "projector")
SIZES = ((1024, 768), (1920, 1080))
TIMEOUT_S = 120.0


def _wait(app, condition: Callable[[], bool], timeout_s: float = TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def _run_cpu_vs_gpu(panel) -> None:
    combo = panel.sizes_combo
    quick = next((i for i in range(combo.count()) if max(combo.itemData(i)) <= 1 << 20), 0)
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("vector-add"))
    combo.setCurrentIndex(quick)
    panel.run_button.click()


def _run_experiment(panel) -> None:
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("saxpy"))
    panel.editors["sizes"].edit.setText("2^10, 2^14, 2^18, 2^20")
    panel.run_button.click()


def _run_bandwidth(panel) -> None:
    from gpulab.experiments import bandwidth

    sizes = panel.editors["working_sets"]
    sizes.combo.setCurrentIndex(sizes.values.index(dict(bandwidth.WORKING_SETS)["quick"]))
    panel.editors["seconds_per_point"].setText("0.01")
    panel.run_button.click()


def _run_access_pattern(panel) -> None:
    panel.editors["n"].setText("512")  # the quickest emulation; every case still shows
    panel.run_button.click()


def _run_transfer(panel) -> None:
    from gpulab.experiments.transfer import SIZE_PRESETS

    editor = panel.editors["sizes"]
    editor.combo.setCurrentIndex(editor.values.index(dict(SIZE_PRESETS)["quick"]))
    panel.run_button.click()


def _run_collectives(panel) -> None:
    from gpulab.experiments.collectives import SIZE_PRESETS

    sizes = panel.editors["sizes"]
    sizes.combo.setCurrentIndex(sizes.values.index(dict(SIZE_PRESETS)["quick"]))  # 2 CPU ranks, 8 B ... 2 MiB
    panel.editors["seconds_per_point"].setText("0.005")
    panel.run_button.click()


def _run_launch(panel) -> None:
    from gpulab.experiments.launch import K_PRESETS

    editor = panel.editors["ks"]
    editor.combo.setCurrentIndex(editor.values.index(dict(K_PRESETS)["quick"]))
    panel.run_button.click()


def _run_precision(panel) -> None:
    panel.editors["sizes"].edit.setText("64, 128, 256")  # the quick sweep: numpy's FP16 stays fast
    panel.run_button.click()


def _run_fusion(panel) -> None:
    sizes = panel.editors["sizes"]
    sizes.combo.setCurrentIndex(next((i for i, v in enumerate(sizes.values) if max(v) <= 1 << 20), 0))  # quick
    panel.run_button.click()


def _run_allreduce(panel) -> None:
    """Run (4 ranks, a fraction of a second on numpy), then three steps into the ring: messages and partial sums."""
    from PySide6.QtWidgets import QApplication

    panel.run_button.click()
    _wait(QApplication.instance(), lambda: panel.job is None and panel.last_result is not None)
    for _ in range(3):
        panel.transport.forward_button.click()


# panel name -> what a user does before the picture is taken (None: just open it)
RUNS: dict[str, Callable | None] = {
    "devices": None,
    "cpu-vs-gpu": _run_cpu_vs_gpu,
    "experiments": _run_experiment,
    "warp": None,  # it emulates its first kernel when shown
    "roofline": lambda panel: panel.run_button.click(),  # counts every kernel, measures this CPU's roof
    "access-pattern": _run_access_pattern,
    "transfer": _run_transfer,
    "launch": _run_launch,
    "precision": _run_precision,
    "bandwidth": _run_bandwidth,
    "streams": lambda panel: panel.run_button.click(),  # the balanced default: modelled in well under a second
    "fusion": _run_fusion,
    "allreduce-steps": _run_allreduce,
    "collectives": _run_collectives,
    "topology": lambda panel: panel.run_button.click(),  # reads NVML; models the node without two GPUs
    "cluster-scaling": lambda panel: panel.run_button.click(),  # modelled in milliseconds
}


def _shoot_validation(app, panel, path: Path, size: tuple[int, int]) -> list[Path]:
    """The lab's "How good is this model?" dialog, as large as the screen leaves room for (none without rows)."""
    from ui.app import image_is_blank

    button = getattr(panel, "validation_button", None)
    if button is None or not button.rows:
        return []
    dialog = button.open_dialog()
    dialog.resize(min(1100, size[0] - 40), min(640, size[1] - 80))
    _wait(app, lambda: dialog.checks is not None)
    _wait(app, lambda: False, 0.2)
    image = dialog.grab().toImage()
    dialog.close()
    return [path] if not image_is_blank(image) and image.save(str(path), "PNG") else []


def shoot(out: Path, panels: Sequence[str], languages: Sequence[str], themes: Sequence[str],
          sizes: Sequence[tuple[int, int]]) -> list[Path]:  # fmt: skip
    from ui import i18n
    from ui.app import get_app, image_is_blank
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    app = get_app()
    written = []
    for lang in languages:
        i18n.set_language(lang)
        for theme in themes:
            apply_theme(theme)
            window = MainWindow()
            for size in sizes:
                window.resize(*size)
                window.show()
                for name in panels:
                    window.show_panel(name)
                    _wait(app, window.services.runner.is_idle)
                    run = RUNS.get(name)
                    if run is not None and size == sizes[0]:  # one run per window; later sizes show its result
                        run(window.panels[name])
                        _wait(app, window.services.runner.is_idle)
                    _wait(app, lambda: False, 0.3)  # pyqtgraph's deferred layout and paint
                    image = window.grab().toImage()
                    path = out / f"{name}-{lang}-{theme}-{size[0]}x{size[1]}.png"
                    if not image_is_blank(image) and image.save(str(path), "PNG"):
                        written.append(path)
                    written += _shoot_validation(app, window.panels[name], out / f"{name}-validation-{lang}-{theme}"
                                                 f"-{size[0]}x{size[1]}.png", size)  # fmt: skip
            window.close()
            window.services.runner.shutdown()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the PNGs (created if missing)")
    parser.add_argument("--panels", default=",".join(RUNS), help="comma-separated panel names")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated: en, zh")
    parser.add_argument("--themes", default=",".join(THEMES), help="comma-separated: light, projector, dark")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args.out.mkdir(parents=True, exist_ok=True)
    panels, languages, themes = ([item for item in text.split(",") if item]
                                 for text in (args.panels, args.languages, args.themes))  # fmt: skip
    written = shoot(args.out, panels, languages, themes, SIZES)
    print(f"{len(written)} screenshots in {args.out}")
    panel_shots = [path for path in written if "-validation-" not in path.name]
    return 0 if len(panel_shots) == len(panels) * len(languages) * len(themes) * len(SIZES) else 1


if __name__ == "__main__":
    raise SystemExit(main())
