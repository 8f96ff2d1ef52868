"""What a panel is: a widget with a provenance, re-translated when the language changes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QWidget

from ui.services import Services


class Panel(QWidget):
    """Base of every panel. Subclasses build widgets, then set texts in ``retranslate()``."""

    provenance_changed = Signal(str)

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.provenance = ""

    def set_provenance(self, kind: str) -> None:
        """Tell the window what kind of numbers this panel now shows."""
        self.provenance = kind
        self.provenance_changed.emit(kind)

    def shutdown(self) -> None:
        """Stop the timers and threads this panel started; called when the window closes."""

    def retranslate(self) -> None:
        """Set every user-visible text; called once built and on each language change."""

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
