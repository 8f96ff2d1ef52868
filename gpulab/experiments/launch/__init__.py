"""Launch overhead and CUDA Graphs ("changing the menu takes time"): K tiny steps of work, each
adding a constant to a small array, done four ways on a GPU and two ways on the CPU.

On a GPU (measured, CuPy): K launches of the tiny kernel queued one after another (async); the
same with a wait after each (sync); the K launches captured once as a CUDA Graph and replayed;
one fused kernel doing all K steps in a register. Each is timed with CUDA events and with the
wall clock, both kept. Without a GPU the four ways are modelled from measured costs of what the
host pays per launch and what the GPU pays per kernel (:mod:`gpulab.model.launch`). On the
CPU, always measured: K small numpy calls against one call doing the same K steps at once; a
numpy call, like a launch, has a fixed cost however little it does.

The y axis is microseconds per step (total time / K): what one kernel, one call or one trip of
the fused loop costs. Each point keeps its total seconds in ``extra``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import cuda, kernels
from gpulab.catalogue import Message, msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, Progress, param, params_to_dict
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import Axes, OnError, Stopped, Sweep, SweepSeries, numpy_cpu_provenance, sweep_points
from gpulab.measure import (
    RepeatPolicy,
    clean_points,
    flagged,
    flagged_headline,
    median_and_iqr,
    noise_reasons,
    noisy_notes,
    size_text,
    time_cpu_calls,
)
from gpulab.model.estimate import merge_assumptions
from gpulab.model.launch import LAUNCH_WAYS, costs_for, launch_time
from gpulab.results import Point, Provenance, Result, merge_notes

TITLE = render("experiment.launch.title")
DESCRIPTION = render("experiment.launch.description")
STEP = np.float32(1.0)  # what each step adds (the GPU path uses the same constant)
POINT_MAX_SECONDS = 1.0  # repeats of one point stop after this long (K = 10,000 waited launches: ~0.1 s each)


# ------------------------------------------------------------------ kernels


def _step_args(sizes: Any, rng: np.random.Generator) -> list[Any]:
    return [np.int32(sizes["n"]), np.float32(1.5), kernels.random_f32(rng, sizes["n"])]


def _step_reference(args: list[Any]) -> dict[int, np.ndarray]:
    return {2: args[2] + args[1]}


def _fused_args(sizes: Any, rng: np.random.Generator) -> list[Any]:
    n = sizes["n"]
    return [np.int32(n), np.int32(sizes["steps"]), np.float32(1.5), kernels.random_f32(rng, n)]


def _fused_reference(args: list[Any]) -> dict[int, np.ndarray]:
    values = args[3].copy()
    for _ in range(int(args[1])):  # one float32 add after another, as each thread does them
        values = values + args[2]
    return {3: values}


TINY_ADD = kernels.KernelSpec(
    file="tiny_add.cu",
    entry="tiny_add",
    presets=(kernels.preset_1d("tiny", 100, 64), kernels.preset_1d("small", 1024),
             kernels.preset_1d("large", 1 << 20)),
    make_args=_step_args,
    reference=_step_reference,
)  # fmt: skip
TINY_ADD_FUSED = kernels.KernelSpec(
    file="tiny_add_fused.cu",
    entry="tiny_add_fused",
    presets=(kernels.lab_preset("tiny", 64, 32, steps=8), kernels.lab_preset("small", 1024, 256, steps=32),
             kernels.lab_preset("large", 1 << 16, 256, steps=1000)),
    make_args=_fused_args,
    reference=_fused_reference,
)  # fmt: skip
KERNELS = (TINY_ADD, TINY_ADD_FUSED)


# ------------------------------------------------------------------ parameters

AXES = Axes(msg("axis.launch.steps"), "", msg("axis.launch.per-step"), "µs")
K_PRESETS = (("standard", (1, 10, 100, 1000, 10000)), ("quick", (1, 100, 10000)))
MAX_K = 10000


@dataclass(frozen=True)
class Params(CheckedParams):
    ks: tuple[int, ...] = param(K_PRESETS[0][1], min=1, max=MAX_K, presets=K_PRESETS)
    n: int = param(1024, min=1, max=1 << 20)
    sync: bool = param(True)
    repeats: int = param(5, min=1, max=1000)
    model_gpu: str = param("h100-sxm")


def _policy(params: Params) -> RepeatPolicy:
    return RepeatPolicy(repeats=params.repeats, max_seconds=POINT_MAX_SECONDS)


# ------------------------------------------------------------------ points


def per_step_point(k: int, seconds: Sequence[float], **extra: Any) -> Point:
    """A measured point: y is microseconds per step (total / K), the median over repeats; its
    spread the IQR; ``extra`` keeps the median total ``seconds`` and flags a noisy point."""
    y, spread = median_and_iqr([s / k * 1e6 for s in seconds])
    total, total_iqr = median_and_iqr(list(seconds))
    busy = getattr(seconds, "busy", None)
    facts: dict[str, Any] = {"kind": "measured", "seconds": total, "seconds_iqr": total_iqr,
                             "repeats": len(seconds), **extra}  # fmt: skip
    if busy is not None:
        facts["machine_busy"] = round(busy, 3)
    return flagged(Point(x=k, y=y, spread=spread, extra=facts), noise_reasons(total, total_iqr, busy))


def modelled_per_step_point(k: int, estimate: Any) -> Point:
    """A modelled point: microseconds per step, with the estimate's total seconds and its parts."""
    parts = {f"{part}_seconds": seconds for part, seconds in estimate.breakdown.items()}
    facts = {"kind": "modelled", "seconds": estimate.seconds, "repeats": 0, "bound": estimate.bound, **parts}
    return Point(x=k, y=estimate.seconds / k * 1e6, spread=None, extra=facts)


