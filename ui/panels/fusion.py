"""The operator-fusion lab: effective GB/s of each version against n, and a table of what fusion saves.

The chart shows the timed series (CPU measured; GPU measured, or modelled without one); the
memory-bandwidth ceiling and the best an unfused version can reach (ceiling x fused bytes /
unfused bytes) are drawn as level lines. Under it a small table sets unfused and fused side by
side: launches, bytes per element by hand count and as the emulator counted them exactly,
instructions per thread, and the time each took at the largest size. The emulated series are
that table's source; they claim no time, so they never appear on the chart.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpulab.measure import clean_points, size_text
from gpulab.results import Result, Series
from ui.panels.lab_panel import LabPanel
from ui.services import Services
from ui.widgets.notes_box import lines_for

LABEL_LINES = 1.8  # a level line's boxed label, in text lines
FUSED_KERNELS = {"(a+b)*c": "fusion_fused", "((a+b)*c-d)*0.5": "fusion_fused_long"}

# (unfused key, fused key) of the timed pairs the table compares, in order.
TIME_PAIRS = (("cpu-numpy-out", "cpu-numpy-blocked"), ("gpu-cu-unfused", "gpu-cu-fused"),
              ("model-unfused", "model-fused"))  # fmt: skip


def time_text(seconds: float) -> str:
    """Seconds in the unit that keeps 3 significant digits readable: 12.3 µs, 4.56 ms, 1.23 s."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def number_text(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def seconds_at(series: Series | None, n: float) -> float | None:
    """Seconds of the series' clean point at ``n`` (a flagged point backs no time in the table)."""
    point = next((p for p in clean_points(series) if p.x == n), None) if series is not None else None
    return float(point.extra["seconds"]) if point is not None and point.extra.get("seconds") else None


def bandwidth_ceiling(result: Result) -> tuple[float, str] | None:
    """(GB/s, device) of the memory-bandwidth ceiling a GPU or modelled series states, or None."""
    for series in result.series:
        details = series.provenance.details
        value = details.get("ceiling") if series.role == "gpu" else details.get("memory_bandwidth_gb_s")
        if series.role in ("gpu", "model") and value:
            return float(value), series.provenance.device
    return None


