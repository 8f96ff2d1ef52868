"""The real device layer read through a stand-in pynvml: NVML's counters, flags and throttle bits become
a GpuHealth with units in its names, and whatever NVML does not support or returns garbled reads as
None ("not available"), never as a healthy value. One smoke test reads a real GPU."""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace

import pytest

from gpulab import nvml
from gpulab.check.device import GpuHealth, NvmlGpu, RealLayer, decode_throttle, device_layer
from gpulab.check.registry import Context


class NVMLError_NotSupported(Exception):
    pass


def unsupported(*_args):
    raise NVMLError_NotSupported("Not Supported")


def stand_in(**overrides) -> types.ModuleType:
    """A pynvml with one H100 under load: 3 corrected ECC errors, a pending row remap, power capped."""
    module = types.ModuleType("pynvml")
    module.__dict__.update(
        nvmlInit=lambda: None, nvmlShutdown=lambda: None, nvmlDeviceGetHandleByPciBusId=lambda bus: "h0",
        NVML_VOLATILE_ECC=0, NVML_MEMORY_ERROR_TYPE_CORRECTED=0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED=1,
        NVML_CLOCK_SM=1, NVML_TEMPERATURE_GPU=0,
        nvmlDeviceGetTotalEccErrors=lambda h, kind, counter: {0: 3, 1: 0}[kind] if counter == 0 else 999,
        nvmlDeviceGetRetiredPagesPendingStatus=unsupported,  # an Ampere GPU: row remapping instead
        nvmlDeviceGetRemappedRows=lambda h: (1, 0, 1, 0),
        nvmlDeviceGetCurrentClocksEventReasons=lambda h: 0x4,
        nvmlDeviceGetTemperature=lambda h, sensor: 63, nvmlDeviceGetPowerUsage=lambda h: 695_500,
        nvmlDeviceGetEnforcedPowerLimit=lambda h: 700_000,
        nvmlDeviceGetClockInfo=lambda h, clock: 1755, nvmlDeviceGetMaxClockInfo=lambda h, clock: 1980,
        nvmlDeviceGetUtilizationRates=lambda h: SimpleNamespace(gpu=100, memory=40),
        nvmlDeviceGetCurrPcieLinkGeneration=lambda h: 5, nvmlDeviceGetMaxPcieLinkGeneration=lambda h: 5,
        nvmlDeviceGetCurrPcieLinkWidth=lambda h: 16, nvmlDeviceGetMaxPcieLinkWidth=lambda h: 16,
    )  # fmt: skip
    module.__dict__.update(overrides)
    return module


@pytest.fixture
def pynvml_is(monkeypatch):
    def install(module):
        monkeypatch.setitem(sys.modules, "pynvml", module)
        nvml.close()

    yield install
    nvml.close()


def test_nvml_readings_become_a_health_sample_with_units(pynvml_is):
    pynvml_is(stand_in())
    health = NvmlGpu(0, "NVIDIA H100 80GB HBM3", "0000:18:00.0").health()
    assert health == GpuHealth(ecc_uncorrected_volatile=0, ecc_corrected_volatile=3, retired_pages_pending=None,
                               remapped_rows_pending=True, remapped_rows_failure=False,
                               throttle_reasons=frozenset({"sw_power_cap"}), temperature_c=63.0, power_w=695.5,
                               power_limit_w=700.0, pcie_gen_current=5, pcie_gen_max=5, pcie_width_current=16,
                               pcie_width_max=16, sm_clock_mhz=1755.0, sm_clock_max_mhz=1980.0,
                               utilization_gpu_percent=100.0)


def test_the_deprecated_throttle_reasons_are_read_when_clock_events_are_missing(pynvml_is):
    module = stand_in(nvmlDeviceGetCurrentClocksThrottleReasons=lambda h: 0x40 | 0x1)
    del module.nvmlDeviceGetCurrentClocksEventReasons
    pynvml_is(module)
    assert NvmlGpu(0, "GPU", "0000:18:00.0").health().throttle_reasons == {"hw_thermal", "idle"}


def test_garbled_or_unsupported_readings_are_not_available(pynvml_is):
    pynvml_is(stand_in(nvmlDeviceGetTotalEccErrors=unsupported, nvmlDeviceGetRemappedRows=lambda h: (0, 0),
                       nvmlDeviceGetCurrentClocksEventReasons=lambda h: -1, nvmlDeviceGetTemperature=lambda h, s: 4e9,
                       nvmlDeviceGetPowerUsage=lambda h: "n/a", nvmlDeviceGetCurrPcieLinkGeneration=lambda h: 0,
                       nvmlDeviceGetMaxPcieLinkWidth=lambda h: 0xFFFFFFFF,
                       nvmlDeviceGetRetiredPagesPendingStatus=lambda h: 7,
                       nvmlDeviceGetUtilizationRates=lambda h: None))
    health = NvmlGpu(0, "GPU", "0000:18:00.0").health()
    assert health.ecc_uncorrected_volatile is None and health.ecc_corrected_volatile is None
    assert health.remapped_rows_pending is None and health.retired_pages_pending is None
    assert health.throttle_reasons is None and health.temperature_c is None and health.power_w is None
    assert health.pcie_gen_current is None and health.pcie_width_max is None
    assert health.utilization_gpu_percent is None and health.pcie_gen_max == 5


def test_without_nvml_every_field_is_not_available(pynvml_is):
    pynvml_is(None)  # pynvml not installed
    assert NvmlGpu(0, "GPU", "0000:18:00.0").health() == GpuHealth()


def test_throttle_bits_decode_to_plain_names_and_unknown_bits_are_kept():
    assert decode_throttle(0) == frozenset()
    assert decode_throttle(0x8 | 0x80) == {"hw_slowdown", "hw_power_brake"}
    assert decode_throttle(0x800) == {"bit_0x800"}
    assert decode_throttle(None) is None and decode_throttle(True) is None


def test_the_real_layer_is_made_on_first_use_and_kept_on_the_context():
    ctx = Context()
    layer = device_layer(ctx)
    assert isinstance(layer, RealLayer) and device_layer(ctx) is layer and ctx.devices is layer


@pytest.mark.gpu
def test_the_real_layer_reads_a_real_gpu_and_loads_it():
    layer = RealLayer()
    gpu = layer.gpus()[0]
    at_rest = gpu.health()
    with gpu.under_load(10.0):
        layer.sleep(1.0)
        loaded = gpu.health()
    assert at_rest.pcie_gen_max is None or loaded.pcie_gen_current is not None
    assert loaded.utilization_gpu_percent is None or loaded.utilization_gpu_percent > 0
