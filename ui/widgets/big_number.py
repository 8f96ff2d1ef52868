"""A lesson page's one big number: the value large, its unit, what it is, and where it comes from.

Everything is written out (no tooltip carries what a room needs): the provenance badge
(measured, emulated, modelled, replayed), the device it ran on, and for a replayed run the
machine and date of the recording. Without a number it says why in a sentence (the run lacks
it, the lab is still to come, nothing has run yet), never a zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from ui.i18n import engine_message
from ui.widgets.badge import ProvenanceBadge, kind_label

if TYPE_CHECKING:
    from gpulab.lessons import BigNumber

VALUE_SCALE = 2.6  # the value's type, times the body text's


class BigNumberView(QWidget):
    """``show_number(number)``, ``show_text(text)`` (no number: why), ``scale_to(px)`` (body text size)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.number: BigNumber | None = None
        self.value = QLabel()
        self.value.setObjectName("bigNumberValue")
        self.unit = QLabel()
        self.caption = QLabel()  # what the number is
        self.caption.setWordWrap(True)
        self.badge = ProvenanceBadge()
        self.details = QLabel()  # the device, or the recording's machine and date
        self.details.setWordWrap(True)
        self.message = QLabel()  # why there is no number
        self.message.setWordWrap(True)
        for label in (self.caption, self.details, self.message):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # wrap, never widen
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.value)
        row.addWidget(self.unit, 0, Qt.AlignmentFlag.AlignBottom)
        row.addStretch(1)
        row.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignVCenter)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.caption)
        column.addWidget(self.details)
        column.addWidget(self.message)
        self.show_text("")

    def scale_to(self, body_px: int) -> None:
        """The value at ``VALUE_SCALE`` times the body text (``body_px`` pixels), the rest at it."""
        for label, px in ((self.value, round(VALUE_SCALE * body_px)), (self.unit, round(1.3 * body_px)),
                          (self.caption, body_px), (self.details, body_px), (self.message, body_px),
                          (self.badge, body_px)):  # fmt: skip
            font = label.font()
            font.setPixelSize(max(1, px))
            font.setBold(label is self.value)
            label.setFont(font)

    def show_number(self, number: BigNumber) -> None:
        self.number = number
        self.message.hide()
        for label in (self.value, self.unit, self.caption, self.badge, self.details):
            label.show()
        self.badge.set_kind(number.kind)
        self.retranslate()

    def show_text(self, text: str) -> None:
        """No number: ``text`` says why (or what to do); "" shows nothing."""
        self.number = None
        for label in (self.value, self.unit, self.caption, self.badge, self.details):
            label.hide()
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def retranslate(self) -> None:
        number = self.number
        if number is None:
            return
        self.value.setText(number.text())
        self.unit.setText(number.unit)
        self.caption.setText(engine_message(number.label))
        self.details.setText(self._details(number))

    def _details(self, number: BigNumber) -> str:
        if number.replayed:
            text = (self.tr("Recorded on %1, %2").replace("%1", number.machine or self.tr("an unknown machine"))
                    .replace("%2", number.date[:16].replace("T", " ")))  # fmt: skip
            return f"{text} ({kind_label(number.original_kind)})" if number.original_kind else text
        devices = [d for d in (number.device, number.per_device) if d]
        return self.tr("Ran on: %1").replace("%1", " / ".join(dict.fromkeys(devices))) if devices else ""

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
