"""Launch overhead: K tiny kernels launched one by one, waited for one by one, replayed from a
CUDA Graph, or fused into one kernel that loops K times.

What the CPU pays and what the GPU pays are separate costs (:class:`LaunchCosts`):

* the host spends ``issue`` on each launch call (``graph_launch`` on one graph launch);
* the GPU runs each kernel for ``step`` = max(its bytes at the achievable bandwidth, ``kernel_min``,
  the shortest a kernel runs at all) and leaves a ``gap`` before the next kernel of a stream, or
  ``graph_node`` before the next kernel node of a graph;
* waiting for a kernel before the next launch adds ``sync``: the launch reaching the GPU and
  the kernel's completion reaching the host thread.

Each way adds them up:

* ``async``  the CPU launches kernel i+1 while the GPU runs kernel i, so the slower of the two
  sets the pace: ``issue + (K - 1) * max(issue, step + gap) + step``
* ``sync``   each launch is waited for before the next: ``K * (issue + step + sync)``
* ``graph``  one launch of a graph of K kernel nodes: ``graph_launch + K * (step + graph_node)``
* ``fused``  one launch whose threads add K times in a register: ``issue + fused loop``

The fused loop's adds depend on each other, so it takes ``K`` float-add latencies (or its memory
time, or ``kernel_min``, if longer). The costs are measured ones (:data:`VOLTA_COSTS`,
:data:`AMPERE_COSTS`); :func:`costs_for` picks those of a GPU's generation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpulab.catalogue import Note, msg
from gpulab.model.estimate import ModelEstimate
from gpulab.model.roofline import achievable_bytes_per_s
from gpulab.specs import GpuSpec

__all__ = [
    "AMPERE_COSTS",
    "FADD_LATENCY_CYCLES",
    "GRAPH_NODE_OVERHEAD_S",
    "LAUNCH_WAYS",
    "SYNC_ROUND_TRIP_S",
    "VOLTA_COSTS",
    "LaunchCosts",
    "LaunchWay",
    "costs_for",
    "launch_time",
    "step_seconds",
]

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
    """The per-launch and per-kernel costs the model adds, in seconds, and the GPU they were
    measured on (``measured_on``, a spec key)."""

    issue_s: float
    kernel_min_s: float
    gap_s: float
    sync_s: float
    graph_node_s: float
    graph_launch_s: float
    measured_on: str
    add_cycles: int = FADD_LATENCY_CYCLES

    def __post_init__(self) -> None:
        for name in ("issue_s", "kernel_min_s", "gap_s", "sync_s", "graph_node_s", "graph_launch_s", "add_cycles"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")


# Volta, from two measurements of the same kind (a loop of launches timed by the wall clock):
# A. Gray, "Getting Started with CUDA Graphs", NVIDIA Technical Blog, 2019 (Tesla V100, a kernel
# that runs 2.9 us on its own, 20 kernels per step, 1000 steps): 9.6 us per kernel with a stream
# synchronise after each launch, 3.8 us launched back to back, 3.4 us replayed from a graph; and
# CSCS's ReFrame check gpu_kernel_latency (reframe-hpc/reframe, cscs-checks/microbenchmarks/gpu/
# kernel_latency; 5000 empty kernels <<<1,1>>> timed by the wall clock, reference values for
# ault:intelv100): 1.83 us each launched back to back, 7.15 us each with a device synchronise.
VOLTA_ISSUE_S = 1.83e-6
"""Host time per launch: empty kernels launched back to back on a V100 come at 1.83 us each
(CSCS). Their own run and gap (0.45 + 0.9 us) are shorter, so the host sets that pace."""

VOLTA_KERNEL_MIN_S = 0.45e-6
"""The shortest a kernel runs: a waited empty kernel took 7.15 us (CSCS), a waited 2.9 us kernel
9.6 (blog); both pay the same launch and wait, so the empty one ran 2.9 - (9.6 - 7.15) = 0.45 us."""

VOLTA_GAP_S = 0.9e-6
"""GPU time between two kernels of a stream: 2.9 us kernels back to back came every 3.8 us (blog),
faster than the host needs to launch them (1.83 us), so the GPU set the pace: 3.8 - 2.9."""

SYNC_ROUND_TRIP_S = 9.6e-6 - 2.9e-6 - VOLTA_ISSUE_S
"""Extra cost per kernel of waiting for it before the next launch (V100): 9.6 us per waited 2.9 us
kernel (blog), less the kernel and the launch call: 4.87 us."""

GRAPH_NODE_OVERHEAD_S = 3.4e-6 - 2.9e-6
"""GPU time between two kernel nodes of a replayed CUDA Graph (V100): 3.4 - 2.9 us (blog)."""

VOLTA_COSTS = LaunchCosts(issue_s=VOLTA_ISSUE_S, kernel_min_s=VOLTA_KERNEL_MIN_S, gap_s=VOLTA_GAP_S,
                          sync_s=SYNC_ROUND_TRIP_S, graph_node_s=GRAPH_NODE_OVERHEAD_S,
                          graph_launch_s=VOLTA_ISSUE_S, measured_on="v100-sxm2-16gb")  # fmt: skip
"""V100's costs. One graph launch is assumed to cost the host what one kernel launch does."""

# Ampere, from CSCS's same check on ault:amda100 (A100, CUDA 11): 2.7 us per empty kernel launched
# back to back, 9.65 us waited. No published graph or back-to-back figure of a longer kernel on an
# A100 was found: the kernel's shortest run, the gaps and the graph's cost per node are Volta's.
AMPERE_ISSUE_S = 2.7e-6
"""Host time per launch on an A100 host: empty kernels back to back came at 2.7 us each (CSCS)."""

