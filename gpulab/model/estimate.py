"""The result of a model calculation: a time, its parts, and the assumptions behind it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gpulab.catalogue import Note

__all__ = ["BOUNDS", "ModelEstimate", "merge_assumptions"]

BOUNDS = ("compute-bound", "memory-bound", "launch-bound", "transfer-bound")
"""What can limit an estimate: the slowest part of the total time."""


@dataclass(frozen=True)
class ModelEstimate:
    """A modelled (not measured) time, with the parts it is made of.

    ``breakdown`` maps named parts (``"kernel"``, ``"launch"``, ``"h2d"``, ``"d2h"``) to
    seconds; they add up to ``seconds``. ``bound`` names the part that dominates;
    ``roofline_bound`` says whether the kernel itself is compute- or memory-bound.
    ``assumptions`` are notes (:class:`~gpulab.catalogue.Note`: the English sentence carrying its
    catalogue message), one assumption each, for result notes.
    """

    seconds: float
    breakdown: Mapping[str, float] = field(hash=False)
    bound: str
    assumptions: tuple[Note, ...]
    gpu_name: str
    roofline_bound: str | None = None
    compute_seconds: float | None = None
    memory_seconds: float | None = None
    arithmetic_intensity_flop_per_byte: float | None = None
    ridge_point_flop_per_byte: float | None = None
    peak_tflops: float | None = None
    bandwidth_gb_s: float | None = None

    def __post_init__(self) -> None:
        if self.bound not in BOUNDS:
            raise ValueError(f"bound must be one of {BOUNDS}, got {self.bound!r}")
        object.__setattr__(self, "breakdown", MappingProxyType(dict(self.breakdown)))

    @property
    def provenance_kind(self) -> str:
        """Always ``"modelled"``: an estimate is never a measurement."""
        return "modelled"

    def fraction(self, part: str) -> float:
        """Share of the total time spent in one part of the breakdown (0 if absent)."""
        if self.seconds <= 0:
            return 0.0
        return self.breakdown.get(part, 0.0) / self.seconds


def merge_assumptions(*groups: Iterable[Note]) -> tuple[Note, ...]:
    """Join assumption lists, keeping the first occurrence of each sentence."""
    merged: dict[Note, None] = {}
    for group in groups:
        for sentence in group:
            merged.setdefault(sentence, None)
    return tuple(merged)


def dominant_part(breakdown: Mapping[str, float]) -> str:
    """Name of the largest part (the first one on a tie)."""
    return max(breakdown, key=lambda part: breakdown[part])
