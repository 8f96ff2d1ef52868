"""The scaling explorer as a user drives it: real sliders, the planner table, the Llama 3 line, a Run."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, Qt

from tests.ui.walk import choose, click, click_tab, open_panel, type_into, wait_idle


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


def test_after_the_user_moves_two_sliders_the_view_shows_exactly_the_labs_own_figures(qtbot, window):
    from gpulab.experiments import cluster_scaling

    explorer = open_panel(qtbot, window, "cluster-scaling").explorer
    before = explorer.params
    for slider, key in ((explorer.sliders.rate, Qt.Key.Key_Right), (explorer.sliders.gpus, Qt.Key.Key_Left)):
        slider.qslider.setFocus()
        qtbot.keyClick(slider.qslider, key)
    params = explorer.params
    assert params.failures_per_gpu_year > before.failures_per_gpu_year and params.gpus < before.gpus
    lab = cluster_scaling.figures(params)  # what a Run with these Params computes and stores
    shown = explorer.numbers()["allreduce"]
    assert list(shown.values()) == [[s * 1e3 for _n, s in rows] for rows in lab.allreduce.values() if rows]
    curves = {name: [p.y for p in points] for name, points in explorer.scaling_plot.series.items()}
    assert curves["goodput, % of wall time"] == [r.goodput * 100 for r in lab.failures]
    assert curves["scaling efficiency, % of the ideal step"] == [p.efficiency * 100 for _n, p in lab.scaling if p]
    assert explorer.table.plans == lab.plans
    assert f"Goodput {lab.here.goodput * 100:.0f}% on {params.gpus:,} GPUs" in explorer.figures_line.text()
    assert f"model: {lab.llama3_model_per_day:.1f}/day" in explorer.llama_line.text()


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


def test_fitting_to_a_saved_collectives_run_draws_the_ring_on_that_link_and_a_run_keeps_it(
        qtbot, window, tmp_path, monkeypatch):  # fmt: skip
    from PySide6.QtWidgets import QFileDialog

    from tests.gpulab.experiments.test_exp_cluster_scaling import _saved_collectives

    path = _saved_collectives(tmp_path, alpha_s=20e-6, gb_s=4.0, ranks=4)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args: (str(path), "*.json"))
    panel = open_panel(qtbot, window, "cluster-scaling")
    assert not panel.no_fit_button.isEnabled() and "spec sheet only" in panel.fit_label.text()
    click(qtbot, panel.fit_button)
    fitted = [name for name in panel.explorer.numbers()["allreduce"] if "fitted" in name]
    assert len(fitted) == 1 and "allreduce.json: 4 GB/s, alpha 20 µs" in panel.fit_label.text()
    ring = panel.explorer.numbers()["allreduce"]["ring"]
    assert panel.explorer.numbers()["allreduce"][fitted[0]][-1] > ring[-1]  # 4 GB/s is slower than NVLink
    click(qtbot, panel.run_button)
    assert not panel.fit_button.isEnabled() and not panel.no_fit_button.isEnabled()  # while it runs
    wait_idle(qtbot, window)
    assert panel.last_result.params["fit_from"] == str(path) and panel.no_fit_button.isEnabled()
    assert panel.last_result.get_series("allreduce-ring-fitted") is not None
    assert any("Fitted to allreduce.json" in note for note in panel.last_result.notes)
    click(qtbot, panel.no_fit_button)
    assert not any("fitted" in name for name in panel.explorer.numbers()["allreduce"])


def test_a_file_that_is_not_a_collectives_result_is_refused_with_the_reason(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from gpulab.results import Result

    other = tmp_path / "matmul.json"
    Result("matmul", {}, ()).save(other)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args: (str(other), "*.json"))
    panel = open_panel(qtbot, window, "cluster-scaling")
    seen = []
    panel.services.notifier.message.connect(lambda *args: seen.append(args))
    click(qtbot, panel.fit_button)
    assert any("not of the collectives lab" in str(args) for args in seen)
    assert panel.explorer.local is None and not panel.no_fit_button.isEnabled()


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_on_a_projector_the_goodput_tab_keeps_a_readable_chart_and_says_the_goodput_first(qtbot, projector_window):
    window = projector_window
    panel = open_panel(qtbot, window, "cluster-scaling")
    click(qtbot, panel.run_button)  # a run's notes take their lines under the tabs
    wait_idle(qtbot, window)
    explorer = panel.explorer
    click_tab(qtbot, explorer.tabs, 1)
    plot = explorer.scaling_plot
    qtbot.waitUntil(plot.isVisible)
    qtbot.wait(100)  # the tab's layout (its plot is as tall as it likes until then)
    assert plot.height() >= 6 * explorer.fontMetrics().height()  # four tick labels and the GPU axis
    shown = explorer.figures_line.text()  # cut short if it must be, never before the goodput
    goodput = f"{explorer.figs.here.goodput * 100:.0f}%"
    assert re.search(r"(Goodput|有效产出 \(goodput\)) " + goodput, shown), shown
    assert explorer.figures_line.toolTip() == explorer.figures_line.full_text or "…" not in shown


def test_the_allreduce_tab_draws_nvlink_sharp_inside_a_node_and_says_why_not_on_an_a100(qtbot, window):
    panel = open_panel(qtbot, window, "cluster-scaling")
    explorer = panel.explorer
    nvls = explorer.numbers()["allreduce"]["NVLink SHARP"]
    assert len(nvls) == 1  # one node of 8: NVLS does not leave an NVSwitch node
    assert nvls[0] < explorer.numbers()["allreduce"]["ring"][0]  # faster than the ring at 8 GPUs
    assert "NVLink SHARP" in explorer.links_line.text() and "371" in explorer.links_line.text()
    choose(qtbot, panel.editors["model_gpu"], "a100-sxm4-80gb")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert "NVLink SHARP" not in explorer.numbers()["allreduce"]
    assert "compute capability 9.0" in explorer.links_line.text()  # why: A100's NVSwitches cannot reduce


def test_the_planner_marks_metas_layout_and_names_the_departure_when_recomputing_everything(qtbot, window):
    panel = open_panel(qtbot, window, "cluster-scaling")
    explorer = panel.explorer
    click_tab(qtbot, explorer.tabs, 2)
    qtbot.waitUntil(explorer.published_line.isVisible)
    assert "Meta's own layout, TP 8 × PP 16 × DP 128" in explorer.published_line.text()
    marked = [row for row in range(explorer.table.rowCount()) if "◆" in explorer.table.cell(row, 0)]
    assert [explorer.table.cell(row, 2) for row in marked] == ["16"]
    choose(qtbot, panel.editors["recompute"], "full")
    type_into(qtbot, panel.editors["interleave"], "1")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert "departs from Meta's published layout TP 8 × PP 16 × DP 128" in explorer.published_line.text()
    assert "smaller pipeline bubble" in explorer.published_line.text()


def test_unticking_the_overlap_box_makes_the_step_longer(qtbot, window):
    from tests.ui.walk import tick

    panel = open_panel(qtbot, window, "cluster-scaling")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    before = {p.x: p.extra["step_seconds"] for p in panel.last_result.get_series("plans").points}
    box = panel.editors["overlap"]
    assert box.isChecked()
    tick(qtbot, box)
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    after = {p.x: p.extra["step_seconds"] for p in panel.last_result.get_series("plans").points}
    assert panel.last_result.params["overlap"] is False
    assert all(after[x] >= before[x] for x in before) and any(after[x] > before[x] for x in before)


def test_the_efficiency_chart_names_its_baseline(qtbot, window):
    panel = open_panel(qtbot, window, "cluster-scaling")
    explorer = panel.explorer
    click_tab(qtbot, explorer.tabs, 1)
    assert any("% of the ideal step" in name for name in explorer.scaling_plot.series)
    assert "ideal step: the model's FLOPs at 47% of peak" in explorer.scaling_plot.plotItem.titleLabel.text
