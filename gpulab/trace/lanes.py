"""A trace on the lab's timeline widget: :class:`~gpulab.timeline.TimelineOp` s, one lane per
rank and stream (``rank 0 · stream 7``) plus each rank's host thread(s) and profiler steps.

Times are seconds from ``origin_ns`` (default: the earliest event shown), so a step's ops start
near 0. ``engine`` groups by what did the work (``compute``, ``communication``, ``memory``,
``host``); ``kind`` colours the bar (``kernel``, ``comm``, ``h2d``, ``d2h``, ``d2d``, ``p2p``,
``memset``, ``launch``, ``sync``, ``data``, ``step``).
"""

from __future__ import annotations

from gpulab.timeline import TimelineOp
from gpulab.trace.model import CPU_LAUNCH, DATA_LOADING, KERNEL, MEMCPY, MEMSET, NCCL, STEP, SYNC, Event, Trace

_ENGINE = {KERNEL: "compute", NCCL: "communication", MEMCPY: "memory", MEMSET: "memory", CPU_LAUNCH: "host",
           SYNC: "host", DATA_LOADING: "host", STEP: "host"}  # fmt: skip
_KIND = {KERNEL: "kernel", NCCL: "comm", MEMSET: "memset", CPU_LAUNCH: "launch", SYNC: "sync",
         DATA_LOADING: "data", STEP: "step"}  # fmt: skip


def kind_of(event: Event) -> str:
    if event.kind == MEMCPY:
        return event.direction or "copy"
    return _KIND[event.kind]


def lane_of(trace: Trace, event: Event) -> str:
    return f"{trace.rank_name(event.rank)} · {event.lane}"


def timeline_ops(trace: Trace, rank: int | None = None, window_ns: tuple[int, int] | None = None,
                 origin_ns: int | None = None, host: bool = True) -> tuple[TimelineOp, ...]:  # fmt: skip
    """The ops of one rank (or all) that overlap ``window_ns`` (default: everything), GPU lanes
    first then host lanes, each in time order. ``host=False`` leaves out the host's calls."""
    chosen = [e for e in trace.events
              if (rank is None or e.rank == rank) and (host or _ENGINE[e.kind] != "host")
              and (window_ns is None or (e.end_ns >= window_ns[0] and e.start_ns <= window_ns[1]))]  # fmt: skip
    if not chosen:
        return ()
    origin = origin_ns if origin_ns is not None else (window_ns[0] if window_ns else min(e.start_ns for e in chosen))
    chosen.sort(key=lambda e: (e.rank, _ENGINE[e.kind] == "host", _natural(e.lane), e.start_ns))
    return tuple(TimelineOp(e.name, lane_of(trace, e), _ENGINE[e.kind], (e.start_ns - origin) / 1e9, e.dur_ns / 1e9,
                            e.bytes, kind_of(e)) for e in chosen)  # fmt: skip


def _natural(lane: str) -> tuple[str, int]:
    """``stream 7`` before ``stream 13`` (a plain sort put 13 first)."""
    word, _, number = lane.rpartition(" ")
    return (word, int(number)) if number.isdigit() else (lane, -1)


def step_window(trace: Trace, number: int, rank: int | None = None) -> tuple[int, int] | None:
    """The host interval of profiler step ``number`` (on ``rank``, or the first rank that has it)."""
    found = next((s for s in trace.steps(rank) if s.number == number), None)
    return (found.start_ns, found.end_ns) if found else None
