"""Squeeze a training step: one step of a small MLP, with the explainer's remedies switched on one by one.

The remedies (prefetch: pinned memory and a copy stream beside a loader thread; operator fusion;
mixed precision on tensor cores; CUDA Graphs) are switches. The lab runs the step as a ladder:
the baseline, then each chosen switch added to the ones before (the last rung is every chosen
switch on), and each chosen switch alone. Every configuration is one series with one point: x its
rung, y the step's milliseconds; ``extra`` holds the step's parts (data wait, H2D, compute,
launch gaps, idle; they add up to the step), the GPU's utilisation (the share of the step a
kernel runs), the step as trace events and what the trace doctor finds in them.

On a machine with a usable GPU each configuration's step runs there, through CuPy, its phases
timed with CUDA events (:mod:`gpulab.experiments.squeeze.measured`), labelled measured with the
device's name. Without one, or where a configuration cannot run there (out of memory, a capture
the driver refuses), the GPU's part is modelled from the lab models for the chosen spec-table GPU
(:mod:`gpulab.experiments.squeeze.step`), labelled modelled, and a note names the error. The data
loading is this CPU's, measured (:mod:`gpulab.experiments.squeeze.loader`) and flagged when noisy.

The lab then says whether the explainer's claim, "GPU utilisation from 30% to 85% and two thirds
less time" (LESSONS.md 3.4, a story without a source), is reproduced for that GPU and model, and
why or why not. :func:`chrome_trace` writes the steps as a Chrome trace for the trace doctor
(``gpulab run squeeze --trace OUT.json``; the page's "Export trace…").
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg, render
from gpulab.experiments.squeeze import chrome
from gpulab.experiments.squeeze.loader import LoaderTiming, time_loading
from gpulab.experiments.squeeze.measured import REPEATS, MeasureError, StepOnDevice, measured_events
from gpulab.experiments.squeeze.step import PARTS, SWITCHES, Mlp, Setup, breakdown, simulate, step_costs
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
from gpulab.measure import flagged, noise_messages
from gpulab.results import Point, Provenance, Result, Series, merge_notes

TITLE = render("experiment.squeeze.title")
DESCRIPTION = render("experiment.squeeze.description")

SHAPES = {"small": (256, 512, 4), "medium": (256, 1024, 8), "recommender": (2048, 1024, 6),
          "wide": (4096, 4096, 8)}  # fmt: skip
"""Named MLPs: (batch, hidden, layers). ``medium`` is the default: on an H100 each remedy visibly
shortens its step (its matmuls are long enough for mixed precision to matter, its kernels short
enough for CUDA Graphs to). ``recommender`` is the explainer's kind of model: a few wide dense
layers over a large batch of features; there the loader and the PCIe copy set the pace once the
GPU is fast, and graphs change little."""

CLAIM_BEFORE, CLAIM_AFTER, CLAIM_SAVED = 0.30, 0.85, 2 / 3
"""The explainer's claim: utilisation 30% -> 85%, two thirds less time."""
UTILISATION_TOLERANCE = 0.10  # "about 30%", "about 85%": within ten points
SAVED_TOLERANCE = 0.07  # "two thirds less": 60% or more saved


@dataclass(frozen=True)
class Params(CheckedParams):
    prefetch: bool = param(True)
    fusion: bool = param(True)
    mixed_precision: bool = param(True)
    cuda_graphs: bool = param(True)
    shape: str = param("medium", choices=tuple(SHAPES))
    precision: str = param("bf16", choices=("bf16", "fp16"))
    loader_workers: int = param(16, min=1, max=64)
    model_gpu: str = param("h100-sxm")
    batch: int | None = param(None, min=1, max=65536)
    hidden: int | None = param(None, min=16, max=16384)
    layers: int | None = param(None, min=1, max=64)

    def mlp(self) -> Mlp:
        batch, hidden, layers = SHAPES[self.shape]
        return Mlp(self.batch or batch, self.hidden or hidden, self.layers or layers)

    def chosen(self) -> tuple[str, ...]:
        return tuple(name for name in SWITCHES if getattr(self, name))


@dataclass(frozen=True)
class Configuration:
    """One way to run the step: its key, its switches, and whether it is a rung of the ladder."""

    key: str
    switches: tuple[str, ...]
    ladder: bool

    def setup(self, params: Params) -> Setup:
        return Setup(**{name: name in self.switches for name in SWITCHES}, low_dtype=params.precision)

    def label(self) -> Message:
        if not self.switches:
            return msg("squeeze.config.baseline")
        names = [msg(f"squeeze.switch.{name}") for name in self.switches]
        if not self.ladder:
            return msg("squeeze.config.alone", switch=names[0])
        if len(self.switches) == len(SWITCHES):
            return msg("squeeze.config.all-on")
        return msg("squeeze.config.ladder", switch=names[-1])  # the rung adds its last switch to the ones above