# ------------------------------------------------------------------ CPU series (measured)


def _cpu_k_calls(params: Params, ctx: Context) -> SweepSeries:
    def make(k: int, _operands: Any) -> Point:
        array = np.zeros(params.n, np.float32)

        def k_calls() -> None:
            for _ in range(k):
                np.add(array, STEP, out=array)  # a += c, one small numpy call per step

        return per_step_point(k, time_cpu_calls(k_calls, _policy(params), ctx.check_cancelled))

    provenance = numpy_cpu_provenance("perf_counter around K calls of np.add(a, c, out=a), median of repeats")
    return SweepSeries(msg("series.launch.cpu-k-calls"), "cpu", provenance, make, "cpu-k-calls")


def _cpu_one_call(params: Params, ctx: Context) -> SweepSeries:
    def make(k: int, _operands: Any) -> Point:
        array = np.zeros(params.n, np.float32)
        all_steps = np.float32(k * STEP)

        def one_call() -> None:
            np.add(array, all_steps, out=array)  # a += K*c: the K steps folded into one call

        return per_step_point(k, time_cpu_calls(one_call, _policy(params), ctx.check_cancelled))

    provenance = numpy_cpu_provenance("perf_counter around one np.add(a, K*c, out=a), median of repeats")
    return SweepSeries(msg("series.launch.cpu-one-call"), "cpu", provenance, make, "cpu-one-call")


# ------------------------------------------------------------------ GPU series (measured)

GPU_WAYS = LAUNCH_WAYS  # async, sync, graph, fused: the legend's order
GPU_LABELS = {"async": "series.launch.gpu-async", "sync": "series.launch.gpu-sync",
              "graph": "series.launch.gpu-graph", "fused": "series.launch.gpu-fused"}  # fmt: skip
MODEL_LABELS = {"async": "series.launch.model-async", "sync": "series.launch.model-sync",
                "graph": "series.launch.model-graph", "fused": "series.launch.model-fused"}  # fmt: skip


class _Bench:
    """The GPU bench, made when the first GPU point asks for it (so a failure is a note, not a crash)."""

    def __init__(self, params: Params, device: int) -> None:
        self.params, self.device = params, device
        self._bench: Any = None

    def get(self) -> Any:
        if self._bench is None:
            from gpulab.experiments.launch.gpu import LaunchBench

            self._bench = LaunchBench(self.device, self.params.n, TINY_ADD.source, TINY_ADD_FUSED.source)
        return self._bench


