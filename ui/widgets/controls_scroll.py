"""The controls column of a lab panel, scrolling when the window is too short for it.

Where the window has room it is as tall as the column and no taller, so what the panel pins under
it (the device, Run, Export) sits just below the last field, not at the window's bottom edge.

Seven or eight fields, the run buttons and Export are taller than a 1024x768 window in projector
type: a plain column would squeeze its fields on top of each other. Its minimum width is its
content's plus the scroll bar, so a splitter that sizes columns by their hints keeps it whole.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea


class ControlsScroll(QScrollArea):
    """A vertical-only scroll area as wide as the column it holds needs."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def sizeHint(self) -> QSize:
        # The column's whole height at this width, asked anew each time (QScrollArea keeps its first
        # answer, caps it at 24 lines and ignores wrapped lines): a page with room holds it all, Run
        # just under the last field.
        width = self.minimumSizeHint().width()
        inner = self.widget()
        if inner is None:
            return QSize(width, 0)
        room = max(self.width(), width) - self.verticalScrollBar().sizeHint().width() - 2 * self.frameWidth()
        height = inner.heightForWidth(room) if inner.hasHeightForWidth() else -1
        return QSize(width, (height if height >= 0 else inner.sizeHint().height()) + 2 * self.frameWidth())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # its wrapped lines, so the height it asks for, follow its width

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
