"""The warp visualizer's controls: kernel, launch size, traced block, dynamic shared memory, the
``__constant__`` data and nvcc's ``-fmad`` (:mod:`.warp_options`) and Run, in a row that wraps."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QLabel, QProgressBar, QPushButton, QSpinBox, QVBoxLayout, QWidget

from gpulab import experiments, kernels
from gpulab.experiments.warp import DEFAULT_MAX_SECONDS
from gpulab.simt.dynshared import declares_dynamic_shared
from ui.panels import warp_texts as texts
from ui.panels.warp_options import LaunchOptions
from ui.widgets.flow_layout import FlowBox, group

translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls
MAX_SHARED_MEM_FIELD = 256 * 1024  # above any GPU's per-block shared memory: the emulator names the limit
PROGRESS_PX = 4


def _under(top: QWidget, bar: QWidget) -> QWidget:
    """``top`` with ``bar`` under it, as one item of the row."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(1)
    column.addWidget(top)
    column.addWidget(bar)
    return box


class KernelControls(FlowBox):
    """Which catalogue kernel, which preset, which block: the boxes and the Run button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, spacing=12, row_spacing=4)
        self.kernel_label, self.preset_label, self.block_label = QLabel(), QLabel(), QLabel()
        self.kernel_box = QComboBox()
        self.kernel_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.preset_box = QComboBox()
        self.block_box = QSpinBox()
        self.shared_label = QLabel()
        self.shared_box = QSpinBox()  # bytes of dynamic shared memory per block (extern __shared__)
        self.shared_box.setRange(0, MAX_SHARED_MEM_FIELD)
        self.shared_box.setSingleStep(256)
        self.shared_box.setKeyboardTracking(False)  # a typed number runs once, when it is complete
        self.shared_group = group(self.shared_label, self.shared_box)  # shown for extern __shared__ code
        self.shared_group.hide()
        self.options = LaunchOptions()  # the FMA switch and the __constant__ field
        self.roomy = False  # the page has room for a row more (see fit_titles)
        self.run_button = QPushButton()
        self.run_button.setDefault(True)
        self.cancel_button = QPushButton()
        self.cancel_button.setEnabled(False)
        self.limit_label = QLabel()
        self.limit_box = QSpinBox()  # the time limit: a runaway loop stops after this long
        self.limit_box.setRange(1, 600)
        self.limit_box.setValue(round(DEFAULT_MAX_SECONDS))
        self.progress = QProgressBar()  # warp-steps done / budget while emulating
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(PROGRESS_PX)  # a thin bar under Run and Cancel: the rows keep their room
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # its room is kept: showing it moves nothing (nor the code view)
        self.progress.setSizePolicy(policy)
        self.progress.hide()
        self.add(  # Run beside the kernel: in large type the row under it then holds the rest
            group(self.kernel_label, self.kernel_box),
            _under(group(self.run_button, self.cancel_button), self.progress),
            group(self.preset_label, self.preset_box),
            group(self.block_label, self.block_box),
            self.shared_group,
            self.options.constants_group,
            self.options.fmad_box,
            group(self.limit_label, self.limit_box),
        )

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_titles()

    def fit_titles(self, roomy: bool | None = None) -> None:
        """The FMA switch's whole title where the page has room (``roomy``: not large type on a small
        screen) or where it costs the row no extra line; else its short one, so the code keeps the height."""
        if roomy is not None:
            self.roomy = roomy
        if self.roomy:
            self.options.set_short(False)
            return
        width = self.width()
        self.options.set_short(True)
        rows = self.flow.row_count(width)
        self.options.set_short(False)
        if self.flow.row_count(width) > rows:
            self.options.set_short(True)

    def show_running(self, running: bool) -> None:
        """Cancel and the progress bar while an emulation runs."""
        self.cancel_button.setEnabled(running)
        self.progress.setValue(0)
        self.progress.setVisible(running)

    @property
    def spec(self) -> kernels.KernelSpec:
        return experiments.kernel(self.kernel_box.currentData())

    @property
    def preset(self) -> kernels.LaunchPreset:
        return self.spec.preset(self.preset_box.currentData())

    def fill_kernels(self, specs: list[kernels.KernelSpec]) -> None:
        """List ``specs`` without announcing each one (the caller picks the first to show)."""
        self.kernel_box.blockSignals(True)
        for spec in specs:
            self.kernel_box.addItem(texts.kernel_title(spec), spec.entry)
        self.kernel_box.blockSignals(False)

    def fill_presets(self, spec: kernels.KernelSpec) -> None:
        """The launch sizes of ``spec``, quietly: the caller reacts to the new kernel once."""
        self.preset_box.blockSignals(True)
        self.preset_box.clear()
        for preset in spec.presets:
            self.preset_box.addItem(texts.preset_text(preset), preset.name)
        self.preset_box.blockSignals(False)

    def reset_block(self) -> None:
        """Block 0 of the preset's grid, quietly (the caller runs once for the whole change)."""
        blocks = 1
        for dim in self.preset.grid:
            blocks *= dim
        self.block_box.blockSignals(True)
        self.block_box.setRange(0, blocks - 1)
        self.block_box.setValue(0)
        self.block_box.blockSignals(False)

    def reset_shared(self) -> None:
        """The preset's dynamic shared memory, quietly (the caller runs once for the whole change)."""
        self.shared_box.blockSignals(True)
        self.shared_box.setValue(self.preset.shared_mem)
        self.shared_box.blockSignals(False)
        self.show_fields_for(self.spec.source)

    def show_fields_for(self, source: str) -> None:
        """The dynamic shared memory and constants fields, only where they mean something (keeps the row short)."""
        self.shared_group.setVisible(bool(self.shared_box.value()) or declares_dynamic_shared(source))
        self.options.show_for(source)
        self.fit_titles()

    def retitle(self) -> None:
        """Kernel and preset names in the interface language (the engine carries the Chinese)."""
        for index in range(self.kernel_box.count()):
            self.kernel_box.setItemText(index, texts.kernel_title(experiments.kernel(self.kernel_box.itemData(index))))
        for index in range(self.preset_box.count()):
            self.preset_box.setItemText(index, texts.preset_text(self.spec.preset(self.preset_box.itemData(index))))

    def retranslate(self) -> None:
        self.kernel_label.setText(translate("WarpPanel", "Kernel:"))
        self.preset_label.setText(translate("WarpPanel", "Size:"))
        self.block_label.setText(translate("WarpPanel", "Block:"))
        self.block_box.setToolTip(translate("WarpPanel", "Which block's warps to trace (linear block id)"))
        self.shared_label.setText(translate("WarpPanel", "Dynamic shared:"))
        self.shared_box.setSuffix(translate("WarpPanel", " bytes"))
        self.shared_box.setToolTip(
            translate(
                "WarpPanel",
                "Bytes of dynamic shared memory per block, for extern __shared__ arrays (shared_mem of a CuPy launch)",
            )
        )
        self.options.retranslate()
        self.run_button.setText(translate("WarpPanel", "Run"))
        self.cancel_button.setText(translate("WarpPanel", "Cancel"))
        self.cancel_button.setToolTip(translate("WarpPanel", "Stop the emulation now"))
        self.limit_label.setText(translate("WarpPanel", "Time limit:"))
        self.limit_box.setSuffix(translate("WarpPanel", " s"))
        self.limit_box.setToolTip(
            translate("WarpPanel", "An emulation that runs longer stops, naming the loop it was in")
        )
        self.run_button.setToolTip(
            translate("WarpPanel", "Emulate the code in the editor, your edits included (Ctrl+Return)")
        )
        self.retitle()
        self.fit_titles()

    def fit_to_type(self) -> None:
        """The kernel list stays wide enough for a title in the current type size."""
        self.kernel_box.setMinimumWidth(12 * self.fontMetrics().horizontalAdvance("M"))
        self.options.constants_field.setMinimumWidth(20 * self.fontMetrics().horizontalAdvance("0"))
        self.fit_titles()
