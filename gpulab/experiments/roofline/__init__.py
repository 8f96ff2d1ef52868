"""Roofline: is each lab kernel bound by memory or by arithmetic, and how far below its roof is it?

Every kernel of the catalogue is counted by the SIMT emulator at two small sizes (FLOPs and
global-memory bytes, exactly; see :mod:`gpulab.lab.kernel_work`), its counts are
scaled by its stated complexity to a teaching size, and the kernel is placed on a log-log
chart: x = arithmetic intensity (FLOP per byte), y = attained GFLOP/s.

- GPU roof: the chosen GPU's spec sheet (fp32 CUDA-core peak, DRAM bandwidth), provenance
  ``modelled``; the kernels' points under it are modelled from the roofline formula
  (:func:`gpulab.model.kernel_time`), their bytes at the achievable bandwidth (the share of the
  spec sheet a published streaming benchmark reached, :func:`gpulab.model.memory_share`), so a
  memory-bound one sits below the roof by that share and the assumed launch overhead.
- Two bounds per kernel: its point is placed by the byte count ``traffic`` names (by default
  ``sectors``: no reuse, every 32-byte sector its warps fetch comes from DRAM), and where the
  other count differs (the matmuls) a second modelled point, series ``kernels-model-other``,
  sits at that count (``unique``: ideal reuse, each byte crosses DRAM once, an upper bound). The
  chart joins the two. The verdict (bound, percent of roof) is the first point's: a kernel that
  stages no reuse of its own lands near its no-reuse point, as published SGEMM measurements
  show (:func:`published_efficiency`, from the lab's validation rows).
- With a usable GPU each kernel is also timed at the teaching size with CUDA events
  (``measured``) and placed under that GPU's own roof when the spec table knows it.
- CPU roof: this machine's BLAS matmul GFLOP/s and triad GB/s measured in this run
  (:mod:`gpulab.lab.cpu_peaks`).

Each kernel point's ``extra`` holds its entry, the preset the warp visualizer opens, FLOPs,
bytes (both counts), seconds, ``bound`` and ``percent_of_roof``. A kernel without
floating-point work has intensity 0: it has no place on a FLOP chart (x = y = 0 in the
series) and is listed with the bandwidth it reaches.

    >>> from gpulab.experiments import drive, roofline
    >>> result = drive(roofline.run(roofline.Params(measure_cpu=False), roofline.Context()))
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from gpulab import cuda, kernels, published, simt
from gpulab.catalogue import Message, Note, msg, render
from gpulab.experiments.roofline import gpu as roofline_gpu
from gpulab.lab.base import (
    CheckedParams,
    Context,
    Event,
    ExperimentGen,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    resolve_model_gpu,
)
from gpulab.lab.cpu_peaks import CpuPeaks, measure_cpu_peaks
from gpulab.lab.declare import Lab, kernel, kernel_catalogue
from gpulab.lab.kernel_work import KernelWork, count_work, problem_size, scaled_preset
from gpulab.lab.sweep import numpy_cpu_provenance
from gpulab.model import DEFAULT_LAUNCH_OVERHEAD_S, kernel_time, memory_share, peak_for, place, roof_at
from gpulab.results import Point, Provenance, Result, Series

TITLE = render("experiment.roofline.title")
DESCRIPTION = render("experiment.roofline.description")

X_LABEL, X_UNIT = Note(msg("axis.arithmetic-intensity")), "FLOP/byte"
Y_LABEL, Y_UNIT = Note(msg("axis.attained-flops")), "GFLOP/s"
CHART_X_RANGE = (1 / 32, 4096.0)  # FLOP/byte; widened to hold every point and ridge
MAX_ELEMENTS = 1 << 26
OTHER_TRAFFIC = {"sectors": "unique", "unique": "sectors"}
TRAFFIC_SERIES = {"unique": "series.roofline.kernels-model-unique", "sectors": "series.roofline.kernels-model-sectors"}
TWO_POINTS_NOTE = {"sectors": "note.roofline.two-points-sectors", "unique": "note.roofline.two-points-unique"}
DISTINCT_INTENSITY = 1.05  # the two counts draw two points only when they differ by more than 5%
ROW_MODEL = "roofline-kernel-gflops"  # the evaluator of this lab's validation rows


@dataclass(frozen=True)
class Params(CheckedParams):
    """``elements``: the teaching size every kernel is scaled to (output elements; an N×N kernel
    gets N = sqrt(elements)). ``traffic``: which byte count places the points and gives the
    verdict (``sectors``: every 32-byte sector each warp fetches, no reuse; ``unique``: each byte
    once, ideal reuse); the other count is drawn as each kernel's second point."""

    model_gpu: str = param("h100-sxm")
    dtype: Literal["fp32"] = param("fp32")
    elements: int = param(1 << 24, min=1 << 10, max=MAX_ELEMENTS)
    traffic: Literal["sectors", "unique"] = param("sectors")
    measure_cpu: bool = param(True)
    measure_gpu: bool = param(True, needs_gpu=True)
    repeats: int = param(5, min=1, max=1000)


