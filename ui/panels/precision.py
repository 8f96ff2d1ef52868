"""The mixed-precision lab: one matmul in seven number formats, speed beside accuracy.

The chart puts each format at its own place on x (FP64 … FP8 E5M2) and its throughput on a log
axis: the modelled spec-sheet GPU, a measured local GPU and this CPU's numpy, as points (no
lines: the formats are categories, not a sweep). The error series has another unit, so it is
not drawn there: the table beside the chart gives, per format, the GPU's TFLOP/s with the
badge word of where it comes from, its percentage of the spec-sheet peak, the error against
FP64 and the memory A, B and C take.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QTreeWidgetItem, QWidget

from gpulab.experiments.precision import FORMAT_ORDER, format_name, position, short_name
from gpulab.results import Point, Result
from ui.panels.lab_panel import LabPanel
from ui.widgets.badge import BADGE_COLOURS, kind_label
from ui.widgets.captioned_tree import CaptionedTree, ChartAndTable
from ui.widgets.live_plot import LivePlot

COLUMNS = 6  # format, TFLOP/s, source, percent of peak, error, memory
ERROR_LABEL_KEY = "series.precision.error"


def format_tick(x: float) -> str:
    """The x tick of a format's place, one short word: 4 -> 'FP16', 6 -> 'FP8', 7 -> 'E5M2' (the table
    says 'FP8 E4M3' and 'FP8 E5M2')."""
    index = round(x) - 1
    return short_name(FORMAT_ORDER[index]) if 0 <= index < len(FORMAT_ORDER) else ""


def is_error_point(point: Point) -> bool:
    """Error points (relative error, no unit) carry the format's unit roundoff; rates do not."""
    return "unit_roundoff" in point.extra


def tflops_text(gflop_s: float) -> str:
    """A rate in TFLOP/s as the table writes it: 1979, 67.0, 0.037."""
    tflop_s = gflop_s / 1e3
    return f"{tflop_s:.0f}" if tflop_s >= 100 else f"{tflop_s:.3g}"


def bytes_text(count: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            value = count / scale
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.2g} {unit}"
    return f"{count:.0f} B"


