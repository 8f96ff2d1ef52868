"""The warp visualizer's run state, as a user meets it: Cancel, progress, the time limit,
edited and failed runs greyed as the previous run, truthful jump texts, metric colours."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt

from gpulab.experiments import warp as ws
from ui import i18n
from ui.panels.warp import WarpPanel
from ui.widgets.metrics_strip import BELOW, FAIR, GOOD, METRICS, POOR, rating

CJK = re.compile(r"[\u4e00-\u9fff]")
LOOP = "while (v != 0u || v == 0u) { v = v + 1u; }"


@pytest.fixture
def panel(warp_panel):
    return warp_panel


def with_infinite_loop(panel: WarpPanel) -> tuple[str, int]:
    """The even/odd kernel with a loop that never ends after its first load; (source, loop line)."""
    source = panel.code.source().replace("unsigned int v = in[i];", "unsigned int v = in[i]; " + LOOP, 1)
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "while (v" in text)
    return source, line


def type_time_limit(qtbot, panel: WarpPanel, seconds: int) -> None:
    box = panel.controls.limit_box
    box.selectAll()
    qtbot.keyClicks(box, str(seconds))
    assert box.value() == seconds


def test_editing_the_code_greys_the_previous_run_and_says_edited_not_run_yet(panel, qtbot):
    assert panel.metrics.badge.kind == "emulated" and not panel.lanes.stale
    panel.code.setFocus()
    qtbot.keyClicks(panel.code, " ")
    assert "Edited — not run yet" in panel.status.text()
    assert "previous run" in panel.status.text()
    assert panel.lanes.stale and panel.metrics.graphicsEffect() is not None
    assert panel.metrics.badge.kind == "" and panel.provenance == ""
    old = panel.session
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.session is not old, timeout=10_000)
    assert "Edited" not in panel.status.text() and "previous run" not in panel.status.text()
    assert not panel.lanes.stale and panel.metrics.badge.kind == "emulated"


def test_cancel_stops_an_infinite_loop_that_showed_its_progress_and_keeps_the_code_view_still(panel, qtbot, services):
    source, _line = with_infinite_loop(panel)
    # The columns settle once the first run's texts are laid out (a re-wrap moves the scroll range).
    qtbot.waitUntil(lambda: abs(panel.tab_area.upper.sizes()[0] - panel.tab_area.upper.sizes()[1]) <= 1)
    panel.code.setPlainText(source)
    panel.code.verticalScrollBar().setValue(panel.code.verticalScrollBar().maximum())
    scrolled = panel.code.verticalScrollBar().value()
    type_time_limit(qtbot, panel, 60)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.cancel_button.isEnabled() and panel.controls.progress.isVisible()
    qtbot.waitUntil(lambda: "warp-steps" in panel.status.text(), timeout=15_000)
    assert panel.controls.progress.value() > 0
    qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    assert "cancelled" in panel.status.text() and "previous run" in panel.status.text()
    assert not panel.cancel_button.isEnabled() and not panel.controls.progress.isVisible()
    assert panel.lanes.stale and panel.provenance == ""
    assert panel.code.verticalScrollBar().value() == scrolled
    assert "crashed" not in panel.status.text()


def test_the_time_limit_stops_a_runaway_loop_naming_its_line_under_it_without_a_banner(panel, qtbot, services):
    source, line = with_infinite_loop(panel)
    panel.code.setPlainText(source)
    type_time_limit(qtbot, panel, 1)
    errors_before = len(services.notifier.history)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=20_000)
    text = panel.code.error_text
    assert f"a possible infinite loop at line {line}" in text and "time limit" in text
    assert "crashed" not in text and "Not a crash" in text
    assert panel.code.error_line == line and panel.code.error_note.isVisible()
    line_bottom = panel.code.blockBoundingGeometry(panel.code.document().findBlockByNumber(line - 1)).translated(
        panel.code.contentOffset()
    )
    assert panel.code.error_note.y() >= line_bottom.bottom()  # under its line, which stays in view
    assert 0 <= line_bottom.top() < panel.code.viewport().height()
    assert len(services.notifier.history) == errors_before  # shown at its line, not as a banner
    assert panel.lanes.stale and "previous run" in panel.status.text()
    panel.code.setFocus()
    qtbot.keyClicks(panel.code, " ")
    assert not panel.code.error_note.isVisible()


def test_in_chinese_a_step_budget_stop_is_worded_in_chinese(panel, qtbot):
    source, line = with_infinite_loop(panel)
    panel.code.setPlainText(source)
    i18n.set_language("zh")
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    panel.job.cancel()  # a small budget instead: run again through the engine's limits
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    type_time_limit(qtbot, panel, 1)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=20_000)
    assert CJK.search(panel.code.error_text) and f"第 {line} 行可能是死循环" in panel.code.error_text
    assert "possible infinite loop" not in panel.code.error_text
    i18n.set_language("en")
    assert "possible infinite loop" in panel.code.error_text and not CJK.search(panel.code.error_text)


def test_next_divergence_at_the_last_divergent_step_says_there_is_no_further_one(panel, qtbot):
    session = panel.session
    last = session.divergent_steps()[-1]
    panel.set_cursor(last)
    qtbot.mouseClick(panel.transport.divergence_button, Qt.MouseButton.LeftButton)
    assert panel.cursor == last
    text = panel.step_label.text()
    assert f"No further divergent branch after step {last + 1}" in text
    assert "No divergent branch after this step" not in text


def test_the_kernels_purpose_is_on_screen(panel):
    assert panel.description.isVisible() and panel.description.text()
    assert panel.description.geometry().bottom() < panel.height()


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("branch_efficiency", 99.2, GOOD),
        ("branch_efficiency", 85.0, FAIR),
        ("branch_efficiency", 50.0, POOR),
        ("gld_transactions_per_request", 4.0, GOOD),
        ("gld_transactions_per_request", 3.25, BELOW),
        ("gld_transactions_per_request", 16.0, POOR),
    ],
)
def test_metrics_are_rated_by_distance_from_their_ideal_in_the_worse_direction(key, value, expected):
    spec = next(s for s in METRICS if s.key == key)
    assert rating(value, spec) == expected


def test_a_metric_under_its_ideal_is_not_green_and_says_it_is_under_the_ideal(panel):
    cell = panel.metrics.cells["gld_transactions_per_request"]
    panel.metrics.set_metrics({"gld_transactions_per_request": 3.25, "gld_requests": 4, "branch_efficiency": 99.2})
    assert "under the ideal 4" in cell.ideal.text()
    assert cell.value.styleSheet() == ""
    assert "#1b7f3b" in panel.metrics.cells["branch_efficiency"].value.styleSheet()


def test_a_failed_run_draws_the_previous_runs_lanes_grey_as_its_status_says(panel, qtbot):
    from PySide6.QtGui import QColor

    from ui.widgets.lane_grid import STATE_COLOURS

    def cell_colour() -> QColor:
        cells = panel.lanes.cells_rect()
        image = panel.lanes.graphics.grab().toImage()
        return QColor(image.pixel(round(cells.left() + cells.width() / 64), round(cells.top() + 3)))

    active = QColor(STATE_COLOURS[ws.LANE_ACTIVE])
    qtbot.waitUntil(lambda: cell_colour() == active, timeout=5_000)  # warp 0, lane 0: active at the first step
    panel.code.setFocus()
    qtbot.keyClicks(panel.code, "}}}")  # a syntax error
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.run_state.state == "failed", timeout=10_000)
    assert "previous run" in panel.status.text()
    grey = cell_colour()
    assert max(grey.red(), grey.green(), grey.blue()) - min(grey.red(), grey.green(), grey.blue()) <= 6
    assert grey != active
