"""Device-to-device copy bandwidth: how fast one GPU copies a buffer into another of its own.

The simplest memory test there is, and the number a sysadmin checks first on a new card: the
driver's copy (``cudaMemcpy`` device to device, through CuPy) and a one-line copy kernel, each
timed with CUDA events, beside the same copy in this computer's memory (``numpy.copyto`` on
page-aligned arrays: small copies fit in the caches and run faster, large ones run at DRAM
speed, as on a GPU) and the chosen GPU modelled at its achievable bandwidth. GB/s counts the
bytes read plus the bytes written, 8 per float32 element, as STREAM's and BabelStream's copy do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import cuda, hostmem, kernels
from gpulab.catalogue import Note, msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, param, powers_of_two, resolve_model_gpu
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import (
    Axes,
    Sweep,
    SweepSeries,
    estimate_point,
    gpu_bandwidth_ceiling_of,
    gpu_details,
    numpy_cpu_provenance,
    run_sweep,
)
from gpulab.measure import RepeatPolicy, rate_point, time_cpu_calls, time_gpu_stages, with_ceiling
from gpulab.model import kernel_time, memory_share
from gpulab.results import Point, Provenance

TITLE = render("experiment.device-copy.title")
DESCRIPTION = render("experiment.device-copy.description")
BLOCK = 256
FLOAT_BYTES = 4


def _args(sizes: Any, rng: np.random.Generator) -> list[Any]:
    n = sizes["n"]
    return [np.int32(n), kernels.random_f32(rng, n), np.zeros(n, np.float32)]


def _reference(args: list[Any]) -> dict[int, np.ndarray]:
    return {2: args[1].copy()}


KERNEL = kernels.KernelSpec(
    file="device_copy.cu",
    entry="copy_f32",
    presets=(kernels.preset_1d("tiny", 1000, 128), kernels.preset_1d("small", 4096),
             kernels.preset_1d("large", 1 << 20)),
    make_args=_args,
    reference=_reference,
    complexity=kernels.Complexity(flop_powers=()),  # no arithmetic; bytes grow with n
)  # fmt: skip
KERNELS = (KERNEL,)

AXES = Axes(msg("axis.device-copy.buffer"), "B", msg("axis.bandwidth"), "GB/s")
SIZE_PRESETS = (
    ("standard", powers_of_two(12, 30, 2)),
    ("quick", powers_of_two(12, 24, 2)),
)


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param(powers_of_two(12, 30, 2), unit="B", min=FLOAT_BYTES, max=1 << 32,
                                   multiple_of=FLOAT_BYTES, presets=SIZE_PRESETS)  # fmt: skip
    repeats: int = param(7, min=1, max=1000)
    model_gpu: str = param("h100-sxm")


def bytes_moved(copy_bytes: int) -> int:
    """Read once and written once: twice the buffer."""
    return 2 * copy_bytes


@dataclass(frozen=True)
class Buffers:
    """The host source and destination of one size, on page boundaries, shared by every series."""

    src: np.ndarray
    dst: np.ndarray


def _buffers(copy_bytes: int) -> Buffers:
    n = copy_bytes // FLOAT_BYTES
    return Buffers(hostmem.page_aligned_full(n, 1.0, np.float32), hostmem.page_aligned_full(n, 0.0, np.float32))


def _cpu_series(params: Params, ctx: Context) -> SweepSeries:
    def make(copy_bytes: int, buffers: Buffers) -> Point:
        call = lambda: np.copyto(buffers.dst, buffers.src)  # noqa: E731 - the timed call, nothing else
        samples = time_cpu_calls(call, RepeatPolicy(repeats=params.repeats), ctx.check_cancelled)
        return rate_point(copy_bytes, bytes_moved(copy_bytes), samples, bytes_moved=bytes_moved(copy_bytes))

    provenance = numpy_cpu_provenance("perf_counter around numpy.copyto on page-aligned arrays, median of repeats")
    return SweepSeries(msg("series.device-copy.cpu-copyto"), "cpu", provenance, make, "cpu-copyto")


def _gpu_series(params: Params, ctx: Context, way: str) -> SweepSeries:
    """The driver's copy (``way`` "memcpy") or the copy kernel ("kernel"), timed with CUDA events."""
    device = ctx.device_index or 0
    ceiling = gpu_bandwidth_ceiling_of(device)

    def make(copy_bytes: int, buffers: Buffers) -> Point:
        cupy = cuda.require_cupy()
        n = copy_bytes // FLOAT_BYTES
        with cupy.cuda.Device(device):
            src, dst = cupy.asarray(buffers.src), cupy.empty_like(cupy.asarray(buffers.dst))
            if way == "memcpy":
                step = lambda: dst.data.copy_from_device_async(src.data, copy_bytes)  # noqa: E731
            else:
                kernel = cuda.get_kernel(KERNEL.source, KERNEL.entry, device)
                grid, block = kernels.grid_1d(n, BLOCK)
                step = lambda: kernel(grid, block, (np.int32(n), src, dst))  # noqa: E731
            samples = time_gpu_stages([(way, step)], RepeatPolicy(repeats=params.repeats), ctx.check_cancelled)
        point = rate_point(copy_bytes, bytes_moved(copy_bytes), samples["total"], bytes_moved=bytes_moved(copy_bytes))
        return with_ceiling(point, ceiling)

    details = gpu_details(ceiling, timing="CUDA events after warm-up, median of repeats")
    provenance = Provenance("measured", cuda.device_name(device), details)
    if way == "memcpy":
        return SweepSeries(msg("series.device-copy.gpu-memcpy"), "gpu", provenance, make, "gpu-memcpy")
    return SweepSeries(msg("series.gpu-cuda-kernel"), "gpu", provenance, make, "gpu-cuda-kernel")


def _model_series(params: Params) -> tuple[SweepSeries, tuple[Any, ...]]:
    spec = resolve_model_gpu(params.model_gpu)
    share = memory_share(spec)

    def estimate(copy_bytes: int) -> Any:
        return kernel_time(spec, 0.0, bytes_moved(copy_bytes), "fp32", use_tensor_cores=False)

    details = {"formula": "time = 2·bytes / achievable memory bandwidth + launch overhead",
               "spec_key": spec.key, "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s, **share.details()}
    provenance = Provenance("modelled", spec.name, details)
    series = SweepSeries(msg("series.model", gpu=spec.name), "model", provenance,
                         lambda b, _buffers: estimate_point(b, bytes_moved(b), estimate(b)), "model")  # fmt: skip
    return series, (*estimate(1 << 20).assumptions, Note(share.lab_note))


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Copy at every size on this CPU and (with a GPU) by the driver and by the kernel; model the chosen GPU."""
    status = cuda.cuda_status()
    model, assumptions = _model_series(params)
    gpu = [_gpu_series(params, ctx, "memcpy"), _gpu_series(params, ctx, "kernel")] if status.available else []
    missing = [] if status.available else [msg("note.no-gpu", reason=status.reason_message or status.reason)]
    sweep = Sweep("device-copy", params, AXES, [_cpu_series(params, ctx), *gpu, model], unit="B",
                  operands=_buffers, note_groups=([*missing, msg("note.device-copy.bytes")], assumptions),
                  host_bytes=lambda copy_bytes: 2 * copy_bytes)  # the source and the destination
    return (yield from run_sweep(sweep, params.sizes))


LAB = Lab("device-copy", section="memory", order=15, quick=("sizes=quick", "repeats=3"), kernels=KERNELS)
