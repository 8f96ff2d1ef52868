"""Matrix multiply C = A·B for N×N matrices: the CPU's BLAS against the GPU, size by size.

Work counts 2·N³ floating-point operations, so y is GFLOP/s = 2·N³ / median seconds / 1e9.
CPU series are measured (numpy with all BLAS threads, and with one thread through
threadpoolctl); GPU series are measured with CUDA events after warm-up when a GPU is usable
(cuBLAS through ``cupy.matmul``, and the catalogue's naive and tiled kernels); a modelled
series for a GPU from the spec table is always added, labelled ``modelled``.

    >>> from gpulab.experiments import drive, matmul
    >>> result = drive(matmul.run(matmul.Params(sizes=(64, 128)), matmul.Context()))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Literal

import numpy as np

from gpulab import cuda, kernels
from gpulab.catalogue import Message, Note, msg, render
from gpulab.devices import blas_info, describe_cpu
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
from gpulab.lab.sweep import Axes, Sweep, SweepSeries, WhatIfCopied, estimate_point, gpu_details, run_sweep
from gpulab.measure import (
    Ceiling,
    RepeatPolicy,
    flagged,
    gpu_flops_ceiling,
    rate_point,
    stage_medians,
    time_cpu_calls,
    time_gpu_stages,
    with_ceiling,
)
from gpulab.model import UnsupportedDtypeError, matmul_estimate
from gpulab.results import Point, Provenance

__all__ = [
    "CPU_ONE_THREAD",
    "DESCRIPTION",
    "GPU_CUBLAS",
    "GPU_NAIVE",
    "GPU_TILED",
    "MAX_SIZE",
    "TITLE",
    "Context",
    "Params",
    "cpu_all_threads_name",
    "flops",
    "model_series_name",
    "run",
]

# English, for scripts and the command line; a front end renders experiment.matmul.* itself.
TITLE = render("experiment.matmul.title")
DESCRIPTION = render("experiment.matmul.description")

MAX_SIZE = 8192
SIZE_PRESETS = (  # sweeps a panel offers; the first is the default
    ("standard", powers_of_two(6, 11)),
    ("quick", powers_of_two(6, 10)),
    ("large", powers_of_two(6, 12)),
    ("huge", powers_of_two(6, 13)),
)
# Series labels (their English is the series name) by stable series key.
LABELS = {
    "cpu-numpy-1-thread": msg("series.cpu-numpy-1-thread"),
    "gpu-cublas": msg("series.gpu-cublas"),
    "gpu-naive": msg("series.gpu-naive"),
    "gpu-tiled": msg("series.gpu-tiled"),
}
CPU_ONE_THREAD = render(LABELS["cpu-numpy-1-thread"])
GPU_CUBLAS = render(LABELS["gpu-cublas"])
GPU_NAIVE = render(LABELS["gpu-naive"])
GPU_TILED = render(LABELS["gpu-tiled"])

NUMPY_DTYPES = {"fp32": np.float32, "fp64": np.float64, "fp16": np.float16}
CPU_DTYPES = ("fp32", "fp64")  # numpy has no half-precision BLAS
FORMULA = (
    "time = max(2·N³ / (peak FLOP/s × GEMM share × tile fill), 3·N²·bytes per element / memory bandwidth)"
    " + launch overhead [+ A and B copied in and C copied out over PCIe when transfers are included];"
    " GEMM share: what a large cuBLAS GEMM reached in a published measurement; tile fill: the share of the"
    " SMs the 64×64 tiles of C keep busy"
)


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param(SIZE_PRESETS[0][1], min=1, max=MAX_SIZE, presets=SIZE_PRESETS)
    dtype: Literal["fp32", "fp64", "fp16"] = param("fp32")
    include_transfers: bool = param(False)
    repeats: int = param(5, min=1)
    model_gpu: str = param("h100-sxm")
    cpu_single_thread: bool = param(True)
    gpu_kernels: bool = param(True, needs_gpu=True)



def flops(n: int) -> float:
    """Floating-point operations of one N×N×N multiply: N³ multiplies and N³ adds."""
    return 2.0 * float(n) ** 3


def cpu_all_threads_label(threads: int) -> Message:
    if threads == 1:
        return msg("series.cpu-numpy-all-1-thread")
    return msg("series.cpu-numpy-all-threads", threads=threads)


def cpu_all_threads_name(threads: int) -> str:
    return render(cpu_all_threads_label(threads))


def model_series_label(gpu_name: str) -> Message:
    return msg("series.model", gpu=gpu_name)


def model_series_name(gpu_name: str) -> str:
    return render(model_series_label(gpu_name))


# ----------------------------------------------------------------- timing


@cache
def _blas_controller() -> Any:
    """threadpoolctl's view of the loaded BLAS, made once: building it scans every loaded
    library (milliseconds), far too slow to repeat for each point."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _cpu_samples(a: np.ndarray, b: np.ndarray, policy: RepeatPolicy, ctx: Context, threads: int | None) -> list[float]:
    """Seconds per ``np.matmul(a, b, out=c)``; ``threads=1`` limits the BLAS to one thread."""
    c = np.empty_like(a)
    call: Callable[[], Any] = lambda: np.matmul(a, b, out=c)  # noqa: E731
    if threads is None:
        return time_cpu_calls(call, policy, ctx.check_cancelled)
    with _blas_controller().limit(limits=threads, user_api="blas"):
        return time_cpu_calls(call, policy, ctx.check_cancelled)


