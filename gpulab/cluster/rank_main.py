"""The program every rank runs: ``python -m gpulab.cluster.rank_main [options]`` under mpiexec, mpirun or srun.

Each rank times every collective at every size and checks its own result; rank 0 prints one JSON
object per line on standard output as soon as it is known, so the parent (or a person watching a
Slurm job) sees the points as they come and keeps those measured before a fault:

* ``{"event": "hello", "ranks", "hosts", "backend", "library", ...}`` once, after MPI started;
* ``{"event": "point", "collective", "message_bytes", "count", "seconds", "seconds_iqr",
  "algbw_gb_s", "busbw_gb_s", "busbw_iqr", "repeats", "wrong"}`` per collective and size;
* ``{"event": "plain", ...}`` the same for a plain ``Allreduce`` loop (``--plain-allreduce``, the bench);
* ``{"event": "done"}`` at the end.

Timing (MPI): a barrier, then one call timed with ``MPI.Wtime`` on every rank; the slowest rank's
time is the call's time (a collective is done when its last rank is). One untimed warm-up call sizes
the repeats to ``--seconds-per-point`` (all ranks agree: they use the slowest warm-up); the point is
the median of the repeats. The result of the last timed call is checked on every rank; ``wrong`` is
the sum over ranks of the elements that differ. A rank that fails prints its traceback on its
standard error and aborts the job, so the others do not wait for it forever.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gpulab.cluster import busbw, patterns
from gpulab.cluster.timing import point_fields, repeats_for


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m gpulab.cluster.rank_main", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("mpi", "nccl"), default="mpi")
    parser.add_argument("--collectives", default=",".join(busbw.COLLECTIVES), help="comma-separated")
    parser.add_argument("--sizes", default="8,1024,1048576", help="message sizes S in bytes, comma-separated")
    parser.add_argument("--seconds-per-point", type=float, default=0.05)
    parser.add_argument("--stderr-dir", help="each rank writes its standard error to DIR/rank-N.stderr")
    parser.add_argument("--report", help="rank 0 writes the gpulab result (JSON) here at the end")
    parser.add_argument("--plain-allreduce", action="store_true", help="also time a plain Allreduce loop")
    # For tests of the parent's fault handling: one rank dies or hangs after some points.
    parser.add_argument("--fault", choices=("die", "hang"), help=argparse.SUPPRESS)
    parser.add_argument("--fault-rank", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--fault-after", type=int, default=1, help=argparse.SUPPRESS)
    # The faulty rank waits for this file before it fails: a test creates it once the points it
    # expects have reached it through the launcher, which may hold output back when a job aborts.
    parser.add_argument("--fault-when", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.collectives = [c for c in args.collectives.split(",") if c]
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    unknown = [c for c in args.collectives if c not in busbw.COLLECTIVES]
    if unknown:
        parser.error(f"unknown collectives {unknown} (known: {', '.join(busbw.COLLECTIVES)})")
    return args


def _redirect_stderr(folder: str, rank: int) -> None:
    """This rank's standard error (Python's and the C libraries') into its own file, so the parent
    can show which rank said what when a rank fails."""
    handle = open(os.path.join(folder, f"rank-{rank}.stderr"), "w", encoding="utf-8")  # kept open: it is stderr now
    sys.stderr.flush()
    os.dup2(handle.fileno(), 2)
    sys.stderr = handle


class Emitter:
    """Rank 0's JSON lines on standard output (flushed at once), also kept for ``--report``."""

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: str, **fields: Any) -> None:
        if self.rank != 0:
            return
        record = {"event": event, **fields}
        self.events.append(record)
        sys.stdout.write(json.dumps(record, allow_nan=False) + "\n")
        sys.stdout.flush()


# ------------------------------------------------------------------ MPI calls


def mpi_call(comm: Any, plan: busbw.Layout, send: np.ndarray, recv: np.ndarray) -> Callable[[], None]:
    """One call of ``plan.collective`` with mpi4py's buffer (upper-case) methods, float32 sum."""
    from mpi4py import MPI

    calls: dict[str, Callable[[], None]] = {
        "allreduce": lambda: comm.Allreduce(send, recv, op=MPI.SUM),
        "allgather": lambda: comm.Allgather(send, recv),
        "reducescatter": lambda: comm.Reduce_scatter_block(send, recv, op=MPI.SUM),
        "broadcast": lambda: comm.Bcast(recv, root=patterns.ROOT),  # in place: recv starts as send
        "reduce": lambda: comm.Reduce(send, recv, op=MPI.SUM, root=patterns.ROOT),
        "alltoall": lambda: comm.Alltoall(send, recv),
    }
    return calls[plan.collective]


def mpi_buffers(plan: busbw.Layout, rank: int) -> tuple[np.ndarray, np.ndarray]:
    send = patterns.send_buffer(np, plan, rank)
    recv = send.copy() if plan.collective == "broadcast" else np.zeros(plan.recv_elements, dtype=np.float32)
    return send, recv


def time_mpi(comm: Any, call: Callable[[], None], budget_seconds: float) -> np.ndarray:
    """Seconds of each timed call, the slowest rank's, after a warm-up that sizes the repeats."""
    from mpi4py import MPI

    call()  # the first call of a size also sets up buffers and connections: not a fair pace
    comm.Barrier()
    start = MPI.Wtime()
    call()
    warmup = comm.allreduce(MPI.Wtime() - start, op=MPI.MAX)
    samples = np.empty(repeats_for(warmup, budget_seconds), dtype=np.float64)
    for i in range(samples.size):
        comm.Barrier()
        start = MPI.Wtime()
        call()
        samples[i] = MPI.Wtime() - start
    comm.Allreduce(MPI.IN_PLACE, samples, op=MPI.MAX)
    return samples