def configurations(chosen: tuple[str, ...]) -> tuple[Configuration, ...]:
    """The baseline, each chosen switch added in turn, then each chosen switch alone (where that
    is not a rung already: the first rung is the first switch alone)."""
    ladder = [Configuration("baseline", (), True)]
    for index in range(len(chosen)):
        on = chosen[: index + 1]
        ladder.append(Configuration("+".join(on), on, True))
    alone = [Configuration(f"{name}-alone", (name,), False) for name in chosen[1:]]
    return (*ladder, *alone)


def single_step_document(events: list[dict[str, Any]], step_s: float, name: str, device: str) -> dict[str, Any]:
    """One configuration's step as a trace document (the trace doctor, a layer above the labs, judges it)."""
    return chrome.steps_trace([(name, events, step_s)], device)


# ---------------------------------------------------------------- one configuration


def configuration_point(index: int, config: Configuration, params: Params, spec: Any, loading: LoaderTiming,
                        ) -> Point:  # fmt: skip
    """The configuration modelled on ``spec`` with the measured loading: its step and parts."""
    setup = config.setup(params)
    mlp = params.mlp()
    costs = step_costs(spec, mlp, setup, loading.seconds)
    events, step_s = simulate(costs, setup, mlp.batch_bytes, params.loader_workers)
    parts = breakdown(events, step_s)
    stored = chrome.stored(events)
    extra = {"kind": "modelled", "configuration": config.key, "switches": list(config.switches),
             "ladder": config.ladder, "seconds": step_s, "parts": parts.as_dict(),
             "utilisation": parts.utilisation, "kernels": len(costs.kernels),
             "kernel_mean_s": sum(k.seconds for k in costs.kernels) / max(len(costs.kernels), 1),
             "issue_s": costs.costs.issue_s,
             "loader_seconds": loading.seconds, "trace": stored}  # fmt: skip
    return flagged(Point(x=index, y=step_s * 1e3, extra=extra), list(loading.noise))


def measured_point(index: int, config: Configuration, params: Params, loading: LoaderTiming,
                   backend: tuple[Any, Any]) -> Point:  # fmt: skip
    """The configuration run on this machine's GPU (``backend``: the cupy module and
    ``cupyx.empty_pinned``), its phases event-timed; MeasureError when it cannot run there."""
    setup = config.setup(params)
    mlp = params.mlp()
    cp, empty_pinned = backend
    phases = StepOnDevice(cp, empty_pinned, mlp, setup).phases(loading.seconds)
    events, step_s = measured_events(phases, setup, mlp.batch_bytes, params.loader_workers)
    parts = breakdown(events, step_s)
    extra = {"kind": "measured", "configuration": config.key, "switches": list(config.switches),
             "ladder": config.ladder, "seconds": step_s, "parts": parts.as_dict(),
             "utilisation": parts.utilisation, "kernels": phases.kernels, "launches": phases.launches,
             "kernel_mean_s": phases.replay_s / max(phases.kernels, 1),
             "issue_s": phases.eager_gaps_s / max(phases.kernels, 1),
             "phases": {"h2d_s": phases.h2d_s, "span_s": phases.span_s, "replay_s": phases.replay_s,
                        "eager_s": phases.eager_s, "readback_s": phases.readback_s},
             "loader_seconds": loading.seconds, "trace": chrome.stored(events)}  # fmt: skip
    return flagged(Point(x=index, y=step_s * 1e3, extra=extra), list(loading.noise))


def measuring_backend() -> tuple[Any, Any] | None:
    """(the cupy module, ``cupyx.empty_pinned``) when this machine has a usable GPU, else None."""
    if not cuda.gpu_available():
        return None
    cp = cuda.require_cupy()
    import cupyx

    return cp, cupyx.empty_pinned


def _series(config: Configuration, point: Point, provenance: Provenance) -> Series:
    label = config.label()
    return Series(render(label), provenance, Note(msg("axis.squeeze.configuration")), "",
                  Note(msg("axis.squeeze.step-time")), "ms", points=(point,), role="model", key=config.key,
                  label=label)  # fmt: skip


# ---------------------------------------------------------------- the verdict on the explainer's claim


@dataclass(frozen=True)
class Verdict:
    """The claim against the ladder's ends: utilisation before and after, the share of time saved."""

    before: float
    after: float
    saved: float

    @property
    def utilisation_matches(self) -> bool:
        low_before = abs(self.before - CLAIM_BEFORE) <= UTILISATION_TOLERANCE
        return low_before and self.after >= CLAIM_AFTER - UTILISATION_TOLERANCE

    @property
    def time_matches(self) -> bool:
        return self.saved >= CLAIM_SAVED - SAVED_TOLERANCE

    @property
    def key(self) -> str:
        if self.utilisation_matches and self.time_matches:
            return "reproduced"
        return "partly" if self.utilisation_matches or self.time_matches else "not"