class SavingsTable(QWidget):
    """A caption, a button, and a three-column list: what is counted, unfused, fused."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.kernel_button = QPushButton()
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        column_layout = QVBoxLayout(self)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.addWidget(self.caption)
        # Under the caption, not beside it: beside it, the button would widen the panel in projector type.
        column_layout.addWidget(self.kernel_button, 0, Qt.AlignmentFlag.AlignLeft)
        column_layout.addWidget(self.tree)
        column_layout.addStretch(1)  # a tall tab page keeps the caption, button and list together at the top

    def show_rows(self, rows: list[tuple[str, str, str, str]]) -> None:
        """Rows of (what, unfused, fused, tooltip); the list as tall as its rows (a few lines)."""
        self.tree.clear()
        for what, unfused, fused, tip in rows:
            item = QTreeWidgetItem([what, unfused, fused])
            for column in (1, 2):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            for column in range(3):
                item.setToolTip(column, tip or what)
            self.tree.addTopLevelItem(item)
        self.fit_height()

    def fit_height(self) -> None:
        """The list as tall as its rows (the rows' height follows the type size)."""
        count = max(self.tree.topLevelItemCount(), 1)
        row = self.tree.sizeHintForRow(0) if self.tree.topLevelItemCount() else self.fontMetrics().height() + 6
        frame = 2 * self.tree.frameWidth() + self.tree.header().sizeHint().height()
        self.tree.setMaximumHeight(frame + row * count + 2)  # no empty rows; fewer when the chart needs room

    def preferred_height(self) -> int:
        """The caption row and every row of the list."""
        wrapped = self.caption.heightForWidth(self.caption.width()) if self.caption.width() > 0 else -1
        caption = max(wrapped, self.caption.sizeHint().height())
        return (
            caption + self.kernel_button.sizeHint().height() + 2 * self.layout().spacing() + self.tree.maximumHeight()
        )

    def rows(self) -> list[list[str]]:
        """The rows as shown (for tests and scripts)."""
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [[item.text(c) for c in range(3)] for item in items if item is not None]


class FusionPanel(LabPanel):
    """Unfused vs fused: the chart of effective GB/s and the table of what fusion saves."""

    EXPERIMENT = "fusion"

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        self._opened: Result | None = None  # the whole result while show_result plots its timed part
        self._top: float | None = None  # the highest level line, kept in view above the curves
        super().__init__(services, parent)

    def make_view(self) -> QWidget:
        """The chart over the table (split, so a teacher can give either more room), the notes
        under both; where the table would squeeze the chart, chart and table become two tabs."""
        self.savings = SavingsTable()
        self.kernel_button = self.savings.kernel_button
        self.kernel_button.clicked.connect(self.open_fused_kernel)
        self.chart = self.plot_column()
        self.view_splitter = QSplitter(Qt.Orientation.Vertical)
        self.view_splitter.setChildrenCollapsible(False)
        self.tabs = QTabWidget()
        self.tabbed = False
        self._place_parts(tabbed=False)
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.view_splitter, 1)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.notes)
        return view

    def _place_parts(self, tabbed: bool) -> None:
        """Chart and table into the tabs or into the splitter (moving them from the other)."""
        self.tabbed = tabbed
        if tabbed:
            self.tabs.addTab(self.chart, self.tr("Chart"))
            self.tabs.addTab(self.savings, self.tr("Unfused vs fused"))
        else:
            self.tabs.clear()  # the pages stay alive; the splitter takes them
            self.view_splitter.addWidget(self.chart)
            self.view_splitter.addWidget(self.savings)
            self.view_splitter.setStretchFactor(0, 1)  # when the notes appear, the chart gives up the room
            self.view_splitter.setStretchFactor(1, 0)
            for part in (self.chart, self.savings):
                part.show()  # a page taken from the tabs comes hidden
        self.tabs.setVisible(tabbed)
        self.view_splitter.setVisible(not tabbed)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            QTimer.singleShot(0, self, self._refit)  # once every widget has the new type

    def _refit(self) -> None:
        self.savings.fit_height()
        self.arrange_view()

    def fit_to_view(self) -> None:
        super().fit_to_view()
        # The table shares the room with the chart.
        self.notes.set_lines(max(3, lines_for(self, height=self.shown_size().height()) - 1))
        self.arrange_view()

    def arrange_view(self) -> None:
        """The table as tall as its rows under the chart, if that leaves the chart 60% of the room;
        else the two as tabs."""
        room = (self.tabs if self.tabbed else self.view_splitter).height()
        if room <= 0:
            return
        table = self.savings.preferred_height() + self.view_splitter.handleWidth()
        tabbed = table > 0.4 * room
        if tabbed != self.tabbed:
            self._place_parts(tabbed)
        if not tabbed:
            self.view_splitter.setSizes([room - table, table])
        if self._top is not None:  # the chart's new height needs another headroom for the level's label
            QTimer.singleShot(0, self, self._keep_top_in_view)

    def _keep_top_in_view(self) -> None:
        if self._top is not None:
            self._show_up_to(self._top)

    def retranslate(self) -> None:
        self.kernel_button.setText(self.tr("Step through the fused kernel"))  # made in make_view
        self.kernel_button.setToolTip(self.tr("Open the fused .cu kernel in the warp visualizer"))
        self.savings.tree.setHeaderLabels([self.tr("Per element"), self.tr("Unfused"), self.tr("Fused")])
        if self.tabbed:
            self.tabs.setTabText(0, self.tr("Chart"))
            self.tabs.setTabText(1, self.tr("Unfused vs fused"))
        super().retranslate()
        self._fill_table()

    # ------------------------------------------------------------ results

    def forget_run(self) -> None:
        self._top = None
        super().forget_run()
        self._fill_table()

    def show_result(self, result: Result) -> None:
        """Plot the timed series of ``result``; its emulated counts go to the table only."""
        timed = tuple(s for s in result.series if s.role != "emulated")
        self._opened = result
        try:
            super().show_result(dataclasses.replace(result, series=timed))
        finally:
            self._opened = None

    def _finished(self, result: Result) -> None:
        super()._finished(self._opened if self._opened is not None else result)
        self._fill_table()

    def decorate(self, result: Result) -> None:
        super().decorate(result)
        ceiling = bandwidth_ceiling(result)
        emulated = {s.key: s.points[0].extra for s in result.series if s.role == "emulated" and s.points}
        if ceiling is None:
            return
        gb_s, _device = ceiling
        # The spec sheet's peak: measured and modelled curves (the model at its achievable share) stay under it.
        self.plot.add_level(gb_s, self.tr("peak %1 GB/s").replace("%1", f"{gb_s:.0f}"))
        self._top = gb_s
        self._show_up_to(gb_s)
        if {"emulated-unfused", "emulated-fused"} <= set(emulated):
            share = emulated["emulated-fused"]["bytes_hand_count"] / emulated["emulated-unfused"]["bytes_hand_count"]
            line = self.plot.add_level(gb_s * share, self.tr("unfused ≤ %1").replace("%1", f"{share:.0%}"))
            # Below its line at the left end (small sizes sit far lower): the ceiling's label, above the
            # line just over it, is at the right end.
            line.label.anchors = [(0.0, 0.0), (0.0, 0.0)]
            line.label.setPosition(0.02)

    def _show_up_to(self, top: float) -> None:
        """The y range from the lowest point to ``top`` (a level line the curves may not reach) and
        one label's height above it, for the line's label."""
        plot = self.plot
        ys = [plot.y_of(p) for points in plot.series.values() for p in points if plot.y_of(p) > 0]
        if not ys:
            return
        to_view = math.log10 if plot.log_y else float
        low, high = to_view(min(ys)), to_view(max(*ys, top))
        span = max(high - low, 1e-9) * 1.05
        room_px = max(plot.getViewBox().height(), 4.0 * LABEL_LINES * self.fontMetrics().height())
        label_px = LABEL_LINES * self.fontMetrics().height()
        headroom = span * label_px / (room_px - label_px)
        plot.setYRange(low - 0.05 * span, high + headroom, padding=0)

    # ------------------------------------------------------------ the table

    def _fill_table(self) -> None:
        result = self.last_result
        if result is None:
            self.savings.caption.setText(self.tr("Run the lab to compare the unfused and the fused version."))
            self.savings.show_rows([])
            return
        chain = str(result.params.get("chain", ""))
        self.savings.caption.setText(self.tr("What fusion saves for y = %1").replace("%1", chain))
        self.savings.show_rows(self._count_rows(result) + self._time_rows(result))
        self.arrange_view()

    def _count_rows(self, result: Result) -> list[tuple[str, str, str, str]]:
        unfused, fused = (result.get_series(f"emulated-{v}") for v in ("unfused", "fused"))
        if unfused is None or fused is None or not unfused.points or not fused.points:
            return []
        u, f = unfused.points[0].extra, fused.points[0].extra
        n = size_text(u["n"])
        exact = self.tr("Counted by the SIMT emulator at n=%1, exactly; it claims no time.").replace("%1", n)
        rows: list[tuple[str, Callable[[dict], str], str]] = [
            (self.tr("Kernel launches"), lambda e: str(e["launches"]),
             self.tr("On a CPU: passes over the arrays.")),
            (self.tr("Bytes moved (hand count)"), lambda e: number_text(e["bytes_hand_count"]),
             self.tr("4 bytes per float32 array read or written; each intermediate is written and read back.")),
            (self.tr("Bytes moved (emulated)"), lambda e: number_text(e["bytes_per_element"]), exact),
            (self.tr("Instructions per thread (emulated)"), lambda e: number_text(e["instructions_per_thread"]),
             exact),
        ]  # fmt: skip
        return [(what, value(dict(u)), value(dict(f)), tip) for what, value, tip in rows]

    def _time_rows(self, result: Result) -> list[tuple[str, str, str, str]]:
        rows = []
        for unfused_key, fused_key in TIME_PAIRS:
            unfused, fused = result.get_series(unfused_key), result.get_series(fused_key)
            if unfused is None or fused is None or not unfused.points or not fused.points:
                continue
            # The largest size both measured cleanly: a time taken under load would say "fused is slower".
            common = sorted({p.x for p in clean_points(unfused)} & {p.x for p in clean_points(fused)})
            slow, fast = (seconds_at(unfused, common[-1]), seconds_at(fused, common[-1])) if common else (None, None)
            if slow is None or fast is None or not math.isfinite(slow + fast):
                continue
            what = self._time_label(unfused_key, fused).replace("%1", size_text(common[-1]))
            tip = self.tr("Whole-array time per call at n=%1 (median of repeats).").replace("%1", size_text(common[-1]))
            rows.append((what, time_text(slow), time_text(fast), tip))
        return rows

    def _time_label(self, key: str, fused: Series) -> str:
        if key.startswith("cpu"):
            return self.tr("Time, CPU one thread, measured, n=%1")
        if key.startswith("gpu"):
            return self.tr("Time, GPU .cu kernels, measured, n=%1")
        return self.tr("Time, %2, modelled, n=%1").replace("%2", fused.provenance.device)

    # ------------------------------------------------------------ the kernel

    def open_fused_kernel(self) -> None:
        """Show the fused kernel of the formula chosen in the form in the warp visualizer."""
        editor = self.editors.get("chain")
        chain = editor.currentData() if editor is not None and hasattr(editor, "currentData") else None
        self.services.navigator.open_kernel(FUSED_KERNELS.get(str(chain), "fusion_fused"), "small")
