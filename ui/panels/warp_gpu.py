"""The warp visualizer's "On a GPU" tab: the same source on a real device, beside the emulator."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from shiboken6 import isValid

from gpulab import kernels
from gpulab.experiments import warp as ws
from ui import i18n
from ui.jobs import Job, JobRunner, plain_error
from ui.panels import warp_texts as texts
from ui.services import DeviceState
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.memory_view import fill

translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls


class GpuTab(QWidget):
    """A run button, the GPU run's verdict (measured) and the emulated counts (emulated).

    ``run`` compares a session with the first CUDA device of ``devices`` in ``runner``; the
    tab keeps the last run (``gpu_run``) and announces it with ``run_arrived``.
    """

    run_arrived = Signal(object)  # the GpuRun

    def __init__(self, runner: JobRunner, devices: DeviceState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner, self.devices = runner, devices
        self.job: Job | None = None
        self.gpu_run: ws.GpuRun | None = None
        self.button = QPushButton()
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.badge = ProvenanceBadge("")
        self.emulated_badge = ProvenanceBadge("")
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self._build_layout()

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(self.button)
        row.addWidget(self.badge)
        row.addWidget(self.state, 1)
        layout.addLayout(row)
        counts = QHBoxLayout()
        counts.addWidget(self.emulated_badge)
        counts.addWidget(self.counts, 1)
        layout.addLayout(counts)
        layout.addStretch(1)

    @property
    def usable(self) -> bool:
        """A CUDA device can run (False while the device check has not finished)."""
        report = self.devices.report
        return bool(report and report.cuda.available)

    def run(self, session: ws.WarpSession | None, spec: kernels.KernelSpec, preset: kernels.LaunchPreset) -> Job | None:
        """Run ``session``'s source on the first GPU: outputs vs the emulator, time from CUDA events."""
        if session is None or not self.usable:
            return None
        job = self.runner.submit(
            fill(translate("WarpPanel", "Run %1 on the GPU"), spec.entry),
            "cuda:0",
            lambda ctx: ws.compare_on_gpu(session, spec, preset, ctx),
        )
        self.job = job
        self.show_running()
        job.finished.connect(lambda run: self._gpu_done(job, run))
        job.failed.connect(lambda exc: self.show_failed(plain_error(exc)))
        return job

    def _gpu_done(self, job: Job, run: ws.GpuRun) -> None:
        if not isValid(self) or job is not self.job:
            return
        self.gpu_run = run
        self.run_arrived.emit(run)

    def show_session(self, session: ws.WarpSession | None) -> None:
        """The emulated counts of ``session``, the last GPU run, or why there is none (in the
        interface language)."""
        report = self.devices.report
        reason = i18n.device_reason(report.cuda) if report else None
        self.show_run(session, self.gpu_run, self.usable, reason)

    def cancel(self) -> None:
        if self.job is not None and not self.job.is_over:
            self.job.cancel()

    def retranslate(self) -> None:
        self.button.setText(translate("WarpPanel", "Run on the GPU"))

    def show_run(self, session: ws.WarpSession | None, run: ws.GpuRun | None, usable: bool, reason: str | None) -> None:
        """Show the emulated counts of ``session`` and the GPU ``run`` (or why there is none).

        ``usable``: a CUDA device can run; ``reason``: why not, from the device check (None
        while the check has not finished).
        """
        self.button.setEnabled(usable and session is not None)
        self.emulated_badge.set_kind("emulated" if session else "")
        if session is not None:
            self.counts.setText(texts.emulated_counts_text(dict(session.metrics)))
        if run is None:
            self.badge.set_kind("")
            self.state.setText(texts.no_gpu_run_text(usable, reason))
            return
        self.badge.set_kind("measured")
        self.state.setText(texts.gpu_run_text(run))

    def show_running(self) -> None:
        self.state.setText(translate("WarpPanel", "Running on the GPU…"))

    def show_failed(self, reason: str) -> None:
        self.state.setText(fill(translate("WarpPanel", "The GPU run failed: %1"), reason))