def _gpu_samples(
    a: np.ndarray, b: np.ndarray, method: str, include_transfers: bool, policy: RepeatPolicy, ctx: Context
) -> dict[str, list[float]]:
    """CUDA-event seconds per stage of one GPU multiply (``method``: cublas, naive or tiled)."""
    cupy = cuda.require_cupy()
    import cupyx

    n = a.shape[0]
    device = ctx.device_index or 0
    with cupy.cuda.Device(device):
        a_d, b_d = cupy.asarray(a), cupy.asarray(b)
        c_d = cupy.empty_like(a_d)
        compute = _gpu_compute(cupy, method, a_d, b_d, c_d, n, device)
        if not include_transfers:
            return time_gpu_stages([("kernel", compute)], policy, ctx.check_cancelled)
        a_pin, b_pin = cupyx.empty_like_pinned(a), cupyx.empty_like_pinned(b)
        c_pin = cupyx.empty_like_pinned(a)
        a_pin[...], b_pin[...] = a, b

        def h2d() -> None:
            a_d.set(a_pin)
            b_d.set(b_pin)

        def d2h() -> None:
            cupy.asnumpy(c_d, out=c_pin, blocking=False)

        return time_gpu_stages([("h2d", h2d), ("kernel", compute), ("d2h", d2h)], policy, ctx.check_cancelled)


def _gpu_compute(cupy: Any, method: str, a_d: Any, b_d: Any, c_d: Any, n: int, device: int) -> Callable[[], Any]:
    if method == "cublas":
        return lambda: cupy.matmul(a_d, b_d, out=c_d)
    spec = kernels.get("matmul_naive" if method == "naive" else "matmul_tiled")
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    grid, block = kernels.grid_2d(n, 16)
    size = np.int32(n)
    return lambda: kernel(grid, block, (a_d, b_d, c_d, size))


# ----------------------------------------------------------------- the run

AXES = Axes(msg("axis.matrix-size"), "", msg("axis.throughput"), "GFLOP/s")


@dataclass
class _Plan:
    """Which series this run fills, and the notes and model found while planning them."""

    params: Params
    series: list[SweepSeries] = field(default_factory=list)
    notes: list[Message] = field(default_factory=list)
    model_assumptions: tuple[Note, ...] = ()
    model_spec: Any = None


def _cpu_provenance(threads: int) -> Provenance:
    cpu = describe_cpu()
    blas = cpu.blas[0] if cpu.blas else None
    details = {
        "library": "numpy", "numpy": np.__version__, "timing": "perf_counter around np.matmul, median of repeats",
        "blas": blas.vendor if blas else "unknown", "blas_version": blas.version if blas else None,
        "blas_threads": threads, "logical_cores": cpu.logical_cores,
    }  # fmt: skip
    return Provenance("measured", cpu.model, details)


