"""The GPU performance checks judged against a fake device layer: healthy rates pass against the
published figures, a slow GPU fails beside its siblings, an allocation failure fails (never
passes), throttling during a measurement is named, an unknown model is a skip that still reports
its value, and p2p/NCCL skip with one GPU. The checks run through run_checks, as `gpulab check`
runs them; the `gpu` tests run the real layer on a GPU."""

from __future__ import annotations

import dataclasses

import pytest

from gpulab.catalogue import render
from gpulab.check.model import Row, Verdict
from gpulab.check.outliers import apply_outliers
from gpulab.check.registry import Context
from gpulab.check.run import check_report
from gpulab.experiments.transfer.gpu import LinkReading
from tests.gpulab.check.fakes import H100, FakeLayer, FakeOutOfMemory, FakePerf, fault, perf_gpu

PERF_CHECKS = ["gpu.triad", "gpu.h2d", "gpu.d2h", "gpu.launch", "gpu.matmul", "gpu.p2p", "gpu.nccl"]
A100_40 = "NVIDIA A100-SXM4-40GB"


def run(layer, only=PERF_CHECKS, **context):
    return check_report(Context(devices=layer, host="node1", **context), only)


def rows_of(report, check, **facts):
    return [row for row in report.rows if row.check == check
            and all(row.facts.get(k) == v for k, v in facts.items())]


def test_a_healthy_h100_passes_where_a_published_figure_exists_and_reports_the_rest():
    report = run(FakeLayer(perf_gpu(0)))
    (triad,) = rows_of(report, "gpu.triad")
    assert triad.verdict is Verdict.PASS and triad.unit == "GB/s" and triad.device == "gpu0"
    assert triad.facts["healthy"] == pytest.approx(0.887 * 3350)
    assert triad.threshold == pytest.approx(0.8 * 0.887 * 3350)
    assert "Azure" in triad.facts["healthy_source"] and triad.source == "gpu.perf"
    (h2d,) = rows_of(report, "gpu.h2d")
    assert h2d.verdict is Verdict.PASS and h2d.facts["healthy"] == pytest.approx(56.3)  # Gen5 x16, nvbandwidth
    assert h2d.facts["link"] == "PCIe Gen5 x16"
    assert {row.facts["dtype"]: row.verdict for row in rows_of(report, "gpu.matmul")} == {
        "fp16": Verdict.PASS, "bf16": Verdict.PASS,  # gpus.toml has H100's published FP16/BF16 GEMMs
        "fp32": Verdict.SKIP, "tf32": Verdict.SKIP, "fp64": Verdict.SKIP}  # and no others
    (fp32,) = rows_of(report, "gpu.matmul", dtype="fp32")
    assert fp32.value == 50.0 and "50 TFLOP/s measured, not judged" in render(fp32.reason)
    (launch,) = rows_of(report, "gpu.launch")
    assert launch.verdict is Verdict.SKIP and launch.value == 9.0 and launch.unit == "µs"
    assert report.exit_code() == 0


def test_the_d2h_copy_of_a_generation_without_its_own_row_takes_the_h2d_row():
    (d2h,) = rows_of(run(FakeLayer(perf_gpu(0)), ["gpu.d2h"]), "gpu.d2h")
    assert d2h.verdict is Verdict.PASS and "pcie5-pinned-h2d" in d2h.facts["healthy_source"]


def test_a_copy_is_held_to_the_link_as_trained_gen4_x8_gets_half_of_gen4_x16():
    gpu = perf_gpu(0, link=LinkReading(4, 4, 8, 8, "nvml"), copy_gb_s={"h2d": 12.0, "d2h": 8.0})
    report = run(FakeLayer(gpu), ["gpu.h2d", "gpu.d2h"])
    (h2d,), (d2h,) = rows_of(report, "gpu.h2d"), rows_of(report, "gpu.d2h")
    assert h2d.facts["healthy"] == pytest.approx(25.0 / 2)  # nvbandwidth's 25 GB/s on Gen4 x16, halved
    assert h2d.verdict is Verdict.PASS
    assert d2h.verdict is Verdict.WARN and "check the slot's link generation" in render(d2h.action).lower()


