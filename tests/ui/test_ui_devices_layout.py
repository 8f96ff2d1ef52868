"""The Devices panel uses its room: forms side by side on a wide screen, the live monitor below."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QGroupBox

from tests.ui.walk import open_panel


def devices_in_window(qtbot, report, theme: str, size: tuple[int, int]):
    from ui.main_window import MainWindow
    from ui.services import Services
    from ui.theme import apply_theme

    apply_theme(theme)
    services = Services.create(probe=lambda: report)
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitUntil(lambda: services.devices.report is not None)
    panel = open_panel(qtbot, window, "devices")
    qtbot.wait(50)  # the arrangement after the report's forms are shown
    return panel


def groups(panel) -> list[QGroupBox]:
    return [g for g in panel.groups.findChildren(QGroupBox) if g.isVisible()]


@pytest.mark.parametrize("gpu", [False, True])
def test_on_a_wide_screen_the_forms_stand_side_by_side_and_the_monitor_fills_the_rest(qtbot, device_reports, gpu):
    report = device_reports.gpu if gpu else device_reports.no_gpu
    panel = devices_in_window(qtbot, report, "projector", (1920, 1080))
    boxes = groups(panel)
    assert len(boxes) == (3 if gpu else 2)
    assert len({box.y() for box in boxes}) == 1 and len({box.x() for box in boxes}) == len(boxes)  # one row
    assert not panel.scroll.verticalScrollBar().isVisible()
    assert panel.monitor.height() >= 0.4 * panel.height()
    bottom = panel.monitor.geometry().bottom()
    assert bottom >= panel.height() - 3 * panel.fontMetrics().height()  # no empty lower half


def test_at_1024_by_768_in_projector_type_the_forms_stack_and_nothing_scrolls(qtbot, device_reports):
    panel = devices_in_window(qtbot, device_reports.no_gpu, "projector", (1024, 768))
    boxes = groups(panel)
    assert len({box.x() for box in boxes}) == 1  # one under another: the width holds one
    assert not panel.scroll.verticalScrollBar().isVisible()
    plot = panel.monitor.cpu_plot
    assert plot.isVisible() and plot.height() >= 4 * panel.fontMetrics().height()
