"""``gpulab bench WHAT``: benchmarks that print ratios measured side by side in one run."""

from __future__ import annotations

import argparse
import importlib

# bench name -> module with main(argv) -> int
BENCHES = {
    "simt": "gpulab.bench.simt",
    "sweep": "gpulab.bench.sweep",
    "ui": "gpulab.bench.ui",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark (speed and memory targets)")
    parser.add_argument("what", choices=sorted(BENCHES), help="which benchmark")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options for that benchmark")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(BENCHES[args.what])
    return int(module.main(args.rest) or 0)
