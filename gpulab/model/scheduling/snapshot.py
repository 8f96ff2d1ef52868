"""What ``squeue`` and ``sinfo`` would print at a time of a finished simulation, read from its
saved result (the ``runs``, ``goodput`` and ``failures`` series), so a saved run shows it too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpulab.results import Result


@dataclass(frozen=True)
class QueueRow:
    job: int
    kind: str
    gpus: int
    state: str  # "R" running, "PD" pending
    hours: float  # running: since its start; pending: since it arrived
    nodes: str  # "12-15,40" (running), "" (pending)


@dataclass(frozen=True)
class NodeCounts:
    allocated: int
    idle: int
    down: int
    busy_gpus: int


def node_list(ranges: Any, limit: int = 4) -> str:
    """``[[12, 15], [40, 40]]`` as ``12-15,40`` (the first ``limit`` runs, then ``…``)."""
    parts = [f"{a}-{b}" if a != b else f"{a}" for a, b in ranges]
    return ",".join(parts[:limit]) + (",…" if len(parts) > limit else "")


def snapshot(result: Result, hour: float, nodes: int) -> tuple[list[QueueRow], NodeCounts]:
    """The queue (running jobs first, then pending, each by job id) and the node counts at ``hour``."""
    runs = result.get_series("runs")
    jobs = result.get_series("goodput")
    failures = result.get_series("failures")
    rows: list[QueueRow] = []
    running: set[int] = set()
    allocated: set[int] = set()
    busy = 0
    kinds = {int(p.x): p.extra for p in jobs.points} if jobs is not None else {}
    for point in runs.points if runs is not None else ():
        if point.x <= hour < point.y:
            job = int(point.extra["job"])
            running.add(job)
            busy += int(point.extra["gpus"])
            for a, b in point.extra["nodes"]:
                allocated.update(range(int(a), int(b) + 1))
            rows.append(QueueRow(job, str(kinds.get(job, {}).get("kind", "")), int(point.extra["gpus"]), "R",
                                 hour - point.x, node_list(point.extra["nodes"])))  # fmt: skip
    for job, extra in kinds.items():
        finish = extra.get("finish_h")
        if job in running or extra["arrival_h"] > hour or (finish is not None and finish <= hour):
            continue
        rows.append(QueueRow(job, str(extra.get("kind", "")), int(extra["gpus"]), "PD", hour - extra["arrival_h"], ""))
    down = {int(p.y) for p in (failures.points if failures is not None else ()) if p.x <= hour < p.extra["back_h"]}
    rows.sort(key=lambda r: (r.state != "R", r.job))
    counts = NodeCounts(len(allocated - down), nodes - len(allocated | down), len(down), busy)
    return rows, counts
