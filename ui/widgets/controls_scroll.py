"""The controls column of a lab panel, scrolling when the window is too short for it.

Seven or eight fields, the run buttons and Export are taller than a 1024x768 window in projector
type: a plain column would squeeze its fields on top of each other. Its minimum width is its
content's plus the scroll bar, so a splitter that sizes columns by their hints keeps it whole.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea


class ControlsScroll(QScrollArea):
    """A vertical-only scroll area as wide as the column it holds needs."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        inner = self.widget()
        width = inner.minimumSizeHint().width() if inner is not None else 0
        return QSize(width + self.verticalScrollBar().sizeHint().width(), super().minimumSizeHint().height())