def test_an_unreadable_link_is_a_skip_that_still_reports_the_copy():
    (h2d,) = rows_of(run(FakeLayer(perf_gpu(0, link=LinkReading())), ["gpu.h2d"]), "gpu.h2d")
    assert h2d.verdict is Verdict.SKIP and h2d.value == 55.0 and "PCIe link could not be read" in render(h2d.reason)


def test_a_gpu_30_percent_behind_its_siblings_fails_as_an_outlier_though_above_its_threshold():
    fast = {"fp32": 50.0, "tf32": 360.0, "fp16": 950.0, "bf16": 780.0, "fp64": 52.0}
    slow = {**fast, "fp16": 0.7 * 950.0}  # 665 TFLOP/s: 84 % of the healthy 794, a pass on its own
    report = run(FakeLayer(perf_gpu(0, matmul_tflops=fast), perf_gpu(1, matmul_tflops=slow),
                           perf_gpu(2, matmul_tflops=fast)), ["gpu.matmul"])
    (behind,) = rows_of(report, "gpu.matmul", dtype="fp16", pci_bus_id="0000:19:00.0")
    assert behind.device == "gpu1" and behind.verdict is Verdict.FAIL and behind.source == "outliers"
    assert behind.facts["before_outlier"]["verdict"] == "pass"
    # Its other dtypes are compared only with the same dtype on the siblings: they stay as they were.
    others = [row for row in report.rows if row.device == "gpu1" and row.facts["dtype"] != "fp16"]
    assert others and all(row.source == "gpu.perf" for row in others)
    assert report.exit_code() == 1


def test_outliers_group_by_dtype_so_an_fp64_rate_is_no_sibling_of_an_fp16_one():
    def row(device, dtype, value):
        return Row("gpu.matmul", Verdict.PASS, render_free(), value=value, unit="TFLOP/s", device=device,
                   facts={"model": H100, "dtype": dtype})

    rows = [row("gpu0", "fp16", 780.0), row("gpu1", "fp16", 770.0),
            row("gpu0", "fp64", 52.0), row("gpu1", "fp64", 51.0)]
    assert [r.verdict for r in apply_outliers(rows)] == [Verdict.PASS] * 4  # without the dtype fp64 would fail


def render_free():
    from gpulab.catalogue import plain

    return plain("measured")


def test_running_out_of_memory_mid_check_fails_naming_it_and_never_passes():
    oom = FakeOutOfMemory("Out of memory allocating 805,306,368 bytes")
    report = run(FakeLayer(perf_gpu(0, raises={"triad": oom, "matmul.bf16": oom})), ["gpu.triad", "gpu.matmul"])
    (triad,) = rows_of(report, "gpu.triad")
    assert triad.verdict is Verdict.FAIL and "FakeOutOfMemory: Out of memory" in render(triad.reason)
    assert "did not finish, so it cannot pass" in render(triad.reason)
    (bf16,) = rows_of(report, "gpu.matmul", dtype="bf16")
    assert bf16.verdict is Verdict.FAIL and bf16.facts["error"].startswith("FakeOutOfMemory")
    assert rows_of(report, "gpu.matmul", dtype="fp16")[0].verdict is Verdict.PASS  # the others still ran
    assert report.exit_code() == 1


def test_a_slow_result_under_thermal_throttling_says_so_and_points_at_the_cooling():
    hot = fault(0, loaded={"throttle_reasons": frozenset({"hw_thermal", "sw_power_cap"}), "temperature_c": 93.0,
                           "sm_clock_mhz": 900.0})
    hot.perf = FakePerf(scale=0.6)
    (triad,) = rows_of(run(FakeLayer(hot), ["gpu.triad"]), "gpu.triad")
    assert triad.verdict is Verdict.WARN  # 1770 GB/s: 60 % of the healthy 2971
    assert "slowed by hw_thermal (up to 93 °C)" in render(triad.reason)
    assert "cooling" in render(triad.action)
    assert triad.facts["throttle_reasons"] == ["hw_thermal", "sw_power_cap"]
    assert triad.facts["temperature_c_max"] == 93.0 and triad.facts["sm_clock_mhz_min"] == 900.0
    assert hot.loads == 1  # the samples were taken during the measurement, not at rest


