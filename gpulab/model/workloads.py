"""Estimates for the lab's standard workloads: square matmul and vector add.

A matmul is modelled at the rate a large cuBLAS GEMM reaches, not at the datasheet peak: the
share of the peak a published measurement found on that GPU and data type (the spec table's
``gemm_efficiency``), or, without one, the lowest share published for that type on another GPU
of the table. A small matmul loses more: C is cut into :data:`GEMM_TILE` × :data:`GEMM_TILE`
tiles, one thread block each, and while there are fewer tiles than SMs (or the last wave of
tiles leaves SMs empty) part of the GPU idles (NVIDIA's tile and wave quantization). Fitted
against a published V100 SGEMM sweep (n = 512, 2048, 8192; see resources/validation/matmul.toml).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from gpulab.catalogue import Note, msg
from gpulab.model.dtypes import BYTES_PER_ELEMENT, check_dtype, peak_for
from gpulab.model.estimate import ModelEstimate, merge_assumptions
from gpulab.model.roofline import DEFAULT_LAUNCH_OVERHEAD_S, kernel_time
from gpulab.model.transfer import Direction, transfer_time
from gpulab.specs import GpuSpec, load_specs

__all__ = ["GEMM_TILE", "GemmShare", "add_transfers", "gemm_share", "matmul_estimate", "tile_fill",
           "vector_add_estimate"]

GEMM_TILE = 64
"""Side of the tile of C one thread block of a GEMM computes, for the occupancy of small GEMMs.
An assumption: cuBLAS picks its tile per problem; 64 fits the published V100 SGEMM sweep
(128 would leave 80% of a V100 idle at n = 512, where it measured 60% of its large-n rate)."""


def _copies_seconds(
    spec: GpuSpec, arrays_bytes: Sequence[float], direction: Direction, pinned: bool
) -> tuple[float, tuple[Note, ...]]:
    seconds = 0.0
    notes: tuple[Note, ...] = ()
    for n_bytes in arrays_bytes:
        copy = transfer_time(spec, n_bytes, pinned=pinned, direction=direction)
        seconds += copy.seconds
        notes = copy.assumptions
    return seconds, notes


def add_transfers(
    spec: GpuSpec,
    kernel: ModelEstimate,
    inputs_bytes: Sequence[float],
    outputs_bytes: Sequence[float],
    *,
    pinned: bool = True,
) -> ModelEstimate:
    """Add copying each input array to the GPU before, and each output back after, a kernel.

    One copy per array, run one after another with the kernel (no overlap). The bound
    becomes ``"transfer-bound"`` when the copies take longer than kernel plus launch.
    """
    h2d_s, h2d_notes = _copies_seconds(spec, inputs_bytes, "h2d", pinned)
    d2h_s, d2h_notes = _copies_seconds(spec, outputs_bytes, "d2h", pinned)
    breakdown = {"h2d": h2d_s, **kernel.breakdown, "d2h": d2h_s}
    bound = "transfer-bound" if h2d_s + d2h_s > kernel.seconds else kernel.bound
    return ModelEstimate(
        seconds=kernel.seconds + h2d_s + d2h_s,
        breakdown=breakdown,
        bound=bound,
        assumptions=merge_assumptions(kernel.assumptions, h2d_notes, d2h_notes),
        gpu_name=kernel.gpu_name,
        roofline_bound=kernel.roofline_bound,
        compute_seconds=kernel.compute_seconds,
        memory_seconds=kernel.memory_seconds,
        arithmetic_intensity_flop_per_byte=kernel.arithmetic_intensity_flop_per_byte,
        ridge_point_flop_per_byte=kernel.ridge_point_flop_per_byte,
        peak_tflops=kernel.peak_tflops,
        bandwidth_gb_s=kernel.bandwidth_gb_s,
    )


def _check_size(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"n must be a positive integer, got {n!r}")


@dataclass(frozen=True)
class GemmShare:
    """The share of a peak a large GEMM reaches: the figure, where it comes from
    (``measured`` on this GPU, ``borrowed`` from another GPU's measurement, or ``none``: no
    published figure, the peak itself) and the assumption that says so."""

    share: float
    origin: str
    note: Note


@cache
def _lowest_published_share(dtype: str) -> tuple[float, str] | None:
    """The lowest share published for ``dtype`` on any GPU of the shipped table, and that GPU."""
    found = [(spec.gemm_efficiency[dtype], spec.name) for spec in load_specs() if dtype in spec.gemm_efficiency]
    return min(found) if found else None


def gemm_share(spec: GpuSpec, dtype: str, use_tensor_cores: bool = True) -> GemmShare:
    """The share of its peak a large ``dtype`` GEMM reaches on ``spec`` (see the module docstring).

    Only a GEMM on the unit the table measured has a share: fp32 on CUDA cores, tf32, fp16, bf16
    and fp8 on tensor cores. fp64, and 16-bit types without tensor cores, have no published
    figure here and are modelled at their peak (an upper bound), as the note says."""
    key, _tflops, _note = peak_for(spec, dtype, use_tensor_cores)
    percent = lambda share: f"{share:.0%}"  # noqa: E731
    if key == dtype and dtype in spec.gemm_efficiency:
        share = spec.gemm_efficiency[dtype]
        return GemmShare(share, "measured", Note(msg("model.assumption.gemm-share", dtype=dtype,
                                                     percent=percent(share), gpu=spec.name)))  # fmt: skip
    lowest = _lowest_published_share(dtype) if key == dtype else None
    if lowest is not None:
        share, measured_on = lowest
        return GemmShare(share, "borrowed", Note(msg("model.assumption.gemm-share-borrowed", dtype=dtype,
                                                     gpu=spec.name, percent=percent(share), other=measured_on)))
    return GemmShare(1.0, "none", Note(msg("model.assumption.gemm-share-none", dtype=dtype, gpu=spec.name)))


def tile_fill(spec: GpuSpec, n: int, tile: int = GEMM_TILE) -> float:
    """The share of the SMs an n×n GEMM keeps busy, on average over its waves of tiles:
    tiles / (waves × SMs), with ⌈n / tile⌉² tiles of C and ⌈tiles / SMs⌉ waves."""
    _check_size(n)
    tiles = math.ceil(n / tile) ** 2
    waves = math.ceil(tiles / spec.sm_count)
    return tiles / (waves * spec.sm_count)


def matmul_estimate(
    spec: GpuSpec,
    n: int,
    dtype: str = "fp32",
    include_transfers: bool = False,
    *,
    use_tensor_cores: bool = True,
    pinned: bool = True,
    efficiency: float | None = None,
    launch_overhead_s: float = DEFAULT_LAUNCH_OVERHEAD_S,
) -> ModelEstimate:
    """Modelled time of C = A·B for n×n matrices: 2·n³ FLOP, 3·n² elements of DRAM traffic.

    The compute rate is the peak times ``efficiency``; by default (None) the achievable share:
    :func:`gemm_share` times :func:`tile_fill`. The traffic assumes each matrix crosses DRAM
    once (perfect on-chip reuse), a lower bound, at the achievable bandwidth
    (:func:`~gpulab.model.roofline.memory_share`). With
    ``include_transfers``, A and B are copied in and C copied back.
    """
    _check_size(n)
    check_dtype(dtype)
    matrix_bytes = float(n) * n * BYTES_PER_ELEMENT[dtype]
    notes = [Note(msg("model.assumption.ideal-tiling"))]
    if efficiency is None:
        share = gemm_share(spec, dtype, use_tensor_cores)
        fill = tile_fill(spec, n)
        efficiency = share.share * fill
        notes += [share.note, Note(msg("model.assumption.gemm-fill", tile=GEMM_TILE, sms=spec.sm_count,
                                       n=GEMM_TILE * math.isqrt(spec.sm_count)))]  # fmt: skip
    kernel = kernel_time(
        spec,
        2.0 * float(n) ** 3,
        3 * matrix_bytes,
        dtype,
        use_tensor_cores=use_tensor_cores,
        efficiency=efficiency,
        launch_overhead_s=launch_overhead_s,
    )
    kept = [a for a in kernel.assumptions if not (notes[1:] and a.message.key == "model.assumption.compute-efficiency")]
    kernel = replace(kernel, assumptions=merge_assumptions(kept, notes))
    if not include_transfers:
        return kernel
    return add_transfers(spec, kernel, [matrix_bytes] * 2, [matrix_bytes], pinned=pinned)


def vector_add_estimate(
    spec: GpuSpec,
    n: int,
    dtype: str = "fp32",
    include_transfers: bool = False,
    *,
    pinned: bool = True,
    efficiency: float = 1.0,
    launch_overhead_s: float = DEFAULT_LAUNCH_OVERHEAD_S,
) -> ModelEstimate:
    """Modelled time of c = a + b for n elements: n FLOP, 3·n elements read plus written, the bytes
    at the achievable bandwidth (:func:`~gpulab.model.roofline.memory_share`).

    Runs on CUDA cores (no tensor cores): fp16/bf16 at their published CUDA-core rate where the
    table has one, else at the fp32 rate (memory sets the time of a vector add either way).
    With ``include_transfers``, a and b are copied in and c copied back.
    """
    _check_size(n)
    check_dtype(dtype)
    vector_bytes = float(n) * BYTES_PER_ELEMENT[dtype]
    kernel = kernel_time(
        spec,
        float(n),
        3 * vector_bytes,
        dtype,
        use_tensor_cores=dtype in ("tf32", "fp8"),
        efficiency=efficiency,
        launch_overhead_s=launch_overhead_s,
    )
    if not include_transfers:
        return kernel
    return add_transfers(spec, kernel, [vector_bytes] * 2, [vector_bytes], pinned=pinned)
