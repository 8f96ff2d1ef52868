"""The warp visualizer on a large screen (1920 x 1080): the code has the height, the tabs fill
the right column under the lanes, and no area stays largely empty."""

from __future__ import annotations

import pytest

from tests.ui.walk import open_panel, wait_idle


@pytest.fixture
def large_panel(qtbot, services, request):
    from ui import i18n
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    theme, language = request.param
    apply_theme(theme)
    i18n.set_language(language)
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.resize(1920, 1080)
    window.show()
    panel = open_panel(qtbot, window, "warp")
    qtbot.waitUntil(lambda: panel.session is not None, timeout=10_000)
    wait_idle(qtbot, window)
    qtbot.wait(200)  # the splitters' deferred sharing
    return panel


@pytest.mark.parametrize("large_panel", [("light", "en"), ("projector", "en"), ("projector", "zh")], indirect=True)
def test_at_1920_by_1080_the_tabs_fill_the_right_column_and_the_code_has_the_height(large_panel, qtbot):
    panel = large_panel
    code, tabs, lanes = panel.code, panel.tabs, panel.lanes
    assert panel.tab_area.beside and tabs.isVisible()
    assert tabs.mapTo(panel, tabs.rect().topLeft()).x() > code.mapTo(panel, code.rect().topRight()).x()
    assert code.height() >= 0.5 * panel.height()
    # The right column: lanes then tabs, down to the code's bottom (no empty half column).
    column_bottom = tabs.mapTo(panel, tabs.rect().bottomLeft()).y()
    assert column_bottom >= code.mapTo(panel, code.rect().bottomLeft()).y() - 3 * panel.fontMetrics().height()
    assert tabs.height() >= 2 * lanes.height() // 3
    assert tabs.widget(0).isVisible()  # a page to read, not a bar
    for g in range(len(panel.session)):  # every line read from its start
        panel.set_cursor(g)
        assert code.horizontalScrollBar().value() == 0 and code.span_visible()


@pytest.mark.parametrize("large_panel", [("light", "zh")], indirect=True)
def test_a_code_column_narrower_than_its_longest_line_wraps_so_lines_are_read_from_their_start(large_panel, qtbot):
    from PySide6.QtWidgets import QPlainTextEdit

    from ui.panels.warp_layout import code_width

    panel = large_panel
    panel.window().resize(1024, 768)  # light type at 1024 x 768: half the width is too narrow for the code
    qtbot.waitUntil(lambda: not panel.tab_area.beside)
    qtbot.waitUntil(lambda: panel.code.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth)
    assert panel.tab_area.upper.sizes()[0] < code_width(panel)
    for g in range(len(panel.session)):
        panel.set_cursor(g)
        assert panel.code.horizontalScrollBar().value() == 0 and panel.code.span_visible()
