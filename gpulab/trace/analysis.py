"""Where a GPU's time went, from a trace: the shares, the idle time's causes, overlap, launch gaps.

Definitions (one GPU, one window: the rank's whole trace from its first to its last GPU
activity, or one profiler step's host interval):

* At each instant the GPU is in one state, by priority: **compute** (a non-collective kernel
  runs), else **communication** (only NCCL kernels run), else **memory** (only copies or memsets
  run), else **idle**. The four shares sum to 1 (the union of intervals, so two kernels side by
  side count once).
* **Overlap**: the share of communication time during which a compute kernel also ran; the
  same for host<->device copies under kernels.
* **Idle** is split by what the host was doing (where the trace says): **data** (inside a
  data-loader range), **sync** (a synchronising call returned during the gap: the host had been
  held and could not queue work ahead), **cpu_launch** (the launch call of the work that ended
  the gap had not returned when the GPU ran dry), **other** (the work was queued but waited: a
  stream dependency, an event, a trace without host calls).
* **Launch gaps**: the idle gaps between GPU work; **tiny kernels**: kernels shorter than the
  thresholds file's ``tiny_kernel_us``.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gpulab.trace import classify
from gpulab.trace.model import (
    CPU_LAUNCH,
    DATA_LOADING,
    GPU_KINDS,
    KERNEL,
    MEMCPY,
    NCCL,
    SYNC,
    Event,
    Trace,
)

COMPUTE, COMM, HOST_COPY, OTHER_MEMORY = 1, 2, 4, 8  # bits of a sweep state
IDLE_CAUSES = ("cpu_launch", "sync", "data", "other")
EXAMPLES = 5


@dataclass
class Gap:
    """An idle stretch of one GPU and what it is blamed on (ns of each cause)."""

    start_ns: int
    end_ns: int
    causes: dict[str, int]
    next_event: Event | None = None
    culprit: Event | None = None  # the late launch, the sync call or the data-loader range


@dataclass
class Breakdown:
    """One rank's window, in nanoseconds (see the module's docstring), and what the findings need."""

    rank: int
    start_ns: int = 0
    end_ns: int = 0
    compute_ns: int = 0
    communication_ns: int = 0
    memory_ns: int = 0
    idle_ns: int = 0
    idle_by_cause: dict[str, int] = field(default_factory=lambda: dict.fromkeys(IDLE_CAUSES, 0))
    comm_total_ns: int = 0
    comm_overlapped_ns: int = 0
    host_copy_ns: int = 0
    host_copy_overlapped_ns: int = 0
    host_copy_exposed_ns: int = 0
    kernels: int = 0
    kernel_ns: int = 0
    tiny_kernels: int = 0
    tiny_kernel_ns: int = 0
    memory_bound_named_ns: int = 0
    pageable_copies: int = 0
    pageable_bytes: int = 0
    pageable_ns: int = 0
    sync_calls: int = 0
    sync_ns: int = 0
    gaps: list[Gap] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # the GPU work in the window
    lanes: frozenset[str] = frozenset()
    has_host_calls: bool = False

    @property
    def window_ns(self) -> int:
        return max(self.end_ns - self.start_ns, 0)

    def share(self, ns: float) -> float:
        return ns / self.window_ns if self.window_ns > 0 else 0.0

    def shares(self) -> dict[str, float]:
        """compute_share, communication_share, memory_share, idle_share: fractions of the window."""
        return {"compute_share": self.share(self.compute_ns), "communication_share": self.share(self.communication_ns),
                "memory_share": self.share(self.memory_ns), "idle_share": self.share(self.idle_ns)}  # fmt: skip

    def figures(self) -> dict[str, object]:
        """The shares and the other measures, JSON-ready (what ``--json`` writes per rank)."""
        gaps = sorted(g.end_ns - g.start_ns for g in self.gaps)
        return {
            **{k: round(v, 6) for k, v in self.shares().items()},
            "window_ns": self.window_ns,
            "idle_breakdown_share": {cause: round(self.share(ns), 6) for cause, ns in self.idle_by_cause.items()},
            "comm_overlap_share": round(self.comm_overlapped_ns / self.comm_total_ns, 6) if self.comm_total_ns
            else None,
            "copy_overlap_share": round(self.host_copy_overlapped_ns / self.host_copy_ns, 6) if self.host_copy_ns
            else None,
            "kernels": self.kernels,
            "tiny_kernel_share": round(self.tiny_kernels / self.kernels, 6) if self.kernels else 0.0,
            "launch_gaps": len(gaps),
            "median_launch_gap_ns": gaps[len(gaps) // 2] if gaps else 0,
            "pageable_copies": self.pageable_copies,
            "pageable_bytes": self.pageable_bytes,
            "sync_calls": self.sync_calls,
            "sync_ns": self.sync_ns,
        }  # fmt: skip


def add_up(parts: Iterable[Breakdown]) -> Breakdown:
    """Several GPUs' breakdowns as one: every duration summed (shares are then of all GPUs' time)."""
    total = Breakdown(rank=-1)
    for part in parts:
        total.end_ns += part.window_ns
        for name in ("compute_ns", "communication_ns", "memory_ns", "idle_ns", "comm_total_ns", "comm_overlapped_ns",
                     "host_copy_ns", "host_copy_overlapped_ns", "host_copy_exposed_ns", "kernels", "kernel_ns",
                     "tiny_kernels", "tiny_kernel_ns", "memory_bound_named_ns", "pageable_copies", "pageable_bytes",
                     "pageable_ns", "sync_calls", "sync_ns"):  # fmt: skip
            setattr(total, name, getattr(total, name) + getattr(part, name))
        for cause, ns in part.idle_by_cause.items():
            total.idle_by_cause[cause] += ns
        total.gaps.extend(part.gaps)
    return total


def _bits(event: Event) -> int:
    if event.kind == KERNEL:
        return COMPUTE
    if event.kind == NCCL:
        return COMM
    if event.kind == MEMCPY and event.direction in ("h2d", "d2h"):
        return HOST_COPY
    return OTHER_MEMORY


def _sweep(events: Sequence[Event], start_ns: int, end_ns: int) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """Time spent in each state (an OR of the bits above) and the idle gaps, within the window."""
    edges: list[tuple[int, int, int]] = []
    for event in events:
        begin, finish = max(event.start_ns, start_ns), min(event.end_ns, end_ns)
        if finish > begin:
            bit = _bits(event)
            edges += [(begin, 1, bit), (finish, -1, bit)]
    edges.sort()
    counts = {COMPUTE: 0, COMM: 0, HOST_COPY: 0, OTHER_MEMORY: 0}
    time_in: dict[int, int] = defaultdict(int)
    gaps: list[tuple[int, int]] = []
    previous = start_ns
    for time_ns, step, bit in edges:
        if time_ns > previous:
            state = sum(b for b, n in counts.items() if n > 0)
            time_in[state] += time_ns - previous
            if state == 0:
                gaps.append((previous, time_ns))
            previous = time_ns
        counts[bit] += step
    if end_ns > previous:
        time_in[0] += end_ns - previous
        gaps.append((previous, end_ns))
    return time_in, gaps


class _Host:
    """One rank's host calls, indexed for the idle attribution."""

    def __init__(self, events: Iterable[Event]) -> None:
        self.launches: dict[int, Event] = {}
        self.syncs: list[Event] = []
        self.data: list[Event] = []
        for event in events:
            if event.kind == CPU_LAUNCH and event.correlation:
                self.launches[event.correlation] = event
            elif event.kind == SYNC:
                self.syncs.append(event)
            elif event.kind == DATA_LOADING:
                self.data.append(event)
        self.syncs.sort(key=lambda e: e.end_ns)
        self.sync_ends = [e.end_ns for e in self.syncs]
        self.merged = _merged(self.data)  # the data-loader ranges' union, each piece with its longest range
        self.merged_starts = [piece[0] for piece in self.merged]

    @property
    def any(self) -> bool:
        return bool(self.launches or self.syncs or self.data)

    def sync_ending_in(self, start_ns: int, end_ns: int) -> Event | None:
        i = bisect.bisect_left(self.sync_ends, start_ns)
        return self.syncs[i] if i < len(self.syncs) and self.syncs[i].end_ns <= end_ns else None

    def data_overlap(self, start_ns: int, end_ns: int) -> tuple[int, Event | None]:
        """How much of [start, end) the data-loader ranges cover, and the longest range that does."""
        i = max(bisect.bisect_right(self.merged_starts, start_ns) - 1, 0)
        covered, longest = 0, None
        while i < len(self.merged) and self.merged[i][0] < end_ns:
            lo, hi, event = self.merged[i]
            if min(hi, end_ns) > max(lo, start_ns):
                covered += min(hi, end_ns) - max(lo, start_ns)
                longest = event if longest is None or event.dur_ns > longest.dur_ns else longest
            i += 1
        return covered, longest


