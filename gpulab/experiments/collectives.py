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
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from gpulab import hostmem
from gpulab.catalogue import Message, msg, render
from gpulab.cluster import busbw
from gpulab.cluster.mpi_backend import (
    INSTALL_HINT,
    RankFailure,
    launch_command,
    launch_env,
    mpi_status,
    rank_folder,
    stderr_text,
    stream_events,
)
from gpulab.cluster.nccl_backend import nccl_status, run_local
from gpulab.cluster.report import BadEvent, Collector, TooManyPoints, fit_sizes
from gpulab.lab.base import (
    CheckedParams,
    Context,
    Event,
    ExperimentError,
    ExperimentGen,
    Progress,
    param,
    params_to_dict,
    powers_of_two,
)
from gpulab.lab.declare import Lab

TITLE = render("experiment.collectives.title")
DESCRIPTION = render("experiment.collectives.description")

COLLECTIVES = busbw.COLLECTIVES
SIZE_PRESETS = (
    ("standard", powers_of_two(3, 26)),  # 8 B ... 64 MiB, every power of two
    ("quick", powers_of_two(3, 21, 2)),  # 8 B ... 2 MiB
    ("full", powers_of_two(3, 30)),  # 8 B ... 1 GiB, as memory allows
)


@dataclass(frozen=True)
class Params(CheckedParams):
    backend: Literal["auto", "mpi", "nccl"] = param("auto")
    ranks: int = param(2, min=1, max=4096)
    collectives: tuple[str, ...] = param(COLLECTIVES, choices=COLLECTIVES)
    sizes: tuple[int, ...] = param(SIZE_PRESETS[0][1], unit="B", min=4, max=1 << 30, presets=SIZE_PRESETS)
    seconds_per_point: float = param(0.05, unit="s", min=0.0001, max=10.0)
    timeout_s: float = param(60.0, unit="s", min=1.0, max=3600.0)


# ------------------------------------------------------------------ choosing and running a backend


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


# CPU ranks this machine may start: a few per core (they take turns on it: --oversubscribe), and
# no more than its free memory holds at about what one Python rank with numpy and mpi4py uses.
RANKS_PER_CORE = 8
RANK_BYTES = 160 << 20


def rank_limit(cores: int | None, free_bytes: int | None) -> tuple[int, Message]:
    """How many MPI ranks this machine can hold and the reason that sets the bound."""
    by_cores = max(1, (cores or 1) * RANKS_PER_CORE)
    if free_bytes and max(1, free_bytes // RANK_BYTES) < by_cores:
        by_memory = max(1, free_bytes // RANK_BYTES)
        return by_memory, msg("collectives.limit.memory", gib=f"{free_bytes / 2**30:.1f}", mib=RANK_BYTES >> 20)
    return by_cores, msg("collectives.limit.cores", cores=cores or 1, per_core=RANKS_PER_CORE)


def check_ranks(ranks: int, cores: int | None, free_bytes: int | None) -> None:
    """ExperimentError, before anything starts, when ``ranks`` CPU ranks would swamp this machine."""
    limit, reason = rank_limit(cores, free_bytes)
    if ranks > limit:
        raise ExperimentError(msg("collectives.error.too-many-ranks", ranks=ranks, limit=limit, reason=reason))


def rank_args(collectives: Sequence[str], sizes: Sequence[int], seconds_per_point: float,
              backend: str = "mpi") -> list[str]:  # fmt: skip
    """The rank program's options for this run."""
    return ["--backend", backend, "--collectives", ",".join(collectives), "--sizes", ",".join(map(str, sizes)),
            "--seconds-per-point", repr(float(seconds_per_point))]  # fmt: skip


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Every chosen collective at every size on ``ranks`` ranks, each point checked; busbw against size."""
    backend, choice_notes = choose_backend(params)
    if backend == "nccl":
        return (yield from run_local(params, ctx, choice_notes))
    check_ranks(params.ranks, os.cpu_count(), hostmem.available_memory_bytes())
    sizes, size_notes = fit_sizes(params, hostmem.available_memory_bytes())
    if not sizes:
        raise ExperimentError(size_notes[0])
    collector = Collector("mpi", params_to_dict(params))
    yield Progress(0.0, msg("progress.collectives.starting", ranks=params.ranks))
    with rank_folder() as folder:  # the ranks' standard error; removed however the run ends
        command = launch_command(mpi_status().launcher or "mpiexec", params.ranks,
                                 [*rank_args(params.collectives, sizes, params.seconds_per_point),
                                  "--stderr-dir", str(folder)])  # fmt: skip
        failure = yield from _stream(collector, command, params, ctx, len(sizes) * len(params.collectives), folder)
    yield Progress(1.0, msg("progress.done"))
    notes = [*choice_notes, *size_notes, *([failure_note(failure, collector.points)] if failure else [])]
    result = collector.result(notes)
    return replace(result, partial=failure_marker(failure, collector)) if failure else result


def _stream(collector: Collector, command: list[str], params: Params, ctx: Context, total: int,
            folder: Path) -> Generator[Event, None, RankFailure | None]:  # fmt: skip
    """Yield the job's points as they come; the failure (if any) is the generator's value. A line
    that is not a well-formed event (or a point past the bound) stops the job as a failed rank does."""
    events = stream_events(command, launch_env(), params.timeout_s, ctx.check_cancelled, stderr_dir=folder)
    try:
        for event in events:
            partial = collector.add(event)
            if partial is not None:
                yield Progress(collector.points / total, msg("progress.collectives.point",
                                                             collective=busbw.display_name(event["collective"]),
                                                             size=hostmem.bytes_text(event["message_bytes"])))
                yield partial
    except BadEvent as bad:
        events.close()  # stops the job before its standard error is read
        reason = bad.message if isinstance(bad, TooManyPoints) else msg("collectives.failure.bad-line",
                                                                         problem=bad.message)  # fmt: skip
        failure = RankFailure(reason, stderr_text(folder))
    except RankFailure as died:
        failure = died
    else:
        return None
    finally:
        events.close()
    if not collector.points:
        raise ExperimentError(failure_note(failure, 0)) from None
    return failure


def failure_note(failure: RankFailure, points: int) -> Message:
    """The note a run cut short by its ranks carries: why, the points kept, each rank's standard error."""
    return msg("collectives.error.failed", reason=failure.reason, stderr=failure.stderr or "-", points=points)


def failure_marker(failure: RankFailure, collector: Collector) -> dict[str, object]:
    """The result's ``partial`` marker for a run its ranks cut short (see :mod:`gpulab.results`)."""
    last = None
    for series in collector.series.values():  # the last point of the last series that has one
        if series.points:
            last = {"series": series.name, "x": series.points[-1].x}
    return {"cause": "rank failure", "at": datetime.now(timezone.utc).isoformat(), "host": socket.gethostname(),
            "points": collector.points, "last_point": last, "reason": failure.reason.text,
            "ranks": failure.ranks, "stderr": failure.stderr}  # fmt: skip


LAB = Lab("collectives", section="cluster", order=20, page="collectives",
          quick=("sizes=quick", "seconds_per_point=0.005"))
