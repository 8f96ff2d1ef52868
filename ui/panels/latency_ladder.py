"""The latency ladder: this CPU's measured nanoseconds per dependent load against the working set
(log x), its cache sizes from the operating system marked, and beside it the load latencies
published for a GPU of the spec table (modelled) where the project lists them.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpulab import hostmem
from gpulab.latency import gpu_levels
from gpulab.results import Result
from ui.panels.latency_occupancy import arch_choices
from ui.theme import current_theme, style_plot
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.flow_layout import WrapLabel


def cache_edges() -> list[tuple[str, int]]:
    """(name, bytes) of this CPU's data caches, as the OS reports them."""
    caches, _source = hostmem.cpu_caches()
    return [(f"L{c.level}", c.size_bytes) for c in caches if c.kind in ("Data", "Unified")]


def bytes_text(size: int) -> str:
    """4096 -> '4 KiB', 1048576 -> '1 MiB'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} B"


class LadderView(QWidget):
    """The measured CPU ladder and the GPU's published levels beside it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        import pyqtgraph as pg

        from ui.widgets.plot_axes import DecadeAxis

        self.points: list[tuple[float, float]] = []
        # Decades only, written one way: pyqtgraph's own axis labelled 2·10¹ ... 9·10¹ over each other
        self.plot = pg.PlotWidget(axisItems={"left": DecadeAxis("left"), "bottom": DecadeAxis("bottom")})
        self.plot.setMenuEnabled(False)
        self.plot.setLogMode(x=True, y=True)
        self.curve = self.plot.plot([], [], symbol="o", symbolSize=7)
        for side in ("left", "bottom"):
            self.plot.getPlotItem().getAxis(side).setStyle(maxTextLevel=0)  # decades only: minor labels crowd
        self.edges = []
        edges = cache_edges()
        for index, (name, size) in enumerate(edges):
            # The largest cache's name stands left of its line: right of it, the plot's edge cut it ("L3 32").
            side = (1, 0.5) if index == len(edges) - 1 and index > 0 else (0, 0.5)
            line = pg.InfiniteLine(pos=math.log10(size), angle=90, movable=False, label=f"{name} {bytes_text(size)}",
                                   labelOpts={"position": 0.92 - 0.12 * index, "anchors": [side, side]})
            self.plot.addItem(line)
            self.edges.append(line)
        self.hint = WrapLabel(max_lines=2)
        self.measured_badge = ProvenanceBadge("measured")
        self.cpu_title = QLabel()
        self.gpu_title = WrapLabel(max_lines=2)  # beside the badge and the GPU list: it wraps before they squeeze
        self.gpu_combo = QComboBox()
        for text, key in arch_choices():
            self.gpu_combo.addItem(text, key)
        self.gpu_combo.setCurrentIndex(max(0, self.gpu_combo.findData("t4")))
        self.gpu_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.gpu_combo.setMinimumContentsLength(8)
        self.gpu_badge = ProvenanceBadge("modelled")
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
        gpu_heading = QHBoxLayout()  # beside the CPU's: the GPU's published levels, a line under the chart
        gpu_heading.addWidget(self.gpu_title, 1)
        gpu_heading.addWidget(self.gpu_badge)
        gpu_heading.addWidget(self.gpu_combo, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(heading)
        column.addWidget(self.hint)
        column.addWidget(self.plot, 1)
        column.addLayout(gpu_heading)
        column.addWidget(self.gpu_line)

    def show_whole(self, whole: bool) -> None:
        """Every line whole (presenter mode: a room sees no tooltips), or cut at its lines with the rest on hover."""
        for label, lines in ((self.hint, 2), (self.gpu_title, 2), (self.gpu_line, 6)):
            label.set_lines(label.min_lines, None if whole else lines)

    def retranslate(self) -> None:
        self.cpu_title.setText(self.tr("This CPU, pointer chase"))
        self.gpu_title.setText(self.tr("A GPU, published"))
        self.plot.setLabel("bottom", self.tr("working set (bytes)"))
        self.plot.setLabel("left", self.tr("ns per load"))
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

    def arch(self) -> str:
        """The architecture of the GPU chosen in the list (a GPU's name resolves to its sm_XX)."""
        from gpulab.occupancy import resolve_arch

        return resolve_arch(str(self.gpu_combo.currentData()))

    def show_levels(self) -> None:
        arch = self.arch()
        levels = gpu_levels.levels(arch)
        self.gpu_badge.setVisible(levels is not None)
        if levels is None:
            self.gpu_line.setText(self.tr("No published figures for this architecture (%1).").replace("%1", arch))
            return
        text = self.tr('%1 (measured on %2), cycles per load: %3. Source: <a href="%4">%5</a>')
        values = (arch, levels.measured_on, self.levels_text(levels), levels.source_url, levels.source_title)
        for index, value in reversed(list(enumerate(values, start=1))):  # %5 before %1's digits are touched
            text = text.replace(f"%{index}", str(value))
        self.gpu_line.setText(text)

    def levels_text(self, levels: gpu_levels.GpuLevels) -> str:
        """'shared memory 23 · L1 32 · L2 236 · DRAM 1000–1200'; a level the source does not list says so."""
        dram = str(levels.dram_cycles_low)
        if levels.dram_cycles_high != levels.dram_cycles_low:
            dram += f"–{levels.dram_cycles_high}"
        shared = (self.tr("shared memory not listed") if levels.shared_cycles is None
                  else self.tr("shared memory %1").replace("%1", str(levels.shared_cycles)))  # fmt: skip
        return " · ".join((shared, f"L1 {levels.l1_cycles}", f"L2 {levels.l2_cycles}", f"DRAM {dram}"))

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
