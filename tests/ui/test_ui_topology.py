"""The topology panel as a user meets it: Run, the modelled node badged MODELLED, a real mouse over a
link telling its kind and rate, the network tab, the coloured copy matrix, a saved result reopened,
Chinese; and the picture on its own, from a topology read through a fake NVML."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF

from gpulab import results
from gpulab.cluster.topology import read_topology
from tests.gpulab.cluster.test_cluster_topology import dgx_h100, pcie_pair
from tests.ui.walk import JOB_TIMEOUT_MS, choose, click, open_panel, switch_language, type_into
from ui.widgets.topology_view import TopologyView


def _run(qtbot, window, layout="dgx-h100", nodes="4"):
    panel = open_panel(qtbot, window, "topology")
    choose(qtbot, panel.editors["layout"], layout)
    type_into(qtbot, panel.editors["nodes"], nodes)
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.job is None, timeout=JOB_TIMEOUT_MS)
    return panel


def test_without_gpus_the_node_is_the_modelled_dgx_drawn_dashed_and_the_matrix_is_coloured(qtbot, window):
    panel = _run(qtbot, window)
    view = panel.node_view
    assert view.kind == "modelled" and len(view.topology.gpus) == 8
    assert sum(kind == "nvswitch" for kind, _i in view.items().values()) == 4
    assert panel.provenance == "modelled"  # the window's badge says MODELLED
    assert panel.matrix.rowCount() == 8 and panel.matrix.item(0, 1).text() == "371"  # achievable of 450
    assert panel.matrix.item(0, 0).text() == "—"
    assert "NVSwitch" in panel.matrix.item(0, 1).toolTip()


def test_in_the_pcie_server_the_socket_link_is_hovered_with_its_name_and_rate_and_slows_the_matrix(qtbot, window):
    panel = _run(qtbot, window, layout="pcie-server", nodes="2")
    view = panel.node_view
    for kind in ("pcie", "cpu-link"):  # the pointer enters over a PCIe line, then moves to the sockets' link
        line = next(line for line, wire in view.wire_lines() if wire.kind == kind)
        qtbot.mouseMove(view, line.pointAt(0.5).toPoint())
    qtbot.waitUntil(lambda: "CPU 0 – CPU 1" in view.hover_text, timeout=2000)
    assert "(UPI)" in view.hover_text and "22 GB/s per direction" in view.hover_text
    same_switch, other_socket = panel.matrix.item(0, 1).text(), panel.matrix.item(0, 2).text()
    assert float(other_socket) < float(same_switch)


def test_hovering_a_link_with_the_mouse_tells_its_kind_and_rate(qtbot, window):
    panel = _run(qtbot, window)
    view = panel.node_view
    line = next(line for line, wire in view.wire_lines() if wire.kind == "nvlink")
    middle = line.pointAt(0.5).toPoint()
    qtbot.mouseMove(view, middle)
    qtbot.waitUntil(lambda: view.hover_text != "", timeout=2000)
    assert view.hover_text.startswith("NVLink × ") and "GB/s per direction" in view.hover_text


def test_the_network_tab_shows_one_leaf_per_rail_under_the_spines(qtbot, window):
    panel = _run(qtbot, window, nodes="9")
    panel.tabs.setCurrentIndex(1)
    kinds = [kind for kind, _i in panel.network_view.items().values()]
    assert kinds.count("node") == 9 and kinds.count("leaf") == 8 and kinds.count("spine") == 2
    rects = panel.network_view.box_rects()
    assert rects["spine-0"].top() < rects["leaf-0"].top() < rects["node-0"].top()


def test_a_saved_result_reopens_with_its_pictures_and_in_chinese(qtbot, window, tmp_path):
    panel = _run(qtbot, window, layout="pcie-server")
    panel.last_result.save(tmp_path / "p2p.json")
    panel.forget_run()
    assert panel.node_view.topology is None and panel.matrix.rowCount() == 0
    panel.show_result(results.replay(tmp_path / "p2p.json"))
    assert panel.node_view.topology.path(0, 2).kind == "system" and panel.matrix.rowCount() == 4
    switch_language(window, "zh")
    assert panel.tabs.tabText(0) == "节点"
    assert "交换机" in panel.node_view.describe_box("pcie-switch-0")


def test_the_picture_of_a_measured_dgx_has_its_pcie_tree_under_the_gpus(qtbot):
    view = TopologyView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.set_topology(read_topology(dgx_h100()), "measured")
    rects = view.box_rects()
    assert rects["nvswitch-0"].top() < rects["gpu-0"].top() < rects["pcie-switch-0"].top() < rects["cpu-0"].top()
    assert len(view.wire_lines()) == len(view.topology.wires)
    assert "H100" in view.describe_box("gpu-3") and "NVLink links: 18" in view.describe_box("gpu-3")


def test_a_box_hovered_names_it_and_empty_space_says_nothing(qtbot):
    view = TopologyView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.set_topology(read_topology(pcie_pair()), "measured")
    centre = view.box_rects()["gpu-1"].center()
    assert view.text_at(centre).startswith("GPU 1")
    assert view.text_at(QPointF(2, view.height() - 2)) == ""
    qtbot.mouseMove(view, QPoint(int(centre.x()), int(centre.y())))
    view.set_topology(None)
    assert not view.grab().isNull()  # the empty state paints without an error
