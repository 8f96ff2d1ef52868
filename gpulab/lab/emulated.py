"""Shared machinery of the kernel-lab experiments: run catalogue kernels in the SIMT emulator,
one variant at a time, and (where a GPU is usable) time the same kernels with CUDA events.

A lab experiment is a list of :class:`Variant` (a catalogue kernel with its launch sizes) and a
list of :class:`MetricSeries` (which number to plot per variant). :func:`run_variants` is the
generator that drives them: it yields between variants so a run can be cancelled, checks every
emulated output against the kernel's numpy reference, and labels every series with its
provenance (``emulated`` for the emulator's exact counts, ``measured`` for GPU times).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpulab import cuda, hostmem, kernels
from gpulab.catalogue import Message, Note, msg, render
from gpulab.hostmem import bytes_text
from gpulab.kernels import Args, KernelSpec, LaunchPreset
from gpulab.lab import declare
from gpulab.lab.base import (
    Cancelled,
    Context,
    Event,
    ExperimentGen,
    ParamError,
    PartialPoint,
    Progress,
)
from gpulab.lab.sweep import MEMORY_SHARE
from gpulab.measure import median_and_iqr, size_text
from gpulab.results import Point, Provenance, Result, Series

EMULATOR_DEVICE = "SIMT emulator (gpulab)"
GPU_TIME_KEY = "kernel-time"
GPU_TIME_LABEL = msg("series.kernel-time")
GPU_TIME_SERIES = render(GPU_TIME_LABEL)
EMULATOR_NOTE = msg("note.emulated.exact-counts")


@dataclass(frozen=True)
class Variant:
    """One bar of a lab: a catalogue kernel, its block size and its extra kernel parameters.

    ``tiled`` variants are square problems of n elements (side = sqrt(n)) launched as one
    32 x 32 block per tile (the transposes); the others are 1-D launches of ``block``
    threads per block. ``name`` is the English name (in points and launch presets); ``label``
    the catalogue message it was rendered from (see :meth:`of`), None for a name no key describes.
    """

    name: str
    entry: str
    block: int = 256
    sizes: Mapping[str, int] = field(default_factory=dict)
    tiled: bool = False
    label: Message | None = None

    @classmethod
    def of(cls, label: Message, entry: str, block: int = 256, sizes: Mapping[str, int] | None = None,
           tiled: bool = False) -> Variant:
        """A variant named by a catalogue message (its ``name`` is the message's English)."""
        return cls(render(label), entry, block, dict(sizes or {}), tiled, label)

    @property
    def text(self) -> Message | str:
        """What names the variant in a sentence: its label, else its name."""
        return self.label if self.label is not None else self.name

    @property
    def spec(self) -> KernelSpec:
        return declare.kernel(self.entry)  # the base catalogue and every lab's own kernels

    def preset(self, n: int) -> LaunchPreset:
        """The launch of this variant for problem size ``n``."""
        if self.tiled:
            return kernels.preset_transpose(self.name, math.isqrt(n))
        return kernels.lab_preset(self.name, n, self.block, **self.sizes)

    def launch_label(self, n: int) -> str:
        preset = self.preset(n)
        return f"{self.entry}<<<{_dim(preset.grid)}, {_dim(preset.block)}>>>"


@dataclass(frozen=True)
class EmulatedRun:
    """What one emulated launch of a variant gave: its metrics and its output arrays."""

    variant: Variant
    preset: LaunchPreset
    inputs: Args
    outputs: dict[int, np.ndarray]
    metrics: Mapping[str, float]
    matches_reference: bool
    load_sites: tuple[LoadSite, ...] = ()
    store_sites: tuple[LoadSite, ...] = ()


@dataclass(frozen=True)
class LoadSite:
    """One global load (or store) in the source (line, column, buffer) and its traffic over all
    warps: ``bytes_used`` sums the bytes the active lanes asked for; ``first`` is the trace step
    of the lowest traced warp's first request there (its addresses, for a memory picture)."""

    line: int
    column: int
    buffer: str
    requests: int
    sectors: int
    bytes_used: int = 0
    first: Any = field(default=None, compare=False, repr=False)

    @property
    def sectors_per_request(self) -> float:
        return self.sectors / self.requests if self.requests else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "buffer": self.buffer, "requests": self.requests,
                "sectors_per_request": self.sectors_per_request, "bytes_used": self.bytes_used}


