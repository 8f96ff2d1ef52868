"""The topology lab: which GPU is wired to which, and how fast one copies to another.

Right of the form, three tabs over the notes: the node (GPUs and links as NVML reads them, or the
modelled node when this machine has fewer than two GPUs, dashed and badged MODELLED), the network
(the modelled rail-optimised fat tree of such nodes) and the copy matrix (GB/s per ordered pair as
a heat map). The plot of the generic panel is kept, hidden: the matrix shows its points.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from gpulab.cluster.topology import Topology, topology_from_json
from gpulab.results import Result
from ui.panels.lab_panel import LabPanel
from ui.widgets.badge import weakest_kind
from ui.widgets.copy_matrix import CopyMatrix
from ui.widgets.topology_view import TopologyView

SHORT_PANEL_LINES = 40  # a panel fewer text lines tall keeps two lines of notes (they scroll)


def pictures(result: Result) -> tuple[Topology | None, Topology | None, str]:
    """(the node, the network, the kind to draw them as) stored in a p2p result; Nones for an old or damaged one."""
    details = result.series[0].provenance.details if result.series else {}
    kinds = [s.provenance.details.get("original_kind", s.provenance.kind) if s.provenance.kind == "replayed"
             else s.provenance.kind for s in result.series]  # fmt: skip
    node = topology_from_json(details.get("topology"))
    if node is not None and node.source == "none":
        node = None  # NVML did not describe this machine: there is no picture to draw
    return node, topology_from_json(details.get("cluster")), weakest_kind(kinds) or "measured"


class TopologyPanel(LabPanel):
    """Topology: the node picture, the network picture and the copy-bandwidth matrix."""

    EXPERIMENT = "p2p"

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.node_view = TopologyView()
        self.network_view = TopologyView()
        self.matrix = CopyMatrix()
        for view in (self.node_view, self.network_view):
            view.hovered.connect(view.setToolTip)

    def make_view(self) -> QWidget:
        self.tabs = QTabWidget()
        self.tabs.tabBar().setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.setUsesScrollButtons(True)
        self.matrix_caption = QLabel()
        self.matrix_caption.setWordWrap(True)
        matrix_tab = QWidget()
        column = QVBoxLayout(matrix_tab)
        column.addWidget(self.matrix_caption)
        column.addWidget(self.matrix, 1)
        for widget in (self.node_view, self.network_view, matrix_tab):
            self.tabs.addTab(widget, "")
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.notes)
        hidden = self.plot_column()  # the points are the matrix's cells; the plot stays for the shared run logic
        hidden.hide()
        column.addWidget(hidden)
        return view

    def _build_layout(self) -> None:
        super()._build_layout()
        self.description.hide()  # the heading's tooltip says it: the pictures need the room in projector type

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        self.tabs.setTabText(0, self.tr("Node"))
        self.tabs.setTabText(1, self.tr("Network"))
        self.tabs.setTabText(2, self.tr("Copy matrix (GB/s)"))
        empty = self.tr("Press Run: the GPUs and their links appear here.")
        self.node_view.set_empty_text(empty)
        self.network_view.set_empty_text(self.tr("Press Run: the modelled network of nodes appears here."))
        self.matrix_caption.setText(self.tr("Rows: the GPU copying; columns: the GPU receiving. GB/s per direction."))
        self.matrix.show_result(self.last_result)

    def fit_to_view(self) -> None:
        super().fit_to_view()
        if self.shown_size().height() < SHORT_PANEL_LINES * self.fontMetrics().height():
            self.notes.set_lines(2)

    # ------------------------------------------------------------ the run's life

    def forget_run(self) -> None:
        super().forget_run()
        self.node_view.set_topology(None)
        self.network_view.set_topology(None)
        self.matrix.show_result(None)

    def decorate(self, result: Result) -> None:
        node, network, kind = pictures(result)
        self.node_view.set_topology(node, kind)
        if node is None and result.series:
            self.node_view.set_empty_text(self.tr("NVML did not describe this machine's links; see the matrix."))
        self.network_view.set_topology(network, "modelled")
        self.matrix.show_result(result)

    # ------------------------------------------------------------ export

    def pictures(self) -> list[QWidget]:
        return [self.node_view, self.network_view, self.matrix]  # one per tab

    def export_view(self) -> QWidget:
        """The tab on screen: the machine's links, the cluster network or the copy matrix."""
        return self.tabs.currentWidget()
