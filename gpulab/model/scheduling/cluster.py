"""The simulated cluster and where a job's GPUs go.

A cluster is ``nodes`` nodes of ``gpus_per_node`` GPUs; a rack is the nodes on one leaf switch per
rail (a scalable unit of the rail-optimised fat tree, ``[fabric.rail-optimised]`` of gpus.toml):
a data-parallel ring inside one rack stays under its leaf switches, one leaving it crosses the spine.

Two ways to place a job of ``need`` GPUs on the free GPUs (``free[node]``, GPUs free on each node):

- :func:`place_anywhere`: the first free GPUs in node order (Slurm's default linear order, a
  scheduler that only counts GPUs). A tensor-parallel group may then straddle two nodes.
- :func:`place_topology`: a job smaller than a node goes on the one node where it fits most
  tightly (best fit); a larger one takes whole free nodes, inside one rack when any rack has
  enough (the rack with the fewest that suffice), else in as few racks as it can.

An allocation is a pair of arrays: the nodes and the GPUs taken on each, in rank order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from gpulab.lab.base import resolve_model_gpu
from gpulab.model import cluster as fabric_model
from gpulab.model.cluster_layout import fabric_spec, node_spec

Allocation = tuple[np.ndarray, np.ndarray]  # (nodes, GPUs on each), in rank order

TP_COMM_SHARE = 0.1
"""Assumed share of a training step spent in tensor-parallel all-reduces when they run over NVLink
(Megatron-style TP of 8 inside an H100 node; an illustrative figure, not a measurement). It sets the
default of the lab's ``tp_split_speed`` parameter (:func:`tp_across_nodes_speed`: 0.59 on H100)."""

RACK_SPAN_SPEED = 0.97
"""Assumed speed of a job whose data-parallel ring leaves its rack (crosses the spine): the DP
all-reduce mostly hides under the backward pass, so a few percent (illustrative, not measured).
The default of the lab's ``rack_span_speed`` parameter."""


@dataclass(frozen=True)
class ClusterSpec:
    """``nodes`` nodes of ``gpus_per_node`` GPUs, ``nodes_per_rack`` to a rack (the last may be short)."""

    nodes: int
    gpus_per_node: int = 8
    nodes_per_rack: int = 32

    def __post_init__(self) -> None:
        if self.nodes < 1 or self.gpus_per_node < 1 or self.nodes_per_rack < 1:
            raise ValueError("a cluster needs at least one node of one GPU")

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def racks(self) -> int:
        return -(-self.nodes // self.nodes_per_rack)

    def rack_of(self) -> np.ndarray:
        return _racks(self.nodes, self.nodes_per_rack)


@cache
def _racks(nodes: int, per_rack: int) -> np.ndarray:
    racks = np.arange(nodes) // per_rack
    racks.flags.writeable = False
    return racks


def preset_cluster(gpus: int, layout: str = "dgx-h100") -> ClusterSpec:
    """A cluster of about ``gpus`` GPUs in nodes of the modelled ``layout`` (gpus.toml's [node.*]),
    racks of one scalable unit of the rail-optimised fabric."""
    node = node_spec(layout)
    nodes = max(1, -(-gpus // node.gpus))
    return ClusterSpec(nodes, node.gpus, fabric_spec().max_nodes_per_unit)


@cache
def tp_across_nodes_speed(model_gpu: str = "h100-sxm") -> float:
    """The speed of a job whose tensor-parallel group straddles nodes: its TP share of the step
    (:data:`TP_COMM_SHARE`, assumed) at a NIC's rate instead of NVLink's (the cluster model's fabric:
    47 GB/s against 371 GB/s on H100, so 1 / (0.9 + 0.1 x 7.9) = 0.59). Only the default of the lab's
    ``tp_split_speed`` parameter: the share is a guess, so the speed is one too."""
    fabric = fabric_model.fabric_for(resolve_model_gpu(model_gpu))
    slower = fabric.intra.bytes_per_s / fabric.inter.bytes_per_s
    return 1.0 / ((1 - TP_COMM_SHARE) + TP_COMM_SHARE * slower)


def place_anywhere(free: np.ndarray, need: int) -> Allocation | None:
    """The first ``need`` free GPUs in node order, or None when fewer are free."""
    nodes = np.flatnonzero(free > 0)
    if nodes.size == 0:
        return None
    total = np.cumsum(free[nodes])
    if total[-1] < need:
        return None
    last = int(np.searchsorted(total, need))
    taken = free[nodes[: last + 1]].copy()
    taken[-1] -= total[last] - need
    return nodes[: last + 1], taken


def place_topology(free: np.ndarray, need: int, spec: ClusterSpec) -> Allocation | None:
    """Best fit inside one node for a job smaller than a node; whole nodes in the fewest racks otherwise."""
    per_node = spec.gpus_per_node
    if need <= per_node:
        fits = np.flatnonzero(free >= need)
        if fits.size == 0:
            return None
        node = fits[np.argmin(free[fits])]  # the tightest fit (the first of equals)
        return np.array([node]), np.array([need])
    whole = free == per_node
    nodes_needed = -(-need // per_node)
    if int(whole.sum()) < nodes_needed:
        return None
    racks = spec.rack_of()
    per_rack = np.bincount(racks[whole], minlength=spec.racks)
    enough = np.flatnonzero(per_rack >= nodes_needed)
    if enough.size:
        rack = enough[np.argmin(per_rack[enough])]
        chosen = np.flatnonzero(whole & (racks == rack))[:nodes_needed]
    else:
        order = np.argsort(-per_rack, kind="stable")  # the fullest racks first: fewest racks crossed
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        candidates = np.flatnonzero(whole)
        candidates = candidates[np.argsort(rank[racks[candidates]], kind="stable")]
        chosen = np.sort(candidates[:nodes_needed])
    taken = np.full(chosen.size, per_node)
    taken[-1] = need - per_node * (chosen.size - 1)
    return chosen, taken


def placement_speed(allocation: Allocation, tp: int, spec: ClusterSpec, tp_split_speed: float,
                    rack_span_speed: float = RACK_SPAN_SPEED) -> float:  # fmt: skip
    """How fast a job runs on this allocation, against one inside nodes and one rack (1.0): at
    ``tp_split_speed`` when a tensor-parallel group straddles nodes, times ``rack_span_speed`` when
    the job spans racks (both assumed)."""
    nodes, taken = allocation
    speed = 1.0
    if tp > 1 and nodes.size > 1 and np.any(np.cumsum(taken)[:-1] % tp):
        speed *= tp_split_speed
    racks = nodes // spec.nodes_per_rack
    if racks.size and racks.min() != racks.max():
        speed *= rack_span_speed
    return speed


def node_ranges(nodes: np.ndarray) -> list[list[int]]:
    """Sorted node indices as ``[[first, last], ...]`` runs of consecutive nodes."""
    ordered = np.sort(nodes)
    if ordered.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(ordered) != 1)
    starts = np.concatenate(([ordered[0]], ordered[breaks + 1]))
    ends = np.concatenate((ordered[breaks], [ordered[-1]]))
    return [[int(a), int(b)] for a, b in zip(starts, ends, strict=True)]
