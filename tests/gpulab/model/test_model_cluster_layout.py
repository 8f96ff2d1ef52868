"""The modelled nodes and the rail-optimised fat tree, from the spec table's figures."""

from __future__ import annotations

import pytest

from gpulab.model.cluster_layout import node_topology, rail_fat_tree, spread
from gpulab.specs import load_specs


def test_the_dgx_h100_node_agrees_with_the_spec_tables_900_gb_s_of_nvlink_per_gpu():
    topo = node_topology("dgx-h100")
    assert topo.source == "modelled" and len(topo.gpus) == 8
    per_gpu_both_ways = 2 * sum(w.gb_s for w in topo.wires if w.a == "gpu-0" and w.kind == "nvlink")
    assert per_gpu_both_ways == pytest.approx(load_specs()["h100-sxm"].nvlink_gb_s)
    assert {p.nominal_gb_s for p in topo.paths} == {450.0}
    assert sum(b.kind == "nic" for b in topo.boxes) == 8


def test_the_pcie_server_crosses_the_sockets_link_between_its_halves_at_that_links_rate():
    topo = node_topology("pcie-server")
    assert topo.path(0, 1).kind == "pcie-switch" and topo.path(0, 2).kind == "system"
    assert topo.path(0, 1).nominal_gb_s == pytest.approx(31.5)
    # through both sockets and UPI, which NCCL's topology model prices at 22 GB/s (Sapphire Rapids)
    assert topo.path(0, 2).nominal_gb_s == pytest.approx(22.0) == topo.facts["cpu_link_gb_s"]
    assert [w.gb_s for w in topo.wires if w.kind == "cpu-link"] == [22.0]
    assert not any(w.kind == "nvlink" for w in topo.wires)


def test_links_spread_evenly_over_the_switches():
    assert spread(18, 4) == [5, 5, 4, 4] and sum(spread(7, 3)) == 7 and spread(3, 0) == []


@pytest.mark.parametrize(("nodes", "spines"), [(1, 1), (4, 1), (8, 1), (9, 2), (32, 4)])
def test_the_fat_tree_has_a_leaf_per_rail_and_enough_spines_not_to_block(nodes, spines):
    tree = rail_fat_tree("dgx-h100", nodes)
    kinds = [b.kind for b in tree.boxes]
    assert kinds.count("node") == nodes and kinds.count("leaf") == 8 and kinds.count("spine") == spines
    down = sum(w.count for w in tree.wires if w.b == "leaf-0")
    up = sum(w.count for w in tree.wires if w.a == "leaf-0")
    assert down == up == nodes  # as many links up as down: the tree does not block
    assert tree.facts["gpus"] == 8 * nodes


def test_more_nodes_than_a_scalable_unit_are_held_to_one():
    assert rail_fat_tree("dgx-h100", 500).facts["nodes"] == 32
