"""The pieces of the access-pattern panel's right-hand side: the GB/s chart of the cases and the
memory picture of one case's warp load (with the button that opens it in the warp visualizer)."""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSplitter, QTabWidget, QVBoxLayout, QWidget

from gpulab.experiments.access_pattern.cases import Case, memory_step
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




class TwoPages(QWidget):
    """Two pages side by side where there is room (``side_by_side_px`` wide), else as two tabs."""

    def __init__(self, first: QWidget, second: QWidget, side_by_side_px: int = 900) -> None:
        super().__init__()
        self.pages = (first, second)
        self.titles = ["", ""]
        self.side_by_side_px = side_by_side_px
        self.tabs = QTabWidget()
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        layout.addWidget(self.split)
        self.wide: bool | None = None
        self._arrange(False, 0)

    def _arrange(self, wide: bool, width_px: int) -> None:
        if wide == self.wide:
            return
        self.wide = wide
        if wide:
            for page in self.pages:
                self.split.addWidget(page)  # taken out of its tab, which had hidden the page not in front
                page.show()
            self.split.setSizes([width_px // 2, width_px - width_px // 2])  # half the width each
        else:
            for page, title in zip(self.pages, self.titles, strict=True):
                self.tabs.addTab(page, title)
        self.tabs.setVisible(not wide)
        self.split.setVisible(wide)

    def set_titles(self, first: str, second: str) -> None:
        self.titles = [first, second]
        for index in range(self.tabs.count()):
            self.tabs.setTabText(index, self.titles[self.pages.index(self.tabs.widget(index))])

    def show_page(self, page: QWidget) -> None:
        """Bring ``page`` to the front (it is always in view when the pages are side by side)."""
        if not self.wide:
            self.tabs.setCurrentWidget(page)

    def page_in_view(self, page: QWidget) -> bool:
        return bool(self.wide) or self.tabs.currentWidget() is page

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._arrange(event.size().width() >= self.side_by_side_px, event.size().width())
        super().resizeEvent(event)
