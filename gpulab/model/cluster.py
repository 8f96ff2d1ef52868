"""AllReduce across many GPUs by the alpha-beta model: ring, tree and hierarchical, and a fit to measurements.

Each step of a collective costs ``alpha`` (a fixed start-up: software, NIC, switch hops) plus
``bytes x beta`` (beta = 1 / link bandwidth in bytes per second). With ``n`` GPUs and a message
of ``S`` bytes:

- ring (reduce-scatter then all-gather): ``2(n-1)·alpha + 2(n-1)/n·S·beta`` — moves the fewest
  bytes but its start-up grows with n;
- tree (reduce up a binary tree, broadcast back down, the message pipelined in chunks as NCCL's
  double binary tree does): ``2·ceil(log2 n)·alpha + 2·S·beta``;
- hierarchical (NVLink inside a node of 8, InfiniBand across nodes): reduce-scatter inside the
  node, a ring AllReduce of each GPU's 1/8 slice across nodes on its own NIC, all-gather inside.

A flat ring or tree that leaves one node is paced by its slowest link, the inter-node one.
Bus bandwidth follows nccl-tests: ``busbw = S / t · 2(n-1)/n``. :func:`fit_alpha_beta` recovers
alpha and beta from measured times of one algorithm at one n. Every figure that is assumed
rather than read from ``resources/gpus.toml`` is listed by :func:`fabric_assumptions`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpulab.catalogue import Note, msg
from gpulab.model.transfer import pcie_gb_s_per_direction
from gpulab.specs import GpuSpec

__all__ = [
    "ALGORITHMS",
    "IB_ALPHA_S",
    "IB_GB_S_PER_DIRECTION",
    "INTRA_ALPHA_S",
    "NODE_GPUS",
    "AlphaBetaFit",
    "Fabric",
    "Link",
    "allreduce_seconds",
    "bus_bandwidth_gb_s",
    "fabric_assumptions",
    "fabric_for",
    "fit_alpha_beta",
    "hierarchical_allreduce_seconds",
    "ring_allreduce_seconds",
    "tree_allreduce_seconds",
]

ALGORITHMS = ("ring", "tree", "hierarchical")
NODE_GPUS = 8
"""GPUs per node (an HGX/DGX H100 server, Meta's Grand Teton): joined by NVLink inside, by a NIC each across."""

IB_GB_S_PER_DIRECTION = 50.0
"""One 400 Gb/s NIC per GPU (NVIDIA ConnectX-7 NDR InfiniBand; the Llama 3 paper's RoCE and InfiniBand
fabrics are both 400 Gb/s): 400 / 8 = 50 GB/s each way."""

INTRA_ALPHA_S = 1e-6
"""Assumed start-up of one step between GPUs in a node (an order of magnitude, not a measurement)."""

IB_ALPHA_S = 5e-6
"""Assumed start-up of one step across nodes (NIC, switch hops; an order of magnitude)."""


@dataclass(frozen=True)
class Link:
    """One kind of hop: its start-up ``alpha_s`` and its bandwidth each way, bytes per second."""

    alpha_s: float
    bytes_per_s: float

    @property
    def beta_s_per_byte(self) -> float:
        return 1.0 / self.bytes_per_s


@dataclass(frozen=True)
class Fabric:
    """The links of a cluster: inside a node (``intra``), across nodes (``inter``), and the node's size."""

    intra: Link
    inter: Link
    node_gpus: int = NODE_GPUS
    intra_name: str = "NVLink"


def fabric_for(spec: GpuSpec, ib_gb_s: float = IB_GB_S_PER_DIRECTION) -> Fabric:
    """The fabric of nodes of 8 ``spec`` GPUs: NVLink inside (half the spec table's bidirectional total each
    way) or, without NVLink, the PCIe link; one 400 Gb/s NIC per GPU across nodes."""
    if spec.nvlink_gb_s:
        intra_gb_s, name = spec.nvlink_gb_s / 2, "NVLink"
    else:
        intra_gb_s, name = pcie_gb_s_per_direction(spec.pcie_gen, spec.pcie_lanes), f"PCIe Gen{spec.pcie_gen}"
    return Fabric(Link(INTRA_ALPHA_S, intra_gb_s * 1e9), Link(IB_ALPHA_S, ib_gb_s * 1e9), NODE_GPUS, name)


def _check(n: int, message_bytes: float) -> None:
    if n < 1 or message_bytes < 0:
        raise ValueError(f"need at least one GPU and a message of 0 bytes or more, got n={n}, {message_bytes} bytes")


def ring_allreduce_seconds(n: int, message_bytes: float, link: Link) -> float:
    """Ring AllReduce: ``2(n-1)·alpha + 2(n-1)/n·S·beta``; 0 on one GPU."""
    _check(n, message_bytes)
    steps = 2 * (n - 1)
    return steps * link.alpha_s + steps / n * message_bytes * link.beta_s_per_byte


def tree_steps(n: int) -> int:
    """Levels up and down a binary tree over n GPUs: ``2·ceil(log2 n)``."""
    return 2 * math.ceil(math.log2(n)) if n > 1 else 0


def tree_allreduce_seconds(n: int, message_bytes: float, link: Link) -> float:
    """Pipelined tree AllReduce: ``2·ceil(log2 n)·alpha + 2·S·beta``; 0 on one GPU."""
    _check(n, message_bytes)
    if n == 1:
        return 0.0
    return tree_steps(n) * link.alpha_s + 2 * message_bytes * link.beta_s_per_byte


def hierarchical_allreduce_seconds(n: int, message_bytes: float, fabric: Fabric) -> float:
    """Reduce-scatter in the node, ring AllReduce of one slice across nodes, all-gather in the node.

    Inside the node each half costs ``(k-1)·alpha + (k-1)/k·S·beta`` (k GPUs per node); across the
    ``n/k`` nodes each GPU takes part in a ring of ``S/k`` bytes on its own NIC. Up to one node it is a
    ring on the node's links.
    """
    _check(n, message_bytes)
    k = min(fabric.node_gpus, n)
    if n <= fabric.node_gpus:
        return ring_allreduce_seconds(n, message_bytes, fabric.intra)
    nodes = math.ceil(n / k)
    half_in_node = (k - 1) * fabric.intra.alpha_s + (k - 1) / k * message_bytes * fabric.intra.beta_s_per_byte
    return 2 * half_in_node + ring_allreduce_seconds(nodes, message_bytes / k, fabric.inter)


def allreduce_seconds(algorithm: str, n: int, message_bytes: float, fabric: Fabric) -> float:
    """AllReduce time of ``algorithm`` (one of :data:`ALGORITHMS`); a flat ring or tree that spans more
    than one node is paced by the inter-node link."""
    if algorithm == "hierarchical":
        return hierarchical_allreduce_seconds(n, message_bytes, fabric)
    link = fabric.intra if n <= fabric.node_gpus else fabric.inter
    if algorithm == "ring":
        return ring_allreduce_seconds(n, message_bytes, link)
    if algorithm == "tree":
        return tree_allreduce_seconds(n, message_bytes, link)
    raise ValueError(f"unknown AllReduce algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")


def bus_bandwidth_gb_s(n: int, message_bytes: float, seconds: float) -> float:
    """nccl-tests' bus bandwidth of an AllReduce: ``S / t · 2(n-1)/n``, GB/s (0 for one GPU or no time)."""
    if n < 2 or seconds <= 0:
        return 0.0
    return message_bytes / seconds * 2 * (n - 1) / n / 1e9


# ---------------------------------------------------------------- fitting alpha and beta


@dataclass(frozen=True)
class AlphaBetaFit:
    """alpha and beta that best explain measured AllReduce times (least squares), and how well (r²)."""

    alpha_s: float
    beta_s_per_byte: float
    r_squared: float

    @property
    def gb_s(self) -> float:
        """The fitted link bandwidth, GB/s (infinite when beta came out as 0 or less)."""
        return 1e-9 / self.beta_s_per_byte if self.beta_s_per_byte > 0 else math.inf

    @property
    def link(self) -> Link:
        return Link(self.alpha_s, 1.0 / self.beta_s_per_byte)


def _coefficients(algorithm: str, n: int) -> tuple[float, float]:
    """(how many alphas, how many S·betas) one AllReduce of ``algorithm`` costs on n GPUs of one link."""
    if algorithm == "ring":
        return 2 * (n - 1), 2 * (n - 1) / n
    if algorithm == "tree":
        return tree_steps(n), 2.0
    raise ValueError(f"alpha and beta are fitted for ring or tree on one kind of link, not {algorithm!r}")


def fit_alpha_beta(message_bytes: Sequence[float], seconds: Sequence[float], n: int,
                   algorithm: str = "ring") -> AlphaBetaFit:  # fmt: skip
    """Fit ``t = a·alpha + b·S·beta`` (a, b from the algorithm and n) to measured (size, time) pairs.

    A straight line ``t = c0 + c1·S`` through the points (least relative error) gives ``alpha = c0 / a``,
    ``beta = c1 / b``.
    ValueError when there are fewer than two distinct sizes or fewer than two GPUs."""
    sizes, times = np.asarray(message_bytes, float), np.asarray(seconds, float)
    if sizes.shape != times.shape or len(np.unique(sizes)) < 2:
        raise ValueError("fitting alpha and beta needs times at two or more different message sizes")
    if n < 2:
        raise ValueError("fitting alpha and beta needs at least two GPUs")
    a, b = _coefficients(algorithm, n)
    if np.any(times <= 0):
        raise ValueError("fitting alpha and beta needs positive times")
    # Weighted by 1/t, the line fits every size to the same relative error: unweighted, the largest
    # messages (milliseconds) decide alone and the microsecond latency of small ones comes out negative.
    slope, intercept = np.polyfit(sizes, times, 1, w=1.0 / times)
    predicted = intercept + slope * sizes
    spread = float(np.sum((times - times.mean()) ** 2))
    r_squared = 1.0 - float(np.sum((times - predicted) ** 2)) / spread if spread > 0 else 1.0
    return AlphaBetaFit(float(intercept) / a, float(slope) / b, r_squared)


def fabric_assumptions(fabric: Fabric, gpu_name: str) -> tuple[Note, ...]:
    """The figures the AllReduce model stands on, as notes."""
    return (
        Note(msg("cluster-scaling.assumption.links", gpu=gpu_name, intra=fabric.intra_name,
                 intra_gb_s=f"{fabric.intra.bytes_per_s / 1e9:.0f}", ib_gb_s=f"{fabric.inter.bytes_per_s / 1e9:.0f}",
                 node=fabric.node_gpus)),
        Note(msg("cluster-scaling.assumption.alpha", intra_us=f"{fabric.intra.alpha_s * 1e6:g}",
                 inter_us=f"{fabric.inter.alpha_s * 1e6:g}")),
        Note(msg("cluster-scaling.assumption.algorithms")),
    )
