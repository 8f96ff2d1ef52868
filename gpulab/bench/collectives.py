"""``gpulab bench collectives``: the collectives lab against plain references, side by side in one run.

* MPI: the lab's AllReduce (a barrier and ``MPI.Wtime`` around each call, median of repeats) and a
  plain mpi4py ``Allreduce`` loop (k calls between two barriers, divided by k), same size, same
  ranks, in the same job, round after round: busbw within 10% at 16 MiB on 2 ranks.
* The sweep: all six collectives from 8 B to 64 MiB on 2 ranks, repeats by time budget, as the lab
  runs it: it ends in under 60 s.
* NCCL, with two or more GPUs: the lab's AllReduce busbw against nccl-tests' ``all_reduce_perf`` (when
  it is on PATH; build it from github.com/NVIDIA/nccl-tests) at the same size: within 5%.

Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from gpulab.cluster import mpi_backend
from gpulab.experiments import Context, ExperimentError, drive
from gpulab.experiments import collectives as lab
from gpulab.lab.base import powers_of_two

MPI_TARGET = 0.10
SWEEP_TARGET_S = 60.0
NCCL_TARGET = 0.05
SIZE = 16 << 20
NCCL_SIZE = 256 << 20


def _round(ranks: int, size: int, seconds: float, timeout_s: float) -> tuple[float, float]:
    """(lab busbw, plain-loop busbw) in GB/s from one job that times both."""
    args = [*lab.rank_args(["allreduce"], [size], seconds), "--plain-allreduce"]
    command = mpi_backend.launch_command(mpi_backend.find_launcher() or "mpiexec", ranks, args)
    found = {}
    for event in mpi_backend.stream_events(command, mpi_backend.launch_env(), timeout_s):
        if event.get("event") in ("point", "plain"):
            found[event["event"]] = float(event["busbw_gb_s"])
    return found["point"], found["plain"]


def mpi_side_by_side(ranks: int, size: int, rounds: int, seconds: float) -> bool:
    labs, plains = [], []
    for index in range(rounds):
        got, plain = _round(ranks, size, seconds, 120.0)
        labs.append(got)
        plains.append(plain)
        print(f"round {index + 1}: lab AllReduce {got:.3f} GB/s busbw, plain Allreduce loop {plain:.3f} GB/s")
    ours, theirs = statistics.median(labs), statistics.median(plains)
    apart = abs(ours - theirs) / theirs
    met = apart <= MPI_TARGET
    print(f"MPI, {ranks} ranks, S = {size >> 20} MiB: lab {ours:.3f} vs plain loop {theirs:.3f} GB/s busbw "
          f"(medians of {rounds} rounds): {apart:.1%} apart, target <= {MPI_TARGET:.0%}: {'met' if met else 'NOT met'}")
    return met


def sweep(ranks: int) -> bool:
    params = lab.Params(backend="mpi", ranks=ranks, sizes=powers_of_two(3, 26))
    start = time.perf_counter()
    result = drive(lab.run(params, Context()))
    seconds = time.perf_counter() - start
    points = sum(len(s.points) for s in result.series)
    wrong = sum(int(p.extra.get("wrong", 0)) for s in result.series for p in s.points)
    met = seconds < SWEEP_TARGET_S and wrong == 0
    print(f"sweep: 6 collectives x 8 B ... 64 MiB on {ranks} ranks: {points} points in {seconds:.1f} s, "
          f"{wrong} wrong (target < {SWEEP_TARGET_S:.0f} s, 0 wrong): {'met' if met else 'NOT met'}")
    return met


def nccl_tests_busbw(size: int, gpus: int) -> float | None:
    """Out-of-place busbw from nccl-tests' all_reduce_perf at ``size`` on ``gpus`` GPUs, or None."""
    binary = shutil.which("all_reduce_perf")
    if binary is None:
        return None
    done = subprocess.run([binary, "-b", str(size), "-e", str(size), "-g", str(gpus), "-w", "5", "-n", "20"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    for line in done.stdout.splitlines():
        columns = line.split()
        if len(columns) >= 9 and columns[0] == str(size):
            return float(columns[7])  # size count type redop root time algbw busbw #wrong ...
    return None


def nccl_comparison(size: int) -> bool | None:
    gpus, reason = lab.nccl_status()
    if reason is not None:
        print(f"NCCL: skipped ({reason.text})")
        return None
    params = lab.Params(backend="nccl", ranks=gpus, collectives=("allreduce",), sizes=(size,), seconds_per_point=1.0)
    ours = drive(lab.run(params, Context())).series[0].points[0].y
    theirs = nccl_tests_busbw(size, gpus)
    if theirs is None:
        print(f"NCCL: lab AllReduce {ours:.1f} GB/s busbw on {gpus} GPUs; all_reduce_perf (nccl-tests) "
              "not on PATH, nothing to compare with")
        return None
    apart = abs(ours - theirs) / theirs
    met = apart <= NCCL_TARGET
    print(f"NCCL, {gpus} GPUs, S = {size >> 20} MiB: lab {ours:.1f} vs nccl-tests {theirs:.1f} GB/s busbw: "
          f"{apart:.1%} apart, target <= {NCCL_TARGET:.0%}: {'met' if met else 'NOT met'}")
    return met


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench collectives", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=7, help="rounds of both in turn (default 7)")
    parser.add_argument("--seconds-per-point", type=float, default=0.5, help="budget of each side, each round")
    parser.add_argument("--skip-sweep", action="store_true", help="only the side-by-side comparisons")
    parser.add_argument("--nccl-only", action="store_true", help="only the NCCL comparison (GPU smoke test)")
    args = parser.parse_args(argv)
    results: list[bool | None] = []
    try:
        if not args.nccl_only:
            results.append(mpi_side_by_side(args.ranks, SIZE, args.rounds, args.seconds_per_point))
            if not args.skip_sweep:
                results.append(sweep(args.ranks))
        results.append(nccl_comparison(NCCL_SIZE))
    except (ExperimentError, mpi_backend.RankFailure) as exc:
        print(f"gpulab bench collectives: {exc}", file=sys.stderr)
        return 1
    return 1 if any(r is False for r in results) else 0
