"""What this machine has: CUDA devices (through CuPy and NVML) and the CPU.

Queries never raise: a missing library, driver or device gives a record whose ``reason`` says
why in plain words. Fields carry their units in their names; ``None`` means "not available".
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import os
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpulab import nvml
from gpulab.catalogue import Message, entries, msg, plain, render

# cudaError_t codes CuPy reports (CUDA runtime API documentation, "Data types: cudaError").
CUDA_ERROR_INSUFFICIENT_DRIVER = 35
CUDA_ERROR_NO_DEVICE = 100


@dataclass(frozen=True)
class GpuInfo:
    """One CUDA device as CuPy (and NVML, where present) describe it."""

    index: int
    name: str
    compute_capability: str
    sm_count: int
    memory_total_bytes: int
    sm_clock_mhz: float | None
    memory_clock_mhz: float | None
    memory_bus_width_bits: int | None
    l2_cache_bytes: int | None
    pci_bus_id: str | None
    # Derived: 2 transfers per memory clock (DDR) x bus width in bytes.
    peak_bandwidth_gb_s: float | None
    nvml: NvmlInfo | None = None


@dataclass(frozen=True)
class NvmlInfo:
    """What NVML adds: link, power, temperature. Any field may be None (not supported)."""

    driver_version: str | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    temperature_c: float | None = None


@dataclass(frozen=True)
class CudaStatus:
    """Whether a usable CUDA device exists, and if not, why.

    ``reason`` is the English sentence; ``reason_message`` the keyed message it was rendered
    from (``device.reason.*`` in the text catalogue), so a front end can show it in any language.
    """

    available: bool
    reason: str
    reason_code: str  # ok | no-cupy | cupy-broken | no-driver | old-driver | no-device | error
    devices: tuple[GpuInfo, ...] = ()
    cupy_version: str | None = None
    cuda_runtime_version: str | None = None
    cuda_driver_version: str | None = None
    reason_message: Message | None = None


@dataclass(frozen=True)
class BlasInfo:
    """The BLAS library numpy uses, as threadpoolctl reports it."""

    vendor: str
    version: str | None
    threads: int
    architecture: str | None = None


@dataclass(frozen=True)
class CpuInfo:
    """The host CPU and its BLAS."""

    model: str
    physical_cores: int | None
    logical_cores: int | None
    max_clock_mhz: float | None
    memory_total_bytes: int | None
    blas: tuple[BlasInfo, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class DeviceReport:
    """Everything the lab knows about this machine's compute devices."""

    cuda: CudaStatus
    cpu: CpuInfo

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# -------------------------------------------------------------------- CUDA


def _version_string(encoded: int) -> str:
    """CUDA encodes versions as 1000*major + 10*minor."""
    return f"{encoded // 1000}.{(encoded % 1000) // 10}"


def _libcuda_loadable() -> bool:
    names = ["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1", "libcuda.so"]
    if sys.platform == "darwin":
        return False
    for name in names:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


def _unavailable(code: str, reason: Message, **versions: str | None) -> CudaStatus:
    return CudaStatus(False, render(reason), code, (), versions.get("cupy_version"),
                      versions.get("cuda_runtime_version"), versions.get("cuda_driver_version"), reason)


def probe_cuda() -> CudaStatus:
    """Find CUDA devices through CuPy; explain in plain words when there are none."""
    try:
        import cupy
    except ImportError:
        return _unavailable("no-cupy", msg("device.reason.no-cupy"))
    except Exception as exc:  # a broken CUDA library makes the import itself fail
        return _unavailable("cupy-broken", msg("device.reason.cupy-broken", detail=str(exc)))
    return _probe_with_cupy(cupy)


