"""The views lesson pages name (gpulab.lessons.views) are real tabs of the real panels, titled as the
engine's table says, so the lesson viewer can open a page's view by its name."""

from __future__ import annotations

import pytest

from gpulab.lessons import views
from ui.panels import panel_names, panel_spec

TABBED = sorted(name for name, known in views.PANEL_VIEWS.items() if len(known) > 1 and name != "fusion")


def test_every_panel_lessons_name_is_a_page_of_the_window():
    assert set(views.PANEL_VIEWS) <= set(panel_names())


def _tabs(panel):
    """The panel's tab widget: its own, or (cluster scaling) its explorer's."""
    return panel.tabs if hasattr(panel, "tabs") else panel.explorer.tabs


@pytest.mark.parametrize("name", TABBED)
def test_each_named_view_is_the_tab_the_table_says(qtbot, services, name):
    panel = panel_spec(name).factory(services)
    qtbot.addWidget(panel)
    tabs = _tabs(panel)
    for view in views.PANEL_VIEWS[name]:
        assert view.index < tabs.count(), (name, view.name)
        if view.tab:  # the first tab of CPU vs GPU is titled by the lab's unit
            assert tabs.tabText(view.index) == view.tab, (name, view.name)


def test_the_fusion_panels_two_views_are_its_chart_and_its_savings_in_the_tabs_when_narrow(qtbot, services):
    panel = panel_spec("fusion").factory(services)
    qtbot.addWidget(panel)
    panel._place_parts(tabbed=True)  # narrow: the two parts go into tabs, as on a projector at 1024 x 768
    assert [panel.tabs.tabText(v.index) for v in views.PANEL_VIEWS["fusion"]] == ["Chart", "Unfused vs fused"]
    assert panel.tabs.widget(1) is panel.savings
