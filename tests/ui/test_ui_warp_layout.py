"""The warp visualizer read from the back of a classroom: 1024 x 768 in the projector theme."""

from __future__ import annotations

import pytest

from tests.ui.walk import click_tab, switch_language


@pytest.fixture
def projector_panel(qtbot, services, request):
    from tests.ui.conftest import warp_in_window
    from ui import i18n

    i18n.set_language(request.param)
    panel = warp_in_window(qtbot, services)
    qtbot.wait(200)
    return panel


def whole_code_lines(code) -> int:
    return code.viewport().height() // code.fontMetrics().lineSpacing()


def lane_width_px(panel) -> float:
    return panel.lanes.cells_rect().width() / 32


def on_screen(panel, widget) -> bool:
    """Visible and inside the window's scroll area without scrolling."""
    viewport = panel.parentWidget().parentWidget().viewport()
    top = widget.mapTo(viewport, widget.rect().topLeft()).y()
    return widget.isVisible() and 0 <= top and top + widget.height() <= viewport.height()


def code_lanes_and_tab_together(panel, tab_px: int = 150) -> bool:
    """Twelve whole code lines, 32 lanes of 20 px or more and the current tab's view at least
    ``tab_px`` tall, all on screen at once."""
    page = panel.tabs.currentWidget()
    return (
        whole_code_lines(panel.code) >= 12
        and lane_width_px(panel) >= 20
        and page.height() >= tab_px
        and all(on_screen(panel, widget) for widget in (panel.code, panel.lanes, page))
    )


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_at_1024_by_768_in_projector_type_the_code_lanes_and_current_tab_stand_together(projector_panel, qtbot):
    panel = projector_panel
    code = panel.code
    qtbot.waitUntil(lambda: code_lanes_and_tab_together(panel), timeout=3_000)
    scroll = panel.parentWidget().parentWidget()
    assert not scroll.verticalScrollBar().isVisible() and not scroll.horizontalScrollBar().isVisible()
    lanes_top = panel.lanes.mapTo(panel, panel.lanes.rect().topLeft()).y()
    assert lanes_top >= panel.code.mapTo(panel, panel.code.rect().bottomLeft()).y()  # under the code, across
    session = panel.session
    for g in range(len(session)):
        panel.set_cursor(g)
        assert code.horizontalScrollBar().value() == 0  # no line start hidden
        assert code.span_visible()
    assert panel.description.full_text and panel.description.full_text == panel.kernel_box.toolTip()


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_every_clicked_tab_shows_its_view_beside_twelve_code_lines_above_the_lanes(projector_panel, qtbot):
    panel = projector_panel
    for index in range(panel.tabs.count()):
        click_tab(qtbot, panel.tabs, index)
        qtbot.waitUntil(lambda: code_lanes_and_tab_together(panel), timeout=3_000)
        assert on_screen(panel, panel.step_label) and on_screen(panel, panel.transport)
        assert "…" not in panel.step_label.text()
    assert panel.tabs.widget(panel.tabs.count() - 1) is panel.metrics  # the metrics have a tab here
    bar = panel.tabs.tabBar()
    for index in range(panel.tabs.count()):  # short titles: every one on the bar, whole in its tooltip
        assert bar.rect().contains(bar.tabRect(index)) and panel.tabs.tabToolTip(index)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_projector_theme_chosen_in_the_view_menu_at_run_time_lays_the_panel_out_alike(qtbot, services, language):
    from tests.ui.conftest import warp_in_window
    from ui.theme import THEMES

    panel = warp_in_window(qtbot, services, theme="light")
    switch_language(panel.window(), language)
    panel.window().theme_actions["projector"].trigger()  # View → Theme → projector
    projector_pt = THEMES["projector"].font_pt
    qtbot.waitUntil(lambda: panel.code.font().pointSize() == projector_pt, timeout=3_000)
    qtbot.waitUntil(lambda: code_lanes_and_tab_together(panel), timeout=3_000)
    click_tab(qtbot, panel.tabs, 1)
    qtbot.waitUntil(lambda: code_lanes_and_tab_together(panel), timeout=3_000)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("theme", ["light", "projector"])
