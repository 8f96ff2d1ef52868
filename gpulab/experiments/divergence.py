"""Warp divergence: the same kernels with branches that split warps, or not, run in the emulator.

A warp issues one instruction for its 32 lanes. When lanes disagree at a branch the warp runs
both sides with part of its lanes masked off, so branch efficiency (branches where a warp
agreed) and warp execution efficiency (share of lanes busy per instruction) drop. Variants:
even/odd lanes, the same work branched per warp, k different paths on ``lane % k``, and a loop
whose trip count differs per lane.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.experiments.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.experiments.emulated import LabPlan, MetricSeries, Variant, metric, run_variants

TITLE = "Warp divergence"
DESCRIPTION = ("Branch and warp execution efficiency of even/odd, warp-aligned, k-way and data-dependent "
               "branches, exact from the SIMT emulator (and kernel times on a GPU when one is usable).")
TITLE_ZH = "Warp 分支发散"
DESCRIPTION_ZH = ("奇偶分支、按 warp 对齐的分支、k 路分支和依赖数据的循环的分支效率与 warp 执行效率，"
                  "由 SIMT 仿真器精确算出（有可用 GPU 时还给出核函数时间）。")

SERIES = (
    MetricSeries("branch efficiency (emulated)", "branch efficiency", "%", metric("branch_efficiency")),
    MetricSeries("warp execution efficiency (emulated)", "warp execution efficiency", "%",
                 metric("warp_execution_efficiency")),
    MetricSeries("instructions executed (emulated)", "warp instructions executed", "", metric("inst_executed")),
)
MAX_PATHS = 8


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` threads (``block`` per block) are emulated; ``kways`` are the k of the k-way variants;
    ``max_rounds`` bounds the data-dependent loop; ``gpu_n`` threads and ``repeats`` are for GPU timing."""

    n: int = param(1024, "threads n", "线程数 n", "Threads emulated (a multiple of 32).", "仿真的线程数（32 的倍数）。",
                   min=32, multiple_of=32)
    block: int = param(256, "threads per block", "每块线程数", "Threads per block in the emulated launch.",
                       "仿真启动中每个线程块的线程数。", min=64, max=1024, multiple_of=64)
    kways: tuple[int, ...] = param((2, 3, 4, 5, 6, 7, 8), "k of the k-way branches", "k 路分支的 k",
                                   "How many different paths each k-way variant has (1 to 8).",
                                   "每个 k 路变体有几条不同的路径（1 到 8）。", min=1, max=MAX_PATHS)
    max_rounds: int = param(32, "most loop rounds", "最多循环轮数",
                            "Upper bound of the data-dependent loop's per-lane trip count.",
                            "依赖数据的循环中每条 lane 循环次数的上限。", min=0)
    gpu_n: int = param(1 << 22, "threads on the GPU", "GPU 上的线程数",
                       "Threads per launch when timing on a GPU.", "在 GPU 上计时时每次启动的线程数。",
                       min=32, multiple_of=32)
    repeats: int = param(20, "repeats", "重复次数", "Timed GPU launches per variant; the median is kept.",
                         "每个变体在 GPU 上计时的次数，取中位数。", min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Even/odd, warp-aligned, one k-way variant per k, the data-dependent loop and its uniform twin."""
    return (
        Variant("even/odd", "divergence_even_odd", params.block),
        Variant("warp-aligned", "divergence_warp_aligned", params.block),
        *(Variant(f"k-way k={k}", "divergence_kway", params.block, {"k": k}) for k in params.kways),
        Variant("data-dependent loop", "loop_data_dependent", params.block, {"max_rounds": params.max_rounds}),
        Variant("uniform loop", "loop_data_dependent", params.block,
                {"min_rounds": params.max_rounds // 2, "max_rounds": params.max_rounds // 2}),
    )


NOTES = (
    "Even/odd and warp-aligned do the same arithmetic; only which threads take which path differs.",
    "k-way divergence is an if/else-if chain on lane % k (the emulator's C subset has no switch; "
    "a switch diverges the same way on a GPU).",
    "The data-dependent loop runs counts[i] rounds per lane (random, 0 to max_rounds): a warp loops "
    "as long as its slowest lane. The uniform loop is the same kernel with every lane running the "
    "average, max_rounds / 2, rounds.",
)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every variant; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("divergence", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES)
    return (yield from run_variants(plan, ctx))
