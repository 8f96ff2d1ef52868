"""``gpulab check``: is this machine healthy? Verdicts with reasons and actions, and an exit code.

    gpulab check [--quick|--full] [--json PATH|-] [--html PATH] [--require-gpu] [--device N] [--only ID,...]
                 [--lang zh] [--node-timeout S] [--each-rank-a-node]

Prints one line per check (verdict, what, device, value against its threshold, reason, next
action) and a summary; progress goes to standard error on a terminal. Under ``mpirun``/``srun``
with two or more ranks it is fleet mode (:mod:`gpulab.check.fleet`): each node's first rank
checks the node, the nodes time an AllReduce across the fabric, rank 0 prints and writes one report
for all (a node that does not report within ``--node-timeout`` is named as a failure), every rank
exits with its code. Exit code 0 when nothing failed, 1 when anything failed, 2 for a usage error
(argparse's, and an unwritable ``--json``).
With ``--require-gpu`` a machine without a usable GPU fails instead of skipping the GPU checks.
"""

from __future__ import annotations

import argparse
import sys
import time
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
    parser.add_argument("--node-timeout", type=float, metavar="S",
                        help="fleet mode: a node that has not reported S seconds after the start fails "
                             "(default 300 with --quick, 1200 with --full)")
    parser.add_argument("--each-rank-a-node", action="store_true",
                        help="fleet mode: treat every rank as its own node (tests and single-host demos; "
                             "the report says so and does not judge the AllReduce between ranks of one host)")
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
    from gpulab.check.registry import Context
    from gpulab.check.run import run_checks
    from gpulab.output import output_problem

    for option, path in (("--json", args.json), ("--html", args.html)):
        if path and (problem := output_problem(path)):
            print(f"gpulab check: {option} {path}: {problem}", file=sys.stderr)
            return 2
    comm = _fleet_comm()
    if comm is not None:
        return _run_fleet(comm, args)
    ctx = Context(mode=args.mode, require_gpu=args.require_gpu, device_index=args.device)
    report = _run_with_progress(run_checks(ctx, args.only), args.lang, live=True)
    return _emit(report, args)


def _run_fleet(comm: Any, args: argparse.Namespace) -> int:
    """Fleet mode (the steps in :mod:`gpulab.check.fleet`'s docstring); every rank's exit code."""
    from gpulab.check import fleet
    from gpulab.check.registry import Context
    from gpulab.check.run import run_checks

    started = time.monotonic()
    members = fleet.roster(comm, args.each_rank_a_node)
    rank = comm.Get_rank()
    me = members[rank]
    point = fleet.measure_allreduce(comm, members, args.mode)
    ctx = Context(mode=args.mode, require_gpu=args.require_gpu, device_index=args.device, host=me.node, rank=rank)
    if rank == 0:
        return _gather_and_report(comm, members, point, ctx, args, started)
    if me.leader:
        report = _run_with_progress(run_checks(ctx, args.only), args.lang, live=False)
        fleet.injected_fault_for_tests(rank)
        fleet.send_report(comm, report)
    return fleet.share_exit_code(comm, None)


