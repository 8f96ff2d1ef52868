"""The warp visualizer's timeline tab: the followed warp beside a kernel chosen to compare."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpulab import experiments
from ui.panels.warp_timeline_tab import TimelineTab

SPECS = [s for s in experiments.kernel_catalogue().values() if not s.gpu_only]


@pytest.fixture
def tab(qtbot, services) -> TimelineTab:
    widget = TimelineTab(services.runner)
    qtbot.addWidget(widget)
    widget.fill_kernels(SPECS)
    widget.retranslate()
    widget.resize(800, 300)
    widget.show()
    return widget


def compared(qtbot, tab: TimelineTab, old=None):
    qtbot.waitUntil(lambda: tab.compare_session is not None and tab.compare_session is not old, timeout=10_000)
    return tab.compare_session


def test_filling_the_list_offers_no_kernel_then_every_kernel_with_the_twin_chosen_and_runs_nothing(tab, services):
    box = tab.compare_box
    assert box.count() == len(SPECS) + 1 and box.itemData(0) == "" and box.itemText(0) == "—"
    assert box.currentData() == "divergence_warp_aligned"
    assert tab.compare_label.text() == "Compare with:"
    assert tab.compare_job is None and services.runner.is_idle()


def test_choosing_another_kernel_with_the_keyboard_emulates_it_and_draws_its_first_warp(tab, qtbot):
    box = tab.compare_box
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Down)
    entry = box.currentData()
    assert entry and entry != "divergence_warp_aligned"
    session = compared(qtbot, tab)
    assert session.entry == entry
    assert tab.compare_timeline.timeline is not None and tab.compare_timeline.timeline.warp == session.warps[0]


def test_choosing_no_kernel_clears_the_comparison(tab, qtbot):
    tab.run_compare()
    compared(qtbot, tab)
    tab.compare_box.setFocus()
    qtbot.keyClick(tab.compare_box, Qt.Key.Key_Home)
    assert tab.compare_box.currentData() == ""
    assert tab.compare_session is None and tab.compare_timeline.timeline is None


def test_the_kernel_compared_runs_at_the_panels_size_where_it_has_one_else_at_its_first(tab, qtbot):
    twin = experiments.kernel("divergence_warp_aligned")
    tab.preset_name = "small"
    tab.run_compare()
    assert compared(qtbot, tab).shape.block == twin.preset("small").block
    old = tab.compare_session
    tab.preset_name = "no such size"
    tab.run_compare()
    assert compared(qtbot, tab, old).shape.block == twin.presets[0].block


def test_following_a_warp_shows_its_timeline_with_the_cursor_at_its_own_step(tab, qtbot):
    spec = experiments.kernel("divergence_even_odd")
    tab.compare_box.setCurrentIndex(tab.compare_box.findData(spec.entry))
    session = compared(qtbot, tab)
    assert session.rows > 1
    tab.follow(session, 1, spec, 3)
    assert tab.timeline.timeline.warp == session.warps[1] and tab.timeline.cursor.value() == 3.5
    shown = tab.timeline.timeline
    tab.follow(session, 1, spec, 4)  # the same warp: only the cursor moves
    assert tab.timeline.timeline is shown and tab.timeline.cursor.value() == 4.5


def test_a_newer_comparison_wins_over_one_still_running(tab, qtbot):
    first = tab.run_compare()
    tab.compare_box.setCurrentIndex(tab.compare_box.findData("vector_add"))
    second = tab.compare_job
    assert first is not None and second is not first
    qtbot.waitUntil(lambda: first.is_over and second.is_over, timeout=10_000)
    assert tab.compare_session is not None and tab.compare_session.entry == "vector_add"
