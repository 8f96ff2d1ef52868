"""Parallel reduction three ways: interleaved (divergent), sequential addressing, warp shuffles.

Every variant writes one integer partial sum per block (checked bit-exactly against numpy).
Interleaved addressing picks workers with tid % (2*s) == 0, leaving most lanes of each warp
idle; sequential addressing (tid < s) keeps whole warps busy or idle; warp shuffles sum in
registers and need far fewer instructions. Series: warp execution efficiency, branch
efficiency and instructions executed, exact from the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.experiments.base import Context, ExperimentGen, params_to_dict
from gpulab.experiments.emulated import LabPlan, MetricSeries, Variant, metric, run_variants

TITLE = "Parallel reduction"
DESCRIPTION = ("Warp execution efficiency, branch efficiency and instructions of three block-sum kernels, exact "
               "from the SIMT emulator (and kernel times on a GPU when one is usable).")

SERIES = (
    MetricSeries("warp execution efficiency (emulated)", "warp execution efficiency", "%",
                 metric("warp_execution_efficiency")),
    MetricSeries("branch efficiency (emulated)", "branch efficiency", "%", metric("branch_efficiency")),
    MetricSeries("instructions executed (emulated)", "warp instructions executed", "", metric("inst_executed")),
)
MAX_BLOCK = 256


@dataclass(frozen=True)
class Params:
    """``n`` integers are summed, one partial sum per ``block`` threads; ``gpu_n`` and ``repeats``
    are for GPU timing."""

    n: int = 4096
    block: int = 256
    gpu_n: int = 1 << 22
    repeats: int = 20

    def __post_init__(self) -> None:
        if self.n < 1 or self.gpu_n < 1:
            raise ValueError("n and gpu_n must be positive")
        if self.block < 32 or self.block > MAX_BLOCK or self.block & (self.block - 1):
            raise ValueError(f"block must be a power of two between 32 and {MAX_BLOCK}")
        if self.repeats < 1:
            raise ValueError("repeats must be at least 1")


def variants(params: Params) -> tuple[Variant, ...]:
    """Interleaved, sequential and shuffle reductions with the same block size."""
    return (
        Variant("interleaved (tid % 2s)", "reduce_interleaved", params.block),
        Variant("sequential (tid < s)", "reduce_sequential", params.block),
        Variant("warp shuffle", "reduce_shuffle", params.block),
    )


NOTES = ("Each kernel writes one partial sum per block; the sums are integers, so the check against numpy "
         "is bit-exact.",)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate the three reductions; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("reduction", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES)
    return (yield from run_variants(plan, ctx))
