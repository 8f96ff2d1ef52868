"""``gpulab bench sweep``: does a running experiment leave the window responsive?

Each experiment runs on a worker thread, exactly as the lab's job runner runs it, while
this thread stands in for the GUI thread: it wakes every 10 ms and records how late it
woke. Python lets only one thread run Python code at a time, so any long stretch an
experiment spends inside numpy without releasing that lock shows up here as a stall.
Target (DESIGN.md): no stall above 50 ms. Printed per experiment: its wall time, the worst
and the 99th-percentile extra delay, and whether the target holds.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Sequence

from gpulab import experiments

TARGET_STALL_MS = 50.0
TICK_S = 0.010

# Parameters sized so each sweep takes seconds, with the largest arrays of a default sweep.
WORKLOADS: dict[str, dict[str, str]] = {
    "matmul": {"sizes": "256,1024,2048", "repeats": "2"},
    "vector-add": {},
    "divergence": {},
    "bandwidth": {"working_sets": "2^12,2^20,2^30", "operations": "copy,mul,add,triad,dot", "seconds_per_point": ".05"},
}


def measure(name: str, assignments: dict[str, str]) -> dict[str, float]:
    """Run one experiment on a thread; return its wall time and the ticker's lateness (ms)."""
    module = experiments.get(name)
    params = experiments.params_from_strings(module.Params, assignments)
    done = threading.Event()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            experiments.drive(module.run(params, experiments.Context()))
        except BaseException as exc:  # reported after the join
            errors.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=work, name=f"bench-{name}")
    start = last = time.perf_counter()
    worker.start()
    delays = []
    while not done.is_set():
        time.sleep(TICK_S)
        now = time.perf_counter()
        delays.append(max(0.0, now - last - TICK_S))
        last = now
    worker.join()
    if errors:
        raise errors[0]
    delays.sort()
    return {
        "wall_s": time.perf_counter() - start,
        "worst_ms": delays[-1] * 1e3 if delays else 0.0,
        "p99_ms": delays[int(0.99 * (len(delays) - 1))] * 1e3 if delays else 0.0,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(WORKLOADS), help="run only these")
    args = parser.parse_args(argv)
    print(f"{'experiment':<12} {'wall s':>7} {'worst ms':>9} {'p99 ms':>7}  target <= {TARGET_STALL_MS:.0f} ms")
    failed = False
    for name in args.only or WORKLOADS:
        row = measure(name, WORKLOADS[name])
        ok = row["worst_ms"] <= TARGET_STALL_MS
        failed |= not ok
        print(f"{name:<12} {row['wall_s']:>7.2f} {row['worst_ms']:>9.1f} {row['p99_ms']:>7.1f}  "
              f"{'ok' if ok else 'MISSED'}")
    return 1 if failed else 0
