"""The warp visualizer read from the back of a classroom: 1024 x 768 in the projector theme."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt


@pytest.fixture
def projector_panel(qtbot, services, request):
    from tests.ui.conftest import warp_in_window
    from ui import i18n

    i18n.set_language(request.param)
    panel = warp_in_window(qtbot, services)
    qtbot.wait(200)
    return panel


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_at_1024_by_768_in_projector_type_the_code_shows_seven_whole_lines_from_their_start(projector_panel, qtbot):
    panel = projector_panel
    code = panel.code
    qtbot.waitUntil(lambda: code.viewport().height() // code.fontMetrics().lineSpacing() >= 7, timeout=2_000)
    scroll = panel.parentWidget().parentWidget()
    assert not scroll.verticalScrollBar().isVisible() and not scroll.horizontalScrollBar().isVisible()
    session = panel.session
    for g in range(len(session)):
        panel.set_cursor(g)
        assert code.horizontalScrollBar().value() == 0  # no line start hidden
        assert code.span_visible()
    assert panel.description.isVisible() and panel.description.toolTip()
    assert panel.description.geometry().bottom() < panel.height()


@pytest.mark.parametrize("projector_panel", ["en"], indirect=True)
def test_the_transport_buttons_grow_with_the_projector_type(projector_panel):
    button = projector_panel.transport.play_button
    assert button.iconSize().height() >= 0.75 * button.fontMetrics().height() > 16


@pytest.mark.parametrize("projector_panel", ["zh"], indirect=True)
def test_lane_numbers_in_the_memory_view_fit_their_cells_and_the_gauge_words_sit_beside_it(projector_panel, qtbot):
    panel = projector_panel
    old = panel.session
    panel.choose_kernel("load_coalesced")
    qtbot.waitUntil(lambda: panel.session is not old and panel.session is not None, timeout=10_000)
    panel.jump_to_next_memory()
    canvas = panel.memory.canvas
    canvas.resize(600, 300)
    canvas.grab()
    assert canvas.numbers  # some lanes are numbered
    for cell, _text, width in canvas.numbers:
        assert width <= cell.width()
    assert not panel.memory.gauge.isTextVisible() and "%" in panel.memory.gauge_label.text()


@pytest.mark.parametrize("projector_panel", ["en"], indirect=True)
def test_opening_the_timeline_tab_shows_charts_taller_than_six_lines(projector_panel, qtbot):
    panel = projector_panel
    bar = panel.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    plot = panel.timeline_tab.timeline.plot
    qtbot.waitUntil(plot.isVisible, timeout=2_000)
    qtbot.waitUntil(lambda: plot.height() >= 6 * panel.fontMetrics().height(), timeout=2_000)
    assert plot.height() > 70