def test_clocks_are_kept_even_when_the_result_is_healthy():
    (triad,) = rows_of(run(FakeLayer(perf_gpu(0)), ["gpu.triad"]), "gpu.triad")
    assert triad.facts["health_samples"] >= 1 and triad.facts["sm_clock_mhz_max"] == 1755.0
    assert triad.facts["throttle_reasons"] == ["sw_power_cap"]


def test_an_unknown_model_is_a_skip_that_reports_the_measured_value():
    report = run(FakeLayer(perf_gpu(0, name="NVIDIA Imaginary X1")), ["gpu.triad", "gpu.matmul"])
    (triad,) = rows_of(report, "gpu.triad")
    assert triad.verdict is Verdict.SKIP and triad.value == 2950.0 and triad.threshold is None
    assert "does not know the model NVIDIA Imaginary X1" in render(triad.reason)
    assert {row.facts["dtype"] for row in rows_of(report, "gpu.matmul")} == {"fp32", "tf32", "fp16", "bf16"}
    assert report.exit_code() == 0


def test_a_dtype_the_gpu_cannot_run_is_a_skip_naming_why():
    (bf16,) = rows_of(run(FakeLayer(perf_gpu(0, unsupported=frozenset({"bf16"}))), ["gpu.matmul"]),
                      "gpu.matmul", dtype="bf16")
    assert bf16.verdict is Verdict.SKIP and render(bf16.reason).startswith("Not measured:")


def test_launch_latency_is_judged_lower_is_better_and_never_as_an_outlier():
    a100 = {"name": A100_40}
    report = run(FakeLayer(perf_gpu(0, launch_us=9.0, **a100), perf_gpu(1, launch_us=14.0, **a100),
                           perf_gpu(2, launch_us=25.0, **a100)), ["gpu.launch"])
    verdicts = {row.device: row.verdict for row in report.rows}
    assert verdicts == {"gpu0": Verdict.PASS, "gpu1": Verdict.WARN, "gpu2": Verdict.FAIL}  # healthy 9.65 µs
    assert all(row.source == "gpu.perf" and row.comparison == "<=" for row in report.rows)
    assert report.rows[0].threshold == pytest.approx(9.65 / 0.8)
    assert "2.6x the 9.65 µs" in render(report.rows[2].reason)


def test_with_one_gpu_p2p_and_nccl_are_one_skip_each_saying_why():
    report = run(FakeLayer(perf_gpu(0)), ["gpu.p2p", "gpu.nccl"])
    assert [(row.check, row.verdict) for row in report.rows] == [("gpu.p2p", Verdict.SKIP), ("gpu.nccl", Verdict.SKIP)]
    assert all("copies between GPUs and NCCL need two or more" in render(row.reason) for row in report.rows)


def test_device_index_checks_only_that_gpu_and_so_p2p_skips():
    report = run(FakeLayer(perf_gpu(0), perf_gpu(1)), ["gpu.triad", "gpu.p2p"], device_index=1)
    assert [(row.check, row.device) for row in report.rows] == [("gpu.triad", "gpu1"), ("gpu.p2p", "gpu1")]
    assert report.rows[1].verdict is Verdict.SKIP


def test_eight_h100s_are_held_to_the_published_nvlink_copy_and_allreduce():
    gpus = [perf_gpu(i) for i in range(8)]
    gpus[3].perf = dataclasses.replace(gpus[3].perf, scale=0.45)
    report = run(FakeLayer(*gpus), ["gpu.p2p", "gpu.nccl"])
    p2p = rows_of(report, "gpu.p2p")
    assert len(p2p) == 8 and p2p[0].facts["healthy"] == 371.0 and p2p[0].facts["peer"] == "gpu1"
    # gpu2 sends to the slow gpu3 and gpu3 sends on: both copies run at its pace
    assert {row.device for row in p2p if row.verdict is Verdict.FAIL} == {"gpu2", "gpu3"}
    (nccl,) = rows_of(report, "gpu.nccl")
    assert nccl.device == "gpu0-7" and nccl.verdict is Verdict.PASS and nccl.facts["healthy"] == 360.0