@dataclass(frozen=True)
class Roof:
    """A roof: peak FLOP/s and bandwidth in bytes/s."""

    peak_flop_per_s: float
    bandwidth_bytes_per_s: float

    @property
    def ridge(self) -> float:
        return self.peak_flop_per_s / self.bandwidth_bytes_per_s


@dataclass(frozen=True)
class Placed:
    """One kernel ready to place: its work at the teaching size and what its point shows."""

    work: KernelWork
    n: int
    flops: float
    bytes_moved: float

    @property
    def entry(self) -> str:
        return self.work.entry

    def with_traffic(self, traffic: str) -> Placed:
        """The same kernel placed by another byte count."""
        return Placed(self.work, self.n, self.flops, self.work.bytes(self.n, traffic))


def placed_kernel(work: KernelWork, elements: int, traffic: str) -> Placed:
    """A counted kernel at the teaching size of ``elements``, its bytes counted as ``traffic``."""
    n = problem_size(work.complexity, elements)
    return Placed(work, n, work.flops(n), work.bytes(n, traffic))


def modelled_seconds(spec: Any, placed: Placed) -> float:
    """The roofline model's time of one launch of a placed kernel on ``spec`` (fp32 CUDA cores)."""
    return kernel_time(spec, placed.flops, placed.bytes_moved, "fp32", use_tensor_cores=False).seconds


def modelled_gflop_s(entry: str, model_gpu: str, elements: int, traffic: str) -> float:
    """GFLOP/s the lab models for catalogue kernel ``entry`` at ``elements`` on ``model_gpu``,
    its bytes counted as ``traffic`` (what a validation row compares)."""
    work = count_work(kernels_spec(entry))
    placed = placed_kernel(work, elements, traffic)
    return placed.flops / modelled_seconds(resolve_model_gpu(model_gpu), placed) / 1e9


# ------------------------------------------------------------- points and roofs


def kernel_point(placed: Placed, seconds: float, roof: Roof | None, traffic: str, **extra: Any) -> Point:
    """A kernel's point: x = intensity, y = attained GFLOP/s (0, 0 without FLOPs), and in ``extra``
    its bound and distance below ``roof`` (None for both without a roof)."""
    spec = kernels_spec(placed.entry)
    flops, moved = placed.flops, placed.bytes_moved
    facts: dict[str, Any] = {"bound": None, "percent_of_roof": None, "roof_gflop_s": None}
    if roof is not None:
        spot = place(flops, moved, seconds, roof.peak_flop_per_s, roof.bandwidth_bytes_per_s)
        facts = {"bound": spot.bound, "percent_of_roof": spot.percent_of_roof,
                 "roof_gflop_s": spot.roof_flop_per_s / 1e9}
    intensity = flops / moved if moved else 0.0
    return Point(intensity, flops / seconds / 1e9, extra={
        "entry": placed.entry, "label": placed.entry, "title": spec.title, "preset": spec.smallest_preset.name,
        "n": placed.n, "square": placed.work.complexity.square, "flops": flops, "bytes": moved,
        "traffic": traffic, "unique_bytes": placed.work.bytes(placed.n, "unique"),
        "sector_bytes": placed.work.bytes(placed.n, "sectors"), "seconds": seconds,
        "attained_gb_s": moved / seconds / 1e9, **facts,
        "counted_sizes": list(placed.work.counted_sizes), "complexity_stated": placed.work.complexity.stated,
        **extra})  # fmt: skip


def kernels_spec(entry: str) -> kernels.KernelSpec:
    return kernel(entry)


def roof_points(roof: Roof, x_range: tuple[float, float]) -> tuple[Point, ...]:
    """The roof as three points: its foot at the left edge, the ridge, and the right edge."""
    lo, hi = x_range
    facts = {"peak_gflop_s": roof.peak_flop_per_s / 1e9, "bandwidth_gb_s": roof.bandwidth_bytes_per_s / 1e9,
             "ridge_flop_per_byte": roof.ridge}
    return tuple(Point(x, roof_at(x, roof.peak_flop_per_s, roof.bandwidth_bytes_per_s) / 1e9,
                       extra={**facts, "part": part})
                 for x, part in ((lo, "memory"), (roof.ridge, "ridge"), (hi, "compute")))  # fmt: skip


