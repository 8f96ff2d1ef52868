"""The memory-wall panel, driven as a user: type a tiny sweep, click Run, read the ceilings,
the cache markers and each curve's percent of its ceiling."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QLineEdit

from gpulab.results import Point, Provenance, Result, Series
from tests.ui.walk import JOB_TIMEOUT_MS, click, open_panel, type_into, wait_idle
from ui.panels.bandwidth import BandwidthPanel, ceilings, cpu_caches, end_percent, last_cache_bytes


def _run_tiny(qtbot, panel: BandwidthPanel) -> Result:
    type_into(qtbot, panel.editors["working_sets"].edit, "4096, 2^16")
    type_into(qtbot, panel.editors["operations"], "copy, triad")
    type_into(qtbot, panel.editors["forms"], "numpy-out, fused, compiled")
    type_into(qtbot, panel.editors["seconds_per_point"], "0.001")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    return panel.last_result


def test_a_run_draws_the_cpu_and_model_ceilings_the_caches_and_each_curves_percent(qtbot, window):
    panel = open_panel(qtbot, window, "bandwidth")
    assert isinstance(panel, BandwidthPanel) and panel.heading.text().startswith("Memory wall")
    assert isinstance(panel.editors["operations"], QLineEdit)  # several operations, typed in one field
    result = _run_tiny(qtbot, panel)
    assert result.experiment == "bandwidth"
    levels = [line.label.format for line in panel.plot.levels]
    assert any(text.startswith("CPU best triad") for text in levels)
    assert any(text.startswith("H100 SXM5 spec 3350") for text in levels)  # the modelled GPU's spec sheet
    assert [line.marker_text for line in panel.plot.markers] == [name for name, _size in cpu_caches(result)]
    legend = panel.legend.text()
    assert "CPU compiled triad (Numba loop)" in legend and "CPU fused triad (numexpr)" in legend
    for series in result.series:
        found = end_percent(series, last_cache_bytes(result, series))  # None: every point past the cache flagged
        assert found is None or f"{found[0]:.0f}% of ceiling" in legend
    assert "(x1e" not in panel.plot.getPlotItem().getAxis("bottom").labelString()  # the ticks say KiB ... GiB
    wait_idle(qtbot, window)


def test_the_panel_speaks_chinese_after_a_language_switch(qtbot, window):
    from tests.ui.walk import switch_language

    panel = open_panel(qtbot, window, "bandwidth")
    _run_tiny(qtbot, panel)
    switch_language(window, "zh")
    assert panel.heading.text().startswith("内存墙")
    assert any(line.label.format.startswith("CPU 最佳 triad") for line in panel.plot.levels)
    assert "上限的" in panel.legend.text()
    switch_language(window, "en")
    wait_idle(qtbot, window)


def _measured_gpu_result() -> Result:
    details = {"ceiling": 4800.0, "ceiling_source": "NVIDIA H200 spec sheet"}
    gpu = Series("GPU triad (kernel)", Provenance("measured", "NVIDIA H200", details), "working set", "B",
                 "bandwidth", "GB/s", (Point(1 << 20, 900.0, extra={"percent_of_peak": 18.75}),
                                        Point(1 << 30, 4400.0, extra={"percent_of_peak": 91.7})),
                 role="gpu", key="gpu-triad")  # fmt: skip
    memory = {"caches": [{"level": 1, "kind": "Data", "size_bytes": 32768}]}
    return Result("bandwidth", {}, (gpu,), host={"hostname": "lab", "memory": memory})


def test_a_measured_gpu_gets_its_spec_ceiling_its_l2_marker_and_its_percent(qtbot, window):
    panel = open_panel(qtbot, window, "bandwidth")
    result = _measured_gpu_result()
    panel.show_result(result)
    assert list(ceilings(result)) == [("gpu", 4800.0, "NVIDIA H200")]
    assert [line.label.format for line in panel.plot.levels] == ["H200 spec 4800 GB/s"]
    assert [line.marker_text for line in panel.plot.markers] == ["L1", "GPU L2"]
    assert "92% of ceiling" in panel.legend.text()  # where the curve ends, not its best point


def test_a_cpu_curve_also_shows_its_percent_of_the_dram_rate_when_the_firmware_gave_one(qtbot, window):
    panel = open_panel(qtbot, window, "bandwidth")
    extra = {"percent_of_peak": 100.0, "percent_of_dram_theoretical": 62.5}
    points = (Point(1 << 28, 32.0, extra=extra),)
    cpu = Series("CPU fused triad (numexpr)", Provenance("measured", "CPU", {"ceiling": 32.0}), "working set", "B",
                 "bandwidth", "GB/s", points, role="cpu", key="cpu-fused-triad")  # fmt: skip
    panel.show_result(Result("bandwidth", {}, (cpu,)))
    assert "100% of ceiling, 62% of DRAM" in panel.legend.text()
    assert [line.label.format for line in panel.plot.levels] == ["CPU best triad 32 GB/s"]


def test_a_flagged_last_point_is_not_where_the_memory_wall_percent_is_read(qtbot, window):
    panel = open_panel(qtbot, window, "bandwidth")
    result = _measured_gpu_result()
    gpu = result.series[0]
    spike = Point(1 << 31, 9000.0, extra={"percent_of_peak": 187.5, "noisy": True, "noise": ["spread"]})
    panel.show_result(replace(result, series=(replace(gpu, points=(*gpu.points, spike)),)))
    legend = panel.legend.text()
    assert "92% of ceiling" in legend and "188%" not in legend  # the last clean point, not the flagged one


def test_a_curve_whose_largest_working_set_was_flagged_claims_no_percent_of_the_ceiling():
    from gpulab.results import Point, Provenance, Series

    def point(x: float, y: float, percent: float, **extra) -> Point:
        return Point(x=x, y=y, extra={"percent_of_peak": percent, **extra})

    in_cache, at_wall = point(2**20, 30.0, 124.0), point(2**28, 0.02, 0.1, noisy=True)

    def triad(*points: Point) -> Series:
        return Series("CPU compiled triad", Provenance("measured", "cpu"), "working set", "B", "bandwidth",
                      "GB/s", points)  # fmt: skip

    l3 = 32 * 2**20
    assert end_percent(triad(in_cache, at_wall), l3) is None  # not the cache's 124 %: the wall's point is hollow
    assert end_percent(triad(in_cache, point(2**28, 20.0, 87.0)), l3) == (87.0, 2**28)