AMPERE_SYNC_S = 9.65e-6 - AMPERE_ISSUE_S - VOLTA_KERNEL_MIN_S
"""A waited empty kernel took 9.65 us on an A100 (CSCS), less the launch call and its run: 6.5 us."""

AMPERE_COSTS = LaunchCosts(issue_s=AMPERE_ISSUE_S, kernel_min_s=VOLTA_KERNEL_MIN_S, gap_s=VOLTA_GAP_S,
                           sync_s=AMPERE_SYNC_S, graph_node_s=GRAPH_NODE_OVERHEAD_S,
                           graph_launch_s=AMPERE_ISSUE_S, measured_on="a100-sxm4-40gb")  # fmt: skip
"""A100's costs; assumed for every later GPU too (none has published launch costs we could find)."""


def costs_for(spec: GpuSpec) -> LaunchCosts:
    """The measured costs of ``spec``'s generation: Volta's for compute capability 7.x and below,
    Ampere's for 8.0 and later (launch costs belong to the host and driver as much as the GPU)."""
    return VOLTA_COSTS if spec.compute_capability < (8, 0) else AMPERE_COSTS


def step_seconds(spec: GpuSpec, n: int, costs: LaunchCosts | None = None) -> float:
    """One tiny kernel's run on ``spec``: n float32 loaded and stored at the achievable bandwidth
    (:func:`gpulab.model.roofline.memory_share`, a published streaming benchmark's share), but
    never shorter than the shortest kernel (``costs.kernel_min_s``, default: ``spec``'s)."""
    shortest = (costs or costs_for(spec)).kernel_min_s
    return max(BYTES_PER_ELEMENT_STEP * n / achievable_bytes_per_s(spec), shortest)


def fused_loop_seconds(spec: GpuSpec, k: int, n: int, costs: LaunchCosts) -> float:
    """The fused kernel's run: K dependent adds per thread, or its memory time (or the shortest
    kernel) if longer."""
    adds_s = k * costs.add_cycles / (spec.boost_clock_mhz * 1e6)
    return max(adds_s, step_seconds(spec, n, costs))


def _parts(way: LaunchWay, spec: GpuSpec, k: int, n: int, costs: LaunchCosts) -> dict[str, float]:
    """Seconds of each part of K steps done ``way``: kernel (the GPU working), gap (the GPU
    between kernels), launch (the host's calls the GPU waits for), wait."""
    step, issue = step_seconds(spec, n, costs), costs.issue_s
    if way == "async":
        if issue >= step + costs.gap_s:  # the host sets the pace: the GPU idles between kernels
            return {"kernel": k * step, "launch": issue + (k - 1) * (issue - step)}
        return {"kernel": k * step, "gap": (k - 1) * costs.gap_s, "launch": issue}
    if way == "sync":
        return {"kernel": k * step, "launch": k * issue, "wait": k * costs.sync_s}
    if way == "graph":
        return {"kernel": k * step, "gap": k * costs.graph_node_s, "launch": costs.graph_launch_s}
    return {"kernel": fused_loop_seconds(spec, k, n, costs), "launch": issue}


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.3g}"


def _assumptions(way: LaunchWay, spec: GpuSpec, n: int, costs: LaunchCosts) -> list[Note]:
    measured = costs.measured_on.split("-")[0].upper()  # "V100", "A100"
    notes = [msg("model.assumption.launch-issue", number=_us(costs.issue_s), gpu=measured),
             msg("model.assumption.launch-step", n=n, number=f"{step_seconds(spec, n, costs) * 1e6:.3g}",
                 bandwidth=f"{achievable_bytes_per_s(spec) / 1e9:.0f}", shortest=_us(costs.kernel_min_s))]  # fmt: skip
    if way == "async":
        notes.append(msg("model.assumption.launch-gap", number=_us(costs.gap_s)))
    if way == "sync":
        notes.append(msg("model.assumption.launch-wait", number=_us(costs.sync_s)))
    if way == "graph":
        notes.append(msg("model.assumption.graph-node", number=_us(costs.graph_node_s)))
    if way == "fused":
        notes.append(msg("model.assumption.fused-adds", cycles=costs.add_cycles,
                         clock=f"{spec.boost_clock_mhz:g}"))  # fmt: skip
    if costs.measured_on.split("-")[0] != spec.key.split("-")[0]:
        notes.append(msg("model.assumption.launch-measured-on", gpu=measured, spec=spec.name))
    return [Note(message) for message in notes]


def launch_time(way: LaunchWay, spec: GpuSpec, k: int, n: int, costs: LaunchCosts | None = None) -> ModelEstimate:
    """Modelled seconds of K steps of ``tiny_add`` over n elements on ``spec``, done ``way``
    (one of :data:`LAUNCH_WAYS`), with ``costs`` (default: those of ``spec``'s generation,
    :func:`costs_for`). ValueError for an unknown way, K < 1 or n < 1."""
    if way not in LAUNCH_WAYS:
        raise ValueError(f"way must be one of {', '.join(LAUNCH_WAYS)}, got {way!r}")
    if k < 1 or n < 1:
        raise ValueError(f"K and n must be at least 1, got K={k!r}, n={n!r}")
    costs = costs or costs_for(spec)
    parts = _parts(way, spec, k, n, costs)
    working = parts["kernel"]
    overhead = sum(seconds for part, seconds in parts.items() if part != "kernel")
    bound = "launch-bound" if overhead > working else ("compute-bound" if way == "fused" else "memory-bound")
    return ModelEstimate(seconds=sum(parts.values()), breakdown=parts, bound=bound,
                         assumptions=tuple(_assumptions(way, spec, n, costs)), gpu_name=spec.name,
                         bandwidth_gb_s=spec.memory_bandwidth_gb_s)  # fmt: skip
