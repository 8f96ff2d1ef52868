"""Exceptions that escape a Qt slot reach the user through the one notification sink.

PySide6 hands an exception raised inside a slot (a button's handler, a timer, a signal from a
worker) to ``sys.excepthook`` and carries on. Python's default hook prints it to stderr, which a
learner in front of the window never sees: the click just seems to do nothing. The hook
installed here still prints the traceback (for whoever reports the bug) and also puts one plain
line in the window's message bar, so the app stays alive and says that something went wrong.
"""

from __future__ import annotations

import sys
import traceback
from types import TracebackType

from PySide6.QtCore import QCoreApplication

from ui.jobs import plain_error
from ui.notify import Notifier

ExceptHook = type(sys.excepthook)


class SlotErrorHook:
    """A ``sys.excepthook`` that reports to ``notifier`` and keeps the previous hook for the rest."""

    def __init__(self, notifier: Notifier, previous: ExceptHook | None = None) -> None:
        self.notifier = notifier
        self.previous = previous or sys.__excepthook__
        self.reported: list[BaseException] = []

    def __call__(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if not issubclass(exc_type, Exception):  # Ctrl+C and SystemExit keep their usual meaning
            self.previous(exc_type, exc, tb)
            return
        traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
        self.reported.append(exc)
        try:
            self.notifier.error(slot_error_text(exc))
        except Exception:  # a broken notifier must not hide the original error
            self.previous(exc_type, exc, tb)


def slot_error_text(exc: BaseException) -> str:
    """The line the user reads: what failed, in plain words, and that the lab is still running."""
    text = QCoreApplication.translate(
        "Errors", "Something went wrong: %1. The lab keeps running; the details are printed on the console."
    )
    return text.replace("%1", plain_error(exc))


def install_slot_error_hook(notifier: Notifier) -> SlotErrorHook:
    """Route uncaught exceptions from slots to ``notifier`` (for the running app, not for tests)."""
    hook = SlotErrorHook(notifier, sys.excepthook)
    sys.excepthook = hook
    return hook
