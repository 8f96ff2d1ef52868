"""Parallel reduction three ways: interleaved (divergent), sequential addressing, warp shuffles.

Every variant writes one integer partial sum per block (checked bit-exactly against numpy).
Interleaved addressing picks workers with tid % (2*s) == 0, leaving most lanes of each warp
idle; sequential addressing (tid < s) keeps whole warps busy or idle; warp shuffles sum in
registers and need far fewer instructions. Series: warp execution efficiency, branch
efficiency and instructions executed, exact from the emulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpulab.catalogue import msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.lab.declare import Lab
from gpulab.lab.emulated import (
    BRANCH_EFFICIENCY,
    INSTRUCTIONS_EXECUTED,
    WARP_EXECUTION_EFFICIENCY,
    LabPlan,
    Variant,
    run_variants,
)

# English, for scripts and the command line; a front end renders experiment.reduction.* itself.
TITLE = render("experiment.reduction.title")
DESCRIPTION = render("experiment.reduction.description")

SERIES = (WARP_EXECUTION_EFFICIENCY, BRANCH_EFFICIENCY, INSTRUCTIONS_EXECUTED)
MAX_BLOCK = 256


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` integers are summed, one partial sum per ``block`` threads; ``gpu_n`` and ``repeats``
    are for GPU timing."""

    n: int = param(4096, min=1)
    block: int = param(256, min=32, max=MAX_BLOCK, power_of_two=True)
    gpu_n: int = param(1 << 22, min=1)
    repeats: int = param(20, min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Interleaved, sequential and shuffle reductions with the same block size."""
    return (
        Variant.of(msg("variant.interleaved"), "reduce_interleaved", params.block),
        Variant.of(msg("variant.sequential"), "reduce_sequential", params.block),
        Variant.of(msg("variant.shuffle"), "reduce_shuffle", params.block),
    )


NOTES = (msg("note.reduction.bit-exact"),)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate the three reductions; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("reduction", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES)
    return (yield from run_variants(plan, ctx))


LAB = Lab("reduction", section="inside", order=40, quick=("n=1024", "gpu_n=65536", "repeats=3"))