def _gather_and_report(comm: Any, members: list, point: Any, ctx: Any, args: argparse.Namespace,
                       started: float) -> int:
    """Rank 0: its node's checks, the others' reports until the deadline, one report, the exit code."""
    from gpulab.catalogue import msg
    from gpulab.check import fleet
    from gpulab.check.run import run_checks

    timeout_s = args.node_timeout if args.node_timeout is not None else fleet.NODE_TIMEOUT_S[args.mode]
    collector = fleet.Collector(members)
    stopped = False
    with fleet.stopped_by_launcher():
        try:
            own = _run_with_progress(run_checks(ctx, args.only), args.lang, live=True)
            collector.add(0, own.to_json())
            collector.wait(comm, started + timeout_s)
        except fleet.LauncherStopped:  # a rank died and the launcher is ending the job: say what we have
            stopped = True
    why = msg("check.fleet.node.stopped") if stopped else msg("check.fleet.node.timeout", seconds=f"{timeout_s:g}")
    report = fleet.fleet_report(collector, point, why, args.each_rank_a_node, args.mode, args.require_gpu)
    code = _emit(report, args)
    missing = collector.missing()
    if stopped:
        return max(code, 1)
    if missing:  # end the job: a rank that hangs would keep the launcher waiting forever
        names = ", ".join(f"rank {m.rank} ({m.node})" for m in missing)
        print(f"gpulab check: no report from {names} within {timeout_s:g} s; ending the job", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        comm.Abort(max(code, 1))
    return fleet.share_exit_code(comm, code)


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
    """A plain-text report: a line per row (then its reason and action; a [n] names its threshold's
    source), in fleet mode the node × device table and the outliers, the sources, and the totals."""
    from gpulab.check.nodes import is_fleet, source_numbers

    fleet = is_fleet(report.machine)
    sources = source_numbers(report.rows)
    lines = []
    for row in report.rows:
        lines.extend(_row_lines(row, lang, fleet, sources.get(row.source)))
    if fleet:
        lines.extend(["", *_node_table_lines(report, lang)])
    if sources:
        lines.extend(["", *_source_lines(sources, lang)])
    lines.append(render(report.summary(), lang))
    return "\n".join(lines)


def _t(key: str, lang: str, **fields: Any) -> str:
    from gpulab.catalogue import msg

    return render(msg(key, **fields), lang)


def _row_lines(row: Any, lang: str, fleet: bool, source: int | None) -> list[str]:
    title = row.title(lang)
    verdict = _t(f"check.verdict.{row.verdict.value}", lang)
    where = _t("check.report.where", lang, rank=row.rank, host=row.host, device=row.device) if fleet else row.device
    mark = f" [{source}]" if source is not None else ""
    lines = [f"{_pad(verdict, 5)} {title} [{where}] {row.value_text(lang)}".rstrip() + mark,
             f"      {render(row.reason, lang)}"]
    if row.action is not None:
        lines.append(f"      → {render(row.action, lang)}")
    return lines


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal (a CJK character takes two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def _node_table_lines(report: CheckReport, lang: str) -> list[str]:
    """The node × device table (worst verdict per cell, * an outlier), then the outliers named."""
    from gpulab.check.nodes import node_table, outlier_text, outliers

    table = node_table(report.rows)
    words = {node: [_cell_text(table.cell(node, d), lang) for d in table.devices] for node in table.nodes}
    node_w = max([_width(n) for n in table.nodes] + [_width(_t("check.html.column.node", lang))])
    widths = [max([_width(d)] + [_width(words[n][i]) for n in table.nodes]) for i, d in enumerate(table.devices)]
    columns = [_pad(d, w) for d, w in zip(table.devices, widths, strict=True)]
    header = [_pad(_t("check.html.column.node", lang), node_w), *columns]
    lines = [_t("check.report.nodes", lang), "  " + "  ".join(header).rstrip()]
    for node in table.nodes:
        cells = [_pad(word, w) for word, w in zip(words[node], widths, strict=True)]
        lines.append("  " + "  ".join([_pad(node, node_w), *cells]).rstrip())
    far = outliers(report.rows)
    if far:
        lines.append(_t("check.report.outliers", lang))
        lines.extend(f"  {outlier_text(row, lang)}" for row in far)
    fleet = report.machine.get("fleet", {}) if isinstance(report.machine, dict) else {}
    if fleet.get("each_rank_a_node"):
        lines.append(_t("check.report.each-rank-a-node", lang, ranks=fleet.get("ranks", "?"),
                        hosts=", ".join(fleet.get("hosts", []))))
    return lines


def _cell_text(cell: Any, lang: str) -> str:
    if cell is None:
        return "-"
    return _t(f"check.verdict.{cell.verdict.value}", lang) + ("*" if cell.outlier else "")


def _source_lines(sources: dict[str, int], lang: str) -> list[str]:
    from gpulab.check.nodes import source_text

    return [_t("check.report.sources", lang)] + [f"  [{n}] {source_text(key)}" for key, n in sources.items()]
