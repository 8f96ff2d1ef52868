"""The collectives panel, as a user meets it: busbw against S on a log axis, the algbw check box,
wrong results in red, the provenance badge and export; and one real run on 2 CPU ranks (``mpi``)."""

from __future__ import annotations

import pytest

from gpulab.cluster.mpi_backend import mpi_status
from gpulab.experiments.collectives import Collector
from gpulab.results import Result
from tests.ui.walk import JOB_TIMEOUT_MS, click, open_panel, switch_language, tick, type_into, wait_idle
from ui.panels.collectives import CollectivesPanel


def _result(wrong: int = 0) -> Result:
    collector = Collector("mpi", {"ranks": 2})
    collector.add({"event": "hello", "ranks": 2, "hosts": ["here", "here"]})
    for collective, factor in (("allreduce", 1.0), ("allgather", 0.5)):
        for size, seconds in ((8, 2e-6), (1 << 20, 1e-3)):
            algbw = size / seconds / 1e9
            collector.add({"event": "point", "collective": collective, "message_bytes": size, "count": 2, "ranks": 2,
                           "seconds": seconds, "algbw_gb_s": algbw, "busbw_gb_s": algbw * factor, "repeats": 5,
                           "wrong": wrong if (collective, size) == ("allgather", 8) else 0})  # fmt: skip
    return collector.result()


def test_an_opened_result_shows_busbw_on_a_log_axis_and_the_box_switches_to_algbw(qtbot, window):
    panel = open_panel(qtbot, window, "collectives")
    assert isinstance(panel, CollectivesPanel) and panel.heading.text().startswith("Collectives")
    panel.show_result(_result())
    assert panel.plot.log_x and set(panel.plot.curves) == {"AllReduce (MPI)", "AllGather (MPI)"}
    points = panel.plot.series["AllGather (MPI)"]
    busbw = [panel.plot.y_of(p) for p in points]
    drawn = list(panel.plot.curves["AllGather (MPI)"].getData()[1])
    assert "busbw" in panel.plot.getAxis("left").labelText
    tick(qtbot, panel.algbw_box)
    assert panel.algbw_box.isChecked()
    algbw = [panel.plot.y_of(p) for p in points]
    assert algbw == pytest.approx([2 * y for y in busbw])  # (n-1)/n = 1/2 on 2 ranks
    assert list(panel.plot.curves["AllGather (MPI)"].getData()[1]) != drawn  # redrawn at once
    assert "algbw" in panel.plot.getAxis("left").labelText
    tick(qtbot, panel.algbw_box)
    assert "busbw" in panel.plot.getAxis("left").labelText
    assert panel.wrong_label.isHidden() and panel.export_button.isEnabled()
    assert panel.provenance == "measured"  # the window's badge follows it


def test_wrong_elements_are_shown_in_red_and_beside_their_curve_in_both_languages(qtbot, window):
    panel = open_panel(qtbot, window, "collectives")
    panel.show_result(_result(wrong=3))
    assert not panel.wrong_label.isHidden() and "3 elements" in panel.wrong_label.text()
    assert "3 wrong" in panel.legend.text()
    assert any("AllGather (MPI): 3 wrong elements at 8 B" in note for note in panel.last_result.notes)
    switch_language(window, "zh")
    assert "3 个错误" in panel.legend.text() and "集合通信" in panel.wrong_label.text()
    switch_language(window, "en")


@pytest.mark.mpi
@pytest.mark.skipif(not mpi_status().available, reason="needs mpi4py and mpiexec")
def test_a_run_on_two_cpu_ranks_grows_six_curves_from_the_run_button(qtbot, window):
    panel = open_panel(qtbot, window, "collectives")
    type_into(qtbot, panel.editors["sizes"].edit, "8, 2^12")
    type_into(qtbot, panel.editors["seconds_per_point"], "0.002")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    assert len(panel.plot.curves) == 6 and all(len(points) == 2 for points in panel.plot.series.values())
    assert panel.last_result.series[0].provenance.device.startswith("2 CPU ranks on ")
    wait_idle(qtbot, window)


def _nccl_result(device: str, ranks: int = 8) -> Result:
    collector = Collector("nccl", {"ranks": ranks})
    collector.add({"event": "hello", "ranks": ranks, "hosts": ["here"] * ranks, "backend": "nccl",
                   "devices": [device] * ranks})  # fmt: skip
    for size in (1 << 20, 1 << 30):
        seconds = 2 * (ranks - 1) / ranks * size / 350e9
        algbw = size / seconds / 1e9
        collector.add({"event": "point", "collective": "allreduce", "message_bytes": size, "count": size // 4,
                       "ranks": ranks, "seconds": seconds, "algbw_gb_s": algbw,
                       "busbw_gb_s": algbw * 2 * (ranks - 1) / ranks, "repeats": 3, "wrong": 0})  # fmt: skip
    return collector.result()


def test_an_nccl_allreduce_on_h100s_gets_the_models_ring_and_nvlink_sharp_beside_it(qtbot, window):
    panel = open_panel(qtbot, window, "collectives")
    assert "NCCL backend" in panel.model_label.text()  # before: what would appear
    panel.show_result(_nccl_result("NVIDIA H100 80GB HBM3"))
    ring, nvls = panel.model_curve_name("ring"), panel.model_curve_name("nvls")
    assert {ring, nvls} <= set(panel.plot.curves)
    assert panel.plot.series[nvls][-1].y > panel.plot.series[ring][-1].y  # NVLS beats the ring on 8 H100
    assert "8 × NVIDIA H100 SXM5 80 GB" in panel.model_label.text()
    tick(qtbot, panel.algbw_box)  # the model's points switch to algbw with the measured ones
    assert panel.plot.y_of(panel.plot.series[ring][-1]) < panel.plot.series[ring][-1].y


def test_on_a100s_the_model_has_no_nvlink_sharp_and_says_why(qtbot, window):
    panel = open_panel(qtbot, window, "collectives")
    panel.show_result(_nccl_result("NVIDIA A100-SXM4-80GB"))
    assert panel.model_curve_name("ring") in panel.plot.curves
    assert panel.model_curve_name("nvls") not in panel.plot.curves
    assert "compute capability 9.0" in panel.model_label.text()
