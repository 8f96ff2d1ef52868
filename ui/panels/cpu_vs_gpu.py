"""The CPU-vs-GPU panel: matmul or vector add, size by size, CPU against a real or modelled GPU.

Curves grow point by point on log-log plots (throughput, and time in ms); a modelled series
is dashed with hollow triangles and a MODELLED badge, never drawn like a measurement. The race
tab replays one size with bars filling at a common time scale; the monitor strip underneath
shows what the machine is doing while the sweep runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpulab import experiments
from gpulab.devices import DeviceReport
from gpulab.measure import best_series, crossover
from gpulab.results import Point, Result
from ui.i18n import engine_message, engine_messages, engine_text, localized
from ui.jobs import Job, plain_error
from ui.panels.base import Panel
from ui.services import Services
from ui.theme import current_theme, curve_pen, style_plot
from ui.widgets.badge import ProvenanceBadge, kind_label, weakest_kind
from ui.widgets.export import ExportButton, export_csv, export_json, export_plot_png, export_plot_svg, with_suffix_stem
from ui.widgets.live_plot import PlotPlaceholder
from ui.widgets.monitor import MonitorStrip
from ui.widgets.race import Lane, RaceView

REDRAW_MS = 100
DEFAULT_MODEL_GPU = "h100-sxm"


@dataclass
class SeriesView:
    """What the panel draws for one series: its two curves and the points so far."""

    index: int
    kind: str
    rate_curve: pg.PlotDataItem
    time_curve: pg.PlotDataItem
    points: list[Point]


def size_text(n: int) -> str:
    """1024 -> '1024', 1048576 -> '2^20' (vector sizes are easier to read as powers)."""
    if n >= 1 << 14 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def _log_plot() -> pg.PlotWidget:
    plot = pg.PlotWidget()
    legend = plot.addLegend(offset=(10, 10))
    legend.setVisible(False)  # on screen the series box shows names and badges; exports show the legend
    plot.setLogMode(x=True, y=True)
    plot.setMinimumSize(280, 200)
    style_plot(plot)
    return plot


def lane_parts(point: Point) -> tuple[tuple[str, float], ...]:
    """Copy in, compute, copy out of a GPU point whose copies were timed or modelled; else ()."""
    extra = point.extra
    if not extra.get("h2d_seconds") and not extra.get("d2h_seconds"):
        return ()
    compute = float(extra.get("kernel_seconds", 0.0)) + float(extra.get("launch_seconds", 0.0))
    parts = (
        ("h2d", float(extra.get("h2d_seconds", 0.0))),
        ("kernel", compute),
        ("d2h", float(extra.get("d2h_seconds", 0.0))),
    )
    total = sum(seconds for _part, seconds in parts)
    scale = float(extra["seconds"]) / total if total > 0 else 0.0  # medians of parts need not add up exactly
    return tuple((part, seconds * scale) for part, seconds in parts)


@contextmanager
def legends_shown(*plots: pg.PlotWidget) -> Iterator[None]:
    """Show the plots' legends for the duration (an exported picture must name its curves)."""
    legends = [p.getPlotItem().legend for p in plots if p.getPlotItem().legend is not None]
    for legend in legends:
        legend.setVisible(True)
    try:
        yield
    finally:
        for legend in legends:
            legend.setVisible(False)