def chart_range(intensities: list[float]) -> tuple[float, float]:
    """The x range of the roofs: :data:`CHART_X_RANGE` widened by a factor 2 past every intensity."""
    shown = [x for x in intensities if x > 0 and math.isfinite(x)]
    lo = min([CHART_X_RANGE[0], *(x / 2 for x in shown)])
    hi = max([CHART_X_RANGE[1], *(x * 2 for x in shown)])
    return 2.0 ** math.floor(math.log2(lo)), 2.0 ** math.ceil(math.log2(hi))


def _series(label: Message, key: str, role: str, provenance: Provenance, points: tuple[Point, ...] = ()) -> Series:
    return Series(render(label), provenance, X_LABEL, X_UNIT, Y_LABEL, Y_UNIT, points, role=role, key=key,
                  label=label)  # a Note: a str that keeps its message, re-rendered in any language


# ------------------------------------------------------------- the run


class _Run:
    """One roofline run: the counted kernels, the series being filled, and the notes."""

    def __init__(self, params: Params, ctx: Context) -> None:
        self.params, self.ctx = params, ctx
        self.spec = resolve_model_gpu(params.model_gpu)
        self.roof = gpu_roof(self.spec)
        self.placed: list[Placed] = []
        self.skipped: list[str] = []
        self.unstated: list[str] = []
        self.series: dict[str, Series] = {}
        self.notes: list[Message] = []
        self.local_roofs: list[tuple[str, Series]] = []  # the local GPU's, when it is not the modelled one

    def count(self) -> Generator[Event, None, None]:
        table = kernel_catalogue()
        for index, (entry, spec) in enumerate(table.items()):
            yield Progress(0.5 * index / len(table), msg("progress.roofline.counting", name=entry))
            self.ctx.check_cancelled()
            try:
                work = count_work(spec, self.ctx.cancel_event)
            except (kernels.CatalogueError, simt.SimtError):
                self.skipped.append(entry)
                continue
            if not work.complexity.stated:
                self.unstated.append(entry)
            self.placed.append(placed_kernel(work, self.params.elements, self.params.traffic))

    def modelled(self) -> Generator[Event, None, None]:
        label = msg("series.roofline.kernels-model")
        provenance = Provenance("modelled", self.spec.name, {
            "formula": "time = max(FLOP / fp32 peak, bytes / achievable memory bandwidth) + launch overhead",
            "spec_key": self.spec.key, "traffic": self.params.traffic})
        published = published_efficiency()
        points, others = [], []
        for placed in self.placed:
            other = self.other_point(placed)
            others += [other] if other is not None else []
            facts: dict[str, Any] = {"published": published.get(placed.entry, [])}
            if other is not None:
                facts |= {"other_traffic": other.extra["traffic"], "other_intensity": other.x,
                          "other_gflop_s": other.y, "other_bound": other.extra["bound"]}  # fmt: skip
            points.append(kernel_point(placed, modelled_seconds(self.spec, placed), self.roof, self.params.traffic,
                                       **facts))  # fmt: skip
            yield PartialPoint(Note(label), points[-1], provenance)
        self.series["kernels-model"] = _series(label, "kernels-model", "model", provenance, tuple(points))
        yield from self.other_series(provenance, others)

    def other_point(self, placed: Placed) -> Point | None:
        """The kernel placed by the other byte count, when that moves it (a kernel with FLOPs whose
        two counts differ by more than :data:`DISTINCT_INTENSITY`), else None."""
        traffic = OTHER_TRAFFIC[self.params.traffic]
        other = placed.with_traffic(traffic)
        if not placed.flops or not placed.bytes_moved or not other.bytes_moved:
            return None
        ratio = max(placed.bytes_moved, other.bytes_moved) / min(placed.bytes_moved, other.bytes_moved)
        if ratio <= DISTINCT_INTENSITY:
            return None
        return kernel_point(other, modelled_seconds(self.spec, other), self.roof, traffic, pair_of=placed.entry)

    def other_series(self, provenance: Provenance, points: list[Point]) -> Generator[Event, None, None]:
        """The kernels' second points, by the other byte count, as a series of their own."""
        traffic = OTHER_TRAFFIC[self.params.traffic]
        label = msg(TRAFFIC_SERIES[traffic])
        other = Provenance("modelled", self.spec.name, {**provenance.details, "traffic": traffic})
        for point in points:
            yield PartialPoint(Note(label), point, other)
        if points:
            self.series["kernels-model-other"] = _series(label, "kernels-model-other", "model", other, tuple(points))

    def measured(self) -> Generator[Event, None, None]:
        """Every placed kernel timed on the context's GPU, placed under that GPU's roof (when the spec
        table knows it, drawn too unless it is the modelled GPU's)."""
        gpu = roofline_gpu.local_gpu(self.ctx)
        roof = gpu_roof(gpu.spec) if gpu.spec is not None else None
        launches = [roofline_gpu.Launch(kernels_spec(p.entry), teaching_preset(p)) for p in self.placed]

        def point_of(index: int, seconds: list[float]) -> Point:
            iqr = float(np.subtract(*np.percentile(seconds, [75, 25])))
            return kernel_point(self.placed[index], float(np.median(seconds)), roof, self.params.traffic,
                                repeats=len(seconds), seconds_iqr=iqr)  # fmt: skip

        timed = yield from roofline_gpu.measure(launches, self.params.repeats, gpu, self.ctx, point_of)
        self.series["kernels-gpu"] = _series(msg("series.roofline.kernels-gpu"), "kernels-gpu", "gpu",
                                             roofline_gpu.provenance(gpu), tuple(timed.points))  # fmt: skip
        self.notes.extend(timed.notes)
        if gpu.spec is not None and gpu.spec.key != self.spec.key:
            self.local_roofs.append(("gpu-local-roof", local_roof_series(gpu.spec)))

    def result(self, extra_roofs: list[tuple[str, Series]]) -> Result:
        intensities = [p.x for s in self.series.values() for p in s.points]
        x_range = chart_range([*intensities, self.roof.ridge])
        label = msg("series.roofline.gpu-roof", gpu=self.spec.name)
        provenance = Provenance("modelled", self.spec.name, {"source": "spec sheet (resources/gpus.toml)",
                                                             "peak": "fp32 CUDA cores", "spec_key": self.spec.key})
        roofs = {"gpu-roof": _series(label, "gpu-roof", "model", provenance, roof_points(self.roof, x_range))}
        for key, series in extra_roofs:
            roofs[key] = replace(series, points=roof_points(_roof_of(series), x_range))
        everything = (*roofs.values(), *self.series.values())
        return Result("roofline", params_to_dict(self.params), everything, tuple(self.all_notes()))

    def all_notes(self) -> list[Message]:
        no_flop = [p.entry for p in self.placed if p.flops == 0]
        bytes_note = "note.roofline.bytes-unique" if self.params.traffic == "unique" else "note.roofline.bytes-sectors"
        launch_us = f"{DEFAULT_LAUNCH_OVERHEAD_S * 1e6:g}"
        notes = [msg("note.roofline.counted", size=self.params.elements, side=math.isqrt(self.params.elements)),
                 msg(bytes_note), msg(TWO_POINTS_NOTE[self.params.traffic]),
                 self.modelled_note(launch_us), *self.published_notes(), *self.notes]
        if no_flop:
            notes.append(msg("note.roofline.no-flops", names=no_flop))
        if self.unstated:
            notes.append(msg("note.roofline.unstated", names=self.unstated))
        if self.skipped:
            notes.append(msg("note.roofline.skipped", names=self.skipped))
        return notes


    def modelled_note(self, launch_us: str) -> Message:
        """Which bandwidth is the roof (the spec sheet's) and which prices the modelled points (the
        achievable one, :func:`gpulab.model.memory_share`)."""
        share = memory_share(self.spec)
        return msg("note.roofline.modelled-below-roof", peak=f"{self.spec.memory_bandwidth_gb_s:g}",
                   gb_s=f"{share.gb_s:.0f}", percent=share.percent, us=launch_us)  # fmt: skip

    def published_notes(self) -> list[Message]:
        """What kernels like the lab's matmuls reached in published measurements, as a share of
        their GPU's fp32 peak."""
        found = published_efficiency()
        items = [msg("note.roofline.published-item", name=entry, gflops=f"{item['gflop_s']:.0f}",
                     percent=f"{item['percent_of_peak']:.1f}", gpu=item["gpu"])
                 for entry in sorted(found) for item in found[entry]]  # fmt: skip
        return [msg("note.roofline.published", items=items)] if items else []


