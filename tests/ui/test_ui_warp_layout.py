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


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_opening_the_timeline_tab_shows_charts_taller_than_six_lines(projector_panel, qtbot):
    panel = projector_panel
    bar = panel.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    plot = panel.timeline_tab.timeline.plot
    qtbot.waitUntil(plot.isVisible, timeout=2_000)
    qtbot.waitUntil(lambda: plot.height() >= 6 * panel.fontMetrics().height(), timeout=2_000)
    assert plot.height() > 70
    assert not panel.description.isVisible() and not any(item.isVisible() for item in panel.legend_items)
    page = panel.tabs.currentWidget()
    qtbot.waitUntil(lambda: page.height() >= page.minimumSizeHint().height(), timeout=2_000)  # nothing cut off
    caption = panel.timeline_tab.timeline.caption
    assert caption.full_text and caption.full_text in caption.toolTip()  # all of it, however short the label


def whole_code_lines(code) -> int:
    return code.viewport().height() // code.fontMetrics().lineSpacing()


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_a_clicked_tab_opens_in_place_at_least_150_px_tall_and_a_second_click_gives_the_code_back(
    projector_panel, qtbot
):
    panel = projector_panel
    scroll = panel.parentWidget().parentWidget()
    bar = panel.tabs.tabBar()
    for index in range(panel.tabs.count()):
        if panel.tab_area.opened:  # close the open one first: a click on it closes it
            qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(panel.tabs.currentIndex()).center())
        qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
        page = panel.tabs.currentWidget()
        assert panel.tabs.currentIndex() == index
        qtbot.waitUntil(lambda page=page: page.isVisible() and page.height() >= 150, timeout=2_000)
        qtbot.wait(300)  # the layout settled: the panel did not grow under the window
        viewport = scroll.viewport()
        assert panel.height() <= viewport.height()
        top_left = page.mapTo(viewport, page.rect().topLeft())
        assert 0 <= top_left.y() and top_left.y() + page.height() <= viewport.height()  # on screen, no scrolling
        assert scroll.verticalScrollBar().maximum() == 0
        assert whole_code_lines(panel.code) >= 3  # the current line and one either side
        assert panel.step_label.isVisible() and panel.transport.isVisible()
        assert "…" not in panel.step_label.text()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(panel.tabs.currentIndex()).center())
    qtbot.waitUntil(lambda: not panel.tabs.currentWidget().isVisible(), timeout=2_000)
    qtbot.waitUntil(lambda: whole_code_lines(panel.code) >= 9, timeout=2_000)
    assert panel.lanes.isVisible() and panel.metrics.isVisible()
    assert panel.right_column.indexOf(panel.step_label) >= 0  # back beside the code, under the lanes


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_metric_titles_purpose_and_status_are_read_whole_not_cut_with_an_ellipsis(projector_panel):
    panel = projector_panel
    for cell in panel.metrics.cells.values():
        assert cell.title.isVisible() and "…" not in cell.title.text(), cell.title.text()
        assert cell.spec.title() in cell.toolTip()  # the whole title, where a short one is shown
    for label in (panel.description, panel.status):
        assert label.text() == label.full_text and "…" not in label.text(), label.text()
        assert label.geometry().bottom() < panel.height()


@pytest.mark.parametrize("projector_panel", ["en"], indirect=True)
def test_the_code_shows_ten_whole_lines_beside_smaller_lane_cells(projector_panel, qtbot):
    panel = projector_panel
    qtbot.waitUntil(lambda: whole_code_lines(panel.code) >= 10, timeout=2_000)
    assert panel.right_column.indexOf(panel.step_label) >= 0  # the step's text under the lanes, beside the code
    lanes_left = panel.lanes.mapTo(panel.code.parentWidget(), panel.lanes.rect().topLeft()).x()
    assert panel.code.geometry().right() < lanes_left


@pytest.mark.parametrize("projector_panel", ["zh"], indirect=True)
def test_with_the_sidebar_hidden_from_the_view_menu_the_chinese_code_shows_ten_whole_lines(projector_panel, qtbot):
    panel = projector_panel
    window = panel.window()
    qtbot.waitUntil(lambda: whole_code_lines(panel.code) >= 9, timeout=2_000)  # sidebar shown: nine
    window.sidebar_action.trigger()
    qtbot.waitUntil(lambda: whole_code_lines(panel.code) >= 10, timeout=2_000)


@pytest.mark.parametrize("projector_panel", ["en"], indirect=True)
def test_aligned_parameters_start_on_their_lines_first_row_when_the_code_wraps(projector_panel, qtbot):
    code = projector_panel.code
    qtbot.waitUntil(lambda: code.lineWrapMode() != code.LineWrapMode.NoWrap, timeout=2_000)
    lines = code.toPlainText().splitlines()
    aligned = next(n for n, text in enumerate(lines) if text.strip() == "int n)")
    block = code.document().findBlockByNumber(aligned)
    assert block.layout().lineCount() == 1  # 47 blanks then "int n)": no empty first row
    assert code.toPlainText().splitlines()[aligned] == lines[aligned]  # the blanks are all still there


def test_growing_the_window_rewraps_the_code_without_calling_it_edited(qtbot, services):
    """Wrapping on or off re-highlights the code; that is not an edit (the run stays current)."""
    from tests.ui.conftest import warp_in_window
    from ui import i18n

    i18n.set_language("zh")
    try:
        panel = warp_in_window(qtbot, services)
        qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
        assert panel.run_state.state == "current"
        panel.window().resize(1920, 1080)
        qtbot.wait(100)
        panel.window().resize(1024, 768)
        qtbot.wait(100)
        assert panel.run_state.state == "current" and panel.provenance == "emulated"
    finally:
        i18n.set_language("en")
