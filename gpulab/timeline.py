"""Timelines: what ran where and when, as a list of operations a Gantt chart can draw.

A :class:`TimelineOp` is one bar: a copy, a kernel, a message on a link. ``lane`` is the queue
it was issued to (a CUDA stream, a rank), ``engine`` the hardware that ran it (the H2D copy
engine, the SMs, the D2H copy engine, a network link), so one list draws either way: a row per
lane or a row per engine. The streams lab fills it from CUDA events or from its discrete-event
model; the cluster labs fill it with communication and compute.

Its JSON form is a plain list of dicts, kept in a result point's ``extra`` (``extra["ops"]``),
so a saved result reopens with its timeline.

    >>> ops = (TimelineOp("H2D 0", "stream 1", "h2d", 0.0, 1e-3, 4096, "h2d"),)
    >>> ops_from_json(ops_to_json(ops)) == ops
    True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Bar",
    "TimelineOp",
    "busy_seconds",
    "layout",
    "op_from_json",
    "op_to_json",
    "ops_from_json",
    "ops_of",
    "ops_to_json",
    "overlap_seconds",
    "row_keys",
    "span_seconds",
]

_FIELDS = ("name", "lane", "engine", "start_s", "duration_s", "bytes", "kind")


@dataclass(frozen=True)
class TimelineOp:
    """One operation on a timeline: ``start_s`` and ``duration_s`` in seconds from the timeline's
    origin, ``bytes`` it moved (0 for a kernel), ``kind`` what it is (``h2d``, ``kernel``,
    ``d2h``, ``host``, ``comm`` ...: the chart colours bars by kind)."""

    name: str
    lane: str
    engine: str
    start_s: float
    duration_s: float
    bytes: int = 0
    kind: str = ""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.start_s) and math.isfinite(self.duration_s)) or self.duration_s < 0:
            raise ValueError(f"{self.name}: start and duration must be finite and the duration >= 0, "
                             f"got {self.start_s!r} and {self.duration_s!r}")

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


def op_to_json(op: TimelineOp) -> dict[str, Any]:
    return {name: getattr(op, name) for name in _FIELDS}


def op_from_json(data: Mapping[str, Any]) -> TimelineOp:
    """One op from its JSON dict; ValueError naming the field when one is missing or of the wrong type."""
    try:
        return TimelineOp(str(data["name"]), str(data["lane"]), str(data["engine"]), float(data["start_s"]),
                          float(data["duration_s"]), int(data.get("bytes") or 0), str(data.get("kind") or ""))
    except KeyError as exc:
        raise ValueError(f"a timeline operation lacks {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a timeline operation is malformed: {exc}") from None


def ops_to_json(ops: Iterable[TimelineOp]) -> list[dict[str, Any]]:
    return [op_to_json(op) for op in ops]


def ops_from_json(data: Iterable[Mapping[str, Any]]) -> tuple[TimelineOp, ...]:
    return tuple(op_from_json(item) for item in data)


def span_seconds(ops: Sequence[TimelineOp]) -> float:
    """From the first start to the last end (0 for no ops)."""
    if not ops:
        return 0.0
    return max(op.end_s for op in ops) - min(op.start_s for op in ops)


def _union_length(intervals: list[tuple[float, float]]) -> float:
    total, reach = 0.0, -math.inf
    for start, end in sorted(intervals):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def busy_seconds(ops: Sequence[TimelineOp], engine: str) -> float:
    """How long ``engine`` had at least one op running."""
    return _union_length([(op.start_s, op.end_s) for op in ops if op.engine == engine])


def overlap_seconds(ops: Sequence[TimelineOp]) -> float:
    """How long at least two *different* engines were busy at once: the overlap streams buy."""
    edges: list[tuple[float, int, str]] = []
    for op in ops:
        if op.duration_s > 0:
            edges += [(op.start_s, 1, op.engine), (op.end_s, -1, op.engine)]
    edges.sort(key=lambda edge: (edge[0], edge[1]))  # ends before starts at the same instant
    running: dict[str, int] = {}
    overlap, previous = 0.0, None
    for time_s, step, engine in edges:
        if previous is not None and sum(1 for count in running.values() if count > 0) >= 2:
            overlap += time_s - previous
        running[engine] = running.get(engine, 0) + step
        previous = time_s
    return overlap


def row_keys(ops: Sequence[TimelineOp], by: str = "lane", order: Sequence[str] = ()) -> list[str]:
    """The rows a chart draws: the distinct lanes (``by="lane"``) or engines (``by="engine"``),
    those named in ``order`` first in that order, the rest in order of first appearance."""
    seen = list(dict.fromkeys(getattr(op, by) for op in ops))
    return [key for key in order if key in seen] + [key for key in seen if key not in order]


@dataclass(frozen=True)
class Bar:
    """Where one op goes on a chart: its row index and its start and end as fractions of the
    time axis (0 = the axis origin, 1 = its end)."""

    row: int
    x0: float
    x1: float
    op: TimelineOp


def layout(ops: Sequence[TimelineOp], by: str = "lane", order: Sequence[str] = (),
           span_s: float | None = None) -> tuple[list[str], list[Bar]]:  # fmt: skip
    """Rows and bars of a Gantt chart, independent of pixels: the axis runs from 0 to ``span_s``
    (default: the last end), so several timelines drawn with one span share a scale."""
    rows = row_keys(ops, by, order)
    end = span_s if span_s is not None else max((op.end_s for op in ops), default=0.0)
    scale = 1.0 / end if end > 0 else 0.0
    bars = [Bar(rows.index(getattr(op, by)), op.start_s * scale, op.end_s * scale, op) for op in ops]
    return rows, bars


def ops_of(extra: Mapping[str, Any]) -> tuple[TimelineOp, ...]:
    """The timeline kept in a point's ``extra["ops"]`` (empty when it has none)."""
    return ops_from_json(extra.get("ops") or ())
