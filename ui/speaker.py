"""The speaker view: a second window for the one presenting, on a second screen when there is one.

It shows the page's speaker notes (what to say, what to point at, the number to expect), where we
are, the next page's title and the time since the talk began. S toggles it in the lesson viewer;
the clicker's keys work in it as in the main window, so the speaker can turn pages from either.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

NOTES_PX = 24  # the notes, read from a laptop at arm's length
CLOCK_PX = 40
TICK_MS = 1000
ALONE_SIZE = (900, 600)  # one screen: a window beside the show


def clock_text(seconds: float) -> str:
    """``12:05`` for 725 s, ``1:02:05`` past the hour."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def _label(px: int, bold: bool = False, wrap: bool = True) -> QLabel:
    label = QLabel()
    label.setWordWrap(wrap)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    font = label.font()
    font.setPixelSize(px)
    font.setBold(bold)
    label.setFont(font)
    return label


class SpeakerView(QWidget):
    """``show_page(where, title, notes, next_title)``; ``place(main)`` puts it on another screen."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("speakerView")
        self.started = time.monotonic()
        self.where = _label(18)
        self.title = _label(30, bold=True)
        self.notes = _label(NOTES_PX)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.next_title = _label(20)
        self.clock = _label(CLOCK_PX, bold=True, wrap=False)
        self.clock.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.restart_button = QPushButton()
        self.restart_button.clicked.connect(self.restart_clock)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        top = QHBoxLayout()
        top.addWidget(self.where, 1)
        top.addWidget(self.clock)
        top.addWidget(self.restart_button)
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.title)
        column.addWidget(self.notes, 1, Qt.AlignmentFlag.AlignTop)
        column.addWidget(self.next_title)
        self.retranslate()
        self.tick()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("gpulab: speaker notes"))
        self.restart_button.setText(self.tr("Restart the clock"))

    def show_page(self, where: str, title: str, notes: str, next_title: str) -> None:
        self.where.setText(where)
        self.title.setText(title)
        self.notes.setText(notes or self.tr("No notes for this page."))
        self.next_title.setText(self.tr("Next: %1").replace("%1", next_title) if next_title
                                else self.tr("This is the last page."))  # fmt: skip

    def tick(self) -> None:
        self.clock.setText(clock_text(time.monotonic() - self.started))

    def restart_clock(self) -> None:
        self.started = time.monotonic()
        self.tick()

    def open_beside(self, main: QWidget) -> None:
        """Show it on a screen other than ``main``'s (maximized there), else as a window of its own."""
        here = main.screen()
        others = [screen for screen in QGuiApplication.screens() if screen is not here]
        if others:
            self.setGeometry(others[0].availableGeometry())
            self.showMaximized()
        else:
            self.resize(*ALONE_SIZE)
            self.show()
        self.timer.start()
        self.tick()

    def hideEvent(self, event) -> None:
        self.timer.stop()
        super().hideEvent(event)
