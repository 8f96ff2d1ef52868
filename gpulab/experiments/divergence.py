"""Warp divergence: the same kernels with branches that split warps, or not, run in the emulator.

A warp issues one instruction for its 32 lanes. When lanes disagree at a branch the warp runs
both sides with part of its lanes masked off, so branch efficiency (branches where a warp
agreed) and warp execution efficiency (share of lanes busy per instruction) drop. Variants:
even/odd lanes, the same work branched per warp, k different paths on ``lane % k``, and a loop
whose trip count differs per lane.
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

# English, for scripts and the command line; a front end renders experiment.divergence.* itself.
TITLE = render("experiment.divergence.title")
DESCRIPTION = render("experiment.divergence.description")

SERIES = (BRANCH_EFFICIENCY, WARP_EXECUTION_EFFICIENCY, INSTRUCTIONS_EXECUTED)
MAX_PATHS = 8


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` threads (``block`` per block) are emulated; ``kways`` are the k of the k-way variants;
    ``max_rounds`` bounds the data-dependent loop; ``gpu_n`` threads and ``repeats`` are for GPU timing."""

    n: int = param(1024, min=32, multiple_of=32)
    block: int = param(256, min=64, max=1024, multiple_of=64)
    kways: tuple[int, ...] = param((2, 3, 4, 5, 6, 7, 8), min=1, max=MAX_PATHS)
    max_rounds: int = param(32, min=0, max=1024)
    gpu_n: int = param(1 << 22, min=32, multiple_of=32)
    repeats: int = param(20, min=1)



def variants(params: Params) -> tuple[Variant, ...]:
    """Even/odd, warp-aligned, one k-way variant per k, the data-dependent loop and its uniform twin."""
    return (
        Variant.of(msg("variant.even-odd"), "divergence_even_odd", params.block),
        Variant.of(msg("variant.warp-aligned"), "divergence_warp_aligned", params.block),
        *(Variant.of(msg("variant.kway", size=k), "divergence_kway", params.block, {"k": k}) for k in params.kways),
        Variant.of(msg("variant.data-dependent-loop"), "loop_data_dependent", params.block,
                   {"max_rounds": params.max_rounds}),
        Variant.of(msg("variant.uniform-loop"), "loop_data_dependent", params.block,
                   {"min_rounds": params.max_rounds // 2, "max_rounds": params.max_rounds // 2}),
    )


NOTES = (msg("note.divergence.same-arithmetic"), msg("note.divergence.kway-chain"), msg("note.divergence.loop"))


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every variant; add GPU kernel times when a GPU is usable."""
    plan = LabPlan("divergence", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES)
    return (yield from run_variants(plan, ctx))


LAB = Lab("divergence", section="inside", order=20, quick=("n=256", "kways=2,4", "gpu_n=65536", "repeats=3"))
