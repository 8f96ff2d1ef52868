"""The roofline lab: every lab kernel on a log-log chart under a GPU's roof and this CPU's.

The chart (:class:`~ui.widgets.roofline_plot.RooflinePlot`) draws the roofs with their ridge
points and each kernel as a labelled dot, joined to a hollow dot where its other byte count
(ideal reuse, or no reuse) places it elsewhere; hovering a dot says whether it is memory- or
compute-bound, how far below its roof it sits, where its other bound is and what published
measurements of kernels like it reached; clicking it opens the kernel in the warp visualizer.
Beside the chart a list gives every kernel's verdict, those without FLOPs too
(they have no place on a log chart); clicking a row opens the kernel as well.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTreeWidgetItem, QWidget

from gpulab.results import Point, Result, Series
from ui.panels.lab_panel import LabPanel
from ui.widgets.badge import kind_label
from ui.widgets.captioned_tree import CaptionedTree, ChartAndTable
from ui.widgets.live_plot import LivePlot
from ui.widgets.roofline_plot import RooflinePlot

ENTRY_ROLE = Qt.ItemDataRole.UserRole
PRESET_ROLE = Qt.ItemDataRole.UserRole + 1


def kernel_series(result: Result) -> Series | None:
    """The series the verdicts come from: measured on a GPU when there is one, else modelled."""
    return result.get_series("kernels-gpu") or result.get_series("kernels-model")


def rate_text(giga: float, unit: str) -> str:
    """A rate given in giga-units, in tera-units from 1000 on: 67000 GFLOP/s -> '67 TFLOP/s'."""
    return f"{giga / 1000:.3g} T{unit}" if giga >= 1000 else f"{giga:.3g} G{unit}"


class KernelVerdicts(CaptionedTree):
    """A caption and a list: kernel, bound, percent of roof; a row click asks to open the kernel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(3, parent)
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the names take the room

    def set_headers(self, kernel: str, bound: str, percent: str) -> None:
        self.tree.setHeaderLabels([kernel, bound, percent])

    def show_points(self, points: list[Point], bound_word: dict[str, str], tooltip: dict[str, str]) -> None:
        """One row per kernel point (kernel name, short bound word, percent of roof)."""
        self.tree.clear()
        for point in points:
            entry = str(point.extra["entry"])
            percent = point.extra.get("percent_of_roof")
            bound = bound_word.get(str(point.extra.get("bound")), "–")
            item = QTreeWidgetItem([entry, bound, f"{percent:.0f}%" if percent is not None else "–"])
            item.setData(0, ENTRY_ROLE, entry)
            item.setData(0, PRESET_ROLE, str(point.extra.get("preset", "")))
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            for column in range(3):
                item.setToolTip(column, tooltip.get(entry, entry))
            self.tree.addTopLevelItem(item)

    def preferred_width(self) -> int:
        """Room for the longest kernel name and the two short columns."""
        chars = self.fontMetrics().averageCharWidth()
        names = [row[0] for row in self.rows()]
        longest = max((self.fontMetrics().horizontalAdvance(n) for n in names), default=20 * chars)
        return longest + self.tree.sizeHintForColumn(1) + self.tree.sizeHintForColumn(2) + 6 * chars


