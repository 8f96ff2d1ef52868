"""Topology: which GPU is wired to which, and how fast one GPU copies to another.

With two or more CUDA devices every ordered pair copies a buffer (CuPy, peer access on where CUDA
allows it, CUDA events) and the GB/s form a matrix (measured); NVML says what each copy crosses
(NVLink, an NVSwitch, a PCIe switch, the CPU sockets' link) and the spec table its nominal rate.
With fewer, the matrix is the achievable rates of a modelled node (modelled; each point keeps its
path's nominal rate beside it), and a note says why.

Series, one per source GPU (key ``from-gpu-<i>``): x the destination GPU's index, y GB/s; each point's
``extra`` holds the path (``path``, ``links``, ``nominal_gb_s``, ``percent_of_peak`` when measured,
``peer_access``). Every series' provenance details hold the topology drawn (``topology``, see
:meth:`gpulab.cluster.topology.Topology.to_json`: read from NVML, or the modelled node) and the
modelled network of ``nodes`` such nodes (``cluster``), so a saved result reopens with its pictures.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Literal

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg, render
from gpulab.cluster.topology import Gpu, Path, Topology, normal_bus_id, pcie_gb_s, read_topology
from gpulab.experiments.p2p import gpu as p2p_gpu
from gpulab.lab.base import (
    Cancelled,
    CheckedParams,
    Context,
    Event,
    ExperimentGen,
    ParamError,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
)
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import gpu_details
from gpulab.measure import Ceiling, RepeatPolicy, rate_point, with_ceiling
from gpulab.model.cluster import NVLINK_GB_S_PER_LINK
from gpulab.model.cluster_layout import LAYOUTS, MAX_NODES, node_topology, rail_fat_tree
from gpulab.model.transfer import DEFAULT_PINNED_EFFICIENCY
from gpulab.results import Point, Provenance, Result, Series, merge_notes

TITLE = render("experiment.p2p.title")
DESCRIPTION = render("experiment.p2p.description")

X_LABEL, X_UNIT = msg("axis.p2p.destination"), ""
Y_LABEL, Y_UNIT = msg("axis.bandwidth"), "GB/s"
TIMING = "CUDA events on the source GPU's stream around cudaMemcpyPeerAsync, after 2 warm-up copies; median"
MIN_BYTES, MAX_BYTES = 1 << 12, 1 << 30


@dataclass(frozen=True)
class Params(CheckedParams):
    layout: Literal["dgx-h100", "pcie-server"] = param("dgx-h100", choices=LAYOUTS)
    nodes: int = param(4, min=1, max=MAX_NODES)
    copy_bytes: int = param(1 << 26, unit="B", min=MIN_BYTES, max=MAX_BYTES)
    repeats: int = param(5, min=1, max=100)


# ------------------------------------------------------------------ series


def _series(source: int, role: str, provenance: Provenance) -> Series:
    label = msg("series.p2p.from-gpu", gpu=source)
    return Series(render(label), provenance, Note(X_LABEL), X_UNIT, Note(Y_LABEL), Y_UNIT, role=role,
                  key=f"from-gpu-{source}", label=label)  # fmt: skip


def _path_facts(topology: Topology, src: int | None, dst: int | None) -> dict[str, Any]:
    path = topology.path(src, dst) if src is not None and dst is not None else None
    if path is None:
        return {"path": "unknown", "links": None, "nominal_gb_s": None}
    return {"path": path.kind, "links": path.links, "nominal_gb_s": path.nominal_gb_s}


NVLINK_CC_OF_GENERATION = {1: (6, 0), 2: (7, 0), 3: (8, 0), 4: (9, 0), 5: (10, 0)}


def achievable_gb_s(path: Path, topology: Topology, gpu: Gpu) -> float:
    """What a copy from ``gpu`` over ``path`` reaches: NVLink at the share NCCL's topology model counts
    a link as (20.6 of 25 GB/s on H100; p2pBandwidthLatencyTest measures 371-377 GB/s on 8 H100 SXM,
    NVIDIA/nccl#1264), PCIe at the pinned-copy efficiency (nvbandwidth), and a path between sockets no
    faster than the CPUs' link (``cpu_link_gb_s``, NCCL's topology model)."""
    nominal = float(path.nominal_gb_s or 0.0)
    if path.kind in ("nvlink", "nvswitch"):
        generation = gpu.nvlink_generation or 0
        cc = NVLINK_CC_OF_GENERATION.get(generation)
        line = 50.0 if generation >= 5 else 25.0
        return nominal * NVLINK_GB_S_PER_LINK[cc] / line if cc in NVLINK_GB_S_PER_LINK else nominal
    pcie = pcie_gb_s(gpu.pcie_gen, gpu.pcie_width) or nominal
    rate = pcie * DEFAULT_PINNED_EFFICIENCY
    cpu_link = float(topology.facts.get("cpu_link_gb_s") or 0.0)
    return min(rate, cpu_link) if path.kind == "system" and cpu_link else rate


def modelled_series(topology: Topology, cluster: Topology, nbytes: int) -> list[Series]:
    """The achievable rate of every ordered pair of the modelled node, one series per source GPU; each
    point keeps the path's nominal rate beside it (``nominal_gb_s``)."""
    details = {"formula": "pair rate = NVLink links x what NCCL counts a link as, or the PCIe link x the pinned-copy "
                          "efficiency, no faster than the CPUs' link between sockets; per direction",
               "layout": topology.name, "source": topology.facts.get("source"), "copy_bytes": nbytes,
               "topology": topology.to_json(), "cluster": cluster.to_json()}  # fmt: skip
    provenance = Provenance("modelled", str(topology.facts.get("gpu_name") or topology.name), details)
    out = []
    for src in topology.gpus:
        series = _series(src.index, "model", provenance)
        for dst in topology.gpus:
            path = topology.path(src.index, dst.index)
            if path is None or not path.nominal_gb_s:
                continue
            rate = achievable_gb_s(path, topology, src)
            extra = {"kind": "modelled", "seconds": nbytes / (rate * 1e9), "repeats": 0, "peer_access": path.p2p,
                     "percent_of_peak": 100 * rate / path.nominal_gb_s,
                     **_path_facts(topology, src.index, dst.index)}  # fmt: skip
            series = series.with_point(Point(dst.index, rate, None, extra))
        out.append(series)
    return out


