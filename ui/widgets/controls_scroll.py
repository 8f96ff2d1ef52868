"""The controls column of a lab panel, scrolling when the window is too short for it.

Seven or eight fields, the run buttons and Export are taller than a 1024x768 window in projector
type: a plain column would squeeze its fields on top of each other. Its minimum width is its
content's plus the scroll bar, so a splitter that sizes columns by their hints keeps it whole.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
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

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The column's content changed its size (fields fitted to a narrower window, a language):
        # the minimum above follows it, and the layouts holding this area must ask again (they
        # keep what they were told).
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)
