"""Keeping what a headless run measured when it is stopped by a signal.

``gpulab run`` and ``gpulab collectives`` drive a lab through :func:`drive_keeping`: SIGINT,
SIGTERM and SIGHUP stop the run at once (the lab's ``finally`` blocks run, an ``mpiexec`` job is
stopped), and the points it had yielded become a Result marked partial (which signal, when,
where, after which point and while doing what), which the command writes as it would have
written the whole one. The exit status is 130 for SIGINT and 128 + the signal's number otherwise,
as a shell reports a process the signal killed.
"""

from __future__ import annotations

import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import FrameType
from typing import Any

from gpulab.catalogue import msg, render
from gpulab.lab.run import Cancelled, Event, ExperimentGen, PartialPoint, Progress, drive
from gpulab.results import Point, Provenance, Result, Series

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
DEFAULT_AXES = ("x", "", "y", "")


class Interrupted(BaseException):
    """A signal stopped the run. A BaseException, as KeyboardInterrupt is: a lab's ``except
    Exception`` must not swallow it. ``partial`` is the Result of the points measured before."""

    def __init__(self, signum: int, partial: Result | None = None) -> None:
        self.signum = signum
        self.partial = partial
        super().__init__(signal_name(signum))

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class SignalGuard:
    """SIGINT, SIGTERM and SIGHUP while a command runs (a context manager; the previous handlers
    come back on the way out). The first sets ``cancel`` (worker threads stop) and, while
    :attr:`armed` (during the run), raises :class:`Interrupted` in the main thread; outside the run
    (writing the result) it is only remembered in :attr:`fired`, so no file is cut in half. Later
    signals are ignored: a second Ctrl-C does not cut the partial result's writing short."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel
        self.armed = False
        self.fired: int | None = None
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.fired is not None:
            return
        self.fired = signum
        self.cancel.set()
        if self.armed:
            raise Interrupted(signum)

    def __enter__(self) -> SignalGuard:
        self._previous = {sig: signal.signal(sig, self._handle) for sig in SIGNALS}
        return self

    def __exit__(self, *_exc: object) -> None:
        for sig, old in self._previous.items():
            signal.signal(sig, old)

    @contextmanager
    def arming(self) -> Iterator[None]:
        """Inside: a signal raises :class:`Interrupted` at once (or already has, if one came before)."""
        if self.fired is not None:
            raise Interrupted(self.fired)
        self.armed = True
        try:
            yield
        finally:
            self.armed = False


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
            self.doing = render(event.message)
        if self.forward is not None:
            self.forward(event)

    @property
    def count(self) -> int:
        return sum(len(points) for points in self.points.values())

    def result(self, experiment: str, params: Any, signum: int,
               axes: tuple[str, str, str, str] = DEFAULT_AXES) -> Result:  # fmt: skip
        """The points so far as a Result marked partial; ``axes`` = (x label, x unit, y label, y unit)."""
        x_label, x_unit, y_label, y_unit = axes
        series = tuple(Series(name, self.provenance.get(name) or Provenance("measured", socket.gethostname()),
                              x_label, x_unit, y_label, y_unit, tuple(points))
                       for name, points in self.points.items())  # fmt: skip
        marker = partial_marker(signal_name(signum), self.count, self.last, self.doing)
        note = msg("note.partial.signal", signal=marker["cause"], points=self.count, doing=self.doing or "-")
        return Result(experiment, _params_dict(params), series, (note,), partial=marker)


def partial_marker(cause: str, points: int, last: tuple[str, Point] | None, doing: str) -> dict[str, Any]:
    """What a partial result says of itself: why it stopped, when (UTC), on which machine, the last
    point kept (series and x) and what the run was doing when it stopped."""
    return {"cause": cause, "at": datetime.now(timezone.utc).isoformat(), "host": socket.gethostname(),
            "points": points, "last_point": {"series": last[0], "x": last[1].x} if last else None,
            "doing": doing}  # fmt: skip


def _params_dict(params: Any) -> dict[str, Any]:
    import dataclasses

    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}
    return dict(params or {})


def drive_keeping(gen: ExperimentGen, guard: SignalGuard, experiment: str, params: Any,
                  on_event: Callable[[Event], None] | None,
                  axes: tuple[str, str, str, str] = DEFAULT_AXES) -> Result:  # fmt: skip
    """:func:`~gpulab.lab.run.drive` under ``guard``: a signal becomes :class:`Interrupted`, which
    carries the points measured so far as a partial Result."""
    log = PointLog(on_event)
    try:
        with guard.arming():
            return drive(gen, log, guard.cancel)
    except Interrupted as stop:
        gen.close()  # its finally blocks: an mpiexec job stopped, a temporary folder removed
        raise Interrupted(stop.signum, log.result(experiment, params, stop.signum, axes)) from None
    except Cancelled:
        gen.close()
        if guard.fired is None:
            raise
        raise Interrupted(guard.fired, log.result(experiment, params, guard.fired, axes)) from None


def report_interrupted(stop: Interrupted, prog: str, destination: str | None, written: int) -> int:
    """Say in one line on standard error why the run stopped and where its points went; the exit
    status for the signal. ``written`` is what writing the partial result returned (0: as asked)."""
    result = stop.partial
    points = sum(len(s.points) for s in result.series) if result is not None else 0
    doing = f" while {result.partial['doing']}" if result is not None and result.partial and \
        result.partial.get("doing") else ""  # fmt: skip
    if destination in (None, "-"):
        where = "printed on standard output"
    elif written == 0:
        where = f"saved to {destination}"
    else:
        where = "kept where the line above says"
    print(f"{prog}: interrupted by {signal_name(stop.signum)}{doing}; the {points} points measured so far "
          f"were {where}, marked partial", file=sys.stderr)  # fmt: skip
    return stop.exit_code
