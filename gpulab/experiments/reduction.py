"""Parallel reduction three ways: interleaved (divergent), sequential addressing, warp shuffles.

Every variant writes one integer partial sum per block (checked bit-exactly against numpy).
Interleaved addressing picks workers with tid % (2*s) == 0, leaving most lanes of each warp
idle; sequential addressing (tid < s) keeps whole warps busy or idle; warp shuffles sum in
registers and need far fewer instructions. Series: warp execution efficiency, branch
efficiency and instructions executed, exact from the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.experiments.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.experiments.emulated import LabPlan, MetricSeries, Variant, metric, run_variants

TITLE = "Parallel reduction"
DESCRIPTION = ("Warp execution efficiency, branch efficiency and instructions of three block-sum kernels, exact "
               "from the SIMT emulator (and kernel times on a GPU when one is usable).")
TITLE_ZH = "并行归约"
DESCRIPTION_ZH = ("三个块内求和核函数的 warp 执行效率、分支效率和指令数，由 SIMT 仿真器精确算出"
                  "（有可用 GPU 时还给出核函数时间）。")

SERIES = (
    MetricSeries("warp execution efficiency (emulated)", "warp execution efficiency", "%",
                 metric("warp_execution_efficiency")),
    MetricSeries("branch efficiency (emulated)", "branch efficiency", "%", metric("branch_efficiency")),
    MetricSeries("instructions executed (emulated)", "warp instructions executed", "", metric("inst_executed")),
)
MAX_BLOCK = 256


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` integers are summed, one partial sum per ``block`` threads; ``gpu_n`` and ``repeats``
    are for GPU timing."""

    n: int = param(4096, "integers n", "整数个数 n", "How many integers are summed.", "要求和的整数个数。", min=1)
    block: int = param(256, "threads per block", "每块线程数",
                       "Threads per block, one partial sum each (a power of two, 32 to 256).",
                       "每个线程块的线程数，每块得出一个部分和（2 的幂，32 到 256）。",
                       min=32, max=MAX_BLOCK, power_of_two=True)
    gpu_n: int = param(1 << 22, "integers on the GPU", "GPU 上的整数个数",
                       "Integers summed when timing on a GPU.", "在 GPU 上计时时求和的整数个数。",
                        min=1)
    repeats: int = param(20, "repeats", "重复次数", "Timed GPU launches per variant; the median is kept.",
                         "每个变体在 GPU 上计时的次数，取中位数。", min=1)



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