@dataclass(frozen=True)
class MetricSeries:
    """A series of one emulated number per variant: its stable ``key``, its ``label`` and y-axis
    label (catalogue messages), unit, and ``value`` that reads it from a run."""

    key: str
    label: Message
    y_label: Message
    y_unit: str
    value: Callable[[EmulatedRun], float]
    extra: Callable[[EmulatedRun], Mapping[str, Any]] | None = None  # more facts for each point's ``extra``

    @property
    def name(self) -> Note:
        """The English name, carrying the label."""
        return Note(self.label)


def metric(key: str) -> Callable[[EmulatedRun], float]:
    """A ``MetricSeries.value`` that reads emulator metric ``key``."""
    return lambda run: float(run.metrics[key])


# The control-flow metrics the divergence and reduction labs both plot, defined once.
BRANCH_EFFICIENCY = MetricSeries("branch-efficiency", msg("series.branch-efficiency"),
                                 msg("axis.branch-efficiency"), "%", metric("branch_efficiency"))
WARP_EXECUTION_EFFICIENCY = MetricSeries(
    "warp-execution-efficiency", msg("series.warp-execution-efficiency"), msg("axis.warp-execution-efficiency"),
    "%", metric("warp_execution_efficiency"))
INSTRUCTIONS_EXECUTED = MetricSeries("instructions-executed", msg("series.instructions-executed"),
                                     msg("axis.warp-instructions"), "", metric("inst_executed"))  # fmt: skip


def _dim(shape: tuple[int, int, int]) -> str:
    x, y, z = shape
    if z == 1 and y == 1:
        return str(x)
    return f"({x}, {y})" if z == 1 else f"({x}, {y}, {z})"


# ------------------------------------------------------------- emulation


def emulate(variant: Variant, n: int, cancel: threading.Event | None = None, seed: int = 0,
            trace_loads: bool = False) -> EmulatedRun:
    """Run ``variant`` for problem size ``n`` in the emulator and check it against its reference.

    With ``trace_loads`` every warp is traced and each global load of the source gets its own
    sectors-per-request figure (:class:`LoadSite`).
    """
    from gpulab import simt

    spec, preset = variant.spec, variant.preset(n)
    args = spec.build_args(preset, seed)
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = spec.expected(args)
    trace = list(range(total_warps(preset))) if trace_loads else False
    try:
        result = simt.launch(spec.source, spec.entry, preset.grid, preset.block, args, trace,
                             cancel=cancel, filename=spec.file, shared_mem=preset.shared_mem)
    except simt.Cancelled:
        raise Cancelled("cancelled") from None
    outputs = {index: np.asarray(args[index]).copy() for index in expected}
    sites = global_load_sites(result.trace) if trace_loads else ()
    stores = global_load_sites(result.trace, "store") if trace_loads else ()
    return EmulatedRun(variant, preset, inputs, outputs, dict(result.metrics), spec.matches(args, expected), sites,
                       stores)


