"""A test double of the GPU checks' device layer (gpulab.check.device), with faults to inject.

A :class:`FakeGpu` answers ``health()`` with its ``idle`` sample at rest and its ``loaded``
sample inside ``under_load()`` (which only flips a flag); ``raises`` makes ``health()`` raise and
``load_raises`` makes the load fail to start. :class:`FakeLayer` lists the GPUs with a CUDA status
that says they are available (or, with no GPUs, the status of a laptop without a driver), and its
``sleep`` returns at once while adding up the time asked for.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

from gpulab.catalogue import msg, render
from gpulab.check.device import GpuHealth, NotMeasurable
from gpulab.devices import CudaStatus, GpuInfo
from gpulab.experiments.transfer.gpu import LinkReading

H100 = "NVIDIA H100 80GB HBM3"

# A healthy H100 in a Gen5 x16 slot: at rest the link has dropped to Gen1 to save power.
HEALTHY_IDLE = GpuHealth(ecc_uncorrected_volatile=0, ecc_corrected_volatile=0, retired_pages_pending=False,
                         remapped_rows_pending=False, remapped_rows_failure=False,
                         throttle_reasons=frozenset({"idle"}), temperature_c=34.0, power_w=70.0,
                         power_limit_w=700.0, pcie_gen_current=1, pcie_gen_max=5, pcie_width_current=16,
                         pcie_width_max=16, sm_clock_mhz=345.0, sm_clock_max_mhz=1980.0,
                         utilization_gpu_percent=0.0)
HEALTHY_LOADED = dataclasses.replace(HEALTHY_IDLE, throttle_reasons=frozenset({"sw_power_cap"}), temperature_c=61.0,
                                     power_w=690.0, pcie_gen_current=5, sm_clock_mhz=1755.0,
                                     utilization_gpu_percent=100.0)


class FakeGpu:
    """One GPU; ``idle``/``loaded`` are what ``health()`` returns at rest and under load."""

    def __init__(self, index: int = 0, name: str = H100, idle: GpuHealth = HEALTHY_IDLE,
                 loaded: GpuHealth = HEALTHY_LOADED, raises: Exception | None = None,
                 load_raises: Exception | None = None) -> None:
        self.index, self.name, self.pci_bus_id = index, name, f"0000:{index + 0x18:02x}:00.0"
        self.idle, self.loaded, self.raises, self.load_raises = idle, loaded, raises, load_raises
        self.loading = False
        self.loads = 0  # how often a load ran

    def health(self) -> GpuHealth:
        if self.raises is not None:
            raise self.raises
        return self.loaded if self.loading else self.idle

    @contextlib.contextmanager
    def under_load(self, seconds: float) -> Iterator[None]:
        if self.load_raises is not None:
            raise self.load_raises
        self.loading, self.loads = True, self.loads + 1
        try:
            yield
        finally:
            self.loading = False

    # ---- performance (gpu_perf): rates from ``perf``; a measurement runs "under load" (health()
    # answers the loaded sample, so fault(loaded=...) injects throttling during a timed check).

    perf: FakePerf

    def link(self) -> LinkReading:
        return self.perf.link

    def _measured(self, what: str, value: float, tick, size: int = 0, policy=None) -> float:
        self.asked = [*getattr(self, "asked", []), (what, size, policy)]  # what the check asked to measure
        if what in self.perf.raises:
            raise self.perf.raises[what]
        with self.under_load(0.0):
            for _ in range(3):  # three timed repeats
                tick()
        return value

    def triad_gb_s(self, array_bytes, policy, tick) -> float:
        return self._measured("triad", self.perf.triad_gb_s * self.perf.scale, tick, array_bytes, policy)

    def copy_gb_s(self, direction, n_bytes, policy, tick) -> float:
        return self._measured(direction, self.perf.copy_gb_s[direction] * self.perf.scale, tick, n_bytes, policy)

    def launch_us(self, launches, policy, tick) -> float:
        return self._measured("launch", self.perf.launch_us / self.perf.scale, tick, launches, policy)

    def matmul_tflops(self, dtype, n, policy, tick) -> float:
        if dtype in self.perf.unsupported:
            raise NotMeasurable(msg("note.precision.gpu-too-old", dtype=dtype, capability="7.0"))
        return self._measured(f"matmul.{dtype}", self.perf.matmul_tflops[dtype] * self.perf.scale, tick, n, policy)

    # correctness (gpulab.check.correctness): memory that keeps every word, kernels that give their numpy
    # reference's outputs; tests.gpulab.check.fakes_correctness.CheckedGpu injects faults into both.
    def memtest(self, share: float, cap_bytes: int, seed: int, poll: Any = None) -> Any:
        from gpulab.check.device_memtest import PATTERNS, MemtestResult, PatternResult, planned_words

        free = 79 * 2**30
        tested = planned_words(free, share, cap_bytes) * 8
        return MemtestResult(free, tested, 0x7F00_0000_0000, seed, tuple(PatternResult(p, 0, ()) for p in PATTERNS),
                             0.5)

    def run_kernel(self, spec: Any, preset: Any, args: Any) -> list[Any]:
        from gpulab.kernels import copy_args

        outputs = copy_args(args)
        for index, value in spec.expected(args).items():
            outputs[index] = value.copy()
        return outputs


def fault(gpu_index: int = 0, *, idle: dict | None = None, loaded: dict | None = None, **kwargs) -> FakeGpu:
    """A healthy GPU with some fields of its idle and loaded samples replaced."""
    return FakeGpu(gpu_index, idle=dataclasses.replace(HEALTHY_IDLE, **(idle or {})),
                   loaded=dataclasses.replace(HEALTHY_LOADED, **(loaded or {})), **kwargs)


def _info(gpu: FakeGpu) -> GpuInfo:
    return GpuInfo(gpu.index, gpu.name, "9.0", 132, 80 * 2**30, 1980.0, 2619.0, 5120, 50 * 2**20, gpu.pci_bus_id,
                   3352.0)


class FakeLayer:
    """The machine: these GPUs, or none (a laptop without an NVIDIA driver)."""

    def __init__(self, *gpus: FakeGpu, kernel_log: list[str] | Exception | None = None) -> None:
        self._gpus = list(gpus)
        self.slept_s = 0.0
        self.log = [] if kernel_log is None else kernel_log  # the NVRM lines, or what reading them raises

    def status(self) -> CudaStatus:
        if not self._gpus:
            reason = msg("device.reason.no-driver", runtime="12.9")
            return CudaStatus(False, render(reason), "no-driver", (), "13.6.0", "12.9", None, reason)
        found = msg("device.reason.ok", count=len(self._gpus))
        return CudaStatus(True, render(found), "ok", tuple(_info(g) for g in self._gpus), "13.6.0", "12.9", "12.9",
                          found)

    def gpus(self) -> list[FakeGpu]:
        return list(self._gpus)

    def sleep(self, seconds: float) -> None:
        self.slept_s += seconds

    def kernel_log(self) -> list[str]:
        if isinstance(self.log, Exception):
            raise self.log
        return list(self.log)

    # ---- between GPUs (gpu_perf)

    nccl_installed = True
    p2p_rate_gb_s = 370.0  # an 8x H100 SXM board's NVLink copy (topology.toml, p2p-nvlink-dgx-h100)
    busbw_gb_s = 365.0  # its ring AllReduce (collectives.toml, allreduce-ring-8xh100)
    p2p_raises: Exception | None = None

    def p2p_gb_s(self, src, dst, n_bytes, policy, tick) -> float:
        if self.p2p_raises is not None:
            raise self.p2p_raises
        tick()
        return self.p2p_rate_gb_s * min(self._gpus[src].perf.scale, self._gpus[dst].perf.scale)

    def nccl_available(self) -> bool:
        return self.nccl_installed

    def allreduce_busbw_gb_s(self, devices, n_bytes, policy, tick) -> float:
        tick()
        return self.busbw_gb_s


# ------------------------------------------------------------------ performance (gpu_perf)


class FakeOutOfMemory(MemoryError):
    """Stands for cupy.cuda.memory.OutOfMemoryError (a MemoryError), raised mid-measurement."""


@dataclasses.dataclass(frozen=True)
class FakePerf:
    """What a healthy H100 SXM in a Gen5 x16 slot measures (near the published figures the check
    holds it to); ``scale`` slows every rate (and lengthens the launch), ``raises`` makes one
    measurement (``triad``, ``h2d``, ``launch``, ``matmul.fp16``, ...) raise, ``unsupported``
    dtypes raise NotMeasurable."""

    triad_gb_s: float = 2950.0
    copy_gb_s: dict = dataclasses.field(default_factory=lambda: {"h2d": 55.0, "d2h": 56.0})
    launch_us: float = 9.0
    matmul_tflops: dict = dataclasses.field(default_factory=lambda: {
        "fp32": 50.0, "tf32": 360.0, "fp16": 780.0, "bf16": 780.0, "fp64": 52.0})
    link: LinkReading = dataclasses.field(default_factory=lambda: LinkReading(5, 5, 16, 16, "nvml"))
    scale: float = 1.0
    raises: dict = dataclasses.field(default_factory=dict)
    unsupported: frozenset = frozenset()


FakeGpu.perf = FakePerf()


def perf_gpu(index: int = 0, name: str = H100, **perf) -> FakeGpu:
    """A healthy GPU whose measurements are FakePerf(**perf)."""
    gpu = FakeGpu(index, name=name)
    gpu.perf = FakePerf(**perf)
    return gpu