def _gpu_point(k: int, timing: Any) -> Point:
    events = median_and_iqr(timing.events_seconds)[0]
    wall = median_and_iqr(timing.wall_seconds)[0]
    extra: dict[str, Any] = {"events_seconds": events, "wall_seconds": wall, "us_per_kernel_events": events / k * 1e6,
                             "us_per_kernel_wall": wall / k * 1e6,
                             "wall_over_events": wall / events if events > 0 else None}  # fmt: skip
    if timing.build_seconds is not None:
        extra["graph_build_seconds"] = timing.build_seconds
    return per_step_point(k, timing.events_seconds, **extra)


def _gpu_provenance(device: int, way: str) -> Provenance:
    status = cuda.cuda_status()
    how = {"async": "K launches queued on one stream", "sync": "K launches, a stream synchronize after each",
           "graph": "K launches captured once as a CUDA Graph (stream capture), replayed with Graph.launch",
           "fused": "one launch of tiny_add_fused looping K times"}  # fmt: skip
    details = {"work": how[way], "timing": "CUDA events around the repeat (y) and the wall clock (extra), "
               "median of repeats after one warm-up", "cupy": status.cupy_version,
               "cuda_runtime": status.cuda_runtime_version, "cuda_driver": status.cuda_driver_version}  # fmt: skip
    return Provenance("measured", cuda.device_name(device), details)


def _gpu_error_note(stopped: Stopped) -> Message:
    return msg("note.launch.gpu-error", k=stopped.size, error=stopped.error)


GPU_STOPS = OnError(group="gpu", note=_gpu_error_note)
"""A GPU error stops every GPU series (they share the device); the points so far stay."""


def _gpu_series(params: Params, ctx: Context) -> list[SweepSeries]:
    device = ctx.device_index or 0
    bench = _Bench(params, device)

    def maker(way: str) -> Callable[[int, Any], Point]:
        return lambda k, _operands: _gpu_point(k, bench.get().time(way, k, _policy(params), ctx.check_cancelled))

    ways = [way for way in GPU_WAYS if params.sync or way != "sync"]
    return [SweepSeries(msg(GPU_LABELS[way]), "gpu", _gpu_provenance(device, way), maker(way),
                        f"gpu-{way}", on_error=GPU_STOPS) for way in ways]  # fmt: skip


# ------------------------------------------------------------------ modelled series


def _model_series(params: Params) -> tuple[list[SweepSeries], list[Any]]:
    from gpulab.lab.base import resolve_model_gpu

    spec = resolve_model_gpu(params.model_gpu)
    costs = costs_for(spec)
    ways = [way for way in GPU_WAYS if params.sync or way != "sync"]
    details = {"spec_key": spec.key, "issue_s": costs.issue_s, "kernel_min_s": costs.kernel_min_s,
               "gap_s": costs.gap_s, "sync_s": costs.sync_s, "graph_node_s": costs.graph_node_s,
               "graph_launch_s": costs.graph_launch_s, "costs_measured_on": costs.measured_on,
               "add_cycles": costs.add_cycles, "formula": "see gpulab.model.launch",
               "sources": "NVIDIA Technical Blog, 'Getting Started with CUDA Graphs' (2019); CSCS ReFrame "
               "gpu_kernel_latency references (reframe-hpc/reframe); Jia et al., arXiv:1804.06826 (2018)"}  # fmt: skip

    def maker(way: Any) -> Callable[[int, Any], Point]:
        return lambda k, _operands: modelled_per_step_point(k, launch_time(way, spec, k, params.n, costs))

    short_name = " ".join(spec.name.removeprefix("NVIDIA ").split()[:2])  # "H100 SXM5": the legend says MODELLED
    series = [SweepSeries(msg(MODEL_LABELS[way], gpu=short_name), "model",
                          Provenance("modelled", spec.name, {**details, "way": way}), maker(way), f"model-{way}")
              for way in ways]  # fmt: skip
    assumptions = merge_assumptions(*(launch_time(way, spec, MAX_K, params.n, costs).assumptions for way in ways))
    return series, list(assumptions)