def total_warps(preset: LaunchPreset) -> int:
    """Warps in the whole launch (each block padded to whole warps)."""
    bx, by, bz = preset.block
    gx, gy, gz = preset.grid
    return gx * gy * gz * -(-(bx * by * bz) // 32)


def global_load_sites(trace: Mapping[int, Sequence[Any]], kind: str = "load") -> tuple[LoadSite, ...]:
    """Requests, sectors and bytes used of each global load (or ``kind="store"``) site, summed over
    the traced warps, in order of execution."""
    totals: dict[tuple[int, int, str], list[int]] = {}
    first: dict[tuple[int, int, str], Any] = {}
    for warp in sorted(trace):
        for step in trace[warp]:
            if step.kind == kind and step.space == "global":
                site = (step.line, step.col_start, step.buffer)
                acc = totals.setdefault(site, [0, 0, 0])
                acc[0] += 1
                acc[1] += len(step.sectors)
                acc[2] += step.active_lanes * step.itemsize
                first.setdefault(site, step)
    return tuple(LoadSite(line, col, buffer, req, sec, used, first[(line, col, buffer)])
                 for (line, col, buffer), (req, sec, used) in totals.items())


def emulated_series(series: MetricSeries, x_label: Note, variants: Sequence[Variant], n: int) -> Series:
    """An empty emulated series whose provenance names every kernel and launch."""
    launches = {v.name: {"kernel": v.entry, "grid": list(v.preset(n).grid), "block": list(v.preset(n).block)}
                for v in variants}
    details = {"kernels": [f"{v.name}: {v.launch_label(n)}" for v in variants], "launches": launches}
    return Series(render(series.label), Provenance("emulated", EMULATOR_DEVICE, details), x_label, "",
                  Note(series.y_label), series.y_unit, role="emulated", key=series.key, label=series.label)


def variant_axis_label(variants: Sequence[Variant]) -> Note:
    """The x-axis label: variant index with the names spelt out ("variant (0 = even/odd, ...)")."""
    items = [msg("axis.variant-item", index=i, name=v.text) for i, v in enumerate(variants)]
    return Note(msg("axis.variant", items=items))


def emulated_point(index: int, run: EmulatedRun, value: float, more: Mapping[str, Any] | None = None) -> Point:
    """A point at x = variant index, with the variant, its launch, any load sites and ``more`` in ``extra``."""
    extra: dict[str, Any] = {
        "variant": run.variant.name, "kernel": run.variant.entry, "grid": list(run.preset.grid),
        "block": list(run.preset.block), "matches_reference": run.matches_reference}
    if run.load_sites:
        extra["load_sites"] = [site.as_dict() for site in run.load_sites]
    return Point(index, value, extra={**extra, **(more or {})})


# ------------------------------------------------------------- GPU


def _launch_on_gpu(spec: KernelSpec, preset: LaunchPreset, args: Args, device: int) -> list[Any]:
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    device_args = cuda.to_device(args)
    kernel(preset.grid, preset.block, tuple(device_args), shared_mem=preset.shared_mem)
    return device_args


def gpu_matches_emulator(run: EmulatedRun, device: int) -> bool:
    """Run the emulated launch again on the GPU, from the same inputs, and compare the outputs."""
    cupy = cuda.require_cupy()
    spec = run.variant.spec
    with cupy.cuda.Device(device):
        device_args = _launch_on_gpu(spec, run.preset, run.inputs, device)
        return all(kernels.outputs_match(cupy.asnumpy(device_args[i]), want, spec.rtol, spec.atol)
                   for i, want in run.outputs.items())


def time_on_gpu(variant: Variant, n: int, repeats: int, device: int) -> tuple[list[float], LaunchPreset]:
    """Seconds per launch of ``variant`` at problem size ``n``, from CUDA events after warm-up."""
    cupy = cuda.require_cupy()
    spec, preset = variant.spec, variant.preset(n)
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    with cupy.cuda.Device(device):
        args = spec.build_args(preset)
        device_args = tuple(cuda.to_device(args))
        seconds = cuda.time_with_events(
            lambda: kernel(preset.grid, preset.block, device_args, shared_mem=preset.shared_mem), repeats)
    return seconds, preset


def measured_series(x_label: Note, device: int) -> Series:
    """An empty series of GPU kernel times (milliseconds), provenance ``measured``."""
    status = cuda.cuda_status()
    details = {"timing": "CUDA events after warm-up, median of repeats", "cupy": status.cupy_version,
               "cuda_runtime": status.cuda_runtime_version, "cuda_driver": status.cuda_driver_version}
    return Series(GPU_TIME_SERIES, Provenance("measured", cuda.device_name(device), details), x_label, "",
                  Note(msg("axis.kernel-time")), "ms", role="gpu", key=GPU_TIME_KEY, label=GPU_TIME_LABEL)


def gpu_point(index: int, variant: Variant, seconds: list[float], preset: LaunchPreset, matches: bool) -> Point:
    """Median kernel time in ms with its interquartile range, the launch and the output check in ``extra``."""
    median, spread = median_and_iqr([s * 1e3 for s in seconds])
    return Point(index, median, spread, extra={
        "variant": variant.name, "kernel": variant.entry, "grid": list(preset.grid), "block": list(preset.block),
        "repeats": len(seconds), "matches_emulator": matches})


# ------------------------------------------------------------- the driver


@dataclass(frozen=True)
class LabPlan:
    """Everything :func:`run_variants` needs: variants, series, sizes and notes."""

    experiment: str
    params: Mapping[str, Any]
    variants: tuple[Variant, ...]
    series: tuple[MetricSeries, ...]
    n: int
    gpu_n: int
    repeats: int
    notes: tuple[Message, ...] = ()
    trace_loads: bool = False


class _LabRun:
    """One run of a plan: the series under construction and what the checks found."""

    def __init__(self, plan: LabPlan, ctx: Context) -> None:
        self.plan, self.ctx = plan, ctx
        self.status = cuda.cuda_status()
        self.device = ctx.device_index or 0
        x_label = variant_axis_label(plan.variants)
        self.series = {s.key: emulated_series(s, x_label, plan.variants, plan.n) for s in plan.series}
        if self.status.available:
            self.series[GPU_TIME_KEY] = measured_series(x_label, self.device)
        self.reference_mismatches: list[Message | str] = []
        self.gpu_mismatches: list[Message | str] = []

    def add(self, key: str, point: Point) -> PartialPoint:
        series = self.series[key] = self.series[key].with_point(point)
        name = Note(series.label) if series.label is not None else series.name
        return PartialPoint(name, point, series.provenance)

    def emulate(self, index: int, variant: Variant) -> Generator[Event, None, EmulatedRun]:
        self.ctx.check_cancelled()
        run = emulate(variant, self.plan.n, self.ctx.cancel_event, trace_loads=self.plan.trace_loads)
        if not run.matches_reference:
            self.reference_mismatches.append(variant.text)
        for s in self.plan.series:
            yield self.add(s.key, emulated_point(index, run, s.value(run), s.extra(run) if s.extra else None))
        return run

    def measure(self, index: int, run: EmulatedRun) -> Generator[Event, None, None]:
        matches = gpu_matches_emulator(run, self.device)
        if not matches:
            self.gpu_mismatches.append(run.variant.text)
        seconds, preset = time_on_gpu(run.variant, self.plan.gpu_n, self.plan.repeats, self.device)
        yield self.add(GPU_TIME_KEY, gpu_point(index, run.variant, seconds, preset, matches))

    def result(self) -> Result:
        reason = self.status.reason_message or self.status.reason
        notes = [*self.plan.notes, EMULATOR_NOTE, _reference_note(self.reference_mismatches),
                 _gpu_note(self.status.available, reason, self.gpu_mismatches, self.plan.gpu_n)]
        return Result(self.plan.experiment, self.plan.params, tuple(self.series.values()), tuple(notes))


# What emulating one thread takes in this computer's memory, the arguments and every lane's
# registers together: 190-300 bytes measured for the reduction lab at n = 2^16 and 2^18 (peak RSS
# growth per thread); twice that leaves room for the kernels with more registers.
EMULATED_BYTES_PER_THREAD = 600


def check_emulation_fits(n: int, free_bytes: int | None) -> None:
    """ParamError, before anything is allocated, when emulating ``n`` threads would not fit in
    :data:`MEMORY_SHARE` of the free memory (nothing is checked when that is unknown)."""
    need = n * EMULATED_BYTES_PER_THREAD
    if free_bytes and need > free_bytes * MEMORY_SHARE:
        raise ParamError(msg("lab.error.emulation-too-big", n=size_text(n), need=bytes_text(need),
                             free=bytes_text(free_bytes)))  # fmt: skip


def run_variants(plan: LabPlan, ctx: Context) -> ExperimentGen:
    """Emulate every variant (and time it on the GPU when one is usable); return the Result.

    Yields progress before each variant and a partial point per series after it, so a run
    can be cancelled between variants; a launch in progress polls the cancel flag too.
    """
    check_emulation_fits(plan.n, hostmem.available_memory_bytes())
    lab = _LabRun(plan, ctx)
    steps = len(plan.variants)
    for index, variant in enumerate(plan.variants):
        yield Progress(index / steps, msg("progress.emulating", variant=variant.text))
        run = yield from lab.emulate(index, variant)
        if lab.status.available:
            yield Progress((index + 0.5) / steps, msg("progress.timing", variant=variant.text))
            yield from lab.measure(index, run)
    yield Progress(1.0, msg("progress.done"))
    return lab.result()


def _reference_note(mismatches: list[Message | str]) -> Message:
    if not mismatches:
        return msg("note.emulated.reference-matched")
    return msg("note.emulated.reference-differs", names=mismatches)


def _gpu_note(available: bool, reason: Message | str, mismatches: list[Message | str], gpu_n: int) -> Message:
    if not available:
        return msg("note.no-measured-gpu", reason=reason)
    if mismatches:
        return msg("note.emulated.gpu-differs", names=mismatches, size=gpu_n)
    return msg("note.emulated.gpu-matched", size=gpu_n)
