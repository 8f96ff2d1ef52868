"""``gpulab bench WHAT``: benchmarks that print ratios measured side by side in one run."""

from __future__ import annotations

import argparse
import importlib

from gpulab import frontend

# The engine's own benches: name -> module with main(argv) -> int. The front end adds its
# benches (``ui``) through the ``gpulab.bench`` entry point group.
BENCHES = {
    "collectives": "gpulab.bench.collectives",
    "fuzz": "gpulab.bench.fuzz",
    "gpu-smoke": "gpulab.bench.gpu_smoke",
    "memory": "gpulab.bench.memory",
    "scheduling": "gpulab.bench.scheduling",
    "simt": "gpulab.bench.simt",
    "sweep": "gpulab.bench.sweep",
}


def bench_names() -> list[str]:
    return sorted({*BENCHES, *frontend.names(frontend.BENCH_GROUP)})


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark (speed and memory targets)")
    parser.add_argument("what", choices=bench_names(), help="which benchmark")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="options for that benchmark")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.what in BENCHES:
        main = importlib.import_module(BENCHES[args.what]).main
    else:
        main = frontend.find(frontend.BENCH_GROUP, args.what)
    return int(main(args.rest) or 0)
