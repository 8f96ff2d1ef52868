"""Streams: overlap copy-in, compute and copy-out, and see on a timeline when it fails.

A job is split into C chunks; each chunk is copied to the GPU, worked on by a kernel and copied
back. The lab runs the same job four ways: on one stream (everything in order), on S streams
with pinned host memory (copies and kernels of different chunks overlap), on S streams with
pageable host memory (the host stages each copy itself, so nothing overlaps) and on S streams
with the kernels launched on the legacy default stream (which waits for every other stream).

Without a GPU the four timelines come from a discrete-event model of the copy engines and SMs
(:mod:`gpulab.model.streams`), labelled modelled. With one they are measured: CUDA events
around every copy and kernel (:mod:`gpulab.experiments.streams.gpu`). Each configuration is one
series with one point, x = streams used, y = total milliseconds; its point's ``extra`` holds the
timeline (``ops``, see :mod:`gpulab.timeline`), the speedup over one stream and the diagnosis.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import cuda, kernels
from gpulab.catalogue import Message, Note, from_json, msg, render, to_json
from gpulab.experiments.streams import gpu as streams_gpu
from gpulab.lab.base import (
    CheckedParams,
    Context,
    ExperimentGen,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    resolve_model_gpu,
)
from gpulab.lab.declare import Lab
from gpulab.measure import flagged, is_clean, median_and_iqr, noise_reasons
from gpulab.model import streams as model
from gpulab.results import Point, Provenance, Result, Series, merge_notes
from gpulab.timeline import TimelineOp, ops_to_json, overlap_seconds, span_seconds

TITLE = render("experiment.streams.title")
DESCRIPTION = render("experiment.streams.description")


def _args(sizes: Any, rng: np.random.Generator) -> list[Any]:
    n = sizes["n"]
    return [kernels.random_f32(rng, n), np.zeros(n, np.float32), np.int32(n), np.int32(sizes["rounds"])]


def stream_work_reference(x: np.ndarray, rounds: int) -> np.ndarray:
    """What the kernel computes, in float32: ``rounds`` rounds of v = v * 0.999 + 0.001."""
    v = x.astype(np.float32).copy()
    for _ in range(rounds):
        v = v * np.float32(0.999) + np.float32(0.001)
    return v


def _reference(args: list[Any]) -> dict[int, np.ndarray]:
    return {1: stream_work_reference(args[0], int(args[3]))}


KERNEL = kernels.KernelSpec(
    file="stream_work.cu",
    entry="stream_work",
    presets=(kernels.lab_preset("tiny", 100, 64, rounds=3), kernels.lab_preset("small", 4096, 256, rounds=8),
             kernels.lab_preset("large", 1 << 20, 256, rounds=64)),
    make_args=_args,
    reference=_reference,
    rtol=1e-4,  # the GPU fuses each round into one multiply-add; numpy rounds twice
)  # fmt: skip
KERNELS = (KERNEL,)

WORK_PRESETS = (("balanced", 1.0), ("copy-heavy", 0.25), ("kernel-heavy", 4.0))
REPEATS = 5  # timed runs of each configuration on a GPU; the run with the median total is kept


@dataclass(frozen=True)
class Params(CheckedParams):
    chunks: int = param(8, min=1, max=64)
    streams: int = param(4, min=2, max=16)
    chunk_bytes: int = param(1 << 23, unit="B", min=1024, max=1 << 28)
    kernel_to_copy: float = param(1.0, min=0.0, max=100.0, presets=WORK_PRESETS)
    copy_engines: int = param(2, choices=(2, 1))
    model_gpu: str = param("h100-sxm")


@dataclass(frozen=True)
class Configuration:
    """One way to run the job: its key, how many streams, pageable memory, kernels on the default stream."""

    key: str
    many_streams: bool
    pageable: bool = False
    kernels_on_default: bool = False

    def label(self, streams: int) -> Message:
        return msg(f"series.streams.{self.key}", streams=streams)

    def streams(self, params: Params) -> int:
        return params.streams if self.many_streams else 1

    def setup(self, params: Params, share: float, issue_s: float, copy_engines: int) -> model.Setup:
        return model.Setup(self.streams(params), self.pageable, self.kernels_on_default, copy_engines, share, issue_s)


CONFIGURATIONS = (
    Configuration("one-stream", many_streams=False),
    Configuration("pinned", many_streams=True),
    Configuration("pageable", many_streams=True, pageable=True),
    Configuration("default-stream", many_streams=True, kernels_on_default=True),
)
BASELINE = CONFIGURATIONS[0].key


@dataclass(frozen=True)
class Timeline:
    """A configuration's ops and what the diagnosis needs to know about how they were made."""

    ops: tuple[TimelineOp, ...]
    setup: model.Setup
    facts: dict[str, Any]


