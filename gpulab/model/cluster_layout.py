"""Modelled nodes and the network between them, for a class without a multi-GPU machine.

Two nodes come from ``[node.*]`` in ``resources/gpus.toml`` (each with its source): a DGX H100-like
node (8 GPUs, each with 18 NVLink4 links spread evenly over 4 NVSwitch chips, one 400 Gb/s NIC per
GPU) and a two-socket PCIe server (4 cards, two behind each socket's PCIe switch; a copy between
GPUs of different sockets crosses the link between the CPUs, at the rate NCCL's topology model
gives it, slower than a card's PCIe link). The network is
the rail-optimised fat tree of ``[fabric.rail-optimised]``: NIC ``r`` of every node goes to the leaf
switch of rail ``r``; the leaves go up to spine switches with as many links up as down, so the tree
does not block. Every record here has ``source == "modelled"``; rates are nominal, per direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpulab.cluster.topology import (
    Box,
    Gpu,
    Path,
    Topology,
    Wire,
    _topology_tables,
    nvlink_gb_s_per_link,
    pcie_gb_s,
)
from gpulab.specs import load_specs

LAYOUTS = ("dgx-h100", "pcie-server")
MAX_NODES = 32  # one scalable unit of the rail-optimised fabric: one leaf switch per rail


class LayoutError(ValueError):
    """The spec file's node or fabric table is missing or malformed."""


@dataclass(frozen=True)
class NodeSpec:
    """One modelled node, as ``[node.<key>]`` describes it."""

    key: str
    gpu: str  # a [gpu.<key>] entry of the spec table
    gpus: int
    nvswitches: int
    nvlink_generation: int
    nvlinks_per_gpu: int
    gpus_per_pcie_switch: int
    nics: int
    nic_gb_s: float
    cpus: int
    source: str
    cpu_link: str = ""  # the link between CPU sockets (UPI, Infinity Fabric), "" when not described
    cpu_link_gb_s: float = 0.0  # its rate per direction for GPU-to-GPU copies, 0 when not known
    cpu_link_source: str = ""


@dataclass(frozen=True)
class FabricSpec:
    switch_ports: int
    link_gb_s: float
    max_nodes_per_unit: int
    source: str


def _number(table: dict[str, Any], name: str, where: str) -> Any:
    value = table.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise LayoutError(f"gpus.toml: [{where}]: {name} must be a number >= 0, got {value!r}")
    return value


def node_spec(key: str) -> NodeSpec:
    """The modelled node ``key`` (one of :data:`LAYOUTS`); LayoutError when the spec file lacks it."""
    table = _topology_tables().get("node", {}).get(key)
    if not isinstance(table, dict):
        raise LayoutError(f"gpus.toml: no [node.{key}] table")
    where = f"node.{key}"
    ints = {name: int(_number(table, name, where)) for name in (
        "gpus", "nvswitches", "nvlink_generation", "nvlinks_per_gpu", "gpus_per_pcie_switch", "nics", "cpus")}
    link_gb_s = float(_number(table, "cpu_link_gb_s", where)) if "cpu_link_gb_s" in table else 0.0
    return NodeSpec(key=key, gpu=str(table.get("gpu", "")), nic_gb_s=float(_number(table, "nic_gb_s", where)),
                    source=str(table.get("source", "")), cpu_link=str(table.get("cpu_link", "")),
                    cpu_link_gb_s=link_gb_s, cpu_link_source=str(table.get("cpu_link_source", "")),
                    **ints)  # fmt: skip


def fabric_spec() -> FabricSpec:
    table = _topology_tables().get("fabric", {}).get("rail-optimised")
    if not isinstance(table, dict):
        raise LayoutError("gpus.toml: no [fabric.rail-optimised] table")
    where = "fabric.rail-optimised"
    return FabricSpec(int(_number(table, "switch_ports", where)), float(_number(table, "link_gb_s", where)),
                      int(_number(table, "max_nodes_per_unit", where)), str(table.get("source", "")))  # fmt: skip


