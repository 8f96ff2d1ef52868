"""AllReduce across many GPUs by the alpha-beta model: ring, tree, hierarchical and NVLink SHARP.

Each step of a collective costs ``alpha`` (a fixed start-up: software, NIC, switch hops) plus
``bytes x beta`` (beta = 1 / the rate a GPU's link reaches, bytes per second). The rates are
achievable, not line rates (every factor below is cited where it is defined):

- inside a node, NCCL moves about 82% of NVLink's line rate (its protocol: 370 of 450 GB/s on
  H100); :data:`NVLINK_GB_S_PER_LINK` holds NCCL's own per-link figure for each generation;
- across nodes, a node of a rail-optimised fabric has one NIC per GPU (GPU i of every node on
  rail i) and NCCL spreads its channels over all of them, so a ring or tree leaving the node runs
  at the smaller of the node's NVLink rate and the sum of its NICs (each at :data:`NIC_EFFICIENCY`
  of its line rate).

With ``n`` GPUs, ``N`` nodes of ``k`` and a message of ``S`` bytes:

- ring (reduce-scatter then all-gather): ``2(n-1)·alpha + 2(n-1)/n·S/rate`` — fewest bytes, but
  its start-up grows with n (``2(N-1)`` of the steps cross the network);
- tree (NCCL's double binary tree across nodes, a chain inside): ``2·((k-1)·alpha_in +
  ceil(log2 N)·alpha_net) + 2·S/rate``, at NCCL's 92% of the ring's rate;
- hierarchical: reduce-scatter inside the node, a ring AllReduce of each GPU's 1/k slice across
  nodes on its own rail, all-gather inside. The phases are pipelined chunk by chunk, so the slower
  one sets the pace (not their sum); every phase's start-ups add up;
- NVLink SHARP (``nvls``, NVSwitch nodes of compute capability 9.0 and later, one node): each GPU
  sends its data once to the switch, which reduces and multicasts it back: ``S·(n+1)/n`` bytes
  each way per GPU instead of the ring's ``2(n-1)/n·S``, on a wire NCCL drives at 85% of its
  ring rate. The busbw nccl-tests prints then grows with n as ``rate·2(n-1)/(n+1)``; where that is
  below the ring's (4 GPUs or fewer) NCCL's tuner takes the ring, and so does the model.

Bus bandwidth follows nccl-tests: ``busbw = S / t · 2(n-1)/n``. :func:`fit_alpha_beta` recovers
alpha and beta from measured times of one algorithm at one n. Every figure that is assumed
rather than read from ``resources/gpus.toml`` is listed by :func:`fabric_assumptions`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpulab.catalogue import Message, Note, msg
from gpulab.model.transfer import DEFAULT_PINNED_EFFICIENCY, pcie_gb_s_per_direction
from gpulab.specs import GpuSpec, shipped_specs

__all__ = [
    "ALGORITHMS",
    "IB_ALPHA_S",
    "IB_GB_S_PER_DIRECTION",
    "INTRA_ALPHA_S",
    "NIC_EFFICIENCY",
    "NODE_GPUS",
    "NODE_NICS",
    "NVLINK_GB_S_PER_LINK",
    "NVLS_ALPHA_S",
    "NVLS_EFFICIENCY",
    "TREE_EFFICIENCY",
    "AlphaBetaFit",
    "Fabric",
    "Link",
    "allreduce_seconds",
    "bus_bandwidth_gb_s",
    "fabric_assumptions",
    "fabric_for",
    "fastest_intra_allreduce_seconds",
    "fit_alpha_beta",
    "hierarchical_allreduce_seconds",
    "nvls_allreduce_seconds",
    "ring_allreduce_seconds",
    "tree_allreduce_seconds",
    "unavailable",
]

ALGORITHMS = ("ring", "tree", "hierarchical", "nvls")
NODE_GPUS = 8
"""GPUs per node (an HGX/DGX H100 server, Meta's Grand Teton): joined by NVLink inside, by a NIC each across."""

NODE_NICS = 8
"""NICs per node for the compute fabric: one per GPU, each on its own rail (DGX H100: 8 ConnectX-7)."""

IB_GB_S_PER_DIRECTION = 50.0
"""One 400 Gb/s NIC (NVIDIA ConnectX-7 NDR InfiniBand; the Llama 3 paper's RoCE and InfiniBand
fabrics are both 400 Gb/s): 400 / 8 = 50 GB/s each way, the line rate."""

NIC_EFFICIENCY = 0.94
"""Share of a NIC's line rate NCCL's traffic reaches: "For NDR @ 400Gbps you should see 46-48GB/s
per NIC" (an NCCL developer, NVIDIA/nccl-tests#290): 47 of 50 GB/s."""

NVLINK_GB_S_PER_LINK = {(6, 0): 18.0, (7, 0): 20.0, (8, 0): 20.0, (8, 6): 12.0, (9, 0): 20.6, (10, 0): 40.1}
"""What NCCL's topology model counts one NVLink link as moving, GB/s each way, by compute
capability (NVIDIA/nccl src/graph/topo.h: SM60/70/80/86/90/100_NVLINK_BW). Against the line rates
of ``[nvlink]`` in gpus.toml (25 GB/s a link up to Hopper, 50 on Blackwell) that is NCCL's
protocol overhead: on H100 18 × 20.6 = 371 GB/s of 450, "With the protocol overhead (~20%) NCCL
can get an effective NVLink bandwidth of 370GB/s" (NCCL developer, NVIDIA/nccl-tests#212), and
the ring's measured 365-370 GB/s busbw on 2 to 8 H100 (NVIDIA/nccl#1455)."""

NVLS_EFFICIENCY = 0.85
"""NCCL's NVLink SHARP efficiency factor for Hopper (src/graph/tuning.cc, ``nvlsEfficiency``): the
wire rate an NVLS AllReduce reaches as a share of the ring's."""

TREE_EFFICIENCY = 0.92
"""NCCL's tuning model gives a tree AllReduce 92% of the ring's rate (src/graph/tuning.cc:
``busBw * .92`` for Tree AllReduce)."""

INTRA_ALPHA_S = 0.6e-6
"""Start-up of one step between GPUs in a node: NCCL's tuning model for its low-latency protocol
over NVLink (src/graph/tuning.cc hwLatencies, NVLink Ring/Tree LL: 0.6 µs)."""

IB_ALPHA_S = 2.7e-6
"""Start-up of one ring step across nodes: NCCL's tuning model, network Ring LL: 2.7 µs."""

IB_TREE_ALPHA_S = 5.0e-6
"""Start-up of one tree level across nodes: NCCL's tuning model, network Tree LL: 5 µs."""

NVLS_ALPHA_S = 25e-6
"""Start-up of an NVLink SHARP AllReduce: NCCL's tuning model, NVLink NVLS Simple: 25 µs."""

NVLS_MISSING = {"no-nvswitch": "cluster-scaling.nvls.no-nvswitch", "old-nvswitch": "cluster-scaling.nvls.old-nvswitch"}
"""Why a fabric has no NVLink SHARP, as catalogue keys."""

NVLS_MIN_COMPUTE_CAPABILITY = (9, 0)
"""NCCL builds an NVLS graph only with an NVSwitch and compute capability 9.0 or later
(src/graph/search.cc: ``system->nodes[NVS].count == 0 || ccMin < 90``): NVLink SHARP's reduction
units are in the third-generation NVSwitch of H100/H200 systems."""


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
    """The links of a cluster: inside a node (``intra``, per GPU, at NCCL's achievable rate), across
    nodes (``inter``: one NIC at its achievable rate), the node's size and NIC count, the line rates
    behind them (for the notes), and NVLink SHARP where the node has it (``nvls``: its wire rate)."""

    intra: Link
    inter: Link
    node_gpus: int = NODE_GPUS
    intra_name: str = "NVLink"
    nics: int = NODE_NICS
    intra_line_gb_s: float = 0.0
    nic_line_gb_s: float = 0.0
    nvls: Link | None = None
    nvls_missing: str = "no-nvswitch"  # why there is no NVLS: a key of NVLS_MISSING

    def node_network_bytes_per_s(self, gpus_in_node: int) -> float:
        """What a ring or tree leaving a node can carry: NCCL's channels spread over the node's NICs
        (as many as it has GPUs in the job, one per rail), never more than the NVLink inside."""
        used = max(1, min(self.nics, gpus_in_node))
        return min(self.intra.bytes_per_s, used * self.inter.bytes_per_s)


def _nvlink_per_link_gb_s(spec: GpuSpec) -> float:
    """NCCL's per-link NVLink figure for ``spec``'s compute capability (the closest one below it)."""
    known = [cc for cc in NVLINK_GB_S_PER_LINK if cc <= spec.compute_capability]
    return NVLINK_GB_S_PER_LINK[max(known)] if known else NVLINK_GB_S_PER_LINK[(6, 0)]


# The NVLink generation of each architecture with NVLink (Volta 2, Ampere 3, Hopper 4, Blackwell 5),
# by compute-capability major; the rate of a link of that generation is the spec table's [nvlink].
NVLINK_GENERATION_BY_CC_MAJOR = {7: 2, 8: 3, 9: 4, 10: 5}


def _nvlink_line_gb_s_per_link(spec: GpuSpec) -> float:
    """The line rate of one link, each way, from the spec table's [nvlink] for the GPU's generation."""
    major = spec.compute_capability[0]
    newest = max(NVLINK_GENERATION_BY_CC_MAJOR)
    generation = NVLINK_GENERATION_BY_CC_MAJOR.get(min(major, newest), 2)  # later parts: the newest known
    return shipped_specs().nvlink_gb_s_per_link(generation)


def _nvls_missing(spec: GpuSpec) -> str | None:
    """Why a node of ``spec`` GPUs has no NVLink SHARP (None when it has it)."""
    if not spec.nvlink_gb_s or not (spec.form_factor or "").upper().startswith("SXM"):
        return "no-nvswitch"  # PCIe cards: no NVSwitch (at most an NVLink bridge between two)
    if spec.compute_capability < NVLS_MIN_COMPUTE_CAPABILITY:
        return "old-nvswitch"  # A100/V100 NVSwitch nodes: switches without SHARP
    return None


def fabric_for(spec: GpuSpec, nic_gb_s: float = IB_GB_S_PER_DIRECTION, nics: int = NODE_NICS) -> Fabric:
    """Nodes of 8 ``spec`` GPUs: NVLink inside at NCCL's achievable rate (half the spec table's
    bidirectional total each way, times NCCL's per-link figure over the line rate) or, without
    NVLink, the PCIe link at the pinned-copy efficiency; ``nics`` NICs of ``nic_gb_s`` line rate a
    node across nodes; NVLink SHARP on NVSwitch nodes of compute capability 9.0 and later."""
    if spec.nvlink_gb_s:
        line, name = spec.nvlink_gb_s / 2, "NVLink"
        achievable = line * _nvlink_per_link_gb_s(spec) / _nvlink_line_gb_s_per_link(spec)
    else:
        line, name = pcie_gb_s_per_direction(spec.pcie_gen, spec.pcie_lanes), f"PCIe Gen{spec.pcie_gen}"
        achievable = line * DEFAULT_PINNED_EFFICIENCY
    missing = _nvls_missing(spec)
    nvls = Link(NVLS_ALPHA_S, achievable * NVLS_EFFICIENCY * 1e9) if missing is None else None
    return Fabric(Link(INTRA_ALPHA_S, achievable * 1e9), Link(IB_ALPHA_S, nic_gb_s * NIC_EFFICIENCY * 1e9),
                  NODE_GPUS, name, nics, line, nic_gb_s, nvls, missing or "")  # fmt: skip


def _check(n: int, message_bytes: float) -> None:
    if n < 1 or message_bytes < 0:
        raise ValueError(f"need at least one GPU and a message of 0 bytes or more, got n={n}, {message_bytes} bytes")


def ring_allreduce_seconds(n: int, message_bytes: float, link: Link) -> float:
    """Ring AllReduce on one kind of link: ``2(n-1)·alpha + 2(n-1)/n·S·beta``; 0 on one GPU."""
    _check(n, message_bytes)
    steps = 2 * (n - 1)
    return steps * link.alpha_s + steps / n * message_bytes * link.beta_s_per_byte


def tree_steps(n: int) -> int:
    """Levels up and down a binary tree over n GPUs: ``2·ceil(log2 n)``."""
    return 2 * math.ceil(math.log2(n)) if n > 1 else 0


def tree_allreduce_seconds(n: int, message_bytes: float, link: Link) -> float:
    """Pipelined tree AllReduce on one kind of link: ``2·ceil(log2 n)·alpha + 2·S·beta``; 0 on one GPU."""
    _check(n, message_bytes)
    if n == 1:
        return 0.0
    return tree_steps(n) * link.alpha_s + 2 * message_bytes * link.beta_s_per_byte


def _split(n: int, fabric: Fabric) -> tuple[int, int]:
    """(GPUs per node, nodes) of a job of ``n`` GPUs packed into nodes."""
    per_node = min(fabric.node_gpus, n)
    return per_node, math.ceil(n / per_node)


def _flat_ring_seconds(n: int, message_bytes: float, fabric: Fabric) -> float:
    """A ring through every GPU: inside one node on NVLink; across nodes each ring step still pays its
    link's start-up (``2(N-1)`` steps cross the network) and the bytes go at the node's network rate."""
    per_node, nodes = _split(n, fabric)
    if nodes == 1:
        return ring_allreduce_seconds(n, message_bytes, fabric.intra)
    steps, net_steps = 2 * (n - 1), 2 * (nodes - 1)
    alphas = (steps - net_steps) * fabric.intra.alpha_s + net_steps * fabric.inter.alpha_s
    return alphas + steps / n * message_bytes / fabric.node_network_bytes_per_s(per_node)


def _flat_tree_seconds(n: int, message_bytes: float, fabric: Fabric) -> float:
    """NCCL's tree: a chain through each node's GPUs, a double binary tree between nodes; the bytes go
    at 92% of the rate a ring gets (NCCL's tuning model)."""
    _check(n, message_bytes)
    if n == 1:
        return 0.0
    per_node, nodes = _split(n, fabric)
    if nodes == 1:
        rate = fabric.intra.bytes_per_s * TREE_EFFICIENCY
        return tree_steps(n) * fabric.intra.alpha_s + 2 * message_bytes / rate
    alphas = 2 * ((per_node - 1) * fabric.intra.alpha_s + math.ceil(math.log2(nodes)) * IB_TREE_ALPHA_S)
    return alphas + 2 * message_bytes / (fabric.node_network_bytes_per_s(per_node) * TREE_EFFICIENCY)


def hierarchical_allreduce_seconds(n: int, message_bytes: float, fabric: Fabric) -> float:
    """Reduce-scatter in the node, ring AllReduce of one slice across nodes, all-gather in the node.

    Inside the node the two halves move ``2(k-1)/k·S`` bytes a GPU on NVLink; across the ``N`` nodes
    each GPU rings its ``S/k`` slice on its own rail (``2(N-1)/N·S/k`` bytes at its share of the
    node's NICs). The phases are pipelined chunk by chunk, so the bytes take as long as the slower
    phase; the start-ups of all phases add up. Up to one node it is a ring on the node's links.
    """
    _check(n, message_bytes)
    per_node, nodes = _split(n, fabric)
    if nodes == 1:
        return ring_allreduce_seconds(n, message_bytes, fabric.intra)
    inside_s = 2 * (per_node - 1) / per_node * message_bytes / fabric.intra.bytes_per_s
    rail_bytes_per_s = min(fabric.nics, per_node) * fabric.inter.bytes_per_s / per_node
    across_s = 2 * (nodes - 1) / nodes * message_bytes / per_node / rail_bytes_per_s
    alphas = 2 * (per_node - 1) * fabric.intra.alpha_s + 2 * (nodes - 1) * fabric.inter.alpha_s
    return alphas + max(inside_s, across_s)


def nvls_allreduce_seconds(n: int, message_bytes: float, fabric: Fabric) -> float:
    """NVLink SHARP inside one node: ``alpha + S·(n+1)/n / rate``, or the ring where that is faster
    (as NCCL's tuner chooses). ValueError where the fabric has no NVLS or the job leaves the node."""
    _check(n, message_bytes)
    reason = unavailable("nvls", n, fabric)
    if reason is not None:
        raise ValueError(f"NVLink SHARP is not available here ({reason.key})")
    if n == 1:
        return 0.0
    assert fabric.nvls is not None
    switch_s = fabric.nvls.alpha_s + message_bytes * (n + 1) / n * fabric.nvls.beta_s_per_byte
    return min(switch_s, ring_allreduce_seconds(n, message_bytes, fabric.intra))


def unavailable(algorithm: str, n: int, fabric: Fabric) -> Message | None:
    """Why ``algorithm`` cannot run on ``n`` GPUs of ``fabric`` (None when it can)."""
    if algorithm != "nvls":
        return None
    if fabric.nvls is None:
        return msg(NVLS_MISSING.get(fabric.nvls_missing, NVLS_MISSING["no-nvswitch"]))
    if n > fabric.node_gpus:
        return msg("cluster-scaling.nvls.one-node", node=fabric.node_gpus)
    return None


def allreduce_seconds(algorithm: str, n: int, message_bytes: float, fabric: Fabric) -> float:
    """AllReduce time of ``algorithm`` (one of :data:`ALGORITHMS`) on ``n`` GPUs packed into nodes."""
    if algorithm == "ring":
        return _flat_ring_seconds(n, message_bytes, fabric)
    if algorithm == "tree":
        return _flat_tree_seconds(n, message_bytes, fabric)
    if algorithm == "hierarchical":
        return hierarchical_allreduce_seconds(n, message_bytes, fabric)
    if algorithm == "nvls":
        return nvls_allreduce_seconds(n, message_bytes, fabric)
    raise ValueError(f"unknown AllReduce algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")


def fastest_intra_allreduce_seconds(n: int, message_bytes: float, fabric: Fabric) -> float:
    """The fastest AllReduce NCCL has for ``n`` GPUs inside one node (ring, or NVLS where it exists)."""
    if n < 2:
        return 0.0
    if unavailable("nvls", n, fabric) is None:
        return nvls_allreduce_seconds(n, message_bytes, fabric)
    return ring_allreduce_seconds(n, message_bytes, fabric.intra)


def bus_bandwidth_gb_s(n: int, message_bytes: float, seconds: float) -> float:
    """nccl-tests' bus bandwidth of an AllReduce: ``S / t · 2(n-1)/n``, GB/s (0 for one GPU or no time)."""
    if n < 2 or seconds <= 0:
        return 0.0
    return message_bytes / seconds * 2 * (n - 1) / n / 1e9


def with_node_size(fabric: Fabric, per_node: int) -> Fabric:
    """The same fabric with ``per_node`` of a group's GPUs in each node (a group spaced across nodes)."""
    return dataclasses.replace(fabric, node_gpus=max(1, per_node))


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
    per_nic = fabric.inter.bytes_per_s / 1e9
    notes = [
        Note(msg("cluster-scaling.assumption.links", gpu=gpu_name, intra=fabric.intra_name,
                 intra_gb_s=f"{fabric.intra.bytes_per_s / 1e9:.0f}", intra_line_gb_s=f"{fabric.intra_line_gb_s:.0f}",
                 nics=fabric.nics, nic_gb_s=f"{per_nic:.0f}", nic_line_gb_s=f"{fabric.nic_line_gb_s:.0f}",
                 node_gb_s=f"{fabric.node_network_bytes_per_s(fabric.node_gpus) / 1e9:.0f}",
                 node=fabric.node_gpus)),
        Note(msg("cluster-scaling.assumption.alpha", intra_us=f"{fabric.intra.alpha_s * 1e6:g}",
                 inter_us=f"{fabric.inter.alpha_s * 1e6:g}")),
        Note(msg("cluster-scaling.assumption.algorithms")),
    ]  # fmt: skip
    if fabric.nvls is not None:
        notes.append(Note(msg("cluster-scaling.assumption.nvls", gb_s=f"{fabric.nvls.bytes_per_s / 1e9:.0f}",
                              share=f"{NVLS_EFFICIENCY:.0%}", node=fabric.node_gpus)))  # fmt: skip
    else:
        notes.append(Note(msg(NVLS_MISSING.get(fabric.nvls_missing, NVLS_MISSING["no-nvswitch"]))))
    return tuple(notes)