def repeat_noise(facts: Mapping[str, Any]) -> list[str]:
    """Why a measured configuration's timings cannot carry a claim: its repeats' totals disagree
    (see :func:`gpulab.measure.noise_reasons`); [] for a steady one or a model."""
    totals = [float(t) for t in facts.get("repeat_totals_s", ())]
    if len(totals) < 2:
        return []
    median, iqr = median_and_iqr(totals)
    return noise_reasons(median, iqr, None)


def unsteady_headline(series: list[Series]) -> list[Note]:
    """The note a run with flagged configurations leads with: which, and that no speed-up rests
    on them (their rows are faded); [] when every timing was steady."""
    unsteady = [s for s in series if any(not is_clean(p) for p in s.points)]
    if not unsteady:
        return []
    names = [s.label if s.label is not None else s.name for s in unsteady]
    return [Note(msg("streams.note.unsteady", count=len(unsteady), total=len(series), configurations=names))]


def configuration_point(config: Configuration, timeline: Timeline, baseline_s: float | None, kind: str) -> Point:
    """One configuration as a point: x streams used, y total milliseconds; the timeline, speedup and
    diagnosis in ``extra``. A measured configuration whose repeats disagree is flagged noisy, and
    ``baseline_s`` None (the one-stream run was flagged) or a flagged point states no speed-up."""
    total_s = span_seconds(timeline.ops)
    reasons = repeat_noise(timeline.facts) if kind == "measured" else []
    # A measured speed-up needs steady timings here and in the one-stream run (None when flagged).
    claimed = baseline_s if not reasons and (baseline_s is not None or kind != "measured") else None
    diagnosis = model.diagnose(timeline.setup, timeline.ops, claimed, unclaimed=kind == "measured" and claimed is None)
    extra = {"kind": kind, "seconds": total_s, "configuration": config.key, "speedup_claimed": claimed is not None,
             "speedup": (baseline_s / total_s) if baseline_s and total_s > 0 else 1.0,
             "overlap_fraction": overlap_seconds(timeline.ops) / total_s if total_s > 0 else 0.0,
             "ideal_seconds": model.ideal_seconds(timeline.ops), "ops": ops_to_json(timeline.ops),
             "diagnosis": [to_json(m) for m in diagnosis], **timeline.facts}  # fmt: skip
    return flagged(Point(x=timeline.setup.streams, y=total_s * 1e3, extra=extra), reasons)


def _series(label: Message, key: str, role: str, provenance: Provenance) -> Series:
    return Series(render(label), provenance, Note(msg("axis.streams")), "", Note(msg("axis.total-time")), "ms",
                  role=role, key=key, label=label)  # fmt: skip


# ---------------------------------------------------------------- the modelled GPU


def _model_timelines(params: Params, spec: Any) -> Iterator[tuple[Configuration, Timeline]]:
    plan = model.plan_chunk(spec, params.chunk_bytes, params.kernel_to_copy)
    machine = model.machine_for(spec, params.copy_engines)
    facts = {"rounds": plan.rounds, "chunk_bytes": plan.elements * model.BYTES_PER_ELEMENT,
             "sm_share": plan.pinned.sm_fraction}  # fmt: skip
    for config in CONFIGURATIONS:
        costs = plan.pageable if config.pageable else plan.pinned
        program = model.chunked_program(params.chunks, config.streams(params), costs, pageable=config.pageable,
                                        kernels_on_default=config.kernels_on_default)
        setup = config.setup(params, costs.sm_fraction, machine.issue_s, params.copy_engines)
        yield config, Timeline(model.simulate(program, machine), setup, facts)


def model_assumptions(params: Params, spec: Any) -> tuple[Note, ...]:
    plan = model.plan_chunk(spec, params.chunk_bytes, params.kernel_to_copy)
    return merge_notes(plan.assumptions, model.machine_assumptions(model.machine_for(spec, params.copy_engines), spec))


