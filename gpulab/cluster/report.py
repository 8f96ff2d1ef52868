"""The collectives' points as a Result: what the lab, the NCCL backend on one machine and rank 0
of a run under mpirun or srun all build from the ranks' events (see :mod:`gpulab.cluster.rank_main`).

:class:`Collector` turns ``hello``, ``point`` and ``plain`` events into series (one per collective
and backend) with their provenance; :func:`fit_sizes` keeps the message sizes whose buffers fit in
memory; :func:`write_report` is rank 0's saved Result, which the lab opens as replayed.
"""

from __future__ import annotations

import json
import math
import os
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from gpulab import hostmem
from gpulab.catalogue import Message, Note, msg
from gpulab.cluster import busbw
from gpulab.lab.base import PartialPoint
from gpulab.measure import flagged, flagged_headline, noise_reasons
from gpulab.results import Point, Provenance, Result, Series, merge_notes

COLLECTIVES = busbw.COLLECTIVES
AXES = (msg("axis.collectives.message"), "B", msg("axis.collectives.busbw"), "GB/s")
# Share of the free memory the ranks' buffers may take: send, receive and the expected result.
MEMORY_SHARE = 0.5
BUFFERS_PER_RANK = 3


class SizedRun(Protocol):
    """What :func:`fit_sizes` reads of a run's parameters (the lab's Params have both)."""

    @property
    def ranks(self) -> int: ...

    @property
    def sizes(self) -> Sequence[int]: ...


# Points one run may bring: far above a real sweep (6 collectives x 28 sizes = 168), well below what
# would make a report too big to open again (results.MAX_RESULT_BYTES: about 350 B a point).
MAX_POINTS = 20_000
NUMBER_FIELDS = ("seconds", "algbw_gb_s", "busbw_gb_s")
OPTIONAL_NUMBER_FIELDS = ("seconds_iqr", "busbw_iqr")
COUNT_FIELDS = ("count", "repeats", "wrong")


class BadEvent(ValueError):
    """A rank's (or a launcher's) line that is a JSON object but not a well-formed event, or one
    point too many; ``message`` says which field and why."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.text)


class TooManyPoints(BadEvent):
    """A point past the run's bound (:data:`MAX_POINTS`)."""


