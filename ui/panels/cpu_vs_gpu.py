"""The CPU-vs-GPU panel: matmul or vector add, size by size, CPU against a real or modelled GPU.

Curves grow point by point on two log-log :class:`LivePlot` views (throughput, and time in ms);
a modelled series is dashed with hollow triangles and a MODELLED badge, never drawn like a
measurement. The race tab replays one size with bars filling at a common time scale; the
monitor strip underneath shows what the machine is doing while the sweep runs. The choices
(:class:`SweepControls`), the run column (:class:`RunControls`), the series column
(:class:`SeriesList`) and the race (:class:`RaceTab`) are widgets of their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QTabWidget, QVBoxLayout, QWidget

from gpulab import experiments
from gpulab.devices import DeviceReport
from gpulab.measure import best_series, crossover
from gpulab.results import Point, Result
from ui.i18n import engine_message, engine_messages, engine_text
from ui.jobs import Job
from ui.panels.base import Panel
from ui.panels.cpu_vs_gpu_controls import SweepControls
from ui.panels.cpu_vs_gpu_race import RaceTab
from ui.services import Services
from ui.widgets.badge import kind_label, weakest_kind
from ui.widgets.export import (
    Caption,
    ExportButton,
    caption_of,
    export_picture,
    save_export,
    with_suffix_stem,
)
from ui.widgets.live_plot import LivePlot, PlotPlaceholder, series_title
from ui.widgets.monitor import MonitorStrip
from ui.widgets.notes_box import NotesBox, lines_for
from ui.widgets.params_form import size_text
from ui.widgets.run_controls import RunControls
from ui.widgets.series_list import SeriesList
from ui.widgets.validation_view import ValidationButton, heading_row

RACE_TAB = 2


@dataclass(frozen=True)
class SeriesView:
    """One series as the panel shows it: its curve on each plot, its kind and its points so far."""

    kind: str
    rate_curve: pg.PlotDataItem
    time_curve: pg.PlotDataItem
    points: list[Point]


def _sweep_plot(**options: Any) -> LivePlot:
    plot = LivePlot(log_x=True, log_y=True, x_text=size_text, **options)
    legend = plot.addLegend(offset=(10, 10))
    legend.setVisible(False)  # on screen the series column names the curves; exports show the legend
    plot.setMinimumSize(280, 200)
    return plot


class CpuVsGpuPanel(Panel):
    """Choices and the run column on the left; rate, time and race tabs on the right; the monitor below."""

    def __init__(self, services: Services, parent: QWidget | None = None, monitor: MonitorStrip | None = None) -> None:
        super().__init__(services, parent)
        self.last_result: Result | None = None
        self.crossover_size: int | None = None
        self.crossover_kind = ""  # the kind of the GPU series the crossover marker is drawn for
        self.monitor = monitor or MonitorStrip()
        self._make_widgets()
        self._build_layout()
        self.choices.spec_table_failed.connect(self._spec_table_failed)
        self.choices.fill_model_gpus()
        self.choices.experiment_changed.connect(self._experiment_chosen)
        services.devices.report_changed.connect(self.choices.model_gpu_of)
        self.retranslate()

    # ------------------------------------------------------------ building

    def _make_widgets(self) -> None:
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.choices = SweepControls()
        self.run_controls = RunControls(lambda: self.tr("Run sweep"))
        self.run_controls.run_clicked.connect(self.run_sweep)
        self.run_controls.run_by_keys(self)
        self.run_controls.lock_while_running(self.choices.inputs(), self.choices.usable_when_idle)
        self.run_controls.ended.connect(lambda _state: self.race_tab.refill(self.choices.experiment))
        self.export_button = ExportButton()
        self.export_button.export_requested.connect(self.export)
        self.export_button.setEnabled(False)  # until a sweep has finished: nothing to export before
        self.validation_button = ValidationButton(self.choices.experiment, self._lab_title, self.services.runner)
        self.rate_plot = _sweep_plot()
        self.time_plot = _sweep_plot(y_of=lambda point: float(point.extra.get("seconds", math.nan)) * 1e3)
        self.placeholders = [PlotPlaceholder(self.rate_plot), PlotPlaceholder(self.time_plot)]
        self.legend_title = QLabel()
        self.legend_box = SeriesList(self.rate_plot)
        # A folded column fits its series: measured once the list's new rows have their type (next turn)
        self.rate_plot.legend_changed.connect(lambda: QTimer.singleShot(0, self, self._fit_controls))
        self.race_tab = RaceTab(self.rate_plot)
        self.tabs = QTabWidget()
        for page in (self.rate_plot, self.time_plot, self.race_tab):
            self.tabs.addTab(page, "")
        self.race_tab.start_button.clicked.connect(lambda: self.tabs.setCurrentIndex(RACE_TAB))
        self.notes = NotesBox(lines=4)  # whole lines only; the rest scrolls a line at a time
        # The widgets by the names scripts and tests know them.
        for name in ("experiment_combo", "sizes_combo", "dtype_combo", "model_combo", "transfers_box"):
            setattr(self, name, getattr(self.choices, name))
        self.run_button, self.cancel_button = self.run_controls.run_button, self.run_controls.cancel_button
        self.progress, self.status = self.run_controls.progress, self.run_controls.status
        self.race, self.race_size_combo = self.race_tab.race, self.race_tab.size_combo
        self.race_button = self.race_tab.start_button

    def _build_layout(self) -> None:
        controls = QWidget()
        column = QVBoxLayout(controls)
        column.setContentsMargins(0, 0, 4, 0)
        for widget in (self.choices, self.run_controls, self.export_button, self.legend_title, self.legend_box):
            column.addWidget(widget)
        column.addStretch(1)
        self.notes.hide()  # until a result has notes
        right = QVBoxLayout()
        right.addWidget(self.tabs, 1)
        right.addWidget(self.notes)
        self.controls = controls
        self.controls_scroll = QScrollArea()
        self.controls_scroll.setWidget(controls)
        self.controls_scroll.setWidgetResizable(True)
        self.controls_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.controls_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        # As tall as its plots need for their ticks in this type, no taller: the room is the sweep's.
        self.monitor.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        right.addWidget(self.monitor)  # under the plot, so the controls run the panel's whole height
        top = QHBoxLayout()
        top.addWidget(self.controls_scroll)
        top.addLayout(right, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(heading_row(self.heading, self.validation_button))
        layout.addLayout(top, 1)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("CPU vs GPU: where does the GPU start to win?"))
        self.legend_title.setText(self.tr("Series:"))
        self.choices.retranslate()
        self._label_axes()
        self._label_legends()
        self._label_markers()
        self._show_placeholders()
        self._show_notes()
        self._fit_controls()  # texts of another language have other widths

    def _show_placeholders(self) -> None:
        """Before the first point: say what to do instead of showing empty axes."""
        for placeholder in self.placeholders:
            if self.rate_plot.curves:
                placeholder.dismiss()
            else:
                placeholder.show_text(self.tr("Press Run sweep: the curves grow here, size by size."))

    def _show_notes(self) -> None:
        notes = self.last_result.notes if self.last_result is not None else ()
        self.notes.setText("\n".join(engine_messages(notes)))
        self.notes.setVisible(bool(notes))

    def _label_axes(self) -> None:
        axes = experiments.get(self.choices.experiment).AXES
        unit = str(axes.y_unit)  # GFLOP/s or GB/s, as its series will say
        self.tabs.setTabText(0, unit)
        self.tabs.setTabText(1, self.tr("Time (ms)"))
        self.tabs.setTabText(2, self.tr("Race"))
        for plot, y_label in ((self.rate_plot, unit), (self.time_plot, self.tr("time (ms)"))):
            plot.setLabel("bottom", engine_message(axes.x_label))
            plot.setLabel("left", y_label)

    def _label_legends(self) -> None:
        """The exported legends: each series' name and kind, in the interface language."""
        for plot in (self.rate_plot, self.time_plot):
            names = {curve: name for name, curve in plot.curves.items()}
            for sample, label in plot.getPlotItem().legend.items:
                name = names.get(sample.item)
                if name is not None:
                    kind = plot.kinds.get(name, "")
                    label.setText(f"{series_title(name, kind)} — {kind_label(kind)}" if kind else engine_message(name))

    # ------------------------------------------------------------ the views the tests and scripts read

    @property
    def job(self) -> Job | None:
        return self.run_controls.job

    @property
    def series(self) -> dict[str, SeriesView]:
        """Each series by its engine name: its kind, its two curves and its points so far."""
        plots = self.rate_plot, self.time_plot
        return {
            name: SeriesView(plots[0].kinds.get(name, "measured"), plots[0].curves[name], plots[1].curves[name],
                             plots[0].points_of(name))
            for name in plots[0].curves
        }  # fmt: skip

    @property
    def markers(self) -> list[pg.InfiniteLine]:
        return [*self.rate_plot.markers, *self.time_plot.markers]

    def params(self) -> Any:
        """The Params the controls describe."""
        return self.choices.params()

    # ------------------------------------------------------------ choices

    def _experiment_chosen(self, name: str) -> None:
        self.validation_button.set_lab(name)  # the rows of the chosen experiment's model
        self._label_axes()
        self._fit_controls()  # the new choices may be wider

    def _lab_title(self) -> str:
        return engine_text(experiments.get(self.choices.experiment), "TITLE")

    def _spec_table_failed(self, reason: str) -> None:
        self.services.notifier.error(self.tr("The GPU spec table cannot be read: %1").replace("%1", reason))

    def _device(self) -> str:
        report: DeviceReport | None = self.services.devices.report
        if report is not None and report.cuda.available and report.cuda.devices:
            return f"cuda:{report.cuda.devices[0].index}"
        return "cpu"

    # ------------------------------------------------------------ running

    def run_sweep(self, params: Any = None) -> Job | None:
        """Start a sweep (``params`` overrides the controls, for scripts and tests)."""
        if self.job is not None:
            return None
        if params is not None:
            self.choices.show_experiment_of(params)
        module = experiments.get(self.choices.experiment)
        params = params if params is not None else self.choices.params()
        self.clear()
        title = engine_text(module, "TITLE")
        job = self.services.runner.submit(title, self._device(), lambda ctx: module.run(params, ctx), Result)
        job.series_kind.connect(self.announce_kind)
        job.partial.connect(self.add_point)
        job.finished.connect(self._finished)
        self.run_controls.watch(job)
        return job

    def cancel_sweep(self) -> None:
        self.run_controls.cancel()

    def _finished(self, result: Result) -> None:
        self.last_result = result
        for series in result.series:
            self.announce_kind(series.name, series.provenance.kind)
        for plot in (self.rate_plot, self.time_plot):
            plot.redraw()
        self._mark_crossover(result)
        self._show_notes()
        self.set_provenance(weakest_kind(s.provenance.kind for s in result.series))
        self.export_button.setEnabled(True)

    def clear(self) -> None:
        self.last_result = None
        self.export_button.setEnabled(False)
        self.crossover_size = None
        self.crossover_kind = ""
        for plot in (self.rate_plot, self.time_plot):
            plot.clear_series()
        self.set_provenance("")  # the last sweep's badge must not label the new one's points
        self._show_notes()
        self._show_placeholders()
        self.race_tab.clear()
        self._label_axes()

    def add_point(self, name: str, point: Point) -> None:
        """A new point of series ``name``: stored now, drawn at the plots' next redraw tick."""
        new = name not in self.rate_plot.curves
        for plot in (self.rate_plot, self.time_plot):
            plot.add_point(name, point)
        if new:
            self.announce_kind(name, str(point.extra.get("kind", "measured")), weak=True)
        for placeholder in self.placeholders:
            placeholder.dismiss()

    def announce_kind(self, name: str, kind: str, weak: bool = False) -> None:
        """What kind of numbers series ``name`` holds, as the engine said (``weak``: a guess from a
        point, kept only until the engine says otherwise)."""
        if weak and name in self.rate_plot.kinds:
            return
        for plot in (self.rate_plot, self.time_plot):
            plot.set_kind(name, kind)
        self._label_legends()
        self.set_provenance(weakest_kind(self.rate_plot.kinds.values()))  # the badge as soon as curves show

    def _mark_crossover(self, result: Result) -> None:
        cpu_names = [s.name for s in result.series if s.role == "cpu"]
        gpu_names = [s.name for s in result.series if s.role in ("gpu", "model")]
        cpu = best_series(result, cpu_names)
        measured = [n for n in gpu_names if self.rate_plot.kinds.get(n) == "measured"]
        gpu = (measured or gpu_names or [None])[0]
        size = crossover(result, gpu, cpu) if cpu is not None and gpu is not None else None
        if size is None:
            return
        self.crossover_size = size
        self.crossover_kind = self.rate_plot.kinds.get(gpu, "")
        for plot in (self.rate_plot, self.time_plot):
            plot.add_marker(size, self._crossover_text())

    def _crossover_text(self) -> str:
        """Where the GPU starts to win; a modelled GPU says so (no GPU ran: the spec table and a model did)."""
        if self.crossover_kind == "modelled":
            text = self.tr("Modelled GPU wins from %1")
        else:
            text = self.tr("GPU wins from %1")
        return text.replace("%1", size_text(self.crossover_size or 0))

    def _label_markers(self) -> None:
        for plot in (self.rate_plot, self.time_plot):
            for line in plot.markers:
                plot.set_marker_text(line, self._crossover_text())

    # ------------------------------------------------------------ export

    def export_caption(self, plot: LivePlot) -> Caption:
        """The title, the tab's quantity, each curve with its kind, the machine and the date."""
        subtitle = self.tabs.tabText(self.tabs.indexOf(plot))
        return caption_of(self.heading.text(), self.last_result, plot, subtitle)

    def export(self, fmt: str, path: str) -> list[str]:
        """Write the plots (png, svg: throughput to ``path``, time beside it) or the result (csv, json)."""

        def pictures() -> list[Path]:
            plots = ((self.rate_plot, path), (self.time_plot, with_suffix_stem(path, "-time")))
            return [export_picture(plot, self.export_caption(plot), where, fmt) for plot, where in plots]

        return save_export(self.services.notifier, self.last_result, fmt, path, pictures,
                           self.tr("Nothing to save yet: run a sweep to the end first."))  # fmt: skip

    # ------------------------------------------------------------ theme and size

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            QTimer.singleShot(0, self, self._restyle)  # after the theme has restyled every plot
        super().changeEvent(event)

    def _fit_controls(self) -> None:
        """The controls column as wide as its widest choice or button row in this theme, no wider:
        the series names and the status wrap to it, the plot gets the rest (it scrolls vertically)."""
        self.controls.adjustSize()
        buttons = self.run_controls.run_button, self.run_controls.cancel_button
        rows = (
            self.choices.sizeHint().width() if not self.choices.isHidden() else 0,
            sum(b.sizeHint().width() for b in buttons) + self.run_controls.layout().spacing()
            if not self.run_controls.isHidden() else 0,
            self.export_button.sizeHint().width() if not self.export_button.isHidden() else 0,
            # Folded away in a lesson, only the series are left: a column for their names, the plot the rest,
            # never narrower than a series' line sample beside its badge (in presenter type the badge cut).
            self.FOLDED_CHARS * self.fontMetrics().averageCharWidth(),
            self.legend_box.minimumSizeHint().width(),
        )
        margins = self.controls.layout().contentsMargins()
        scrollbar = self.controls_scroll.verticalScrollBar().sizeHint().width()
        # A combo box's size hint can be a few pixels short of its widest text (CJK punctuation, large type).
        slack = self.fontMetrics().averageCharWidth()
        self.controls_scroll.setFixedWidth(max(rows) + margins.left() + margins.right() + scrollbar + slack)

    def showEvent(self, event: QShowEvent) -> None:
        self._fit_controls()
        super().showEvent(event)

    FOLDED_CHARS = 14  # the series column's width in characters when the form is folded away

    def folded_settings(self) -> list[QWidget]:
        """What a lesson folds away in presenter mode: the form and its Run (the page's preset fills it
        and the page's Run runs it); the series and their badges stay beside the plot."""
        return [self.choices, self.run_controls]

    def settings_folded(self) -> None:
        self._fit_controls()  # the column narrows to the series (or widens back to the form)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.notes.set_lines(lines_for(self))  # more of the notes on a tall screen

    def _restyle(self) -> None:
        self._fit_controls()
        for placeholder in self.placeholders:
            placeholder.restyle()
        self.race.update()
