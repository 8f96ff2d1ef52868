"""The pieces of the access-pattern panel's right-hand side: the GB/s chart of the cases and the
memory picture of one case's warp load (with the button that opens it in the warp visualizer)."""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpulab.experiments.access_cases import Case, memory_step
from gpulab.results import Point, Result
from ui import i18n
from ui.widgets.live_plot import LivePlot
from ui.widgets.memory_view import MemoryView

# The chart shows what a load pattern costs: GB/s, modelled and measured. The emulator's
# counts (sectors, bytes) are in the table, in their own units.
CHART_LABELS = ("series.model-gb-s", "series.measured-gb-s")


class CasePlot(LivePlot):
    """GB/s per case, cases numbered from 1 (the table's # column) on a linear axis. Other series
    are left out: a run's names carry their label (a Note); an opened result's are named in
    ``charted_names`` first."""

    def __init__(self) -> None:
        super().__init__(log_x=False, log_y=False, x_text=lambda x: f"{x:.0f}")
        self.charted_names: set[str] = set()

    def charted(self, series: str) -> bool:
        message = getattr(series, "message", None)
        return (message is not None and message.key in CHART_LABELS) or series in self.charted_names

    def chart_series_of(self, result: Result) -> None:
        """Name the series of ``result`` that belong on the chart (before its points are added)."""
        self.charted_names = {s.name for s in result.series if s.label is not None and s.label.key in CHART_LABELS}

    def add_point(self, series: str, point: Point) -> None:
        if self.charted(series):
            super().add_point(series, replace(point, x=point.x + 1))

    def set_kind(self, series: str, kind: str) -> None:
        if self.charted(series):
            super().set_kind(series, kind)

    def label_series(self, result: Result) -> None:
        shown = tuple(s for s in result.series if s.label is not None and s.label.key in CHART_LABELS)
        super().label_series(replace(result, series=shown))
        if shown:
            self.setLabel("bottom", "#")


class CaseMemoryBox(QWidget):
    """The chosen case's name, the memory view of one warp's load, and "Open in warp visualizer"."""

    open_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.case: Case | None = None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.memory = MemoryView()
        self.memory.gauge_label.setWordWrap(True)  # a narrow page wraps the gauge's words instead of widening
        self.open_button = QPushButton()
        self.open_button.clicked.connect(lambda _checked=False: self.open_requested.emit())
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()  # the case's name and its button share a line: the drawing needs the height
        row.addWidget(self.title, 1)
        row.addWidget(self.open_button)
        column.addLayout(row)
        column.addWidget(self.memory, 1)
        self.show_case(None)

    def show_case(self, case: Case | None) -> None:
        self.case = case
        self.memory.set_step(memory_step(case) if case is not None else None)
        self.open_button.setEnabled(case is not None and bool(case.kernel))
        self.retranslate()

    def retranslate(self) -> None:
        self.open_button.setText(self.tr("Open in warp visualizer"))
        self.open_button.setToolTip(self.tr("Step this kernel lane by lane in the warp visualizer"))
        case = self.case
        if case is None:
            self.title.setText(self.tr("Choose a case in the table to see one warp's load."))
        elif case.request is None:
            self.title.setText(self.tr("%1: this result has no warp load stored (saved by an older gpulab).")
                               .replace("%1", i18n.engine_message(case.label)))  # fmt: skip
        else:  # the memory view's own sentence says which warp and buffer
            self.title.setText(f"<b>{html.escape(i18n.engine_message(case.label))}</b>")
        self.memory.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def case_name(case: Case) -> str:
    """The case's number and name, for a chart marker."""
    return f"{case.index + 1}: {i18n.engine_message(case.label)}"


