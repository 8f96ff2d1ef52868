"""The access-pattern lab (lesson 3.1, move less data): one row per load pattern with what the
emulator counted (sectors per warp load, bytes fetched vs used) beside the GB/s it costs, a GB/s
chart, and the memory picture of one warp's load for the case chosen in the table.

The right-hand side (``make_view``): the case table on top; below it the chosen case's memory
view (with "Open in warp visualizer") beside the GB/s chart; the notes under everything.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QSplitter, QVBoxLayout, QWidget

from gpulab.experiments.access_pattern.cases import MODEL_KEY, Case, cases, preset_for
from gpulab.results import Result
from ui.panels.access_pattern_view import CaseMemoryBox, CasePlot, TwoPages, case_name
from ui.panels.lab_panel import LabPanel
from ui.widgets.case_table import CaseTable


class AccessPatternPanel(LabPanel):
    """Stride, gather, misalignment, float64 and AoS vs SoA: counted, modelled and measured."""

    EXPERIMENT = "access-pattern"

    def make_plot(self) -> CasePlot:
        return CasePlot()  # GB/s per case only: the emulator's counts are in the table

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.plot: CasePlot
        self.table = CaseTable()
        self.table.case_chosen.connect(self._case_chosen)
        self.table.case_opened.connect(lambda _row: self.open_case())
        self.case_box = CaseMemoryBox()
        self.case_box.open_requested.connect(self.open_case)
        self.notes.set_lines(2)  # the table and the warp's load need the height

    def make_view(self) -> QWidget:
        chart = self.plot_column()
        # Below the table the chosen case's warp load and the GB/s chart: side by side on a wide
        # screen, as two tabs in a narrow window (at 1024x768 each needs the whole width).
        self.lower = TwoPages(self.case_box, chart)
        self.upper = QSplitter(Qt.Orientation.Vertical)
        self.upper.addWidget(self.table)
        self.upper.addWidget(self.lower)
        self.upper.setChildrenCollapsible(False)
        self.upper.setSizes([210, 390])
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.upper, 1)
        column.addWidget(self.notes)
        return view

    def pictures(self) -> list[QWidget]:
        return [self.lower]  # the chosen case's warp load and the GB/s chart (tabs or side by side)

    def _fit_controls(self) -> None:
        """Narrower fields than the generic panel's (the case table needs the width); the column
        as wide as its content then needs, and it scrolls when taller than the window."""
        super()._fit_controls()
        if not hasattr(self, "controls_scroll"):
            return
        total = sum(self.splitter.sizes()) or 900
        self.form.fit(max_px=max(150, int(0.2 * total)))
        for editor in self.form.editors.values():
            if isinstance(editor, QComboBox):  # a GPU's full name is its tooltip, not the column's width
                editor.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                editor.setMinimumContentsLength(10)
                editor.setToolTip(editor.currentText())
        inner = self.controls_scroll.widget().minimumSizeHint().width()
        width = min(inner + self.controls_scroll.verticalScrollBar().sizeHint().width(), int(0.36 * total))
        self.splitter.setSizes([width, max(total - width, 1)])

    # ------------------------------------------------------------ results

    def show_result(self, result: Result) -> None:
        """A finished or opened result (also one saved under the lab's old name ``coalescing``)."""
        self.plot.chart_series_of(result)
        super().show_result(result)

    def _finished(self, result: Result) -> None:
        self.table.fill(cases(result))  # before decorating: the chosen case is marked on the chart
        super()._finished(result)

    def forget_run(self) -> None:
        super().forget_run()
        if hasattr(self, "table"):  # the base class forgets a run while it is still being built
            self.table.fill([])

    def decorate(self, result: Result) -> None:
        super().decorate(result)
        model = result.get_series(MODEL_KEY)
        if model is not None and "memory_bandwidth_gb_s" in model.provenance.details:
            bandwidth = float(model.provenance.details["memory_bandwidth_gb_s"])
            text = self.tr("peak %1 GB/s").replace("%1", f"{bandwidth:.0f}")  # the legend names the GPU
            self.plot.add_level(bandwidth, text)
        case = self.table.current_case()
        if case is not None:
            self.plot.add_marker(case.index + 1, case_name(case))

    # ------------------------------------------------------------ the chosen case

    def _case_chosen(self, _row: int) -> None:
        case = self.table.current_case()
        self.case_box.show_case(case)
        if case is not None:
            self.lower.show_page(self.case_box)  # choosing a case shows its warp load
        if self.last_result is not None:
            self._redecorate(self.last_result)

    def chosen_case(self) -> Case | None:
        return self.table.current_case()

    def open_case(self) -> None:
        """The chosen case's kernel in the warp visualizer, at a launch preset with the case's sizes."""
        case = self.table.current_case()
        if case is None or not case.kernel:
            return
        self.services.navigator.open_kernel(case.kernel, preset_for(case))

    def retranslate(self) -> None:
        super().retranslate()
        if hasattr(self, "table"):
            self.table.retranslate()
            self.case_box.retranslate()
            self.lower.set_titles(self.tr("One warp's load"), self.tr("GB/s chart"))
