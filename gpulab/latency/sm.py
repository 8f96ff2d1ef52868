"""An SM hiding memory latency with warps: a small cycle-by-cycle model, vectorised over warps.

Each resident warp replays one instruction stream (a lab kernel's, recorded by the SIMT emulator:
:func:`emulated_stream`), over and over, as a new block would. Per cycle:

* each of the ``schedulers`` warp schedulers owns the warps ``w % schedulers`` and issues one
  instruction of its lowest-numbered *ready* warp (ready: not waiting for a load);
* a compute instruction (or a shared-memory access, a branch, a barrier) takes the issue slot
  only: the warp may issue again next cycle (ALU latency and barriers are not modelled);
* a global load enters the memory pipe, which accepts ``requests_per_cycle`` (the bandwidth
  limit: one request every ``1 / requests_per_cycle`` cycles, queued in order) and answers
  ``latency`` cycles after it accepted the request; the warp stalls until then (its next
  instruction uses the value: no independent loads in flight per warp);
* a global store takes an issue slot and a memory-pipe slot but the warp does not wait;
* the memory queue holds ``QUEUE_REQUESTS`` requests: while it is full, a warp whose next
  instruction is a load or store waits (without this, stores that no warp waits for would queue
  without end, and the loads behind them would come back later and later: no steady state).

The warps start at staggered points of the stream (blocks arrive at different times), so the mix
of loads and stores in the memory pipe is the stream's own, not a phase all warps share.

With ``c`` compute instructions per load, a warp alone completes one load every ``latency + c + 1``
cycles, so ``W`` warps ask for ``W / (latency + c + 1)`` loads a cycle until the memory pipe (or
the issue slots) caps it. Little's law: to keep ``requests_per_cycle`` loads flowing with each load
in flight for ``latency`` cycles, ``requests_per_cycle x latency`` must be in flight, i.e.
:func:`littles_law_warps` = ``load_roof x (latency + c + 1)`` warps, where :func:`load_roof` is the
loads' share of ``requests_per_cycle`` (stores take pipe slots too). A CPU core is the
same machine with one warp and nothing to switch to (:func:`cpu_contrast`).

:func:`simulate` is a generator that yields the per-cycle state (what each warp is doing) every
``chunk`` cycles, for a page to animate, and returns a :class:`SmRun`; :func:`sweep` runs it for a
series of warp counts (the throughput and utilisation curves).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpulab.lab.run import drain

COMPUTE, LOAD, STORE = 0, 1, 2
OP_NAMES = ("compute", "load", "store")
# What a warp does in a cycle (the animation's colours): issuing, ready but another warp of its
# scheduler issued, or waiting for its load.
ISSUING, READY, STALLED = 0, 1, 2
STATE_NAMES = ("issuing", "ready", "stalled")
QUEUE_REQUESTS = 8  # requests the memory queue holds before memory instructions wait to issue


@dataclass(frozen=True)
class SmConfig:
    """The SM: schedulers, the load latency in cycles and the memory pipe's requests per cycle."""

    schedulers: int = 4
    latency: int = 400
    requests_per_cycle: float = 0.25

    def __post_init__(self) -> None:
        if self.schedulers < 1 or self.latency < 1 or not self.requests_per_cycle > 0:
            raise ValueError("schedulers and latency must be >= 1 and requests_per_cycle > 0")


@dataclass(frozen=True)
class CycleState:
    """One cycle of the model: what each warp did, and the loads in flight."""

    cycle: int
    states: np.ndarray  # (warps,) ISSUING / READY / STALLED
    in_flight: int


@dataclass
class SmRun:
    """A run's totals."""

    warps: int
    cycles: int  # the steady-state cycles the totals count
    issued: int
    loads: int
    in_flight_mean: float
    state_cycles: dict[str, int] = field(default_factory=dict)

    @property
    def loads_per_cycle(self) -> float:
        return self.loads / self.cycles

    def utilisation(self, schedulers: int) -> float:
        """Share of issue slots (schedulers x cycles) that issued an instruction."""
        return self.issued / (schedulers * self.cycles)


