"""``gpulab bench scheduling``: seconds to simulate the seeded week of a 16,384-GPU cluster.

The scheduler lab's default run (the mixed job mix at 90 % offered load, Llama 3's failure rate,
Daly's checkpoint intervals, seed 1) under each policy, in this process: jobs, failures, seconds
to simulate, and the utilisation, goodput, mean queue wait and GPU-hours lost that came out.
Target: each policy's week in seconds, not minutes, on a laptop-class machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import replace


def main(argv: Sequence[str] = ()) -> int:
    from gpulab.experiments import scheduling
    from gpulab.model.scheduling import sim

    parser = argparse.ArgumentParser(prog="gpulab bench scheduling")
    parser.add_argument("--gpus", type=int, default=scheduling.MAX_GPUS)
    parser.add_argument("--hours", type=float, default=168.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policies", default=",".join(sim.POLICIES), help="comma-separated")
    args = parser.parse_args(list(argv))
    base = scheduling.Params(gpus=args.gpus, hours=args.hours, seed=args.seed)
    print(f"scheduling: {args.gpus} GPUs, {args.hours:g} h, mix {base.mix}, load {base.load:g}, seed {args.seed}")
    print(f"{'policy':<10} {'jobs':>6} {'fail':>5} {'seconds':>8} {'util %':>7} {'goodput %':>9} {'wait h':>7} "
          f"{'done':>6} {'lost GPU·h':>11}")  # fmt: skip
    for name in args.policies.split(","):
        params = replace(base, policy=name)
        started = time.perf_counter()
        outcome = scheduling.simulate(params)
        seconds = time.perf_counter() - started
        s = scheduling.summary(outcome)
        print(f"{name:<10} {s.jobs:>6} {s.failures:>5} {seconds:>8.2f} {s.utilisation * 100:>7.1f} "
              f"{s.goodput * 100:>9.1f} {s.mean_wait_h:>7.1f} {s.finished:>6} {s.lost_gpu_h:>11,.0f}")  # fmt: skip
    return 0
