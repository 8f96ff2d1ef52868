"""The Run-experiment panel: pick an experiment, set its parameters, run it, watch it plot.

It is the generic lab panel: the form comes from the experiment's Params metadata
(:class:`~ui.widgets.params_form.ParamsForm`), the run column is the shared
:class:`~ui.widgets.run_controls.RunControls`, and the curves are a :class:`LivePlot`. Any
registered experiment gets a working panel here without code of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QComboBox, QLabel, QSplitter, QVBoxLayout, QWidget

from gpulab import experiments
from gpulab.devices import DeviceReport
from gpulab.lab.partial import PointLog
from gpulab.lab.run import PartialPoint, Progress
from gpulab.results import Provenance, Result, reading_order
from ui import i18n
from ui.device_text import short_reason
from ui.jobs import Job
from ui.panels.base import Panel
from ui.services import Services
from ui.widgets.badge import weakest_kind
from ui.widgets.eliding_combo import ElidingComboBox
from ui.widgets.export import (
    Caption,
    ExportButton,
    caption_of,
    export_picture,
    save_export,
    shown_instead,
    tab_title,
)
from ui.widgets.legend_box import LegendBox
from ui.widgets.live_plot import GroupedLegend, LivePlot, PlotPlaceholder, SeriesLegend
from ui.widgets.notes_box import NotesBox, lines_for
from ui.widgets.params_form import ParamsForm
from ui.widgets.run_controls import RunControls
from ui.widgets.tab_order import order_tabs

translate = QCoreApplication.translate


def device_title(key: str, report: DeviceReport | None) -> str:
    if key == "cpu":
        return translate("ExperimentsPanel", "CPU")
    index = int(key.split(":")[1])
    gpus = {gpu.index: gpu.name for gpu in report.cuda.devices} if report else {}
    return f"GPU {index}: {gpus.get(index, '?')}"


def localized(module: ModuleType, attribute: str) -> str:
    """``TITLE`` or ``DESCRIPTION`` in the current language, from the text catalogue."""
    return i18n.engine_text(module, attribute)


def _experiment_title(name: str) -> str:
    try:
        return localized(experiments.get(name), "TITLE")
    except Exception:  # reported when the user picks it
        return name


class ExperimentsPanel(Panel):
    """Run any registered experiment on a chosen device and plot its points live."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.module: ModuleType | None = None
        self.last_result: Result | None = None
        self.point_log: PointLog | None = None  # the running job's points so far (kept if the window closes)
        self.run_params: Any = None
        self._make_widgets()
        self._build_layout()
        self._fill_experiments()
        services.devices.report_changed.connect(self._fill_devices)
        self._fill_devices(services.devices.report)
        self.retranslate()

    def _make_widgets(self) -> None:
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.experiment_combo = ElidingComboBox()
        # A few words wide, the title elided (the whole title is its tooltip and in the open list):
        # a long title in projector type must not push the plot off the screen.
        self.experiment_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.experiment_combo.setMinimumContentsLength(22)
        self.experiment_combo.currentIndexChanged.connect(self._experiment_chosen)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.form = ParamsForm()
        self.device_combo = ElidingComboBox()
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(10)
        self.run_controls = RunControls()
        self.run_controls.run_clicked.connect(self.run_experiment)
        self.run_controls.lock_while_running([self.experiment_combo, self.form, self.device_combo])
        self.run_controls.ended.connect(self._ended)
        self.run_controls.run_by_keys(self)
        # The column's widgets, by the names scripts and tests know them.
        self.run_button, self.cancel_button = self.run_controls.run_button, self.run_controls.cancel_button
        self.progress, self.status = self.run_controls.progress, self.run_controls.status
        self.plot = self.make_plot()
        self.placeholder = PlotPlaceholder(self.plot)
        self.legend = self.LEGEND(self.plot)
        self.notes = NotesBox(lines=4)  # whole lines only; the rest scrolls a line at a time
        self.notes.hide()
        self.export_button = ExportButton()
        self.export_button.export_requested.connect(self.export)
        self.export_button.setEnabled(False)  # until a run has finished: nothing to export before

    def _build_layout(self) -> None:
        self.experiment_label, self.device_label = QLabel(), QLabel()
        controls = QWidget()
        column = QVBoxLayout(controls)
        for widget in (self.experiment_label, self.experiment_combo, self.description, self.form,
                       self.device_label, self.device_combo, self.run_controls, self.export_button):  # fmt: skip
            column.addWidget(widget)
        column.addStretch(1)
        self.controls_column = column
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(controls)
        self.splitter.addWidget(self.make_view())
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([300, 600])
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.splitter, 1)

    def make_plot(self) -> LivePlot:
        """The live plot (a lab panel may give a subclass that draws its points its own way)."""
        return LivePlot(log_x=None, log_y=None)  # logarithmic where the values span decades

    def make_view(self) -> QWidget:
        """The right-hand side: the plot, its legend and the notes (a lab panel may show more)."""
        return self.plot_column(notes=True)

    def form_fields(self, params_type: type) -> list[str] | None:
        """The Params fields the form shows, in order (None: every field)."""
        return None

    def plot_column(self, *above: QWidget, notes: bool = False) -> QWidget:
        """The plot (taking the height) with its legend under it; ``above`` it, a lab's own widgets
        (a switch, a warning); under it the notes when ``notes``. A lab's view is built around it."""
        column_widget = QWidget()
        column = QVBoxLayout(column_widget)
        column.setContentsMargins(0, 0, 0, 0)
        for widget in above:
            column.addWidget(widget)
        column.addWidget(self.plot, 1)
        column.addWidget(LegendBox(self.legend))  # it scrolls where the page is short
        if notes:
            column.addWidget(self.notes)
        return column_widget

    @property
    def editors(self) -> dict[str, QWidget]:
        return self.form.editors

    @property
    def job(self) -> Job | None:
        return self.run_controls.job

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Run an experiment"))
        self.experiment_label.setText(self.tr("Experiment:"))
        self.device_label.setText(self.tr("Run on:"))
        if not self.placeholder.isHidden():
            self._show_placeholder()
        self._fill_devices(self.services.devices.report)
        self._retranslate_experiment()
        if self.last_result is not None:
            self.plot.label_series(self.last_result)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # a theme changed the type size
            self._fit_controls()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_to_view()
        if event.oldSize().width() != event.size().width():
            self._fit_controls()  # a wider window holds the whole sizes field

    def view_resized(self) -> None:
        self.fit_to_view()
        self._fit_controls()  # a narrower window: fields fitted to the wider one give way

    def fit_to_view(self) -> None:
        """Share the height the window shows: the picture's half, the notes' lines (more on a tall
        screen). A lab with more to fit on a short screen (``is_short()``) adds to this."""
        self._share_page()
        lines = lines_for(self, self.LEAST_NOTE_LINES, self.shown_size().height())
        self.notes.set_lines(min(lines, self.MOST_NOTE_LINES) if self.MOST_NOTE_LINES else lines)

    SHORT_PAGE_LINES = 45  # a page fewer type lines tall than this is short: a projector's large type

    def is_short(self) -> bool:
        return self.shown_size().height() < self.SHORT_PAGE_LINES * self.fontMetrics().height()

    def pictures(self) -> list[QWidget]:
        """The views that get at least half the page's height: the plot, or a lab's own charts."""
        return [self.plot]

    def _share_page(self) -> None:
        # The picture is what a class looks at: at least half the height of the page under its
        # heading, the legend, tables and notes sharing the rest (they scroll or wrap). Measured on
        # the window's view, not on the panel: the panel grows with its minimum, and half of that
        # would grow with it.
        if self.parentWidget() is None:  # a panel on its own (a test) is all the screen it has
            return
        for picture in self.pictures():
            picture.setMinimumHeight(self.page_height() // 2)
        self.splitter.updateGeometry()  # a splitter does not pass its parts' new minimum up by itself

    def page_height(self) -> int:
        """The height the window shows of this page under its heading."""
        return self.shown_size().height() - self.splitter.geometry().top()

    LEAST_NOTE_LINES = 4  # the notes box shows at least this many lines (the rest scrolls)
    MOST_NOTE_LINES = 0  # and at most this many (0: no cap; beside a lesson the page's own text speaks)
    LEGEND: type[SeriesLegend] = GroupedLegend  # each provenance word once ("— MODELLED" after each wrapped)
    FORM_SHARE = 0.45  # of the panel's width, at most, for the widest field (whole sizes where there is room)
    CONTROLS_SHARE = 0.55  # of the splitter's width, at most, for the controls column

    def _fit_controls(self) -> None:
        """The controls column as wide as its widest field needs, the plot taking the rest."""
        width = self.shown_size().width()
        total = min(sum(self.splitter.sizes()) or 900, width)
        self.form.fit(max_px=max(200, int(self.FORM_SHARE * width)))
        controls = min(self.splitter.widget(0).minimumSizeHint().width(), int(self.CONTROLS_SHARE * total))
        self.splitter.setSizes([controls, max(total - controls, 1)])

    def _retranslate_experiment(self) -> None:
        """Engine-provided texts: titles, the description (the form relabels itself)."""
        for index in range(self.experiment_combo.count()):
            name = self.experiment_combo.itemData(index)
            self.experiment_combo.setItemText(index, _experiment_title(name))
        self.description.setText(localized(self.module, "DESCRIPTION") if self.module is not None else "")
        if self.last_result is not None:
            self._show_notes(self.last_result)

    # ------------------------------------------------------------ choosing

    def _fill_experiments(self) -> None:
        for name in experiments.names():
            self.experiment_combo.addItem(_experiment_title(name), name)
        if self.experiment_combo.count():
            self._experiment_chosen(0)

    def _experiment_chosen(self, index: int) -> None:
        self.forget_run()  # another experiment: the last one's curves, axes, notes and failure go
        name = self.experiment_combo.itemData(index)
        try:
            self.module = experiments.get(name)
        except Exception as exc:  # a broken experiment module must not take the panel down
            self.module = None
            self.services.notifier.error(
                self.tr("Experiment %1 cannot be loaded: %2").replace("%1", name).replace("%2", str(exc))
            )
        self._show_module()

    def forget_run(self) -> None:
        """Clear what the last run left: curves, axis titles and range, notes, badge, status and banner."""
        self.last_result = None
        self.plot.clear_series()
        self.plot.setLabel("bottom", "")
        self.plot.setLabel("left", "")
        self.notes.setText("")
        self.notes.hide()
        self.set_provenance("")
        self.export_button.setEnabled(False)
        self.run_controls.set_status(lambda: "")
        self.services.notifier.dismiss()
        self._show_placeholder()

    def _show_placeholder(self) -> None:
        self.placeholder.show_text(self.tr("Press Run: the points appear here as they are measured."))

    def show_result(self, result: Result) -> None:
        """Show a finished (or opened) result: its curves, axes, notes and provenance."""
        self.forget_run()
        name = experiments.canonical(result.experiment)  # a result saved under a lab's old name
        index = self.experiment_combo.findData(name)
        if index >= 0 and index != self.experiment_combo.currentIndex():
            self.experiment_combo.blockSignals(True)
            self.experiment_combo.setCurrentIndex(index)
            self.experiment_combo.blockSignals(False)
            self.module = experiments.get(name)
            self._show_module()
        for series in result.series:
            for point in series.points:
                self.plot.add_point(series.name, point)
        if result.series:
            self.placeholder.dismiss()
        self._finished(result)
        self.plot.redraw()

    def show_params(self, params: Mapping[str, Any]) -> None:
        """An opened result's parameters in the form: what it was run with, ready to run again."""
        self.form.show_values(params)

    def _show_module(self) -> None:
        self.run_button.setEnabled(self.module is not None and self.job is None)
        params_type = self.module.Params if self.module is not None else None
        self.form.set_params_type(params_type, self.form_fields(params_type) if params_type is not None else None)
        self._retranslate_experiment()
        self.experiment_combo.setToolTip(self.experiment_combo.currentText())  # may be clipped
        self._offer_gpu_fields()
        self._fit_controls()
        order_tabs(self.splitter.widget(0))  # the new fields were made after Run: Tab reaches them first

    def _offer_gpu_fields(self) -> None:
        """GPU-only fields (time kernels on the GPU) greyed out, with the reason, on a machine without
        a usable GPU; left as they are while the devices are still being probed."""
        report = self.services.devices.report
        if report is not None:
            self.form.set_gpu_reason(None if report.cuda.available else short_reason(report.cuda))

    def _fill_devices(self, report: DeviceReport | None) -> None:
        current = self.device_combo.currentData()
        self.device_combo.clear()
        for key in self.services.devices.device_keys():
            self.device_combo.addItem(device_title(key, report), key)
        found = self.device_combo.findData(current)
        self.device_combo.setCurrentIndex(max(found, 0))
        self._offer_gpu_fields()

    # ------------------------------------------------------------ running

    def read_params(self) -> Any | None:
        """The Params the form describes, or None (after telling the user why)."""
        try:
            return self.form.read()
        except experiments.ParamError as exc:
            reason = self.form.error_text(exc.message)
            self.services.notifier.warning(self.tr("Check the parameters: %1").replace("%1", reason))
            return None

    def run_experiment(self) -> Job | None:
        if self.module is None or self.job is not None:
            return None
        params = self.read_params()
        if params is None:
            return None
        module, device = self.module, self.device_combo.currentData() or "cpu"
        title = localized(module, "TITLE")
        self.forget_run()  # the last run's curves, badge, notes and failure must not label the new run
        job = self.services.runner.submit(title, device, lambda ctx: module.run(params, ctx), expects=Result)
        self.point_log, self.run_params, kinds = PointLog(), params, {}
        job.series_kind.connect(lambda series, kind: kinds.__setitem__(str(series), kind))
        job.progress.connect(lambda fraction, message: self._log(Progress(fraction, message)))
        job.partial.connect(lambda series, point: self._log(PartialPoint(series, point, Provenance(
            kinds.get(str(series)) or point.extra.get("kind", "measured"), str(device)))))
        job.partial.connect(self.plot.add_point)
        job.partial.connect(lambda *_point: self.placeholder.dismiss())
        job.series_kind.connect(self._series_kind)
        job.finished.connect(self._finished)
        self.run_controls.watch(job)
        return job

    def _log(self, event: Progress | PartialPoint) -> None:
        if self.point_log is not None:
            self.point_log(event)

    def partial_result(self) -> Result | None:
        """The running job's points so far as a result marked partial (the window was closed), or
        None when nothing runs or nothing was measured yet."""
        name = experiments.name_of(self.module) if self.module is not None else None
        if self.job is None or self.point_log is None or not self.point_log.count or name is None:
            return None
        return self.point_log.result(name, self.run_params, "window closed", note_key="note.partial.window")

    def cancel_experiment(self) -> None:
        self.run_controls.cancel()

    def _series_kind(self, series: str, kind: str) -> None:
        self.plot.set_kind(series, kind)
        self.set_provenance(weakest_kind(self.plot.kinds.values()))

    def _show_notes(self, result: Result) -> None:
        self.notes.setText("\n".join(i18n.engine_messages(reading_order(result.notes))))
        self.notes.setVisible(bool(result.notes))

    def _finished(self, result: Result) -> None:
        self.last_result = result
        self.plot.label_series(result)
        self._show_notes(result)
        self.set_provenance(weakest_kind(s.provenance.kind for s in result.series))
        self.export_button.setEnabled(True)

    # ------------------------------------------------------------ export

    def export_title(self) -> str:
        """The title an exported picture carries: the lab's."""
        return localized(self.module, "TITLE") if self.module is not None else ""

    def export_view(self) -> QWidget:
        """The view an exported picture shows: the plot, or what a tab shows in its place."""
        return shown_instead(self.plot, self)

    def export_caption(self, view: QWidget) -> Caption:
        """The title (and the tab's), legend, machine and date around the picture of ``view``."""
        plot = view if view is self.plot else None
        return caption_of(self.export_title(), self.last_result, plot, tab_title(view, self))

    def export(self, fmt: str, path: str) -> list[str]:
        """Write the view on screen (png, svg) or the result (csv, json) to ``path``; failures are told, not raised."""

        def picture() -> list[Path]:
            view = self.export_view()
            return [export_picture(view, self.export_caption(view), path, fmt)]

        return save_export(self.services.notifier, self.last_result, fmt, path, picture,
                           self.tr("Nothing to save yet: run the lab to the end first."))  # fmt: skip

    def _ended(self, state: str) -> None:
        self.plot.redraw()
        if state == "failed" and not self.plot.curves:  # no points: no axes of made-up numbers either
            self.placeholder.show_text(self.tr("The run failed before its first point; see the message above."))
        self.run_button.setEnabled(self.module is not None)