def published_efficiency() -> dict[str, list[dict[str, Any]]]:
    """Published rates of kernels like the catalogue's, by entry: from the validation rows of this
    lab (model :data:`ROW_MODEL`), each measurement once, with the GPU it ran on and its share of
    that GPU's fp32 peak. Empty when the rows cannot be read."""
    try:
        rows = [row for row in published.rows_for("roofline") if row.model == ROW_MODEL and row.published is not None]
    except (published.ValidationFormatError, OSError):
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        figure = row.published
        if figure is None:
            continue
        value = figure.low if figure.low is not None else figure.high  # a bound's one figure
        if value is None:
            continue
        spec = resolve_model_gpu(str(row.config["gpu"]))
        entry = str(row.config["kernel"])
        item = {"gflop_s": value, "gpu": spec.name, "percent_of_peak": 100 * value / (spec.peak_tflops["fp32"] * 1e3),
                "source": row.source.title if row.source else "", "locator": row.locator}  # fmt: skip
        known = found.setdefault(entry, [])
        if not any((seen["gpu"], seen["gflop_s"]) == (item["gpu"], item["gflop_s"]) for seen in known):
            known.append(item)
    return found


def gpu_roof(spec: Any) -> Roof:
    """The fp32 CUDA-core roof of a spec-table GPU (the lab kernels are fp32, no tensor cores)."""
    _key, tflops, _note = peak_for(spec, "fp32", use_tensor_cores=False)
    return Roof(tflops * 1e12, spec.memory_bandwidth_bytes_per_s)