def read_line(line: str) -> dict[str, Any] | None:
    """The one reader of the ranks' lines: a JSON object, or None for anything else a launcher may
    print on standard output (a warning, a list). Its fields are checked by :func:`point_of`."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        event = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return event if isinstance(event, dict) else None


@dataclass
class Collector:
    """Points from the ranks' events, as series (one per collective × backend) and partial points.

    Points are kept in lists and become series only when asked for (:attr:`series`, :meth:`result`):
    one point costs the same whether it is the first or the 100,000th."""

    backend: str
    params: Mapping[str, Any]
    hello: dict[str, Any] = field(default_factory=dict)
    plain: list[dict[str, Any]] = field(default_factory=list)
    max_points: int = MAX_POINTS
    _points: dict[str, list[Point]] = field(default_factory=dict)
    _empty: dict[str, Series] = field(default_factory=dict)
    _count: int = 0

    def provenance(self) -> Provenance:
        return provenance_of(self.backend, self.hello)

    def add(self, event: Mapping[str, Any]) -> PartialPoint | None:
        """Take one event; a point comes back as the PartialPoint to yield. A malformed event, or a
        point past :attr:`max_points`, raises :class:`BadEvent`."""
        kind = event.get("event")
        if kind == "hello":
            self.hello = hello_of(event)
        elif kind == "plain":
            point_of(event)  # checked as a point is, kept as it came
            self.plain.append(dict(event))
        elif kind == "point":
            if self._count >= self.max_points:
                raise TooManyPoints(msg("collectives.failure.too-many-points", limit=self.max_points))
            point = point_of(event)
            key = series_key(self.backend, str(event["collective"]))
            if key not in self._empty:
                self._empty[key] = empty_series(self.backend, str(event["collective"]), self.provenance())
                self._points[key] = []
            self._points[key].append(point)
            self._count += 1
            return PartialPoint(self._empty[key].name, point, self._empty[key].provenance)
        return None

    @property
    def points(self) -> int:
        return self._count

    @property
    def series(self) -> dict[str, Series]:
        """The series so far, by key (built on each call: read it once a run is over)."""
        return {key: replace(empty, points=tuple(self._points[key])) for key, empty in self._empty.items()}

    def result(self, notes: Iterable[Note | Message | str] = ()) -> Result:
        ordered = sorted(self.series.values(), key=lambda s: COLLECTIVES.index(s.key.split("-", 1)[1]))
        series = tuple(ordered)
        headline = [found] if (found := flagged_headline(series)) is not None else []
        return Result("collectives", dict(self.params), series, merge_notes(headline, wrong_notes(series), notes,
                                                                            self.standing_notes(),
                                                                            invalid_notes(series)))  # fmt: skip

    def standing_notes(self) -> list[Message]:
        notes = [msg("note.collectives.busbw")]
        ranks = int(self.hello.get("ranks", 0) or 0)
        hosts = sorted(set(self.hello.get("hosts", [])))
        if self.backend == "mpi" and len(hosts) <= 1 and ranks:
            notes.append(msg("note.collectives.cpu-ranks", ranks=ranks))
        cores = os.cpu_count() or 1
        if self.backend == "mpi" and len(hosts) <= 1 and ranks > cores:
            notes.append(msg("note.collectives.oversubscribed", ranks=ranks, cores=cores))
        return notes


def series_key(backend: str, collective: str) -> str:
    return f"{backend}-{collective}"


def empty_series(backend: str, collective: str, provenance: Provenance) -> Series:
    label = msg(f"series.collectives.{backend}", collective=busbw.display_name(collective))
    x_label, x_unit, y_label, y_unit = AXES
    return Series(Note(label), provenance, Note(x_label), x_unit, Note(y_label), y_unit,
                  role="gpu" if backend == "nccl" else "cpu", key=series_key(backend, collective),
                  label=label)  # fmt: skip


def point_of(event: Mapping[str, Any]) -> Point:
    """x = S in bytes, y = busbw GB/s; algbw, seconds, repeats, wrong and the count in ``extra``.

    Every field is checked: a missing or mistyped one raises :class:`BadEvent` naming it. A time or
    rate that is NaN or infinite (what a broken timer gives) keeps the point, flagged implausible
    with the reason and its value left out, so the report never holds a number no loader reads."""
    collective = event.get("collective")
    if collective not in COLLECTIVES:
        raise BadEvent(msg("collectives.failure.bad-field", field="collective", value=_shown(collective),
                           expected=msg("collectives.expected.one-of", names=", ".join(COLLECTIVES))))  # fmt: skip
    size = _number(event, "message_bytes")
    if not math.isfinite(size) or size <= 0:
        raise BadEvent(msg("collectives.failure.bad-field", field="message_bytes", value=_shown(size),
                           expected=msg("collectives.expected.bytes")))  # fmt: skip
    numbers: dict[str, float | None] = {name: _number(event, name) for name in NUMBER_FIELDS}
    numbers.update({name: _optional_number(event, name) for name in OPTIONAL_NUMBER_FIELDS})
    counts = {name: _count(event, name) for name in COUNT_FIELDS}
    bad = [name for name, value in numbers.items() if value is not None and not math.isfinite(value)]
    clean = {name: (None if name in bad else value) for name, value in numbers.items()}
    extra: dict[str, Any] = {"kind": "measured", "algbw_gb_s": clean["algbw_gb_s"], "seconds": clean["seconds"],
                             "seconds_iqr": clean["seconds_iqr"], **counts}  # fmt: skip
    busbw = clean["busbw_gb_s"]
    point = Point(x=size, y=busbw if busbw is not None else 0.0, spread=clean["busbw_iqr"], extra=extra)
    if not bad:  # repeats that disagree (ranks sharing busy cores) make a point no claim may rest on
        return flagged(point, noise_reasons(clean["seconds"] or 0.0, clean["seconds_iqr"], None))
    why = "not a finite number from the ranks: " + ", ".join(f"{name} = {numbers[name]}" for name in bad)
    return flagged(replace(point, extra={**point.extra, "implausible": why}), ["implausible"])


def hello_of(event: Mapping[str, Any]) -> dict[str, Any]:
    """The ``hello`` event, its ``ranks`` (a whole number) and ``hosts`` (names) checked."""
    hello = dict(event)
    if "ranks" in hello:
        hello["ranks"] = _count(hello, "ranks")
    hosts = hello.get("hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts):
        raise BadEvent(msg("collectives.failure.bad-field", field="hosts", value=_shown(hosts),
                           expected=msg("collectives.expected.hosts")))  # fmt: skip
    return hello


def _shown(value: Any) -> str:
    """A field's value for an error message, short."""
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _optional_number(event: Mapping[str, Any], name: str) -> float | None:
    return None if event.get(name) is None else _number(event, name, optional=True)


