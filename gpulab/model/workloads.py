"""Estimates for the lab's standard workloads: square matmul and vector add."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gpulab.catalogue import Note, msg
from gpulab.model.dtypes import BYTES_PER_ELEMENT, check_dtype
from gpulab.model.estimate import ModelEstimate, merge_assumptions
from gpulab.model.roofline import DEFAULT_LAUNCH_OVERHEAD_S, kernel_time
from gpulab.model.transfer import Direction, transfer_time
from gpulab.specs import GpuSpec

__all__ = ["add_transfers", "matmul_estimate", "vector_add_estimate"]


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


def matmul_estimate(
    spec: GpuSpec,
    n: int,
    dtype: str = "fp32",
    include_transfers: bool = False,
    *,
    use_tensor_cores: bool = True,
    pinned: bool = True,
    efficiency: float = 1.0,
    launch_overhead_s: float = DEFAULT_LAUNCH_OVERHEAD_S,
) -> ModelEstimate:
    """Modelled time of C = A·B for n×n matrices: 2·n³ FLOP, 3·n² elements of DRAM traffic.

    The traffic assumes each matrix crosses DRAM once (perfect on-chip reuse), a lower
    bound. With ``include_transfers``, A and B are copied in and C copied back.
    """
    _check_size(n)
    check_dtype(dtype)
    matrix_bytes = float(n) * n * BYTES_PER_ELEMENT[dtype]
    kernel = kernel_time(
        spec,
        2.0 * float(n) ** 3,
        3 * matrix_bytes,
        dtype,
        use_tensor_cores=use_tensor_cores,
        efficiency=efficiency,
        launch_overhead_s=launch_overhead_s,
    )
    traffic_note = Note(msg("model.assumption.ideal-tiling"))
    kernel = _with_note(kernel, traffic_note)
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
    """Modelled time of c = a + b for n elements: n FLOP, 3·n elements read plus written.

    Runs on CUDA cores (no tensor cores); fp16/bf16 are modelled at the fp32 rate.
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


def _with_note(estimate: ModelEstimate, note: Note) -> ModelEstimate:
    return replace(estimate, assumptions=merge_assumptions(estimate.assumptions, [note]))
