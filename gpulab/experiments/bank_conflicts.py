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

from gpulab.catalogue import msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.lab.declare import Lab
from gpulab.lab.emulated import LabPlan, MetricSeries, Variant, metric, run_variants

# English, for scripts and the command line; a front end renders experiment.bank-conflicts.* itself.
TITLE = render("experiment.bank-conflicts.title")
DESCRIPTION = render("experiment.bank-conflicts.description")

SERIES = (
    MetricSeries("shared-load-transactions", msg("series.shared-load-transactions"),
                 msg("axis.shared-load-wavefronts"), "", metric("shared_load_transactions_per_request")),
    MetricSeries("shared-store-transactions", msg("series.shared-store-transactions"),
                 msg("axis.shared-store-wavefronts"), "", metric("shared_store_transactions_per_request")),
)
TILE = 32


@dataclass(frozen=True)
class Params(CheckedParams):
    """The transposes are emulated on a ``side`` x ``side`` matrix, the strided shared reads with
    side * side threads (``block`` per block); ``gpu_side`` and ``repeats`` are for GPU timing."""

    side: int = param(64, min=TILE, max=1024, multiple_of=TILE)
    block: int = param(256, min=32, max=1024, multiple_of=32)
    strides: tuple[int, ...] = param((1, 2, 4, 8, 16, 32), unit="words", min=1, max=32)
    gpu_side: int = param(2048, min=TILE, multiple_of=TILE)
    repeats: int = param(20, min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Unpadded and padded transpose, then one strided shared read per stride."""
    return (
        Variant.of(msg("variant.transpose"), "transpose_shared", tiled=True),
        Variant.of(msg("variant.transpose-padded"), "transpose_shared_padded", tiled=True),
        *(Variant.of(msg("variant.shared-stride", size=s), "shared_stride", params.block, {"stride": s})
          for s in params.strides),
    )


NOTES = (msg("note.bank-conflicts.transposes"), msg("note.bank-conflicts.strided"))


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every variant; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("bank-conflicts", params_to_dict(params), variants(params), SERIES, params.side ** 2,
                   params.gpu_side ** 2, params.repeats, NOTES)
    return (yield from run_variants(plan, ctx))


LAB = Lab("bank-conflicts", section="inside", order=30, quick=("side=32", "strides=1,32", "gpu_side=256", "repeats=3"))