def _merged(ranges: list[Event]) -> list[tuple[int, int, Event]]:
    pieces: list[tuple[int, int, Event]] = []
    for event in sorted(ranges, key=lambda e: e.start_ns):
        if pieces and event.start_ns <= pieces[-1][1]:
            lo, hi, longest = pieces[-1]
            pieces[-1] = (lo, max(hi, event.end_ns), event if event.dur_ns > longest.dur_ns else longest)
        else:
            pieces.append((event.start_ns, event.end_ns, event))
    return pieces


def _attribute(gap: tuple[int, int], starts: dict[int, Event], host: _Host) -> Gap:
    begin, end = gap
    causes = dict.fromkeys(IDLE_CAUSES, 0)
    data_ns, data_range = host.data_overlap(begin, end)
    causes["data"] = data_ns
    rest = end - begin - data_ns
    following = starts.get(end)
    culprit: Event | None = data_range
    if rest > 0:
        sync = host.sync_ending_in(begin, end)
        launch = host.launches.get(following.correlation) if following is not None and following.correlation else None
        if sync is not None:
            causes["sync"] = rest
            culprit = culprit or sync
        elif launch is not None and launch.end_ns >= begin:
            causes["cpu_launch"] = rest
            culprit = culprit or launch
        else:
            causes["other"] = rest
    return Gap(begin, end, causes, following, culprit)