def _probe_with_cupy(cupy: Any) -> CudaStatus:
    runtime = cupy.cuda.runtime
    versions: dict[str, str | None] = {"cupy_version": cupy.__version__}
    try:
        versions["cuda_runtime_version"] = _version_string(runtime.runtimeGetVersion())
        driver = runtime.driverGetVersion()
        versions["cuda_driver_version"] = _version_string(driver) if driver else None
        count = runtime.getDeviceCount()
    except Exception as exc:
        return _explain_cuda_error(exc, versions)
    if count == 0:
        return _unavailable("no-device", msg("device.reason.no-device-listed"), **versions)
    devices = tuple(_gpu_info(cupy, i) for i in range(count))
    found = msg("device.reason.ok", count=count)
    return CudaStatus(True, render(found), "ok", devices, versions["cupy_version"],
                      versions["cuda_runtime_version"], versions["cuda_driver_version"], found)


def _explain_cuda_error(exc: Exception, versions: dict[str, str | None]) -> CudaStatus:
    status = getattr(exc, "status", None)
    runtime = versions.get("cuda_runtime_version") or "?"
    if status == CUDA_ERROR_INSUFFICIENT_DRIVER:
        if not _libcuda_loadable():
            return _unavailable("no-driver", msg("device.reason.no-driver", runtime=runtime), **versions)
        driver = versions.get("cuda_driver_version") or "unknown"
        return _unavailable("old-driver", msg("device.reason.old-driver", driver=driver, runtime=runtime), **versions)
    if status == CUDA_ERROR_NO_DEVICE:
        return _unavailable("no-device", msg("device.reason.no-device"), **versions)
    return _unavailable("error", msg("device.reason.error", detail=str(exc)), **versions)


def _attribute(runtime: Any, name: str, index: int) -> int | None:
    try:
        return int(runtime.deviceGetAttribute(getattr(runtime, name), index))
    except Exception:
        return None


def _gpu_info(cupy: Any, index: int) -> GpuInfo:
    runtime = cupy.cuda.runtime
    props = runtime.getDeviceProperties(index)
    name = props.get("name", b"?")
    name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    clock_khz = _attribute(runtime, "cudaDevAttrClockRate", index)
    mem_khz = _attribute(runtime, "cudaDevAttrMemoryClockRate", index)
    bus_bits = _attribute(runtime, "cudaDevAttrGlobalMemoryBusWidth", index)
    try:
        pci = str(runtime.deviceGetPCIBusId(index))
    except Exception:
        pci = None
    return GpuInfo(
        index=index,
        name=name,
        compute_capability=f"{props.get('major', '?')}.{props.get('minor', '?')}",
        sm_count=int(props.get("multiProcessorCount", 0)),
        memory_total_bytes=int(props.get("totalGlobalMem", 0)),
        sm_clock_mhz=clock_khz / 1000 if clock_khz else None,
        memory_clock_mhz=mem_khz / 1000 if mem_khz else None,
        memory_bus_width_bits=bus_bits,
        l2_cache_bytes=_attribute(runtime, "cudaDevAttrL2CacheSize", index),
        pci_bus_id=pci,
        peak_bandwidth_gb_s=peak_bandwidth_gb_s(mem_khz, bus_bits),
        nvml=nvml_info(pci),
    )


def peak_bandwidth_gb_s(memory_clock_khz: int | None, bus_width_bits: int | None) -> float | None:
    """Theoretical DRAM bandwidth: 2 transfers per clock x bus width (GB/s, 1e9 bytes)."""
    if not memory_clock_khz or not bus_width_bits:
        return None
    return 2 * memory_clock_khz * 1e3 * (bus_width_bits / 8) / 1e9


# -------------------------------------------------------------------- NVML


def nvml_handle(pci_bus_id: str | None) -> Any | None:
    """NVML's handle for the device at ``pci_bus_id`` (CUDA and NVML orders can differ)."""
    if not pci_bus_id:
        return None
    return nvml.query("nvmlDeviceGetHandleByPciBusId", pci_bus_id.encode())


def _watts(milliwatts: Any) -> float | None:
    return milliwatts / 1000 if isinstance(milliwatts, (int, float)) else None


