"""The sidebar: panels under section headings that keep the curriculum's order."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.walk import open_panel
from ui import settings
from ui.panels import PANELS, SECTIONS


def row_texts(sidebar) -> list[str]:
    return [sidebar.item(row).text() for row in range(sidebar.count())]


def test_panels_sit_under_their_section_headings_in_curriculum_order(window):
    sidebar = window.sidebar
    headings = [item.text() for item in sidebar.heading_items()]
    used = [s for s in SECTIONS if any(p.section == s.key for p in PANELS)]
    assert headings == [s.title() for s in used]  # empty sections are not shown
    texts = row_texts(sidebar)
    assert texts.index("Basics") < texts.index("Devices") < texts.index("Inside a GPU") < texts.index("Warp visualizer")


def test_every_panel_names_a_known_section():
    keys = {s.key for s in SECTIONS}
    assert all(p.section in keys for p in PANELS)
    assert [s.key for s in SECTIONS] == ["basics", "inside", "memory", "execution", "cluster", "check", "lessons"]


def test_clicking_a_heading_keeps_the_panel_on_screen(qtbot, window):
    open_panel(qtbot, window, "warp")
    heading = window.sidebar.heading_items()[0]
    rect = window.sidebar.visualItemRect(heading)
    qtbot.mouseClick(window.sidebar.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.current_panel() is window.panels["warp"]
    assert not heading.flags() & Qt.ItemFlag.ItemIsSelectable


def test_the_down_arrow_steps_over_a_heading_to_the_next_sections_panel(qtbot, window):
    basics = [p.name for p in PANELS if p.section == "basics"]
    open_panel(qtbot, window, basics[-1])
    window.sidebar.setFocus()
    qtbot.keyClick(window.sidebar, Qt.Key.Key_Down)
    assert window.current_panel() is window.panels["warp"]


def test_headings_follow_the_language(window):
    window.set_language("zh")
    assert [item.text() for item in window.sidebar.heading_items()][:2] == ["基础", "GPU 内部"]


def test_a_panel_given_on_the_command_line_is_not_saved_for_the_next_start(qtbot):
    from ui.app import start_window

    settings.save_value(settings.PANEL_KEY, "devices")
    window = start_window(panel="warp")
    qtbot.addWidget(window)
    assert window.current_panel() is window.panels["warp"]
    assert settings.saved_value(settings.PANEL_KEY) == "devices"
    window.close()


def test_a_panel_clicked_in_the_sidebar_is_saved_for_the_next_start(qtbot, window):
    open_panel(qtbot, window, "cpu-vs-gpu")
    assert settings.saved_value(settings.PANEL_KEY) == "cpu-vs-gpu"


def test_view_hide_sidebar_gives_the_panel_the_width_and_is_remembered(qtbot, window):
    from ui.main_window import MainWindow

    window.resize(1024, 768)
    window.show()
    panel = window.current_panel()
    qtbot.waitUntil(lambda: panel.width() > 0)
    before = panel.width()
    action = next(a for a in window.view_menu.actions() if a.text() == "&Hide sidebar")
    action.trigger()  # the menu's own action
    assert window.sidebar.isHidden() and action.isChecked()
    qtbot.waitUntil(lambda: panel.width() > before + 100)
    again = MainWindow(window.services)
    qtbot.addWidget(again)
    assert again.sidebar.isHidden() and again.sidebar_action.isChecked()
    again.sidebar_action.trigger()  # shown again, and so remembered
    assert not again.sidebar.isHidden() and not again.sidebar_action.isChecked()
    third = MainWindow(window.services)
    qtbot.addWidget(third)
    assert not third.sidebar.isHidden()


def test_in_projector_type_at_1024_the_sidebar_wraps_long_titles_and_cuts_none(qtbot, window):
    window.set_theme("projector")
    window.resize(1024, 768)
    sidebar = window.sidebar
    assert sidebar.width() <= round(0.16 * 1024) + 1
    metrics = sidebar.fontMetrics()
    for row in range(sidebar.count()):
        item = sidebar.item(row)
        words = item.text().split()
        assert max(metrics.horizontalAdvance(w) for w in words) < sidebar.viewport().width()
        assert item.sizeHint().height() >= 2 * metrics.height()
