"""The GPUs of this machine and the links between them, as NVML reports them.

:func:`read_topology` asks NVML (through :mod:`gpulab.nvml`) for every GPU, its NVLink links
(``nvmlDeviceGetNvLinkState``, ``...RemoteDeviceType``, ``...RemotePciInfo``, ``...Version``), its
PCIe link (``nvmlDeviceGetMaxPcieLinkGeneration`` / ``...Width``), and for every pair the closest
common ancestor on the PCIe tree (``nvmlDeviceGetTopologyCommonAncestor``) and whether peer copies
may go straight across (``nvmlDeviceGetP2PStatus``). It never raises: NVML missing, a call a driver
does not support, or a broken answer leave the field ``None`` (not available), and a machine
without NVML gives an empty :class:`Topology` whose ``reason`` says why.

The record is a small graph: GPUs, boxes (NVSwitch chips, PCIe switches, CPU sockets, NICs,
network switches, nodes), wires between them (what a picture draws) and a path for every ordered
pair of GPUs (what a copy between them crosses, with the nominal rate from the spec table). The
modelled layouts of :mod:`gpulab.model.cluster_layout` build the same record.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from gpulab import nvml
from gpulab.paths import resource_path
from gpulab.specs import SpecError, shipped_specs

# nvmlGpuTopologyLevel_t (NVML API reference, "Device Queries"): the closest common ancestor of two GPUs.
TOPOLOGY_LEVELS = {0: "internal", 10: "single", 20: "multiple", 30: "hostbridge", 40: "node", 50: "system"}
# What a copy crosses at each level, as the picture and the matrix name it.
PATH_OF_LEVEL = {"internal": "internal", "single": "pcie-switch", "multiple": "pcie-switch",
                 "hostbridge": "host-bridge", "node": "numa-node", "system": "system"}  # fmt: skip
PATH_KINDS = ("nvlink", "nvswitch", "internal", "pcie-switch", "host-bridge", "numa-node", "system", "unknown")
BOX_KINDS = ("spine", "leaf", "node", "nvswitch", "pcie-switch", "cpu", "nic")
WIRE_KINDS = ("nvlink", "pcie", "cpu-link", "network")

# nvmlNvlinkVersion_t: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0 -> the generation.
NVLINK_GENERATION_OF_VERSION = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5}
NVLINK_DEVICE_TYPE_GPU, NVLINK_DEVICE_TYPE_SWITCH = 0x00, 0x02  # nvmlIntNvLinkDeviceType_t
P2P_CAPS_INDEX_READ = 0  # nvmlGpuP2PCapsIndex_t (pynvml spells this constant as a tuple, so not taken from it)
P2P_STATUS_OK = 0
MAX_LINKS = 36  # NVML_NVLINK_MAX_LINKS in current NVML; a device answers "invalid" beyond its own count


@dataclass(frozen=True)
class Gpu:
    """One GPU: its NVML index, name, PCI bus id, active NVLink links and generation, PCIe link at most."""

    index: int
    name: str | None = None
    bus_id: str | None = None
    nvlinks: int | None = None
    nvlink_generation: int | None = None
    pcie_gen: int | None = None
    pcie_width: int | None = None

    @property
    def key(self) -> str:
        return f"gpu-{self.index}"


@dataclass(frozen=True)
class Box:
    """Anything in the picture that is not a GPU; ``kind`` is one of :data:`BOX_KINDS`."""

    kind: str
    index: int
    detail: str = ""  # e.g. a bus id, or the node a NIC sits in

    @property
    def key(self) -> str:
        return f"{self.kind}-{self.index}"


@dataclass(frozen=True)
class Wire:
    """A drawn connection between two keys (``gpu-0``, ``nvswitch-1``): its kind (:data:`WIRE_KINDS`),
    how many links or lanes it bundles, and its nominal rate per direction (None: not known)."""

    a: str
    b: str
    kind: str
    count: int | None = None
    gb_s: float | None = None


@dataclass(frozen=True)
class Path:
    """What a copy from GPU ``src`` to GPU ``dst`` crosses (:data:`PATH_KINDS`), over how many NVLink
    links, its nominal rate per direction, and whether NVML says peer copies may go straight across."""

    src: int
    dst: int
    kind: str = "unknown"
    links: int | None = None
    nominal_gb_s: float | None = None
    p2p: bool | None = None


@dataclass(frozen=True)
class Topology:
    """GPUs, boxes, wires and GPU-to-GPU paths; ``source`` is ``nvml``, ``modelled`` or ``none``, and
    ``reason`` says why a topology is empty or partial (``no-nvml``, ``no-gpu``, ``""``)."""

    gpus: tuple[Gpu, ...] = ()
    boxes: tuple[Box, ...] = ()
    wires: tuple[Wire, ...] = ()
    paths: tuple[Path, ...] = ()
    source: str = "none"
    reason: str = ""
    name: str = ""  # the layout's key, or the GPUs' name
    facts: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def path(self, src: int, dst: int) -> Path | None:
        return next((p for p in self.paths if p.src == src and p.dst == dst), None)

    def to_json(self) -> dict[str, Any]:
        """Plain data for a result's provenance (read back by :func:`topology_from_json`)."""
        return {"source": self.source, "reason": self.reason, "name": self.name, "facts": dict(self.facts),
                "gpus": [vars(g).copy() for g in self.gpus], "boxes": [vars(b).copy() for b in self.boxes],
                "wires": [vars(w).copy() for w in self.wires],
                "paths": [vars(p).copy() for p in self.paths]}  # fmt: skip


