"""The warp visualizer's "Timeline" tab: the followed warp's timeline beside another kernel's."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget
from shiboken6 import isValid

from gpulab import experiments, kernels
from gpulab.experiments import warp as ws
from ui.jobs import Job, JobRunner
from ui.panels import warp_texts as texts
from ui.theme import Theme
from ui.widgets.eliding_combo import ElidingComboBox
from ui.widgets.memory_view import fill
from ui.widgets.warp_timeline import WarpTimeline

translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls
DEFAULT_COMPARE = "divergence_warp_aligned"


class TimelineTab(QWidget):
    """Active lanes per step of the followed warp (with the cursor) and of a kernel to compare.

    The kernel chosen in the compare box is emulated in ``runner`` (its first warp of block 0,
    at the panel's launch size where it has one); "—" compares with nothing.
    """

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.compare_label = QLabel()
        self.compare_box = ElidingComboBox()  # as narrow as the tab is (the whole title in the open list)
        self.compare_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.compare_box.setMinimumContentsLength(3)
        self.timeline = WarpTimeline()
        self.compare_timeline = WarpTimeline(with_cursor=False)
        self.compare_session: ws.WarpSession | None = None
        self.compare_job: Job | None = None
        self.preset_name = ""  # the launch size to compare at (the panel keeps it to its own)
        # These warps hiding memory latency on an SM (the latency page); a tool button is as tall as the list.
        self.sm_button = QToolButton()
        self.sm_button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)  # the list's height
        self._build_layout()
        self.compare_box.currentIndexChanged.connect(lambda _i: self.run_compare())

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(self.compare_label)
        row.addWidget(self.compare_box, 1)
        row.addWidget(self.sm_button)  # the list gives up the width it takes (the tab is narrow in projector type)
        layout.addLayout(row)
        plots = QHBoxLayout()
        plots.addWidget(self.timeline)
        plots.addWidget(self.compare_timeline)
        layout.addLayout(plots, 1)

    def fill_kernels(self, specs: list[kernels.KernelSpec]) -> None:
        """No kernel ("—"), then ``specs``, quietly, with the default twin chosen (nothing runs yet)."""
        self.compare_box.blockSignals(True)
        self.compare_box.addItem("—", "")
        for spec in specs:
            self.compare_box.addItem(texts.kernel_title(spec), spec.entry)
        self.compare_box.setCurrentIndex(max(0, self.compare_box.findData(DEFAULT_COMPARE)))
        self.compare_box.blockSignals(False)

    # ............................................................ the followed warp
    def show_warp(self, session: ws.WarpSession, row: int, spec: kernels.KernelSpec) -> None:
        """The timeline of warp ``row`` of ``session`` (emulating ``spec``)."""
        self.timeline.set_timeline(session.timeline(row), texts.kernel_title(spec))

    def follow(self, session: ws.WarpSession, row: int, spec: kernels.KernelSpec, own_step: int) -> None:
        """Put the cursor at ``own_step`` of warp ``row``, showing that warp first if needed."""
        if self.timeline.timeline is None or self.timeline.timeline.warp != session.warps[row]:
            self.show_warp(session, row, spec)
        self.timeline.set_cursor_step(own_step)

    # ............................................................ the kernel compared
    def run_compare(self) -> Job | None:
        """Emulate the kernel chosen for comparison, at ``preset_name`` where it has that size."""
        entry = self.compare_box.currentData()
        self.cancel()
        if not entry:
            self.compare_session = None
            self.compare_timeline.set_timeline(None)
            return None
        spec = experiments.kernel(entry)
        names = [p.name for p in spec.presets]
        preset = spec.preset(self.preset_name if self.preset_name in names else names[0])
        job = self.runner.submit(
            fill(translate("WarpPanel", "Emulate %1"), entry),
            "cpu",
            lambda ctx: ws.emulate(spec, preset, spec.source, 0, ctx),
        )
        self.compare_job = job
        job.finished.connect(lambda session: self._compared(job, session))
        return job

    def _compared(self, job: Job, session: ws.WarpSession) -> None:
        if not isValid(self) or job is not self.compare_job:
            return
        self.compare_session = session
        self.show_compare()

    def show_compare(self) -> None:
        other = self.compare_session
        if other is None:
            self.compare_timeline.set_timeline(None)
            return
        self.compare_timeline.set_timeline(other.timeline(0), texts.kernel_title(experiments.kernel(other.entry)))

    def cancel(self) -> None:
        if self.compare_job is not None and not self.compare_job.is_over:
            self.compare_job.cancel()

    # ............................................................ texts and looks
    def retranslate(self) -> None:
        self.compare_label.setText(translate("WarpPanel", "Compare with:"))
        self.sm_button.setText(translate("WarpPanel", "SM view"))
        self.sm_button.setToolTip(
            translate("WarpPanel", "Open in SM view: this kernel's warps hiding memory latency (the latency page)")
        )
        for index in range(1, self.compare_box.count()):  # after "—", no kernel
            spec = experiments.kernel(self.compare_box.itemData(index))
            self.compare_box.setItemText(index, texts.kernel_title(spec))
        self.show_compare()

    def restyle(self, theme: Theme) -> None:
        self.timeline.restyle(theme)
        self.compare_timeline.restyle(theme)
