"""One notification sink: every warning and error the user should see goes through here."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

log = logging.getLogger("gpulab.ui")

INFO = "info"
WARNING = "warning"
ERROR = "error"
LEVELS = (INFO, WARNING, ERROR)

_LOG_LEVELS = {INFO: logging.INFO, WARNING: logging.WARNING, ERROR: logging.ERROR}


class Notifier(QObject):
    """Emits ``message(level, text)``; the main window shows it, the log keeps it."""

    message = Signal(str, str)
    dismissed = Signal()  # the warning or error shown is about a state that is gone

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history: list[tuple[str, str]] = []

    def notify(self, level: str, text: str) -> None:
        if level not in LEVELS:
            level = ERROR
        self.history.append((level, text))
        log.log(_LOG_LEVELS[level], text)
        self.message.emit(level, text)

    def info(self, text: str) -> None:
        self.notify(INFO, text)

    def warning(self, text: str) -> None:
        self.notify(WARNING, text)

    def error(self, text: str) -> None:
        self.notify(ERROR, text)

    def dismiss(self) -> None:
        """Take down the warning or error on show (a new run, another experiment chosen)."""
        self.dismissed.emit()