def topology_from_json(data: Any) -> Topology | None:
    """The topology a result stored, or None when ``data`` is not one (an old or damaged file)."""
    if not isinstance(data, Mapping):
        return None
    try:
        return Topology(
            gpus=tuple(Gpu(**g) for g in data.get("gpus", ())),
            boxes=tuple(Box(**b) for b in data.get("boxes", ())),
            wires=tuple(Wire(**w) for w in data.get("wires", ())),
            paths=tuple(Path(**p) for p in data.get("paths", ())),
            source=str(data.get("source", "none")), reason=str(data.get("reason", "")),
            name=str(data.get("name", "")), facts=dict(data.get("facts") or {}),
        )  # fmt: skip
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------------ the spec table's link rates


@cache
def _topology_tables() -> dict[str, Any]:
    """The [node.*] and [fabric.*] tables of resources/gpus.toml ({} when unreadable)."""
    try:
        with resource_path("gpus.toml").open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def nvlink_gb_s_per_link(generation: int | None) -> float | None:
    """One NVLink link's rate per direction for an NVLink generation (the spec table's [nvlink]), or None."""
    if generation is None:
        return None
    try:
        return shipped_specs().nvlink_gb_s_per_link(generation)
    except (KeyError, SpecError):  # a generation the table lacks, or an unreadable spec file: not known
        return None


def pcie_gb_s(gen: int | None, width: int | None) -> float | None:
    """A PCIe link's theoretical rate per direction (the spec table's [pcie]), or None when unknown."""
    if gen is None or width is None:
        return None
    try:
        return shipped_specs().pcie_gb_s_per_direction(gen, width)
    except (KeyError, SpecError):
        return None


def nominal_gb_s(kind: str, links: int | None, a: Gpu, b: Gpu) -> float | None:
    """The nominal rate of a path: NVLink links x one link's rate; otherwise the slower GPU's PCIe link."""
    if kind in ("nvlink", "nvswitch"):
        per_link = nvlink_gb_s_per_link(a.nvlink_generation or b.nvlink_generation)
        return links * per_link if links and per_link else None
    if kind == "unknown":
        return None
    rates = [pcie_gb_s(g.pcie_gen, g.pcie_width) for g in (a, b)]
    known = [r for r in rates if r is not None]
    return min(known) if len(known) == 2 else None


# ------------------------------------------------------------------ NVML


def _bus_id(pci: Any) -> str | None:
    """The bus id of an nvmlPciInfo_t, normalised to the short form NVML and CUDA both understand."""
    raw = nvml.text(getattr(pci, "busId", None)) or nvml.text(getattr(pci, "busIdLegacy", None))
    return normal_bus_id(raw)


def normal_bus_id(raw: str | None) -> str | None:
    """``"00000000:1B:00.0"`` -> ``"0000:1b:00.0"``: the domain as 4 digits, lower case."""
    if not raw:
        return None
    parts = raw.strip().lower().split(":")
    if len(parts) == 3:
        parts[0] = parts[0][-4:].rjust(4, "0")
    return ":".join(parts)