class HostCalls(_Host):
    """A rank's host calls, indexed once and shared by the breakdowns of its steps."""


def breakdown(trace: Trace, rank: int, window: tuple[int, int] | None = None,
              events: Sequence[Event] | None = None, host: _Host | None = None) -> Breakdown:  # fmt: skip
    """One rank's breakdown over ``window`` (default: its first to its last GPU activity).
    ``events``: the rank's events (default: picked from the trace); ``host``: its host calls,
    indexed (default: from ``events``)."""
    mine = events if events is not None else [e for e in trace.events if e.rank == rank]
    gpu = [e for e in mine if e.kind in GPU_KINDS]
    result = Breakdown(rank=rank)
    if not gpu:
        return result
    start_ns, end_ns = window or (min(e.start_ns for e in gpu), max(e.end_ns for e in gpu))
    result.start_ns, result.end_ns = start_ns, end_ns
    inside = [e for e in gpu if e.end_ns > start_ns and e.start_ns < end_ns]
    result.events = inside
    result.lanes = frozenset(e.lane for e in inside)
    time_in, gaps = _sweep(inside, start_ns, end_ns)
    for state, ns in time_in.items():
        if state & COMPUTE:
            result.compute_ns += ns
        elif state & COMM:
            result.communication_ns += ns
        elif state:
            result.memory_ns += ns
        else:
            result.idle_ns += ns
        if state & COMM:
            result.comm_total_ns += ns
            result.comm_overlapped_ns += ns if state & COMPUTE else 0
        if state & HOST_COPY:
            result.host_copy_ns += ns
            result.host_copy_overlapped_ns += ns if state & COMPUTE else 0
            result.host_copy_exposed_ns += 0 if state & (COMPUTE | COMM) else ns
    host = host if host is not None else _Host(e for e in mine if e.kind in (CPU_LAUNCH, SYNC, DATA_LOADING))
    result.has_host_calls = host.any
    starts = {}
    for event in sorted(inside, key=lambda e: -e.start_ns):  # the earliest op starting at an instant wins
        starts[event.start_ns] = event
    result.gaps = [_attribute(gap, starts, host) for gap in gaps]
    for gap in result.gaps:
        for cause, ns in gap.causes.items():
            result.idle_by_cause[cause] += ns
    _count(result, inside, host, start_ns, end_ns)
    return result


def _count(result: Breakdown, inside: Sequence[Event], host: _Host, start_ns: int, end_ns: int) -> None:
    tiny_ns = classify.limit("small_kernels", "tiny_kernel_us") * 1000
    for event in inside:
        if event.kind == KERNEL:
            result.kernels += 1
            result.kernel_ns += event.dur_ns
            if event.dur_ns < tiny_ns:
                result.tiny_kernels += 1
                result.tiny_kernel_ns += event.dur_ns
            if classify.is_memory_bound_by_name(event.name):
                result.memory_bound_named_ns += event.dur_ns
        elif event.kind == MEMCPY and event.memory == "pageable":
            result.pageable_copies += 1
            result.pageable_bytes += event.bytes
            result.pageable_ns += event.dur_ns
    for sync in host.syncs:
        if sync.end_ns > start_ns and sync.start_ns < end_ns:
            result.sync_calls += 1
            result.sync_ns += sync.dur_ns


def by_rank(trace: Trace) -> dict[int, list[Event]]:
    grouped: dict[int, list[Event]] = defaultdict(list)
    for event in trace.events:
        grouped[event.rank].append(event)
    return grouped
