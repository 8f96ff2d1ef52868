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


def wait_for(app, condition: Callable[[], bool], timeout_s: float = TIMEOUT_S) -> bool:
    """Process events until ``condition`` holds or ``timeout_s`` pass; whether it held."""
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


def _run_allreduce(panel) -> None:
    """Three steps into the ring after the quick run: messages and partial sums on the picture."""
    for _ in range(3):
        panel.transport.forward_button.click()


def fill_form(panel, assignments: dict[str, str]) -> None:
    """Put a lab's quick run into its page's form, as a person would pick or type it (fields the
    page does not show keep their defaults)."""
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

    from ui.widgets.params_form import PresetEditor

    for name, text in assignments.items():
        editor = panel.editors.get(name)
        if isinstance(editor, PresetEditor):
            if text in editor.names:
                editor.combo.setCurrentIndex(editor.names.index(text))
            else:
                editor.edit.setText(text)
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(max(0, editor.findData(text)))
        elif isinstance(editor, QCheckBox):
            editor.setChecked(text.lower() in ("1", "true", "yes", "on"))
        elif isinstance(editor, QLineEdit):
            editor.setText(text)


def _quick_run(lab):
    """A lab page's run: its declared quick run in the form, then Run."""
    from gpulab.lab.declare import quick_assignments

    def run(panel) -> None:
        fill_form(panel, quick_assignments(lab))
        panel.run_button.click()

    return run


def _open_sample_check(panel) -> None:
    """The sample check report opened (shown replayed: its GPUs are the test double's, with faults
    injected, which a machine without a GPU could not show)."""
    from gpulab.paths import resource_path

    panel.open_report(str(resource_path("check", "sample-report.json")))


def _open_sample_trace(panel) -> None:
    """The sample trace opened through Open trace…: the streams lab's own timelines from a modelled
    run (``gpulab run streams --json``, no GPU needed), shown as modelled, never as a profiler's."""
    from gpulab.paths import resource_path

    panel.opener.ask_open_paths = lambda: [str(resource_path("trace", "sample-streams-modelled.json"))]
    panel.open_button.click()


# The pages of no one lab: what a user does before the picture is taken (None: just open it).
OWN_RUNS: dict[str, Callable | None] = {
    "devices": None,
    "cpu-vs-gpu": _run_cpu_vs_gpu,
    "experiments": _run_experiment,
    "warp": None,  # it emulates its first kernel when shown
    "check": _open_sample_check,
    "trace": _open_sample_trace,
}
def _show_latency_hiding(panel) -> None:
    """The aha moment: the latency-hiding tab, the SM past its first loads, the sweep drawn."""
    from PySide6.QtWidgets import QApplication

    panel.tabs.setCurrentIndex(panel.tabs.count() - 1)
    wait_for(QApplication.instance(), lambda: panel.hiding.sweep is not None and panel.hiding.animation.ready)
    panel.hiding.step(8000)  # past the first loads: the warps have fallen out of step


# What a lab page shows after its quick run, beyond the run itself.
AFTER_RUN: dict[str, Callable] = {"allreduce-steps": _run_allreduce, "latency": _show_latency_hiding}


def runs() -> dict[str, Callable | None]:
    """Page name -> what a user does before the picture is taken: every lab page runs its lab's quick run."""
    from gpulab.lab.declare import registry
    from ui.panels import PANELS

    table: dict[str, Callable | None] = {}
    for spec in PANELS:
        table[spec.name] = _quick_run(registry()[spec.lab].lab) if spec.lab else OWN_RUNS.get(spec.name)
    return table


def _shoot_validation(app, panel, path: Path, size: tuple[int, int]) -> list[Path]:
    """The lab's "How good is this model?" dialog, as large as the screen leaves room for (none without rows)."""
    from ui.app import image_is_blank

    button = getattr(panel, "validation_button", None)
    if button is None or not button.rows:
        return []
    dialog = button.open_dialog()
    dialog.resize(min(1100, size[0] - 40), min(640, size[1] - 80))
    wait_for(app, lambda: dialog.checks is not None)
    wait_for(app, lambda: False, 0.2)
    image = dialog.grab().toImage()
    dialog.close()
    return [path] if not image_is_blank(image) and image.save(str(path), "PNG") else []


def shoot(out: Path, panels: Sequence[str], languages: Sequence[str], themes: Sequence[str],
          sizes: Sequence[tuple[int, int]], tab: int | None = None) -> list[Path]:  # fmt: skip
    """The PNGs written; ``tab``: the tab a tabbed page shows (its ``show_tab``), after its run."""
    from ui import i18n
    from ui.app import get_app, image_is_blank
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    app = get_app()
    table = runs()
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
                    wait_for(app, window.services.runner.is_idle)
                    run = table.get(name)
                    if run is not None and size == sizes[0]:  # one run per window; later sizes show its result
                        run(window.panels[name])
                        wait_for(app, window.services.runner.is_idle)
                        if name in AFTER_RUN:
                            AFTER_RUN[name](window.panels[name])
                        if tab is not None and hasattr(window.panels[name], "show_tab"):
                            window.panels[name].show_tab(tab)
                            wait_for(app, window.services.runner.is_idle)
                    wait_for(app, lambda: False, 0.3)  # pyqtgraph's deferred layout and paint
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
    parser.add_argument("--panels", default=",".join(runs()), help="comma-separated panel names")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated: en, zh")
    parser.add_argument("--themes", default=",".join(THEMES), help="comma-separated: light, projector, dark")
    parser.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES),
                        help="comma-separated WxH, e.g. 1024x768")  # fmt: skip
    parser.add_argument("--tab", type=int, default=None,
                        help="the tab a tabbed page shows, from 0 (default: the page's own choice)")  # fmt: skip
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args.out.mkdir(parents=True, exist_ok=True)
    panels, languages, themes = ([item for item in text.split(",") if item]
                                 for text in (args.panels, args.languages, args.themes))  # fmt: skip
    sizes = [tuple(int(n) for n in text.split("x")) for text in args.sizes.split(",") if text]
    written = shoot(args.out, panels, languages, themes, sizes, args.tab)  # type: ignore[arg-type]
    print(f"{len(written)} screenshots in {args.out}")
    panel_shots = [path for path in written if "-validation-" not in path.name]
    return 0 if len(panel_shots) == len(panels) * len(languages) * len(themes) * len(sizes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
