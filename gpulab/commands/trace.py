"""``gpulab trace``: the trace doctor on the command line.

    gpulab trace FILE [FILE ...] [--json OUT|-] [--lang en|zh] [--step N]

Reads a PyTorch Profiler / Kineto trace (.json, .json.gz), an Nsight Systems SQLite export or a
saved gpulab result with timelines (several files: one per rank), prints where the GPU's time
went (compute, communication, memory copies, idle and why), the findings with their evidence and
the lab that teaches each, and with ``--json`` writes it all as a gpulab result. Exit code 0
when the trace was read (findings are not failures), 2 for a file it cannot read (one line on
standard error naming the file and the problem) or an unwritable ``--json``.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("trace", help="diagnose a profiler trace: where the GPU's time went, and why")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Kineto/Chrome trace JSON (.json, .json.gz), nsys SQLite export, or gpulab result")
    parser.add_argument("--json", metavar="OUT", help="write the diagnosis as a gpulab result (- for stdout)")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the text")
    parser.add_argument("--step", type=_step, metavar="N", help="judge profiler step N only (ProfilerStep#N)")
    parser.set_defaults(func=run)


def _step(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a step number (0, 1, ...), got {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    from gpulab.catalogue import render
    from gpulab.output import output_problem
    from gpulab.trace import TraceError, diagnose, read_traces, text, to_result

    if args.json and (problem := output_problem(args.json)):
        print(f"gpulab trace: --json {args.json}: {problem}", file=sys.stderr)
        return 2
    try:
        diagnosis = diagnose(read_traces(args.files), args.step)
    except TraceError as exc:
        print(f"gpulab trace: {render(exc.message, args.lang)}", file=sys.stderr)
        return 2
    result = to_result(diagnosis)
    if args.json == "-":
        print(result.to_json())
    else:
        print(text(diagnosis, args.lang))
        if args.json:
            result.save(args.json)
    return 0
