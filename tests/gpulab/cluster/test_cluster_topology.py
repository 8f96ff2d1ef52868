"""The topology read from NVML, against fake NVML modules: a DGX H100, a two-GPU PCIe box, no NVML."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from gpulab.cluster import topology
from gpulab.cluster.topology import Topology, matrix_gb_s, read_topology, topology_from_json


class NvmlError(Exception):
    """What pynvml raises for an unsupported call or an invalid link."""


class FakeNvml:
    """The few NVML functions the topology reader calls, answering for a made-up machine.

    ``links[i]`` lists GPU i's active links as (remote type, remote bus id); ``levels[(i, j)]`` the
    common-ancestor level; ``nvlink`` False makes every NVLink call unsupported (a PCIe card)."""

    def __init__(self, names, buses, links, levels, gen=5, width=16, version=6, nvlink=True, p2p=0):
        self.names, self.buses, self.links, self.levels = names, buses, links, levels
        self.gen, self.width, self.version, self.nvlink, self.p2p_status = gen, width, version, nvlink, p2p

    def nvmlDeviceGetCount(self):
        return len(self.names)

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, h):
        return self.names[h].encode()

    def nvmlDeviceGetPciInfo(self, h):
        return SimpleNamespace(busId=self.buses[h].encode())

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h):
        return self.gen

    def nvmlDeviceGetMaxPcieLinkWidth(self, h):
        return self.width

    def _link(self, h, link):
        if not self.nvlink or link >= 18:
            raise NvmlError("not supported" if not self.nvlink else "invalid argument")
        return self.links[h][link] if link < len(self.links[h]) else None

    def nvmlDeviceGetNvLinkState(self, h, link):
        return 1 if self._link(h, link) is not None else 0

    def nvmlDeviceGetNvLinkVersion(self, h, link):
        self._link(h, link)
        return self.version

    def nvmlDeviceGetNvLinkRemoteDeviceType(self, h, link):
        return {"gpu": 0, "switch": 2}[self._link(h, link)[0]]

    def nvmlDeviceGetNvLinkRemotePciInfo(self, h, link):
        return SimpleNamespace(busId=self._link(h, link)[1].encode())

    def nvmlDeviceGetTopologyCommonAncestor(self, a, b):
        return self.levels[(min(a, b), max(a, b))]

    def nvmlDeviceGetP2PStatus(self, a, b, index):
        return self.p2p_status


SWITCH_BUSES = [f"00000000:{0x10 + s:02X}:00.0" for s in range(4)]
GPU_BUSES = [f"00000000:{0x1B + 0x10 * i:02X}:00.0" for i in range(8)]


def dgx_h100() -> FakeNvml:
    """8 H100s, 18 NVLink4 links each spread 5/4/4/5 over 4 NVSwitch chips; two per PCIe switch, four per socket."""
    per_switch = (5, 4, 4, 5)
    links = [[("switch", SWITCH_BUSES[s]) for s, n in enumerate(per_switch) for _ in range(n)] for _gpu in range(8)]
    levels = {(a, b): 20 if a // 2 == b // 2 else (40 if a // 4 == b // 4 else 50) for a in range(8) for b in range(8)}
    return FakeNvml(["NVIDIA H100 80GB HBM3"] * 8, GPU_BUSES, links, levels)


def pcie_pair() -> FakeNvml:
    """Two PCIe cards under one host bridge, no NVLink, Gen4 x16."""
    return FakeNvml(["NVIDIA L4"] * 2, GPU_BUSES[:2], [[], []], {(0, 1): 30}, gen=4, nvlink=False)


def test_a_dgx_h100_has_eight_gpus_on_four_nvswitches_with_18_links_each():
    topo = read_topology(dgx_h100())
    assert topo.source == "nvml" and len(topo.gpus) == 8
    assert all(g.nvlinks == 18 and g.nvlink_generation == 4 for g in topo.gpus)
    assert [b.key for b in topo.boxes if b.kind == "nvswitch"] == [f"nvswitch-{s}" for s in range(4)]
    to_switches = [w for w in topo.wires if w.a == "gpu-0" and w.b.startswith("nvswitch")]
    assert sorted(w.count for w in to_switches) == [4, 4, 5, 5]
    assert sum(w.gb_s for w in to_switches) == pytest.approx(450.0)  # 18 links x 25 GB/s per direction


def test_every_pair_of_a_dgx_h100_goes_through_the_nvswitches_at_450_gb_s():
    topo = read_topology(dgx_h100())
    assert len(topo.paths) == 8 * 7
    assert {(p.kind, p.links, p.nominal_gb_s, p.p2p) for p in topo.paths} == {("nvswitch", 18, 450.0, True)}
    matrix = matrix_gb_s(topo)
    assert matrix[0][0] is None and matrix[3][5] == 450.0


def test_a_dgx_h100s_pcie_tree_has_two_sockets_and_a_switch_per_pair():
    topo = read_topology(dgx_h100())
    kinds = [b.kind for b in topo.boxes]
    assert kinds.count("cpu") == 2 and kinds.count("pcie-switch") == 4
    assert any(w.kind == "cpu-link" for w in topo.wires)


def test_a_two_gpu_pcie_box_copies_through_the_host_bridge_at_the_pcie_rate():
    topo = read_topology(pcie_pair())
    assert [g.nvlinks for g in topo.gpus] == [None, None]  # NVLink not supported: not available, not zero
    path = topo.path(0, 1)
    assert path is not None and path.kind == "host-bridge" and path.links is None
    assert path.nominal_gb_s == pytest.approx(31.5)  # Gen4 x16 per direction (spec table)
    assert [b.kind for b in topo.boxes] == ["cpu"]  # no shared PCIe switch below the host bridge


def test_without_nvml_the_topology_is_empty_and_says_why(monkeypatch):
    monkeypatch.setattr(topology, "load_nvml", lambda: (None, "no-nvml"))
    topo = read_topology()
    assert topo == Topology(source="none", reason="no-nvml")
    assert matrix_gb_s(topo) == []


def test_nvml_that_fails_everywhere_gives_not_available_fields_not_an_exception():
    class Broken:
        def nvmlDeviceGetCount(self):
            return 2

        def nvmlDeviceGetHandleByIndex(self, i):
            return i

        def __getattr__(self, name):
            def fail(*args):
                raise NvmlError(name)
            return fail

    topo = read_topology(Broken())
    assert [g.name for g in topo.gpus] == [None, None]
    assert topo.path(0, 1).kind == "unknown" and topo.path(0, 1).nominal_gb_s is None


def test_a_topology_survives_its_json_form_and_a_damaged_one_reads_as_none():
    topo = read_topology(dgx_h100())
    again = topology_from_json(json.loads(json.dumps(topo.to_json())))
    assert again == topo
    assert topology_from_json({"gpus": [{"bogus": 1}]}) is None
    assert topology_from_json("not a topology") is None


def test_bus_ids_are_compared_in_one_form():
    assert topology.normal_bus_id("00000000:1B:00.0") == "0000:1b:00.0"
    assert topology.normal_bus_id("0000:1b:00.0") == "0000:1b:00.0"