def local_roof_series(spec: Any) -> Series:
    """The roof of the local GPU (its spec sheet), drawn besides the modelled GPU's."""
    label = msg("series.roofline.gpu-roof", gpu=spec.name)
    provenance = Provenance("modelled", spec.name, {"source": "spec sheet (resources/gpus.toml)",
                                                    "peak": "fp32 CUDA cores", "spec_key": spec.key})
    return _series(label, "gpu-local-roof", "gpu", provenance, roof_points(gpu_roof(spec), CHART_X_RANGE))


def _roof_of(series: Series) -> Roof:
    facts = series.points[0].extra
    return Roof(facts["peak_gflop_s"] * 1e9, facts["bandwidth_gb_s"] * 1e9)


def cpu_roof_series(peaks: CpuPeaks) -> Series:
    """The CPU's measured roof (points are filled in once the chart's x range is known)."""
    base = numpy_cpu_provenance("best of repeats (as STREAM reports a peak)")
    details = {**base.details, "gemm": f"float32 matmul N={peaks.gemm_n}", "gflop_s": peaks.gflop_s,
               "triad": f"a = b + s*c, {peaks.triad_elements} float32 elements, {peaks.triad_method}",
               "gb_s": peaks.gb_s}  # fmt: skip
    roof = Roof(peaks.gflop_s * 1e9, peaks.gb_s * 1e9)
    return _series(msg("series.roofline.cpu-roof"), "cpu-roof", "cpu", Provenance("measured", base.device, details),
                   roof_points(roof, CHART_X_RANGE))


def cpu_notes(peaks: CpuPeaks) -> list[Message]:
    notes = [msg("note.roofline.cpu-roof", gflops=f"{peaks.gflop_s:.0f}", n=peaks.gemm_n, gb_s=f"{peaks.gb_s:.1f}",
                 mib=peaks.triad_elements * 4 >> 20, ridge=f"{peaks.ridge_flop_per_byte:.1f}")]
    if peaks.triad_method == "numexpr":
        notes.append(msg("note.roofline.triad-numexpr"))
    elif peaks.triad_method == "numpy":
        notes.append(msg("note.roofline.triad-numpy"))
    return notes


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Count every kernel, place it under the chosen GPU's roof (and a local GPU's), add the CPU roof."""
    lab = _Run(params, ctx)
    yield from lab.count()
    yield from lab.modelled()
    roofs: list[tuple[str, Series]] = []
    if params.measure_cpu:
        yield Progress(0.6, msg("progress.roofline.cpu-peaks"))
        peaks = measure_cpu_peaks(min(params.repeats, 5), ctx.check_cancelled)
        roofs.append(("cpu-roof", cpu_roof_series(peaks)))
        lab.notes.extend(cpu_notes(peaks))
    status = cuda.cuda_status()
    if not status.available:
        lab.notes.append(msg("note.no-measured-gpu", reason=status.reason_message or status.reason))
    elif params.measure_gpu:
        yield from lab.measured()
    yield Progress(1.0, msg("progress.done"))
    return lab.result([*roofs, *lab.local_roofs])


def teaching_preset(placed: Placed) -> kernels.LaunchPreset:
    """The launch of a placed kernel at its teaching size."""
    return scaled_preset(placed.work.base, placed.n, placed.work.complexity.square)


def argument_bytes(args: list[Any]) -> int:
    return sum(a.nbytes for a in args if isinstance(a, np.ndarray))


LAB = Lab("roofline", section="memory", order=30, page="roofline", quick=("elements=1048576", "repeats=3"))
