import sys
import types

import pytest

from gpulab import devices


class FakeCudaError(RuntimeError):
    def __init__(self, status: int) -> None:
        super().__init__(f"cuda error {status}")
        self.status = status


def fake_cupy(device_count=None, error_status=None, driver=0):
    runtime = types.SimpleNamespace(
        runtimeGetVersion=lambda: 12090,
        driverGetVersion=lambda: driver,
        getDeviceCount=lambda: _count(device_count, error_status),
        getDeviceProperties=lambda i: {"name": b"NVIDIA A100-SXM4-40GB", "major": 8, "minor": 0,
                                       "multiProcessorCount": 108, "totalGlobalMem": 40 * 2**30},
        deviceGetAttribute=lambda attr, i: {"clock": 1410000, "mem": 1215000, "bus": 5120, "l2": 40 * 2**20}[attr],
        deviceGetPCIBusId=lambda i: "0000:07:00.0",
        cudaDevAttrClockRate="clock", cudaDevAttrMemoryClockRate="mem",
        cudaDevAttrGlobalMemoryBusWidth="bus", cudaDevAttrL2CacheSize="l2",
    )
    return types.SimpleNamespace(__version__="99.0", cuda=types.SimpleNamespace(runtime=runtime))


def _count(device_count, error_status):
    if error_status is not None:
        raise FakeCudaError(error_status)
    return device_count


def test_missing_cupy_is_explained_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    status = devices.probe_cuda()
    assert not status.available
    assert status.reason_code == "no-cupy"
    assert "[cuda12]" in status.reason


def test_insufficient_driver_without_libcuda_means_no_driver(monkeypatch):
    monkeypatch.setattr(devices, "_libcuda_loadable", lambda: False)
    status = devices._probe_with_cupy(fake_cupy(error_status=devices.CUDA_ERROR_INSUFFICIENT_DRIVER))
    assert (status.available, status.reason_code) == (False, "no-driver")
    assert "No NVIDIA driver" in status.reason and "12.9" in status.reason


def test_insufficient_driver_with_libcuda_means_the_driver_is_too_old(monkeypatch):
    monkeypatch.setattr(devices, "_libcuda_loadable", lambda: True)
    status = devices._probe_with_cupy(fake_cupy(error_status=devices.CUDA_ERROR_INSUFFICIENT_DRIVER, driver=11040))
    assert status.reason_code == "old-driver"
    assert "CUDA 11.4" in status.reason and "CUDA 12.9" in status.reason


def test_no_device_error_says_so():
    status = devices._probe_with_cupy(fake_cupy(error_status=devices.CUDA_ERROR_NO_DEVICE))
    assert status.reason_code == "no-device"


def test_a_device_is_described_with_units_and_derived_bandwidth(monkeypatch):
    monkeypatch.setattr(devices, "nvml_info", lambda pci: None)
    status = devices._probe_with_cupy(fake_cupy(device_count=1, driver=12090))
    assert status.available and status.reason_code == "ok"
    gpu = status.devices[0]
    assert gpu.name == "NVIDIA A100-SXM4-40GB"
    assert gpu.compute_capability == "8.0"
    assert gpu.sm_clock_mhz == pytest.approx(1410)
    # A100 40 GB: 1215 MHz HBM2 x 5120-bit bus x 2 = 1555 GB/s (NVIDIA A100 datasheet).
    assert gpu.peak_bandwidth_gb_s == pytest.approx(1555.2)


def test_real_probe_on_this_machine_never_raises_and_explains_itself():
    status = devices.probe_cuda()
    assert status.available or len(status.reason) > 20
    assert status.reason_code in {"ok", "no-cupy", "cupy-broken", "no-driver", "old-driver", "no-device", "error"}


def test_cpu_description_reports_cores_and_blas_threads():
    cpu = devices.describe_cpu()
    assert cpu.logical_cores and cpu.logical_cores >= 1
    assert cpu.model
    assert all(b.threads >= 1 for b in cpu.blas)
    assert devices.device_report().to_dict()["cpu"]["model"] == cpu.model
