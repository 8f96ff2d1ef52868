"""``gpulab check``: is this machine healthy? Verdicts with reasons and actions, and an exit code.

    gpulab check [--quick|--full] [--json PATH|-] [--html PATH] [--require-gpu] [--device N] [--only ID,...]
                 [--lang zh]

Prints one line per check (verdict, what, device, value against its threshold, reason, next
action) and a summary; progress goes to standard error on a terminal. Under ``mpirun``/``srun``
with two or more ranks it is fleet mode (:mod:`gpulab.check.fleet`): each node's first rank
checks the node, rank 0 prints and writes one report for all, every rank exits with its code. Exit code 0 when nothing
failed, 1 when anything failed, 2 for a usage error (argparse's, and an unwritable ``--json``).
With ``--require-gpu`` a machine without a usable GPU fails instead of skipping the GPU checks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from gpulab.catalogue import Message, render

if TYPE_CHECKING:
    from gpulab.check.model import CheckReport


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("check", help="sanity-check this machine: verdicts, reasons, actions, exit code")
    depth = parser.add_mutually_exclusive_group()
    depth.add_argument("--quick", dest="mode", action="store_const", const="quick",
                       help="the quick checks (the default; about half a minute)")
    depth.add_argument("--full", dest="mode", action="store_const", const="full",
                       help="every check, with more repeats (a few minutes)")
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON (- for stdout)")
    parser.add_argument("--html", metavar="PATH", help="write the report as one self-contained HTML page")
    parser.add_argument("--require-gpu", action="store_true", help="no usable GPU is a failure, not a skip")
    parser.add_argument("--device", type=_device_index, metavar="N", help="check only GPU N")
    parser.add_argument("--only", type=_ids, metavar="ID,...", help="run only these checks (ids as printed)")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the reasons and actions")
    parser.set_defaults(func=run, mode="quick")


def _device_index(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a GPU index (0, 1, ...), got {text!r}")
    return int(text)


def _ids(text: str) -> list[str]:
    from gpulab.check.run import load_checks

    ids = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [i for i in ids if i not in load_checks()]
    if not ids or unknown:
        raise argparse.ArgumentTypeError(f"unknown check {', '.join(unknown) or text!r} "
                                         f"(known: {', '.join(load_checks())})")
    return ids


def run(args: argparse.Namespace) -> int:
    from gpulab.check.fleet import node_leader
    from gpulab.check.registry import Context
    from gpulab.check.run import run_checks
    from gpulab.output import output_problem

    for option, path in (("--json", args.json), ("--html", args.html)):
        if path and (problem := output_problem(path)):
            print(f"gpulab check: {option} {path}: {problem}", file=sys.stderr)
            return 2
    comm = _fleet_comm()
    ctx = Context(mode=args.mode, require_gpu=args.require_gpu, device_index=args.device,
                  rank=comm.Get_rank() if comm is not None else None)
    report = None
    if comm is None or node_leader(comm):
        report = _run_with_progress(run_checks(ctx, args.only), args.lang, live=ctx.rank in (None, 0))
    if comm is not None:  # fleet mode: rank 0 reports for every node; all ranks exit alike
        from gpulab.check.fleet import gather

        report = gather(comm, report)
        code = comm.bcast(_emit(report, args) if report is not None else None, root=0)
        return int(code)
    assert report is not None
    return _emit(report, args)


def _fleet_comm() -> Any:
    """MPI's world communicator under a launcher with two or more ranks, else None."""
    from gpulab.commands.collectives import under_launcher

    if not under_launcher():
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    return MPI.COMM_WORLD if MPI.COMM_WORLD.Get_size() > 1 else None


def _run_with_progress(progress: Generator[Message, None, CheckReport], lang: str, live: bool) -> CheckReport:
    live = live and sys.stderr.isatty()
    try:
        while True:
            said = next(progress)
            if live:
                print(f"\r\033[K{render(said, lang)}", end="", file=sys.stderr, flush=True)
    except StopIteration as done:
        report = done.value
    if live:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    return report


def _emit(report: CheckReport, args: argparse.Namespace) -> int:
    """Write the report where asked and print it; the exit code."""
    from gpulab.output import emit_json

    if args.json:
        status = emit_json(report.to_json(), args.json, "gpulab check")
        if status:
            return max(status, report.exit_code())
    if args.html and not _write_html(report, args.html, args.lang):
        return max(1, report.exit_code())
    if args.json != "-":
        print(format_report(report, args.lang))
    return report.exit_code()


def _write_html(report: CheckReport, path: str, lang: str) -> bool:
    """Write the HTML page; a failed write is said in one line (the text report still prints)."""
    from gpulab.check.html import render_html

    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render_html(report, lang))
        return True
    except OSError as exc:
        print(f"gpulab check: could not write --html {path} ({exc.strerror or exc})", file=sys.stderr)
        return False


def format_report(report: CheckReport, lang: str = "en") -> str:
    """A plain-text table: a line per row (then its reason and action), and the totals."""
    from gpulab.catalogue import msg

    lines = []
    for row in report.rows:
        title = render(msg(f"check.{row.check}.title"), lang)
        verdict = render(msg(f"check.verdict.{row.verdict.value}"), lang)
        lines.append(f"{verdict:<5} {title} [{row.device}] {row.value_text()}".rstrip())
        lines.append(f"      {render(row.reason, lang)}")
        if row.action is not None:
            lines.append(f"      → {render(row.action, lang)}")
    lines.append(render(report.summary(), lang))
    return "\n".join(lines)
