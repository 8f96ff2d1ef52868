"""The GPU health checks judged against a fake device layer with injected faults: every fault gives
its verdict, a GPU that does not answer fails (never passes), and no GPU is one skip (or a failure
with --require-gpu). The checks run through run_checks, as `gpulab check` runs them."""

from __future__ import annotations

import pytest

from gpulab.catalogue import msg, render
from gpulab.check.model import Verdict
from gpulab.check.registry import Context
from gpulab.check.run import check_report
from tests.gpulab.check.fakes import FakeGpu, FakeLayer, fault

GPU_CHECKS = ["gpu.ecc", "gpu.remap", "gpu.throttle", "gpu.pcie"]


def run(layer, only=GPU_CHECKS, **context):
    return check_report(Context(devices=layer, host="node1", **context), only)


def rows_of(report, check):
    return [row for row in report.rows if row.check == check]


def the_row(layer, check, **context):
    report = run(layer, [check], **context)
    (row,) = report.rows
    return row, report


def test_healthy_gpus_pass_every_gpu_check_with_one_row_per_gpu():
    report = run(FakeLayer(FakeGpu(0), FakeGpu(1)))
    assert [(row.check, row.device, row.verdict) for row in report.rows] == [
        (check, f"gpu{i}", Verdict.PASS) for check in GPU_CHECKS for i in (0, 1)]
    assert report.exit_code() == 0
    assert all(row.facts["model"] == "NVIDIA H100 80GB HBM3" for row in report.rows)


def test_an_uncorrectable_ecc_error_fails_and_says_to_drain_the_node():
    row, report = the_row(FakeLayer(fault(idle={"ecc_uncorrected_volatile": 2})), "gpu.ecc")
    assert row.verdict is Verdict.FAIL and row.value == 2 and row.threshold == 0 and row.source == "gpu.ecc"
    assert "Drain the node" in render(row.action) and "RMA" in render(row.action)
    assert report.exit_code() == 1


def test_corrected_ecc_errors_above_the_limit_warn_and_below_it_pass():
    row, _ = the_row(FakeLayer(fault(idle={"ecc_corrected_volatile": 101})), "gpu.ecc")
    assert row.verdict is Verdict.WARN and row.threshold == 100 and row.source == "gpu.ecc_corrected"
    row, _ = the_row(FakeLayer(fault(idle={"ecc_corrected_volatile": 100})), "gpu.ecc")
    assert row.verdict is Verdict.PASS


def test_a_gpu_without_ecc_counters_is_a_skip_that_says_why():
    row, _ = the_row(FakeLayer(fault(idle={"ecc_uncorrected_volatile": None, "ecc_corrected_volatile": None})),
                     "gpu.ecc")
    assert row.verdict is Verdict.SKIP and "consumer GPUs have no ECC memory" in render(row.reason)


@pytest.mark.parametrize("flag", ["remapped_rows_pending", "retired_pages_pending"])
def test_a_pending_row_remap_or_retired_page_warns_to_reset_the_gpu(flag):
    row, _ = the_row(FakeLayer(fault(idle={flag: True})), "gpu.remap")
    assert row.verdict is Verdict.WARN
    assert "nvidia-smi -r -i 0000:18:00.0" in render(row.action) and "reboot" in render(row.action)


def test_a_row_remapping_failure_fails():
    row, report = the_row(FakeLayer(fault(idle={"remapped_rows_failure": True, "remapped_rows_pending": True})),
                          "gpu.remap")
    assert row.verdict is Verdict.FAIL and "RMA" in render(row.action)
    assert report.exit_code() == 1


@pytest.mark.parametrize("reason", ["hw_thermal", "sw_thermal", "hw_slowdown", "hw_power_brake"])
def test_thermal_or_hardware_slowdown_under_load_warns_with_temperature_and_power(reason):
    layer = FakeLayer(fault(loaded={"throttle_reasons": frozenset({reason, "sw_power_cap"}), "temperature_c": 91.0}))
    row, _ = the_row(layer, "gpu.throttle")
    assert row.verdict is Verdict.WARN and render(msg(f"check.gpu.throttle.reason.{reason}")) in render(row.reason)
    assert row.facts["temperature_c_max"] == 91.0 and row.facts["power_w_max"] == 690.0
    assert "91 °C" in render(row.reason) and "cooling" in render(row.action)