def test_at_1920_by_1080_the_lanes_are_20_px_wide_beside_the_code_and_above_the_tabs(qtbot, services, language, theme):
    from tests.ui.conftest import warp_in_window

    panel = warp_in_window(qtbot, services, theme=theme)
    switch_language(panel.window(), language)
    panel.window().resize(1920, 1080)
    qtbot.waitUntil(lambda: code_lanes_and_tab_together(panel, tab_px=250), timeout=3_000)
    click_tab(qtbot, panel.tabs, 1)
    qtbot.waitUntil(lambda: code_lanes_and_tab_together(panel, tab_px=250), timeout=3_000)
    assert panel.metrics.isVisible()


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
def test_the_timeline_tab_shows_charts_taller_than_six_lines_beside_the_code(projector_panel, qtbot):
    panel = projector_panel
    click_tab(qtbot, panel.tabs, 1)
    plot = panel.timeline_tab.timeline.plot
    qtbot.waitUntil(plot.isVisible, timeout=2_000)
    qtbot.waitUntil(lambda: plot.height() >= 6 * panel.fontMetrics().height(), timeout=2_000)
    assert plot.height() > 70
    assert panel.lanes.isVisible() and all(item.isVisible() for item in panel.legend_items)
    page = panel.tabs.currentWidget()
    qtbot.waitUntil(lambda: page.height() >= page.minimumSizeHint().height(), timeout=2_000)  # nothing cut off
    caption = panel.timeline_tab.timeline.caption
    assert caption.full_text and caption.full_text in caption.toolTip()  # all of it, however short the label


@pytest.mark.parametrize("projector_panel", ["en", "zh"], indirect=True)
def test_metric_titles_and_status_are_read_whole_not_cut_with_an_ellipsis(projector_panel, qtbot):
    panel = projector_panel
    click_tab(qtbot, panel.tabs, panel.tabs.indexOf(panel.metrics))
    qtbot.waitUntil(panel.metrics.isVisible, timeout=2_000)
    for cell in panel.metrics.cells.values():
        assert cell.title.isVisible() and "…" not in cell.title.text(), cell.title.text()
        assert cell.spec.title() in cell.toolTip()  # the whole title, where a short one is shown
    for label in (panel.status,):
        assert label.text() == label.full_text and "…" not in label.text(), label.text()
        assert label.geometry().bottom() < panel.height()


@pytest.mark.parametrize("projector_panel", ["zh"], indirect=True)
def test_with_the_sidebar_hidden_from_the_view_menu_the_chinese_code_wraps_into_fewer_rows(projector_panel, qtbot):
    panel = projector_panel
    window = panel.window()
    qtbot.waitUntil(lambda: whole_code_lines(panel.code) >= 12, timeout=2_000)
    rows = panel.code.document().documentLayout().documentSize().height()
    window.sidebar_action.trigger()  # a wider code column: its lines wrap into fewer rows
    qtbot.waitUntil(lambda: panel.code.document().documentLayout().documentSize().height() < rows, timeout=2_000)
    assert whole_code_lines(panel.code) >= 12


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


@pytest.mark.parametrize("projector_panel", ["en"], indirect=True)
def test_in_projector_type_another_kernel_keeps_the_code_column_readable_beside_the_tabs(projector_panel, qtbot):
    panel = projector_panel
    panel.choose_kernel("stencil_1d")  # every title in the timeline tab's compare list: it must not widen the tab
    qtbot.waitUntil(lambda: panel.session is not None and panel.session.entry == "stencil_1d", timeout=10_000)
    qtbot.waitUntil(lambda: panel.tab_area.upper.sizes()[0] >= panel.tab_area.upper.width() // 3, timeout=3_000)
    assert panel.timeline_tab.minimumSizeHint().width() < panel.tab_area.upper.width() // 2
