"""The device layer the GPU checks talk to: the CUDA status, and per GPU its health and a load.

The checks never call NVML or CuPy themselves; they ask a :class:`DeviceLayer` (this module's
:class:`RealLayer`, or a test double that injects faults), so the verdict logic can be proven
without a GPU. :func:`device_layer` makes the real one on first use and keeps it on the context.

:meth:`GpuView.health` returns a :class:`GpuHealth`: NVML's error counters, throttle reasons,
temperature, power, PCIe link and clocks, with units in the field names and ``None`` for "not
available" (an unsupported query, a consumer GPU without ECC, no NVML at all). Nothing NVML
returns is trusted as it comes: counts must be non-negative integers, temperatures and watts
plausible numbers, anything else reads as not available. :meth:`GpuView.under_load` keeps the
GPU busy (a CuPy matmul in a loop) while the caller samples, because a PCIe link and the
clocks only show their real state under load.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gpulab import nvml
from gpulab.devices import CudaStatus, nvml_handle, probe_cuda

if TYPE_CHECKING:
    from gpulab.catalogue import Message
    from gpulab.experiments.transfer.gpu import LinkReading
    from gpulab.kernels import KernelSpec, LaunchPreset
    from gpulab.measure import RepeatPolicy

    from .device_memtest import MemtestResult

__all__ = ["THROTTLE_BITS", "DeviceLayer", "GpuHealth", "GpuView", "NotMeasurable", "NvmlGpu", "RealLayer",
           "decode_throttle", "device_layer"]


Tick = Callable[[], None]


class NotMeasurable(Exception):
    """A measurement this GPU or this CuPy cannot make (bfloat16 before Ampere, ...); ``message`` says why."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


@dataclass(frozen=True)
class GpuHealth:
    """One sample of a GPU's health from NVML; ``None`` means "not available" for that field."""

    ecc_uncorrected_volatile: int | None = None  # since the driver loaded (NVML_VOLATILE_ECC)
    ecc_corrected_volatile: int | None = None
    retired_pages_pending: bool | None = None  # pre-Ampere dynamic page retirement
    remapped_rows_pending: bool | None = None  # Ampere and later row remapping
    remapped_rows_failure: bool | None = None
    throttle_reasons: frozenset[str] | None = None  # plain names, see THROTTLE_BITS
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None  # the most this GPU *and this slot* allow
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    sm_clock_mhz: float | None = None
    sm_clock_max_mhz: float | None = None
    utilization_gpu_percent: float | None = None


# nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*) bits, NVML API Reference,
# "NvmlClocksEventReasons"; the names are the ones a report prints.
THROTTLE_BITS = {
    0x001: "idle",  # nvmlClocksEventReasonGpuIdle: nothing runs, clocks drop
    0x002: "app_clocks",  # nvmlClocksEventReasonApplicationsClocksSetting
    0x004: "sw_power_cap",  # nvmlClocksEventReasonSwPowerCap
    0x008: "hw_slowdown",  # nvmlClocksThrottleReasonHwSlowdown: clocks cut by 2x or more
    0x010: "sync_boost",  # nvmlClocksEventReasonSyncBoost
    0x020: "sw_thermal",  # nvmlClocksEventReasonSwThermalSlowdown
    0x040: "hw_thermal",  # nvmlClocksThrottleReasonHwThermalSlowdown
    0x080: "hw_power_brake",  # nvmlClocksThrottleReasonHwPowerBrakeSlowdown (the PSU asserted it)
    0x100: "display_clocks",  # nvmlClocksEventReasonDisplayClockSetting
    0x200: "board_limit",  # nvmlClocksEventReasonBoardLimit
    0x400: "reliability",  # nvmlClocksEventReasonReliability
}


def decode_throttle(mask: Any) -> frozenset[str] | None:
    """The plain names of the bits set in NVML's clocks-event mask; unknown bits as ``bit_0x...``."""
    if not isinstance(mask, int) or isinstance(mask, bool) or mask < 0:
        return None
    names = {name for bit, name in THROTTLE_BITS.items() if mask & bit}
    known = sum(THROTTLE_BITS)
    unknown = mask & ~known
    names.update(f"bit_{1 << i:#x}" for i in range(64) if unknown & (1 << i))
    return frozenset(names)