def verdict(series: list[Series]) -> Verdict | None:
    """The baseline against the last rung; None when only the baseline ran (no switch chosen)."""
    rungs = [s.points[0] for s in series if s.points[0].extra["ladder"]]
    if len(rungs) < 2:
        return None
    first, last = rungs[0].extra, rungs[-1].extra
    saved = 1 - float(last["seconds"]) / float(first["seconds"])
    return Verdict(float(first["utilisation"]), float(last["utilisation"]), saved)


def _reason(series: list[Series], found: Verdict) -> Message:
    """Why the ladder ends where it does: what dominates the last rung, or a busy baseline."""
    rungs = [s.points[0] for s in series if s.points[0].extra["ladder"]]
    last = rungs[-1].extra["parts"]
    waiting = {part: seconds for part, seconds in last.items() if part != "compute"}
    biggest = max(waiting, key=lambda part: waiting[part])
    if found.before > CLAIM_BEFORE + UTILISATION_TOLERANCE and not found.time_matches:
        return msg("squeeze.why.busy-baseline", before=f"{found.before:.0%}")
    if waiting[biggest] > last["compute"]:
        return msg(f"squeeze.why.{biggest.replace('_', '-')}", share=f"{waiting[biggest] / sum(last.values()):.0%}")
    if found.after >= CLAIM_AFTER - UTILISATION_TOLERANCE:
        return msg("squeeze.why.busy-after", after=f"{found.after:.0%}")
    return msg("squeeze.why.mixed", share=f"{waiting[biggest] / sum(last.values()):.0%}",
               part=msg(f"squeeze.part.{biggest.replace('_', '-')}"))  # fmt: skip


GRAPHS_LITTLE = 0.10  # a graph rung saving less than this share of the rung before "helps little"


def graphs_note(series: list[Series]) -> Message | None:
    """Why CUDA Graphs helped little or much: the rung that added them against the rung before,
    and the step's mean kernel against a launch call (graphs remove launch gaps, nothing else)."""
    rungs = [s.points[0].extra for s in series if s.points[0].extra["ladder"]]
    for before, after in pairwise(rungs):
        if after["switches"][-1:] != ["cuda_graphs"]:
            continue
        saved = 1 - float(after["seconds"]) / float(before["seconds"])
        words = {"saved": f"{saved:.0%}", "kernel_us": f"{float(after['kernel_mean_s']) * 1e6:.2g}",
                 "issue_us": f"{float(after['issue_s']) * 1e6:.2g}"}  # fmt: skip
        return msg("squeeze.note.graphs-little" if saved < GRAPHS_LITTLE else "squeeze.note.graphs-help", **words)
    return None


def verdict_notes(series: list[Series], gpu: Message) -> list[Message]:
    found = verdict(series)
    if found is None:
        return [msg("squeeze.verdict.no-switch")]
    words = {"before": f"{found.before:.0%}", "after": f"{found.after:.0%}", "saved": f"{found.saved:.0%}",
             "gpu": gpu}  # fmt: skip
    return [msg(f"squeeze.verdict.{found.key}", **words), _reason(series, found)]


# ---------------------------------------------------------------- running


def run(params: Params, ctx: Context) -> ExperimentGen:
    """The loader measured on this CPU, then every configuration measured on this machine's GPU, or
    modelled on the chosen spec-table GPU where there is none or the configuration cannot run there."""
    spec = resolve_model_gpu(params.model_gpu)
    mlp = params.mlp()
    yield Progress(0.0, msg("progress.squeeze.loader", batch=mlp.batch, hidden=mlp.hidden))
    loading = time_loading(mlp.batch, mlp.hidden, ctx.check_cancelled)
    modelled = Provenance("modelled", spec.name, {"model": "training step from the lab models", "spec_key": spec.key,
                                                  "loader": "measured on this CPU",
                                                  "loader_seconds": loading.seconds})  # fmt: skip
    backend = measuring_backend()
    device = cuda.device_name() if backend else ""
    measured = Provenance("measured", device, {"method": "CuPy step, phases timed with CUDA events",
                                               "repeats": REPEATS, "loader": "measured on this CPU",
                                               "loader_seconds": loading.seconds})  # fmt: skip
    chosen = configurations(params.chosen())
    series: list[Series] = []
    failed: list[Message] = []
    for index, config in enumerate(chosen):
        ctx.check_cancelled()
        yield Progress((index + 1) / (len(chosen) + 1), msg("progress.squeeze.modelling", label=config.label()))
        point, provenance = None, modelled
        if backend is not None:
            try:
                point, provenance = measured_point(index, config, params, loading, backend), measured
            except MeasureError as exc:  # modelled instead, and the note names why
                failed.append(msg("squeeze.note.measure-failed", label=config.label(), error=str(exc)))
        if point is None:
            point = configuration_point(index, config, params, spec, loading)
        series.append(_series(config, point, provenance))
        yield PartialPoint(Note(config.label()), point, provenance)
    yield Progress(1.0, msg("progress.done"))
    kinds = {s.provenance.kind for s in series}
    graphs = graphs_note(series)
    where = msg("squeeze.where.measured", gpu=device) if kinds == {"measured"} else msg("squeeze.where.modelled",
                                                                                          gpu=spec.name)
    notes = merge_notes(verdict_notes(series, where),
                        [graphs] if graphs else [], _loader_notes(loading, mlp, kinds, device), failed,
                        _gpu_notes(params, kinds, device, series), [msg("squeeze.note.readback")],
                        [msg("squeeze.note.claim-unsourced"), msg("squeeze.note.utilisation"),
                         msg("squeeze.note.workers", workers=params.loader_workers), msg("squeeze.note.unvalidated")],
                        step_costs(spec, mlp, Setup(), loading.seconds).assumptions if "modelled" in kinds else [],
                        )  # fmt: skip
    return Result("squeeze", params_to_dict(params), tuple(series), notes)


