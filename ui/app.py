"""Start the desktop lab: ``run_gui()`` (called by ``gpulab`` on the command line)."""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from ui import i18n, settings
from ui.errors import install_slot_error_hook
from ui.jobs import JobRunner
from ui.main_window import MainWindow
from ui.panels import panel_names
from ui.theme import THEME_NAMES, apply_theme

PANEL_NAMES: tuple[str, ...] = tuple(panel_names())
LANGUAGE_CODES: tuple[str, ...] = tuple(i18n.LANGUAGES)
SCREENSHOT_SIZE = (1024, 768)
PAINT_TIMEOUT_S = 10.0


# Qt's offscreen platform (screenshots, headless runs) says this on every window it shows.
_QT_NOISE = ("This plugin does not support propagateSizeHints()",)


def _qt_message(mode: QtMsgType, context: object, message: str) -> None:
    """Qt's own messages go to stderr, except the offscreen platform's known noise."""
    if message not in _QT_NOISE:
        print(message, file=sys.stderr)


def get_app() -> QApplication:
    """The running QApplication, or a new one named for QSettings."""
    app = QApplication.instance()
    if app is None:
        qInstallMessageHandler(_qt_message)
        app = QApplication(sys.argv[:1])
        app.setOrganizationName(settings.ORGANIZATION)
        app.setApplicationName(settings.APPLICATION)
    collect_garbage_on_gui_thread()
    return app


class _GuiThreadCollector(QObject):
    """Python's automatic cycle collection switched off, and done here instead: every half second
    on the GUI thread's timer, each generation collected once its count passes the threshold
    Python itself would use (as pyqtgraph's GarbageCollector does; ours, so that starting the
    window does not import pyqtgraph before its first paint)."""

    def __init__(self, interval_ms: int = 500) -> None:
        super().__init__()
        self.thresholds = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect)
        self.timer.start(interval_ms)

    def collect(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):  # the oldest generation due collects the younger ones with it
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                return


_collector: _GuiThreadCollector | None = None


def collect_garbage_on_gui_thread() -> None:
    """Run Python's cycle collector on the GUI thread only, on a timer.

    Left automatic, a collection can start in any thread that allocates, such as a job's worker,
    and destroy Qt objects there. This deadlocked once: the worker held Qt's connection lock while
    waiting for the GIL that the GUI thread held while waiting for that lock. It also crashed once,
    when a collection deleted a widget while the GUI thread was wrapping Qt's widget list.
    """
    global _collector
    if _collector is None:
        _collector = _GuiThreadCollector()


def choose_language(lang: str | None) -> str:
    """The ``--lang`` choice, else the saved one, else the system's."""
    for candidate in (lang, settings.saved_value(settings.LANGUAGE_KEY)):
        code = i18n.normalize_language(candidate)
        if code:
            return code
    return i18n.system_language()


def choose_theme(theme: str | None) -> str:
    for candidate in (theme, settings.saved_value(settings.THEME_KEY)):
        if candidate in THEME_NAMES:
            return candidate
    return "light"


def start_window(panel: str | None = None, lang: str | None = None, theme: str | None = None,
                 paint_first: bool = False) -> MainWindow:  # fmt: skip
    """Language, theme and window, ready to show (the part of run_gui tests share); with
    ``paint_first`` its first panel is built once the window has painted (see MainWindow).

    Command-line choices apply to this run only; the menus save the user's choices.
    """
    get_app()
    i18n.set_language(choose_language(lang))
    apply_theme(choose_theme(theme))
    window = MainWindow(panel=panel, paint_first=paint_first)
    window.warn_about_fonts()
    return window


