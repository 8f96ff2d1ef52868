"""The warp visualizer's "On a GPU" tab: the same source on a real device, beside the emulator."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpulab.experiments import warp as ws
from ui.panels import warp_texts as texts
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.memory_view import fill

translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls


class GpuTab(QWidget):
    """A run button, the GPU run's verdict (measured) and the emulated counts (emulated)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
