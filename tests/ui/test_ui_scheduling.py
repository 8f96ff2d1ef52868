"""The scheduling lab as a user drives it: a policy chosen in its combo, Run clicked, the Gantt and
the squeue table filled, the cursor moved, the losses listed, and the page in Chinese."""

from __future__ import annotations

from tests.ui.walk import choose, click, click_tab, fill_form, open_panel, switch_language, wait_idle


def _run_small(qtbot, window, policy: str):
    panel = open_panel(qtbot, window, "scheduling")
    assert panel.provenance == "modelled"  # before any run: nothing here is measured
    fill_form(qtbot, panel.editors, {"gpus": "512", "hours": "48"})
    choose(qtbot, panel.editors["policy"], policy)
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None
    return panel


def test_run_fills_the_gantt_and_the_queue_at_the_cursor(qtbot, window):
    panel = _run_small(qtbot, window, "backfill")
    assert panel.last_result.params["policy"] == "backfill" and panel.last_result.params["gpus"] == 512
    assert panel.gantt.bar_count > 0
    assert panel.queue_table.rowCount() > 0
    states = {panel.queue_table.item(i, 3).text() for i in range(panel.queue_table.rowCount())}
    assert "R" in states
    assert "24.0 h" in panel.cursor_label.text()  # the cursor starts half way through the 48 h
    # the squeue and sinfo counts are all on the page at 1024 x 768, none only in a tooltip
    assert "sinfo" in panel.cursor_label.text() and "…" not in panel.cursor_label.text()
    assert panel.cursor_label.text() == panel.cursor_label.full_text
    panel.gantt.cursor.setValue(0.0)  # dragged to the start: nothing has arrived and run yet, or little
    assert "At 0.0 h" in panel.cursor_label.text()
    click_tab(qtbot, panel.tabs, 2)
    assert panel.lost_table.rowCount() == 9 and panel.provenance == "modelled"


def test_in_chinese_the_tabs_and_the_losses_are_chinese(qtbot, window):
    panel = _run_small(qtbot, window, "fifo")
    switch_language(window, "zh")
    try:
        assert panel.tabs.tabText(2) != "Lost GPU-hours"
        causes = [panel.lost_table.item(i, 0).text() for i in range(panel.lost_table.rowCount())]
        assert "故障后重做的工作" in causes
        assert "小时" in panel.cursor_label.text() and "…" not in panel.cursor_label.text()
        classes = {panel.queue_table.item(i, 1).text() for i in range(panel.queue_table.rowCount())}
        assert classes and classes <= {"大", "中", "小"}  # the job classes read in Chinese too
    finally:
        switch_language(window, "en")
