"""A plot's legend under it, as tall as its lines where the page has the room, scrolling where not.

A legend is a word-wrapped label: in a column its wrapped height is also its least height, so a
legend of many series on a 1024x768 projector screen pushed into the plot above it (the plot keeps
its half of the page). In this box the legend asks for its whole height but gives way down to two
lines, and scrolls.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy

LEAST_LINES = 2


class LegendBox(QScrollArea):
    """Holds ``legend`` (a word-wrapped label); shown while the legend is."""

    def __init__(self, legend: QLabel) -> None:
        super().__init__()
        self.legend = legend
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setWidget(legend)
        self.viewport().setAutoFillBackground(False)  # the page's colour behind the legend
        self.setVisible(not legend.isHidden())

    def _whole_height(self) -> int:
        width = max(1, self.viewport().width() if self.viewport().width() > 1 else self.width())
        height = self.legend.heightForWidth(width)
        return height if height > 0 else self.legend.sizeHint().height()

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._whole_height() + 2 * self.frameWidth())

    def minimumSizeHint(self) -> QSize:
        lines = LEAST_LINES * self.legend.fontMetrics().lineSpacing()
        return QSize(0, min(self._whole_height(), lines) + 2 * self.frameWidth())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.legend:
            kind = event.type()
            if kind in (QEvent.Type.ShowToParent, QEvent.Type.HideToParent):  # sent while this box is hidden too
                self.setVisible(kind == QEvent.Type.ShowToParent)  # no empty box where a plot has no legend
            elif kind in (QEvent.Type.LayoutRequest, QEvent.Type.Resize, QEvent.Type.FontChange):
                self.updateGeometry()  # its text or type changed: the box asks for its new height
        return super().eventFilter(watched, event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.updateGeometry()  # a new width wraps the legend into a new number of lines
