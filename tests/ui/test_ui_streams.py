"""The streams panel as a user meets it: Run, the table of configurations, a click on a row, the
timeline with a real mouse over a bar, rows per engine, the diagnosis line, a saved result reopened,
Chinese; and the timeline widget on its own, from synthetic ops."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QToolTip

from gpulab.timeline import TimelineOp
from tests.ui.walk import JOB_TIMEOUT_MS, choose, click, open_panel, switch_language, type_into, wait_idle
from ui.theme import BOX_COLOURS, current_theme
from ui.widgets.timeline import TimelineChart, nice_step, time_text


def _run(qtbot, window):
    panel = open_panel(qtbot, window, "streams")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.job is None, timeout=JOB_TIMEOUT_MS)
    return panel


def _configurations(panel) -> list[str]:
    return [entry.point.extra["configuration"] for entry in panel.entries]


def _click_row(qtbot, panel, index: int) -> None:
    rect = panel.row_rect(index)
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_run_fills_the_table_and_shows_the_pinned_streams_overlapping(qtbot, window):
    panel = _run(qtbot, window)
    assert _configurations(panel) == ["one-stream", "pinned", "pageable", "default-stream"]
    group = panel.table.topLevelItem(0)
    assert group.text(0).startswith("Modelled: ") and group.childCount() == 4
    assert group.child(1).text(0) == "4 streams, pinned" and group.child(1).text(2).endswith("×")
    assert panel.chosen().point.extra["configuration"] == "pinned"
    assert panel.chart.rows() == ["stream 1", "stream 2", "stream 3", "stream 4"]
    assert len(panel.chart.bar_rects()) == 3 * 8
    assert panel.diagnosis.text().startswith("Overlap works")
    assert panel.provenance == "modelled" and panel.chart.kind == "modelled"
    wait_idle(qtbot, window)


def test_clicking_the_pageable_row_shows_its_serial_timeline_and_says_why(qtbot, window):
    panel = _run(qtbot, window)
    pinned_right = max(rect.right() for rect, _op in panel.chart.bar_rects())
    _click_row(qtbot, panel, 2)
    assert panel.chosen().point.extra["configuration"] == "pageable"
    assert "Pageable memory" in panel.diagnosis.text()
    bars = sorted(panel.chart.bar_rects(), key=lambda item: item[0].left())
    assert all(a[0].right() <= b[0].left() + 1 for a, b in pairwise(bars))  # one after another
    assert max(rect.right() for rect, _op in bars) > pinned_right  # the same time scale: it ends later
    _click_row(qtbot, panel, 3)
    assert "default stream" in panel.diagnosis.text()
    assert "default" in panel.chart.rows()  # the kernels' own lane
    wait_idle(qtbot, window)


def test_with_one_chunk_every_row_says_nothing_can_overlap_in_an_amber_box(qtbot, window):
    panel = open_panel(qtbot, window, "streams")
    type_into(qtbot, panel.editors["chunks"], "1")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.job is None, timeout=JOB_TIMEOUT_MS)
    amber = BOX_COLOURS[current_theme().name]["warn_bg"]
    for row in range(4):
        _click_row(qtbot, panel, row)
        assert panel.diagnosis.text().startswith("One chunk"), row
        assert "Overlap works" not in panel.diagnosis.text() and amber in panel.diagnosis.styleSheet()
    wait_idle(qtbot, window)


def test_moving_the_mouse_over_a_bar_names_the_op_its_stream_start_duration_and_bytes(qtbot, window):
    panel = _run(qtbot, window)
    rect, op = next((r, o) for r, o in panel.chart.bar_rects() if o.name == "H2D 1")
    qtbot.mouseMove(panel.chart, pos=rect.center().toPoint())
    qtbot.waitUntil(lambda: bool(panel.chart.hover_text), timeout=2000)
    text = panel.chart.hover_text
    lines = text.splitlines()
    assert lines[0] == "H2D 1" and lines[1] == "stream: stream 2"
    assert lines[2].startswith("start: ") and lines[3] == f"duration: {time_text(op.duration_s)}"
    assert lines[4] == "bytes: 8 MiB"
    assert QToolTip.text() == text or panel.chart.toolTip() == text
    qtbot.mouseMove(panel.chart, pos=QPoint(2, panel.chart.height() - 2))  # off every bar
    qtbot.waitUntil(lambda: panel.chart.hover_text == "", timeout=2000)
    wait_idle(qtbot, window)


def test_rows_per_engine_put_copies_in_compute_and_copies_out_on_their_engines(qtbot, window):
    panel = _run(qtbot, window)
    choose(qtbot, panel.rows_combo, "engine")
    assert panel.chart.rows() == ["h2d", "compute", "d2h"]
    rows = {op.kind: rect.center().y() for rect, op in panel.chart.bar_rects()}
    assert rows["h2d"] < rows["kernel"] < rows["d2h"]
    wait_idle(qtbot, window)


def test_a_saved_result_reopens_with_its_timelines(qtbot, window, tmp_path):
    panel = _run(qtbot, window)
    path = tmp_path / "streams.json"
    panel.last_result.save(path)
    panel.forget_run()
    assert panel.chart.bar_rects() == [] and panel.table.topLevelItemCount() == 0
    window.open_result(str(path))
    assert window.current_panel() is panel
    assert _configurations(panel) == ["one-stream", "pinned", "pageable", "default-stream"]
    assert len(panel.chart.bar_rects()) == 24 and panel.chart.kind == "modelled"  # replayed, drawn as what it was
    assert panel.provenance == "replayed" and panel.diagnosis.text().startswith("Overlap works")
    wait_idle(qtbot, window)


def test_in_chinese_the_table_rows_and_diagnosis_are_chinese(qtbot, window):
    panel = _run(qtbot, window)
    switch_language(window, "zh")
    assert panel.table.topLevelItem(0).text(0).startswith("模型估算")
    assert panel.table.topLevelItem(0).child(1).text(0) == "4 个流，锁页内存"
    assert "流 1" in [panel.chart.row_titles(key) for key in panel.chart.rows()]
    assert panel.diagnosis.text().startswith("重叠生效")
    wait_idle(qtbot, window)


# ---------------------------------------------------------------- the widget alone

SYNTHETIC = (
    TimelineOp("send", "rank 0", "link", 0.0, 2e-3, 1 << 20, "comm"),
    TimelineOp("gemm", "rank 0", "compute", 1e-3, 3e-3, 0, "kernel"),
    TimelineOp("recv", "rank 1", "link", 2e-3, 2e-3, 1 << 20, "comm"),
)


def _chart(qtbot) -> TimelineChart:
    chart = TimelineChart()
    qtbot.addWidget(chart)
    chart.resize(600, 300)
    chart.show()
    return chart


def test_the_chart_lays_bars_out_from_synthetic_ops_and_shares_a_time_scale(qtbot):
    chart = _chart(qtbot)
    chart.set_empty_text("nothing yet")
    assert chart.bar_rects() == []
    chart.set_ops(SYNTHETIC, "measured")
    assert chart.rows() == ["rank 0", "rank 1"] and chart.kinds() == ["kernel", "comm"]
    area = chart.plot_rect()
    send, gemm, recv = (rect for rect, _op in chart.bar_rects())
    assert abs(send.left() - area.left()) < 1 and abs(gemm.right() - area.right()) < 1  # 0 to 4 ms fills it
    assert send.top() == gemm.top() < recv.top()
    chart.set_ops(SYNTHETIC, "modelled", span_s=8e-3)  # a longer timeline's scale: half the width
    assert abs(chart.bar_rects()[1][0].right() - (area.left() + area.width() / 2)) < 1
    chart.set_grouping("engine")
    assert chart.rows() == ["compute", "link"]


def test_the_chart_names_a_hovered_op_and_its_rows_in_words(qtbot):
    chart = _chart(qtbot)
    chart.lane_noun = lambda: "rank"
    chart.set_ops(SYNTHETIC)
    rect, _op = chart.bar_rects()[2]
    seen = []
    chart.hovered.connect(seen.append)
    qtbot.mouseMove(chart, pos=rect.center().toPoint())
    qtbot.waitUntil(lambda: bool(seen), timeout=2000)
    assert seen[-1].splitlines()[:2] == ["recv", "rank: rank 1"] and "bytes: 1 MiB" in seen[-1]


def test_time_ticks_are_round_numbers_in_readable_units():
    assert nice_step(5.8e-3, 6) == 1e-3 and nice_step(5.8e-3, 3) == 2e-3
    assert time_text(1.5e-3) == "1.5 ms" and time_text(2.5e-6) == "2.5 µs" and time_text(0.0, 1e-3) == "0 ms"


def test_a_measured_configuration_timed_under_noise_shows_no_speedup_and_says_why(qtbot, window, monkeypatch):
    from gpulab import cuda
    from gpulab.devices import CudaStatus
    from gpulab.experiments.streams import gpu as streams_gpu

    def measured_runs(job, ways, ctx, notes):  # a GPU whose pinned runs disagree with each other
        for way in ways:
            ops = (TimelineOp("H2D 0", "stream 1", "copy", 0.0, 1e-3, 1024, "h2d"),
                   TimelineOp("kernel 0", "stream 1", "sm", 1e-3, 1e-3, 0, "kernel"),
                   TimelineOp("H2D 1", "stream 2", "copy", 1e-3, 1e-3, 1024, "h2d"),
                   TimelineOp("kernel 1", "stream 2", "sm", 2e-3, 1e-3, 0, "kernel"))  # fmt: skip
            totals = [3e-3, 9e-3, 3e-3, 20e-3, 3.1e-3] if way.key == "pinned" else [3e-3] * 5
            yield way, streams_gpu.MeasuredRun(ops, 5e-6, 4e-6, 0.5, 2, {"repeat_totals_s": totals})

    monkeypatch.setattr(cuda, "cuda_status", lambda: CudaStatus(True, "ok", "ok", cupy_version="13.6.0"))
    monkeypatch.setattr(streams_gpu, "measured_runs", measured_runs)
    panel = _run(qtbot, window)
    measured = panel.table.topLevelItem(0)
    assert measured.text(0).startswith("Measured")
    speedups = [measured.child(i).text(2) for i in range(measured.childCount())]
    assert speedups[1] == "—" and all(s.endswith("×") for s in speedups[:1] + speedups[2:])
    assert "repeats disagree" in measured.child(1).toolTip(2)
    _click_row(qtbot, panel, 1)
    assert panel.chosen().point.extra["configuration"] == "pinned"
    assert "No speed-up over one stream is stated" in panel.diagnosis.text()
    assert panel.last_result.notes[0].startswith("1 of 8 configurations")  # the run says so first
    switch_language(window, "zh")
    assert "不给出相对一个流的加速比" in panel.diagnosis.text()
    assert "各次重复结果不一致" in panel.table.topLevelItem(0).child(1).toolTip(2)  # the table was refilled in Chinese
    wait_idle(qtbot, window)
