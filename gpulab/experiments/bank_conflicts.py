"""Shared-memory bank conflicts: transpose through a 32 x 32 tile with and without padding, and
strided reads of a shared buffer.

Shared memory has 32 banks of 4 bytes. When lanes of one warp hit different words in the same
bank, the access is split into several wavefronts (transactions). Reading a column of a
32 x 32 float tile puts all 32 lanes on one bank (32-way); padding rows to 33 floats spreads a
column over all banks. Series: shared load and store transactions per request, exact from
the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.experiments.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.experiments.emulated import LabPlan, MetricSeries, Variant, metric, run_variants

TITLE = "Shared-memory bank conflicts"
DESCRIPTION = ("Shared-memory transactions per request for a tiled transpose with and without padding and for "
               "strided shared reads, exact from the SIMT emulator (and kernel times on a GPU when one is usable).")
TITLE_ZH = "共享内存 bank 冲突"
DESCRIPTION_ZH = ("带填充和不带填充的分块转置以及跨步读取共享内存时，每次请求的共享内存事务数，"
                  "由 SIMT 仿真器精确算出（有可用 GPU 时还给出核函数时间）。")

SERIES = (
    MetricSeries("shared load transactions per request (emulated)", "wavefronts per warp shared load", "",
                 metric("shared_load_transactions_per_request")),
    MetricSeries("shared store transactions per request (emulated)", "wavefronts per warp shared store", "",
                 metric("shared_store_transactions_per_request")),
)
TILE = 32


@dataclass(frozen=True)
class Params(CheckedParams):
    """The transposes are emulated on a ``side`` x ``side`` matrix, the strided shared reads with
    side * side threads (``block`` per block); ``gpu_side`` and ``repeats`` are for GPU timing."""

    side: int = param(64, "matrix side", "矩阵边长", "Side of the emulated square matrix (whole 32 x 32 tiles).",
                      "仿真方阵的边长（整数个 32 × 32 分块）。", min=TILE, multiple_of=TILE)
    block: int = param(256, "threads per block", "每块线程数", "Threads per block in the emulated launch.",
                       "仿真启动中每个线程块的线程数。", min=32, max=1024, multiple_of=32)
    strides: tuple[int, ...] = param((1, 2, 4, 8, 16, 32), "strides", "跨步",
                                     "One strided shared read per stride (1 to 32 words).",
                                     "每个跨步（1 到 32 个字）一次跨步共享内存读取。", unit="words", min=1, max=32)
    gpu_side: int = param(2048, "matrix side on the GPU", "GPU 上的矩阵边长",
                          "Matrix side when timing on a GPU.", "在 GPU 上计时时的矩阵边长。",
                          min=TILE, multiple_of=TILE)
    repeats: int = param(20, "repeats", "重复次数", "Timed GPU launches per variant; the median is kept.",
                         "每个变体在 GPU 上计时的次数，取中位数。", min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Unpadded and padded transpose, then one strided shared read per stride."""
    return (
        Variant("transpose 32x32 tile", "transpose_shared", tiled=True),
        Variant("transpose 32x33 tile (padded)", "transpose_shared_padded", tiled=True),
        *(Variant(f"shared stride {s}", "shared_stride", params.block, {"stride": s}) for s in params.strides),
    )


NOTES = (
    "Transposes: n = side x side elements, one 32 x 32 thread block per tile; the tile is written by rows "
    "(conflict-free) and read by columns.",
    "Strided reads: thread i reads shared word (i * stride) % 1024, a gcd(stride, 32)-way conflict; the "
    "buffer is filled by consecutive threads (conflict-free stores).",
)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every variant; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("bank-conflicts", params_to_dict(params), variants(params), SERIES, params.side ** 2,
                   params.gpu_side ** 2, params.repeats, NOTES)
    return (yield from run_variants(plan, ctx))