def stream_shape(stream: np.ndarray) -> tuple[int, int]:
    """(global loads, other instructions) in one pass of ``stream``."""
    loads = int(np.count_nonzero(stream == LOAD))
    return loads, len(stream) - loads


def littles_law_warps(stream: np.ndarray, config: SmConfig) -> float:
    """Warps needed to keep the memory pipe full of loads: the loads' share of the pipe
    (:func:`load_roof`, stores take their slots too) x (latency + cycles a warp spends issuing per load)."""
    loads, others = stream_shape(stream)
    if loads == 0:
        return float("inf")
    return load_roof(stream, config.requests_per_cycle) * (config.latency + (others + loads) / loads)


def load_roof(stream: np.ndarray, rate: float) -> float:
    """Loads per cycle the memory pipe allows: a store takes a pipe slot too, so with ``s`` stores
    per ``l`` loads only ``l / (l + s)`` of the ``rate`` requests are loads."""
    loads, stores = int(np.count_nonzero(stream == LOAD)), int(np.count_nonzero(stream == STORE))
    return rate * loads / (loads + stores) if loads else 0.0


def simulate(stream: Sequence[int] | np.ndarray, warps: int, config: SmConfig, cycles: int = 20_000,
             chunk: int = 0) -> Generator[CycleState, None, SmRun]:
    """Run ``warps`` warps replaying ``stream`` (op codes) for ``cycles`` cycles. Yields the
    :class:`CycleState` every ``chunk`` cycles (0: never); returns the :class:`SmRun`, whose totals
    count the steady state only: the cycles after the warm-up (a quarter of the run, or three
    latencies where that is longer, up to half the run: the first loads must have come back and
    the queue settled), and loads when they come back, not when they are issued (a queue could
    otherwise count loads the memory never served)."""
    ops = np.asarray(stream, dtype=np.int8)
    if ops.size == 0 or warps < 1:
        raise ValueError("the stream must have instructions and warps must be >= 1")
    pc = (np.arange(warps, dtype=np.int64) * ops.size) // warps
    ready_at = np.zeros(warps, dtype=np.int64)
    owner = np.arange(warps) % config.schedulers
    order = np.arange(warps)
    pipe_free = 0.0
    returns: list[int] = []  # completion cycles of loads in flight (kept sorted: the pipe is in order)
    gap = 1.0 / config.requests_per_cycle
    backlog = QUEUE_REQUESTS * gap
    issued = loads = in_flight_sum = 0
    counts = np.zeros(3, dtype=np.int64)
    warmup = max(cycles // 4, min(cycles // 2, 3 * config.latency))
    for t in range(cycles):
        steady = t >= warmup
        ready = ready_at <= t
        if pipe_free > t + backlog:  # the memory queue is full: a warp whose next op is memory waits
            ready &= ops[pc] == COMPUTE
        states = np.where(ready, READY, STALLED).astype(np.int8)
        # Each scheduler issues its lowest-numbered ready warp.
        candidates = np.where(ready, order, warps)
        chosen = np.full(config.schedulers, warps)
        np.minimum.at(chosen, owner, candidates)
        for w in chosen[chosen < warps]:
            op = ops[pc[w]]
            states[w] = ISSUING
            issued += steady
            if op == LOAD or op == STORE:
                start = max(float(t), pipe_free)
                pipe_free = start + gap
                if op == LOAD:
                    done = int(np.ceil(start)) + config.latency
                    ready_at[w] = done
                    returns.append(done)
                else:
                    ready_at[w] = t + 1
            else:
                ready_at[w] = t + 1
            pc[w] = (pc[w] + 1) % ops.size
        while returns and returns[0] <= t:
            returns.pop(0)
            loads += steady
        if steady:
            in_flight_sum += len(returns)
            counts += np.bincount(states, minlength=3)
        if chunk and t % chunk == 0:
            yield CycleState(t, states.copy(), len(returns))
    measured = cycles - warmup
    return SmRun(warps, measured, issued, loads, in_flight_sum / measured,
                 {name: int(counts[i]) for i, name in enumerate(STATE_NAMES)})


def run(stream: Sequence[int] | np.ndarray, warps: int, config: SmConfig, cycles: int = 20_000) -> SmRun:
    """:func:`simulate` to the end, without states."""
    return drain(simulate(stream, warps, config, cycles))


def sweep(stream: Sequence[int] | np.ndarray, warp_counts: Sequence[int], config: SmConfig,
          cycles: int = 20_000) -> Generator[SmRun, None, list[SmRun]]:
    """One run per warp count; yields each as it finishes, returns them all."""
    runs = []
    for count in warp_counts:
        result = run(stream, count, config, cycles)
        runs.append(result)
        yield result
    return runs


def saturation_warps(runs: Sequence[SmRun], share: float = 0.95) -> int | None:
    """The fewest warps whose loads per cycle reach ``share`` of the best run's."""
    if not runs:
        return None
    best = max(r.loads_per_cycle for r in runs)
    return next((r.warps for r in sorted(runs, key=lambda r: r.warps) if r.loads_per_cycle >= share * best), None)


def levelled_off_warps(runs: Sequence[SmRun], share: float = 0.95) -> int | None:
    """The fewest warps whose loads per cycle reach ``share`` of the best run's, or None when only
    the largest count does: the curve was still climbing at the sweep's end, so the sweep shows no
    saturation point (naming the largest count would claim one)."""
    found = saturation_warps(runs, share)
    if found is None or found == max(r.warps for r in runs):
        return None
    return found


def cpu_contrast(stream: Sequence[int] | np.ndarray, latency: int, cycles: int = 20_000) -> SmRun:
    """The same stream on a core with one thread and nothing to switch to: every load's latency is
    paid in full (out-of-order execution and prefetching, which a CPU does have, left out)."""
    return run(stream, 1, SmConfig(schedulers=1, latency=latency, requests_per_cycle=1.0), cycles)


def synthetic_stream(compute_per_load: int) -> np.ndarray:
    """One load followed by ``compute_per_load`` compute instructions."""
    return np.array([LOAD] + [COMPUTE] * compute_per_load, dtype=np.int8)


def ops_from_steps(steps: Sequence[Any]) -> np.ndarray:
    """Op codes from an emulated warp's :class:`gpulab.simt.trace.TraceStep` list: a global load
    or store is a memory op, everything else (statements, branches, shared memory, barriers) issues
    as one compute instruction."""
    codes = []
    for step in steps:
        kind, space = getattr(step, "kind", ""), getattr(step, "space", "")
        if kind == "load" and space == "global":
            codes.append(LOAD)
        elif kind in ("store", "atomic") and space == "global":
            codes.append(STORE)
        else:
            codes.append(COMPUTE)
    return np.array(codes, dtype=np.int8)


def emulated_stream(entry: str, preset: str | None = None) -> np.ndarray:
    """The op codes of warp 0 of a catalogue kernel's smallest (or named) preset, emulated."""
    from gpulab import simt
    from gpulab.lab.declare import kernel

    spec = kernel(entry)  # any catalogue kernel, a lab's own included (the warp visualizer lists them all)
    chosen = spec.preset(preset) if preset else spec.smallest_preset
    args = spec.build_args(chosen)
    result = simt.launch(spec.source, spec.entry, grid=chosen.grid, block=chosen.block, args=args, trace=[0],
                         shared_mem=chosen.shared_mem)  # fmt: skip
    steps = (result.trace or {}).get(0, [])
    return ops_from_steps(steps)
