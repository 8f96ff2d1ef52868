"""The collectives' points as a Result: what the lab, the NCCL backend on one machine and rank 0
of a run under mpirun or srun all build from the ranks' events (see :mod:`gpulab.cluster.rank_main`).

:class:`Collector` turns ``hello``, ``point`` and ``plain`` events into series (one per collective
and backend) with their provenance; :func:`fit_sizes` keeps the message sizes whose buffers fit in
memory; :func:`write_report` is rank 0's saved Result, which the lab opens as replayed.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpulab import hostmem
from gpulab.catalogue import Message, Note, msg
from gpulab.cluster import busbw
from gpulab.lab.base import PartialPoint
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


@dataclass
class Collector:
    """Points from the ranks' events, as series (one per collective × backend) and partial points."""

    backend: str
    params: Mapping[str, Any]
    hello: dict[str, Any] = field(default_factory=dict)
    series: dict[str, Series] = field(default_factory=dict)
    plain: list[dict[str, Any]] = field(default_factory=list)

    def provenance(self) -> Provenance:
        return provenance_of(self.backend, self.hello)

    def add(self, event: Mapping[str, Any]) -> PartialPoint | None:
        """Take one event; a point comes back as the PartialPoint to yield."""
        kind = event.get("event")
        if kind == "hello":
            self.hello = dict(event)
        elif kind == "plain":
            self.plain.append(dict(event))
        elif kind == "point":
            collective = str(event["collective"])
            point = point_of(event)
            key = series_key(self.backend, collective)
            if key not in self.series:
                self.series[key] = empty_series(self.backend, collective, self.provenance())
            self.series[key] = self.series[key].with_point(point)
            return PartialPoint(self.series[key].name, point, self.series[key].provenance)
        return None

    @property
    def points(self) -> int:
        return sum(len(s.points) for s in self.series.values())

    def result(self, notes: Iterable[Note | Message | str] = ()) -> Result:
        ordered = sorted(self.series.values(), key=lambda s: COLLECTIVES.index(s.key.split("-", 1)[1]))
        series = tuple(ordered)
        return Result("collectives", dict(self.params), series, merge_notes(wrong_notes(series), notes,
                                                                            self.standing_notes()))  # fmt: skip

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
    """x = S in bytes, y = busbw GB/s; algbw, seconds, repeats, wrong and the count in ``extra``."""
    extra = {"kind": "measured", "algbw_gb_s": float(event["algbw_gb_s"]), "seconds": float(event["seconds"]),
             "seconds_iqr": event.get("seconds_iqr"), "repeats": int(event["repeats"]),
             "wrong": int(event["wrong"]), "count": int(event["count"])}  # fmt: skip
    return Point(x=float(event["message_bytes"]), y=float(event["busbw_gb_s"]), spread=event.get("busbw_iqr"),
                 extra=extra)  # fmt: skip


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


def write_report(events: Sequence[Mapping[str, Any]], args: Any, path: str) -> Result:
    """The Result of a run under mpirun/srun from rank 0's events, saved at ``path`` (rank 0 calls it)."""
    params = {"backend": args.backend, "ranks": next((e["ranks"] for e in events if e.get("event") == "hello"), 0),
              "collectives": list(args.collectives), "sizes": list(args.sizes),
              "seconds_per_point": args.seconds_per_point}  # fmt: skip
    collector = Collector(args.backend, params)
    for event in events:
        collector.add(event)
    result = collector.result()
    result.save(Path(path))
    return result