class GpuView(Protocol):
    """One GPU as the checks see it."""

    index: int
    name: str
    pci_bus_id: str | None

    def health(self) -> GpuHealth: ...

    def under_load(self, seconds: float) -> contextlib.AbstractContextManager[None]: ...

    # Performance (gpulab.check.gpu_perf), through the labs' measuring code. Each runs ``tick``
    # between its timed repeats (the check samples health() there) and returns the best (or, for
    # the launch latency, the median) of the repeats ``policy`` asks for; what CuPy raises
    # (out of memory, a driver error) goes to the caller, so the check fails naming it.
    def link(self) -> LinkReading: ...

    def triad_gb_s(self, array_bytes: int, policy: RepeatPolicy, tick: Tick) -> float: ...

    def copy_gb_s(self, direction: str, n_bytes: int, policy: RepeatPolicy, tick: Tick) -> float: ...

    def launch_us(self, launches: int, policy: RepeatPolicy, tick: Tick) -> float: ...

    def matmul_tflops(self, dtype: str, n: int, policy: RepeatPolicy, tick: Tick) -> float: ...

    # correctness (gpulab.check.correctness)
    def memtest(self, share: float, cap_bytes: int, seed: int,
                poll: Callable[[], None] | None = None) -> MemtestResult: ...

    def run_kernel(self, spec: KernelSpec, preset: LaunchPreset, args: Sequence[Any]) -> list[Any]: ...


class DeviceLayer(Protocol):
    """What the GPU checks may ask of the machine."""

    def status(self) -> CudaStatus: ...

    def gpus(self) -> Sequence[GpuView]: ...

    def sleep(self, seconds: float) -> None: ...  # the layer owns time, so a test double runs instantly

    def kernel_log(self) -> Sequence[str]: ...  # the NVRM lines of this boot's kernel log (Xid errors)

    # Between GPUs (gpulab.check.gpu_perf): a copy from one to another, and NCCL's AllReduce.
    def p2p_gb_s(self, src: int, dst: int, n_bytes: int, policy: RepeatPolicy, tick: Tick) -> float: ...

    def nccl_available(self) -> bool: ...

    def allreduce_busbw_gb_s(self, devices: Sequence[int], n_bytes: int, policy: RepeatPolicy,
                             tick: Tick) -> float: ...


def device_layer(ctx: Any) -> DeviceLayer:
    """``ctx.devices``, made (the real layer) and stored there on first use."""
    if ctx.devices is None:
        ctx.devices = RealLayer()
    return ctx.devices


# ------------------------------------------------------------------ what NVML returned, checked


def _count(value: Any) -> int | None:
    """An error counter: a non-negative integer, else not available."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _flag(value: Any) -> bool | None:
    """NVML's 0/1 (NVML_FEATURE_DISABLED/ENABLED) as a bool; anything else not available."""
    if isinstance(value, bool):
        return value
    return bool(value) if isinstance(value, int) and value in (0, 1) else None


