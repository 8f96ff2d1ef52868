"""SAXPY, y = a·x + y, size by size: numpy as people write it, numpy without temporaries, the
CUDA kernel, and a modelled GPU (its bytes at the achievable bandwidth, :func:`gpulab.model.memory_share`).

Every series is credited with the bytes SAXPY itself must move, 12 per float32 element (x and
y read, y written). ``a * x + y`` in numpy makes a temporary for ``a * x`` and another for the
sum, so its memory traffic is larger than that and its GB/s lower; ``out=`` keeps one scratch
array and no new allocations. The memory labs build on the same comparison (fusion on a CPU).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import cuda, kernels
from gpulab.catalogue import Message, Note, msg, render
from gpulab.lab.base import (
    CheckedParams,
    Context,
    ExperimentGen,
    param,
    powers_of_two,
    random_normal,
    resolve_model_gpu,
)
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

TITLE = render("experiment.saxpy.title")
DESCRIPTION = render("experiment.saxpy.description")
A = np.float32(2.0)  # the scale; any value moves the same bytes
BLOCK = 256


def _args(sizes: Any, rng: np.random.Generator) -> list[Any]:
    n = sizes["n"]
    return [np.int32(n), A, kernels.random_f32(rng, n), kernels.random_f32(rng, n)]


def _reference(args: list[Any]) -> dict[int, np.ndarray]:
    return {3: args[1] * args[2] + args[3]}


KERNEL = kernels.KernelSpec(
    file="saxpy.cu",
    entry="saxpy",
    presets=(kernels.preset_1d("tiny", 1000, 128), kernels.preset_1d("small", 4096),
             kernels.preset_1d("large", 1 << 20)),
    make_args=_args,
    reference=_reference,
    complexity=kernels.Complexity(),
)  # fmt: skip
KERNELS = (KERNEL,)

AXES = Axes(msg("axis.elements"), "", msg("axis.bandwidth"), "GB/s")
SIZE_PRESETS = (
    ("standard", powers_of_two(10, 24, 2)),
    ("quick", powers_of_two(10, 20, 2)),
    ("large", powers_of_two(10, 26, 2)),
)


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param(powers_of_two(10, 22, 4), min=1, max=1 << 28, presets=SIZE_PRESETS)
    repeats: int = param(7, min=1, max=1000)
    model_gpu: str = param("h100-sxm")


def bytes_moved(n: int) -> int:
    """x and y read, y written: 3 float32 arrays of n elements."""
    return 3 * 4 * n


@dataclass(frozen=True)
class Operands:
    """The inputs of one size, made once and shared by every series."""

    x: np.ndarray
    y: np.ndarray


def _cpu_series(label: Message, key: str, call: Callable[[Operands], Callable[[], Any]], timing: str,
                params: Params, ctx: Context) -> SweepSeries:  # fmt: skip
    def make(n: int, operands: Operands) -> Point:
        samples = time_cpu_calls(call(operands), RepeatPolicy(repeats=params.repeats), ctx.check_cancelled)
        return rate_point(n, bytes_moved(n), samples)

    return SweepSeries(label, "cpu", numpy_cpu_provenance(timing), make, key)


def _as_written(operands: Operands) -> Callable[[], Any]:
    x, y = operands.x, operands.y
    return lambda: A * x + y  # two temporaries: a*x, then the sum


def _without_temporaries(operands: Operands) -> Callable[[], Any]:
    x, y = operands.x, operands.y
    out = np.empty_like(y)

    def call() -> None:
        np.multiply(x, A, out=out)
        np.add(out, y, out=out)

    return call


def _gpu_series(params: Params, ctx: Context) -> SweepSeries:
    device = ctx.device_index or 0
    ceiling = gpu_bandwidth_ceiling_of(device)

    def make(n: int, operands: Operands) -> Point:
        cupy = cuda.require_cupy()
        kernel = cuda.get_kernel(KERNEL.source, KERNEL.entry, device)
        grid, block = kernels.grid_1d(n, BLOCK)
        with cupy.cuda.Device(device):
            x, y = cupy.asarray(operands.x), cupy.asarray(operands.y)
            launch = [("kernel", lambda: kernel(grid, block, (np.int32(n), A, x, y)))]
            samples = time_gpu_stages(launch, RepeatPolicy(repeats=params.repeats), ctx.check_cancelled)
        return with_ceiling(rate_point(n, bytes_moved(n), samples["total"]), ceiling)

    details = gpu_details(ceiling, timing="CUDA events after warm-up, median of repeats")
    provenance = Provenance("measured", cuda.device_name(device), details)
    return SweepSeries(msg("series.gpu-cuda-kernel"), "gpu", provenance, make, "gpu-cuda-kernel")


def _model_series(params: Params) -> tuple[SweepSeries, tuple[Any, ...]]:
    spec = resolve_model_gpu(params.model_gpu)

    def estimate(n: int) -> Any:
        return kernel_time(spec, 2.0 * n, bytes_moved(n), "fp32", use_tensor_cores=False)

    details = {"formula": "time = max(2·n / peak FLOP/s, 12·n bytes / achievable memory bandwidth) + launch overhead",
               "spec_key": spec.key, "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s,
               **memory_share(spec).details()}  # fmt: skip
    provenance = Provenance("modelled", spec.name, details)
    series = SweepSeries(msg("series.model", gpu=spec.name), "model", provenance,
                         lambda n, _operands: estimate_point(n, bytes_moved(n), estimate(n)), "model")  # fmt: skip
    return series, (*estimate(1 << 20).assumptions, Note(memory_share(spec).lab_note))


def _operands(rng: np.random.Generator) -> Callable[[int], Operands]:
    return lambda n: Operands(random_normal(rng, n), random_normal(rng, n))


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Time both numpy forms and (with a GPU) the kernel at every size; model the chosen GPU."""
    status = cuda.cuda_status()
    model, assumptions = _model_series(params)
    series = [
        _cpu_series(msg("series.cpu-numpy-as-written"), "cpu-numpy-as-written", _as_written,
                    "perf_counter around a * x + y, median of repeats", params, ctx),
        _cpu_series(msg("series.cpu-numpy-out"), "cpu-numpy-out", _without_temporaries,
                    "perf_counter around np.multiply and np.add with out=, median of repeats", params, ctx),
        *([_gpu_series(params, ctx)] if status.available else []),
        model,
    ]  # fmt: skip
    missing = [] if status.available else [msg("note.no-gpu", reason=status.reason_message or status.reason)]
    notes = [*missing, msg("note.saxpy.bytes")]
    sweep = Sweep("saxpy", params, AXES, series, unit="n", operands=_operands(np.random.default_rng(0)),
                  note_groups=(notes, assumptions), host_bytes=lambda n: 5 * n * 4)  # x, y, out=, two temporaries
    return (yield from run_sweep(sweep, params.sizes))


LAB = Lab("saxpy", order=60, quick=("sizes=1024,262144", "repeats=3"), kernels=KERNELS)
