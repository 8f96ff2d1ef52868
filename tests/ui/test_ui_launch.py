"""The launch-overhead panel, driven as a user: pick the quick K preset, click Run, read the
curves and each series' cost per step at the largest K in the legend; badges by kind."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpulab import cuda
from gpulab.devices import CudaStatus
from gpulab.experiments.launch import K_PRESETS
from gpulab.results import Point, Provenance, Result, Series
from tests.ui.walk import JOB_TIMEOUT_MS, click, open_panel, switch_language, type_into, wait_idle
from ui.panels.launch import LaunchPanel, microseconds


@pytest.fixture
def no_gpu(monkeypatch):
    """The engine sees no GPU, whatever this machine has: the four GPU ways are modelled."""
    monkeypatch.setattr(cuda, "cuda_status", lambda: CudaStatus(False, "no GPU in this test", "no-device"))


def _run_quick(qtbot, panel: LaunchPanel) -> Result:
    editor = panel.editors["ks"]  # the preset list, picked with the arrow keys as on a closed combo box
    target = editor.values.index(dict(K_PRESETS)["quick"])
    editor.combo.setFocus()
    while editor.combo.currentIndex() < target:
        qtbot.keyClick(editor.combo, Qt.Key.Key_Down)
    assert editor.edit.text() == "1, 100, 10000"
    type_into(qtbot, panel.editors["n"], "256")
    type_into(qtbot, panel.editors["repeats"], "1")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    return panel.last_result


def test_run_draws_every_curve_and_labels_each_cost_per_step_at_the_largest_k(qtbot, window, no_gpu):
    panel = open_panel(qtbot, window, "launch")
    assert isinstance(panel, LaunchPanel) and panel.heading.text() == "Launch overhead & CUDA Graphs"
    result = _run_quick(qtbot, panel)
    assert result.experiment == "launch" and tuple(result.params["ks"]) == (1, 100, 10000)
    assert set(panel.plot.curves) == {s.name for s in result.series}
    assert all(len(panel.plot.points_of(s.name)) == 3 for s in result.series)
    legend = panel.legend.text()
    for series in result.series:
        assert f"K=10000: {microseconds(series.points[-1].y)} µs" in legend
    graph = next(s for s in result.series if s.key == "model-graph")
    # (2.7 + 10,000 · (0.45 + 0.5) µs) / 10,000: n = 256 on an H100 runs no shorter than an empty kernel
    assert microseconds(graph.points[-1].y) == "0.95"
    assert "K=10000: 2.7 µs" in legend  # one queued launch call of the (A100) host, modelled
    assert panel.plot.log_x and panel.plot.log_y
    wait_idle(qtbot, window)


def test_badges_say_measured_for_the_cpu_and_modelled_for_the_gpu_ways(qtbot, window, no_gpu):
    panel = open_panel(qtbot, window, "launch")
    result = _run_quick(qtbot, panel)
    kinds = panel.plot.kinds
    for series in result.series:
        assert kinds[series.name] == ("measured" if series.role == "cpu" else "modelled"), series.key
    assert window.badge.kind == "modelled"  # the weakest kind shown names the page
    wait_idle(qtbot, window)


def _measured_result() -> Result:
    prov = Provenance("measured", "NVIDIA H200")

    def series(key: str, name: str, role: str, ys: tuple[float, float]) -> Series:
        points = (Point(1, ys[0], extra={"seconds": ys[0] / 1e6}), Point(10000, ys[1], extra={"seconds": ys[1] / 100}))
        return Series(name, prov, "steps K", "", "time per step", "µs", points, role=role, key=key)

    return Result("launch", {"ks": [1, 10000]}, (
        series("cpu-k-calls", "CPU numpy: K calls of a += c", "cpu", (1.0, 0.8)),
        series("gpu-async", "GPU: K launches, queued (async)", "gpu", (12.0, 4.2)),
        series("gpu-graph", "GPU: CUDA Graph of K kernels, replayed", "gpu", (15.0, 1.1)),
    ))  # fmt: skip


def test_an_opened_measured_result_is_labelled_measured_with_its_own_figures(qtbot, window):
    panel = open_panel(qtbot, window, "launch")
    panel.show_result(_measured_result())
    assert window.badge.kind == "measured"
    assert "K=10000: 4.2 µs" in panel.legend.text()
    assert "K=10000: 1.1 µs" in panel.legend.text()


def test_the_panel_speaks_chinese_after_a_language_switch(qtbot, window, no_gpu):
    panel = open_panel(qtbot, window, "launch")
    _run_quick(qtbot, panel)
    switch_language(window, "zh")
    assert panel.heading.text() == "启动开销与 CUDA Graph"
    assert "K=10000：2.7 µs" in panel.legend.text()
    switch_language(window, "en")
    wait_idle(qtbot, window)


def test_small_values_are_written_without_losing_their_digits():
    assert microseconds(5.0) == "5" and microseconds(0.5029) == "0.503"
    assert microseconds(0.000098) == "9.80e-5"
