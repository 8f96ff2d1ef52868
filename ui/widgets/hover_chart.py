"""A hand-painted chart that names what is under the mouse: the base of the timeline and topology views.

A subclass says what a point shows (``text_at``) and whether there is anything to draw; the base
keeps the hover text, emits ``hovered(text)`` when it changes, shows it as a tooltip, and paints
the empty chart's line of text.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from ui.theme import Theme, current_theme


class HoverChart(QWidget):
    """A chart widget with hover text; ``empty_text`` shows while it has nothing to draw."""

    hovered = Signal(str)

    def __init__(self, parent: QWidget | None = None, min_height: int = 140) -> None:
        super().__init__(parent)
        self.empty_text = ""
        self.hover_text = ""
        self.setMouseTracking(True)
        self.setMinimumHeight(min_height)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def text_at(self, pos: QPointF) -> str:
        """What the chart shows under ``pos`` ('' for nothing)."""
        return ""

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        text = self.text_at(event.position())
        if text != self.hover_text:
            self.hover_text = text
            self.hovered.emit(text)
        if text:
            QToolTip.showText(event.globalPosition().toPoint(), text, self)
        else:
            QToolTip.hideText()
        super().mouseMoveEvent(event)

    def begin_paint(self, has_content: bool) -> tuple[QPainter, Theme] | None:
        """A painter on the cleared chart, and the theme; None once the empty text is drawn instead."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        theme = current_theme()
        painter.fillRect(self.rect(), QColor(theme.base))
        if has_content:
            return painter, theme
        painter.setPen(QColor(theme.muted))
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.empty_text)
        painter.end()
        return None
