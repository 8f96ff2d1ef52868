"""``gpulab bench memory``: the bandwidth lab's CPU triad against a plain compiled triad loop.

STREAM's rule sizes the arrays: a working set of 4x the last-level cache, so the triad runs
from DRAM. In one run, round after round (the machine may be busy, so the forms take turns),
it times ``a = b + s*c`` as the lab does (``perf_counter`` around one call, the best of repeats):

* ``compiled loop``: a plain Numba ``@njit(parallel=True)`` loop written here, the reference;
* ``gpulab compiled``: the lab's compiled form (:mod:`gpulab.compiled`), its one-pass fused form:
  target >= 85% of the compiled loop (best round against best round, as STREAM reports its best
  run). It checks that the lab's arrays, threads and timing cost the measurement nothing;
* ``gpulab fused``: the lab's numexpr form, fused in blocks, one pass per operator over each;
* ``two-pass loop``: a compiled loop that works as numexpr does (``a = s*c`` then ``a += b``
  over each cache-sized block), so the printout shows how much of numexpr's distance from the
  compiled loop is the memory system's (one input stream at a time) and how much is numexpr's;
* ``gpulab numpy-out`` and ``gpulab numpy``: the lab's other forms, for the fusion lesson.

With a usable GPU it also times the lab's triad kernel at a 1 GiB working set with CUDA events
and compares it with the spec sheet's bandwidth (target >= 85% on H100/H200; BabelStream
reaches about 91-93%). Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gpulab import cuda, hostmem, threads
from gpulab.experiments import Context
from gpulab.experiments import bandwidth as lab
from gpulab.measure import BUSY_FRACTION, RepeatPolicy, best_rate_point, time_cpu_calls

CPU_TARGET = 0.85
GPU_TARGET = 0.85
GPU_TARGET_NAMES = ("H100", "H200")
FALLBACK_WORKING_SET = 256 << 20  # when the OS does not say how big the last-level cache is
GPU_WORKING_SET = 1 << 30


def compiled_triad() -> Callable[[np.ndarray, np.ndarray, np.ndarray, float], None] | None:
    """A Numba parallel triad loop, compiled now; None without Numba."""
    try:
        from numba import njit, prange
    except ImportError:
        return None

    @njit(parallel=True, cache=False)
    def triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, s: float) -> None:  # pragma: no cover - compiled
        for i in prange(a.shape[0]):
            a[i] = b[i] + s * c[i]

    return triad


TWO_PASS_BLOCK = 2048
"""Elements per block of the two-pass loop: 16 KiB of doubles, a block that stays in L1."""


def two_pass_triad() -> Callable[[np.ndarray, np.ndarray, np.ndarray, float], None] | None:
    """The triad as a block-by-block engine runs it, compiled: per block, ``a = s*c`` (streams
    ``c`` alone from memory), then ``a = a + b`` (streams ``b`` alone); None without Numba."""
    try:
        from numba import njit, prange
    except ImportError:
        return None

    @njit(parallel=True, cache=False)
    def triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, s: float) -> None:  # pragma: no cover - compiled
        n = a.shape[0]
        for k in prange((n + TWO_PASS_BLOCK - 1) // TWO_PASS_BLOCK):
            lo = k * TWO_PASS_BLOCK
            hi = min(lo + TWO_PASS_BLOCK, n)
            for i in range(lo, hi):
                a[i] = s * c[i]
            for i in range(lo, hi):
                a[i] = a[i] + b[i]

    return triad


def working_set_bytes() -> tuple[int, str]:
    """4x the last-level cache (STREAM's rule), clamped to memory; and how it was chosen."""
    llc = hostmem.host_memory().last_level_bytes
    wanted = lab.DRAM_FACTOR * llc if llc else FALLBACK_WORKING_SET
    why = f"4 x last-level cache ({hostmem.bytes_text(llc)})" if llc else "last-level cache unknown"
    kept, dropped = lab.clamp_to_memory([wanted], hostmem.available_memory_bytes())
    if dropped:
        available = hostmem.available_memory_bytes() or 0
        return max(1 << 20, int(lab.HOST_MEMORY_SHARE * available / 2)), f"{why}, clamped to memory"
    return kept[0], why


def _contenders(values: dict[str, np.ndarray]) -> dict[str, Callable[[], Any]]:
    """Every contender as a no-argument call, compiled and run once already."""
    a, b, c = values["a"], values["b"], values["c"]
    loop, two_pass = compiled_triad(), two_pass_triad()
    calls: dict[str, Callable[[], Any]] = {}
    if loop is not None:
        calls["compiled loop"] = lambda: loop(a, b, c, lab.SCALAR)
        calls["gpulab compiled"] = lab.FORM_CALLS["compiled"]("triad", values)
    calls["gpulab fused"] = lab.FORM_CALLS["fused"]("triad", values)
    if two_pass is not None:
        calls["two-pass loop"] = lambda: two_pass(a, b, c, lab.SCALAR)
    calls["gpulab numpy-out"] = lab.FORM_CALLS["numpy-out"]("triad", values)
    calls["gpulab numpy"] = lab.FORM_CALLS["numpy"]("triad", values)
    for call in calls.values():
        call()  # compiles the loops before anything is timed
    return calls


def measure_cpu(rounds: int, seconds: float) -> tuple[int, str, dict[str, list[float]], float | None]:
    """GB/s of every contender, one median per round (the rounds interleave the contenders), and
    the largest share of the cores other programs used during any measurement (None: unknown)."""
    size, why = working_set_bytes()
    lab._set_numexpr_threads()
    values = lab.Arrays(size).of("triad")
    n = len(values["a"])
    calls = _contenders(values)
    rates: dict[str, list[float]] = {name: [] for name in calls}
    policy = RepeatPolicy(repeats=3, min_seconds=seconds, max_seconds=seconds)
    busy: list[float] = []
    for _ in range(rounds):
        for name, call in calls.items():
            samples = time_cpu_calls(call, policy)
            rates[name].append(best_rate_point(size, lab.bytes_moved("triad", n), samples).y)
            busy += [samples.busy] if samples.busy is not None else []
    return size, why, rates, max(busy, default=None)


def measure_gpu(seconds: float) -> tuple[str, float, float | None] | None:
    """(GPU name, triad GB/s at 1 GiB, percent of spec bandwidth) with a usable GPU, else None."""
    if not cuda.cuda_status().available:
        return None
    policy = RepeatPolicy(repeats=10, min_seconds=seconds, max_seconds=max(seconds, 2.0))
    state = lab.GpuState(0)
    line = lab._gpu_line("triad", policy, Context(), state)
    point = line.make_point(GPU_WORKING_SET, lab.Arrays(GPU_WORKING_SET))
    if point is None:
        return None
    return cuda.device_name(0), point.y, point.extra.get("percent_of_peak")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench memory", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of every contender in turn (default 7)")
    parser.add_argument("--seconds", type=float, default=0.3, help="timing budget of one measurement (default 0.3)")
    args = parser.parse_args(argv)
    size, why, rates, busy = measure_cpu(max(1, args.rounds), args.seconds)
    print(f"CPU triad a = b + s*c, float64, working set {hostmem.bytes_text(size)} ({why}), "
          f"{args.rounds} rounds, numexpr threads {threads.cpu_threads()}")  # fmt: skip
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, gb_s in medians.items():
        spread = f"{min(rates[name]):.1f}-{max(rates[name]):.1f}"
        print(f"  {name:<18} {gb_s:7.1f} GB/s median, {max(rates[name]):5.1f} best  (rounds {spread})")
    if busy is not None and busy > BUSY_FRACTION:
        print(f"  other programs kept up to {100 * busy:.0f}% of the cores busy meanwhile: "
              "the figures are noisy, run it again on a quieter machine")  # fmt: skip
    missed = _cpu_verdict(medians, rates)
    missed |= _gpu_report(args.seconds)
    return 1 if missed else 0


