"""The latency ladder: this CPU's measured nanoseconds per dependent load against the working set
(log x), its cache sizes from the operating system marked, and beside it the load latencies
published for a GPU of the spec table (modelled) where the project lists them.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from gpulab import hostmem
from gpulab.latency import gpu_levels
from gpulab.measure import size_text
from gpulab.results import Result
from ui.panels.latency_occupancy import arch_choices
from ui.theme import current_theme, style_plot
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.flow_layout import WrapLabel


def cache_edges() -> list[tuple[str, int]]:
    """(name, bytes) of this CPU's data caches, as the OS reports them."""
    caches, _source = hostmem.cpu_caches()
    return [(f"L{c.level}", c.size_bytes) for c in caches if c.kind in ("Data", "Unified")]


class LadderView(QWidget):
    """The measured CPU ladder and the GPU's published levels beside it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        import pyqtgraph as pg

        self.points: list[tuple[float, float]] = []
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setLogMode(x=True, y=True)
        self.curve = self.plot.plot([], [], symbol="o", symbolSize=7)
        self.edges = []
        for name, size in cache_edges():
            line = pg.InfiniteLine(pos=math.log10(size), angle=90, movable=False,
                                   label=f"{name} {size_text(size)}", labelOpts={"position": 0.9})  # fmt: skip
            self.plot.addItem(line)
            self.edges.append(line)
        self.hint = WrapLabel(max_lines=2)
        self.measured_badge = ProvenanceBadge("measured")
        self.cpu_title = QLabel()
        self.gpu_title = QLabel()
        self.gpu_combo = QComboBox()
        for text, key in arch_choices():
            self.gpu_combo.addItem(text, key)
        self.gpu_combo.setCurrentIndex(max(0, self.gpu_combo.findData("t4")))
        self.gpu_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.gpu_combo.setMinimumContentsLength(12)
        self.gpu_badge = ProvenanceBadge("modelled")
        self.levels = QTreeWidget()
        self.levels.setRootIsDecorated(False)
        self.levels.setColumnCount(2)
        self.gpu_line = WrapLabel(max_lines=6)
        self.gpu_line.setOpenExternalLinks(True)
        self._build_layout()
        self.gpu_combo.currentIndexChanged.connect(lambda _i: self.show_levels())
        self.restyle()

    def _build_layout(self) -> None:
        heading = QHBoxLayout()
        heading.addWidget(self.cpu_title)
        heading.addWidget(self.measured_badge)
        heading.addStretch(1)
        left = QVBoxLayout()
        left.addLayout(heading)
        left.addWidget(self.hint)
        left.addWidget(self.plot, 1)
        gpu_heading = QHBoxLayout()
        gpu_heading.addWidget(self.gpu_title)
        gpu_heading.addWidget(self.gpu_badge)
        gpu_heading.addStretch(1)
        right = QVBoxLayout()
        right.addLayout(gpu_heading)
        right.addWidget(self.gpu_combo)
        right.addWidget(self.levels)
        right.addWidget(self.gpu_line)
        right.addStretch(1)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addLayout(left, 3)
        row.addLayout(right, 1)

    def retranslate(self) -> None:
        self.cpu_title.setText(self.tr("This CPU, pointer chase"))
        self.gpu_title.setText(self.tr("A GPU, published"))
        self.plot.setLabel("bottom", self.tr("working set (bytes)"))
        self.plot.setLabel("left", self.tr("ns per load"))
        self.levels.setHeaderLabels([self.tr("Level"), self.tr("Cycles")])
        self.show_points(self.points)
        self.show_levels()

    def show_result(self, result: Result | None) -> None:
        series = result.get_series("cpu-ladder") if result is not None else None
        self.show_points([(p.x, p.y) for p in series.points] if series is not None else [])

    def show_points(self, points: list[tuple[float, float]]) -> None:
        self.points = points
        self.curve.setData([x for x, _y in points], [y for _x, y in points])
        if points:
            self.hint.setText(self.tr("Each load waits for the one before: the time is the latency of wherever the "
                                      "working set lives. The lines mark this CPU's cache sizes."))  # fmt: skip
        else:
            self.hint.setText(self.tr("Press Run: this CPU's ladder is measured, one working set at a time."))

    def show_levels(self) -> None:
        from gpulab.occupancy import resolve_arch

        arch = resolve_arch(str(self.gpu_combo.currentData()))
        levels = gpu_levels.levels(arch)
        self.levels.clear()
        self.levels.setVisible(levels is not None)
        self.gpu_badge.setVisible(levels is not None)
        if levels is None:
            self.gpu_line.setText(self.tr("No published figures for this architecture (%1).").replace("%1", arch))
            return
        names = {"shared": self.tr("shared memory"), "L1": "L1", "L2": "L2", "DRAM": self.tr("DRAM")}
        for level, cycles in levels.as_rows():
            text = f"{levels.dram_cycles_low}–{levels.dram_cycles_high}" if level == "DRAM" else f"{cycles:.0f}"
            item = QTreeWidgetItem([names[level], text])
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.levels.addTopLevelItem(item)
        rows = len(levels.as_rows()) + 1
        self.levels.setMaximumHeight(rows * (self.levels.sizeHintForRow(0) + 2) + 2 * self.levels.frameWidth() + 4)
        self.gpu_line.setText(self.tr("%1, load latency in cycles. Source: <a href=\"%2\">%3</a>")
                              .replace("%1", arch).replace("%2", levels.source_url)
                              .replace("%3", levels.source_title))  # fmt: skip

    def restyle(self) -> None:
        import pyqtgraph as pg

        theme = current_theme()
        style_plot(self.plot)
        self.curve.setPen(pg.mkPen(theme.curve_colors[0], width=theme.line_width))
        self.curve.setSymbolBrush(theme.curve_colors[0])
        for line in self.edges:
            line.setPen(pg.mkPen(theme.muted, width=max(1, theme.line_width // 2), style=Qt.PenStyle.DashLine))
            line.label.setColor(theme.text)
            line.label.setFont(self.font())
