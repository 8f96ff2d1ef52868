"""Findings: what a breakdown says is wrong, each a key of one vocabulary
(:data:`~gpulab.trace.classify.FINDING_KEYS`) with its evidence (the numbers, the events that
show it), the lab that teaches it, and a sentence in the catalogue (``trace.finding.<key>``).

Each is judged against ``resources/trace/thresholds.toml``. ``memory_bound`` is inferred from
kernel names (a trace holds no bytes or FLOPs per kernel) and its evidence says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from gpulab.catalogue import Message, msg
from gpulab.trace import classify
from gpulab.trace.analysis import EXAMPLES, Breakdown
from gpulab.trace.model import KERNEL, MEMCPY, NCCL, Event


@dataclass(frozen=True)
class Finding:
    """One diagnosis on one rank (and step, when judged on one): ``evidence`` holds the numbers
    (JSON-ready, durations in ns, shares as fractions), ``events`` a few events that show it."""

    key: str
    rank: int
    step: int | None
    message: Message
    advice: Message
    lab: str
    evidence: dict[str, Any] = field(default_factory=dict)
    events: tuple[dict[str, object], ...] = ()

    def to_json(self) -> dict[str, Any]:
        from gpulab.catalogue import to_json

        return {"key": self.key, "rank": self.rank, "step": self.step, "lab": self.lab, "evidence": self.evidence,
                "events": list(self.events), "message": to_json(self.message), "advice": to_json(self.advice)}


def _percent(share: float) -> str:
    return f"{share:.0%}"


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.2f}"


def _longest(events: Iterable[Event], count: int = EXAMPLES) -> tuple[dict[str, object], ...]:
    return tuple(e.brief() for e in sorted(events, key=lambda e: -e.dur_ns)[:count])


def _finding(key: str, part: Breakdown, step: int | None, evidence: dict[str, Any],
             events: tuple[dict[str, object], ...], **fields: object) -> Finding:  # fmt: skip
    return Finding(key, part.rank, step, msg(f"trace.finding.{key}", **fields), msg(f"trace.advice.{key}"),
                   classify.lab_of(key), evidence, events)  # fmt: skip


def launch_bound(part: Breakdown, step: int | None) -> Finding | None:
    idle = part.idle_by_cause["cpu_launch"]
    share = part.share(idle)
    if share < classify.limit("launch_bound", "min_idle_share"):
        return None
    gaps = sorted((g for g in part.gaps if g.causes["cpu_launch"]), key=lambda g: -g.causes["cpu_launch"])
    examples = tuple(g.culprit.brief() for g in gaps[:EXAMPLES] if g.culprit is not None)
    evidence = {"idle_waiting_for_launch_ns": idle, "share": round(share, 6), "gaps": len(gaps),
                "window_ns": part.window_ns}  # fmt: skip
    return _finding("launch_bound", part, step, evidence, examples, percent=_percent(share), ms=_ms(idle),
                    gaps=len(gaps))  # fmt: skip


def small_kernels(part: Breakdown, step: int | None) -> Finding | None:
    if not part.kernels:
        return None
    share = part.tiny_kernels / part.kernels
    if share < classify.limit("small_kernels", "min_share_of_kernels"):
        return None
    tiny_us = classify.limit("small_kernels", "tiny_kernel_us")
    tiny = [e for e in part.events if e.kind == KERNEL and e.dur_ns < tiny_us * 1000]
    names = Counter(e.name for e in tiny).most_common(EXAMPLES)
    evidence = {"tiny_kernels": part.tiny_kernels, "kernels": part.kernels, "share_of_kernels": round(share, 6),
                "tiny_kernel_ns": part.tiny_kernel_ns, "tiny_kernel_us": tiny_us,
                "most_common": [{"name": n, "count": c} for n, c in names]}  # fmt: skip
    return _finding("small_kernels", part, step, evidence, _longest(tiny), count=part.tiny_kernels,
                    kernels=part.kernels, percent=_percent(share), us=f"{tiny_us:g}")  # fmt: skip


def pageable_copies(part: Breakdown, step: int | None) -> Finding | None:
    if not part.pageable_copies:
        return None
    share = part.share(part.pageable_ns)
    if part.pageable_bytes < classify.limit("pageable_copies", "min_bytes") and \
            share < classify.limit("pageable_copies", "min_share"):  # fmt: skip
        return None
    copies = [e for e in part.events if e.kind == MEMCPY and e.memory == "pageable"]
    evidence = {"copies": part.pageable_copies, "bytes": part.pageable_bytes, "copy_ns": part.pageable_ns,
                "share": round(share, 6)}  # fmt: skip
    return _finding("pageable_copies", part, step, evidence, _longest(copies), count=part.pageable_copies,
                    mb=f"{part.pageable_bytes / 1e6:.1f}", ms=_ms(part.pageable_ns))  # fmt: skip


def transfers_on_critical_path(part: Breakdown, step: int | None) -> Finding | None:
    share = part.share(part.host_copy_exposed_ns)
    if share < classify.limit("transfers_on_critical_path", "min_share"):
        return None
    copies = [e for e in part.events if e.kind == MEMCPY and e.direction in ("h2d", "d2h")]
    evidence = {"exposed_copy_ns": part.host_copy_exposed_ns, "share": round(share, 6),
                "copy_ns": part.host_copy_ns}  # fmt: skip
    return _finding("transfers_on_critical_path", part, step, evidence, _longest(copies), percent=_percent(share),
                    ms=_ms(part.host_copy_exposed_ns))  # fmt: skip


def data_loading(part: Breakdown, step: int | None) -> Finding | None:
    idle = part.idle_by_cause["data"]
    share = part.share(idle)
    if share < classify.limit("data_loading", "min_share"):
        return None
    ranges = {id(g.culprit): g.culprit for g in part.gaps if g.causes["data"] and g.culprit is not None}
    evidence = {"idle_waiting_for_data_ns": idle, "share": round(share, 6)}
    return _finding("data_loading", part, step, evidence, _longest(ranges.values()), percent=_percent(share),
                    ms=_ms(idle))  # fmt: skip


def no_overlap(part: Breakdown, step: int | None) -> Finding | None:
    share = part.share(part.host_copy_ns)
    kernels = [e for e in part.events if e.kind == KERNEL]
    if not kernels or share < classify.limit("no_overlap", "min_copy_share") or part.host_copy_overlapped_ns > 0:
        return None
    copies = [e for e in part.events if e.kind == MEMCPY and e.direction in ("h2d", "d2h")]
    reason = _why_no_overlap(part, copies, kernels)
    evidence = {"copy_ns": part.host_copy_ns, "share": round(share, 6), "copy_under_kernel_ns": 0,
                "streams": sorted(part.lanes), "reason": reason.key}  # fmt: skip
    return _finding("no_overlap", part, step, evidence, _longest(copies), percent=_percent(share),
                    reason=reason)  # fmt: skip


def _why_no_overlap(part: Breakdown, copies: list[Event], kernels: list[Event]) -> Message:
    """The reason in the streams lab's own words (its diagnosis messages)."""
    if len(part.lanes) <= 1:
        return msg("streams.diagnosis.one-stream")
    if any(e.memory == "pageable" for e in copies):
        return msg("streams.diagnosis.pageable")
    if any(e.lane == "default" for e in kernels):
        return msg("streams.diagnosis.default-stream")
    return msg("streams.diagnosis.unexplained")


