"""The scheduling lab's Gantt chart: nodes up the side, time along, a bar per run per range of
consecutive nodes (a colour per job), a cross per failure, ticks at a big job's checkpoints, and a
time cursor. Its items are made once and refilled with setOpts/setData; at most MAX_BARS bars
(the longest runs first: the short ones are slivers at a cluster's scale)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from gpulab.results import Result

MAX_BARS = 20000
MAX_TICKS = 4000
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974",
           "#64b5cd")  # fmt: skip


def bars_of(result: Result) -> tuple[np.ndarray, ...]:
    """x0, width, y0, height and job of each bar (one per run per node range), the longest MAX_BARS."""
    runs = result.get_series("runs")
    rows = [(p.x, p.y - p.x, a, b - a + 1, int(p.extra["job"])) for p in (runs.points if runs is not None else ())
            for a, b in p.extra["nodes"]]  # fmt: skip
    table = np.array(rows, dtype=float).reshape(-1, 5)
    if len(table) > MAX_BARS:
        table = table[np.argsort(-table[:, 1] * table[:, 3], kind="stable")[:MAX_BARS]]
    return tuple(table.T)


def ticks_of(result: Result) -> tuple[np.ndarray, np.ndarray]:
    """Checkpoint times (hours) and the node row they are drawn at, for the runs that wrote checkpoints."""
    runs = result.get_series("runs")
    xs: list[float] = []
    ys: list[float] = []
    for p in runs.points if runs is not None else ():
        count, interval = int(p.extra.get("checkpoints") or 0), p.extra.get("interval_s")
        if not count or interval is None:
            continue
        cycle = (interval + p.extra.get("write_s", 0.0)) / 3600
        first = p.x + p.extra.get("restart_s", 0.0) / 3600
        a, b = p.extra["nodes"][0]
        xs.extend(first + cycle * (k + 1) for k in range(min(count, MAX_TICKS)))
        ys.extend([(a + b + 1) / 2] * min(count, MAX_TICKS))
        if len(xs) > MAX_TICKS:
            break
    return np.array(xs[:MAX_TICKS]), np.array(ys[:MAX_TICKS])


class GanttPlot(pg.PlotWidget):
    """Runs as bars, failures as crosses, checkpoints as ticks, and a movable time cursor."""

    cursor_moved = Signal(float)

    def __init__(self) -> None:
        super().__init__()
        self.setBackground(None)
        self.showGrid(x=True, y=False, alpha=0.2)
        self.bars = pg.BarGraphItem(x0=[], width=[], y0=[], height=[])
        self.failures = pg.ScatterPlotItem(symbol="x", size=11, pen=pg.mkPen("#d62728", width=2), brush=None)
        self.ticks = pg.ScatterPlotItem(symbol="t", size=6, pen=None, brush=pg.mkBrush("#222222"))
        self.cursor = pg.InfiniteLine(0.0, angle=90, movable=True, pen=pg.mkPen("#d62728", width=2))
        for item in (self.bars, self.ticks, self.failures, self.cursor):
            self.getPlotItem().vb.addItem(item)  # not data items: the theme's curve pens are not theirs
        self.cursor.sigPositionChanged.connect(lambda line: self.cursor_moved.emit(float(line.value())))
        self.bar_count = 0

    def set_axes(self, time_label: str, node_label: str) -> None:
        self.setLabel("bottom", time_label, units="h")
        self.setLabel("left", node_label)

    def show_result(self, result: Result | None, nodes: int) -> None:
        if result is None:
            self.bars.setOpts(x0=[], width=[], y0=[], height=[])
            self.failures.setData([], [])
            self.ticks.setData([], [])
            self.bar_count = 0
            return
        x0, width, y0, height, job = bars_of(result)
        brushes = [pg.mkBrush(PALETTE[int(j) % len(PALETTE)]) for j in job]
        self.bars.setOpts(x0=x0, width=width, y0=y0, height=height, brushes=brushes, pens=[None] * len(job))
        self.bar_count = len(job)
        failures = result.get_series("failures")
        points = failures.points if failures is not None else ()
        self.failures.setData([p.x for p in points], [p.y + 0.5 for p in points])
        self.ticks.setData(*ticks_of(result))
        hours = float(result.params.get("hours", 1.0))
        self.setXRange(0, hours, padding=0.01)
        self.setYRange(0, max(1, nodes), padding=0.01)
        self.cursor.setBounds((0, hours))
