"""Presenter mode: the window full screen in the projector theme with nothing but the page.

The sidebar, the menus and the status bar go; the theme becomes the projector's (large type,
thick lines, high contrast) for as long as the show lasts, and the window comes back as it was
(its theme, its bars, its size) when it ends. The theme is not saved: a show is not a choice of
the user's everyday theme.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

from ui.theme import apply_theme, current_theme

if TYPE_CHECKING:
    from ui.main_window import MainWindow

PRESENTER_THEME = "projector"


class Presenter(QObject):
    """``set_on(True)`` starts the show, ``set_on(False)`` ends it; ``changed(on)`` says so."""

    changed = Signal(bool)

    def __init__(self, window: MainWindow, full_screen: bool = True) -> None:
        super().__init__(window)
        self.window = window
        self.full_screen = full_screen  # off for screenshots: the window keeps the size asked for
        self.on = False
        self._before: tuple[str, Qt.WindowState, bool, bool, bool] | None = None

    def set_on(self, on: bool) -> None:
        if on == self.on:
            return
        window = self.window
        bars = (window.sidebar, window.menuBar(), window.statusBar())
        if on:
            self._before = (current_theme().name, window.windowState(), *(not bar.isHidden() for bar in bars))
            for bar in bars:
                bar.hide()
            apply_theme(PRESENTER_THEME)
            if self.full_screen:
                window.showFullScreen()
        elif self._before is not None:
            theme, state, *shown = self._before
            apply_theme(theme)
            for bar, visible in zip(bars, shown, strict=True):
                bar.setVisible(visible)
            if self.full_screen:
                window.setWindowState(state)
        self.on = on
        window.theme_choice_changed()
        self.changed.emit(on)