def _cpu_verdict(medians: dict[str, float], rates: dict[str, list[float]]) -> bool:
    """The target on the best round of each (STREAM reports its best run: on a shared machine the
    best round is the one least disturbed), with the median of the per-round ratios beside it;
    numexpr's and the two-pass loop's ratios are printed beside it, as the explanation."""
    if "compiled loop" not in medians:
        print("  no compiled loop to compare with: Numba is not installed (pip install numba)")
        return False
    best, median = _ratio(rates, "gpulab compiled")
    ok = best >= CPU_TARGET
    print(f"  gpulab compiled / compiled loop: {100 * best:.0f}% best round vs best round "
          f"(median of per-round ratios {100 * median:.0f}%; target >= {100 * CPU_TARGET:.0f}%) "
          f"{'ok' if ok else 'MISSED'}")  # fmt: skip
    for name, what in (("gpulab fused", "numexpr, blocks"), ("two-pass loop", "compiled, blocks")):
        best, median = _ratio(rates, name)
        print(f"  {name} / compiled loop: {100 * best:.0f}% best vs best, "
              f"{100 * median:.0f}% median per round  ({what}: one pass per operator)")  # fmt: skip
    return not ok


def _ratio(rates: dict[str, list[float]], name: str) -> tuple[float, float]:
    """(best round / best round, median of the per-round ratios) of ``name`` to the compiled loop."""
    per_round = [x / ref for x, ref in zip(rates[name], rates["compiled loop"], strict=True)]
    return max(rates[name]) / max(rates["compiled loop"]), statistics.median(per_round)


def _gpu_report(seconds: float) -> bool:
    found = measure_gpu(seconds)
    if found is None:
        print(f"GPU triad: no usable GPU ({cuda.cuda_status().reason})")
        return False
    name, gb_s, percent = found
    targeted = any(tag in name.upper() for tag in GPU_TARGET_NAMES)
    ok = percent is not None and percent >= 100 * GPU_TARGET
    verdict = ("ok" if ok else "MISSED") if targeted else "(no target for this GPU)"
    shown = f"{percent:.0f}% of spec" if percent is not None else "not in the spec table"
    print(f"GPU triad on {name}, working set {hostmem.bytes_text(GPU_WORKING_SET)}: {gb_s:.0f} GB/s = {shown} "
          f"(target >= {100 * GPU_TARGET:.0f}% on H100/H200) {verdict}")  # fmt: skip
    return targeted and not ok
