"""``python -m ui.lesson_screenshots OUTDIR``: every lesson page in presenter mode, as the room sees it.

One window, the projector theme, each page opened as ``gpulab --lesson N --page P --presenter``
opens it, grabbed once its jobs are idle: ``<chapter>-<page>-<id>-<lang>-<W>x<H>.png``. With
``--run`` each live page's preset is run first (R), so the big number is on the picture, and the
run's seconds are printed (from R to the page idle again: what a lecture waits). A reviewer
opens them and looks for clipped or overlapping text, and for Run or the number below the fold.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from ui.screenshots import wait_for

LANGUAGES = ("zh", "en")
SIZES = ((1024, 768), (1920, 1080))
RUN_TIMEOUT_S = 60.0


def _size(text: str) -> tuple[int, int]:
    width, _x, height = text.lower().partition("x")
    return int(width), int(height)


def shoot(out: Path, languages: Sequence[str], sizes: Sequence[tuple[int, int]], run: bool = False,
          pages: Sequence[tuple[int, int]] | None = None) -> list[Path]:  # fmt: skip
    """Grab ``pages`` ((chapter, 1-based page); every page by default) in each language and size."""
    from gpulab import lessons
    from ui import i18n
    from ui.app import get_app, image_is_blank
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    app = get_app()
    apply_theme("light")  # as a start does (the everyday theme), before the presenter's
    every = [(c.number, i) for c in lessons.chapters() for i in range(1, len(c.pages) + 1)]
    written = []
    for lang in languages:
        i18n.set_language(lang)
        window = MainWindow()
        window.presenter.full_screen = False  # the window keeps the size asked for
        window.show()
        viewer = window.open_lesson(0, 1)
        window.presenter.set_on(True)
        for size in sizes:
            window.resize(*size)
            for chapter, index in pages or every:
                viewer.open_page(chapter, index)
                wait_for(app, window.services.runner.is_idle, RUN_TIMEOUT_S)
                if run and size == sizes[0] and viewer.run_page():
                    started = time.monotonic()
                    wait_for(app, lambda v=viewer: v.running is None, RUN_TIMEOUT_S)
                    wait_for(app, window.services.runner.is_idle, RUN_TIMEOUT_S)  # the page's after-work too
                    print(f"{chapter}.{index} {viewer.page.id} [{lang}]: run {time.monotonic() - started:.1f} s",
                          flush=True)  # fmt: skip
                wait_for(app, lambda: False, 0.3)  # pyqtgraph's deferred layout and paint
                image = window.grab().toImage()
                path = out / f"{chapter}-{index}-{viewer.page.id}-{lang}-{size[0]}x{size[1]}.png"
                if not image_is_blank(image) and image.save(str(path), "PNG"):
                    written.append(path)
        window.presenter.set_on(False)
        window.close()
        window.services.runner.shutdown()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.lesson_screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the PNGs (created if missing)")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated: zh, en")
    parser.add_argument("--sizes", default="1024x768", help="comma-separated WxH (default 1024x768)")
    parser.add_argument("--pages", default="", help="comma-separated chapter.page, e.g. 0.1,4.5 (default: all)")
    parser.add_argument("--run", action="store_true", help="run each live page's preset before the picture")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    args.out.mkdir(parents=True, exist_ok=True)
    languages = [item for item in args.languages.split(",") if item]
    sizes = [_size(item) for item in args.sizes.split(",") if item]
    pages = [(int(c), int(p)) for c, _dot, p in (item.partition(".") for item in args.pages.split(",") if item)]
    written = shoot(args.out, languages, sizes, args.run, pages or None)
    print(f"{len(written)} screenshots in {args.out}")
    return 0 if written else 1


if __name__ == "__main__":
    raise SystemExit(main())
