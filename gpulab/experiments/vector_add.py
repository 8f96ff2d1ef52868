"""Vector add c = a + b: the simplest memory-bound job, timed on the CPU and the GPU.

Bandwidth counts bytes read plus written (3 arrays x n x itemsize). CPU times are wall-clock
medians of numpy's ``add``; GPU times come from CUDA events around the catalogue kernel
``kernels/vector_add.cu``, after warm-up (optionally with the copies to and from the GPU).
A modelled series for a GPU from the spec table is always added, labelled ``modelled``: its bytes
move at the achievable bandwidth (the share of the spec sheet a published streaming benchmark reached
on that GPU, :func:`gpulab.model.memory_share`), not the spec sheet's peak.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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
    WhatIfCopied,
    estimate_point,
    gpu_bandwidth_ceiling_of,
    gpu_details,
    numpy_cpu_provenance,
    run_sweep,
)
from gpulab.measure import (
    RepeatPolicy,
    rate_point,
    stage_medians,
    time_cpu_calls,
    time_gpu_stages,
    with_ceiling,
)
from gpulab.model import memory_share, vector_add_estimate
from gpulab.results import Point, Provenance

# English, for scripts and the command line; a front end renders experiment.vector-add.* itself.
TITLE = render("experiment.vector-add.title")
DESCRIPTION = render("experiment.vector-add.description")

CPU_LABEL = msg("series.cpu-numpy")
GPU_LABEL = msg("series.gpu-cuda-kernel")
CPU_SERIES = render(CPU_LABEL)
GPU_SERIES = render(GPU_LABEL)
# Sweeps a panel offers (the first is shown first); the Params default is a shorter sweep.
SIZE_PRESETS = (
    ("standard", powers_of_two(10, 24, 2)),
    ("quick", powers_of_two(10, 20, 2)),
    ("large", powers_of_two(10, 26, 2)),
)
FORMULA = (
    "time = max(n / peak FLOP/s, 3·n·4 bytes / achievable memory bandwidth) + launch overhead"
    " [+ a and b copied in and c copied out over PCIe when transfers are included]"
)


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param((1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22), min=1, presets=SIZE_PRESETS)
    repeats: int = param(7, min=1)
    include_transfers: bool = param(False)
    dtype: Literal["fp32"] = param("fp32")
    model_gpu: str = param("h100-sxm")



def bytes_moved(n: int, itemsize: int = 4) -> int:
    """Two arrays read, one written."""
    return 3 * n * itemsize


def model_series_name(gpu_name: str) -> str:
    return render(msg("series.model", gpu=gpu_name))


def time_cpu(n: int, repeats: int, rng: np.random.Generator, ctx: Context | None = None) -> list[float]:
    """Seconds per ``np.add(a, b, out=c)`` call: at least ``repeats`` samples after one warm-up."""
    a = random_normal(rng, n)
    b = random_normal(rng, n)
    c = np.empty_like(a)
    check = ctx.check_cancelled if ctx is not None else None
    return time_cpu_calls(lambda: np.add(a, b, out=c), RepeatPolicy(repeats=repeats), check)


def time_gpu(
    n: int, repeats: int, rng: np.random.Generator, device: int, include_transfers: bool = False,
    ctx: Context | None = None,
) -> dict[str, list[float]]:  # fmt: skip
    """CUDA-event seconds per stage (``kernel``, and ``h2d``/``d2h`` with transfers), plus ``total``."""
    cupy = cuda.require_cupy()
    import cupyx

    spec = kernels.get("vector_add")
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    grid, block = kernels.grid_1d(n, 256)
    check = ctx.check_cancelled if ctx is not None else None
    policy = RepeatPolicy(repeats=repeats)
    with cupy.cuda.Device(device):
        a_host = random_normal(rng, n)
        b_host = random_normal(rng, n)
        a, b = cupy.asarray(a_host), cupy.asarray(b_host)
        c = cupy.empty_like(a)
        size = np.int32(n)

        def launch() -> None:
            kernel(grid, block, (a, b, c, size))

        if not include_transfers:
            return time_gpu_stages([("kernel", launch)], policy, check)
        a_pin, b_pin, c_pin = (cupyx.empty_like_pinned(a_host) for _ in range(3))
        a_pin[...], b_pin[...] = a_host, b_host

        def h2d() -> None:
            a.set(a_pin)
            b.set(b_pin)

        def d2h() -> None:
            cupy.asnumpy(c, out=c_pin, blocking=False)

        return time_gpu_stages([("h2d", h2d), ("kernel", launch), ("d2h", d2h)], policy, check)


AXES = Axes(msg("axis.elements"), "", msg("axis.bandwidth"), "GB/s")


def _progress(series: SweepSeries, n: int) -> Message:
    """The status line of one series at one size: "GPU n=1024"."""
    if series.role == "cpu":
        return msg("progress.cpu-n", size=n)
    return msg("progress.gpu-n", size=n) if series.role == "gpu" else msg("progress.model-n", size=n)


def _cpu_series(params: Params, rng: np.random.Generator, ctx: Context) -> SweepSeries:
    def make(n: int, _operands: None) -> Point:
        return rate_point(n, bytes_moved(n), time_cpu(n, params.repeats, rng, ctx))

    provenance = numpy_cpu_provenance("perf_counter around np.add, median of repeats")
    return SweepSeries(CPU_LABEL, "cpu", provenance, make, "cpu-numpy")


def _gpu_series(params: Params, rng: np.random.Generator, ctx: Context) -> SweepSeries:
    device = ctx.device_index or 0
    ceiling = gpu_bandwidth_ceiling_of(device)
    details = gpu_details(ceiling, timing="CUDA events after warm-up", include_transfers=params.include_transfers,
                          host_memory="pinned")  # fmt: skip

    def make(n: int, _operands: None) -> Point:
        samples = time_gpu(n, params.repeats, rng, device, params.include_transfers, ctx)
        return with_ceiling(rate_point(n, bytes_moved(n), samples["total"], **stage_medians(samples)), ceiling)

    provenance = Provenance("measured", cuda.device_name(device), details)
    return SweepSeries(GPU_LABEL, "gpu", provenance, make, "gpu-cuda-kernel")


def _model_series(params: Params, spec: Any) -> tuple[SweepSeries, tuple[Note, ...]]:
    """The modelled series of the spec-table GPU ``spec``, and its model's assumptions."""
    probe = _model_estimate(spec, 1 << 20, params, params.include_transfers)
    details = {
        "formula": FORMULA,
        "spec_key": spec.key,
        "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s,
        **memory_share(spec).details(),
        "include_transfers": params.include_transfers,
        "assumptions": [str(assumption) for assumption in probe.assumptions],
    }

    def make(n: int, _operands: None) -> Point:
        return estimate_point(n, bytes_moved(n), _model_estimate(spec, n, params, params.include_transfers))

    provenance = Provenance("modelled", spec.name, details)
    label = msg("series.model", gpu=spec.name)
    return SweepSeries(label, "model", provenance, make, "model"), probe.assumptions


