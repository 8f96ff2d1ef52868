"""A non-modal message area: the latest warning or error, until the user dismisses it."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from ui.notify import ERROR, INFO, WARNING


class MessageBar(QFrame):
    """Shows one message with its level; hidden when empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.level_label = QLabel()
        self.text_label = QLabel()
        self.text_label.setWordWrap(True)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.level_label)
        layout.addWidget(self.text_label, 1)
        layout.addWidget(self.close_button)
        self.level = INFO
        self.retranslate()
        self.hide()

    def show_message(self, level: str, text: str) -> None:
        self.level = level
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.text_label.setText(text)
        self.retranslate()
        self.show()

    def retranslate(self) -> None:
        words = {ERROR: self.tr("Error:"), WARNING: self.tr("Warning:"), INFO: self.tr("Note:")}
        self.level_label.setText(f"<b>{words.get(self.level, '')}</b>")
        self.close_button.setToolTip(self.tr("Dismiss this message"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