def _blas_threads() -> int:
    pools = blas_info()
    return pools[0].threads if pools else 1


def _plan_cpu(plan: _Plan, ctx: Context, policy: RepeatPolicy) -> None:
    params = plan.params
    if params.dtype not in CPU_DTYPES:
        plan.notes.append(msg("note.matmul.no-cpu-half", dtype=params.dtype))
        return
    threads = _blas_threads()
    configs: list[tuple[str, Message, int | None, int]] = [
        ("cpu-numpy-all-threads", cpu_all_threads_label(threads), None, threads)]
    if params.cpu_single_thread:
        configs.append(("cpu-numpy-1-thread", LABELS["cpu-numpy-1-thread"], 1, 1))
    for key, label, limit, shown in configs:
        maker = _cpu_maker(limit, shown, policy, ctx)
        plan.series.append(SweepSeries(label, "cpu", _cpu_provenance(shown), maker, key))


REMEASURES = 2
"""How often an implausible CPU point is measured again before it is shown flagged."""

PROBE_POLICY = RepeatPolicy(repeats=3, min_seconds=0.05, max_seconds=0.3)
"""The short single-thread run an all-threads point is checked against."""


def implausible(point: Point, previous: Point | None, one_thread: Point | None) -> str | None:
    """Why a CPU point cannot be right, or None: all threads much slower than one thread at the
    same size (more threads never cost a factor 2), or a rate under a quarter of the same series'
    rate at the size before (a multiply's rate does not collapse from one size to the next)."""
    if one_thread is not None and point.y < 0.5 * one_thread.y:
        return "slower-than-one-thread"
    if previous is not None and previous.x < point.x and point.y < previous.y / 4:
        return "drop-from-previous-size"
    return None


def _cpu_maker(limit: int | None, threads: int, policy: RepeatPolicy, ctx: Context) -> Callable[..., Point]:
    """Points of one CPU series. Each is checked against the series' previous point and, for
    all threads, a short single-thread probe: one that is implausible (a BLAS thread pool
    starved by another busy thread, see :func:`implausible`) is measured again, up to
    :data:`REMEASURES` times, and if it stays implausible it is kept flagged ``noisy``."""
    previous: list[Point] = []

    def measure(n: int, operands: tuple[np.ndarray, np.ndarray]) -> Point:
        return rate_point(n, flops(n), _cpu_samples(*operands, policy, ctx, limit), threads=threads)

    def make(n: int, operands: tuple[np.ndarray, np.ndarray]) -> Point:
        point = measure(n, operands)
        probe = None
        if limit is None and threads > 1:
            probe = rate_point(n, flops(n), _cpu_samples(*operands, PROBE_POLICY, ctx, 1))
        last = previous[-1] if previous else None
        why = implausible(point, last, probe)
        for attempt in range(REMEASURES):
            if why is None:
                break
            again = measure(n, operands)
            point = again if again.y > point.y else point
            point = replace(point, extra={**point.extra, "remeasured": attempt + 1})
            why = implausible(point, last, probe)
        if why is not None:
            point = flagged(replace(point, extra={**point.extra, "implausible": why}), ["implausible"])
        previous.append(point)
        return point

    return make


def _plan_gpu(plan: _Plan, ctx: Context, policy: RepeatPolicy) -> None:
    params = plan.params
    status = cuda.cuda_status()
    if not status.available:
        plan.notes.append(msg("note.no-measured-gpu", reason=status.reason_message or status.reason))
        return
    device = ctx.device_index or 0
    methods = [("gpu-cublas", "cublas")]
    if params.gpu_kernels and params.dtype == "fp32":
        methods += [("gpu-naive", "naive"), ("gpu-tiled", "tiled")]
    elif params.gpu_kernels:
        plan.notes.append(msg("note.matmul.kernels-fp32-only"))
    ceiling = gpu_flops_ceiling(cuda.device_name(device), params.dtype)
    for key, method in methods:
        details = gpu_details(
            ceiling, method=method, timing="CUDA events after warm-up, median of repeats",
            include_transfers=params.include_transfers, host_memory="pinned",
        )  # fmt: skip
        provenance = Provenance("measured", cuda.device_name(device), details)
        maker = _gpu_maker(method, params.include_transfers, policy, ctx, ceiling)
        plan.series.append(SweepSeries(LABELS[key], "gpu", provenance, maker, key))