@dataclass
class _Reader:
    """One pass over NVML: the module, the handles in NVML order, and what was learned."""

    nv: Any
    handles: list[Any]

    def ask(self, name: str, *args: Any) -> Any:
        """NVML's ``name(*args)``, or None where the module lacks it or the driver does not answer."""
        return nvml.query(name, *args, module=self.nv)

    def gpu(self, index: int) -> Gpu:
        handle = self.handles[index]
        links = self.active_links(handle)
        versions = [self.ask("nvmlDeviceGetNvLinkVersion", handle, link) for link in links]
        generations = {NVLINK_GENERATION_OF_VERSION.get(v) for v in versions if isinstance(v, int)} - {None}
        return Gpu(
            index=index,
            name=nvml.text(self.ask("nvmlDeviceGetName", handle)),
            bus_id=_bus_id(self.ask("nvmlDeviceGetPciInfo", handle)),
            nvlinks=len(links) if links or self.nvlink_supported(handle) else None,
            nvlink_generation=max(generations) if generations else None,  # type: ignore[type-var]
            pcie_gen=_int(self.ask("nvmlDeviceGetMaxPcieLinkGeneration", handle)),
            pcie_width=_int(self.ask("nvmlDeviceGetMaxPcieLinkWidth", handle)),
        )  # fmt: skip

    def active_links(self, handle: Any) -> list[int]:
        """The link numbers NVML calls active; stops at the first link the device does not have."""
        active = []
        for link in range(MAX_LINKS):
            answer = self.ask("nvmlDeviceGetNvLinkState", handle, link)
            if answer is None:
                break
            if answer:
                active.append(link)
        return active

    def nvlink_supported(self, handle: Any) -> bool:
        """True when link 0 answers at all (inactive links on an NVLink GPU: 0 links, not unknown)."""
        return self.ask("nvmlDeviceGetNvLinkState", handle, 0) is not None

    def remote_ends(self, index: int) -> list[tuple[str, str | None]]:
        """Each active link's far end: (``gpu`` | ``switch`` | ``other``, its bus id)."""
        handle = self.handles[index]
        ends = []
        for link in self.active_links(handle):
            kind = self.ask("nvmlDeviceGetNvLinkRemoteDeviceType", handle, link)
            bus = _bus_id(self.ask("nvmlDeviceGetNvLinkRemotePciInfo", handle, link))
            name = {NVLINK_DEVICE_TYPE_GPU: "gpu", NVLINK_DEVICE_TYPE_SWITCH: "switch"}.get(kind, "other")
            ends.append((name, bus))
        return ends

    def level(self, a: int, b: int) -> str | None:
        value = self.ask("nvmlDeviceGetTopologyCommonAncestor", self.handles[a], self.handles[b])
        return TOPOLOGY_LEVELS.get(value) if isinstance(value, int) else None

    def p2p(self, a: int, b: int) -> bool | None:
        value = self.ask("nvmlDeviceGetP2PStatus", self.handles[a], self.handles[b], P2P_CAPS_INDEX_READ)
        return value == P2P_STATUS_OK if isinstance(value, int) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def load_nvml() -> tuple[Any | None, str]:
    """(the initialised pynvml module, "") or (None, why not): ``no-nvml``."""
    nv = nvml.library()
    return (nv, "") if nv is not None else (None, "no-nvml")


def read_topology(module: Any | None = None) -> Topology:
    """This machine's GPUs and links from NVML (``module``: an initialised pynvml or a stand-in with
    the same functions; default: :func:`gpulab.nvml.library`). Never raises; see the module docstring."""
    reason = ""
    if module is None:
        module, reason = load_nvml()
    if module is None:
        return Topology(source="none", reason=reason or "no-nvml")
    count = _int(nvml.query("nvmlDeviceGetCount", module=module)) or 0
    handles = [nvml.query("nvmlDeviceGetHandleByIndex", i, module=module) for i in range(count)]
    if not count or any(h is None for h in handles):
        return Topology(source="none", reason="no-gpu")
    try:
        return _build(_Reader(module, handles))
    except Exception:  # a driver answer of a shape nobody expected: say "not available", never crash
        return Topology(source="none", reason="nvml-error")


def _build(reader: _Reader) -> Topology:
    gpus = tuple(reader.gpu(i) for i in range(len(reader.handles)))
    by_bus = {g.bus_id: g.index for g in gpus if g.bus_id}
    ends = {g.index: reader.remote_ends(g.index) for g in gpus}
    switches = sorted({bus or "?" for found in ends.values() for kind, bus in found if kind == "switch"})
    boxes: list[Box] = [Box("nvswitch", i, bus) for i, bus in enumerate(switches)]
    wires: list[Wire] = []
    for gpu in gpus:
        wires += _nvlink_wires(gpu, ends[gpu.index], by_bus, switches)
    levels = {(a.index, b.index): reader.level(a.index, b.index) for a in gpus for b in gpus if a.index < b.index}
    pcie_boxes, pcie_wires = pcie_tree(gpus, levels)
    paths = tuple(_path(a, b, ends, by_bus, levels, reader) for a in gpus for b in gpus if a.index != b.index)
    names = sorted({g.name for g in gpus if g.name})
    return Topology(gpus, (*boxes, *pcie_boxes), (*wires, *pcie_wires), paths, "nvml", "", " / ".join(names))


