"""The live monitor strip: hidden sources say why, plots scroll, the sampler thread ends."""

from __future__ import annotations

import threading

import psutil

from gpulab.monitor import GpuSample, Sampler
from ui.widgets.monitor import MonitorStrip


def monitor_threads() -> int:
    return sum(t.name == "gpulab-monitor" for t in threading.enumerate())


def fake_gpu_sampler() -> Sampler:
    sample = GpuSample(0, "Toy GPU", utilization_pct=75.0, memory_used_bytes=8 << 30, memory_total_bytes=80 << 30,
                       sm_clock_mhz=1980.0, power_w=350.0, temperature_c=61.0, pcie_tx_bytes_s=2e9,
                       pcie_rx_bytes_s=1e9)  # fmt: skip
    return Sampler(hz=20, read_gpus=lambda: (sample,))


def test_without_nvml_only_the_cpu_plot_shows_and_a_line_says_why(qtbot):
    strip = MonitorStrip(Sampler(hz=20))
    qtbot.addWidget(strip)
    strip.show()
    if strip.gpu_source.available:
        return  # a machine with NVML: covered by the fake-GPU test
    assert strip.cpu_box.isVisible()
    assert strip.gpu_boxes == {} and strip.gpu_plots == {}  # not built only to be hidden
    assert strip.reason.isVisible() and "NVML" in strip.reason.text()
    assert not strip.caveat.isVisible()


def test_cpu_curves_get_one_line_per_core(qtbot):
    strip = MonitorStrip(Sampler(hz=20, use_nvml=False))
    qtbot.addWidget(strip)
    strip.show()
    qtbot.waitUntil(lambda: len(strip.sampler.history()) >= 2, timeout=5000)
    strip.refresh()
    assert len(strip.cpu_curves) == psutil.cpu_count()
    assert len(strip.cpu_curves[0].getData()[0]) >= 2


def test_gpu_counters_are_plotted_with_the_utilization_caveat(qtbot):
    strip = MonitorStrip(fake_gpu_sampler())
    qtbot.addWidget(strip)
    strip.show()
    qtbot.waitUntil(lambda: len(strip.sampler.history()) >= 2, timeout=5000)
    strip.refresh()
    assert len(strip.gpu_boxes) == 6 and all(box.isVisible() for box in strip.gpu_boxes.values())
    assert strip.caveat.isVisible() and "kernel was running" in strip.caveat.text()
    assert list(strip.gpu_curves["power"][0].getOriginalDataset()[1])[-1] == 350.0
    assert len(strip.gpu_curves["pcie"]) == 2  # TX and RX
    assert list(strip.gpu_curves["memory"][0].getOriginalDataset()[1])[-1] == 8.0


def test_the_sampler_runs_only_while_the_strip_is_shown(qtbot):
    strip = MonitorStrip(Sampler(hz=20, use_nvml=False))
    qtbot.addWidget(strip)
    assert not strip.sampler.running
    strip.show()
    assert strip.sampler.running and monitor_threads() == 1
    strip.hide()
    assert not strip.sampler.running and monitor_threads() == 0
    strip.show()
    assert strip.sampler.running
    strip.close()
    assert not strip.sampler.running and monitor_threads() == 0


def test_a_placeholder_says_samples_are_coming_until_two_make_a_line(qtbot):
    strip = MonitorStrip(Sampler(hz=20, use_nvml=False))
    qtbot.addWidget(strip)
    strip.show()
    assert strip.waiting.isVisible() and strip.waiting.text() == "Collecting samples…"
    qtbot.waitUntil(lambda: len(strip.sampler.history()) >= 2, timeout=5000)
    strip.refresh()
    assert not strip.waiting.isVisible()


def test_a_long_reason_wraps_inside_the_strip_instead_of_being_cut(qtbot):
    strip = MonitorStrip(Sampler(hz=20, use_nvml=False))
    qtbot.addWidget(strip)
    strip.reason.setText("GPU counters hidden: " + "a long reason that goes on " * 8)
    strip.resize(500, 200)
    strip.show()
    qtbot.wait(10)
    line = strip.reason.fontMetrics().height()
    assert strip.reason.height() >= 2 * line
    assert strip.reason.width() <= strip.width()
    assert not strip.reason.hasHeightForWidth()  # a scrolling panel stays its window's height