def _gpu_maker(
    method: str, include_transfers: bool, policy: RepeatPolicy, ctx: Context, ceiling: Ceiling | None
) -> Callable[..., Point]:
    def make(n: int, operands: tuple[np.ndarray, np.ndarray]) -> Point:
        samples = _gpu_samples(*operands, method, include_transfers, policy, ctx)
        return with_ceiling(rate_point(n, flops(n), samples["total"], **stage_medians(samples)), ceiling)

    return make


def _plan_model(plan: _Plan) -> None:
    params = plan.params
    spec = resolve_model_gpu(params.model_gpu)
    try:
        probe = model_estimate(spec, 1024, params.dtype, params.include_transfers)
    except UnsupportedDtypeError as exc:
        plan.notes.append(msg("note.no-modelled-gpu", reason=exc.message))
        return
    details = {
        "formula": FORMULA, "spec_key": spec.key, "peak_tflops": probe.peak_tflops,
        "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s, "include_transfers": params.include_transfers,
        "assumptions": [str(assumption) for assumption in probe.assumptions],
    }  # fmt: skip
    plan.model_assumptions = probe.assumptions
    plan.model_spec = spec

    def make(n: int, _operands: Any) -> Point:
        return estimate_point(n, flops(n), model_estimate(spec, n, params.dtype, params.include_transfers))

    provenance = Provenance("modelled", spec.name, details)
    plan.series.append(SweepSeries(model_series_label(spec.name), "model", provenance, make, "model"))


def _operands_maker(dtype: str, rng: np.random.Generator) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    """A and B for one size, drawn once and shared by every series at that size."""
    kind = NUMPY_DTYPES[dtype]
    return lambda n: (random_normal(rng, (n, n), kind), random_normal(rng, (n, n), kind))


def _general_notes(params: Params) -> list[Message]:
    transfers = msg("note.matmul.with-copies") if params.include_transfers else msg("note.matmul.no-copies")
    return [msg("note.matmul.gflops"), transfers]


def _what_if_copied(plan: _Plan) -> WhatIfCopied | None:
    """Without copies, the note on where the modelled GPU would win with them."""
    spec, params = plan.model_spec, plan.params
    if params.include_transfers or spec is None:
        return None
    return WhatIfCopied(spec.name, lambda n: _model_seconds(spec, n, params.dtype, True))


def model_estimate(spec: Any, n: int, dtype: str, include_transfers: bool = False) -> Any:
    """The lab's modelled multiply of two N×N matrices on ``spec`` (the validation rows call this)."""
    return matmul_estimate(spec, n, dtype, include_transfers)


def _model_seconds(spec: Any, n: int, dtype: str, include_transfers: bool) -> float:
    return model_estimate(spec, n, dtype, include_transfers).seconds


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Time every series at every size, yielding each point as soon as it is known."""
    policy = RepeatPolicy(repeats=params.repeats)
    plan = _Plan(params)
    _plan_cpu(plan, ctx, policy)
    _plan_gpu(plan, ctx, policy)
    _plan_model(plan)
    sweep = Sweep(
        "matmul", params, AXES, plan.series, unit="N", operands=_operands_maker(params.dtype, np.random.default_rng(0)),
        what_if_copied=_what_if_copied(plan), note_groups=(_general_notes(params), plan.notes, plan.model_assumptions),
        host_bytes=lambda n: 3 * n * n * np.dtype(NUMPY_DTYPES[params.dtype]).itemsize,  # A, B and the product
    )  # fmt: skip
    return (yield from run_sweep(sweep, params.sizes))


LAB = Lab("matmul", order=50, quick=("sizes=64,256", "repeats=2"))