def test_idle_power_cap_and_application_clocks_are_not_problems():
    layer = FakeLayer(fault(idle={"throttle_reasons": frozenset({"idle", "hw_slowdown"})},
                            loaded={"throttle_reasons": frozenset({"sw_power_cap", "app_clocks", "idle"})}))
    row, _ = the_row(layer, "gpu.throttle")
    assert row.verdict is Verdict.PASS  # the slowdown at rest is not judged: only the GPU under load is


def test_a_link_below_its_maximum_under_load_fails_and_says_to_reseat():
    row, report = the_row(FakeLayer(fault(loaded={"pcie_gen_current": 3})), "gpu.pcie")
    assert row.verdict is Verdict.FAIL and row.value == 3 and row.threshold == 5 and row.comparison == ">="
    assert "Gen3 x16" in render(row.reason) and "Reseat" in render(row.action)
    assert report.exit_code() == 1


def test_a_link_narrower_than_its_maximum_under_load_fails():
    row, _ = the_row(FakeLayer(fault(loaded={"pcie_width_current": 8})), "gpu.pcie")
    assert row.verdict is Verdict.FAIL and "x8" in render(row.reason)


def test_an_idle_link_that_downshifted_passes_and_says_it_is_normal():
    gpu = FakeGpu(0)  # at rest Gen1, under load Gen5 (its maximum)
    row, _ = the_row(FakeLayer(gpu), "gpu.pcie")
    assert row.verdict is Verdict.PASS and row.facts["idle_pcie_gen"] == 1
    assert "an idle link slows down to save power" in render(row.reason)
    assert "空闲的链路会降速" in render(row.reason, "zh")
    assert gpu.loads == 1 and not gpu.loading


def test_the_gpus_are_loaded_once_for_the_throttle_and_pcie_checks():
    gpus = FakeGpu(0), FakeGpu(1)
    layer = FakeLayer(*gpus)
    run(layer)
    assert [gpu.loads for gpu in gpus] == [1, 1] and layer.slept_s > 0


@pytest.mark.parametrize("check", GPU_CHECKS)
def test_an_exception_reading_one_gpu_fails_that_gpu_naming_the_error_and_the_others_pass(check):
    layer = FakeLayer(FakeGpu(0), FakeGpu(1, raises=RuntimeError("NVML: GPU is lost")))
    report = run(layer, [check])
    verdicts = {row.device: row.verdict for row in report.rows}
    assert verdicts == {"gpu0": Verdict.PASS, "gpu1": Verdict.FAIL}
    broken = next(row for row in report.rows if row.device == "gpu1")
    assert "GPU is lost" in render(broken.reason) and report.exit_code() == 1


@pytest.mark.parametrize("check", ["gpu.throttle", "gpu.pcie"])
def test_a_load_that_cannot_start_fails_never_passes(check):
    layer = FakeLayer(FakeGpu(0, load_raises=MemoryError("out of memory allocating 64 MiB")))
    row, _ = the_row(layer, check)
    assert row.verdict is Verdict.FAIL and "out of memory" in render(row.reason)


def test_strange_nvml_data_never_crashes_and_never_passes_unread():
    weird = {"ecc_uncorrected_volatile": None, "ecc_corrected_volatile": None, "throttle_reasons": None,
             "pcie_gen_current": None, "pcie_gen_max": None, "retired_pages_pending": None,
             "remapped_rows_pending": None, "remapped_rows_failure": None, "temperature_c": None, "power_w": None}
    report = run(FakeLayer(fault(idle=weird, loaded=weird)))
    assert {row.verdict for row in report.rows} == {Verdict.SKIP}


def test_no_gpu_is_one_skip_row_saying_why():
    report = run(FakeLayer())
    (row,) = report.rows
    assert row.verdict is Verdict.SKIP and row.device == "gpu"
    assert "No NVIDIA driver is installed" in render(row.reason)
    assert report.exit_code() == 0


