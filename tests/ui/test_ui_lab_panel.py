"""The lab-panel platform: a fixed-experiment panel with ceilings, markers, percent notes, export,
and the navigator that sends a lab's kernel to the warp visualizer."""

from __future__ import annotations

import json
import math

from PySide6.QtCore import Qt

from gpulab.results import Point, Provenance, Result, Series
from tests.ui.walk import JOB_TIMEOUT_MS, click, type_into
from ui.panels.lab_panel import LabPanel, best_percent_of_peak
from ui.services import Services


class SaxpyLab(LabPanel):
    """A lab panel for the SAXPY lab, with a ceiling and a marker, as a memory lab draws them."""

    EXPERIMENT = "saxpy"

    def decorate(self, result: Result) -> None:
        super().decorate(result)
        self.plot.add_level(5.0, "ceiling 5 GB/s")
        self.plot.add_marker(1 << 14, "L1")


def _lab(qtbot, report) -> SaxpyLab:
    services = Services.create(probe=lambda: report)
    panel = SaxpyLab(services)
    qtbot.addWidget(panel)
    panel.resize(1024, 700)
    panel.show()
    services.devices.refresh()
    qtbot.waitUntil(lambda: services.devices.report is not None, timeout=5000)
    return panel


def _ended(panel: LabPanel) -> bool:
    return panel.job is None and panel.run_button.isEnabled()


def test_a_lab_panel_runs_its_own_experiment_from_its_run_button_and_decorates_the_plot(qtbot, device_reports):
    panel = _lab(qtbot, device_reports.no_gpu)
    assert panel.heading.text() == "SAXPY: numpy as written, numpy without temporaries, GPU"
    assert not panel.experiment_combo.isVisible()  # one lab, no choice
    assert not panel.export_button.isEnabled()  # nothing to export before a run
    type_into(qtbot, panel.editors["sizes"].edit, "2^10, 2^12")
    type_into(qtbot, panel.editors["repeats"], "1")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: _ended(panel) and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    assert panel.last_result.experiment == "saxpy"
    assert panel.export_button.isEnabled()
    assert [line.label.format for line in panel.plot.levels] == ["ceiling 5 GB/s"]
    assert [line.marker_text for line in panel.plot.markers] == ["L1"]
    # On a log x axis the marker sits at log10 of its size, and stays there when redrawn.
    marker = panel.plot.markers[0]
    expected = math.log10(1 << 14) if panel.plot.log_x else float(1 << 14)
    assert math.isclose(marker.value(), expected)


def test_running_again_leaves_one_set_of_decorations(qtbot, device_reports):
    panel = _lab(qtbot, device_reports.no_gpu)
    type_into(qtbot, panel.editors["sizes"].edit, "2^10")
    type_into(qtbot, panel.editors["repeats"], "1")
    for _ in range(2):
        click(qtbot, panel.run_button)
        qtbot.waitUntil(lambda: _ended(panel) and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    assert len(panel.plot.levels) == 1 and len(panel.plot.markers) == 1


def _result_with_peaks() -> Result:
    prov = Provenance("measured", "Test H100")
    points = (Point(1024, 100.0, extra={"percent_of_peak": 40.0}), Point(4096, 250.0, extra={"percent_of_peak": 87.4}))
    series = Series("GPU (CUDA kernel)", prov, "elements", "", "bandwidth", "GB/s", points, role="gpu")
    return Result("saxpy", {}, (series,))


def test_each_series_shows_its_best_percent_of_peak_in_the_legend(qtbot, device_reports):
    panel = _lab(qtbot, device_reports.no_gpu)
    panel.show_result(_result_with_peaks())
    assert best_percent_of_peak(panel.last_result.series[0].points) == 87.4
    assert "up to 87% of peak" in panel.legend.text()


def test_a_result_of_another_lab_is_refused_with_a_message(qtbot, device_reports):
    panel = _lab(qtbot, device_reports.no_gpu)
    seen = []
    panel.services.notifier.message.connect(lambda *args: seen.append(args))
    panel.show_result(Result("matmul", {}, ()))
    assert panel.last_result is None
    assert any("matmul" in str(args) for args in seen)


def test_export_writes_the_plot_and_the_result(qtbot, device_reports, tmp_path):
    panel = _lab(qtbot, device_reports.no_gpu)
    panel.show_result(_result_with_peaks())
    assert panel.export_button.isEnabled()
    for fmt in ("png", "csv", "json"):
        panel.export_button.ask_path = lambda f: str(tmp_path / f"out.{f}")
        panel.export_button.menu().actions()[("png", "svg", "csv", "json").index(fmt)].trigger()
        assert (tmp_path / f"out.{fmt}").stat().st_size > 0
    assert json.loads((tmp_path / "out.json").read_text())["experiment"] == "saxpy"


def test_the_navigator_opens_a_kernel_in_the_warp_visualizer(qtbot, window):
    window.services.navigator.open_kernel("saxpy", "small")
    warp = window.panels["warp"]
    assert window.current_panel() is warp
    assert warp.kernel_box.currentData() == "saxpy"
    assert warp.preset_box.currentData() == "small"
    qtbot.waitUntil(window.services.runner.is_idle, timeout=JOB_TIMEOUT_MS)


def test_the_navigator_says_so_when_the_kernel_is_unknown(qtbot, window):
    seen = []
    window.services.notifier.message.connect(lambda *args: seen.append(args))
    before = window.panels["warp"].kernel_box.currentData()
    window.services.navigator.open_kernel("no_such_kernel")
    assert window.panels["warp"].kernel_box.currentData() == before
    assert any("no_such_kernel" in str(args) for args in seen)
    qtbot.waitUntil(window.services.runner.is_idle, timeout=JOB_TIMEOUT_MS)
    assert Qt  # the window stays usable
