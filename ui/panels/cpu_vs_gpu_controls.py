"""The CPU-vs-GPU panel's choices: which sweep, which sizes, which data type, which GPU to model.

Every list comes from the experiment itself: the size presets and data-type choices its Params
declare, and the GPU spec table for the model. The widgets keep the names the panel's users
(and tests) know: ``experiment_combo``, ``sizes_combo``, ``dtype_combo``, ``model_combo``,
``transfers_box``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from gpulab import experiments
from gpulab.devices import DeviceReport
from ui.i18n import localized
from ui.widgets.params_form import preset_title, size_text

SWEEPS = ("matmul", "vector-add")  # the experiments this panel races, in list order
DEFAULT_MODEL_GPU = "h100-sxm"


def short_gpu_name(name: str) -> str:
    """A spec sheet's GPU name without its maker's brand ("NVIDIA H100 PCIe" -> "H100 PCIe"):
    the list is "GPU to model", and the narrower it is, the wider the plot beside it."""
    for brand in ("NVIDIA ", "Tesla "):
        name = name.removeprefix(brand)
    return name


class SweepControls(QWidget):
    """Emits ``experiment_changed(name)`` when another sweep is chosen; ``params()`` reads the choice."""

    experiment_changed = Signal(str)
    spec_table_failed = Signal(str)  # why the GPU list is empty

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.experiment_combo = QComboBox()
        for name in SWEEPS:
            self.experiment_combo.addItem("", name)
        self.sizes_combo, self.dtype_combo, self.model_combo = QComboBox(), QComboBox(), QComboBox()
        for combo in (self.experiment_combo, self.sizes_combo, self.dtype_combo, self.model_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # never clipped
        self.transfers_box = QCheckBox()
        self.labels = {key: QLabel() for key in ("experiment", "sizes", "dtype", "model")}
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)  # labels above: room for whole choices
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, combo in zip(self.labels, (self.experiment_combo, self.sizes_combo, self.dtype_combo,
                                            self.model_combo), strict=True):  # fmt: skip
            form.addRow(self.labels[key], combo)
        self.form = form
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(form)
        column.addWidget(self.transfers_box)
        self.experiment_combo.currentIndexChanged.connect(self._experiment_chosen)
        self._experiment_chosen()

    @property
    def experiment(self) -> str:
        return str(self.experiment_combo.currentData() or SWEEPS[0])

    @property
    def params_type(self) -> Any:
        return experiments.get(self.experiment).Params

    def inputs(self) -> list[QWidget]:
        """What is greyed out while a sweep runs."""
        return [self.experiment_combo, self.sizes_combo, self.dtype_combo, self.model_combo, self.transfers_box]

    def usable_when_idle(self, widget: QWidget) -> bool:
        return widget is not self.dtype_combo or self.dtype_combo.count() > 1  # one choice: nothing to pick

    def retranslate(self) -> None:
        self.labels["experiment"].setText(self.tr("Experiment:"))
        self.labels["sizes"].setText(self.tr("Sizes:"))
        self.labels["dtype"].setText(self.tr("Data type:"))
        self.labels["model"].setText(self.tr("GPU to model:"))
        # Short titles keep the column narrow (the plot's tab and axis carry the unit).
        titles = {"matmul": self.tr("Matrix multiply"), "vector-add": self.tr("Vector add")}
        for index, name in enumerate(SWEEPS):
            self.experiment_combo.setItemText(index, titles[name])
        self.transfers_box.setText(self.tr("Include PCIe copies"))
        self.transfers_box.setToolTip(self.tr(
            "Count the time to copy the inputs over PCIe to the GPU and the result back to the CPU."))  # fmt: skip
        self.model_combo.setToolTip(self.tr(
            "Without a GPU, this GPU's spec sheet gives a modelled curve (dashed, labelled MODELLED)."))  # fmt: skip
        self._fill_sizes()

    def _experiment_chosen(self, _index: int = 0) -> None:
        self.dtype_combo.clear()
        self.dtype_combo.addItems([str(choice) for choice in experiments.choices(self.params_type, "dtype")])
        self.dtype_combo.setEnabled(self.usable_when_idle(self.dtype_combo))
        # one data type is no choice: its row would only push the series list out of view (the
        # notes name the type the bandwidth counts)
        self.form.setRowVisible(self.dtype_combo, self.dtype_combo.count() > 1)
        self._fill_sizes()
        self.experiment_changed.emit(self.experiment)

    def _fill_sizes(self) -> None:
        slow = self.tr("Slow on a CPU: each of the largest multiplies takes seconds.")
        current = self.sizes_combo.currentIndex()
        self.sizes_combo.blockSignals(True)
        self.sizes_combo.clear()
        for key, sizes in experiments.presets(self.params_type, "sizes"):
            # The range is what a teacher picks by; the preset's name (and the warning of a slow
            # one) is its tooltip, which keeps the list narrow.
            self.sizes_combo.addItem(f"{size_text(sizes[0])} … {size_text(sizes[-1])}", sizes)
            tip = f"{preset_title(key)}{localized(': ', '：')}{', '.join(size_text(size) for size in sizes)}"
            tip += f"\n{slow}" if key == "huge" else ""
            self.sizes_combo.setItemData(self.sizes_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.sizes_combo.setCurrentIndex(current if 0 <= current < self.sizes_combo.count() else 0)
        self.sizes_combo.blockSignals(False)

    def fill_model_gpus(self) -> None:
        """The spec table's GPUs, the H100 SXM chosen (a broken table is reported, the list left empty)."""
        from gpulab.specs import load_specs

        try:
            table = load_specs()
        except Exception as exc:  # a broken spec file must not take the panel down
            self.spec_table_failed.emit(str(exc))
            return
        for spec in table:
            self.model_combo.addItem(short_gpu_name(spec.name), spec.key)
            self.model_combo.setItemData(self.model_combo.count() - 1, spec.name, Qt.ItemDataRole.ToolTipRole)
        self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(DEFAULT_MODEL_GPU)))

    def model_gpu_of(self, report: DeviceReport | None) -> None:
        """With a GPU present, model that GPU by default (so the model sits beside the measurement)."""
        if report is None or not report.cuda.available or not report.cuda.devices:
            return
        from gpulab.specs import load_specs

        spec = load_specs().match(report.cuda.devices[0].name)
        if spec is not None:
            self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(spec.key)))

    def params(self) -> Any:
        """The Params the controls describe."""
        values: dict[str, Any] = {
            "sizes": tuple(self.sizes_combo.currentData()),
            "include_transfers": self.transfers_box.isChecked(),
            "model_gpu": self.model_combo.currentData() or DEFAULT_MODEL_GPU,
        }
        if self.dtype_combo.count():
            values["dtype"] = self.dtype_combo.currentText()
        return self.params_type(**values)

    def show_experiment_of(self, params: Any) -> None:
        """Switch the list to the experiment whose Params ``params`` are."""
        for index, name in enumerate(SWEEPS):
            if isinstance(params, experiments.get(name).Params):
                self.experiment_combo.setCurrentIndex(index)
                return
        raise ValueError(f"{type(params).__name__} belongs to no experiment of this panel")
