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
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from gpulab.lab.partial import DEFAULT_AXES, PointLog
from gpulab.lab.run import Cancelled, Event, ExperimentGen, drive
from gpulab.results import Result

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


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
        raise Interrupted(stop.signum, log.result(experiment, params, signal_name(stop.signum), axes)) from None
    except Cancelled:
        gen.close()
        if guard.fired is None:
            raise
        raise Interrupted(guard.fired, log.result(experiment, params, signal_name(guard.fired), axes)) from None


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