def _number(value: Any, low: float, high: float, scale: float = 1.0) -> float | None:
    """A reading within [low, high] after scaling (NVML's 0xFFFFFFFF "unknown" and the like fall out)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    scaled = value * scale
    return float(scaled) if low <= scaled <= high else None


def _small(value: Any, high: int) -> int | None:
    """A PCIe generation (1..high) or lane count: a positive integer no larger than ``high``."""
    count = _count(value)
    return count if count is not None and 0 < count <= high else None


# ------------------------------------------------------------------ the real layer


class NvmlGpu:
    """One CUDA device's health through :mod:`gpulab.nvml` (found by PCI bus id: CUDA and NVML
    orders can differ), and a CuPy load on it."""

    def __init__(self, index: int, name: str, pci_bus_id: str | None) -> None:
        self.index, self.name, self.pci_bus_id = index, name, pci_bus_id

    def _ask(self, handle: Any, name: str, *args: Any) -> Any:
        return nvml.query(name, handle, *args)

    def health(self) -> GpuHealth:
        handle = nvml_handle(self.pci_bus_id)
        if handle is None:  # no NVML here: every field not available, and the checks say so
            return GpuHealth()
        return GpuHealth(**self._ecc(handle), **self._repairs(handle), **self._load_state(handle),
                         **self._link(handle))

    def _ecc(self, handle: Any) -> dict[str, Any]:
        volatile = nvml.constant("NVML_VOLATILE_ECC", 0)
        uncorrected = nvml.constant("NVML_MEMORY_ERROR_TYPE_UNCORRECTED", 1)
        corrected = nvml.constant("NVML_MEMORY_ERROR_TYPE_CORRECTED", 0)
        return {"ecc_uncorrected_volatile": _count(self._ask(handle, "nvmlDeviceGetTotalEccErrors", uncorrected,
                                                             volatile)),
                "ecc_corrected_volatile": _count(self._ask(handle, "nvmlDeviceGetTotalEccErrors", corrected,
                                                           volatile))}

    def _repairs(self, handle: Any) -> dict[str, Any]:
        rows = self._ask(handle, "nvmlDeviceGetRemappedRows")  # (corrected, uncorrected, pending, failure)
        ok = isinstance(rows, (tuple, list)) and len(rows) == 4
        return {"retired_pages_pending": _flag(self._ask(handle, "nvmlDeviceGetRetiredPagesPendingStatus")),
                "remapped_rows_pending": _flag(rows[2]) if ok else None,
                "remapped_rows_failure": _flag(rows[3]) if ok else None}

    def _load_state(self, handle: Any) -> dict[str, Any]:
        sm = nvml.constant("NVML_CLOCK_SM", 1)
        # nvmlDeviceGetCurrentClocksEventReasons replaced ...ThrottleReasons (deprecated, same bits).
        mask = self._ask(handle, "nvmlDeviceGetCurrentClocksEventReasons")
        if mask is None:
            mask = self._ask(handle, "nvmlDeviceGetCurrentClocksThrottleReasons")
        utilization = self._ask(handle, "nvmlDeviceGetUtilizationRates")
        return {"throttle_reasons": decode_throttle(mask),
                "temperature_c": _number(self._ask(handle, "nvmlDeviceGetTemperature",
                                                   nvml.constant("NVML_TEMPERATURE_GPU", 0)), -40, 150),
                "power_w": _number(self._ask(handle, "nvmlDeviceGetPowerUsage"), 0, 5000, 1e-3),
                "power_limit_w": _number(self._ask(handle, "nvmlDeviceGetEnforcedPowerLimit"), 1, 5000, 1e-3),
                "sm_clock_mhz": _number(self._ask(handle, "nvmlDeviceGetClockInfo", sm), 1, 10_000),
                "sm_clock_max_mhz": _number(self._ask(handle, "nvmlDeviceGetMaxClockInfo", sm), 1, 10_000),
                "utilization_gpu_percent": _number(getattr(utilization, "gpu", None), 0, 100)}

    def _link(self, handle: Any) -> dict[str, Any]:
        # nvmlDeviceGetMaxPcieLinkGeneration is "possible with this device and system" (a Gen5 GPU
        # in a Gen4 slot reports 4), unlike nvmlDeviceGetGpuMaxPcieLinkGeneration (the GPU alone).
        return {"pcie_gen_current": _small(self._ask(handle, "nvmlDeviceGetCurrPcieLinkGeneration"), 16),
                "pcie_gen_max": _small(self._ask(handle, "nvmlDeviceGetMaxPcieLinkGeneration"), 16),
                "pcie_width_current": _small(self._ask(handle, "nvmlDeviceGetCurrPcieLinkWidth"), 32),
                "pcie_width_max": _small(self._ask(handle, "nvmlDeviceGetMaxPcieLinkWidth"), 32)}

    @contextlib.contextmanager
    def under_load(self, seconds: float) -> Iterator[None]:
        """Keep this GPU busy for at most ``seconds`` while the caller samples; raises what CuPy
        raises when the load cannot start (no CuPy, out of memory), so the check fails with it."""
        load = _MatmulLoad(self.index, seconds)
        load.start()
        try:
            yield
        finally:
            load.stop()

    # ---- performance, through the labs' code (the bandwidth, transfer, launch and precision labs)

    def link(self) -> LinkReading:
        from gpulab.experiments.transfer.gpu import read_link

        return read_link(self.index)

    def triad_gb_s(self, array_bytes: int, policy: RepeatPolicy, tick: Tick) -> float:
        """The memory-wall lab's ``stream_triad`` kernel on arrays of ``array_bytes`` float64 each."""
        from gpulab.experiments.bandwidth import ITEMSIZE, _gpu_launch, bytes_moved
        from gpulab.measure import time_gpu_stages

        cupy, n = _cupy(), max(1, array_bytes // ITEMSIZE)
        with cupy.cuda.Device(self.index):
            seconds = time_gpu_stages([("kernel", _gpu_launch(cupy, "triad", n, self.index))], policy, tick)["total"]
            cupy.get_default_memory_pool().free_all_blocks()
        return bytes_moved("triad", n) / min(seconds) / 1e9

    def copy_gb_s(self, direction: str, n_bytes: int, policy: RepeatPolicy, tick: Tick) -> float:
        """The transfer lab's pinned copy of ``n_bytes`` host to device (``h2d``) or back (``d2h``)."""
        from gpulab.experiments.transfer.gpu import open_copies

        copies = open_copies(self.index, n_bytes, ("pinned",))
        try:
            seconds = copies.time(copies.copy_call(direction, "pinned", n_bytes), policy, tick)
        finally:
            copies.close()
        return n_bytes / min(seconds) / 1e9

    def launch_us(self, launches: int, policy: RepeatPolicy, tick: Tick) -> float:
        """The launch lab's tiny kernel launched ``launches`` times, each waited for: wall µs per launch."""
        import statistics

        from gpulab.experiments.launch import TINY_ADD, TINY_ADD_FUSED
        from gpulab.experiments.launch.gpu import LaunchBench

        bench = LaunchBench(self.index, 1, TINY_ADD.source, TINY_ADD_FUSED.source)  # one element: no work
        timing = bench.time("sync", launches, policy, tick)
        return statistics.median(timing.wall_seconds) / launches * 1e6

    def matmul_tflops(self, dtype: str, n: int, policy: RepeatPolicy, tick: Tick) -> float:
        """The precision lab's cuBLAS matmul of two n x n matrices in ``dtype`` (fp64, fp32, tf32, fp16, bf16)."""
        from gpulab.experiments.matmul import flops

        cupy = _cupy()
        with cupy.cuda.Device(self.index):
            seconds = _matmul_seconds(cupy, dtype, n, self.index, policy, tick)
            cupy.get_default_memory_pool().free_all_blocks()  # the operands died with the call
        return flops(n) / min(seconds) / 1e12

    # correctness (gpulab.check.correctness)
    def memtest(self, share: float, cap_bytes: int, seed: int,
                poll: Callable[[], None] | None = None) -> MemtestResult:
        """The device memory pattern test over ``share`` of the free memory (at most ``cap_bytes``);
        raises MemtestError when it cannot allocate or a kernel fails."""
        from .device_memtest import gpu_memtest

        return gpu_memtest(self.index, share, cap_bytes, seed, poll)

    def run_kernel(self, spec: KernelSpec, preset: LaunchPreset, args: Sequence[Any]) -> list[Any]:
        """Catalogue kernel ``spec`` launched on this GPU with ``args`` as ``preset`` says: the
        arguments as the kernel left them, copied back to the host."""
        from gpulab import cuda

        cupy = cuda.require_cupy()
        with cupy.cuda.Device(self.index):
            device_args = cuda.to_device(args)  # a view (stencil_1d's in + RADIUS) stays a view
            cuda.get_kernel(spec.source, spec.entry, self.index)(preset.grid, preset.block, tuple(device_args),
                                                                 shared_mem=preset.shared_mem)
            cupy.cuda.get_current_stream().synchronize()
            return [cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else a for a in device_args]


def _matmul_seconds(cupy: Any, dtype: str, n: int, index: int, policy: RepeatPolicy, tick: Tick) -> list[float]:
    from gpulab.experiments import precision
    from gpulab.measure import time_gpu_stages

    try:
        precision._check_gpu_format(cupy, dtype, index)
        a, b, c = precision._gpu_operands(cupy, dtype, n)
    except precision._NotMeasured as why:
        raise NotMeasurable(why.message) from None
    stages = [("kernel", lambda: cupy.matmul(a, b, out=c))]
    with precision.tf32_matmuls(cupy) if dtype == "tf32" else contextlib.nullcontext():
        return time_gpu_stages(stages, policy, tick)["total"]


def _cupy() -> Any:
    from gpulab import cuda

    return cuda.require_cupy()


class _MatmulLoad:
    """float32 matmuls on one GPU in a loop on a thread, until stopped or ``seconds`` pass."""

    N = 4096  # 2 x 64 MiB operands: seconds of full SM load, little memory

    def __init__(self, index: int, seconds: float) -> None:
        self.index, self.seconds = index, seconds
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"gpulab-check-load-{index}", daemon=True)

    def start(self) -> None:
        import cupy  # outside the thread: a missing CuPy is the caller's error, at once

        with cupy.cuda.Device(self.index):
            self._a = cupy.ones((self.N, self.N), dtype=cupy.float32)
            self._b = cupy.ones((self.N, self.N), dtype=cupy.float32)
        self._thread.start()

    def _run(self) -> None:
        import cupy

        deadline = time.monotonic() + self.seconds
        try:
            with cupy.cuda.Device(self.index):
                while not self._stop.is_set() and time.monotonic() < deadline:
                    cupy.matmul(self._a, self._b)
                    cupy.cuda.Device(self.index).synchronize()  # one launch at a time: stop is prompt
        except BaseException as exc:  # reported by stop(): the check fails, naming it
            self._error = exc

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._a = self._b = None
        if self._error is not None:
            raise RuntimeError(f"the load on GPU {self.index} failed: {self._error}") from self._error


