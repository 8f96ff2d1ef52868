"""Roofline model of one kernel: time = max(FLOP / peak, bytes / bandwidth) + launch overhead.

The bandwidth a kernel's bytes are priced at is the *achievable* one, not the spec sheet's:
:func:`memory_share` gives the share of the spec-sheet bandwidth a streaming kernel (STREAM's
triad, where one is published) reached on that GPU in a published measurement (the spec table's
``memory_efficiency``), or, without one, the lowest share published for its memory type. The spec
sheet's figure stays the *roof* (:func:`place`, :func:`roof_at`): a ceiling no kernel reaches.

:func:`place` puts a kernel with a known time on a roofline chart: its arithmetic intensity,
the FLOP/s it attained, the roof above it, which side of the ridge it is on and how far below
its roof it sits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from gpulab.catalogue import Message, Note, msg
from gpulab.model.dtypes import peak_for
from gpulab.model.estimate import ModelEstimate
from gpulab.specs import GpuSpec, load_specs

__all__ = [
    "DEFAULT_LAUNCH_OVERHEAD_S",
    "MemoryShare",
    "RooflinePlacement",
    "achievable_bytes_per_s",
    "kernel_time",
    "memory_share",
    "place",
    "ridge_point",
    "roof_at",
]

DEFAULT_LAUNCH_OVERHEAD_S = 5e-6
"""Assumed cost one kernel adds when it is timed alone: its launch and the wait for it. Measured
by the wall clock this is 6.7 us on a V100 and 9.2 us on an A100 (the launch lab's costs,
gpulab.model.launch); CUDA events around the kernel see less. 5 us is an assumption in that range.
The launch lab splits it into what the host and what the GPU pays: see gpulab.model.launch, which
also holds the sync and CUDA Graph costs (SYNC_ROUND_TRIP_S, GRAPH_NODE_OVERHEAD_S) that lived here."""


@dataclass(frozen=True)
class MemoryShare:
    """The share of a GPU's spec-sheet memory bandwidth its memory traffic is modelled at.

    ``origin`` says where the share comes from: ``measured`` (a published streaming benchmark on
    this GPU), ``borrowed`` (none here: the lowest share published for the same memory type, on
    ``measured_on``), ``borrowed-any`` (none for that memory type either: the lowest in the table)
    or ``none`` (nothing published at all: the peak, an upper bound). ``source`` is the title of
    the publication the share comes from (empty for ``none``)."""

    share: float
    origin: str
    gpu: str
    peak_gb_s: float
    memory_type: str
    measured_on: str = ""
    source: str = ""

    @property
    def gb_s(self) -> float:
        """The achievable bandwidth in GB/s: the share of the spec sheet's."""
        return self.share * self.peak_gb_s

    @property
    def percent(self) -> str:
        return f"{self.share:.0%}"

    @property
    def note(self) -> Note:
        """The model's assumption, one short sentence (the lab's :attr:`lab_note` names the source)."""
        return Note(msg(_SHARE_ASSUMPTIONS[self.origin], percent=self.percent, memory=self.memory_type,
                        other=self.measured_on))  # fmt: skip

    @property
    def lab_note(self) -> Message:
        """What a lab says of its modelled GPU's memory rate: the achievable figure beside the
        spec sheet's, and the publication it comes from."""
        return msg(_SHARE_NOTES[self.origin], gpu=self.gpu, gb_s=f"{self.gb_s:.0f}", percent=self.percent,
                   peak=f"{self.peak_gb_s:g}", memory=self.memory_type, other=self.measured_on,
                   source=self.source)  # fmt: skip

    def details(self) -> dict[str, object]:
        """The share as a series' provenance records it."""
        return {"memory_efficiency": self.share, "memory_efficiency_origin": self.origin,
                "achievable_gb_s": self.gb_s, "memory_efficiency_source": self.source,
                "memory_efficiency_measured_on": self.measured_on}  # fmt: skip


# Catalogue keys by origin, named whole (the catalogue check finds keys in the source).
_SHARE_ASSUMPTIONS = {"measured": "model.assumption.memory-share", "borrowed": "model.assumption.memory-share-borrowed",
                      "borrowed-any": "model.assumption.memory-share-borrowed-any",
                      "none": "model.assumption.memory-share-none"}  # fmt: skip
