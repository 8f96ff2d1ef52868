"""A run's points so far, kept as a Result marked partial when the run is stopped before its end.

The command line (:mod:`gpulab.commands.interrupt`, on a signal) and the window (closed while a
lab runs) record a run's events with :class:`PointLog` as they pass; its :meth:`PointLog.result`
is every point measured so far, with a ``partial`` marker saying why the run stopped, when, on
which machine, after which point and while doing what. The file it is saved as replays.
"""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gpulab.catalogue import msg, render
from gpulab.lab.run import Event, PartialPoint, Progress
from gpulab.results import Point, Provenance, Result, Series

DEFAULT_AXES = ("x", "", "y", "")


@dataclass
class PointLog:
    """The events of a run as they pass (to ``forward``): the points by series, and what it was doing."""

    forward: Callable[[Event], None] | None = None
    points: dict[str, list[Point]] = field(default_factory=dict)
    provenance: dict[str, Provenance] = field(default_factory=dict)
    last: tuple[str, Point] | None = None
    doing: str = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, PartialPoint):
            name = str(event.series)
            self.points.setdefault(name, []).append(event.point)
            if event.provenance is not None:
                self.provenance.setdefault(name, event.provenance)
            self.last = (name, event.point)
        elif isinstance(event, Progress) and event.message:
            self.doing = event.message if isinstance(event.message, str) else render(event.message)
        if self.forward is not None:
            self.forward(event)

    @property
    def count(self) -> int:
        return sum(len(points) for points in self.points.values())

    def result(self, experiment: str, params: Any, cause: str, axes: tuple[str, str, str, str] = DEFAULT_AXES,
               note_key: str = "note.partial.signal") -> Result:  # fmt: skip
        """The points so far as a Result marked partial, stopped by ``cause`` (a signal's name, "the
        window was closed"); ``axes`` = (x label, x unit, y label, y unit)."""
        x_label, x_unit, y_label, y_unit = axes
        series = tuple(Series(name, self.provenance.get(name) or Provenance("measured", socket.gethostname()),
                              x_label, x_unit, y_label, y_unit, tuple(points))
                       for name, points in self.points.items())  # fmt: skip
        marker = partial_marker(cause, self.count, self.last, self.doing)
        note = msg(note_key, signal=marker["cause"], points=self.count, doing=self.doing or "-")
        return Result(experiment, _params_dict(params), series, (note,), partial=marker)


def partial_marker(cause: str, points: int, last: tuple[str, Point] | None, doing: str) -> dict[str, Any]:
    """What a partial result says of itself: why it stopped, when (UTC), on which machine, the last
    point kept (series and x) and what the run was doing when it stopped."""
    return {"cause": cause, "at": datetime.now(timezone.utc).isoformat(), "host": socket.gethostname(),
            "points": points, "last_point": {"series": last[0], "x": last[1].x} if last else None,
            "doing": doing}  # fmt: skip


def _params_dict(params: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}
    return dict(params or {})
