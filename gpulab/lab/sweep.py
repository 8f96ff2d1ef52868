"""A size sweep: several series (CPU, GPU, modelled GPU) measured or modelled at each size.

The CPU-vs-GPU labs (matmul, vector add; bandwidth, transfers and collectives to come) all
do the same thing: for every size, make the inputs once, ask each series for its point,
yield the point so the curve grows live, and at the end say from which size each GPU series
beats the best CPU series. An experiment describes its series declaratively
(:class:`SweepSeries`: name, role, provenance, point maker) and hands them to
:func:`run_sweep`, which is the generator that drives them.

    >>> sweep = Sweep("toy", params, AXES, series, unit="n")
    >>> result = yield from run_sweep(sweep, params.sizes)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg
from gpulab.lab.base import ExperimentGen, PartialPoint, Progress, params_to_dict
from gpulab.measure import (
    Ceiling,
    ceiling_details,
    crossover_notes,
    gpu_bandwidth_ceiling,
    modelled_point,
    noisy_notes,
    what_if_copied_note,
)
from gpulab.results import Point, Provenance, Result, Series, merge_notes

__all__ = [
    "Axes",
    "Sweep",
    "SweepSeries",
    "WhatIfCopied",
    "estimate_point",
    "gpu_bandwidth_ceiling_of",
    "gpu_details",
    "numpy_cpu_provenance",
    "run_sweep",
]


@dataclass(frozen=True)
class Axes:
    """Labels (catalogue messages) and units every series of a sweep shares (the panel's axis titles)."""

    x_label: Message | str
    x_unit: str
    y_label: Message | str
    y_unit: str


@dataclass(frozen=True)
class SweepSeries:
    """One curve of a sweep: its ``label`` (a catalogue message; a plain name for a script's own
    series), role (cpu, gpu or model), provenance, ``make_point(size, operands)`` that times or
    models it at one size, and a stable ``key`` (the name when not given). Its ``name`` is the
    label's English."""

    label: Message | str
    role: str
    provenance: Provenance
    make_point: Callable[[int, Any], Point]
    key: str = ""

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


def _name_and_size(series: SweepSeries, size: int) -> Message:
    return msg("progress.series-n", series=series.label, size=size)


@dataclass
class Sweep:
    """What :func:`run_sweep` runs.

    ``operands(size)`` makes the inputs once per size, shared by every series; ``progress``
    words the status line of one series at one size; ``unit`` names the size in the
    crossover notes ("N" or "n"); ``note_groups`` follow the crossover notes, in order."""

    experiment: str
    params: Any
    axes: Axes
    series: list[SweepSeries]
    unit: str = "N"
    operands: Callable[[int], Any] = _no_operands
    progress: Callable[[SweepSeries, int], Message] = _name_and_size
    what_if_copied: WhatIfCopied | None = None
    note_groups: Sequence[Sequence[Message | str]] = field(default_factory=tuple)

    def empty_series(self, declared: SweepSeries) -> Series:
        axes = self.axes
        label = declared.label if isinstance(declared.label, Message) else None
        return Series(str(declared.name), declared.provenance, _axis(axes.x_label), axes.x_unit,
                      _axis(axes.y_label), axes.y_unit, role=declared.role, key=declared.key,
                      label=label)  # fmt: skip


def _axis(label: Message | str) -> str:
    """An axis label as a Series keeps it: the English, carrying its message when it has one."""
    return Note(label) if isinstance(label, Message) else label


def run_sweep(sweep: Sweep, sizes: Sequence[int]) -> ExperimentGen:
    """Every series at every size, yielding each point as soon as it is known; returns the
    Result with one crossover note per GPU or modelled series (and the what-if-copied note)."""
    filled = {s.key: sweep.empty_series(s) for s in sweep.series}
    yield from _points(sweep, sizes, filled)
    yield Progress(1.0, msg("progress.done"))
    result = Result(sweep.experiment, params_to_dict(sweep.params), tuple(filled.values()))
    notes = merge_notes(noisy_notes(result, sweep.unit), _crossings(sweep, result, sizes), *sweep.note_groups)
    return Result(sweep.experiment, result.params, result.series, notes)


def _points(sweep: Sweep, sizes: Sequence[int], filled: dict[str, Series]) -> Iterator[Progress | PartialPoint]:
    steps = len(sizes) * len(sweep.series)
    for i, size in enumerate(sizes):
        operands = sweep.operands(size)
        for j, declared in enumerate(sweep.series):
            yield Progress((i * len(sweep.series) + j) / steps, sweep.progress(declared, size))
            point = declared.make_point(size, operands)
            filled[declared.key] = filled[declared.key].with_point(point)
            yield PartialPoint(declared.name, point, declared.provenance)


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
