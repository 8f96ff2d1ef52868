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
