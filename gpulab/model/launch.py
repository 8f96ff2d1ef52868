"""Launch overhead: K tiny kernels launched one by one, waited for one by one, replayed from a
CUDA Graph, or fused into one kernel that loops K times.

Each way is a sum of stated per-launch costs (:mod:`gpulab.model.roofline` holds them with
their sources) and the GPU's own time for the work (its spec sheet):

* ``async``  the CPU launches kernel i+1 while the GPU runs kernel i, so the slower of the two
  sets the pace: ``launch + (K - 1) * max(launch, step) + step``
* ``sync``   each launch is waited for before the next: ``K * (launch + step + wait)``
* ``graph``  one launch of a graph of K kernel nodes: ``launch + K * (node + step)``
* ``fused``  one launch whose threads add K times in a register: ``launch + fused loop``

``step`` is one tiny kernel's run: its 8 bytes per element (load and store) at the spec
bandwidth. The fused loop's adds depend on each other, so it takes ``K`` float-add latencies
(or its memory time, if that is longer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpulab.catalogue import Note, msg
from gpulab.model.estimate import ModelEstimate
from gpulab.model.roofline import DEFAULT_LAUNCH_OVERHEAD_S, GRAPH_NODE_OVERHEAD_S, SYNC_ROUND_TRIP_S
from gpulab.specs import GpuSpec

__all__ = ["FADD_LATENCY_CYCLES", "LAUNCH_WAYS", "LaunchCosts", "LaunchWay", "launch_time", "step_seconds"]

LaunchWay = Literal["async", "sync", "graph", "fused"]
LAUNCH_WAYS: tuple[LaunchWay, ...] = ("async", "sync", "graph", "fused")

FADD_LATENCY_CYCLES = 4
"""Cycles a float add waits for the add before it when each needs the other's result: 4 on
Volta, measured by Jia, Maggioni, Staiger and Scarpazza, "Dissecting the NVIDIA Volta GPU
Architecture via Microbenchmarking" (2018, arXiv:1804.06826). Assumed the same on later GPUs."""

BYTES_PER_ELEMENT_STEP = 8
"""One step loads and stores one float32 per element."""


@dataclass(frozen=True)
class LaunchCosts:
    """The per-launch costs the model adds, in seconds (defaults: the cited figures)."""

    launch_s: float = DEFAULT_LAUNCH_OVERHEAD_S
    sync_s: float = SYNC_ROUND_TRIP_S
    graph_node_s: float = GRAPH_NODE_OVERHEAD_S
    add_cycles: int = FADD_LATENCY_CYCLES

    def __post_init__(self) -> None:
        for name in ("launch_s", "sync_s", "graph_node_s", "add_cycles"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")


def step_seconds(spec: GpuSpec, n: int) -> float:
    """One tiny kernel's run on ``spec``: n float32 loaded and stored at the spec bandwidth."""
    return BYTES_PER_ELEMENT_STEP * n / spec.memory_bandwidth_bytes_per_s


def fused_loop_seconds(spec: GpuSpec, k: int, n: int, costs: LaunchCosts) -> float:
    """The fused kernel's run: K dependent adds per thread, or its memory time if longer."""
    adds_s = k * costs.add_cycles / (spec.boost_clock_mhz * 1e6)
    return max(adds_s, step_seconds(spec, n))


def _parts(way: LaunchWay, spec: GpuSpec, k: int, n: int, costs: LaunchCosts) -> dict[str, float]:
    """Seconds of each part of K steps done ``way``: kernel (the GPU working), launch, wait."""
    step, launch = step_seconds(spec, n), costs.launch_s
    if way == "async":
        total = launch + (k - 1) * max(launch, step) + step
        return {"kernel": k * step, "launch": total - k * step}
    if way == "sync":
        return {"kernel": k * step, "launch": k * launch, "wait": k * costs.sync_s}
    if way == "graph":
        return {"kernel": k * step, "launch": launch + k * costs.graph_node_s}
    return {"kernel": fused_loop_seconds(spec, k, n, costs), "launch": launch}


def _assumptions(way: LaunchWay, spec: GpuSpec, n: int, costs: LaunchCosts) -> list[Note]:
    notes = [msg("model.assumption.launch-overhead", number=f"{costs.launch_s * 1e6:g}"),
             msg("model.assumption.launch-step", n=n, number=f"{step_seconds(spec, n) * 1e6:.3g}",
                 bandwidth=f"{spec.memory_bandwidth_gb_s:g}")]  # fmt: skip
    if way == "sync":
        notes.append(msg("model.assumption.launch-wait", number=f"{costs.sync_s * 1e6:g}"))
    if way == "graph":
        notes.append(msg("model.assumption.graph-node", number=f"{costs.graph_node_s * 1e6:g}"))
    if way == "fused":
        notes.append(msg("model.assumption.fused-adds", cycles=costs.add_cycles,
                         clock=f"{spec.boost_clock_mhz:g}"))  # fmt: skip
    return [Note(message) for message in notes]


def launch_time(way: LaunchWay, spec: GpuSpec, k: int, n: int, costs: LaunchCosts | None = None) -> ModelEstimate:
    """Modelled seconds of K steps of ``tiny_add`` over n elements on ``spec``, done ``way``
    (one of :data:`LAUNCH_WAYS`). ValueError for an unknown way, K < 1 or n < 1."""
    if way not in LAUNCH_WAYS:
        raise ValueError(f"way must be one of {', '.join(LAUNCH_WAYS)}, got {way!r}")
    if k < 1 or n < 1:
        raise ValueError(f"K and n must be at least 1, got K={k!r}, n={n!r}")
    costs = costs or LaunchCosts()
    parts = _parts(way, spec, k, n, costs)
    working = parts["kernel"]
    overhead = sum(seconds for part, seconds in parts.items() if part != "kernel")
    bound = "launch-bound" if overhead > working else ("compute-bound" if way == "fused" else "memory-bound")
    return ModelEstimate(seconds=sum(parts.values()), breakdown=parts, bound=bound,
                         assumptions=tuple(_assumptions(way, spec, n, costs)), gpu_name=spec.name,
                         bandwidth_gb_s=spec.memory_bandwidth_gb_s)  # fmt: skip
