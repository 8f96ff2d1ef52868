"""The checks run one at a time for a front end that shows each one's turn as it comes.

:func:`run_live` runs the same checks as :func:`gpulab.check.run.run_checks` (it calls it, one
check per call, so a check that breaks is a failed row exactly as on the command line) and says
which checks it will run (a :class:`CheckPlan`), then before and after each check which one it
is (a :class:`CheckStep`, with the check's rows once it is over). Its progress messages come as
:class:`~gpulab.lab.run.Progress`
(the share of the checks done so far), the events a front end's job runner already forwards.
It returns one :class:`~gpulab.check.model.CheckReport` for the whole run.

The outlier rule compares rows of one check only, so judging each check's rows apart gives the
same verdicts as one call for all of them.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable
from dataclasses import dataclass

from gpulab.catalogue import Message
from gpulab.lab.run import Progress

from .model import CheckReport, Row
from .registry import Context
from .run import run_checks, selected


@dataclass(frozen=True)
class CheckStep:
    """Check ``check`` is starting (``done`` False) or over, with the ``rows`` it found (none when
    another check's row already said it all, as the GPU checks do on a machine without a GPU)."""

    check: str
    done: bool = False
    rows: tuple[Row, ...] = ()


@dataclass(frozen=True)
class CheckPlan:
    """The checks this run will run, in their order: the first event of a run."""

    checks: tuple[str, ...]


LiveEvent = Progress | CheckPlan | CheckStep


def planned(ctx: Context, only: Iterable[str] | None = None) -> list[str]:
    """The ids of the checks a run of ``ctx.mode`` (or just ``only``) will run, in their order."""
    return [check.id for check in selected(ctx, only)]


def run_live(ctx: Context, only: Iterable[str] | None = None) -> Generator[LiveEvent, None, CheckReport]:
    """The plan, then each check in turn: a CheckStep before it, its progress, a CheckStep with its
    rows after it."""
    ids = planned(ctx, only)
    yield CheckPlan(tuple(ids))
    begun = time.perf_counter()
    rows: list[Row] = []
    frame: CheckReport | None = None
    for index, check in enumerate(ids):
        yield CheckStep(check)
        part = yield from _as_progress(run_checks(ctx, [check]), index / len(ids))
        frame = frame or part  # the first check's report has the date the run started
        if ctx.check_cancelled is not None:
            ctx.check_cancelled()  # a check stopped half-way is no verdict: the run ends, its row unshown
        rows.extend(part.rows)
        yield CheckStep(check, True, tuple(part.rows))
    if frame is None:  # no check selected: still a report of this machine
        frame = yield from _as_progress(run_checks(ctx, []), 0.0)
    return CheckReport(rows, ctx.mode, frame.machine, frame.versions, frame.started,
                       round(time.perf_counter() - begun, 2), ctx.require_gpu)


def _as_progress(gen: Generator[Message, None, CheckReport], fraction: float) -> Generator[Progress, None, CheckReport]:
    """The check's progress messages as Progress at ``fraction`` (a check does not say how far it
    is: the bar moves when it is over); closing this closes the check, so its ``finally`` runs."""
    try:
        while True:
            try:
                message = next(gen)
            except StopIteration as done:
                return done.value
            yield Progress(fraction, message)
    finally:
        gen.close()