def comm_not_overlapped(part: Breakdown, step: int | None) -> Finding | None:
    share = part.share(part.comm_total_ns)
    if not part.comm_total_ns or share < classify.limit("comm_not_overlapped", "min_comm_share"):
        return None
    overlapped = part.comm_overlapped_ns / part.comm_total_ns
    if overlapped >= classify.limit("comm_not_overlapped", "max_overlapped_share"):
        return None
    collectives = [e for e in part.events if e.kind == NCCL]
    evidence = {"communication_ns": part.comm_total_ns, "share": round(share, 6),
                "overlapped_share": round(overlapped, 6), "exposed_ns": part.communication_ns}  # fmt: skip
    return _finding("comm_not_overlapped", part, step, evidence, _longest(collectives), percent=_percent(share),
                    overlapped=_percent(overlapped))  # fmt: skip


def memory_bound(part: Breakdown, step: int | None) -> Finding | None:
    if not part.kernel_ns:
        return None
    share = part.memory_bound_named_ns / part.kernel_ns
    if share < classify.limit("memory_bound", "min_share_of_kernel_time"):
        return None
    named = [e for e in part.events if e.kind == KERNEL and classify.is_memory_bound_by_name(e.name)]
    time_by_name: Counter[str] = Counter()
    for event in named:
        time_by_name[event.name] += event.dur_ns
    evidence = {"kernel_ns": part.memory_bound_named_ns, "share_of_kernel_time": round(share, 6),
                "inferred_from": "kernel names", "top": [{"name": n, "ns": t} for n, t in
                                                         time_by_name.most_common(EXAMPLES)]}  # fmt: skip
    return _finding("memory_bound", part, step, evidence, _longest(named), percent=_percent(share))


def sync_stalls(part: Breakdown, step: int | None) -> Finding | None:
    idle = part.idle_by_cause["sync"]
    share = part.share(idle)
    if share < classify.limit("sync_stalls", "min_idle_share"):
        return None
    calls = {id(g.culprit): g.culprit for g in part.gaps if g.causes["sync"] and g.culprit is not None}
    evidence = {"idle_after_sync_ns": idle, "share": round(share, 6), "sync_calls": part.sync_calls,
                "sync_ns": part.sync_ns}  # fmt: skip
    return _finding("sync_stalls", part, step, evidence, _longest(calls.values()), percent=_percent(share),
                    ms=_ms(idle), calls=part.sync_calls)  # fmt: skip


JUDGES: dict[str, Callable[[Breakdown, int | None], Finding | None]] = {
    "launch_bound": launch_bound, "small_kernels": small_kernels, "pageable_copies": pageable_copies,
    "transfers_on_critical_path": transfers_on_critical_path, "data_loading": data_loading,
    "no_overlap": no_overlap, "comm_not_overlapped": comm_not_overlapped, "memory_bound": memory_bound,
    "sync_stalls": sync_stalls,
}  # fmt: skip
assert tuple(JUDGES) == classify.FINDING_KEYS


def judge(part: Breakdown, step: int | None = None) -> list[Finding]:
    """Every finding of one rank's window, in the vocabulary's order."""
    if part.window_ns <= 0:
        return []
    return [found for judge_one in JUDGES.values() if (found := judge_one(part, step)) is not None]