class RealLayer:
    """The machine as CuPy and NVML see it; the CUDA probe runs once."""

    def __init__(self) -> None:
        self._status: CudaStatus | None = None

    def status(self) -> CudaStatus:
        if self._status is None:
            self._status = probe_cuda()
        return self._status

    def gpus(self) -> Sequence[GpuView]:
        return [NvmlGpu(gpu.index, gpu.name, gpu.pci_bus_id) for gpu in self.status().devices]

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def kernel_log(self) -> Sequence[str]:
        from .xid import read_kernel_log

        return read_kernel_log()

    # ---- between GPUs, through the topology lab's copies and the collectives lab's NCCL group

    def p2p_gb_s(self, src: int, dst: int, n_bytes: int, policy: RepeatPolicy, tick: Tick) -> float:
        """The topology lab's copy of ``n_bytes`` from GPU ``src`` to ``dst`` (peer access on where CUDA allows)."""
        from gpulab.experiments.p2p.gpu import open_copies

        copies = open_copies([src, dst], n_bytes)
        try:
            copies.enable_peer(src, dst)
            seconds = copies.time(src, dst, policy, tick)
        finally:
            copies.close()
        return n_bytes / min(seconds) / 1e9

    def nccl_available(self) -> bool:
        try:
            from cupy.cuda import nccl  # noqa: F401 - only whether it imports
        except ImportError:
            return False
        return True

    def allreduce_busbw_gb_s(self, devices: Sequence[int], n_bytes: int, policy: RepeatPolicy,
                             tick: Tick) -> float:
        """NCCL AllReduce of ``n_bytes`` across CUDA devices 0..n-1 (the collectives lab's LocalGroup):
        busbw, nccl-tests' figure, of the median call after a warm-up."""
        import statistics

        from gpulab.cluster import busbw, nccl_backend

        if list(devices) != list(range(len(devices))):  # LocalGroup drives devices 0..n-1
            raise ValueError(f"NCCL AllReduce runs on CUDA devices 0..n-1, not {list(devices)}")
        group = nccl_backend.LocalGroup(len(devices))
        plan = busbw.layout("allreduce", n_bytes, len(devices))
        buffers = []
        for device in devices:
            with group.cupy.cuda.Device(device):
                buffers.append(nccl_backend._buffers(group.cupy, plan, device))
        group.timed_call(plan, buffers)  # warm-up: NCCL sets up its channels on the first call of a size
        seconds: list[float] = []
        while policy.wants_more(len(seconds), sum(seconds)):
            tick()
            seconds.append(group.timed_call(plan, buffers))
        return busbw.busbw_gb_s("allreduce", plan.message_bytes, statistics.median(seconds), plan.ranks)
