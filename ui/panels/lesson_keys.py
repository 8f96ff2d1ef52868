"""A presentation clicker's keys for the lesson viewer, and the black screen.

A clicker sends PageDown and PageUp (some send the arrows), B or the full stop to black the
screen, F5 and Esc to start and end the show. They must turn the page wherever the keyboard focus
is in the window (a list a teacher clicked would otherwise take PageDown for itself), so the keys
are read by an application event filter while the viewer is on screen. Letters and arrows are left
to a field being typed in or a list, slider or table being moved through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

if TYPE_CHECKING:
    from ui.panels.lesson import LessonPanel

Key = Qt.Key
NEXT = (Key.Key_PageDown, Key.Key_Right)
PREVIOUS = (Key.Key_PageUp, Key.Key_Left)
BLACK = (Key.Key_B, Key.Key_Period)
ARROWS = (Key.Key_Left, Key.Key_Right)
LETTERS = (Key.Key_B, Key.Key_Period, Key.Key_R, Key.Key_T, Key.Key_S)
TYPING = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QComboBox)  # a letter is theirs
MOVING = (*TYPING, QAbstractSlider, QAbstractItemView)  # an arrow is theirs


class ClickerKeys(QObject):
    """Reads the clicker's keys for ``viewer`` while it is visible; ``stop()`` when it goes."""

    def __init__(self, viewer: LessonPanel) -> None:
        super().__init__(viewer)
        self.viewer = viewer
        QApplication.instance().installEventFilter(self)

    def stop(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        viewer = self.viewer
        speaker = viewer.speaker
        if not viewer.isVisible() or watched.window() not in (viewer.window(), speaker):
            return False
        return self.key(watched, event)  # type: ignore[arg-type]  # PySide gives a key press as a QKeyEvent

    def key(self, target: QWidget, event: QKeyEvent) -> bool:
        """Act on one key press sent to ``target``; True when the viewer took it."""
        key, mods = Key(event.key()), event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        viewer = self.viewer
        if viewer.black.isVisible():  # any key brings the page back
            viewer.black.hide()
            return True
        if mods & Qt.KeyboardModifier.ControlModifier:
            step = {Key.Key_Plus: 1, Key.Key_Equal: 1, Key.Key_Minus: -1}.get(key)
            if step is not None:
                viewer.scale_text(step)
                return True
            return False
        if mods & ~Qt.KeyboardModifier.ShiftModifier:
            return False
        if (key in ARROWS and isinstance(target, MOVING)) or (key in LETTERS and isinstance(target, TYPING)):
            return False
        if key in NEXT:
            viewer.next_page()
        elif key in PREVIOUS:
            viewer.previous_page()
        elif key in BLACK:
            viewer.black.show_black()
        elif key == Key.Key_F5:
            viewer.presenter_requested.emit(not viewer.presenting)
        elif key == Key.Key_Escape and viewer.presenting:
            viewer.presenter_requested.emit(False)
        elif key == Key.Key_R:
            viewer.run_page(change=False)
        elif key == Key.Key_T:
            viewer.run_page(change=True)
        elif key == Key.Key_S:
            viewer.toggle_speaker()
        else:
            return False
        return True


class BlackScreen(QWidget):
    """All black over the whole window (B or . in a talk); any key or click brings the page back."""

    def __init__(self, viewer: QWidget) -> None:
        super().__init__(viewer)
        self.viewer = viewer
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), Qt.GlobalColor.black)
        self.setPalette(palette)
        self.hide()

    def show_black(self) -> None:
        self.setParent(self.viewer.window())  # over the window's sidebar and bars too
        self.cover()
        self.show()
        self.raise_()

    def cover(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())

    def mousePressEvent(self, event) -> None:
        self.hide()
