"""The warp visualizer: step a kernel through the SIMT emulator lane by lane.

The panel owns no science: it builds a :class:`gpulab.experiments.warp.WarpSession` in the job
runner (never on the GUI thread), then only reads it: the lane grid, the code line, the memory
traffic, the metrics and the per-warp timeline all come from the session at the cursor.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget
from shiboken6 import isValid

from gpulab import experiments, kernels
from gpulab.experiments import warp as ws
from ui import i18n
from ui.jobs import Job
from ui.panels import warp_layout, warp_run
from ui.panels import warp_texts as texts
from ui.panels.base import Panel
from ui.panels.warp_controls import KernelControls
from ui.panels.warp_cursor import WarpCursor
from ui.panels.warp_gpu import GpuTab
from ui.panels.warp_options import ConstantsError
from ui.panels.warp_printf import PrintfTab
from ui.panels.warp_timeline_tab import TimelineTab
from ui.services import Services
from ui.theme import current_theme
from ui.widgets.code_view import CodeView
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.lane_grid import LaneGrid
from ui.widgets.memory_view import MemoryView, fill
from ui.widgets.metrics_strip import MetricsStrip
from ui.widgets.transport import Transport

translate = QCoreApplication.translate
DEFAULT_KERNEL = "divergence_even_odd"


# ------------------------------------------------------------------ the panel


class WarpPanel(Panel):
    """Kernel source, lane grid, transport, memory traffic, metrics and timelines."""

    left_column: QVBoxLayout  # the code (and the step's text unless compact): see warp_layout
    right_column: QVBoxLayout  # the lane cells, or (compact) the tabs and the step's text
    below_layout: QVBoxLayout  # the transport and the metrics, or (compact) the lanes and the transport
    legend_items: list[QWidget]  # the colours' keys in the transport's flow: see warp_layout

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.position = WarpCursor(self)  # the session, its current step and the followed warp
        self.job: Job | None = None
        self.job_source = ""  # the source the running (or last) emulation was given
        self.shown_once = False
        self.specs = [s for s in experiments.kernel_catalogue().values() if not s.gpu_only]
        self._make_widgets()
        self.run_state = warp_run.RunState([self.lanes, self.metrics, self.memory, self.timeline_tab, self.printf_tab])
        self._build_layout()
        self._connect()
        self.retranslate()
        self._fill_kernels()
        self._show_gpu()

    # ............................................................ where the cursor stands
    @property
    def session(self) -> ws.WarpSession | None:
        return self.position.session

    @property
    def cursor(self) -> int:
        """The timeline step shown."""
        return self.position.step

    @property
    def row(self) -> int:
        """The warp row followed by the timeline and the memory view."""
        return self.position.row

    # ............................................................ building
    def _make_widgets(self) -> None:
        self.controls = KernelControls()
        # The boxes the panel reacts to, by their own names (tests and shortcuts use them).
        self.kernel_box, self.preset_box = self.controls.kernel_box, self.controls.preset_box
        self.block_box, self.run_button = self.controls.block_box, self.controls.run_button
        self.cancel_button = self.controls.cancel_button
        self.description = WrapLabel(max_lines=1)  # the kernel's one-line purpose, on screen
        self.status = WrapLabel()
        self.code = CodeView()
        self.lanes = LaneGrid()
        self.transport = Transport()
        self.step_label = WrapLabel(min_lines=2)  # room kept: no jumping while stepping
        self.metrics = MetricsStrip()
        self.memory = MemoryView()
        self.timeline_tab = TimelineTab(self.services.runner)
        self.gpu_tab = GpuTab(self.services.runner, self.services.devices)
        self.printf_tab = PrintfTab()  # what the kernel's printf calls printed
        self.tabs = QTabWidget()

    def _build_layout(self) -> None:
        self.tab_area = warp_layout.build(self)  # code | lanes, the metrics under them, the tabs below
        self._fit_to_type()

    def _fit_to_type(self) -> None:
        warp_layout.fit_to_type(self)

    def _share_height(self) -> None:
        warp_layout.share_height(self)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._share_height()

    def _shortcuts(self) -> None:
        """Space, arrows, D and M step the run while the lane grid has focus; Ctrl+Return runs."""
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        keys = {
            "Space": self.transport.toggle_play,
            "Right": lambda: self.set_cursor(self.cursor + 1),
            "Left": lambda: self.set_cursor(self.cursor - 1),
            "D": self.jump_to_next_divergence,
            "M": self.jump_to_next_memory,
        }
        for key, slot in keys.items():
            shortcut = QShortcut(QKeySequence(key), self.lanes, context=context)
            shortcut.activated.connect(slot)
        run = QShortcut(QKeySequence("Ctrl+Return"), self, context=context)
        run.activated.connect(lambda: self.run())
        self.lanes.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def _connect(self) -> None:
        self._shortcuts()
        self.kernel_box.currentIndexChanged.connect(self._kernel_chosen)
        self.preset_box.currentIndexChanged.connect(self._preset_chosen)
        self.block_box.valueChanged.connect(lambda _v: self.run())
        self.controls.shared_box.valueChanged.connect(lambda _v: self.run())
        self.controls.options.fmad_box.toggled.connect(lambda _on: self.run())
        self.controls.options.constants_field.editingFinished.connect(self._constants_entered)
        self.run_button.clicked.connect(lambda: self.run())
        self.cancel_button.clicked.connect(self.cancel)
        self.code.edited.connect(self._edited)
        self.transport.step_requested.connect(lambda delta: self.set_cursor(self.cursor + delta))
        self.transport.seek_requested.connect(lambda g: self.set_cursor(self.position.steps - 1 if g < 0 else g))
        self.transport.next_divergence_requested.connect(self.jump_to_next_divergence)
        self.transport.next_memory_requested.connect(self.jump_to_next_memory)
        self.lanes.lane_hovered.connect(self._lane_hovered)
        self.lanes.row_selected.connect(self.select_row)
        self.gpu_tab.button.clicked.connect(self.run_on_gpu)
        self.timeline_tab.sm_button.clicked.connect(lambda: self.services.navigator.open_sm_view(self.spec.entry))
        self.gpu_tab.run_arrived.connect(self._show_gpu)
        self.position.session_changed.connect(self._show_session)
        self.position.step_changed.connect(lambda _g: self._show_step())
        self.position.row_changed.connect(lambda _row: self._show_row())
        self.timeline_tab.timeline.step_clicked.connect(self.set_cursor)
        self.services.devices.report_changed.connect(self._show_gpu)  # a slot: it dies with the panel

    def _fill_kernels(self) -> None:
        self.controls.fill_kernels(self.specs)
        self.timeline_tab.fill_kernels(self.specs)
        self.kernel_box.setCurrentIndex(max(0, self.kernel_box.findData(DEFAULT_KERNEL)))
        if self.kernel_box.currentIndex() == 0:
            self._kernel_chosen(0)

    def _retitle_kernels(self) -> None:
        """Kernel titles in the interface language (the engine carries the Chinese)."""
        self.controls.retitle()
        self.timeline_tab.retranslate()
        if self.kernel_box.count():
            self._describe_kernel()
            if self.session is not None:
                self.timeline_tab.show_warp(self.session, self.row, self.spec)

    def _describe_kernel(self) -> None:
        description = i18n.engine_text(self.spec, "description")
        self.description.setText(description)
        self.description.setToolTip(description)
        self.kernel_box.setToolTip(description)

    # ............................................................ choosing
    @property
    def spec(self) -> kernels.KernelSpec:
        return self.controls.spec

    @property
    def preset(self) -> kernels.LaunchPreset:
        return self.controls.preset

    def choose_kernel(self, entry: str, preset: str | None = None) -> None:
        """Select a catalogue kernel (and preset); it is emulated at once. An unknown entry is said, not shown."""
        if self.kernel_box.findData(entry) < 0:
            self.services.notifier.warning(self.tr("The warp visualizer has no kernel %1.").replace("%1", entry))
            return
        self.kernel_box.setCurrentIndex(self.kernel_box.findData(entry))
        if preset is not None:
            self.preset_box.setCurrentIndex(self.preset_box.findData(preset))

    def _kernel_chosen(self, _index: int) -> None:
        spec = self.spec
        self.position.set_session(None)  # its lines belong to the previous source
        self.transport.pause()
        self.code.set_source(spec.source)
        self._describe_kernel()
        self.controls.fill_presets(spec)
        self.controls.options.reset()  # its own __constant__ data: as the source initializes it
        self._preset_chosen(0)

    def _preset_chosen(self, _index: int) -> None:
        self.controls.reset_block()
        self.controls.reset_shared()
        self.timeline_tab.preset_name = self.preset.name  # the kernel compared runs at this size
        if self.shown_once:  # until then nothing is emulated: a hidden panel costs nothing
            self.run()
            self.timeline_tab.run_compare()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self.shown_once:
            self.shown_once = True
            self.run()
            self.timeline_tab.run_compare()

    # ............................................................ running
    def run(self) -> Job | None:
        """Emulate the code as it stands in the editor, with the chosen block traced, FMA contraction
        and __constant__ data as the options say; None, the reason shown, when the constants cannot be read."""
        if self.job is not None and not self.job.is_over:
            self.job.cancel()
        self.transport.pause()
        spec, preset, source, block = self.spec, self.preset, self.code.source(), self.block_box.value()
        limit, shared = float(self.controls.limit_box.value()), self.controls.shared_box.value()
        options = self.controls.options
        options.ran_constants = options.constants_field.text()
        try:
            constants, fmad = options.constants(), options.fmad
        except ConstantsError as exc:
            self.job = None  # the cancelled run's end no longer speaks for the panel
            self.controls.show_running(False)
            self.code.clear_error()  # a note from an earlier run is not this one's reason
            self._set_state(warp_run.FAILED, exc)
            return None
        job = self.services.runner.submit(
            fill(self.tr("Emulate %1"), spec.entry),
            "cpu",
            lambda ctx: warp_run.emulation(
                spec, preset, source, block, ctx, limit, shared, fmad=fmad, constants=constants
            ),
        )
        self.job, self.job_source = job, source
        self.code.clear_error()  # the code view stays where it is
        self.controls.show_running(True)
        self._set_state(warp_run.RUNNING)
        job.progress.connect(lambda fraction, message: self._progress(job, fraction, message))
        job.finished.connect(lambda value: self._emulated(job, value))
        job.failed.connect(lambda exc: self._emulation_failed(job, exc))
        job.cancelled.connect(lambda: self._ended(job, warp_run.CANCELLED))
        return job

    def cancel(self) -> None:
        """Stop the running emulation (the Cancel button)."""
        if self.job is not None and not self.job.is_over:
            self.job.cancel()

    def _progress(self, job: Job, fraction: float, message: object) -> None:
        if isValid(self) and job is self.job:
            self.controls.progress.setValue(round(fraction * 1000))
            self.run_state.progress = message
            self.status.setText(self.run_state.text(self.session))

    def _emulated(self, job: Job, value: ws.WarpSession | warp_run.Failed) -> None:
        if isinstance(value, warp_run.Failed):
            self._emulation_failed(job, value.error)
        elif self._ended(job, warp_run.CURRENT):
            self.gpu_tab.gpu_run = None  # it ran the previous session
            self.position.set_session(value)
            if self.code.source() != self.job_source:  # edited while it ran
                self._set_state(warp_run.EDITED)

    def _emulation_failed(self, job: Job, exc: BaseException) -> None:
        if self._ended(job, warp_run.FAILED, exc):
            line = self.run_state.error_line()
            self.code.show_error(line, self.run_state.error_message())
            self.printf_tab.show_error(exc)

    def _ended(self, job: Job, state: str, error: BaseException | None = None) -> bool:
        """The job's end, if it is this panel's current job: the state it leaves."""
        if not isValid(self) or job is not self.job:
            return False
        self.controls.show_running(False)
        self._set_state(state, error)
        return True

    def _edited(self) -> None:
        """The code changed: whatever is shown is no longer its result."""
        self.controls.show_fields_for(self.code.source())
        if self.run_state.state != warp_run.RUNNING:
            self._set_state(warp_run.EDITED)

    def _constants_entered(self) -> None:
        """Enter in (or leaving) the constants field runs, when its text changed since the last run."""
        if self.controls.options.constants_field.text() != self.controls.options.ran_constants:
            self.run()

    def _set_state(self, state: str, error: BaseException | None = None) -> None:
        self.run_state.set(state, error)
        self.metrics.badge.set_kind("" if self.run_state.stale else "emulated")
        self.set_provenance("" if self.run_state.stale else "emulated")
        self.status.setText(self.run_state.text(self.session))

    def run_on_gpu(self) -> Job | None:
        """Run the same source on the first GPU: outputs vs the emulator, time from CUDA events."""
        return self.gpu_tab.run(self.session, self.spec, self.preset)

    # ............................................................ stepping
    def set_cursor(self, g: int) -> None:
        """Show timeline step ``g`` (clamped) everywhere."""
        if not self.position.set_step(g):  # the same step: draw it again all the same
            self._show_step()

    def select_row(self, row: int) -> None:
        """Follow warp ``row`` of the traced block in the timeline and the memory view."""
        if not self.position.select_row(row):
            self._show_row()

    def jump_to_next_divergence(self) -> None:
        if self.session is not None:
            self._jump(self.position.next_divergence(), texts.no_divergence_text(self.session, self.cursor))

    def jump_to_next_memory(self) -> None:
        if self.session is not None:
            self._jump(self.position.next_memory(), texts.no_memory_text(self.cursor))

    def _jump(self, target: int | None, none_text: str) -> None:
        self.transport.pause()
        if target is None:
            self.step_label.setText(none_text)
        else:
            self.set_cursor(target)

    # ............................................................ showing
    def _show_session(self, session: ws.WarpSession | None) -> None:
        """A new emulation arrived: everything shows its first step of its first warp."""
        if session is None:  # the old session is forgotten; its views stay until the next one
            return
        self.lanes.select_row(0)
        self.timeline_tab.show_warp(session, 0, self.spec)
        self.metrics.set_metrics(session.metrics)
        self.printf_tab.show_session(session)
        self.run_state.drawn = True
        self._set_state(warp_run.CURRENT)
        self._show_step()
        self._show_gpu()

    def _show_step(self) -> None:
        """Lanes, code line, memory traffic, transport and step text at the cursor."""
        session, g, row = self.session, self.cursor, self.row
        if session is None or len(session) == 0:
            return
        self.lanes.set_states(session.lane_states(g), session.warps)
        step = session.step(g, row)
        self.code.set_current(step.line, (step.col_start, step.col_end))
        self.memory.set_step(session.memory(g, row))
        self.transport.set_position(g, len(session))
        self.step_label.setText(texts.step_text(session, g, row))
        self.timeline_tab.follow(session, row, self.spec, self.position.own_step())

    def _show_row(self) -> None:
        if self.session is None:
            return
        self.lanes.select_row(self.row)
        self.timeline_tab.show_warp(self.session, self.row, self.spec)
        self._show_step()

    def _lane_hovered(self, row: int, lane: int) -> None:
        if self.session is None:
            return
        text, short = texts.lane_texts(self.session, self.cursor, row, lane)
        self.lanes.hover_label.setText(short if self.metrics.compact else text)
        self.lanes.graphics.setToolTip(text)

    def _show_gpu(self, *_args) -> None:  # a new device report or GPU run
        self.gpu_tab.show_session(self.session)

    # ............................................................ texts and looks
    def retranslate(self) -> None:
        self.controls.retranslate()
        self.lanes.setToolTip(
            self.tr(
                "Click a warp to follow it. Keys: Space play/pause, arrows step, "
                "D next divergence, M next memory access."
            )
        )
        warp_layout.title_tabs(self)
        self.gpu_tab.retranslate()
        self._retitle_kernels()
        if self.session is not None:
            self._show_step()
        self.status.setText(self.run_state.text(self.session))
        if self.code.error_note.isVisible() and self.run_state.error is not None:  # the note in this language
            self.code.show_error(self.run_state.error_line(), self.run_state.error_message())
        self._show_gpu()

    def restyle(self) -> None:
        theme = current_theme()
        self.code.restyle(theme)
        self.lanes.restyle(theme)
        self.memory.restyle(theme)
        self.timeline_tab.restyle(theme)
        self._show_step()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.restyle()
        elif event.type() == QEvent.Type.FontChange:
            self._fit_to_type()
            # Once the theme has reached every widget: the share may move widgets between layouts,
            # which crashes Qt while a style sheet is still being applied to them.
            QTimer.singleShot(0, self, self._share_height)
        super().changeEvent(event)

    def shutdown_jobs(self) -> None:
        self.timeline_tab.cancel()
        self.gpu_tab.cancel()
        if self.job is not None and not self.job.is_over:
            self.job.cancel()
