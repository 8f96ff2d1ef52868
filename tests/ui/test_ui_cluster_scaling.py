"""The scaling explorer as a user drives it: real sliders, the planner table, the Llama 3 line, a Run."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from tests.ui.walk import choose, click, open_panel, type_into, wait_idle


def test_pressing_the_arrow_key_on_the_message_slider_redraws_the_allreduce_curves(qtbot, window):
    panel = open_panel(qtbot, window, "cluster-scaling")
    before = panel.explorer.numbers()["allreduce"]
    slider = panel.explorer.sliders.message.qslider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Right)  # twice the bytes: the bandwidth term doubles
    after = panel.explorer.numbers()["allreduce"]
    assert after.keys() == before.keys() and all(a[-1] > b[-1] for a, b in zip(after.values(), before.values(),
                                                                               strict=True))
    assert panel.provenance == "modelled"


def test_clicking_the_left_end_of_the_gpu_slider_shrinks_the_job_and_its_failures(qtbot, window):
    panel = open_panel(qtbot, window, "cluster-scaling")
    explorer = panel.explorer
    slider = explorer.sliders.gpus.qslider
    for _ in range(20):  # a click on the groove pages toward it, as on any QSlider
        qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=QPoint(3, slider.height() // 2))
    assert explorer.sliders.gpus.value() == 1
    assert explorer.figs.here.interruptions_per_day < 0.01
    assert "Meta's paper: 8.6 (7.8 unexpected)" in explorer.llama_line.text()


def test_the_planner_table_flags_plans_that_do_not_fit_and_says_why(qtbot, window):
    panel = open_panel(qtbot, window, "cluster-scaling")
    choose(qtbot, panel.editors["recompute"], "selective")  # Llama 3 405B's activations no longer fit at TP 8
    type_into(qtbot, panel.editors["tp"], "8")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    table = panel.explorer.table
    flagged = table.flagged_rows()
    assert flagged and all(table.cell(row, 4) == "no" for row in flagged)
    assert all("usable" in table.cell(row, 8) for row in flagged)
    assert {table.cell(row, 1) for row in range(table.rowCount())} == {"8"}