def time_plain_loop(comm: Any, send: np.ndarray, recv: np.ndarray, budget_seconds: float) -> np.ndarray:
    """A plain ``Allreduce`` loop, as anyone would time it: one warm-up, then a loop of k calls
    between two barriers, timed as a whole and divided by k (OSU's way; the reference for the bench)."""
    from mpi4py import MPI

    comm.Barrier()
    start = MPI.Wtime()
    comm.Allreduce(send, recv, op=MPI.SUM)
    k = repeats_for(comm.allreduce(MPI.Wtime() - start, op=MPI.MAX), budget_seconds)
    comm.Barrier()
    start = MPI.Wtime()
    for _ in range(k):
        comm.Allreduce(send, recv, op=MPI.SUM)
    elapsed = comm.allreduce(MPI.Wtime() - start, op=MPI.MAX)
    return np.full(1, elapsed / k)


def measure_mpi(comm: Any, plan: busbw.Layout, budget_seconds: float) -> dict[str, Any]:
    """One point of the MPI backend: timed, then the last call's result checked on every rank."""
    from mpi4py import MPI

    rank = comm.Get_rank()
    send, recv = mpi_buffers(plan, rank)
    samples = time_mpi(comm, mpi_call(comm, plan, send, recv), budget_seconds)
    wrong = comm.allreduce(patterns.numpy_wrong(plan, rank, recv), op=MPI.SUM)
    return point_fields(plan, samples, wrong)


def measure_plain(comm: Any, plan: busbw.Layout, budget_seconds: float) -> dict[str, Any]:
    from mpi4py import MPI

    rank = comm.Get_rank()
    send, recv = mpi_buffers(plan, rank)
    samples = time_plain_loop(comm, send, recv, budget_seconds)
    wrong = comm.allreduce(patterns.numpy_wrong(plan, rank, recv), op=MPI.SUM)
    return point_fields(plan, samples, wrong)


# ------------------------------------------------------------------ the run


def _hello(comm: Any, args: argparse.Namespace, measurer: Any) -> dict[str, Any]:
    import mpi4py
    from mpi4py import MPI

    hosts = comm.allgather(MPI.Get_processor_name())
    library = MPI.Get_library_version().replace("\x00", "").strip().splitlines()[0][:120]
    return {"ranks": comm.Get_size(), "hosts": hosts, "backend": args.backend, "library": library,
            "mpi4py": mpi4py.__version__, "devices": comm.allgather(measurer.device_text())}  # fmt: skip


class MpiMeasurer:
    """The MPI backend's point maker (the NCCL one lives in :mod:`gpulab.cluster.nccl_backend`)."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def device_text(self) -> str:
        return "cpu"

    def measure(self, plan: busbw.Layout, budget_seconds: float) -> dict[str, Any]:
        return measure_mpi(self.comm, plan, budget_seconds)


FAULT_WAIT_S = 120.0  # how long the faulty rank waits for --fault-when before failing anyway


def _maybe_fault(args: argparse.Namespace, rank: int, done: int) -> None:
    if args.fault is None or rank != args.fault_rank or done < args.fault_after:
        return
    if args.fault_when:
        deadline = time.monotonic() + FAULT_WAIT_S
        while not os.path.exists(args.fault_when) and time.monotonic() < deadline:
            time.sleep(0.01)
    print(f"rank {rank}: injected fault ({args.fault}) after {done} points", file=sys.stderr, flush=True)
    if args.fault == "die":
        os._exit(3)
    time.sleep(3600)


def run_rank(comm: Any, args: argparse.Namespace, emit: Emitter) -> None:
    """Every point of the run on this rank; rank 0 emits them."""
    if args.backend == "nccl":
        from gpulab.cluster.nccl_backend import RankNcclMeasurer  # CuPy's NCCL: only the ranks that use it

        measurer: Any = RankNcclMeasurer(comm)
    else:
        measurer = MpiMeasurer(comm)
    emit("hello", **_hello(comm, args, measurer))
    ranks, done = comm.Get_size(), 0
    for collective in args.collectives:
        for size in args.sizes:
            if args.fault is not None:  # rank 0 has printed every point before the fault: a test knows which it keeps
                comm.Barrier()
            _maybe_fault(args, comm.Get_rank(), done)
            emit("point", **measurer.measure(busbw.layout(collective, size, ranks), args.seconds_per_point))
            done += 1
    if args.plain_allreduce:
        for size in args.sizes:
            emit("plain", **measure_plain(comm, busbw.layout("allreduce", size, ranks), args.seconds_per_point))
    emit("done")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if args.stderr_dir:
        _redirect_stderr(args.stderr_dir, rank)
    emit = Emitter(rank)
    try:
        run_rank(comm, args, emit)
    except Exception:
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        comm.Abort(1)  # the other ranks would wait in their next collective forever
        return 1
    if args.report and rank == 0:
        # Deferred: the Result and the lab platform's events would add about 0.1 s to every rank's start.
        from gpulab.cluster.report import write_report

        return write_report(emit.events, args, args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
