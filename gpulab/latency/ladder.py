"""A pointer-chasing latency ladder on this CPU: each load's address is the value the load before
returned, so no two loads overlap and the time per load is the latency of wherever the chain lives.

The chain (:func:`build_chain`) visits every 64-byte line of a working set once, in random order,
and comes back to the start. It is *page-aware*: it cuts the set into groups of :data:`PAGE_GROUP`
4 KiB pages, walks the groups in random order and, in each group, all the group's lines in random
order before it leaves. A TLB miss is then paid about once per 64 loads instead of on almost every
load once the set outgrows the TLB's reach, while consecutive loads still land on random pages of
the group, so neither the stride nor the same-page (region) prefetchers see a pattern. (Mixing one
page at a time let the region prefetcher fetch the rest of the page: an L3 hit read as 6 ns.)

The chase is a loop compiled by Numba (:data:`CHASE_FORM`): a Python loop costs tens of
nanoseconds per step, more than an L2 hit. The call into the compiled loop still costs
something (argument checks, the interpreter): each size is timed with ``loads`` and ``2 x loads``
steps, and the difference over ``loads`` is the time per load with that constant cost cancelled;
the constant itself is reported (``call_overhead_ns``).

Cycles are ns x the clock that ``/proc/cpuinfo`` reports (``cpu MHz``); a core that boosts above
it makes the cycle counts an underestimate, and the result says which clock was used.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

LINE_BYTES = 64
PAGE_BYTES = 4096
PAGE_GROUP = 16  # pages whose lines the chain mixes before it moves on (16 x 4 KiB: within the first-level TLB)
SLOT = 8  # bytes per chain entry (int64); one entry per line is used
CHASE_FORM = "numba-njit"
DEFAULT_SIZES = tuple(1 << p for p in range(12, 31))  # 4 KiB .. 1 GiB


def build_chain(working_set_bytes: int, seed: int = 0, page_aware: bool = True) -> np.ndarray:
    """An int64 array of ``working_set_bytes`` whose line starts form one cycle through every line.

    ``chain[i]`` is the index of the next line's first slot; the other slots of a line are unused."""
    lines = max(1, working_set_bytes // LINE_BYTES)
    rng = np.random.default_rng(seed)
    per_group = PAGE_GROUP * PAGE_BYTES // LINE_BYTES
    if page_aware and lines >= 2 * per_group:
        groups = lines // per_group
        group_order = rng.permutation(groups)
        inside = rng.permuted(np.tile(np.arange(per_group), (groups, 1)), axis=1)
        order = (group_order[:, None] * per_group + inside).ravel()
        order = np.concatenate([order, rng.permutation(np.arange(groups * per_group, lines))])  # a partial group
    else:
        order = rng.permutation(lines)
    stride = LINE_BYTES // SLOT
    chain = np.zeros(lines * stride, dtype=np.int64)
    chain[order * stride] = np.roll(order, -1) * stride
    return chain


def chain_cycle_length(chain: np.ndarray, start: int = 0) -> int:
    """Steps until the chain returns to ``start`` (a test's check that it is one full cycle)."""
    steps, at = 1, int(chain[start])
    while at != start:
        at = int(chain[at])
        steps += 1
    return steps


@cache
def chase_function() -> Callable[[np.ndarray, int, int], int]:
    """The compiled chase: ``steps`` dependent loads from ``start``; returns where it stopped
    (returned so the compiler cannot drop the loads)."""
    from numba import njit

    @njit(cache=False, nogil=True)
    def chase(chain: np.ndarray, start: int, steps: int) -> int:  # pragma: no cover - compiled
        at = start
        for _ in range(steps):
            at = chain[at]
        return at

    return chase


def is_compiled(function: Any) -> bool:
    """Whether ``function`` is a Numba dispatcher with machine code for at least one signature."""
    return bool(getattr(function, "signatures", None)) and hasattr(function, "inspect_llvm")


def cpu_clock_mhz(cpuinfo: Path = Path("/proc/cpuinfo")) -> float | None:
    """The ``cpu MHz`` that /proc/cpuinfo reports for the first CPU; None where there is none."""
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith("cpu mhz"):
                return float(line.split(":", 1)[1])
    except (OSError, ValueError):
        return None
    return None


@dataclass(frozen=True)
class Rung:
    """One working set's measurement."""

    working_set_bytes: int
    ns_per_load: float
    cycles_per_load: float | None
    call_overhead_ns: float
    loads: int
    spread: float  # (worst - best) / best of the long runs' times: a noise indicator


def _timed(chase: Callable[[np.ndarray, int, int], int], chain: np.ndarray, steps: int, repeats: int,
           clock: Callable[[], int]) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = clock()
        chase(chain, 0, steps)
        times.append((clock() - t0) * 1e-9)
    return times


def measure_rung(working_set_bytes: int, loads: int = 1 << 20, repeats: int = 3, *, seed: int = 0,
                 page_aware: bool = True, clock_mhz: float | None = None,
                 clock: Callable[[], int] = time.perf_counter_ns) -> Rung:
    """Time ``loads`` and ``2 x loads`` dependent loads over one working set (best of ``repeats``
    each, after one pass that warms the caches and TLB); the difference is the loads' own time."""
    chase = chase_function()
    chain = build_chain(working_set_bytes, seed, page_aware)
    chase(chain, 0, min(len(chain), 4 * loads))  # compiles on first use; touches the whole set
    short = _timed(chase, chain, loads, repeats, clock)
    long = _timed(chase, chain, 2 * loads, repeats, clock)
    per_load = (min(long) - min(short)) / loads
    if per_load <= 0:
        # Noise swamped the difference (the short runs were slowed past the long ones): it read 0 ns
        # and a lesson's DRAM-over-L1 ratio 0x. The long run per load (the call's overhead included,
        # microseconds against milliseconds of loads) is the honest figure then.
        per_load = min(long) / (2 * loads)
    overhead = max(min(short) - per_load * loads, 0.0)
    spread = (max(long) - min(long)) / min(long) if min(long) > 0 else 0.0
    ns = per_load * 1e9
    cycles = ns * clock_mhz / 1e3 if clock_mhz else None
    return Rung(working_set_bytes, ns, cycles, overhead * 1e9, loads, spread)


def ladder(sizes: Sequence[int] = DEFAULT_SIZES, loads: int = 1 << 20, repeats: int = 3, *, seed: int = 0,
           page_aware: bool = True) -> Any:
    """Generator: yields each :class:`Rung` as it is measured; returns the list of them."""
    mhz = cpu_clock_mhz()
    rungs = []
    for size in sizes:
        rung = measure_rung(size, loads, repeats, seed=seed, page_aware=page_aware, clock_mhz=mhz)
        rungs.append(rung)
        yield rung
    return rungs


def jumps(rungs: Sequence[Rung], factor: float = 1.5) -> list[int]:
    """Working sets where the per-load time first exceeds ``factor`` x the previous plateau's:
    the cache edges the ladder shows (the size *after* the edge, i.e. the first that no longer fits)."""
    found = []
    plateau = rungs[0].ns_per_load if rungs else 0.0
    for rung in rungs[1:]:
        if plateau > 0 and rung.ns_per_load > factor * plateau:
            found.append(rung.working_set_bytes)
            plateau = rung.ns_per_load
        else:
            plateau = max(plateau, rung.ns_per_load) if not found else plateau
    return found


def level_latencies(rungs: Sequence[Rung], cache_bytes: Sequence[tuple[str, int]]) -> list[tuple[str, Rung]]:
    """For each cache level (name, size) and then DRAM, the rung that best shows its latency: the
    largest working set at most half the level's size (it fits with room for the rest), and for
    DRAM the largest measured. Levels with no such rung are left out."""
    chosen: list[tuple[str, Rung]] = []
    below = 0
    for name, size in sorted(cache_bytes, key=lambda c: c[1]):
        fits = [r for r in rungs if below < r.working_set_bytes <= size // 2]
        if fits:
            chosen.append((name, fits[-1]))
        below = size
    beyond = [r for r in rungs if r.working_set_bytes >= 4 * below] if below else []
    if beyond:
        chosen.append(("DRAM", beyond[-1]))
    return chosen


def hidden_levels(chosen: Sequence[tuple[str, Rung]], share: float = 0.6) -> list[str]:
    """Cache levels (from :func:`level_latencies`) whose rung is already as slow as DRAM: at least
    ``share`` of DRAM's time per load. The level is listed (lscpu, sysfs) but this process does not
    get it: a virtual machine given a slice of a shared L3, or other tenants filling it."""
    dram = dict(chosen).get("DRAM")
    if dram is None:
        return []
    return [name for name, rung in chosen if name != "DRAM" and rung.ns_per_load >= share * dram.ns_per_load]