# ---------------------------------------------------------------- the local GPU


def measured_timelines(params: Params, ctx: Context, notes: list[Message | Note]
                       ) -> Iterator[tuple[Configuration, Timeline]]:  # fmt: skip
    """Each configuration measured on the context's GPU (:mod:`gpulab.experiments.streams.gpu`), as
    the timeline the model's are drawn and diagnosed like."""
    job = streams_gpu.Job(params.chunks, params.streams, params.chunk_bytes, params.kernel_to_copy, KERNEL, REPEATS)
    for config, run in streams_gpu.measured_runs(job, CONFIGURATIONS, ctx, notes):
        setup = config.setup(params, run.sm_share, run.issue_s, run.copy_engines)
        yield config, Timeline(run.ops, setup, run.facts)


# ---------------------------------------------------------------- running


def _run_configurations(timelines: Iterator[tuple[Configuration, Timeline]], params: Params, role: str,
                        provenance: Provenance, key_prefix: str, progress: Callable[[int], Progress],
                        ) -> Iterator[Progress | PartialPoint | Series]:  # fmt: skip
    """A series per configuration, each yielded with its point as soon as its timeline is known."""
    baseline_s = None
    for index, (config, timeline) in enumerate(timelines):
        yield progress(index)
        label = config.label(params.streams)
        if key_prefix:
            label = msg("series.streams.model", config=label, gpu=provenance.device)
        if config.key == BASELINE:  # the speed-ups' reference, unless its own timings were flagged
            baseline_s = span_seconds(timeline.ops) if not repeat_noise(timeline.facts) else None
        point = configuration_point(config, timeline, baseline_s, provenance.kind)
        series = _series(label, key_prefix + config.key, role, provenance).with_point(point)
        yield PartialPoint(Note(label), point, provenance)
        yield series


def _forward(events: Iterator[Progress | PartialPoint | Series],
             ) -> Generator[Progress | PartialPoint, None, list[Series]]:  # fmt: skip
    """Yield the progress and points of ``events``; return the series among them."""
    series = []
    for event in events:
        if isinstance(event, Series):
            series.append(event)
        else:
            yield event
    return series


def diagnosis_notes(series: tuple[Series, ...]) -> list[Note]:
    """One note per configuration and diagnosis line, naming the configuration."""
    notes = []
    for s in series:
        for point in s.points:
            for line in point.extra.get("diagnosis", ()):
                notes.append(Note(msg("streams.note.diagnosis", series=s.label or s.name, text=from_json(line))))
    return notes


def run(params: Params, ctx: Context) -> ExperimentGen:
    """The four configurations on the modelled GPU, and measured on the local GPU when there is one."""
    spec = resolve_model_gpu(params.model_gpu)
    status = cuda.cuda_status()
    steps = len(CONFIGURATIONS) * (2 if status.available else 1)
    collected: list[Series] = []
    gpu_notes: list[Message | Note] = []
    if status.available:
        measured = measured_timelines(params, ctx, gpu_notes)
        provenance = streams_gpu.provenance(ctx.device_index or 0)
        events = _run_configurations(measured, params, "gpu", provenance, "",
                                     lambda i: Progress(i / steps, msg("progress.streams.measuring", index=i + 1)))
        collected += yield from _forward(events)
    model_provenance = Provenance("modelled", spec.name, {"model": "discrete-event model of copy engines and SMs",
                                                          "spec_key": spec.key})  # fmt: skip
    offset = len(collected)
    events = _run_configurations(_model_timelines(params, spec), params, "model", model_provenance, "model-",
                                 lambda i: Progress((offset + i) / steps, msg("progress.streams.modelling")))
    collected += yield from _forward(events)
    yield Progress(1.0, msg("progress.done"))
    missing = [] if status.available else [msg("note.no-gpu", reason=status.reason_message or status.reason)]
    notes = merge_notes(unsteady_headline(collected), missing, gpu_notes, diagnosis_notes(tuple(collected)),
                        model_assumptions(params, spec))  # fmt: skip
    return Result("streams", params_to_dict(params), tuple(collected), notes)


LAB = Lab("streams", section="execution", order=10, page="streams",
          quick=("chunks=8", "chunk_bytes=2^23", "kernel_to_copy=1"), kernels=KERNELS)