def run_gui(
    panel: str | None = None,
    lang: str | None = None,
    theme: str | None = None,
    screenshot: str | None = None,
    screenshot_size: tuple[int, int] = SCREENSHOT_SIZE,
    lesson: int | None = None,
    page: str | None = None,
    presenter: bool = False,
) -> int:
    """Show the lab. With ``screenshot``, save one painted frame (``screenshot_size``) as PNG and return.
    With ``lesson`` (and ``page``, 1-based or its id), open the lesson viewer there; ``presenter``
    starts the show (full screen, projector theme; a screenshot keeps its size)."""
    if panel is not None and panel not in PANEL_NAMES:
        print(f"gpulab: no panel {panel!r} (choose from {', '.join(PANEL_NAMES)})", file=sys.stderr)
        return 2
    problem = lesson_problem(lesson, page, presenter)
    if problem:
        print(f"gpulab: {problem}", file=sys.stderr)
        return 2
    app = get_app()
    window = start_window("lesson" if lesson is not None or presenter else panel, lang, theme, paint_first=True)
    install_slot_error_hook(window.services.notifier)  # a failing click shows in the window, not only on stderr
    if lesson is not None or presenter:
        window.presenter.full_screen = screenshot is None
        window.after_start.append(lambda: open_lesson_page(window, lesson or 0, page or "1", presenter))
    if screenshot is None:
        window.show()
        return app.exec()
    return save_screenshot(window, Path(screenshot), screenshot_size)


def lesson_problem(lesson: int | None, page: str | None, presenter: bool) -> str:
    """What is wrong with ``--lesson N --page P`` ("" when nothing): a chapter or page that does not exist."""
    if lesson is None and (page is not None):
        return "--page needs --lesson N"
    if lesson is None:
        return ""
    from gpulab import lessons  # the lesson files: only when one is asked for

    try:
        lessons.chapter(lesson).page(page or "1")
    except KeyError as exc:
        return f"--lesson {lesson}: {exc.args[0]}"
    return ""


def open_lesson_page(window: MainWindow, chapter: int, page: str, presenter: bool) -> None:
    window.open_lesson(chapter, page)
    if presenter:
        window.presenter.set_on(True)


class _PaintWatcher(QObject):
    """Notes when a widget has received its first paint event."""

    def __init__(self) -> None:
        super().__init__()
        self.painted = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted = True
        return False


def save_screenshot(window: MainWindow, path: Path, size: tuple[int, int] = SCREENSHOT_SIZE) -> int:
    """Show ``window`` at ``size`` (1024×768 unless told), wait until it has painted and its jobs
    are idle, save it."""
    window.resize(*size)
    watcher = _PaintWatcher()
    window.installEventFilter(watcher)
    window.show()
    ready = _wait_until(lambda: watcher.painted and window.started and window.services.runner.is_idle())
    _wait_for(0.3)  # let pyqtgraph finish its deferred layout and paint
    image = window.grab().toImage()
    window.close()
    window.deleteLater()
    JobRunner.shutdown_all()
    return _write_image(image, path, ready)


def _write_image(image: QImage, path: Path, ready: bool) -> int:
    if not ready:
        print(f"gpulab: the window did not finish painting in {PAINT_TIMEOUT_S:.0f} s", file=sys.stderr)
    if image_is_blank(image):
        print("gpulab: the screenshot is blank; nothing was painted", file=sys.stderr)
        return 1
    # No folder is created: the path was checked before the window opened (gpulab.cli); if the
    # write still fails, the picture is kept in a fallback file that the message names.
    if path.parent.is_dir() and not path.is_dir() and image.save(str(path), "PNG"):
        return 0
    from gpulab.output import fallback_paths

    for candidate in fallback_paths("gpulab-screenshot", ".png"):
        if not candidate.exists() and image.save(str(candidate), "PNG"):
            print(f"gpulab: could not write the screenshot to {path}; it was saved to {candidate}",
                  file=sys.stderr)
            return 1
    print(f"gpulab: could not write the screenshot to {path}", file=sys.stderr)
    return 1


def _wait_until(condition, timeout_s: float = PAINT_TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        QApplication.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def _wait_for(seconds: float) -> None:
    _wait_until(lambda: False, seconds)


def image_is_blank(image: QImage, min_std: float = 2.0) -> bool:
    """True when an image is (nearly) one flat colour: its grey levels barely vary."""
    import numpy as np

    if image.isNull() or image.width() == 0 or image.height() == 0:
        return True
    grey = image.convertToFormat(QImage.Format.Format_Grayscale8)
    stride = grey.bytesPerLine()
    data = np.frombuffer(grey.constBits(), dtype=np.uint8, count=stride * grey.height())
    pixels = data.reshape(grey.height(), stride)[:, : grey.width()]
    return float(pixels.std()) < min_std