def nvml_info(pci_bus_id: str | None) -> NvmlInfo | None:
    """Link, power and temperature for one device (through :mod:`gpulab.nvml`), or None without NVML."""
    handle = nvml_handle(pci_bus_id)
    if handle is None:
        return None

    def ask(name: str, *args: Any) -> Any:
        return nvml.query(name, handle, *args)

    return NvmlInfo(
        driver_version=nvml.text(nvml.query("nvmlSystemGetDriverVersion")),
        pcie_gen_current=ask("nvmlDeviceGetCurrPcieLinkGeneration"),
        pcie_gen_max=ask("nvmlDeviceGetMaxPcieLinkGeneration"),
        pcie_width_current=ask("nvmlDeviceGetCurrPcieLinkWidth"),
        pcie_width_max=ask("nvmlDeviceGetMaxPcieLinkWidth"),
        power_draw_w=_watts(ask("nvmlDeviceGetPowerUsage")),
        power_limit_w=_watts(ask("nvmlDeviceGetEnforcedPowerLimit")),
        temperature_c=ask("nvmlDeviceGetTemperature", nvml.constant("NVML_TEMPERATURE_GPU", 0)),
    )


# --------------------------------------------------------------------- CPU


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def blas_info() -> tuple[BlasInfo, ...]:
    """numpy's BLAS libraries and their thread counts (threadpoolctl)."""
    import numpy  # noqa: F401  (loads the BLAS so threadpoolctl can see it)
    from threadpoolctl import threadpool_info

    return tuple(
        BlasInfo(
            vendor=str(pool.get("internal_api", "unknown")),
            version=pool.get("version"),
            threads=int(pool.get("num_threads", 1)),
            architecture=pool.get("architecture"),
        )
        for pool in threadpool_info()
        if pool.get("user_api") == "blas"
    )


def describe_cpu() -> CpuInfo:
    """The CPU model, its cores and clock, memory size, and numpy's BLAS."""
    import psutil

    freq = None
    try:
        cpu_freq = psutil.cpu_freq()
        freq = cpu_freq.max or cpu_freq.current if cpu_freq else None
    except Exception:
        freq = None
    return CpuInfo(
        model=_cpu_model(),
        physical_cores=psutil.cpu_count(logical=False),
        logical_cores=psutil.cpu_count(logical=True) or os.cpu_count(),
        max_clock_mhz=freq or None,
        memory_total_bytes=int(psutil.virtual_memory().total),
        blas=blas_info(),
    )


def device_report() -> DeviceReport:
    """The full report: CUDA status with its devices, and the CPU."""
    return DeviceReport(cuda=probe_cuda(), cpu=describe_cpu())


# ------------------------------------------------------------ explanations

def reason_message(status: CudaStatus) -> Message:
    """The keyed message of ``status``'s reason.

    A status made by :func:`probe_cuda` carries it. One built by hand (a test, an old
    report) has only the English ``reason`` and its ``reason_code``: the message is then
    rebuilt from the code and the versions, and an error's own text is taken from the end
    of the English reason (``cupy-broken``, ``error``).
    """
    if status.reason_message is not None:
        return status.reason_message
    key = f"device.reason.{status.reason_code}"
    entry = entries().get(key)
    if entry is None:
        return plain(status.reason)
    prefix = entry.en.split("{detail}")[0] if "{detail}" in entry.en else ""
    return msg(key, count=len(status.devices), detail=status.reason.removeprefix(prefix),
               runtime=status.cuda_runtime_version or "?", driver=status.cuda_driver_version or "unknown")


def explain(status: CudaStatus, lang: str = "en") -> str:
    """Why CUDA is (not) usable, in plain words, in ``lang`` ('en' or 'zh').

    English is the probe's own ``reason``; other languages render :func:`reason_message`.
    """
    if lang == "en":
        return status.reason
    return render(reason_message(status), lang)