def _model_estimate(spec: Any, n: int, params: Params, include_transfers: bool) -> Any:
    return vector_add_estimate(spec, n, params.dtype, include_transfers)


def modelled_point(model_gpu: str, n: int, include_transfers: bool = False) -> Point:
    """The lab's modelled point of ``model_gpu`` at ``n`` elements (y: GB/s, 12 bytes an element),
    as its modelled series draws it."""
    params = Params(model_gpu=model_gpu, include_transfers=include_transfers)
    series, _assumptions = _model_series(params, resolve_model_gpu(model_gpu))
    point = series.make_point(n, None)
    assert point is not None  # a model prices every size
    return point


def _notes(params: Params, gpu_reason: Message | str | None, spec: Any) -> list[Message]:
    transfers = msg("note.vector-add.with-copies") if params.include_transfers else msg("note.vector-add.no-copies")
    missing = [msg("note.no-gpu", reason=gpu_reason)] if gpu_reason else []
    return [*missing, msg("note.vector-add.bandwidth"), transfers, memory_share(spec).lab_note]


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Time numpy and (when a GPU is usable) the CUDA kernel for each size; model the chosen GPU."""
    rng = np.random.default_rng(0)  # one stream, drawn CPU then GPU at each size
    status = cuda.cuda_status()
    spec = resolve_model_gpu(params.model_gpu)
    model, assumptions = _model_series(params, spec)
    series = [_cpu_series(params, rng, ctx), *([_gpu_series(params, rng, ctx)] if status.available else []), model]
    what_if = None if params.include_transfers else WhatIfCopied(
        spec.name, lambda n: _model_estimate(spec, n, params, True).seconds)  # fmt: skip
    gpu_reason = None if status.available else (status.reason_message or status.reason)
    sweep = Sweep(
        "vector-add", params, AXES, series, unit="n", progress=_progress,
        what_if_copied=what_if, note_groups=(_notes(params, gpu_reason, spec), assumptions),
        host_bytes=lambda n: 4 * n * 4,  # a, b, the result and numpy's temporary, float32
    )  # fmt: skip
    return (yield from run_sweep(sweep, params.sizes))


LAB = Lab("vector-add", order=40, quick=("sizes=1024,262144", "repeats=3"))