# ------------------------------------------------------------------ measured


def topology_index(status: Any, topology: Topology) -> dict[int, int]:
    """CUDA device index -> NVML index, matched by PCI bus id (the two orders can differ)."""
    by_bus = {g.bus_id: g.index for g in topology.gpus if g.bus_id}
    out = {}
    for gpu in status.devices:
        found = by_bus.get(normal_bus_id(gpu.pci_bus_id) or "")
        if found is not None:
            out[gpu.index] = found
    return out


@dataclass
class _Sweep:
    series: dict[int, Series]
    notes: list[Message]
    where: str = ""


def _measured_provenance(device: str, topology: Topology, cluster: Topology, nbytes: int) -> Provenance:
    details = gpu_details(None, timing=TIMING, copy_bytes=nbytes, topology=topology.to_json(),
                          cluster=cluster.to_json())  # fmt: skip
    return Provenance("measured", device, details)


def _pair_point(copies: Any, src: int, dst: int, params: Params, topology: Topology, to_nvml: dict[int, int],
                ctx: Context) -> Point:  # fmt: skip
    peer = bool(copies.enable_peer(src, dst))
    policy = RepeatPolicy(repeats=params.repeats, min_seconds=0.0, max_seconds=2.0, max_samples=params.repeats)
    samples = copies.time(src, dst, policy, ctx.check_cancelled)
    facts = _path_facts(topology, to_nvml.get(src), to_nvml.get(dst))
    nominal = facts["nominal_gb_s"]
    ceiling = Ceiling(float(nominal), f"nominal {facts['path']} rate (spec table)") if nominal else None
    point = rate_point(dst, params.copy_bytes, list(samples), peer_access=peer, **facts)
    return with_ceiling(point, ceiling)


