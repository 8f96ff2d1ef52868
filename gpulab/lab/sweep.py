"""A size sweep: several series (CPU, GPU, modelled GPU) measured or modelled at each size.

The labs that sweep a size (matmul, vector add, SAXPY, bandwidth, launch, fusion, transfer) all
do the same thing: for every size, make the inputs once, ask each series for its point,
yield the point so the curve grows live, and at the end say from which size each GPU series
beats the best CPU series. An experiment describes its series declaratively
(:class:`SweepSeries`: name, role, provenance, point maker) and hands them to
:func:`run_sweep` (points and the crossover notes) or :func:`sweep_points` (points only, for a
lab that writes its own result), the generators that drive them.

    >>> sweep = Sweep("toy", params, AXES, series, unit="n")
    >>> result = yield from run_sweep(sweep, params.sizes)

What a lab needs beyond that is a policy, each optional and independent:

- a series may have **no point at a size** (its maker returns None: too large for the GPU);
- **a failure stops a series, not the run** (:class:`OnError`): its points so far stay, the
  series (or every series of its group, e.g. all that share one GPU) is asked for nothing more,
  and the sweep records where and why (:class:`Stopped`) for the lab's note;
- **per-size set-up and release** (:attr:`Sweep.operands`, :attr:`Sweep.release`): inputs made
  once per size for every series, freed when the size is done (also when the run ends early);
- **an implausible point is measured again** (:class:`Remeasure`): under load a CPU point can
  swing 100-1000x, so a point the series' own check rejects is measured up to ``times`` more,
  and if it stays implausible it is kept *flagged* (``noisy``, reason ``implausible``), so the
  plot and the noise note say so instead of drawing it as clean.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpulab import cuda, hostmem
from gpulab.catalogue import Message, Note, msg
from gpulab.hostmem import bytes_text
from gpulab.lab.base import Cancelled, Event, ExperimentGen, ParamError, PartialPoint, Progress, params_to_dict
from gpulab.measure import (
    Ceiling,
    ceiling_details,
    crossover_notes,
    flagged,
    flagged_headline,
    gpu_bandwidth_ceiling,
    modelled_point,
    noisy_notes,
    size_text,
    what_if_copied_note,
)
from gpulab.results import Point, Provenance, Result, Series, merge_notes

__all__ = [
    "Axes",
    "OnError",
    "Remeasure",
    "Stopped",
    "Sweep",
    "SweepSeries",
    "Swept",
    "WhatIfCopied",
    "drop_from_previous",
    "estimate_point",
    "gpu_bandwidth_ceiling_of",
    "gpu_details",
    "numpy_cpu_provenance",
    "run_sweep",
    "sweep_points",
]


@dataclass(frozen=True)
class Axes:
    """Labels (catalogue messages) and units every series of a sweep shares (the panel's axis titles)."""

    x_label: Message | str
    x_unit: str
    y_label: Message | str
    y_unit: str


@dataclass(frozen=True)
class Stopped:
    """Where and why a failure stopped a series (and its group): the failing series' key and
    label, the size it failed at, the error as ``"Type: text"``, and the lab's note on it."""

    group: str
    key: str
    label: Message | str
    size: int
    error: str
    note: Message | None = None


@dataclass(frozen=True)
class OnError:
    """A series' failure policy: an error from its point maker stops it, and every series of
    the same ``group`` ("" : this series alone), from that size on; the points so far stay and
    the sweep records a :class:`Stopped` (with ``note(stopped)`` when given). Cancelling and a
    parameter error always end the run, as do the ``fatal`` types (say MemoryError on the host:
    not one series' fault). Without a policy an error ends the run."""

    group: str = ""
    fatal: tuple[type[BaseException], ...] = ()
    note: Callable[[Stopped], Message] | None = None


def _higher(point: Point, again: Point) -> Point:
    return again if again.y > point.y else point


@dataclass(frozen=True)
class Remeasure:
    """A series' plausibility policy: ``implausible(point, previous)`` says why a point cannot be
    right (``previous``: the series' point at the size before, or None), or None. Such a point
    is measured again up to ``times`` times, keeping the ``better`` of the two each time (by
    default the higher y: load only slows a measurement down), and ``extra['remeasured']``
    counts the tries; one still implausible after them is kept flagged ``implausible`` with the
    reason in ``extra['implausible']``."""

    implausible: Callable[[Point, Point | None], str | None]
    times: int = 2
    better: Callable[[Point, Point], Point] = _higher


def drop_from_previous(factor: float) -> Callable[[Point, Point | None], str | None]:
    """An ``implausible`` check for :class:`Remeasure`: a y under 1/``factor`` of the series'
    y at the size before (the reason ``drop-from-previous-size``)."""

    def check(point: Point, previous: Point | None) -> str | None:
        if previous is not None and previous.x < point.x and point.y * factor < previous.y:
            return "drop-from-previous-size"
        return None

    return check


@dataclass(frozen=True)
class SweepSeries:
    """One curve of a sweep: its ``label`` (a catalogue message; a plain name for a script's own
    series), role (cpu, gpu or model), provenance, ``make_point(size, operands)`` that times or
    models it at one size (None: no point at this size), a stable ``key`` (the name when not
    given), and its policies on failure and on implausible points. Its ``name`` is the label's
    English."""

    label: Message | str
    role: str
    provenance: Provenance
    make_point: Callable[[int, Any], Point | None]
    key: str = ""
    on_error: OnError | None = None
    remeasure: Remeasure | None = None

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", str(self.name))

    @property
    def name(self) -> str:
        """The display name: the label's English, as a :class:`Note` carrying the label."""
        return Note(self.label) if isinstance(self.label, Message) else self.label


@dataclass(frozen=True)
class WhatIfCopied:
    """For a sweep that leaves the PCIe copies out: the modelled GPU's name and its
    seconds per size *with* the copies, for the "with the copies counted" note."""

    gpu_name: str
    seconds_with_copies: Callable[[int], float]


def _no_operands(_size: int) -> None:
    return None


def _nothing_to_release(_size: int, _operands: Any) -> None:
    return None


def _name_and_size(series: SweepSeries, size: int) -> Message:
    return msg("progress.series-n", series=series.label, size=size)


@dataclass
class Sweep:
    """What :func:`run_sweep` runs.

    ``operands(size)`` makes the inputs once per size, shared by every series, and
    ``release(size, operands)`` frees what they hold once every series has had that size (also
    when the run stops there); ``progress`` words the status line of one series at one size, and
    its fraction runs over ``progress_span``; ``unit`` names the size in the crossover notes
    ("N" or "n"); ``note_groups`` follow the crossover notes, in order. ``host_bytes(size)``,
    when given, is what one size's operands and its series' work take in this computer's memory:
    :func:`run_sweep` leaves out the sizes that would not fit in it, before anything runs."""

    experiment: str
    params: Any
    axes: Axes
    series: list[SweepSeries]
    unit: str = "N"
    operands: Callable[[int], Any] = _no_operands
    progress: Callable[[SweepSeries, int], Message | str] = _name_and_size
    release: Callable[[int, Any], None] = _nothing_to_release
    progress_span: tuple[float, float] = (0.0, 1.0)
    what_if_copied: WhatIfCopied | None = None
    note_groups: Sequence[Sequence[Message | str]] = field(default_factory=tuple)
    host_bytes: Callable[[int], int] | None = None

    def empty_series(self, declared: SweepSeries) -> Series:
        axes = self.axes
        label = declared.label if isinstance(declared.label, Message) else None
        return Series(str(declared.name), declared.provenance, _axis(axes.x_label), axes.x_unit,
                      _axis(axes.y_label), axes.y_unit, role=declared.role, key=declared.key,
                      label=label)  # fmt: skip


def _axis(label: Message | str) -> str:
    """An axis label as a Series keeps it: the English, carrying its message when it has one."""
    return Note(label) if isinstance(label, Message) else label


@dataclass
class Swept:
    """What :func:`sweep_points` hands back: the series with their points, in the declared order,
    and what stopped any of them."""

    series: dict[str, Series]
    stopped: list[Stopped] = field(default_factory=list)

    def stopped_notes(self) -> list[Message]:
        """The notes of the stopped series, in the order they stopped."""
        return [s.note for s in self.stopped if s.note is not None]

    def stopped_in(self, group: str) -> Stopped | None:
        """What stopped ``group`` (a group name, or a series' key for one alone), or None."""
        return next((s for s in self.stopped if s.group == group), None)


def run_sweep(sweep: Sweep, sizes: Sequence[int]) -> ExperimentGen:
    """Every series at every size, yielding each point as soon as it is known; returns the
    Result with the notes of any stopped series, the noise notes, one crossover note per GPU or
    modelled series (and the what-if-copied note), read from clean points only; a run with
    flagged points leads with a note saying they were left out."""
    sizes, memory_notes = sizes_that_fit(sweep, sizes, hostmem.available_memory_bytes())
    swept = yield from sweep_points(sweep, sizes)
    yield Progress(1.0, msg("progress.done"))
    result = Result(sweep.experiment, params_to_dict(sweep.params), tuple(swept.series.values()))
    headline = _flagged_headline(result)
    notes = merge_notes(headline, memory_notes, swept.stopped_notes(), noisy_notes(result, sweep.unit),
                        _crossings(sweep, result, sizes), *sweep.note_groups)  # fmt: skip
    return Result(sweep.experiment, result.params, result.series, notes)


# The share of the memory free now that one size may take: the rest is left to the system, the
# window and the measurements' own temporaries.
MEMORY_SHARE = 0.8


def sizes_that_fit(sweep: Sweep, sizes: Sequence[int], free_bytes: int | None) -> tuple[list[int], list[Message]]:
    """The sizes whose ``host_bytes`` fit in :data:`MEMORY_SHARE` of ``free_bytes`` (all of them
    when either is unknown) and a note naming the ones left out; ParamError when none fits, so a
    size that cannot be allocated is refused before the run instead of failing in it."""
    if sweep.host_bytes is None or not free_bytes:
        return list(sizes), []
    budget = int(free_bytes * MEMORY_SHARE)
    fitting = [size for size in sizes if sweep.host_bytes(size) <= budget]
    if len(fitting) == len(sizes):
        return fitting, []
    left_out = [size for size in sizes if size not in fitting]
    facts = {"unit": sweep.unit, "sizes": ", ".join(size_text(size) for size in left_out),
             "need": bytes_text(sweep.host_bytes(left_out[0])), "free": bytes_text(free_bytes)}  # fmt: skip
    if not fitting:
        raise ParamError(msg("sweep.error.no-size-fits", **facts))
    return fitting, [msg("note.sweep.sizes-left-out", **facts)]


def sweep_points(sweep: Sweep, sizes: Sequence[int]) -> Generator[Event, None, Swept]:
    """Every series at every size in order, each point yielded as soon as it is known, under
    the series' policies (see the module's docstring); returns the series and what stopped."""
    swept = Swept({s.key: sweep.empty_series(s) for s in sweep.series})
    count = len(sweep.series)
    steps, (start, end) = max(1, len(sizes) * count), sweep.progress_span
    for i, size in enumerate(sizes):
        operands = sweep.operands(size)
        try:
            for j, declared in enumerate(sweep.series):
                if _is_stopped(declared, swept):
                    continue
                fraction = start + (end - start) * (i * count + j) / steps
                yield Progress(fraction, sweep.progress(declared, size))
                point = _guarded(declared, size, operands, swept)
                if point is not None:
                    swept.series[declared.key] = swept.series[declared.key].with_point(point)
                    yield PartialPoint(declared.name, point, declared.provenance)
        finally:
            sweep.release(size, operands)
    return swept


def _group(declared: SweepSeries) -> str | None:
    policy = declared.on_error
    return None if policy is None else policy.group or declared.key


def _is_stopped(declared: SweepSeries, swept: Swept) -> bool:
    group = _group(declared)
    return group is not None and swept.stopped_in(group) is not None


ALWAYS_FATAL = (Cancelled, ParamError)
"""Errors no series policy keeps: the user cancelled, or asked for something impossible."""


def _guarded(declared: SweepSeries, size: int, operands: Any, swept: Swept) -> Point | None:
    """The series' point at ``size`` (remeasured if implausible), or None; a failure the series'
    policy keeps is recorded in ``swept`` and gives None."""
    policy = declared.on_error
    if policy is None:
        return _checked_point(declared, size, operands, swept)
    fatal: tuple[type[BaseException], ...] = (*ALWAYS_FATAL, *policy.fatal)
    try:
        return _checked_point(declared, size, operands, swept)
    except fatal:
        raise
    except Exception as exc:  # a driver, compiler or library error: this series (group) stops here
        stopped = Stopped(policy.group or declared.key, declared.key, declared.label, size,
                          f"{type(exc).__name__}: {exc}")  # fmt: skip
        if policy.note is not None:
            stopped = replace(stopped, note=policy.note(stopped))
        swept.stopped.append(stopped)
        return None


def _checked_point(declared: SweepSeries, size: int, operands: Any, swept: Swept) -> Point | None:
    point = declared.make_point(size, operands)
    check = declared.remeasure
    if point is None or check is None:
        return point
    points = swept.series[declared.key].points
    previous = points[-1] if points else None
    why = check.implausible(point, previous)
    for attempt in range(check.times):
        if why is None:
            break
        again = declared.make_point(size, operands)
        kept = check.better(point, again) if again is not None else point
        point = replace(kept, extra={**kept.extra, "remeasured": attempt + 1})
        why = check.implausible(point, previous)
    if why is None:
        return point
    return flagged(replace(point, extra={**point.extra, "implausible": why}), ["implausible"])


def _flagged_headline(result: Result) -> list[Note]:
    """The run's first note when its crossover compares series with flagged points: they were left out."""
    compared = [s for s in result.series if s.role in ("cpu", "gpu", "model")]
    headline = flagged_headline(compared)
    return [headline] if headline is not None else []


def _crossings(sweep: Sweep, result: Result, sizes: Sequence[int]) -> list[Note]:
    """From which size each GPU and modelled series beats the best CPU series (by role, not name)."""
    cpu_names = [s.name for s in result.series if s.role == "cpu"]
    gpu_names = [s.name for s in result.series if s.role in ("gpu", "model")]
    notes = crossover_notes(result, gpu_names, cpu_names, unit=sweep.unit)
    what_if = sweep.what_if_copied
    if what_if is not None:
        copied = {size: what_if.seconds_with_copies(size) for size in sizes}
        note = what_if_copied_note(result, cpu_names, what_if.gpu_name, copied, unit=sweep.unit)
        notes += [note] if note else []
    return notes


# ------------------------------------------------------------- shared series parts


def gpu_details(ceiling: Ceiling | None, **details: Any) -> dict[str, Any]:
    """Provenance details of a measured GPU series: ``details``, the CuPy and CUDA versions, and
    the ceiling its points are compared with."""
    status = cuda.cuda_status()
    versions = {"cupy": status.cupy_version, "cuda_runtime": status.cuda_runtime_version,
                "cuda_driver": status.cuda_driver_version}  # fmt: skip
    return {**details, **versions, **ceiling_details(ceiling)}


def estimate_point(x: float, work: float, estimate: Any) -> Point:
    """A modelled point from a :mod:`gpulab.model` estimate: its seconds, bound and breakdown."""
    parts = {f"{part}_seconds": seconds for part, seconds in estimate.breakdown.items()}
    return modelled_point(x, work, estimate.seconds, bound=estimate.bound, **parts)


def numpy_cpu_provenance(timing: str) -> Provenance:
    """A measured CPU series timed around numpy calls: the CPU, numpy and its BLAS, and how it was timed."""
    import numpy as np

    from gpulab.devices import describe_cpu

    cpu = describe_cpu()
    blas = cpu.blas[0].vendor if cpu.blas else "unknown"
    return Provenance("measured", cpu.model, {"library": "numpy", "blas": blas, "numpy": np.__version__,
                                              "timing": timing})  # fmt: skip


def gpu_bandwidth_ceiling_of(device: int) -> Ceiling | None:
    """The memory-bandwidth ceiling of CUDA device ``device``: its spec sheet, else what its driver reports."""
    derived = next((g.peak_bandwidth_gb_s for g in cuda.cuda_status().devices if g.index == device), None)
    return gpu_bandwidth_ceiling(cuda.device_name(device), derived)
