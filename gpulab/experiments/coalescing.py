"""Global-memory coalescing: how many 32-byte sectors one warp's load needs, by access pattern.

A warp's load is served in 32-byte sectors. 32 neighbouring floats fill exactly 4 sectors;
a stride, a random gather or a misaligned start make the warp fetch more sectors for the
same 128 useful bytes. Series: sectors per request and load efficiency (useful bytes /
fetched bytes), exact from the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.experiments.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.experiments.emulated import EmulatedRun, LabPlan, MetricSeries, Variant, metric, run_variants
from gpulab.simt.metrics import SECTOR_BYTES

TITLE = "Memory coalescing"
DESCRIPTION = ("Sectors per warp load and load efficiency for coalesced, strided, gathered and misaligned "
               "float loads, exact from the SIMT emulator (and kernel times on a GPU when one is usable).")
TITLE_ZH = "访存合并"
DESCRIPTION_ZH = ("合并、跨步、随机收集和未对齐的 float 加载中，每次 warp 加载的扇区数与加载效率，"
                  "由 SIMT 仿真器精确算出（有可用 GPU 时还给出核函数时间）。")

FLOAT_BYTES = 4


def load_efficiency(run: EmulatedRun) -> float:
    """Useful bytes / fetched bytes, in %: every request is a full warp of 4-byte loads (n % 32 == 0)."""
    fetched = run.metrics["gld_transactions"] * SECTOR_BYTES
    useful = run.metrics["gld_requests"] * 32 * FLOAT_BYTES
    return 100.0 * useful / fetched if fetched else 0.0


def pattern_load_sectors(run: EmulatedRun) -> float:
    """Sectors per request of the load from ``in`` alone (the gather without its index load)."""
    sites = [site for site in run.load_sites if site.buffer == PATTERN_BUFFER]
    return sites[0].sectors_per_request if sites else float(run.metrics["gld_transactions_per_request"])


PATTERN_BUFFER = "in"
SERIES = (
    MetricSeries("sectors per request (emulated)", "32-byte sectors per warp load", "sectors",
                 metric("gld_transactions_per_request")),
    MetricSeries("load efficiency (emulated)", "useful bytes / fetched bytes", "%", load_efficiency),
    MetricSeries("sectors per request of the in[] load (emulated)", "32-byte sectors per warp load of in[]",
                 "sectors", pattern_load_sectors),
)
MAX_N = 1 << 16


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` float loads (``block`` threads per block) are emulated, one per thread; ``strides`` and
    ``offset`` set the strided and misaligned variants; ``gpu_n`` threads and ``repeats`` are for GPU timing."""

    n: int = param(4096, "loads n", "加载次数 n", "Float loads emulated, one per thread (a multiple of 32).",
                   "仿真的 float 加载次数，每个线程一次（32 的倍数）。", min=32, max=MAX_N, multiple_of=32)
    block: int = param(256, "threads per block", "每块线程数", "Threads per block in the emulated launch.",
                       "仿真启动中每个线程块的线程数。", min=32, max=1024, multiple_of=32)
    strides: tuple[int, ...] = param((1, 2, 4, 8, 16, 32), "strides", "跨步",
                                     "One strided variant per stride (in floats).",
                                     "每个跨步（以 float 计）一个跨步变体。", unit="floats", min=1, max=1024)
    offset: int = param(1, "misalignment offset", "未对齐偏移",
                        "How many floats the misaligned variant starts late.", "未对齐变体推后多少个 float 开始。",
                        unit="floats", min=0, max=1024)
    gpu_n: int = param(1 << 21, "threads on the GPU", "GPU 上的线程数",
                       "Threads per launch when timing on a GPU.", "在 GPU 上计时时每次启动的线程数。",
                       min=32, multiple_of=32)
    repeats: int = param(20, "repeats", "重复次数", "Timed GPU launches per variant; the median is kept.",
                         "每个变体在 GPU 上计时的次数，取中位数。", min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Coalesced, one strided variant per stride, random gather, misaligned."""
    return (
        Variant("coalesced", "load_coalesced", params.block),
        *(Variant(f"stride {s}", "load_strided", params.block, {"stride": s}) for s in params.strides),
        Variant("random gather", "load_gather", params.block),
        Variant(f"misaligned +{params.offset}", "load_misaligned", params.block, {"offset": params.offset}),
    )


NOTES = (
    "Coalesced float32 loads need 4 sectors per warp (128 bytes); from stride 8 on every lane needs its own sector.",
    "The gather kernel also loads its index array (coalesced), so its kernel-wide numbers average that load "
    "with the scattered one; the in[] series counts the load of the pattern alone (every warp traced).",
)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every load pattern; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("coalescing", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES, trace_loads=True)
    return (yield from run_variants(plan, ctx))