_SHARE_NOTES = {"measured": "note.memory.achievable", "borrowed": "note.memory.achievable-borrowed",
                "borrowed-any": "note.memory.achievable-borrowed-any", "none": "note.memory.achievable-none"}


@cache
def _published_memory_shares() -> tuple[tuple[float, str, str, str], ...]:
    """(share, GPU name, memory type, source title) of every GPU of the shipped table with a
    published ``memory_efficiency``."""
    return tuple((share, spec.name, spec.memory_type, spec.source_for("memory_efficiency").title)
                 for spec in load_specs() if (share := spec.memory_efficiency) is not None)  # fmt: skip


def memory_share(spec: GpuSpec) -> MemoryShare:
    """The share of ``spec``'s spec-sheet bandwidth its memory traffic runs at (see the module
    docstring): its own published figure, else the lowest published for its memory type in the
    shipped table, else the lowest published for any GPU there, else 1 (the peak, an upper bound)."""
    gpu, peak, memory = spec.name, spec.memory_bandwidth_gb_s, spec.memory_type
    if spec.memory_efficiency is not None:
        source = spec.source_for("memory_efficiency").title
        return MemoryShare(spec.memory_efficiency, "measured", gpu, peak, memory, gpu, source)
    published = _published_memory_shares()
    same = [item for item in published if item[2] == memory]
    if not published:
        return MemoryShare(1.0, "none", gpu, peak, memory)
    share, measured_on, _memory, source = min(same or published)
    return MemoryShare(share, "borrowed" if same else "borrowed-any", gpu, peak, memory, measured_on, source)


def achievable_bytes_per_s(spec: GpuSpec) -> float:
    """The DRAM rate a streaming kernel reaches on ``spec``, bytes per second (:func:`memory_share`)."""
    return memory_share(spec).gb_s * 1e9


