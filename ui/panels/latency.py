"""The latency lab's page: the latency ladder, the occupancy calculator and the latency-hiding
animation, as three tabs right of the lab's form.

* Latency ladder (:mod:`.latency_ladder`): Run measures this CPU's ladder (measured); beside it
  the load latencies published for a GPU (modelled), where the project lists them.
* Occupancy calculator (:mod:`.latency_occupancy`): typed fields in, resident warps and the
  binding limit out, a lab kernel's registers from NVRTC.
* Latency hiding (:mod:`.latency_hiding`): an SM's warps cycle by cycle beside a CPU core, and
  the throughput as warps are added. The warp visualizer opens it for its kernel
  (:meth:`LatencyPanel.choose_kernel`).

The form and Run belong to the ladder: the other two tabs have their own controls and get the
whole width.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QSizePolicy, QTabWidget, QVBoxLayout, QWidget

from gpulab.results import Result
from ui.panels.lab_panel import LabPanel
from ui.panels.latency_hiding import HidingView
from ui.panels.latency_ladder import LadderView
from ui.panels.latency_occupancy import OccupancyView
from ui.widgets.export import Caption

LADDER, CALCULATOR, HIDING = range(3)


class LatencyPanel(LabPanel):
    """Latency, occupancy and latency hiding: three tabs."""

    EXPERIMENT = "latency"
    FORM_FIELDS = ("max_working_set", "loads")  # the ladder's; the other tabs have their own controls
    whole_lines = False  # every line whole (a lesson in presenter mode sets it)

    def make_view(self) -> QWidget:
        self.ladder = LadderView()
        self.calculator = OccupancyView(self.services.runner)
        self.hiding = HidingView(self.services.runner)
        self.tabs = QTabWidget()
        for page in (self.ladder, self.calculator, self.hiding):
            self.tabs.addTab(page, "")
        self.tabs.currentChanged.connect(self._tab_chosen)
        # The hiding tab starts from the DRAM latency of the GPU the ladder tab shows beside the CPU.
        self.ladder.gpu_combo.currentIndexChanged.connect(lambda _i: self._gpu_chosen())
        self._gpu_chosen()
        self._hiding_prepared = False
        for page in (self.calculator, self.hiding):
            page.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.notes)
        hidden = self.plot_column()  # the ladder draws the result; the generic plot stays out of sight
        hidden.hide()
        column.addWidget(hidden)
        return view

    def _build_layout(self) -> None:
        super()._build_layout()
        self.description.hide()  # the heading's tooltip says it: the form needs the room

    def pictures(self) -> list[QWidget]:
        return [self.tabs]

    # ------------------------------------------------------------ tabs

    def _tab_chosen(self, index: int) -> None:
        # The form and Run measure the ladder: on the other tabs the view gets the whole width.
        self.splitter.widget(0).setVisible(index == LADDER)
        for page in range(self.tabs.count()):  # only the tab shown sets the tabs' minimum (the ladder's is narrow)
            policy = QSizePolicy.Policy.Preferred if page == index else QSizePolicy.Policy.Ignored
            self.tabs.widget(page).setSizePolicy(policy, policy)
        self.tabs.updateGeometry()
        self.notes.setVisible(index == LADDER and self.last_result is not None and bool(self.last_result.notes))
        if index != HIDING:
            self.hiding.pause()
        elif not self._hiding_prepared:
            self._hiding_prepared = True
            self.hiding.prepare()  # the kernel is emulated only once the tab is seen

    def _gpu_chosen(self) -> None:
        self.hiding.use_gpu(self.ladder.arch())

    def fit_to_view(self) -> None:
        """Presenter mode: the ladder's and the latency-hiding tab's lines whole (a room sees no tooltips)."""
        self.ladder.show_whole(self.whole_lines)
        self.hiding.show_whole(self.whole_lines)

    def show_tab(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)

    def choose_kernel(self, entry: str) -> None:
        """The latency-hiding tab with kernel ``entry`` (the warp visualizer's "Open in SM view")."""
        self._hiding_prepared = True  # choosing the kernel prepares it
        self.show_tab(HIDING)
        if not self.hiding.choose_kernel(entry):
            self.services.notifier.warning(self.tr("The SM view has no kernel %1.").replace("%1", entry))

    # ------------------------------------------------------------ texts and theme

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        for index, title in enumerate((self.tr("Latency ladder"), self.tr("Occupancy"),
                                       self.tr("Latency hiding"))):  # fmt: skip
            self.tabs.setTabText(index, title)
        for view in (self.ladder, self.calculator, self.hiding):
            view.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        kinds = (QEvent.Type.PaletteChange, QEvent.Type.StyleChange, QEvent.Type.FontChange)
        if event.type() in kinds and hasattr(self, "hiding"):
            self.ladder.restyle()
            self.hiding.restyle()

    def shutdown(self) -> None:
        self.hiding.shutdown()
        super().shutdown()

    # ------------------------------------------------------------ results

    def forget_run(self) -> None:
        super().forget_run()
        if hasattr(self, "ladder"):
            self.ladder.show_result(None)

    def decorate(self, result: Result) -> None:
        super().decorate(result)
        self.ladder.show_result(result)
        self.notes.setVisible(self.tabs.currentIndex() == LADDER and bool(result.notes))

    # ------------------------------------------------------------ export

    def export_view(self) -> QWidget:
        return self.tabs.currentWidget()

    def export_caption(self, view: QWidget) -> Caption:
        caption = super().export_caption(view)
        if view is self.hiding and self.hiding.sweep_summary():
            return dataclasses.replace(caption, subtitle=self.hiding.sweep_summary())
        return caption