def test_no_gpu_with_require_gpu_is_one_failure():
    report = run(FakeLayer(), require_gpu=True)
    (row,) = report.rows
    assert row.verdict is Verdict.FAIL and report.exit_code() == 1


def test_device_picks_one_gpu_and_an_unknown_index_fails_once():
    layer = FakeLayer(FakeGpu(0), FakeGpu(1, idle=fault(idle={"ecc_uncorrected_volatile": 1}).idle))
    report = run(layer, device_index=1)
    assert {row.device for row in report.rows} == {"gpu1"}
    report = run(FakeLayer(FakeGpu(0)), device_index=3)
    (row,) = report.rows
    assert row.verdict is Verdict.FAIL and "no GPU 3" in render(row.reason)


def test_every_gpu_row_renders_in_english_and_chinese():
    faults = [fault(0, idle={"ecc_uncorrected_volatile": 1}), fault(1, idle={"remapped_rows_pending": True}),
              fault(2, loaded={"throttle_reasons": frozenset({"hw_thermal"}), "pcie_gen_current": 4}), FakeGpu(3)]
    report = run(FakeLayer(*faults))
    for row in report.rows:
        for lang in ("en", "zh"):
            assert render(row.reason, lang) and (row.action is None or render(row.action, lang))
            assert row.text(lang)


def test_a_gpu_whose_nvml_reports_nothing_is_not_loaded_and_its_load_checks_skip():
    silent = {"throttle_reasons": None, "pcie_gen_current": None, "pcie_gen_max": None}
    gpu = fault(idle=silent, loaded=silent)
    report = run(FakeLayer(gpu), ["gpu.throttle", "gpu.pcie"])
    assert [row.verdict for row in report.rows] == [Verdict.SKIP, Verdict.SKIP] and gpu.loads == 0


def test_a_gpu_that_fails_at_rest_fails_the_load_checks_with_the_same_error():
    class Flaky(FakeGpu):
        calls = 0

        def health(self):
            self.calls += 1
            if self.calls == 1:
                raise RuntimeError("Unknown Error (Xid 79: fallen off the bus)")
            return super().health()

    report = run(FakeLayer(Flaky(0)), ["gpu.ecc", "gpu.pcie"])
    assert [row.verdict for row in report.rows] == [Verdict.FAIL, Verdict.FAIL]
    assert all("Xid 79" in render(row.reason) for row in report.rows)


def test_every_gpu_row_names_a_threshold_entry_with_its_cited_source():
    from gpulab.check.registry import threshold

    faults = [fault(0, idle={"ecc_uncorrected_volatile": 1}), fault(1, idle={"ecc_corrected_volatile": 500}),
              fault(2, idle={"remapped_rows_failure": True}),
              fault(3, loaded={"throttle_reasons": frozenset({"hw_slowdown"}), "pcie_gen_current": 2}), FakeGpu(4)]
    report = run(FakeLayer(*faults))
    sources = {row.source for row in report.rows}
    assert sources == {"gpu.ecc", "gpu.ecc_corrected", "gpu.remap", "gpu.throttle", "gpu.pcie"}
    assert all(len(threshold(source)["source"]) > 20 for source in sources | {"gpu.load", "outliers"})


def test_throttle_reasons_are_named_in_the_readers_language_with_nvidia_smis_label():
    slowed, _ = the_row(FakeLayer(fault(loaded={"throttle_reasons": frozenset({"hw_thermal"})})), "gpu.throttle")
    english = render(slowed.reason)
    assert "hardware thermal slowdown (HW Thermal Slowdown)" in english and "hw_thermal" not in english
    assert "硬件过热降频" in render(slowed.reason, "zh")
    fine, _ = the_row(FakeLayer(fault(loaded={"throttle_reasons": frozenset({"sw_power_cap", "bit_0x800"})})),
                      "gpu.throttle")
    assert fine.verdict is Verdict.PASS
    assert "达到功耗上限" in render(fine.reason, "zh") and "bit_0x800" in render(fine.reason, "zh")