def sweep_pairs(devices: list[int], params: Params, topology: Topology, cluster: Topology, ctx: Context,
                copies: Any, to_nvml: dict[int, int]) -> Generator[Event, None, _Sweep]:  # fmt: skip
    """Generator over every ordered pair of ``devices``; its return value is the :class:`_Sweep`.

    ``copies`` is a :class:`p2p_gpu.PeerCopies` or a stand-in with ``enable_peer(src, dst) -> bool`` and
    ``time(src, dst, policy, check_cancelled) -> seconds``. A GPU error keeps the pairs done so far."""
    names = {d: cuda.device_name(d) for d in devices}
    provenance = _measured_provenance(" / ".join(dict.fromkeys(names.values())), topology, cluster, params.copy_bytes)
    state = _Sweep({d: _series(d, "gpu", provenance) for d in devices}, [])
    pairs = [(s, d) for s in devices for d in devices if s != d]
    try:
        for done, (src, dst) in enumerate(pairs):
            state.where = f"GPU {src} -> GPU {dst}"
            yield Progress(done / len(pairs), msg("progress.p2p.pair", src=src, dst=dst))
            point = _pair_point(copies, src, dst, params, topology, to_nvml, ctx)
            state.series[src] = state.series[src].with_point(point)
            yield PartialPoint(state.series[src].name, point, provenance)
    except (Cancelled, ParamError):
        raise
    except Exception as exc:  # a GPU error: keep the pairs measured, say where it stopped
        error = f"{type(exc).__name__}: {exc}"
        state.notes.append(msg("note.p2p.gpu-error", where=state.where or "set-up", error=error))
    return state


# ------------------------------------------------------------------ run


def _clamped_bytes(params: Params, devices: list[int]) -> tuple[int, list[Message]]:
    free = [p2p_gpu.free_bytes(d) for d in devices]
    known = [f for f in free if f is not None]
    if not known:
        return params.copy_bytes, []
    limit = int(min(known) * p2p_gpu.DEVICE_SHARE)
    if params.copy_bytes <= limit:
        return params.copy_bytes, []
    fitted = max(MIN_BYTES, 1 << (max(limit, 1).bit_length() - 1))
    return fitted, [msg("note.p2p.clamped", asked=params.copy_bytes, used=fitted)]


def _topology_notes(topology: Topology, measured: bool) -> list[Message]:
    if topology.source == "nvml":
        return [msg("note.p2p.topology-nvml", gpus=len(topology.gpus))]
    if measured:
        return [msg("note.p2p.topology-unknown", reason=topology.reason or "?")]
    return []


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Measure the copy matrix on two or more GPUs, else model it for ``params.layout``."""
    yield Progress(0.0, msg("progress.p2p.topology"))
    status = cuda.cuda_status()
    local = read_topology()
    cluster = rail_fat_tree(params.layout, params.nodes)
    devices = [g.index for g in status.devices] if status.available else []
    notes: list[Message] = []
    series: list[Series] = []
    if len(devices) >= 2:
        nbytes, notes = _clamped_bytes(params, devices)
        params_used = Params(params.layout, params.nodes, nbytes, params.repeats)
        copies = p2p_gpu.open_copies(devices, nbytes)
        try:
            sweep = yield from sweep_pairs(devices, params_used, local, cluster, ctx, copies,
                                           topology_index(status, local))  # fmt: skip
        finally:
            copies.close()
        series, notes = list(sweep.series.values()), [*notes, *sweep.notes]
        notes += _topology_notes(local, True)
    else:
        model = node_topology(params.layout)
        series = modelled_series(model, cluster, params.copy_bytes)
        for s in series:
            for point in s.points:
                yield PartialPoint(s.name, point, s.provenance)
        notes.append(_why_modelled(status, devices))
        notes.append(msg("note.p2p.modelled", layout=params.layout))
        notes += _modelled_rate_notes(model)
    yield Progress(1.0, msg("progress.done"))
    facts = cluster.facts
    fixed = [msg("note.p2p.what"), msg("note.p2p.cluster", nodes=facts.get("nodes", params.nodes),
                                       rails=facts.get("rails", "?"), spines=facts.get("spines", "?"),
                                       gpus=facts.get("gpus", "?"))]  # fmt: skip
    return Result("p2p", params_to_dict(params), tuple(series), merge_notes(notes, fixed))


def _modelled_rate_notes(model: Topology) -> list[Message]:
    """Why the modelled matrix is below the pictures' nominal rates, and what a path between sockets crosses."""
    notes = [msg("note.p2p.achievable")]
    if model.facts.get("cpu_link_gb_s"):
        notes.append(msg("note.p2p.cross-socket", link=model.facts.get("cpu_link", ""),
                         gb_s=f"{float(model.facts['cpu_link_gb_s']):g}"))  # fmt: skip
    return notes


def _why_modelled(status: Any, devices: list[int]) -> Message:
    if not status.available:
        return msg("note.no-gpu", reason=status.reason_message or status.reason)
    return msg("note.p2p.one-gpu", name=cuda.device_name(devices[0]) if devices else "?")


LAB = Lab("p2p", section="cluster", order=10, page="topology", quick=("copy_bytes=2^24", "repeats=3"))