def test_two_gpus_without_a_published_layout_report_their_copies_unjudged():
    report = run(FakeLayer(perf_gpu(0), perf_gpu(1)), ["gpu.p2p", "gpu.nccl"])
    assert [(row.check, row.verdict) for row in report.rows] == [
        ("gpu.p2p", Verdict.SKIP), ("gpu.p2p", Verdict.SKIP), ("gpu.nccl", Verdict.SKIP)]
    assert report.rows[0].value == 370.0


def test_missing_nccl_with_two_gpus_warns_with_the_install_action_software_nccl_fails_for():
    layer = FakeLayer(perf_gpu(0), perf_gpu(1))
    layer.nccl_installed = False
    (nccl,) = run(layer, ["gpu.nccl"]).rows
    assert nccl.verdict is Verdict.WARN and "CuPy has no NCCL" in render(nccl.reason)
    assert "Install NCCL for CuPy" in render(nccl.action)


def test_a_failed_peer_copy_fails_the_row():
    layer = FakeLayer(perf_gpu(0), perf_gpu(1))
    layer.p2p_raises = RuntimeError("cudaErrorPeerAccessUnsupported")
    rows = run(layer, ["gpu.p2p"]).rows
    assert [row.verdict for row in rows] == [Verdict.FAIL, Verdict.FAIL]


def test_full_mode_measures_larger_sizes_with_more_repeats_than_quick():
    asked = {}
    for mode in ("quick", "full"):
        gpu = perf_gpu(0)
        run(FakeLayer(gpu), ["gpu.triad", "gpu.h2d", "gpu.launch"], mode=mode)
        asked[mode] = {what: (size, policy.repeats) for what, size, policy in gpu.asked}
    for what in ("triad", "h2d", "launch"):
        assert asked["full"][what][0] > asked["quick"][what][0]
        assert asked["full"][what][1] > asked["quick"][what][1]
    assert asked["quick"]["triad"][0] == 2**28  # BabelStream's 2^25 doubles an array, as the published run


def test_no_gpu_gives_one_skip_for_all_the_gpu_checks():
    report = run(FakeLayer(), ["gpu.ecc", "gpu.throttle", *PERF_CHECKS])
    (row,) = report.rows
    assert row.check == "gpu" and row.verdict is Verdict.SKIP


def test_texts_exist_in_both_languages():
    report = run(FakeLayer(perf_gpu(0), perf_gpu(1, scale=0.4)))
    for row in report.rows:
        for message in (row.reason, row.action):
            if message is not None:
                assert "{" not in render(message, "en") and "{" not in render(message, "zh")


# ------------------------------------------------------------------ on a real GPU


@pytest.mark.gpu
def test_the_real_layer_measures_every_check_on_a_gpu():
    report = run(None, PERF_CHECKS, device_index=0)
    assert report.rows and all(row.verdict is not Verdict.FAIL or "error" not in row.facts for row in report.rows)
    (triad,) = rows_of(report, "gpu.triad")
    assert triad.value is not None and triad.value > 10 and triad.facts["health_samples"] >= 1
    rates = [row.value for row in rows_of(report, "gpu.matmul") if row.value is not None]
    assert rates and all(rate > 0 for rate in rates)
    (launch,) = rows_of(report, "gpu.launch")
    # A measured, finite number of microseconds (an H200 gave 11 µs alone, 1039-1874 µs with
    # 16 test workers sharing it): no bound on how slow a busy GPU may be, only on the unit.
    assert launch.value is not None and 0.5 < launch.value < 1e6


def test_the_software_check_asks_the_device_layer_for_nccl_so_a_missing_one_is_named():
    def nccl_row(layer):
        (row,) = run(layer, ["software.nccl"]).rows
        return row

    with_nccl = FakeLayer(perf_gpu(0), perf_gpu(1))
    without = FakeLayer(perf_gpu(0), perf_gpu(1))
    without.nccl_installed = False
    assert nccl_row(with_nccl).verdict is Verdict.PASS
    missing = nccl_row(without)
    assert missing.verdict is Verdict.FAIL and "nccl" in render(missing.action).lower()