def _number(event: Mapping[str, Any], name: str, optional: bool = False) -> float:
    value = event.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        expected = msg("collectives.expected.number-or-null" if optional else "collectives.expected.number")
        got = msg("result.problem.missing") if name not in event else _shown(value)
        raise BadEvent(msg("collectives.failure.bad-field", field=name, value=got, expected=expected))
    try:
        return float(value)
    except OverflowError:  # an integer of hundreds of digits
        return math.inf


def _count(event: Mapping[str, Any], name: str) -> int:
    value = event.get(name)
    whole = (isinstance(value, int) and not isinstance(value, bool)) or \
        (isinstance(value, float) and value.is_integer())  # fmt: skip
    if not whole or not isinstance(value, (int, float)) or value < 0:
        got = msg("result.problem.missing") if name not in event else _shown(value)
        raise BadEvent(msg("collectives.failure.bad-field", field=name, value=got,
                           expected=msg("collectives.expected.whole")))  # fmt: skip
    return int(value)


def invalid_notes(series: Sequence[Series]) -> list[Message]:
    """One note per series with points the ranks gave no finite number for."""
    notes = []
    for s in series:
        bad = [p for p in s.points if p.extra.get("implausible")]
        if bad:
            notes.append(msg("note.collectives.invalid", series=s.label or s.name, count=len(bad),
                             sizes=[hostmem.bytes_text(p.x) for p in bad]))  # fmt: skip
    return notes


def device_text(backend: str, hello: Mapping[str, Any]) -> str:
    """'2 CPU ranks on vm', '8 GPU ranks on node1, node2'."""
    ranks = int(hello.get("ranks", 0) or 0)
    hosts = list(dict.fromkeys(hello.get("hosts") or [socket.gethostname()]))
    where = ", ".join(hosts[:4]) + (f" and {len(hosts) - 4} more" if len(hosts) > 4 else "")
    what = "GPU" if backend == "nccl" else "CPU"
    return f"{ranks} {what} ranks on {where}"


def provenance_of(backend: str, hello: Mapping[str, Any]) -> Provenance:
    timing = ("CUDA events around each call on every rank's stream, the slowest rank's time, median of repeats"
              if backend == "nccl" else
              "MPI.Wtime around each call after a barrier, the slowest rank's time, median of repeats")  # fmt: skip
    details = {"backend": backend, "timing": timing, "busbw": "nccl-tests factors (src/*.cu *GetBw)",
               **{k: hello[k] for k in ("ranks", "hosts", "library", "mpi4py", "devices", "nccl") if k in hello}}
    return Provenance("measured", device_text(backend, hello), details)


def wrong_notes(series: Sequence[Series]) -> list[Message]:
    """One note per series with wrong elements: how many, at which sizes."""
    notes = []
    for s in series:
        bad = [p for p in s.points if int(p.extra.get("wrong", 0))]
        if bad:
            total = sum(int(p.extra["wrong"]) for p in bad)
            sizes = [hostmem.bytes_text(p.x) for p in bad]
            notes.append(msg("note.collectives.wrong", series=s.label or s.name, wrong=total, sizes=sizes))
    return notes


def fit_sizes(params: SizedRun, available_bytes: int | None) -> tuple[list[int], list[Message]]:
    """The sizes whose buffers fit in a share of the free memory, and a note naming those left out."""
    sizes = sorted(set(params.sizes))
    if available_bytes is None:
        return sizes, []
    limit = MEMORY_SHARE * available_bytes
    kept = [s for s in sizes if params.ranks * BUFFERS_PER_RANK * s <= limit]
    dropped = [hostmem.bytes_text(s) for s in sizes if s not in kept]
    if not dropped:
        return kept, []
    return kept, [msg("note.collectives.dropped", sizes=dropped, ranks=params.ranks,
                      free=hostmem.bytes_text(available_bytes))]  # fmt: skip


def write_report(events: Sequence[Mapping[str, Any]], args: Any, path: str) -> int:
    """Save the Result of a run under mpirun/srun from rank 0's events at ``path`` (rank 0 calls
    it); if that write fails, the result goes to a fallback file it names. 0 when written as asked."""
    from gpulab.output import emit_json

    params = {"backend": args.backend, "ranks": next((e["ranks"] for e in events if e.get("event") == "hello"), 0),
              "collectives": list(args.collectives), "sizes": list(args.sizes),
              "seconds_per_point": args.seconds_per_point}  # fmt: skip
    collector = Collector(args.backend, params)
    for event in events:
        collector.add(event)
    return emit_json(collector.result().to_json_dict(), path, "gpulab collectives")
