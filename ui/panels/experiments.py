"""The Run-experiment panel: pick an experiment, set its parameters, run it, watch it plot."""

from __future__ import annotations

import dataclasses
import typing
from types import ModuleType
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gpulab import experiments
from gpulab.devices import DeviceReport
from gpulab.results import Result
from ui import i18n
from ui.jobs import Job, plain_error
from ui.panels.base import Panel
from ui.services import Services
from ui.widgets.badge import weakest_kind
from ui.widgets.live_plot import LivePlot, PlotPlaceholder, SeriesLegend

translate = QCoreApplication.translate


def field_text(value: Any) -> str:
    """A default parameter value as the text a user would type."""
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def field_editor(hint: Any, default: Any) -> QWidget:
    """A checkbox for bool, a list for Literal, a line edit for everything else."""
    if hint is bool:
        box = QCheckBox()
        box.setChecked(bool(default))
        return box
    if typing.get_origin(hint) is typing.Literal:
        combo = QComboBox()
        combo.addItems([str(a) for a in typing.get_args(hint)])
        combo.setCurrentText(str(default))
        return combo
    edit = QLineEdit(field_text(default))
    edit.setCursorPosition(0)
    edit.setToolTip(field_text(default))
    return edit


def editor_text(editor: QWidget) -> str:
    if isinstance(editor, QCheckBox):
        return "true" if editor.isChecked() else "false"
    if isinstance(editor, QComboBox):
        return editor.currentText()
    assert isinstance(editor, QLineEdit)
    return editor.text()


def field_default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return None


def device_title(key: str, report: DeviceReport | None) -> str:
    if key == "cpu":
        return translate("ExperimentsPanel", "CPU")
    index = int(key.split(":")[1])
    gpus = {gpu.index: gpu.name for gpu in report.cuda.devices} if report else {}
    return f"GPU {index}: {gpus.get(index, '?')}"


def localized(module: ModuleType, attribute: str) -> str:
    """``TITLE`` or ``DESCRIPTION`` in the current language (``TITLE_ZH`` when the engine has it)."""
    return i18n.engine_text(module, attribute)


def field_label(field: dataclasses.Field[Any]) -> str:
    """A parameter's label: ``metadata['label_zh']`` / ``['label']`` if given, else its name."""
    colon = i18n.localized(":", "：")
    return f"{i18n.field_text(field, 'label') or field.name.replace('_', ' ')}{colon}"


