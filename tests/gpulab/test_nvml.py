"""The one NVML module: imported when first asked for, started once for the device report, the monitor
and the topology alike, shut down by close(), and 'not available' (None) instead of an exception."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from gpulab import devices, monitor, nvml
from gpulab.cluster import topology


class NVMLError_LibraryNotFound(Exception):  # pynvml's own spelling, which gpulab.nvml recognises
    pass


class NVMLError_NotSupported(Exception):
    pass


def fake_pynvml(init_error: Exception | None = None) -> types.ModuleType:
    """A pynvml with one H100 at bus 0000:07:00.0 whose power reading is not supported; it counts
    how often NVML was started and shut down."""
    module = types.ModuleType("pynvml")
    module.started, module.stopped = 0, 0  # type: ignore[attr-defined]

    def init() -> None:
        if init_error is not None:
            raise init_error
        module.started += 1  # type: ignore[attr-defined]

    def shutdown() -> None:
        module.stopped += 1  # type: ignore[attr-defined]

    def unsupported(*_args: object) -> None:
        raise NVMLError_NotSupported("Not Supported")

    module.__dict__.update(
        nvmlInit=init, nvmlShutdown=shutdown, nvmlDeviceGetCount=lambda: 1,
        nvmlDeviceGetHandleByIndex=lambda i: f"h{i}", nvmlDeviceGetHandleByPciBusId=lambda bus: "h0",
        nvmlDeviceGetName=lambda h: b"NVIDIA H100 80GB HBM3", nvmlSystemGetDriverVersion=lambda: b"560.35",
        nvmlDeviceGetMaxPcieLinkGeneration=lambda h: 5, nvmlDeviceGetMaxPcieLinkWidth=lambda h: 16,
        nvmlDeviceGetCurrPcieLinkGeneration=lambda h: 1, nvmlDeviceGetCurrPcieLinkWidth=lambda h: 16,
        nvmlDeviceGetTemperature=lambda h, sensor: 41 if sensor == 0 else -1, NVML_TEMPERATURE_GPU=0,
        nvmlDeviceGetPowerUsage=unsupported, nvmlDeviceGetEnforcedPowerLimit=lambda h: 700_000,
    )  # fmt: skip
    return module


@pytest.fixture
def installed(monkeypatch):
    """Puts a pynvml in sys.modules (a fake, or None: not installed) with NVML not yet started."""

    def install(module: types.ModuleType | None) -> types.ModuleType | None:
        monkeypatch.setitem(sys.modules, "pynvml", module)
        nvml.close()
        return module

    yield install
    nvml.close()


def test_importing_the_engine_modules_that_use_nvml_does_not_import_pynvml():
    code = ("import sys, gpulab.devices, gpulab.monitor, gpulab.cluster.topology, gpulab.nvml; "
            "print('pynvml' in sys.modules)")  # fmt: skip
    answer = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert answer.stdout.strip() == "False"


def test_the_device_report_the_monitor_and_the_topology_start_nvml_once_and_close_shuts_it_down(installed):
    fake = installed(fake_pynvml())
    info = devices.nvml_info("0000:07:00.0")
    source = monitor.nvml_source()
    found = topology.read_topology()
    assert (fake.started, fake.stopped) == (1, 0)
    assert info is not None and info.pcie_gen_max == 5 and info.driver_version == "560.35"
    assert source.available and found.source == "nvml" and found.gpus[0].name == "NVIDIA H100 80GB HBM3"
    nvml.close()
    nvml.close()  # a second close has nothing left to shut down
    assert fake.stopped == 1
    assert devices.nvml_info("0000:07:00.0") is not None and fake.started == 2  # started afresh


def test_a_query_the_gpu_does_not_support_reads_as_not_available_and_the_rest_still_read(installed):
    installed(fake_pynvml())
    info = devices.nvml_info("0000:07:00.0")
    assert info is not None
    assert info.power_draw_w is None and info.power_limit_w == pytest.approx(700.0)
    assert info.temperature_c == 41  # the GPU sensor, NVML_TEMPERATURE_GPU
    assert nvml.query("nvmlDeviceGetNothingSuchInThisVersion", "h0") is None
    sample = monitor.NvmlReader(nvml.library()).read()[0]
    assert (sample.name, sample.temperature_c, sample.power_w, sample.utilization_pct) == (
        "NVIDIA H100 80GB HBM3", 41, None, None)


def test_without_pynvml_everything_is_not_available_and_the_monitor_says_it_is_not_installed(installed):
    installed(None)
    assert nvml.opened().reason == nvml.NO_PYNVML
    assert devices.nvml_info("0000:07:00.0") is None
    assert topology.read_topology().reason == "no-nvml"
    source = monitor.nvml_source()
    assert not source.available and "nvidia-ml-py" in source.reason


@pytest.mark.parametrize(("error", "reason", "words"), [
    (NVMLError_LibraryNotFound("NVML Shared Library Not Found"), nvml.NO_DRIVER, "No NVIDIA driver"),
    (RuntimeError("Driver/library version mismatch"), nvml.INIT_FAILED, "could not start: Driver/library"),
])  # fmt: skip
def test_nvml_that_cannot_start_gives_a_reason_the_monitor_puts_in_words(installed, error, reason, words):
    fake = installed(fake_pynvml(init_error=error))
    assert nvml.library() is None and nvml.opened().reason == reason
    assert words in monitor.nvml_source().reason
    nvml.close()
    assert fake.stopped == 0  # NVML never started, so nothing to shut down
