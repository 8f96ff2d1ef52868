"""A combo box narrower than its longest choice that shows the choice elided ("SAXPY: numpy…"),
never cut through a glyph; the whole text is in its tooltip and in the open list."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter


class ElidingComboBox(QComboBox):
    """A QComboBox whose closed face ends its text with "…" where the box is too narrow
    (Qt's own face clips it mid-glyph)."""

    def _option(self) -> tuple[QStyleOptionComboBox, QRect]:
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)  # fmt: skip
        return option, field

    def shown_text(self) -> str:
        """The text the closed box shows now, elided to its width."""
        _option, field = self._option()
        return self.fontMetrics().elidedText(self.currentText(), Qt.TextElideMode.ElideRight, field.width() - 2)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option, _field = self._option()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
