"""A lab page's run block (the device list, Run, Export) is on screen at 1024x768 in projector type
however long the form, and just under the form where the window has room.

Before: the device list scrolled with the form, half below the fold on the operator-fusion page in
projector type, and at 1920x1080 Run sat at the window's bottom edge, far under the last field."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect

from tests.ui.walk import open_panel
from ui.panels import PANELS

LAB_PAGES = [spec.name for spec in PANELS if spec.lab]


def on_window(widget, window) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_at_1024_in_projector_type_every_lab_page_shows_its_device_list_and_run_whole(qtbot, projector_window):
    window = projector_window
    for name in LAB_PAGES:
        panel = open_panel(qtbot, window, name)
        if not hasattr(panel, "controls_scroll") or panel.device_combo.isHidden():
            continue  # a page whose own controls replace the form, or where nothing runs on a device
        shown = on_window(panel, window)
        for widget in (panel.device_label, panel.device_combo, panel.run_button):
            qtbot.waitUntil(widget.isVisible, timeout=5000)
            assert shown.contains(on_window(widget, window)), (name, widget)


def test_with_room_run_is_just_under_the_last_field_and_the_form_is_whole(qtbot, window):
    window.resize(1920, 1080)
    panel = open_panel(qtbot, window, "fusion")
    last = list(panel.form.editors.values())[-1]
    qtbot.waitUntil(lambda: last.isVisible() and panel.controls_scroll.verticalScrollBar().maximum() == 0,
                    timeout=5000)  # the whole form, no scrolling
    gap = on_window(panel.run_button, window).top() - on_window(last, window).bottom()
    line = panel.fontMetrics().height()
    assert 0 < gap < 5 * line, (gap, line)  # "Run on:", the list, and spacing: not the window's height
