"""How a lab's run is driven, and what it yields on the way: the part of the lab platform the
front end's job runner needs (kept apart from parameters and declarations, which it does not,
so the window imports little before its first paint).

A run is a generator that yields :class:`Progress` and :class:`PartialPoint` events and *returns*
a :class:`~gpulab.results.Result`. Whoever drives it may stop between yields: cancelling closes
the generator, so its ``finally`` blocks run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from gpulab.catalogue import Message, plain, render

if TYPE_CHECKING:
    from gpulab.results import Point, Provenance, Result


class ExperimentError(Exception):
    """An experiment could not run; the message says why in plain words.

    Raised with a keyed :class:`~gpulab.catalogue.Message` (or a plain English string), kept in
    :attr:`message` so a front end renders it in the reader's language; ``str(exc)`` is the English.
    """

    def __init__(self, message: Message | str = "") -> None:
        self.message = message if isinstance(message, Message) else plain(str(message))
        super().__init__(render(self.message))


class ParamError(ExperimentError, ValueError):
    """A parameter value is unknown or cannot be converted to its type."""


class Cancelled(ExperimentError):
    """The run was cancelled before it finished."""


@dataclass(frozen=True)
class Progress:
    """How far a run has got (``fraction`` in [0, 1]) and what it is doing now."""

    fraction: float
    message: Message | str = ""


@dataclass(frozen=True)
class PartialPoint:
    """A point that has just been measured, so curves can grow live.

    ``provenance`` (optional) says what kind of number it is, so a front end can style the
    curve (dashed for modelled) from its first point, before the Result arrives. ``series`` is
    the series' English name; the labs give it as a :class:`~gpulab.catalogue.Note` carrying
    the series' label message, so a front end can show the name in the reader's language."""

    series: str
    point: Point
    provenance: Provenance | None = None


Event = Progress | PartialPoint
ExperimentGen = Generator[Event, None, "Result"]  # a name only: the results module loads with the first run


@dataclass
class Context:
    """What a running experiment may use: a cancel flag and the device to run on."""

    cancel_event: threading.Event = field(default_factory=threading.Event)
    device_index: int | None = None

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def check_cancelled(self) -> None:
        """Raise Cancelled if someone asked this run to stop (for long inner loops)."""
        if self.cancel_event.is_set():
            raise Cancelled("cancelled")



T = TypeVar("T")


def drain(gen: Generator[Any, Any, T]) -> T:
    """A generator run to its end, its yields dropped: what it returns (a reader or a model that
    reports progress to a page, called where nothing listens)."""
    while True:
        try:
            next(gen)
        except StopIteration as done:
            return done.value
def drive(
    gen: ExperimentGen,
    on_event: Callable[[Event], None] | None = None,
    cancel_event: threading.Event | None = None,
) -> Result:
    """Run an experiment generator to its end and return its Result.

    Between yields the generator is stopped (closed) if ``cancel_event`` is set, and
    :class:`Cancelled` is raised.
    """
    try:
        while True:
            if cancel_event is not None and cancel_event.is_set():
                gen.close()
                raise Cancelled("cancelled")
            event = next(gen)
            if on_event is not None:
                on_event(event)
    except StopIteration as stop:
        from gpulab.results import Result

        if not isinstance(stop.value, Result):
            raise ExperimentError("the experiment ended without a result") from None
        return stop.value
