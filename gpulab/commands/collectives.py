"""``gpulab collectives``: the collectives lab from the command line, on one node or on many.

Under a launcher (``mpirun -n 16 gpulab collectives ...`` or ``srun ... gpulab collectives ...``)
every process is one rank (one per GPU with ``--backend nccl``): they run the rank program in
place, NCCL's unique id goes from rank 0 to the others over MPI, and rank 0 writes the report
(a ``gpulab.result/2`` file the lab opens as replayed). Started by hand, without a launcher, it
starts ``mpiexec`` itself with ``--ranks`` ranks, as the lab does, and writes the same report.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping
from typing import Any

# Variables a launcher sets in every rank's environment (Open MPI, PMI/MPICH and PMIx, Slurm).
LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "collectives", help="measure collectives (busbw); run it under mpirun or srun for many nodes",
        description=__doc__.splitlines()[0] if __doc__ else None)  # fmt: skip
    parser.add_argument("--backend", choices=("auto", "mpi", "nccl"), default="auto",
                        help="nccl: one rank per GPU; mpi: CPU ranks; auto: NCCL where CuPy finds a GPU")
    parser.add_argument("--collectives", default="allreduce,allgather,reducescatter,broadcast,reduce,alltoall")
    parser.add_argument("--sizes", default="2^3,2^10,2^16,2^20,2^24,2^26",
                        help="message sizes S in bytes, comma-separated (2^20 allowed)")
    parser.add_argument("--seconds-per-point", type=float, default=0.05)
    parser.add_argument("--ranks", type=int, default=2, help="ranks to start when not run under a launcher")
    parser.add_argument("--report", help="where rank 0 writes the result (default gpulab-collectives-DATE.json)")
    parser.set_defaults(func=run)


def under_launcher() -> bool:
    return any(name in os.environ for name in LAUNCHER_VARIABLES)


def _params(args: argparse.Namespace) -> object:
    from gpulab.experiments import collectives, params_from_strings

    return params_from_strings(collectives.Params, {
        "backend": args.backend, "ranks": str(args.ranks), "collectives": args.collectives,
        "sizes": args.sizes, "seconds_per_point": str(args.seconds_per_point)})  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from gpulab.experiments import ExperimentError
    from gpulab.output import output_problem

    report = args.report if args.report is not None else time.strftime("gpulab-collectives-%Y%m%d-%H%M%S.json")
    try:
        params = _params(args)
    except ExperimentError as exc:
        print(f"gpulab collectives: {exc}", file=sys.stderr)
        return 2
    launched = under_launcher()
    # Checked before the run (by the rank that writes it), so that a typo does not cost the points.
    problem = output_problem(report) if not launched or _world_rank() == 0 else None
    if problem:
        print(f"gpulab collectives: --report {report}: {problem}", file=sys.stderr)
        return 2
    return _as_rank(params, report) if launched else _launch(params, report)


def _as_rank(params: object, report: str) -> int:
    """This process is one rank of a job someone else launched."""
    from gpulab.cluster import rank_main
    from gpulab.experiments.collectives import nccl_status, rank_args

    backend = getattr(params, "backend", "auto")
    if backend == "auto":
        backend = "nccl" if nccl_status()[0] >= 1 and _has_nccl() else "mpi"
    argv = rank_args(params.collectives, params.sizes, params.seconds_per_point, backend)  # type: ignore[attr-defined]
    code = rank_main.main([*argv, "--report", report])
    if code == 0 and _world_rank() == 0:
        print(f"gpulab collectives: report written to {report} (open it in the lab)", file=sys.stderr)
    return code


def _has_nccl() -> bool:
    try:
        from cupy.cuda import nccl  # noqa: F401 - only whether it imports
    except ImportError:
        return False
    return True


def _world_rank() -> int:
    for name in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return 0


def _launch(params: object, report: str) -> int:
    """No launcher around us: run the lab, which starts mpiexec (or drives the local GPUs). A
    signal keeps the points measured so far (marked partial); so does a rank that dies, which
    makes the exit status 1."""
    import threading

    from gpulab.catalogue import Note
    from gpulab.cluster.report import AXES
    from gpulab.commands.interrupt import Interrupted, SignalGuard, drive_keeping, report_interrupted
    from gpulab.experiments import ExperimentError, collectives
    from gpulab.output import emit_json

    prog = "gpulab collectives"
    axes = (Note(AXES[0]), str(AXES[1]), Note(AXES[2]), str(AXES[3]))
    with SignalGuard(threading.Event()) as guard:
        try:
            result = drive_keeping(collectives.run(params, collectives.Context(cancel_event=guard.cancel)),  # type: ignore[arg-type]
                                   guard, "collectives", params, _show, axes)  # fmt: skip
        except Interrupted as stop:
            assert stop.partial is not None
            return report_interrupted(stop, prog, report, emit_json(stop.partial.to_json_dict(), report, prog))
        except ExperimentError as exc:
            print(f"{prog}: {exc}", file=sys.stderr)
            return 1
        code = emit_json(result.to_json_dict(), report, prog)
    if result.partial is not None:
        return _report_failure(result.partial, report, code)
    if code == 0:
        print(f"{prog}: report written to {report}", file=sys.stderr)
    if guard.fired is not None:  # the run had ended: the whole report is written, the signal still stops us
        return 128 + guard.fired
    return code


def _show(event: object) -> None:
    from gpulab.experiments import PartialPoint

    if isinstance(event, PartialPoint):
        extra = event.point.extra
        print(f"{event.series:<22} S={int(event.point.x):>11} B  busbw {event.point.y:9.3f} GB/s  "
              f"algbw {extra.get('algbw_gb_s') or 0:9.3f} GB/s  wrong {extra.get('wrong', 0)}", file=sys.stderr)


def _report_failure(partial: Mapping[str, Any], report: str, written: int) -> int:
    """A run its ranks cut short: which ranks, why, their standard error, and where the points went."""
    ranks = ", ".join(map(str, partial.get("ranks") or []))
    named = f"; rank {ranks} wrote on standard error" if ranks else ""
    where = f"written to {report}" if written == 0 else "kept where the line above says"
    print(f"gpulab collectives: the run failed ({partial.get('reason')}{named}); the {partial.get('points')} "
          f"points measured before are {where}, marked partial. Standard error of the ranks:\n"
          f"{partial.get('stderr') or '-'}", file=sys.stderr)  # fmt: skip
    return 1