def _graph_pieces_notes(series: list[Series]) -> list[Message]:
    """How a measured configuration with CUDA Graphs launched its step: CuPy captures no cuBLAS
    call, so its graphs hold the element-wise runs and the matmuls go between them."""
    for one in series:
        extra = one.points[0].extra if one.points else {}
        if one.provenance.kind == "measured" and "cuda_graphs" in extra.get("switches", ()):
            return [msg("squeeze.note.graph-pieces", launches=extra["launches"], kernels=extra["kernels"])]
    return []


def _gpu_notes(params: Params, kinds: set[str], device: str, series: list[Series]) -> list[Message]:
    """Where the GPU's numbers come from: no GPU (why), measured (how), or both (a mixed ladder)."""
    if "measured" not in kinds:
        status = cuda.cuda_status()
        if status.available:
            return []  # a GPU, but no configuration ran there: each one's failure is noted
        return [msg("note.no-gpu", reason=status.reason_message or status.reason)]
    notes = [msg("squeeze.note.measured", device=device, repeats=REPEATS)]
    if params.mixed_precision and params.precision == "bf16":
        notes.append(msg("squeeze.note.fp16-not-bf16"))
    notes.extend(_graph_pieces_notes(series))
    if "modelled" in kinds:
        notes.append(msg("squeeze.note.mixed-kinds"))
    return notes


def _loader_notes(loading: LoaderTiming, mlp: Mlp, kinds: set[str], device: str) -> list[Message]:
    if "measured" not in kinds:
        gpu_part = msg("squeeze.gpu-part.modelled")
    else:  # every configuration on the GPU, or some modelled where they could not run there
        gpu_part = msg("squeeze.gpu-part.measured" if kinds == {"measured"} else "squeeze.gpu-part.mixed", gpu=device)
    notes = [msg("squeeze.note.loader", ms=f"{loading.seconds * 1e3:.3g}", batch=mlp.batch, hidden=mlp.hidden,
                 samples=loading.samples, gpu_part=gpu_part)]  # fmt: skip
    if loading.noise:
        notes.insert(0, msg("squeeze.note.loader-noisy", reasons=noise_messages(loading.noise)))
    return notes


# ---------------------------------------------------------------- the trace export


def chrome_trace(result: Result) -> dict[str, Any]:
    """The result's configurations as one Chrome trace, a profiler step each (see
    :mod:`gpulab.experiments.squeeze.chrome`); ValueError when no point holds a step."""
    steps = [(s.key, list(p.extra["trace"]), float(p.extra["seconds"])) for s in result.series for p in s.points
             if p.extra.get("trace")]  # fmt: skip
    if not steps:
        raise ValueError("the result holds no training step to write as a trace")
    from gpulab.trace.labtimeline import weakest  # the doctor's rule: any modelled time makes it modelled

    device = next((s.provenance.device for s in result.series), "")
    kinds = [s.provenance.details.get("original_kind", s.provenance.kind) if s.provenance.kind == "replayed"
             else s.provenance.kind for s in result.series if any(p.extra.get("trace") for p in s.points)]  # fmt: skip
    return chrome.steps_trace(steps, device, weakest([str(kind) for kind in kinds]))


def part_seconds(point: Point) -> dict[str, float]:
    """A point's parts (:data:`PARTS`), in seconds; 0 for a part it lacks."""
    parts = point.extra.get("parts") or {}
    return {part: float(parts.get(part, 0.0)) for part in PARTS}


LAB = Lab("squeeze", section="execution", order=50, page="squeeze",
          quick=("shape=medium", "loader_workers=16"))