class RooflinePanel(LabPanel):
    """Where each lab kernel sits under its roofs, and a way into each one."""

    EXPERIMENT = "roofline"
    LEFT_OUT_FIELDS = ("dtype",)  # one data type to choose from takes no row

    def make_plot(self) -> LivePlot:
        plot = RooflinePlot()
        plot.describe = self.describe_point
        plot.kernel_clicked.connect(self.open_kernel)
        return plot

    def make_view(self) -> QWidget:
        self.verdicts = KernelVerdicts()
        self.verdicts.tree.itemClicked.connect(self._row_clicked)
        self.view_splitter = ChartAndTable(
            self.plot_column(notes=True), self.verdicts, least_chars=110,
            table_width=lambda total: min(self.verdicts.preferred_width(), int(0.4 * total)),
            table_height=lambda total: int(0.28 * total),
            on_narrow=lambda: self.notes.set_lines(2))  # the chart first; the notes scroll  # fmt: skip
        return self.view_splitter

    def retranslate(self) -> None:
        self.verdicts.set_headers(self.tr("Kernel"), self.tr("Bound"), self.tr("Roof"))
        self.verdicts.tree.headerItem().setToolTip(2, self.tr("Percent of the roof above the kernel it reaches"))
        if self.last_result is None:
            self.verdicts.caption.setText(self.tr("Run the lab to place every kernel."))
        super().retranslate()

    def forget_run(self) -> None:
        super().forget_run()
        self.verdicts.tree.clear()
        self.verdicts.caption.setText(self.tr("Run the lab to place every kernel."))

    def _finished(self, result: Result) -> None:
        # The roofs come with the finished result, not point by point: draw what has not streamed in.
        for series in result.series:
            if series.name not in self.plot.curves:
                for point in series.points:
                    self.plot.add_point(series.name, point)
        super()._finished(result)

    # ------------------------------------------------------------ words

    def bound_words(self) -> dict[str, str]:
        return {"memory-bound": self.tr("memory"), "compute-bound": self.tr("compute")}

    def verdict(self, point: Point) -> str:
        """'memory-bound, 12% of roof' in the interface language ('' without a roof)."""
        percent = point.extra.get("percent_of_roof")
        bound = point.extra.get("bound")
        if percent is None or bound is None:
            return self.tr("no roof to compare with")
        memory = bound == "memory-bound"
        text = self.tr("memory-bound, %1% of roof") if memory else self.tr("compute-bound, %1% of roof")
        return text.replace("%1", f"{percent:.0f}")

    def traffic_words(self) -> dict[str, str]:
        return {"sectors": self.tr("no reuse"), "unique": self.tr("ideal reuse")}

    def describe_point(self, point: Point, _series: str = "") -> str:
        """The tooltip of a kernel: its name, verdict, intensity and rate (or bandwidth without FLOPs),
        its other bound and the published measurements of kernels like it."""
        entry = str(point.extra.get("entry", ""))
        traffic = self.traffic_words().get(str(point.extra.get("traffic")), "")
        if point.x > 0:
            where = self.tr("%1 FLOP/byte, %2 GFLOP/s").replace("%1", f"{point.x:.3g}").replace("%2", f"{point.y:.3g}")
        else:
            rate = f"{float(point.extra.get('attained_gb_s', 0.0)):.0f}"
            where = self.tr("no floating-point work; %1 GB/s").replace("%1", rate)
        lines = [f"{entry} ({traffic}): {self.verdict(point)}" if traffic else f"{entry}: {self.verdict(point)}", where]
        other = self.traffic_words().get(str(point.extra.get("other_traffic")))
        if other and point.extra.get("other_intensity"):
            lines.append(self.tr("with %1: %2 FLOP/byte, %3 GFLOP/s").replace("%1", other)
                         .replace("%2", f"{float(point.extra['other_intensity']):.3g}")
                         .replace("%3", f"{float(point.extra['other_gflop_s']):.3g}"))  # fmt: skip
        for item in point.extra.get("published") or ():
            lines.append(self.tr("published, a kernel like it: %1 GFLOP/s on the %2, %3% of its fp32 peak")
                         .replace("%1", f"{item['gflop_s']:.0f}").replace("%2", str(item["gpu"]))
                         .replace("%3", f"{item['percent_of_peak']:.1f}"))  # fmt: skip
        lines.append(self.tr("Click to open it in the warp visualizer."))
        return "\n".join(lines)

    # ------------------------------------------------------------ drawing a result

    def decorate(self, result: Result) -> None:
        super().decorate(result)
        for series in result.series:
            ridge = next((p for p in series.points if p.extra.get("part") == "ridge"), None)
            if ridge is None:
                continue
            self.plot.mark_ridge(ridge.x, ridge.y, self.tr("ridge %1").replace("%1", f"{ridge.x:.3g}"))
            if series.name in self.plot.curves:
                peak, bandwidth = ridge.extra["peak_gflop_s"], ridge.extra["bandwidth_gb_s"]
                self.plot.set_series_note(series.name, f"{rate_text(peak, 'FLOP/s')}, {rate_text(bandwidth, 'B/s')}")
        for pair in self.plot.pair_series:  # the kernels' legend entry says what the hollow dots are
            owner, points = self.plot.owner_of(pair), self.plot.placed_points(pair)
            if owner is not None and points:
                traffic = self.traffic_words().get(str(points[0].extra.get("traffic")), "")
                self.plot.set_series_note(owner, self.tr("○ %1").replace("%1", traffic))
        self.plot.place_labels()  # clear of the ridges' words now drawn
        self._show_verdicts(result)

    def _show_verdicts(self, result: Result) -> None:
        series = kernel_series(result)
        if series is None:
            self.verdicts.tree.clear()
            return
        points = list(series.points)
        tooltips = {str(p.extra["entry"]): self.describe_point(p) for p in points}
        self.verdicts.show_points(points, self.bound_words(), tooltips)
        self.view_splitter.arrange()  # the new rows may want another width
        traffic = self.traffic_words().get(str(result.params.get("traffic")), "")
        kind = kind_label(series.provenance.kind).lower()
        self.verdicts.caption.setText(self.tr("Kernels on %1 (%2, %3):").replace("%1", series.provenance.device)
                                      .replace("%2", kind).replace("%3", traffic))  # fmt: skip

    # ------------------------------------------------------------ into the warp visualizer

    def open_kernel(self, entry: str, preset: str = "") -> None:
        self.services.navigator.open_kernel(entry, preset)

    def _row_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        self.open_kernel(str(item.data(0, ENTRY_ROLE)), str(item.data(0, PRESET_ROLE) or ""))
