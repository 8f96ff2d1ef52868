"""Collectives, measured the nccl-tests way: AllReduce, AllGather, ReduceScatter, Broadcast, Reduce
and AlltoAll over message sizes from 8 B up, float32 sum, on N ranks.

Two backends: MPI across CPU ranks on this machine (any machine with the ``mpi`` extra: the lab
starts ``mpiexec`` itself, see :mod:`gpulab.cluster.mpi_backend`), and NCCL across this machine's
GPUs (two or more, :mod:`gpulab.cluster.nccl_backend`). ``auto`` takes NCCL when it can. Each
point is the median time of repeats after a warm-up; y is the bus bandwidth (busbw), the point's
``extra`` has the algorithm bandwidth (algbw), the seconds and ``wrong``: the elements of the
results that were not what the collective must give (nccl-tests' ``#wrong``). Across many nodes
the same rank program runs under mpirun or srun (``gpulab collectives``, see the README) and
rank 0 writes a report the lab opens as replayed.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gpulab import hostmem
from gpulab.catalogue import Message, Note, msg, render
from gpulab.cluster import busbw
from gpulab.cluster.mpi_backend import INSTALL_HINT, RankFailure, launch_command, launch_env, mpi_status, stream_events
from gpulab.lab.base import (
    CheckedParams,
    Context,
    Event,
    ExperimentError,
    ExperimentGen,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    powers_of_two,
)
from gpulab.lab.declare import Lab
from gpulab.results import Point, Provenance, Result, Series, merge_notes

TITLE = render("experiment.collectives.title")
DESCRIPTION = render("experiment.collectives.description")

COLLECTIVES = busbw.COLLECTIVES
SIZE_PRESETS = (
    ("standard", powers_of_two(3, 26)),  # 8 B ... 64 MiB, every power of two
    ("quick", powers_of_two(3, 21, 2)),  # 8 B ... 2 MiB
    ("full", powers_of_two(3, 30)),  # 8 B ... 1 GiB, as memory allows
)
# Share of the free memory the ranks' buffers may take: send, receive and the expected result.
MEMORY_SHARE = 0.5
BUFFERS_PER_RANK = 3


@dataclass(frozen=True)
class Params(CheckedParams):
    backend: Literal["auto", "mpi", "nccl"] = param("auto")
    ranks: int = param(2, min=1, max=4096)
    collectives: tuple[str, ...] = param(COLLECTIVES, choices=COLLECTIVES)
    sizes: tuple[int, ...] = param(SIZE_PRESETS[0][1], unit="B", min=4, max=1 << 30, presets=SIZE_PRESETS)
    seconds_per_point: float = param(0.05, unit="s", min=0.0001, max=10.0)
    timeout_s: float = param(60.0, unit="s", min=1.0, max=3600.0)


AXES = (msg("axis.collectives.message"), "B", msg("axis.collectives.busbw"), "GB/s")


# ------------------------------------------------------------------ building the result


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


# ------------------------------------------------------------------ choosing and running a backend


def nccl_status() -> tuple[int, Message | None]:
    """(CUDA devices usable for NCCL, the reason NCCL cannot run or None)."""
    from gpulab.cluster.nccl_backend import nccl_status as status

    return status()


def choose_backend(params: Params) -> tuple[str, list[Message]]:
    """The backend to run and notes on the choice; ExperimentError says what to install when none can."""
    if params.backend in ("auto", "nccl"):
        gpus, reason = nccl_status()
        if reason is None and params.backend == "nccl" and params.ranks > gpus:
            raise ExperimentError(msg("collectives.error.nccl-ranks", ranks=params.ranks, gpus=gpus))
        if reason is None:
            return "nccl", []
        if params.backend == "nccl":
            raise ExperimentError(msg("collectives.error.no-nccl", reason=reason))
        # With no GPU at all the CPU-ranks note says enough; with one, say why NCCL did not run.
        auto_note = [msg("note.collectives.auto-mpi", reason=reason)] if gpus else []
    else:
        auto_note = []
    status = mpi_status()
    if not status.available:
        raise ExperimentError(msg("collectives.error.no-mpi", reason=status.reason or "", command=INSTALL_HINT))
    return "mpi", auto_note


def fit_sizes(params: Params, available_bytes: int | None) -> tuple[list[int], list[Message]]:
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


def rank_args(collectives: Sequence[str], sizes: Sequence[int], seconds_per_point: float,
              backend: str = "mpi") -> list[str]:  # fmt: skip
    """The rank program's options for this run."""
    return ["--backend", backend, "--collectives", ",".join(collectives), "--sizes", ",".join(map(str, sizes)),
            "--seconds-per-point", repr(float(seconds_per_point))]  # fmt: skip


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Every chosen collective at every size on ``ranks`` ranks, each point checked; busbw against size."""
    backend, choice_notes = choose_backend(params)
    if backend == "nccl":
        from gpulab.cluster.nccl_backend import run_local

        return (yield from run_local(params, ctx, choice_notes))
    sizes, size_notes = fit_sizes(params, hostmem.available_memory_bytes())
    if not sizes:
        raise ExperimentError(size_notes[0])
    command = launch_command(mpi_status().launcher or "mpiexec", params.ranks,
                             rank_args(params.collectives, sizes, params.seconds_per_point))  # fmt: skip
    collector = Collector("mpi", params_to_dict(params))
    yield Progress(0.0, msg("progress.collectives.starting", ranks=params.ranks))
    failure = yield from _stream(collector, command, params, ctx, len(sizes) * len(params.collectives))
    yield Progress(1.0, msg("progress.done"))
    return collector.result([*choice_notes, *size_notes, *failure])


def _stream(collector: Collector, command: list[str], params: Params, ctx: Context,
            total: int) -> Generator[Event, None, list[Message]]:  # fmt: skip
    """Yield the job's points as they come; the failure note (if any) is the generator's value."""
    try:
        for event in stream_events(command, launch_env(), params.timeout_s, ctx.check_cancelled):
            partial = collector.add(event)
            if partial is not None:
                yield Progress(collector.points / total, msg("progress.collectives.point",
                                                             collective=busbw.display_name(event["collective"]),
                                                             size=hostmem.bytes_text(event["message_bytes"])))
                yield partial
    except RankFailure as failure:
        note = msg("collectives.error.failed", reason=failure.reason, stderr=failure.stderr or "-",
                   points=collector.points)  # fmt: skip
        if not collector.points:
            raise ExperimentError(note) from None
        return [note]
    return []


# ------------------------------------------------------------------ many nodes: rank 0's report


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


LAB = Lab("collectives", section="cluster", order=20, page="collectives",
          quick=("sizes=quick", "seconds_per_point=0.005"))