def _nvlink_wires(gpu: Gpu, ends: list[tuple[str, str | None]], by_bus: dict[str, int],
                  switches: list[str]) -> list[Wire]:  # fmt: skip
    """One wire per far end this GPU's links reach (GPU pairs drawn once, from the lower index)."""
    counts: dict[str, int] = {}
    for kind, bus in ends:
        far = None
        if kind == "switch":
            far = f"nvswitch-{switches.index(bus or '?')}"
        elif kind == "gpu" and bus in by_bus and by_bus[bus] > gpu.index:
            far = f"gpu-{by_bus[bus]}"
        if far is not None:
            counts[far] = counts.get(far, 0) + 1
    per_link = nvlink_gb_s_per_link(gpu.nvlink_generation)
    return [Wire(gpu.key, far, "nvlink", n, n * per_link if per_link else None) for far, n in counts.items()]


def _path(a: Gpu, b: Gpu, ends: dict[int, list[tuple[str, str | None]]], by_bus: dict[str, int],
          levels: dict[tuple[int, int], str | None], reader: _Reader) -> Path:  # fmt: skip
    direct = sum(1 for kind, bus in ends[a.index] if kind == "gpu" and by_bus.get(bus or "") == b.index)
    via_switch = [sum(1 for kind, _bus in ends[g.index] if kind == "switch") for g in (a, b)]
    level = levels.get((min(a.index, b.index), max(a.index, b.index)))
    if direct:
        kind, links = "nvlink", direct
    elif all(via_switch):
        kind, links = "nvswitch", min(via_switch)  # a copy may use every link of the GPU with fewer
    else:
        kind, links = (PATH_OF_LEVEL.get(level, "unknown") if level else "unknown"), None
    return Path(a.index, b.index, kind, links, nominal_gb_s(kind, links, a, b), reader.p2p(a.index, b.index))


def _groups(indices: Iterable[int], joined: Callable[[int, int], bool]) -> list[list[int]]:
    """Connected groups of ``indices`` under ``joined`` (a small union-find, in index order)."""
    parent = {i: i for i in indices}

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for a in parent:
        for b in parent:
            if a < b and joined(a, b):
                parent[root(b)] = root(a)
    groups: dict[int, list[int]] = {}
    for i in parent:
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def pcie_tree(gpus: tuple[Gpu, ...], levels: Mapping[tuple[int, int], str | None]) -> tuple[list[Box], list[Wire]]:
    """PCIe switches and CPU sockets inferred from the common-ancestor levels: GPUs that meet below a
    host bridge share a PCIe switch, GPUs that meet within a NUMA node share a CPU socket. Nothing when
    no level is known (NVML on a single GPU, or a driver that does not say)."""
    if not any(levels.values()):
        return [], []
    rank = {"internal": 0, "single": 1, "multiple": 2, "hostbridge": 3, "node": 4, "system": 5}

    def within(limit: int) -> Callable[[int, int], bool]:
        return lambda a, b: rank.get(levels.get((a, b)) or "system", 5) <= limit

    indices = [g.index for g in gpus]
    by_index = {g.index: g for g in gpus}
    boxes: list[Box] = []
    wires: list[Wire] = []
    sockets = _groups(indices, within(4))
    for cpu, members in enumerate(sockets):
        boxes.append(Box("cpu", cpu))
        for group in _groups(members, within(2)):
            parent = f"cpu-{cpu}"
            if len(group) > 1:
                switch = Box("pcie-switch", sum(b.kind == "pcie-switch" for b in boxes))
                boxes.append(switch)
                wires.append(Wire(switch.key, parent, "pcie"))
                parent = switch.key
            for index in group:
                gpu = by_index[index]
                wires.append(Wire(gpu.key, parent, "pcie", gpu.pcie_width, pcie_gb_s(gpu.pcie_gen, gpu.pcie_width)))
    for cpu in range(1, len(sockets)):
        wires.append(Wire("cpu-0", f"cpu-{cpu}", "cpu-link"))
    return boxes, wires


def matrix_gb_s(topology: Topology) -> list[list[float | None]]:
    """The nominal rates as a square matrix (row: source GPU, column: destination; None on the diagonal)."""
    n = len(topology.gpus)
    table: list[list[float | None]] = [[None] * n for _ in range(n)]
    for path in topology.paths:
        if 0 <= path.src < n and 0 <= path.dst < n:
            value = path.nominal_gb_s
            table[path.src][path.dst] = value if value is None or math.isfinite(value) else None
    return table