# ------------------------------------------------------------------ the run


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Every K: both CPU series measured; the GPU's four ways measured (or modelled without a GPU)."""
    ks = sorted(set(params.ks))
    status = cuda.cuda_status()
    series = [_cpu_k_calls(params, ctx), _cpu_one_call(params, ctx)]
    head: list[Message | str] = []
    assumptions: list[Any] = []
    if status.available:
        series += _gpu_series(params, ctx)
    else:
        head.append(msg("note.no-gpu", reason=status.reason_message or status.reason))
        modelled, assumptions = _model_series(params)
        series += modelled
    sweep = Sweep("launch", params, AXES, series, unit="K", progress=_progress)
    swept = yield from sweep_points(sweep, ks)
    yield Progress(1.0, msg("progress.done"))
    result = Result("launch", params_to_dict(params), tuple(swept.series.values()))
    sources = [msg("note.launch.sources")] if assumptions else []
    headline = flagged_headline(result.series)
    notes = merge_notes([headline] if headline else [], head, swept.stopped_notes(), _summary_notes(result, ks[-1]),
                        noisy_notes(result, "K"),
                        sources, assumptions)  # fmt: skip
    return Result("launch", result.params, result.series, notes)


def _progress(declared: SweepSeries, k: int) -> Message:
    return msg("progress.launch", series=declared.label, k=k)


# ------------------------------------------------------------------ notes


def _at(result: Result, key: str, k: int) -> Point | None:
    """The series' clean point at ``k``, or None: a flagged one backs no cost or ratio in the notes."""
    series = next((s for s in result.series if s.key == key), None)
    return next((p for p in clean_points(series) if p.x == k), None) if series is not None else None


def _us(point: Point) -> str:
    return f"{point.y:.3g}"


def _summary_notes(result: Result, k: int) -> list[Message]:
    """What the largest K says, in plain words: what a launch costs, what waiting, a graph and
    fusing change; the CPU's own per-call cost; how far events and the wall clock are apart."""
    prefix = "gpu" if _at(result, "gpu-async", k) is not None else "model"
    plain, sync, graph, fused = (_at(result, f"{prefix}-{way}", k) for way in GPU_WAYS)
    kind = msg(f"provenance.{'measured' if prefix == 'gpu' else 'modelled'}")
    notes = []
    if plain is not None and fused is not None:
        device = next(s.provenance.device for s in result.series if s.key == f"{prefix}-async")
        notes.append(msg("note.launch.cost", k=size_text(k), plain=_us(plain), fused=_us(fused), kind=kind,
                         device=device))  # fmt: skip
    if plain is not None and sync is not None:
        notes.append(msg("note.launch.sync", sync=_us(sync), plain=_us(plain), times=f"{sync.y / plain.y:.2g}"))
    if plain is not None and graph is not None:
        notes.append(msg("note.launch.graph", graph=_us(graph), plain=_us(plain)))
        if graph.extra.get("graph_build_seconds") is not None:
            build_ms = f"{graph.extra['graph_build_seconds'] * 1e3:.3g}"
            notes.append(msg("note.launch.graph-build", k=size_text(k), ms=build_ms))
    if plain is not None and plain.extra.get("us_per_kernel_wall") and plain.extra.get("us_per_kernel_events"):
        events, wall = plain.extra["us_per_kernel_events"], plain.extra["us_per_kernel_wall"]
        notes.append(msg("note.launch.events-vs-wall", k=size_text(k), events=f"{events:.3g}", wall=f"{wall:.3g}",
                         percent=f"{abs(wall - events) / events * 100:.0f}"))  # fmt: skip
    calls, one = _at(result, "cpu-k-calls", k), _at(result, "cpu-one-call", k)
    if calls is not None and one is not None:
        notes.append(msg("note.launch.cpu", k=size_text(k), call=_us(calls), one=_us(one)))
    return notes


LAB = Lab("launch", section="execution", order=20, page="launch", quick=("ks=quick",), kernels=KERNELS)