def source_title(key: str) -> str:
    """The title of a source in the spec table (the key itself when it is not there)."""
    entry = _topology_tables().get("sources", {}).get(key, {})
    return str(entry.get("title", key)) if isinstance(entry, dict) else key


def _gpu_entry(spec: NodeSpec) -> Any:
    try:
        return load_specs().get(spec.gpu)
    except Exception:  # an unreadable spec file: the GPUs are nameless, their PCIe link unknown
        return None


# ------------------------------------------------------------------ one node


def spread(links: int, over: int) -> list[int]:
    """``links`` spread as evenly as they go over ``over`` switches (18 over 4 -> 5, 5, 4, 4)."""
    if over <= 0:
        return []
    return [links // over + (1 if i < links % over else 0) for i in range(over)]


def node_topology(key: str) -> Topology:
    """The modelled node ``key`` as a :class:`Topology` (source ``modelled``)."""
    spec = node_spec(key)
    entry = _gpu_entry(spec)
    gen = entry.pcie_gen if entry is not None else None
    width = entry.pcie_lanes if entry is not None else None
    name = entry.name if entry is not None else spec.gpu
    generation = spec.nvlink_generation or None
    gpus = tuple(Gpu(i, name, None, spec.nvlinks_per_gpu if spec.nvswitches else 0, generation, gen, width)
                 for i in range(spec.gpus))  # fmt: skip
    boxes, wires = _nvswitch_part(spec, gpus) if spec.nvswitches else _pcie_part(spec, gpus)
    paths = tuple(_modelled_path(spec, a, b) for a in gpus for b in gpus if a.index != b.index)
    facts = {"gpu": spec.gpu, "gpu_name": name, "source": source_title(spec.source), "nics": spec.nics,
             "nic_gb_s": spec.nic_gb_s}  # fmt: skip
    if spec.cpu_link_gb_s:
        facts.update(cpu_link=spec.cpu_link, cpu_link_gb_s=spec.cpu_link_gb_s,
                     cpu_link_source=source_title(spec.cpu_link_source))  # fmt: skip
    return Topology(gpus, tuple(boxes), tuple(wires), paths, "modelled", "", key, facts)


def _nvswitch_part(spec: NodeSpec, gpus: tuple[Gpu, ...]) -> tuple[list[Box], list[Wire]]:
    per_link = nvlink_gb_s_per_link(spec.nvlink_generation)
    boxes = [Box("nvswitch", s) for s in range(spec.nvswitches)]
    wires = [Wire(g.key, f"nvswitch-{s}", "nvlink", n, n * per_link if per_link else None)
             for g in gpus for s, n in enumerate(spread(spec.nvlinks_per_gpu, spec.nvswitches)) if n]  # fmt: skip
    for nic in range(spec.nics):  # one NIC beside each GPU, behind the same PCIe switch
        boxes.append(Box("nic", nic))
        gpu = gpus[nic % len(gpus)]
        wires.append(Wire(gpu.key, f"nic-{nic}", "pcie", gpu.pcie_width, spec.nic_gb_s))
    return boxes, wires


def _switch_of(spec: NodeSpec, gpu: int) -> int:
    return gpu // max(spec.gpus_per_pcie_switch, 1)


def _socket_of(spec: NodeSpec, switch: int) -> int:
    switches = math.ceil(spec.gpus / max(spec.gpus_per_pcie_switch, 1))
    return switch * max(spec.cpus, 1) // max(switches, 1)


def _pcie_part(spec: NodeSpec, gpus: tuple[Gpu, ...]) -> tuple[list[Box], list[Wire]]:
    switches = math.ceil(spec.gpus / max(spec.gpus_per_pcie_switch, 1))
    boxes = [Box("cpu", c) for c in range(spec.cpus)] + [Box("pcie-switch", s) for s in range(switches)]
    uplink = pcie_gb_s(gpus[0].pcie_gen, gpus[0].pcie_width) if gpus else None  # as wide as a card's link
    wires = [Wire(f"pcie-switch-{s}", f"cpu-{_socket_of(spec, s)}", "pcie", None, uplink) for s in range(switches)]
    wires += [Wire(g.key, f"pcie-switch-{_switch_of(spec, g.index)}", "pcie", g.pcie_width,
                   pcie_gb_s(g.pcie_gen, g.pcie_width)) for g in gpus]  # fmt: skip
    link_gb_s = spec.cpu_link_gb_s or None
    wires += [Wire("cpu-0", f"cpu-{c}", "cpu-link", None, link_gb_s) for c in range(1, spec.cpus)]
    for nic in range(spec.nics):  # one NIC per socket, on that socket's first switch
        boxes.append(Box("nic", nic))
        switch = next((s for s in range(switches) if _socket_of(spec, s) == nic % max(spec.cpus, 1)), 0)
        wires.append(Wire(f"pcie-switch-{switch}", f"nic-{nic}", "pcie", None, spec.nic_gb_s))
    return boxes, wires


def _modelled_path(spec: NodeSpec, a: Gpu, b: Gpu) -> Path:
    if spec.nvswitches:
        per_link = nvlink_gb_s_per_link(spec.nvlink_generation)
        links = spec.nvlinks_per_gpu
        return Path(a.index, b.index, "nvswitch", links, links * per_link if per_link else None, True)
    same_switch = _switch_of(spec, a.index) == _switch_of(spec, b.index)
    same_socket = _socket_of(spec, _switch_of(spec, a.index)) == _socket_of(spec, _switch_of(spec, b.index))
    kind = "pcie-switch" if same_switch else ("numa-node" if same_socket else "system")
    rate = pcie_gb_s(a.pcie_gen, a.pcie_width)
    if kind == "system" and spec.cpu_link_gb_s and rate is not None:
        rate = min(rate, spec.cpu_link_gb_s)  # through both sockets and the link between them
    return Path(a.index, b.index, kind, None, rate, same_switch)


# ------------------------------------------------------------------ the network


def spine_count(nodes: int, rails: int, fabric: FabricSpec) -> int:
    """Spines for a non-blocking tree: every leaf sends as many links up as it has nodes below, and each
    spine takes ``switch_ports`` of them."""
    return max(1, math.ceil(nodes * rails / max(fabric.switch_ports, 1)))


def rail_fat_tree(key: str, nodes: int) -> Topology:
    """``nodes`` modelled nodes of kind ``key`` on a rail-optimised fat tree (source ``modelled``)."""
    spec, fabric = node_spec(key), fabric_spec()
    nodes = max(1, min(nodes, fabric.max_nodes_per_unit, MAX_NODES))
    rails = max(spec.nics, 1)
    spines = spine_count(nodes, rails, fabric)
    boxes = [Box("node", n) for n in range(nodes)] + [Box("leaf", r) for r in range(rails)]
    boxes += [Box("spine", s) for s in range(spines)]
    wires = [Wire(f"node-{n}", f"leaf-{r}", "network", 1, spec.nic_gb_s) for n in range(nodes) for r in range(rails)]
    for r in range(rails):
        for s, n in enumerate(spread(nodes, spines)):
            if n:
                wires.append(Wire(f"leaf-{r}", f"spine-{s}", "network", n, n * fabric.link_gb_s))
    facts = {"nodes": nodes, "rails": rails, "spines": spines, "gpus": nodes * spec.gpus,
             "nic_gb_s": spec.nic_gb_s, "link_gb_s": fabric.link_gb_s, "switch_ports": fabric.switch_ports,
             "node_gb_s": rails * spec.nic_gb_s, "source": source_title(fabric.source)}  # fmt: skip
    return Topology((), tuple(boxes), tuple(wires), (), "modelled", "", f"{key}-fat-tree", facts)
