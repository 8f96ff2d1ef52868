"""The PCIe-transfer lab panel, driven as a user: open it from the sidebar, pick, type, click Run;
the plot's link lines and percentages, the grouped legend, the round-trip bars, both languages."""

from __future__ import annotations

import pytest

from gpulab import cuda
from gpulab.devices import CudaStatus
from gpulab.experiments import Context, drive, transfer
from gpulab.results import Point, Provenance, Result, Series
from tests.ui.walk import JOB_TIMEOUT_MS, choose, click, click_tab, open_panel, switch_language, type_into, wait_idle
from ui.panels.transfer import TransferPanel, link_rates, main_series


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    """Runs here model the links, on any machine (a real GPU sweep would take its whole budget)."""
    monkeypatch.setattr(cuda, "cuda_status", lambda: CudaStatus(False, "no GPU in this test", "no-device"))


def _run(qtbot, window, panel) -> Result:
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window, JOB_TIMEOUT_MS)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.run_button.isEnabled(), timeout=JOB_TIMEOUT_MS)
    return panel.last_result


def test_a_run_without_a_gpu_draws_the_modelled_links_with_their_rates_and_the_batching_bars(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    assert isinstance(panel, TransferPanel) and panel.heading.text().startswith("PCIe transfers")
    type_into(qtbot, panel.editors["sizes"].edit, "4096, 2^20, 2^28")
    result = _run(qtbot, window, panel)
    assert len(panel.plot.curves) == 6  # Gen3/4/5 x pinned/pageable; the batching and both-ways bars are no curves
    assert not any("both ways at once" in name for name in panel.plot.curves)
    assert not any(name.startswith(("1024 round trips", "one batched")) for name in panel.plot.curves)
    assert [line.label.format for line in panel.plot.levels] == [
        "PCIe Gen3 x16: 15.8 GB/s", "PCIe Gen4 x16: 31.5 GB/s", "PCIe Gen5 x16: 63.0 GB/s"]
    top = panel.plot.getViewBox().viewRange()[1][1]
    assert top > 63.0  # the fastest link's line is in view, above every point
    assert [label.toPlainText() for label in panel.plot.point_labels] == ["1%", "68%", "85%"]  # Gen4, pinned
    gen4 = next(name for name in panel.plot.curves if name.startswith("Gen4") and "pinned" in name)
    colour = panel.plot.curves[gen4].opts["pen"].color()  # the percentages read as that curve's
    assert all(label.color == colour for label in panel.plot.point_labels)
    window.set_theme("dark")  # a new theme recolours the curve, and its percentages with it
    try:
        qtbot.waitUntil(lambda: panel.plot.curves[gen4].opts["pen"].color() != colour)
        new = panel.plot.curves[gen4].opts["pen"].color()
        qtbot.waitUntil(lambda: all(label.color == new for label in panel.plot.point_labels))
    finally:
        window.set_theme("light")
    assert panel.legend.text().count("MODELLED") == 1  # said once for the six links
    click_tab(qtbot, panel.tabs, 1)
    assert panel.bars.isVisible()
    assert "one batch is 62× faster" in panel.bars.title.text()
    assert [label.text() for label in panel.bars.times] == ["20.79 ms", "0.33 ms"]
    assert panel.bars.bars[0].fraction == 1.0 and panel.bars.bars[1].fraction < 0.05
    assert result.get_series("model-batch-round-trips") is not None


def test_the_both_ways_tab_sets_each_direction_both_ways_at_once_against_one_way(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    type_into(qtbot, panel.editors["sizes"].edit, "4096, 2^28")
    result = _run(qtbot, window, panel)
    click_tab(qtbot, panel.tabs, 2)
    assert panel.tabs.tabText(2) == "Both ways at once" and panel.both_ways.isVisible()
    assert "PCIe Gen4 x16" in panel.both_ways.title.text() and "256 MiB" in panel.both_ways.title.text()
    names = [label.text() for label in panel.both_ways.names]
    assert names == ["host → GPU, one way at a time", "host → GPU, both ways at once",
                     "GPU → host, one way at a time", "GPU → host, both ways at once"]  # fmt: skip
    h2d, d2h = (result.get_series(f"model-both-{way}").points[-1] for way in ("h2d", "d2h"))
    rates = [label.text() for label in panel.both_ways.rates]
    assert rates == [f"{h2d.extra['one_way_gb_s']:.1f} GB/s", f"{h2d.y:.1f} GB/s",
                     f"{d2h.extra['one_way_gb_s']:.1f} GB/s", f"{d2h.y:.1f} GB/s"]  # fmt: skip
    fractions = [bar.fraction for bar in panel.both_ways.bars]
    assert fractions[0] == 1.0 and fractions[1] < 0.5 < 0.9 < fractions[3]  # in loses half, out keeps most


def test_without_both_directions_the_both_ways_tab_is_empty(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    choose(qtbot, panel.editors["directions"], "h2d")
    type_into(qtbot, panel.editors["sizes"].edit, "4096, 2^24")
    _run(qtbot, window, panel)
    click_tab(qtbot, panel.tabs, 2)
    assert not panel.both_ways.isVisible()


def test_choosing_one_direction_and_pinned_memory_models_only_those(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    choose(qtbot, panel.editors["memory"], "pinned")
    choose(qtbot, panel.editors["directions"], "h2d")
    type_into(qtbot, panel.editors["model_gens"], "4")
    type_into(qtbot, panel.editors["sizes"].edit, "4096, 2^24")
    _run(qtbot, window, panel)
    assert list(panel.plot.curves) == ["Gen4 x16, pinned"]
    assert len(panel.plot.levels) == 1


def test_a_bad_size_is_refused_with_the_field_named_and_nothing_runs(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    seen = []
    window.services.notifier.message.connect(lambda *args: seen.append(args))
    type_into(qtbot, panel.editors["sizes"].edit, "4096, 2^31")
    click(qtbot, panel.run_button)
    assert panel.job is None and panel.last_result is None
    assert any("sizes" in str(args) for args in seen)


def test_in_chinese_the_tabs_lines_and_bars_speak_chinese(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    type_into(qtbot, panel.editors["sizes"].edit, "4096, 2^28")
    _run(qtbot, window, panel)
    switch_language(window, "zh")
    assert panel.tabs.tabText(0) == "拷贝大小" and panel.tabs.tabText(1) == "往返与合批"
    assert panel.heading.text().startswith("PCIe 传输")
    assert "PCIe Gen4 x16：31.5 GB/s" in [line.label.format for line in panel.plot.levels]
    assert "让数据留在 GPU 上" in panel.bars.title.text() and "模型估算" in panel.bars.title.text()
    assert "锁页内存" in panel.legend.text()
    assert panel.bars.names[0].text() == "1024 次往返 × 4 KiB（模型）"
    assert panel.tabs.tabText(2) == "双向同时拷贝" and "双向同时拷贝" in panel.both_ways.title.text()
    assert panel.both_ways.names[1].text() == "主机 → GPU，双向同时拷贝"
    directions, memory = panel.editors["directions"], panel.editors["memory"]
    # The choices are words in the interface language; what a script types stays each item's data.
    assert [directions.itemText(i) for i in range(3)] == ["两个方向", "主机 → GPU", "GPU → 主机"]
    assert [memory.itemText(i) for i in range(3)] == ["锁页与可分页", "锁页内存", "可分页内存"]
    assert [memory.itemData(i) for i in range(3)] == ["both", "pinned", "pageable"]
    assert panel.editors["sizes"].combo.currentText().startswith("标准：")  # the preset, named in Chinese
    switch_language(window, "en")
    assert directions.itemText(1) == "host → GPU" and memory.currentText() == "pinned and pageable"
    assert panel.editors["sizes"].combo.currentText().startswith("Standard: ")


def _measured_result() -> Result:
    """A run on a (faked) GPU: measured copies beside the model of its own link."""
    provenance = Provenance("measured", "NVIDIA H100 PCIe", {"link": "PCIe Gen5 x16", "link_gb_s_per_direction": 63.0})
    points = (Point(4096, 0.6, extra={"percent_of_peak": 1.0, "seconds": 7e-6}),
              Point(1 << 28, 52.0, extra={"percent_of_peak": 82.5, "seconds": 5.2e-3}))  # fmt: skip
    measured = Series("host → GPU, pinned", provenance, "bytes per copy", "B", "bandwidth", "GB/s", points,
                      role="gpu", key="h2d-pinned")  # fmt: skip
    modelled = drive(transfer.run(transfer.Params(sizes=(4096, 1 << 28), memory="pinned"), Context()))
    return Result("transfer", {}, (measured, *modelled.series))


def test_a_measured_run_shows_the_pinned_efficiency_line_and_its_percent_in_the_legend(qtbot, window):
    panel = open_panel(qtbot, window, "transfer")
    result = _measured_result()
    assert main_series(result).key == "h2d-pinned"
    assert link_rates(result)["PCIe Gen5 x16"] == 63.0
    panel.show_result(result)
    formats = [line.label.format for line in panel.plot.levels]
    assert "PCIe Gen5 x16: 63.0 GB/s" in formats and "85%: pinned, in practice" in formats
    assert "host → GPU, pinned" in panel.legend.text() and "up to 82% of the link" in panel.legend.text()
    assert [label.toPlainText() for label in panel.plot.point_labels] == ["1%", "82%"]
