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
from gpulab.check.device import GpuHealth
from gpulab.devices import CudaStatus, GpuInfo

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

    def __init__(self, *gpus: FakeGpu) -> None:
        self._gpus = list(gpus)
        self.slept_s = 0.0

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