def series_pen(index: int, kind: str) -> Any:
    pen = curve_pen(index)
    if kind == "modelled":
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class CpuVsGpuPanel(Panel):
    """Controls on the left; curves, time and race tabs on the right; the monitor strip below."""

    def __init__(self, services: Services, parent: QWidget | None = None, monitor: MonitorStrip | None = None) -> None:
        super().__init__(services, parent)
        self.job: Job | None = None
        self.last_result: Result | None = None
        self.series: dict[str, SeriesView] = {}
        self.markers: list[pg.InfiniteLine] = []
        self.crossover_size: int | None = None
        self.announced_kinds: dict[str, str] = {}  # series -> provenance kind, from the engine's events
        self.monitor = monitor or MonitorStrip()
        self._dirty: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.redraw)
        self._make_controls()
        self._make_views()
        self._build_layout()
        self._fill_model_gpus()
        self._experiment_chosen()
        services.devices.report_changed.connect(self._report_changed)
        self.retranslate()

    # ------------------------------------------------------------ building

    def _make_controls(self) -> None:
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.experiment_combo = QComboBox()
        self.experiment_combo.addItem("", "matmul")
        self.experiment_combo.addItem("", "vector-add")
        self.experiment_combo.currentIndexChanged.connect(self._experiment_chosen)
        self.sizes_combo = QComboBox()
        self.dtype_combo = QComboBox()
        self.model_combo = QComboBox()
        for combo in (self.experiment_combo, self.sizes_combo, self.dtype_combo, self.model_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # never clipped
        self.transfers_box = QCheckBox()
        self.run_button = QPushButton()
        # clicked(bool) would hand its `checked` flag to run_sweep's params: call it with none.
        self.run_button.clicked.connect(lambda: self.run_sweep())
        self.cancel_button = QPushButton()
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_sweep)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.hide()  # shown while a sweep runs; an empty bar at rest looks like a text field
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.export_button = ExportButton()
        self.export_button.export_requested.connect(self.export)
        self.legend_box = QWidget()
        self.legend_grid = QGridLayout(self.legend_box)
        self.legend_grid.setContentsMargins(0, 0, 0, 0)
        self.legend_grid.setColumnStretch(1, 1)
        self.legend_title = QLabel()

    def _make_views(self) -> None:
        self.rate_plot = _log_plot()
        self.time_plot = _log_plot()
        self.placeholders = [PlotPlaceholder(self.rate_plot), PlotPlaceholder(self.time_plot)]
        self.race = RaceView()
        self.race_size_combo = QComboBox()
        self.race_button = QPushButton()
        self.race_button.clicked.connect(self.start_race)
        self.race_size_combo.currentIndexChanged.connect(self._race_size_chosen)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.rate_plot, "")
        self.tabs.addTab(self.time_plot, "")
        race_page = QWidget()
        race_column = QVBoxLayout(race_page)
        race_row = QHBoxLayout()
        self.race_size_label = QLabel()
        race_row.addWidget(self.race_size_label)
        race_row.addWidget(self.race_size_combo, 1)
        race_row.addWidget(self.race_button)
        race_column.addLayout(race_row)
        race_column.addWidget(self.race, 1)
        self.tabs.addTab(race_page, "")
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

    def _build_layout(self) -> None:
        self.form = QFormLayout()
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)  # labels above: room for whole choices
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.labels = {key: QLabel() for key in ("experiment", "sizes", "dtype", "model")}
        self.form.addRow(self.labels["experiment"], self.experiment_combo)
        self.form.addRow(self.labels["sizes"], self.sizes_combo)
        self.form.addRow(self.labels["dtype"], self.dtype_combo)
        self.form.addRow(self.labels["model"], self.model_combo)
        controls = QWidget()
        column = QVBoxLayout(controls)
        column.setContentsMargins(0, 0, 4, 0)
        column.addLayout(self.form)
        column.addWidget(self.transfers_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.status)
        column.addWidget(self.export_button)
        column.addWidget(self.legend_title)
        column.addWidget(self.legend_box)
        column.addStretch(1)
        notes_scroll = QScrollArea()
        notes_scroll.setWidgetResizable(True)
        notes_scroll.setWidget(self.notes)
        notes_scroll.setMaximumHeight(72)
        notes_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        notes_scroll.hide()  # until a result has notes
        self.notes_scroll = notes_scroll
        right = QVBoxLayout()
        right.addWidget(self.tabs, 1)
        right.addWidget(notes_scroll)
        self.controls = controls
        self.controls_scroll = QScrollArea()
        self.controls_scroll.setWidget(controls)
        self.controls_scroll.setWidgetResizable(True)
        self.controls_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.controls_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        top = QHBoxLayout()
        top.addWidget(self.controls_scroll)
        top.addLayout(right, 1)
        self.monitor.setMaximumHeight(130)
        self.monitor.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(top, 1)
        layout.addWidget(self.monitor)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("CPU vs GPU: where does the GPU start to win?"))
        self.labels["experiment"].setText(self.tr("Experiment:"))
        self.labels["sizes"].setText(self.tr("Sizes:"))
        self.labels["dtype"].setText(self.tr("Data type:"))
        self.labels["model"].setText(self.tr("GPU to model:"))
        self.experiment_combo.setItemText(0, self.tr("Matrix multiply (GFLOP/s)"))
        self.experiment_combo.setItemText(1, self.tr("Vector add (GB/s)"))
        self.transfers_box.setText(self.tr("Include PCIe copies"))
        self.transfers_box.setToolTip(self.tr(
            "Count the time to copy the inputs over PCIe to the GPU and the result back to the CPU."))  # fmt: skip
        self.model_combo.setToolTip(self.tr(
            "Without a GPU, this GPU's spec sheet gives a modelled curve (dashed, labelled MODELLED)."))  # fmt: skip
        self.run_button.setText(self.tr("Run sweep"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.race_size_label.setText(self.tr("Size:"))
        self.race_button.setText(self.tr("Start race"))
        self.legend_title.setText(self.tr("Series:"))
        self._fill_sizes()
        self._label_axes()
        self._relabel_legends()
        self._show_placeholders()
        self._rebuild_legend_box()
        self._show_notes()
        self._race_size_chosen()
        self._fit_controls()  # texts of another language have other widths

    def _show_placeholders(self) -> None:
        """Before the first point: say what to do instead of showing empty axes."""
        has_points = any(view.points for view in self.series.values())
        for placeholder in self.placeholders:
            if has_points:
                placeholder.dismiss()
            else:
                placeholder.show_text(self.tr("Press Run sweep: the curves grow here, size by size."))

    def _show_notes(self) -> None:
        notes = self.last_result.notes if self.last_result is not None else ()
        self.notes.setText("\n".join(engine_messages(notes)))
        self.notes_scroll.setVisible(bool(notes))

    def _label_axes(self) -> None:
        unit = self._unit()
        x_label = self.tr("matrix size N") if self.experiment == "matmul" else self.tr("elements n")
        self.tabs.setTabText(0, unit)
        self.tabs.setTabText(1, self.tr("Time (ms)"))
        self.tabs.setTabText(2, self.tr("Race"))
        for plot, y_label in ((self.rate_plot, unit), (self.time_plot, self.tr("time (ms)"))):
            plot.setLabel("bottom", x_label)
            plot.setLabel("left", y_label)

    # ------------------------------------------------------------ choices

    @property
    def experiment(self) -> str:
        return str(self.experiment_combo.currentData() or "matmul")

    @property
    def params_type(self) -> Any:
        """The Params of the chosen experiment: its sizes' presets and dtype's choices fill the lists."""
        return experiments.get(self.experiment).Params

    def _unit(self) -> str:
        return str(experiments.get(self.experiment).AXES.y_unit)  # GFLOP/s or GB/s, as its series will say

    def _experiment_chosen(self, _index: int = 0) -> None:
        self.dtype_combo.clear()
        self.dtype_combo.addItems([str(choice) for choice in experiments.choices(self.params_type, "dtype")])
        self.dtype_combo.setEnabled(self.dtype_combo.count() > 1)
        self._fill_sizes()
        self._label_axes()
        self._fit_controls()  # the new choices may be wider

    def _fill_sizes(self) -> None:
        names = {
            "quick": self.tr("Quick"), "standard": self.tr("Standard"),
            "large": self.tr("Large"), "huge": self.tr("Huge"),
        }  # fmt: skip
        slow = self.tr("Slow on a CPU: each of the largest multiplies takes seconds.")
        current = self.sizes_combo.currentIndex()
        self.sizes_combo.blockSignals(True)
        self.sizes_combo.clear()
        for key, sizes in experiments.presets(self.params_type, "sizes"):
            text = f"{names.get(key, key)}{localized(': ', '：')}{size_text(sizes[0])} … {size_text(sizes[-1])}"
            self.sizes_combo.addItem(text, sizes)
            if key == "huge":  # the warning as a tooltip keeps the list narrow
                self.sizes_combo.setItemData(self.sizes_combo.count() - 1, slow, Qt.ItemDataRole.ToolTipRole)
        self.sizes_combo.setCurrentIndex(current if 0 <= current < self.sizes_combo.count() else 0)
        self.sizes_combo.blockSignals(False)

    def _fill_model_gpus(self) -> None:
        from gpulab.specs import load_specs

        try:
            table = load_specs()
        except Exception as exc:  # a broken spec file must not take the panel down
            self.services.notifier.error(self.tr("The GPU spec table cannot be read: %1").replace("%1", str(exc)))
            return
        for spec in table:
            self.model_combo.addItem(spec.name, spec.key)
        self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(DEFAULT_MODEL_GPU)))

    def _report_changed(self, report: DeviceReport | None) -> None:
        """With a GPU present, model that GPU by default (so the model sits beside the measurement)."""
        if report is None or not report.cuda.available or not report.cuda.devices:
            return
        from gpulab.specs import load_specs

        spec = load_specs().match(report.cuda.devices[0].name)
        if spec is not None:
            self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(spec.key)))

    def _device(self) -> str:
        report = self.services.devices.report
        if report is not None and report.cuda.available and report.cuda.devices:
            return f"cuda:{report.cuda.devices[0].index}"
        return "cpu"

    def params(self) -> Any:
        """The Params the controls describe."""
        module = experiments.get(self.experiment)
        values: dict[str, Any] = {
            "sizes": tuple(self.sizes_combo.currentData()),
            "include_transfers": self.transfers_box.isChecked(),
            "model_gpu": self.model_combo.currentData() or DEFAULT_MODEL_GPU,
        }
        if self.dtype_combo.count():
            values["dtype"] = self.dtype_combo.currentText()
        return module.Params(**values)

    # ------------------------------------------------------------ running

    def run_sweep(self, params: Any = None) -> Job | None:
        """Start a sweep (``params`` overrides the controls, for scripts and tests)."""
        if self.job is not None:
            return None
        if params is not None:
            self._show_experiment_of(params)
        module = experiments.get(self.experiment)
        params = params if params is not None else self.params()
        self.clear()
        title = engine_text(module, "TITLE")
        job = self.services.runner.submit(title, self._device(), lambda ctx: module.run(params, ctx), Result)
        self.job = job
        job.progress.connect(self._progress)
        job.series_kind.connect(self.announce_kind)
        job.partial.connect(self.add_point)
        job.finished.connect(self._finished)
        job.failed.connect(
            lambda exc: self._ended(self.tr("Failed: %1").replace("%1", engine_message(plain_error(exc))))
        )
        job.cancelled.connect(lambda: self._ended(self.tr("Cancelled.")))
        self.status.setText(self.tr("Waiting for the device to be free…"))
        self._set_running(True)
        return job

    def _show_experiment_of(self, params: Any) -> None:
        """Switch the experiment list to the experiment whose Params ``params`` are."""
        for index in range(self.experiment_combo.count()):
            if isinstance(params, experiments.get(self.experiment_combo.itemData(index)).Params):
                self.experiment_combo.setCurrentIndex(index)
                return
        raise ValueError(f"{type(params).__name__} belongs to no experiment of this panel")

    def cancel_sweep(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.status.setText(self.tr("Cancelling…"))

    def _progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(fraction * 1000))
        self.status.setText(engine_message(message))

    def _finished(self, result: Result) -> None:
        self.last_result = result
        for series in result.series:
            view = self.series.get(series.name)
            if view is not None and view.kind != series.provenance.kind:
                view.kind = series.provenance.kind
                self._style_series(series.name)
        self.redraw()
        self._relabel_legends()
        self._rebuild_legend_box()
        self._mark_crossover(result)
        self._show_notes()
        self.set_provenance(weakest_kind(s.provenance.kind for s in result.series))
        self._ended(self.tr("Done."))

    def _ended(self, message: str) -> None:
        self.redraw()
        self.status.setText(message)
        self.job = None
        self._set_running(False)
        self._fill_race_sizes()

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        for widget in (self.experiment_combo, self.sizes_combo, self.dtype_combo, self.model_combo,
                       self.transfers_box):  # fmt: skip
            widget.setEnabled(not running and (widget is not self.dtype_combo or widget.count() > 1))

    # ------------------------------------------------------------ curves

    def clear(self) -> None:
        self.last_result = None
        for plot in (self.rate_plot, self.time_plot):
            plot.getPlotItem().clear()
        self.series.clear()
        self.markers.clear()
        self.crossover_size = None
        self._dirty.clear()
        self.announced_kinds.clear()
        self._show_notes()
        self._show_placeholders()
        self.progress.setValue(0)
        self.race.set_lanes([])
        self.race_size_combo.clear()
        self._rebuild_legend_box()
        self._label_axes()

    def add_point(self, name: str, point: Point) -> None:
        """A new point of series ``name``: stored now, drawn at the next redraw tick."""
        if name not in self.series:
            kind = self.announced_kinds.get(name) or str(point.extra.get("kind", "measured"))
            self._new_series(name, kind)
        self.series[name].points.append(point)
        for placeholder in self.placeholders:
            placeholder.dismiss()
        self._dirty.add(name)
        if not self._timer.isActive():
            self._timer.start()

    def announce_kind(self, name: str, kind: str) -> None:
        """The engine said what kind of numbers series ``name`` holds (before or with its first point)."""
        self.announced_kinds[name] = kind
        view = self.series.get(name)
        if view is not None and view.kind != kind:
            view.kind = kind
            self._style_series(name)
            self._relabel_legends()
            self._rebuild_legend_box()

    def _new_series(self, name: str, kind: str) -> None:
        index = len(self.series)
        rate = self.rate_plot.plot([], [], name=name)
        time_curve = self.time_plot.plot([], [], name=name)
        self.series[name] = SeriesView(index, kind, rate, time_curve, [])
        self._style_series(name)
        self._relabel_legends()
        self._rebuild_legend_box()

    def _style_series(self, name: str) -> None:
        view = self.series[name]
        pen = series_pen(view.index, view.kind)
        modelled = view.kind == "modelled"
        for curve in (view.rate_curve, view.time_curve):
            curve.setPen(pen)
            curve.setSymbol("t" if modelled else "o")
            curve.setSymbolSize(9 if modelled else 7)
            curve.setSymbolPen(pen.color())
            curve.setSymbolBrush(None if modelled else pen.color())

    def redraw(self) -> None:
        if not self._dirty:
            self._timer.stop()
            return
        for name in self._dirty:
            view = self.series[name]
            xs = [float(p.x) for p in view.points]
            view.rate_curve.setData(xs, [float(p.y) for p in view.points])
            view.time_curve.setData(xs, [float(p.extra.get("seconds", math.nan)) * 1e3 for p in view.points])
        self._dirty.clear()
        self._fit_views()

    def _fit_views(self) -> None:
        """Ticks at the sizes run; room above the curves for the legend (log10 view coordinates)."""
        sizes = sorted({float(p.x) for view in self.series.values() for p in view.points if p.x > 0})
        if not sizes:
            return
        ticks = [(math.log10(x), size_text(int(x))) for x in sizes]
        x_low, x_high = math.log10(sizes[0]), math.log10(sizes[-1])
        x_pad = max(0.12, 0.06 * (x_high - x_low))
        rates = [p.y for v in self.series.values() for p in v.points]
        times = [p.extra.get("seconds", 0) * 1e3 for v in self.series.values() for p in v.points]
        for plot, values in ((self.rate_plot, rates), (self.time_plot, times)):
            plot.getPlotItem().getAxis("bottom").setTicks([ticks, []])
            logs = [math.log10(v) for v in values if v and v > 0]
            if not logs:
                continue
            low, high = min(logs), max(logs)
            span = max(high - low, 0.5)
            plot.setRange(xRange=(x_low - x_pad, x_high + x_pad), yRange=(low - 0.08 * span, high + 0.15 * span),
                          padding=0)  # fmt: skip

    def _relabel_legends(self) -> None:
        for plot in (self.rate_plot, self.time_plot):
            legend = plot.getPlotItem().legend
            if legend is None:
                continue
            for sample, label in legend.items:
                view = next((v for n, v in self.series.items() if sample.item in (v.rate_curve, v.time_curve)), None)
                name = next((n for n, v in self.series.items() if v is view), None)
                if view is not None and name is not None:
                    label.setText(f"{engine_message(name)} — {kind_label(view.kind)}")

    def _rebuild_legend_box(self) -> None:
        while self.legend_grid.count():
            item = self.legend_grid.takeAt(0)
            widget = item.widget()
            if widget is not None:
                widget.setParent(None)  # gone from the box at once, not at the next event loop turn
                widget.deleteLater()
        theme = current_theme()
        for row, (name, view) in enumerate(self.series.items()):
            colour = theme.curve_colors[view.index % len(theme.curve_colors)]
            swatch = QLabel("╍╍" if view.kind == "modelled" else "━━")
            swatch.setStyleSheet(f"color: {colour}; font-weight: bold;")
            label = QLabel(engine_message(name))
            label.setWordWrap(True)
            badge = ProvenanceBadge(view.kind)
            self.legend_grid.addWidget(swatch, 2 * row, 0)
            self.legend_grid.addWidget(label, 2 * row, 1)
            self.legend_grid.addWidget(badge, 2 * row + 1, 1, Qt.AlignmentFlag.AlignLeft)

    def _mark_crossover(self, result: Result) -> None:
        cpu_names = [s.name for s in result.series if s.role == "cpu"]
        gpu_names = [s.name for s in result.series if s.role in ("gpu", "model")]
        cpu = best_series(result, cpu_names)
        measured = [n for n in gpu_names if self.series.get(n) and self.series[n].kind == "measured"]
        gpu = (measured or gpu_names or [None])[0]
        if cpu is None or gpu is None:
            return
        size = crossover(result, gpu, cpu)
        if size is None:
            return
        text = self.tr("GPU wins from %1").replace("%1", size_text(size))
        for plot in (self.rate_plot, self.time_plot):
            line = pg.InfiniteLine(pos=math.log10(size), angle=90, movable=False, label=text,
                                   labelOpts={"position": 0.1})  # fmt: skip
            plot.addItem(line, ignoreBounds=True)
            self.markers.append(line)
        self._style_markers()
        self.crossover_size = size

    def _style_markers(self) -> None:
        """The crossover line and its label in the theme's text colour and type size, on an opaque box."""
        theme = current_theme()
        font = QFont()
        font.setPointSize(theme.font_pt)
        font.setBold(True)
        for line in self.markers:
            line.setPen(pg.mkPen(theme.text, width=max(2, theme.line_width // 2 + 1), style=Qt.PenStyle.DotLine))
            line.label.setColor(theme.text)
            line.label.fill = pg.mkBrush(theme.base)
            line.label.border = pg.mkPen(theme.text)
            line.label.setFont(font)
            line.label.update()

    # ------------------------------------------------------------ race

    def _fill_race_sizes(self) -> None:
        sizes = sorted({p.x for view in self.series.values() for p in view.points})
        self.race_size_combo.blockSignals(True)
        self.race_size_combo.clear()
        for x in sizes:
            self.race_size_combo.addItem(size_text(int(x)), x)
        self.race_size_combo.setCurrentIndex(len(sizes) - 1)
        self.race_size_combo.blockSignals(False)
        self._race_size_chosen()

    def race_lanes(self, size: float) -> list[Lane]:
        theme = current_theme()
        lanes = []
        for name, view in self.series.items():
            point = next((p for p in view.points if p.x == size), None)
            if point is not None and point.extra.get("seconds"):
                colour = theme.curve_colors[view.index % len(theme.curve_colors)]
                label = engine_message(name)
                lanes.append(Lane(label, float(point.extra["seconds"]), view.kind, colour, lane_parts(point)))
        return lanes

    def _race_size_chosen(self, _index: int = 0) -> None:
        size = self.race_size_combo.currentData()
        if size is None:
            self.race.set_lanes([])
            return
        title = self.tr("One multiply at N = %1") if self.experiment == "matmul" else self.tr("One add of n = %1")
        self.race.set_lanes(self.race_lanes(size), title.replace("%1", size_text(int(size))))

    def start_race(self) -> None:
        self.tabs.setCurrentIndex(2)
        self.race.start()

    # ------------------------------------------------------------ export

    def export(self, fmt: str, path: str) -> list[str]:
        """Write the plots (png, svg: throughput to ``path``, time beside it) or the result (csv, json)."""
        written: list[str] = []
        try:
            if fmt in ("png", "svg"):
                write = export_plot_png if fmt == "png" else export_plot_svg
                written = [
                    str(write(self.rate_plot, path)),
                    str(write(self.time_plot, with_suffix_stem(path, "-time"))),
                ]
            elif self.last_result is None:
                self.services.notifier.warning(self.tr("Nothing to save yet: run a sweep to the end first."))
            else:
                write_result = export_csv if fmt == "csv" else export_json
                written = [str(write_result(self.last_result, path))]
        except OSError as exc:
            self.services.notifier.error(self.tr("Could not save %1: %2").replace("%1", path).replace("%2", str(exc)))
            return []
        if written:
            self.services.notifier.info(self.tr("Saved %1").replace("%1", ", ".join(written)))
        return written

    # ------------------------------------------------------------ theme

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            QTimer.singleShot(0, self, self._restyle)  # after the theme has restyled every plot
        super().changeEvent(event)

    def _fit_controls(self) -> None:
        """The controls column as wide as its widgets need in this theme (it scrolls vertically only)."""
        self.controls.adjustSize()
        scrollbar = self.controls_scroll.verticalScrollBar().sizeHint().width()
        # A combo box's size hint can be a few pixels short of its widest text (CJK punctuation, large type).
        slack = 2 * self.fontMetrics().averageCharWidth()
        self.controls_scroll.setFixedWidth(self.controls.layout().sizeHint().width() + scrollbar + slack)

    def showEvent(self, event: QShowEvent) -> None:
        self._fit_controls()
        self._fit_monitor()
        super().showEvent(event)

    def _fit_monitor(self) -> None:
        """Room for the monitor's title, a readable plot and two lines of reason, in this theme's type."""
        self.monitor.setMaximumHeight(max(130, 6 * self.fontMetrics().height()))

    def _restyle(self) -> None:
        self._fit_controls()
        self._fit_monitor()
        for name in self.series:
            self._style_series(name)
        self._rebuild_legend_box()
        self._style_markers()
        for placeholder in self.placeholders:
            placeholder.restyle()
        self.race.update()