def ridge_point(peak_flop_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """Arithmetic intensity (FLOP/byte) where a kernel turns from memory- to compute-bound."""
    return peak_flop_per_s / bandwidth_bytes_per_s


def _check_fraction(name: str, value: float) -> None:
    if not 0 < value <= 1:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")


def _check_non_negative(name: str, value: float) -> None:
    if not value >= 0 or math.isinf(value):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


def _intensity(flops: float, bytes_moved: float) -> float:
    if bytes_moved == 0:
        return math.inf if flops > 0 else 0.0
    return flops / bytes_moved


def _roofline_assumptions(
    spec: GpuSpec,
    peak_key: str,
    peak_tflops: float,
    efficiency: float,
    memory_note: Note,
    launch_overhead_s: float,
) -> list[Note]:
    return [Note(msg("model.assumption.peak-rate", peak=peak_key, number=f"{peak_tflops:g}", gpu=spec.name)),
            Note(msg("model.assumption.memory-bandwidth", number=f"{spec.memory_bandwidth_gb_s:g}")),
            Note(msg("model.assumption.compute-efficiency", percent=f"{efficiency:.0%}")),
            memory_note,
            Note(msg("model.assumption.overlap")),
            Note(msg("model.assumption.launch-overhead", number=f"{launch_overhead_s * 1e6:g}"))]


def kernel_time(
    spec: GpuSpec,
    flops: float,
    bytes_moved: float,
    dtype: str,
    *,
    use_tensor_cores: bool = True,
    efficiency: float = 1.0,
    memory_efficiency: float | None = None,
    launch_overhead_s: float = DEFAULT_LAUNCH_OVERHEAD_S,
) -> ModelEstimate:
    """Roofline estimate of one kernel launch on ``spec``.

    ``flops`` is the floating-point work and ``bytes_moved`` the DRAM traffic (bytes read
    plus bytes written). ``efficiency`` is the fraction of peak compute reached;
    ``memory_efficiency`` the fraction of the spec-sheet bandwidth, by default (None) the
    achievable share :func:`memory_share` gives. The estimate's ``bandwidth_gb_s`` stays the spec
    sheet's (the roof). Raises ``ValueError`` for an unknown dtype or bad argument, and
    :class:`~gpulab.model.dtypes.UnsupportedDtypeError` when the GPU lacks the dtype.
    """
    if memory_efficiency is None:
        share = memory_share(spec)
        memory_efficiency, memory_note = share.share, share.note
    else:
        memory_note = Note(msg("model.assumption.memory-efficiency", percent=f"{memory_efficiency:.0%}"))
    _check_fraction("efficiency", efficiency)
    _check_fraction("memory_efficiency", memory_efficiency)
    _check_non_negative("flops", flops)
    _check_non_negative("bytes_moved", bytes_moved)
    _check_non_negative("launch_overhead_s", launch_overhead_s)
    peak_key, peak_tflops, note = peak_for(spec, dtype, use_tensor_cores)
    flop_rate = peak_tflops * 1e12 * efficiency
    byte_rate = spec.memory_bandwidth_bytes_per_s * memory_efficiency
    compute_s, memory_s = flops / flop_rate, bytes_moved / byte_rate
    kernel_s = max(compute_s, memory_s)
    roofline_bound = "compute-bound" if compute_s > memory_s else "memory-bound"
    assumptions = _roofline_assumptions(spec, peak_key, peak_tflops, efficiency, memory_note, launch_overhead_s)
    return ModelEstimate(
        seconds=kernel_s + launch_overhead_s,
        breakdown={"kernel": kernel_s, "launch": launch_overhead_s},
        bound="launch-bound" if launch_overhead_s > kernel_s else roofline_bound,
        assumptions=tuple(assumptions + ([note] if note else [])),
        gpu_name=spec.name,
        roofline_bound=roofline_bound,
        compute_seconds=compute_s,
        memory_seconds=memory_s,
        arithmetic_intensity_flop_per_byte=_intensity(flops, bytes_moved),
        ridge_point_flop_per_byte=ridge_point(flop_rate, byte_rate),
        peak_tflops=peak_tflops,
        bandwidth_gb_s=spec.memory_bandwidth_gb_s,
    )


def roof_at(intensity_flop_per_byte: float, peak_flop_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """The roof's height at an arithmetic intensity: min(peak, intensity × bandwidth), in FLOP/s."""
    return min(peak_flop_per_s, intensity_flop_per_byte * bandwidth_bytes_per_s)


@dataclass(frozen=True)
class RooflinePlacement:
    """Where a kernel sits on a roofline chart.

    ``percent_of_roof`` is the roofline's time for the kernel's work (the slower of its FLOPs at
    peak and its bytes at full bandwidth) as a percentage of the time it took: for a kernel with
    FLOPs it equals attained FLOP/s over the roof above it; for a kernel without any it is the
    bandwidth it reached as a percentage of the memory roof. ``bound`` is the side of the ridge
    the kernel's intensity falls on ("memory-bound" left of it, "compute-bound" from it on)."""

    intensity_flop_per_byte: float
    attained_flop_per_s: float
    roof_flop_per_s: float
    ridge_flop_per_byte: float
    bound: str
    percent_of_roof: float

    @property
    def times_below_roof(self) -> float:
        """How many times faster the roof says the kernel could run (1 = on the roof)."""
        return 100.0 / self.percent_of_roof if self.percent_of_roof > 0 else math.inf


def place(flops: float, bytes_moved: float, seconds: float, peak_flop_per_s: float,
          bandwidth_bytes_per_s: float) -> RooflinePlacement:
    """Place a kernel that did ``flops`` and moved ``bytes_moved`` in ``seconds`` under a roof of
    ``peak_flop_per_s`` and ``bandwidth_bytes_per_s``. Raises ``ValueError`` for a bad argument."""
    _check_non_negative("flops", flops)
    _check_non_negative("bytes_moved", bytes_moved)
    if not seconds > 0 or math.isinf(seconds):
        raise ValueError(f"seconds must be a finite number > 0, got {seconds!r}")
    if not peak_flop_per_s > 0 or not bandwidth_bytes_per_s > 0:
        raise ValueError("peak and bandwidth must be > 0")
    intensity = _intensity(flops, bytes_moved)
    ridge = ridge_point(peak_flop_per_s, bandwidth_bytes_per_s)
    roof_seconds = max(flops / peak_flop_per_s, bytes_moved / bandwidth_bytes_per_s)
    return RooflinePlacement(
        intensity_flop_per_byte=intensity,
        attained_flop_per_s=flops / seconds,
        roof_flop_per_s=roof_at(intensity, peak_flop_per_s, bandwidth_bytes_per_s) if flops else 0.0,
        ridge_flop_per_byte=ridge,
        bound="compute-bound" if intensity >= ridge else "memory-bound",
        percent_of_roof=100.0 * roof_seconds / seconds,
    )
