"""An exception inside a slot reaches the message bar in plain words; the window stays up."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from ui.errors import SlotErrorHook, install_slot_error_hook


def test_a_click_whose_handler_raises_is_reported_in_the_window_not_only_on_stderr(qtbot, window, monkeypatch, capsys):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # put back whatever pytest-qt installed
    hook = install_slot_error_hook(window.services.notifier)
    button = QPushButton("broken")
    qtbot.addWidget(button)
    button.show()

    def broken() -> None:
        raise KeyError("no such series")

    button.clicked.connect(broken)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert [type(exc) for exc in hook.reported] == [KeyError]
    level, text = window.services.notifier.history[-1]
    assert level == "error" and "no such series" in text and "keeps running" in text
    assert window.message_bar.isVisible() and "no such series" in window.message_bar.text_label.text()
    assert "Traceback" in capsys.readouterr().err  # still there for whoever reports the bug
    assert window.isVisible()


def test_ctrl_c_is_passed_on_to_the_previous_hook(services):
    seen = []
    hook = SlotErrorHook(services.notifier, lambda *args: seen.append(args[0]))
    hook(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert seen == [KeyboardInterrupt] and not services.notifier.history


def test_a_broken_notifier_falls_back_to_the_previous_hook(services, monkeypatch):
    seen = []
    hook = SlotErrorHook(services.notifier, lambda *args: seen.append(args[0]))
    monkeypatch.setattr(services.notifier, "error", lambda text: 1 / 0)
    hook(ValueError, ValueError("bad"), None)
    assert seen == [ValueError]
