"""Global-memory coalescing: how many 32-byte sectors one warp's load needs, by access pattern.

A warp's load is served in 32-byte sectors. 32 neighbouring floats fill exactly 4 sectors;
a stride, a random gather or a misaligned start make the warp fetch more sectors for the
same 128 useful bytes. Series: sectors per request and load efficiency (useful bytes /
fetched bytes), exact from the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.catalogue import msg, render
from gpulab.experiments.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.experiments.emulated import EmulatedRun, LabPlan, MetricSeries, Variant, metric, run_variants
from gpulab.simt.metrics import SECTOR_BYTES

# English, for scripts and the command line; a front end renders experiment.coalescing.* itself.
TITLE = render("experiment.coalescing.title")
DESCRIPTION = render("experiment.coalescing.description")

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
    MetricSeries("sectors-per-request", msg("series.sectors-per-request"),
                 msg("axis.sectors-per-load"), "sectors", metric("gld_transactions_per_request")),
    MetricSeries("load-efficiency", msg("series.load-efficiency"), msg("axis.load-efficiency"), "%", load_efficiency),
    MetricSeries("sectors-per-request-in", msg("series.sectors-per-request-in"),
                 msg("axis.sectors-per-load-in"), "sectors", pattern_load_sectors),
)
MAX_N = 1 << 16


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` float loads (``block`` threads per block) are emulated, one per thread; ``strides`` and
    ``offset`` set the strided and misaligned variants; ``gpu_n`` threads and ``repeats`` are for GPU timing."""

    n: int = param(4096, min=32, max=MAX_N, multiple_of=32)
    block: int = param(256, min=32, max=1024, multiple_of=32)
    strides: tuple[int, ...] = param((1, 2, 4, 8, 16, 32), unit="floats", min=1, max=1024)
    offset: int = param(1, unit="floats", min=0, max=1024)
    gpu_n: int = param(1 << 21, min=32, multiple_of=32)
    repeats: int = param(20, min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Coalesced, one strided variant per stride, random gather, misaligned."""
    return (
        Variant.of(msg("variant.coalesced"), "load_coalesced", params.block),
        *(Variant.of(msg("variant.stride", size=s), "load_strided", params.block, {"stride": s})
          for s in params.strides),
        Variant.of(msg("variant.random-gather"), "load_gather", params.block),
        Variant.of(msg("variant.misaligned", size=params.offset), "load_misaligned", params.block,
                   {"offset": params.offset}),
    )


NOTES = (msg("note.coalescing.sectors"), msg("note.coalescing.gather"))


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every load pattern; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("coalescing", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES, trace_loads=True)
    return (yield from run_variants(plan, ctx))
