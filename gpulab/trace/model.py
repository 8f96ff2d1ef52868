"""The trace doctor's one event model: every reader turns its format into :class:`Event` s.

An event is something that took time on a GPU stream or a host thread, in nanoseconds from the
trace's own clock: a kernel, a copy, a memset, a collective's kernel, a host call that launched
GPU work, a host call that waited for the GPU, a profiler step, a wait for the data loader.
``rank`` is the process (a Kineto file's ``distributedInfo.rank``, an Nsight device, a lab
configuration), ``lane`` the stream or thread it ran on. Readers keep only these kinds and drop
the rest (Python frames, ATen operators) while they stream, so memory follows the GPU work,
not the file's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpulab.catalogue import Message, render

__all__ = [
    "CPU_KINDS",
    "GPU_KINDS",
    "Event",
    "Step",
    "Trace",
    "TraceError",
]

KERNEL = "kernel"
NCCL = "nccl"
MEMCPY = "memcpy"
MEMSET = "memset"
CPU_LAUNCH = "cpu_launch"
SYNC = "sync"
STEP = "step"
DATA_LOADING = "data_loading"

GPU_KINDS = frozenset({KERNEL, NCCL, MEMCPY, MEMSET})
"""What runs on a GPU stream and fills the GPU's timeline."""
CPU_KINDS = frozenset({CPU_LAUNCH, SYNC, STEP, DATA_LOADING})
"""What a host thread did that explains the GPU's idle time."""

COPY_DIRECTIONS = ("h2d", "d2h", "d2d", "p2p", "")
HOST_MEMORY = ("pageable", "pinned", "")


class TraceError(ValueError):
    """A file the doctor cannot read: one line naming the file and what is wrong with it, as a
    catalogue message (:attr:`message`) so a front end says it in the reader's language."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(render(message))


class Event:
    """One timed thing (see the module's docstring). ``direction`` and ``memory`` describe a copy
    (``h2d``/``d2h``/``d2d``/``p2p``; ``pageable``/``pinned``, empty when the trace does not say);
    ``correlation`` ties a launch call to the GPU work it queued (0 when unknown); ``number`` is a
    profiler step's number. Slots, not a dataclass: a large trace holds millions of these."""

    __slots__ = (
        "bytes",
        "correlation",
        "direction",
        "dur_ns",
        "kind",
        "lane",
        "memory",
        "name",
        "number",
        "rank",
        "start_ns",
    )  # fmt: skip

    def __init__(self, rank: int, lane: str, kind: str, start_ns: int, dur_ns: int, name: str,
                 correlation: int = 0, nbytes: int = 0, direction: str = "", memory: str = "",
                 number: int = -1) -> None:  # fmt: skip
        self.rank, self.lane, self.kind = rank, lane, kind
        self.start_ns, self.dur_ns, self.name = start_ns, max(dur_ns, 0), name
        self.correlation, self.bytes = correlation, nbytes
        self.direction, self.memory, self.number = direction, memory, number

    @property
    def end_ns(self) -> int:
        return self.start_ns + self.dur_ns

    def __repr__(self) -> str:
        return (f"Event({self.kind} {self.name!r} rank {self.rank} {self.lane} "
                f"at {self.start_ns} ns for {self.dur_ns} ns)")

    def brief(self) -> dict[str, object]:
        """The event as evidence: what, where, when and how long (JSON-ready)."""
        found: dict[str, object] = {"name": self.name, "kind": self.kind, "rank": self.rank, "lane": self.lane,
                                    "start_ns": self.start_ns, "dur_ns": self.dur_ns}
        if self.kind == MEMCPY:
            found.update(direction=self.direction, memory=self.memory, bytes=self.bytes)
        return found


@dataclass(frozen=True)
class Step:
    """A profiler step (``ProfilerStep#N`` in PyTorch, an NVTX range named so in Nsight) on one rank."""

    rank: int
    number: int
    start_ns: int
    end_ns: int


@dataclass
class Trace:
    """What a reader found: the events of every rank, the file's format (``kineto``, ``nsys``,
    ``gpulab``), a name per rank for the reader (``rank 0``, ``GPU 1 (NVIDIA H100)``, a lab
    configuration) and the device the trace names, if any. ``provenance`` is what its times are:
    ``measured`` by a profiler, or, for a lab's own timeline, the lab result's kind (a modelled
    run stays ``modelled``: the doctor never calls a model's numbers measured). ``stated_ranks``
    is False when the file did not say its rank (a Kineto file without ``distributedInfo``: its
    rank 0 is a guess that several files of one run may correct). ``rank_files`` says which file
    each rank came from when several files were read as one trace (empty for one file)."""

    source: str
    format: str
    events: list[Event] = field(default_factory=list)
    rank_names: dict[int, str] = field(default_factory=dict)
    device: str = ""
    provenance: str = "measured"
    stated_ranks: bool = True
    rank_files: dict[int, str] = field(default_factory=dict)

    @property
    def files(self) -> list[str]:
        """The files read, in the order given."""
        return list(dict.fromkeys(self.rank_files.values())) or [self.source]

    @property
    def ranks(self) -> list[int]:
        return sorted({e.rank for e in self.events if e.kind in GPU_KINDS} | set(self.rank_names))

    def steps(self, rank: int | None = None) -> list[Step]:
        """The profiler steps, in order (of one rank, or of all)."""
        found = [Step(e.rank, e.number, e.start_ns, e.end_ns) for e in self.events
                 if e.kind == STEP and (rank is None or e.rank == rank)]  # fmt: skip
        return sorted(found, key=lambda s: (s.rank, s.start_ns))

    def rank_name(self, rank: int) -> str:
        return self.rank_names.get(rank, f"rank {rank}")
