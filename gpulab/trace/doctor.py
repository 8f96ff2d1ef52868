"""The doctor's whole judgement of a trace: every rank's breakdown, per step and overall, and
the findings (the entry point the CLI and the page use: :func:`diagnose`)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from gpulab.catalogue import msg
from gpulab.trace.analysis import Breakdown, HostCalls, add_up, breakdown, by_rank
from gpulab.trace.findings import Finding, judge
from gpulab.trace.model import CPU_LAUNCH, DATA_LOADING, GPU_KINDS, SYNC, Event, Step, Trace, TraceError


@dataclass
class Diagnosis:
    """``ranks``: each rank's breakdown over the window judged (its whole trace, or step ``step``);
    ``overall``: all ranks added up; ``per_step``: each rank's breakdown of each profiler step;
    ``findings``: what the windows judged show, rank by rank."""

    trace: Trace
    step: int | None
    ranks: dict[int, Breakdown]
    overall: Breakdown
    per_step: dict[int, list[tuple[Step, Breakdown]]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


class _Rank:
    """One rank's events sorted by start, to cut a step's window out quickly."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.gpu = sorted((e for e in events if e.kind in GPU_KINDS), key=lambda e: e.start_ns)
        self.starts = [e.start_ns for e in self.gpu]
        self.longest = max((e.dur_ns for e in self.gpu), default=0)
        self.host = HostCalls(e for e in events if e.kind in (CPU_LAUNCH, SYNC, DATA_LOADING))

    def within(self, start_ns: int, end_ns: int) -> list[Event]:
        lo = bisect.bisect_left(self.starts, start_ns - self.longest)
        hi = bisect.bisect_left(self.starts, end_ns)
        return self.gpu[lo:hi]


def diagnose(trace: Trace, step: int | None = None) -> Diagnosis:
    """Judge ``trace``: every rank over its whole trace, or over profiler step ``step`` (TraceError
    naming the steps there are when no rank has it)."""
    grouped = by_rank(trace)
    ranks = {rank: _Rank(grouped.get(rank, [])) for rank in trace.ranks}
    steps = trace.steps()
    if step is not None and not any(s.number == step for s in steps):
        there = ", ".join(str(n) for n in sorted({s.number for s in steps})) or "none"
        raise TraceError(msg("trace.error.no-step", source=trace.source, step=step, steps=there))
    judged: dict[int, Breakdown] = {}
    per_step: dict[int, list[tuple[Step, Breakdown]]] = {}
    for rank, data in ranks.items():
        mine = [s for s in steps if s.rank == rank]
        per_step[rank] = [(s, breakdown(trace, rank, (s.start_ns, s.end_ns), data.within(s.start_ns, s.end_ns),
                                        data.host)) for s in mine]  # fmt: skip
        if step is None:
            judged[rank] = breakdown(trace, rank, None, data.gpu, data.host)
        else:
            chosen = [part for s, part in per_step[rank] if s.number == step]
            if chosen:
                judged[rank] = chosen[0]
    findings = [found for part in judged.values() for found in judge(part, step)]
    return Diagnosis(trace, step, judged, add_up(judged.values()), per_step, findings)


def for_step(diagnosis: Diagnosis, step: int | None) -> Diagnosis:
    """``diagnosis`` judged over profiler step ``step`` only (None: the whole trace again, as
    diagnosed), from the step breakdowns it already holds: what :func:`diagnose` with ``step``
    finds, without reading the events again (a page switching steps on a large trace)."""
    if step is None or step == diagnosis.step:
        return diagnosis if step == diagnosis.step else diagnose(diagnosis.trace)
    judged = {rank: part for rank, parts in diagnosis.per_step.items() for s, part in parts if s.number == step}
    if not judged:
        return diagnose(diagnosis.trace, step)  # raises the error naming the steps there are
    findings = [found for part in judged.values() for found in judge(part, step)]
    return Diagnosis(diagnosis.trace, step, judged, add_up(judged.values()), diagnosis.per_step, findings)
