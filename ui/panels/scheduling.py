"""Scheduling & failures: a week of a GPU cluster under a scheduler, simulated.

Left, the form (cluster size, job mix, load, policy, gang scheduling, failure rate, checkpoints)
and Run. Right, three tabs. "Gantt": a bar per job run on its nodes, failures as crosses, checkpoint
ticks, and a time cursor; under it what squeue and sinfo would print at the cursor. "Utilisation":
the share of GPUs busy over time, with the notes. "Lost GPU-hours": where the GPU-time went, by
cause. Every number is modelled (a seeded simulation), and the badge says so from the start.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget

from gpulab.catalogue import msg
from gpulab.experiments import scheduling as lab
from gpulab.model.scheduling import snapshot
from gpulab.model.scheduling.cluster import preset_cluster
from gpulab.results import Point, Result
from ui import i18n
from ui.panels.lab_panel import LabPanel
from ui.panels.scheduling_gantt import GanttPlot
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.legend_box import LegendBox
from ui.widgets.live_plot import LivePlot

MAX_QUEUE_ROWS = 200  # squeue at a busy instant lists thousands: the first ones tell the story


class UtilisationPlot(LivePlot):
    """Only the share of GPUs busy (the other series are shown as the Gantt and the tables)."""

    def __init__(self) -> None:
        super().__init__(log_x=False, log_y=False)

    def add_point(self, series: str, point: Point) -> None:
        if "busy" in point.extra:
            super().add_point(series, point)


def _table(columns: int) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # a long cell wraps
    return table


class SchedulingPanel(LabPanel):
    """The Gantt chart with its time cursor and squeue table, the utilisation chart, the losses."""

    EXPERIMENT = "scheduling"

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.gantt = GanttPlot()
        self.gantt.cursor_moved.connect(lambda _h: self.show_cursor())
        # Two lines, wrapped in full: a projector audience reads the counts here, not in a tooltip.
        self.cursor_label = WrapLabel(min_lines=2, max_lines=None)
        self.queue_table = _table(6)
        self.lost_table = _table(3)
        self.nodes = preset_cluster(lab.Params().gpus).nodes

    def make_plot(self) -> LivePlot:
        return UtilisationPlot()

    def make_view(self) -> QWidget:
        gantt = QWidget()
        column = QVBoxLayout(gantt)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.gantt, 3)
        column.addWidget(self.cursor_label)
        column.addWidget(self.queue_table, 2)
        chart = QWidget()
        column = QVBoxLayout(chart)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.plot, 1)
        column.addWidget(LegendBox(self.legend))
        column.addWidget(self.notes)
        self.tabs = QTabWidget()
        self.tabs.tabBar().setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.setUsesScrollButtons(True)
        for page in (gantt, chart, self.lost_table):
            self.tabs.addTab(page, "")
        return self.tabs

    def _build_layout(self) -> None:
        super()._build_layout()
        for widget in (self.description, self.device_label, self.device_combo):
            widget.hide()  # nothing runs on a device: the simulation is modelled
        self.set_provenance("modelled")

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        if not hasattr(self, "tabs"):
            return
        for i, text in enumerate((self.tr("Gantt"), self.tr("Utilisation"), self.tr("Lost GPU-hours"))):
            self.tabs.setTabText(i, text)
        self.gantt.set_axes(self.tr("Time"), self.tr("Node"))
        self.queue_table.setHorizontalHeaderLabels([self.tr("Job"), self.tr("Class"), self.tr("GPUs"), self.tr("State"),
                                                    self.tr("Hours"), self.tr("Nodes")])  # fmt: skip
        self.lost_table.setHorizontalHeaderLabels([self.tr("Cause"), self.tr("GPU-hours"), self.tr("Share")])
        self._fill_lost()
        self.show_cursor()

    def fit_to_view(self) -> None:
        super().fit_to_view()
        self.notes.set_lines(2)

    def forget_run(self) -> None:
        super().forget_run()
        self.gantt.show_result(None, self.nodes)
        self.set_provenance("modelled")
        self._fill_lost()
        self.show_cursor()

    def decorate(self, result: Result) -> None:
        gpus = int(result.params.get("gpus", lab.MAX_GPUS))
        self.nodes = preset_cluster(gpus).nodes
        self.gantt.show_result(result, self.nodes)
        self.gantt.cursor.setValue(float(result.params.get("hours", 1.0)) / 2)
        self._fill_lost()
        self.show_cursor()

    # ------------------------------------------------------------ the cursor's table

    def show_cursor(self) -> None:
        result = self.last_result
        if result is None or result.get_series("runs") is None:
            self.queue_table.setRowCount(0)
            self.cursor_label.setText(self.tr("Press Run: the jobs appear on their nodes; drag the red line "
                                              "to see the queue at that time."))  # fmt: skip
            return
        hour = float(self.gantt.cursor.value())
        rows, counts = snapshot.snapshot(result, hour, self.nodes)
        running = sum(1 for r in rows if r.state == "R")
        jobs = (self.tr("At %1 h (squeue): %2 jobs running, %3 waiting.")
                .replace("%1", f"{hour:.1f}").replace("%2", str(running)).replace("%3", str(len(rows) - running)))
        nodes = (self.tr("Nodes (sinfo): %1 allocated, %2 idle, %3 down.")
                 .replace("%1", str(counts.allocated)).replace("%2", str(counts.idle)).replace("%3", str(counts.down)))
        self.cursor_label.setText(f"{jobs}\n{nodes}")  # fmt: skip
        classes = {"large": self.tr("large"), "medium": self.tr("medium"), "small": self.tr("small")}
        shown = rows[:MAX_QUEUE_ROWS]
        self.queue_table.setRowCount(len(shown))
        for i, row in enumerate(shown):
            kind = classes.get(row.kind, row.kind)
            nodes = row.nodes.replace(",", ", ")  # a job on many ranges of nodes wraps there, never cut short
            values = (str(row.job), kind, str(row.gpus), row.state, f"{row.hours:.1f}", nodes)
            for j, value in enumerate(values):
                self.queue_table.setItem(i, j, QTableWidgetItem(value))

    def _fill_lost(self) -> None:
        lost = self.last_result.get_series("lost") if self.last_result is not None else None
        points = list(lost.points) if lost is not None else []
        total = sum(p.y for p in points) or 1.0
        self.lost_table.setRowCount(len(points))
        for i, point in enumerate(points):
            cause = i18n.engine_message(msg(lab.CAUSE_KEYS[str(point.extra["cause"])]))
            for j, value in enumerate((cause, f"{point.y:,.0f}", f"{point.y / total:.0%}")):
                self.lost_table.setItem(i, j, QTableWidgetItem(value))

    # ------------------------------------------------------------ export

    def pictures(self) -> list[QWidget]:
        return [self.gantt, self.plot]

    def export_view(self) -> QWidget:
        return {0: self.gantt, 1: self.plot}.get(self.tabs.currentIndex(), self.lost_table)