def field_help(field: dataclasses.Field[Any]) -> str:
    """A parameter's help (its tooltip), with the name a script would use."""
    text = i18n.field_text(field, "help")
    return f"{text} ({field.name})" if text else field.name


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
        self.editors: dict[str, QWidget] = {}
        self.job: Job | None = None
        self.last_result: Result | None = None
        self._make_widgets()
        self._build_layout()
        self._fill_experiments()
        services.devices.report_changed.connect(self._fill_devices)
        self._fill_devices(services.devices.report)
        self.retranslate()

    def _make_widgets(self) -> None:
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.experiment_combo = QComboBox()
        self.experiment_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # whole titles
        self.experiment_combo.currentIndexChanged.connect(self._experiment_chosen)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.params_form = QFormLayout()
        self.params_form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.device_combo = QComboBox()
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(10)
        self.run_button = QPushButton()
        self.run_button.clicked.connect(self.run_experiment)
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel_experiment)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.hide()  # shown while a run is going; an empty bar at rest looks like a text field
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.plot = LivePlot()
        self.placeholder = PlotPlaceholder(self.plot)
        self.legend = SeriesLegend(self.plot)
        self.notes = QPlainTextEdit()
        self.notes.setReadOnly(True)
        self.notes.hide()

    def _build_layout(self) -> None:
        self.experiment_label, self.device_label = QLabel(), QLabel()
        controls = QWidget()
        column = QVBoxLayout(controls)
        column.addWidget(self.experiment_label)
        column.addWidget(self.experiment_combo)
        column.addWidget(self.description)
        column.addLayout(self.params_form)
        column.addWidget(self.device_label)
        column.addWidget(self.device_combo)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.status)
        column.addStretch(1)
        self._split(controls)

    def _split(self, controls: QWidget) -> None:
        right = QWidget()
        right_column = QVBoxLayout(right)
        right_column.setContentsMargins(0, 0, 0, 0)
        right_column.addWidget(self.plot, 1)
        right_column.addWidget(self.legend)
        right_column.addWidget(self.notes)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(controls)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([300, 600])
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(splitter, 1)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Run an experiment"))
        self.experiment_label.setText(self.tr("Experiment:"))
        self.device_label.setText(self.tr("Run on:"))
        self.run_button.setText(self.tr("Run"))
        self.cancel_button.setText(self.tr("Cancel"))
        if not self.placeholder.isHidden():
            self.placeholder.show_text(self.tr("Press Run: the points appear here as they are measured."))
        self._fill_devices(self.services.devices.report)
        self._retranslate_experiment()
        if self.last_result is not None:
            self.plot.label_series(self.last_result)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # a theme changed the type size
            self._fit_controls()
        super().changeEvent(event)

    def _fit_controls(self) -> None:
        """Room for about 16 characters in each parameter field, at the current type size."""
        chars = self.fontMetrics().averageCharWidth()
        for editor in self.editors.values():
            if isinstance(editor, QLineEdit):
                editor.setMinimumWidth(16 * chars)
        controls = self.splitter.widget(0).minimumSizeHint().width()
        total = sum(self.splitter.sizes()) or 900
        self.splitter.setSizes([controls, max(total - controls, 1)])

    def _retranslate_experiment(self) -> None:
        """Engine-provided texts: titles, the description and parameter labels."""
        for index in range(self.experiment_combo.count()):
            name = self.experiment_combo.itemData(index)
            self.experiment_combo.setItemText(index, _experiment_title(name))
        if self.module is None:
            return
        self.description.setText(localized(self.module, "DESCRIPTION"))
        for row, field in enumerate(dataclasses.fields(self.module.Params)):
            label = self.params_form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            if label is not None and isinstance(label.widget(), QLabel):
                label.widget().setText(field_label(field))
                label.widget().setToolTip(field_help(field))
        if self.last_result is not None:
            self._show_notes(self.last_result)

    # ------------------------------------------------------------ choosing

    def _fill_experiments(self) -> None:
        for name in experiments.names():
            self.experiment_combo.addItem(_experiment_title(name), name)
        if self.experiment_combo.count():
            self._experiment_chosen(0)

    def _experiment_chosen(self, index: int) -> None:
        name = self.experiment_combo.itemData(index)
        try:
            self.module = experiments.get(name)
        except Exception as exc:  # a broken experiment module must not take the panel down
            self.module = None
            self.services.notifier.error(
                self.tr("Experiment %1 cannot be loaded: %2").replace("%1", name).replace("%2", str(exc))
            )
        self._show_module()

    def _show_module(self) -> None:
        while self.params_form.rowCount():
            self.params_form.removeRow(0)
        self.editors.clear()
        self.run_button.setEnabled(self.module is not None and self.job is None)
        if self.module is None:
            self.description.setText("")
            return
        self.description.setText(localized(self.module, "DESCRIPTION"))
        self.experiment_combo.setToolTip(self.experiment_combo.currentText())  # may be clipped
        hints = typing.get_type_hints(self.module.Params)
        for field in dataclasses.fields(self.module.Params):
            editor = field_editor(hints[field.name], field_default(field))
            self.editors[field.name] = editor
            label = QLabel(field_label(field))
            label.setToolTip(field_help(field))
            self.params_form.addRow(label, editor)
        self._fit_controls()

    def _fill_devices(self, report: DeviceReport | None) -> None:
        current = self.device_combo.currentData()
        self.device_combo.clear()
        for key in self.services.devices.device_keys():
            self.device_combo.addItem(device_title(key, report), key)
        found = self.device_combo.findData(current)
        self.device_combo.setCurrentIndex(max(found, 0))

    # ------------------------------------------------------------ running

    def read_params(self) -> Any | None:
        """The Params the form describes, or None (after telling the user why)."""
        assert self.module is not None
        texts = {name: editor_text(editor) for name, editor in self.editors.items()}
        try:
            return experiments.params_from_strings(self.module.Params, texts)
        except experiments.ParamError as exc:
            reason = i18n.engine_message(str(exc))
            self.services.notifier.warning(self.tr("Check the parameters: %1").replace("%1", reason))
            return None

    def run_experiment(self) -> Job | None:
        if self.module is None or self.job is not None:
            return None
        params = self.read_params()
        if params is None:
            return None
        module, device = self.module, self.device_combo.currentData() or "cpu"
        run = lambda ctx: module.run(params, ctx)  # noqa: E731
        job = self.services.runner.submit(localized(module, "TITLE"), device, run, Result)
        self._watch(job)
        return job

    def _watch(self, job: Job) -> None:
        self.job = job
        self.plot.clear_series()
        self.set_provenance("")  # the last run's badge must not label the new run's points
        self.notes.clear()
        self.notes.hide()
        self.progress.setValue(0)
        self.status.setText(self.tr("Waiting for the device to be free…"))
        job.progress.connect(self._progress)
        job.partial.connect(self.plot.add_point)
        job.partial.connect(lambda *_point: self.placeholder.dismiss())
        job.series_kind.connect(self._series_kind)
        job.finished.connect(self._finished)
        job.failed.connect(
            lambda exc: self._ended(self.tr("Failed: %1").replace("%1", i18n.engine_message(plain_error(exc))))
        )
        job.cancelled.connect(lambda: self._ended(self.tr("Cancelled.")))
        self._set_running(True)

    def _series_kind(self, series: str, kind: str) -> None:
        self.plot.set_kind(series, kind)
        self.set_provenance(weakest_kind(self.plot.kinds.values()))

    def cancel_experiment(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.status.setText(self.tr("Cancelling…"))

    def _progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(fraction * 1000))
        self.status.setText(i18n.engine_message(message))

    def _show_notes(self, result: Result) -> None:
        self.notes.setMaximumHeight(self.notes.fontMetrics().lineSpacing() * 6 + 12)
        self.notes.setPlainText("\n".join(i18n.engine_messages(result.notes)))
        self.notes.setVisible(bool(result.notes))

    def _finished(self, result: Result) -> None:
        self.last_result = result
        self.plot.label_series(result)
        self._show_notes(result)
        self.set_provenance(weakest_kind(s.provenance.kind for s in result.series))
        self._ended(self.tr("Done."))

    def _ended(self, message: str) -> None:
        self.plot.redraw()
        self.status.setText(message)
        self.job = None
        self._set_running(False)

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running and self.module is not None)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        self.experiment_combo.setEnabled(not running)