class PrecisionPlot(LivePlot):
    """Throughput per format as unconnected points on a log axis; error points are left out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, log_x=False, log_y=True, x_text=format_tick)
        self.hidden: set[str] = set()

    def add_point(self, series: str, point: Point) -> None:
        if is_error_point(point):
            self.hidden.add(str(series))
            return
        super().add_point(series, point)

    def set_kind(self, series: str, kind: str) -> None:
        # A running job names its series' kind before their first point: the error series by its label.
        message = getattr(series, "message", None)
        if message is not None and message.key == ERROR_LABEL_KEY:
            self.hidden.add(str(series))
        if str(series) not in self.hidden:
            super().set_kind(series, kind)

    def _fit_to_points(self) -> None:
        super()._fit_to_points()
        if self.size_ticks:  # every format's slot, whichever ran: the six places never move
            self.setXRange(0.4, len(FORMAT_ORDER) + 0.6, padding=0)

    def _place_size_ticks(self) -> None:
        # Seven short names fit side by side at any size the panel is shown: never thinned.
        self.getPlotItem().getAxis("bottom").setTicks([[(position(d), format_tick(position(d)))
                                                        for d in FORMAT_ORDER], []])  # fmt: skip

    def label_series(self, result: Result) -> None:
        super().label_series(result)
        self.setLabel("bottom", "")  # the ticks name the formats; the engine's long axis title would repeat them

    def clear_series(self) -> None:
        self.hidden.clear()
        super().clear_series()

    def _style_curve(self, series: str) -> None:
        super()._style_curve(series)
        curve = self.curves[series]
        pen = QPen(curve.opts["pen"])  # keep its colour for the legend; draw no line between formats
        pen.setStyle(Qt.PenStyle.NoPen)
        curve.setPen(pen)
        curve.setSymbolSize(14 if self.kinds.get(series) == "modelled" else 12)


class FormatTable(CaptionedTree):
    """A caption and one row per format: TFLOP/s, where it comes from, percent of peak, error, memory."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(COLUMNS, parent)

    def set_rows(self, rows: list[tuple[list[str], str, str]]) -> None:
        """Rows of (six cell texts, provenance kind of the rate, tooltip)."""
        self.tree.clear()
        for cells, kind, tooltip in rows:
            item = QTreeWidgetItem(cells)
            for index in range(COLUMNS):
                item.setToolTip(index, tooltip)
                if index:
                    item.setTextAlignment(index, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if kind:  # the source cell is a badge: its colour and its word
                background, text = BADGE_COLOURS.get(kind, BADGE_COLOURS["none"])
                item.setBackground(2, QBrush(QColor(background)))
                item.setForeground(2, QBrush(QColor(text)))
                item.setTextAlignment(2, Qt.AlignmentFlag.AlignCenter)
            self.tree.addTopLevelItem(item)

    def preferred_height(self) -> int:
        """Room for the caption, the header and six rows (a row is as tall as the type makes it)."""
        tree = self.tree
        row = tree.sizeHintForRow(0) if tree.topLevelItemCount() else self.fontMetrics().height() + 6
        scrollbar = tree.horizontalScrollBar().sizeHint().height()
        body = tree.header().sizeHint().height() + len(FORMAT_ORDER) * row + 2 * tree.frameWidth() + scrollbar
        return self.caption.sizeHint().height() + body + 4

    def preferred_width(self) -> int:
        """Room for every column whole: its widest cell or its header, whichever is wider."""
        header = self.tree.header()
        widths = [max(self.tree.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in range(COLUMNS)]
        return sum(widths) + 2 * self.tree.frameWidth() + 2 * self.fontMetrics().averageCharWidth()


class PrecisionPanel(LabPanel):
    """How fast and how accurate each number format is, side by side."""

    EXPERIMENT = "precision"
    LEFT_OUT_FIELDS = ("repeats",)  # they keep their default: one row less in projector type

    def make_plot(self) -> LivePlot:
        return PrecisionPlot()

    def make_view(self) -> QWidget:
        self.table = FormatTable()
        self.view_splitter = ChartAndTable(
            self.plot_column(notes=True), self.table, least_chars=120,
            table_width=lambda total: min(self.table.preferred_width(), int(0.5 * total)),
            table_height=lambda total: min(self.table.preferred_height(), int(0.5 * total)),
            on_narrow=lambda: self.notes.set_lines(2))  # the chart and the table first; the notes scroll  # fmt: skip
        return self.view_splitter

    def retranslate(self) -> None:
        error = self.tr("Error (%1)").replace("%1", kind_label("emulated"))  # computed here, unlike the rates
        self.table.tree.setHeaderLabels([self.tr("Format"), self.tr("TFLOP/s"), self.tr("Source"),
                                         self.tr("Of peak"), error, self.tr("Memory")])  # fmt: skip
        header = self.table.tree.headerItem()
        header.setToolTip(1, self.tr("GPU throughput: measured on this GPU where it ran, else modelled"))
        header.setToolTip(3, self.tr("Percent of the spec-sheet peak of this format"))
        header.setToolTip(4, self.tr("Relative error of C against FP64, computed on this CPU"))
        header.setToolTip(5, self.tr("Bytes of A, B and C at the GPU size"))
        if self.last_result is None:
            self.table.caption.setText(self.tr("Run the lab to compare the formats."))
        super().retranslate()

    def forget_run(self) -> None:
        super().forget_run()
        self.table.tree.clear()
        self.table.caption.setText(self.tr("Run the lab to compare the formats."))

    # ------------------------------------------------------------ drawing a result

    def decorate(self, result: Result) -> None:
        super().decorate(result)
        rates = {key: _by_dtype(result, key) for key in ("gpu-cublas", "model", "cpu-numpy", "error")}
        rows = [self._row(dtype, rates) for dtype in FORMAT_ORDER if any(dtype in r for r in rates.values())]
        self.table.set_rows(rows)
        self.table.caption.setText(self._caption(result))
        self.view_splitter.arrange()  # the new rows may want another width

    def _caption(self, result: Result) -> str:
        gpu = result.get_series("gpu-cublas") or result.get_series("model")
        where = gpu.provenance.device if gpu is not None else "–"
        size = result.params.get("gpu_size", "")
        return self.tr("GPU: %1, N = %2").replace("%1", str(where)).replace("%2", str(size))

    def _row(self, dtype: str, rates: dict[str, dict[str, Point]]) -> tuple[list[str], str, str]:
        measured, modelled = rates["gpu-cublas"].get(dtype), rates["model"].get(dtype)
        rate, kind = (measured, "measured") if measured is not None else (modelled, "modelled")
        error = rates["error"].get(dtype)
        cells = [format_name(dtype), "–", "–", "–", "–", "–"]
        if rate is not None:
            cells[1] = tflops_text(rate.y)
            cells[2] = kind_label(kind)
            percent = rate.extra.get("percent_of_peak")
            cells[3] = f"{percent:.0f}%" if percent is not None else "–"
            cells[5] = bytes_text(float(rate.extra["footprint_bytes"]))
        if error is not None:
            cells[4] = f"{error.y:.1e}"
        return cells, kind if rate is not None else "", self._tooltip(dtype, rates, error)

    def _tooltip(self, dtype: str, rates: dict[str, dict[str, Point]], error: Point | None) -> str:
        lines = [format_name(dtype)]
        if error is not None:
            lines.append(self.tr("error %1 at N = %2 (unit roundoff %3); worst entry %4")
                         .replace("%1", f"{error.y:.2e}").replace("%2", str(error.extra["n"]))
                         .replace("%3", f"{error.extra['unit_roundoff']:.1e}")
                         .replace("%4", f"{error.extra['componentwise_max']:.1e}"))  # fmt: skip
        cpu = rates["cpu-numpy"].get(dtype)
        if cpu is not None:
            lines.append(self.tr("numpy on this CPU: %1 GFLOP/s at N = %2")
                         .replace("%1", f"{cpu.y:.3g}").replace("%2", str(cpu.extra["n"])))  # fmt: skip
        model = rates["model"].get(dtype)
        if model is not None:
            lines.append(self.tr("modelled: %1 TFLOP/s (peak %2)").replace("%1", f"{model.y / 1e3:.3g}")
                         .replace("%2", f"{model.extra['peak_gflop_s'] / 1e3:.4g}"))  # fmt: skip
            if "cuda_core_gflop_s" in model.extra:
                lines.append(self.tr("without tensor cores (CUDA cores): %1 TFLOP/s")
                             .replace("%1", f"{model.extra['cuda_core_gflop_s'] / 1e3:.4g}"))  # fmt: skip
        return "\n".join(lines)


def _by_dtype(result: Result, key: str) -> dict[str, Point]:
    series = result.get_series(key)
    return {str(p.extra["dtype"]): p for p in series.points} if series is not None else {}
