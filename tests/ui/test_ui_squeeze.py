"""The squeeze page as a user meets it: the switches clicked, Run, the stacked bars, the verdict,
the trace written, and the page in Chinese."""

from __future__ import annotations

import json

from tests.ui.walk import JOB_TIMEOUT_MS, click, open_panel, switch_language, tick, wait_idle


def _run(qtbot, panel) -> None:
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.job is None, timeout=JOB_TIMEOUT_MS)


def _toggle(qtbot, panel, name: str) -> None:
    tick(qtbot, panel.editors[name])


def test_run_draws_a_stacked_bar_per_configuration_and_says_the_verdict(qtbot, window):
    panel = open_panel(qtbot, window, "squeeze")
    _run(qtbot, panel)
    keys = [s.key for s in panel.last_result.series]
    assert keys[0] == "baseline" and len(panel.bars) == len(keys)
    for drawn, series in zip(panel.stacked_ms(), panel.last_result.series, strict=True):
        assert abs(drawn - series.points[0].y) < 1e-6 * max(1.0, series.points[0].y)
    assert "claim" in panel.verdict.text() and "Why" in panel.verdict.text()
    assert panel.provenance == "modelled"
    assert panel.trace_button.isEnabled()
    wait_idle(qtbot, window)


def test_after_a_run_the_doctor_names_what_each_switch_removes(qtbot, window):
    panel = open_panel(qtbot, window, "squeeze")
    _run(qtbot, panel)
    qtbot.waitUntil(lambda: bool(panel.changes), timeout=JOB_TIMEOUT_MS)  # read on a worker thread
    assert [c.key for c in panel.changes] == [s.key for s in panel.last_result.series]
    prefetch = next(c for c in panel.changes if c.key == "prefetch")
    assert "data_loading" in prefetch.removed
    assert panel.doctor.isVisible()
    line = next(t for t in panel.doctor.full_text.splitlines() if t.startswith("+ prefetch"))
    assert line.startswith("+ prefetch removes: ") and "data loading starving the GPU" in line
    switch_language(window, "zh")
    line = next(t for t in panel.doctor.full_text.splitlines() if t.startswith("加上预取"))
    assert line.startswith("加上预取：消除了") and "数据加载让 GPU 挨饿" in line
    wait_idle(qtbot, window)


def test_unchecking_switches_shortens_the_ladder(qtbot, window):
    panel = open_panel(qtbot, window, "squeeze")
    _toggle(qtbot, panel, "fusion")
    _toggle(qtbot, panel, "cuda_graphs")
    assert not panel.editors["fusion"].isChecked()
    _run(qtbot, panel)
    assert [s.key for s in panel.last_result.series] == ["baseline", "prefetch", "prefetch+mixed_precision",
                                                         "mixed_precision-alone"]  # fmt: skip
    wait_idle(qtbot, window)


def test_export_trace_writes_a_chrome_trace(qtbot, window, tmp_path):
    panel = open_panel(qtbot, window, "squeeze")
    _run(qtbot, panel)
    path = tmp_path / "trace.json"
    assert panel.export_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    assert {e["cat"] for e in events} >= {"kernel", "gpu_memcpy", "cuda_runtime", "user_annotation"}
    wait_idle(qtbot, window)


def test_the_page_in_chinese(qtbot, window):
    panel = open_panel(qtbot, window, "squeeze")
    _run(qtbot, panel)
    switch_language(window, "zh")
    assert "讲解中的说法" in panel.verdict.text()
    assert panel.trace_button.text() == "导出 trace…"
    assert panel.bar_label(panel.bars[0]).startswith("基线")
    wait_idle(qtbot, window)
