"""The live monitor strip: scrolling CPU and GPU counters under any panel.

A :class:`~gpulab.monitor.Sampler` thread samples in the background; a QTimer on the GUI
thread reads its history 4 times a second and updates plots created once. The sampler runs
only while the strip is visible, and stops (its thread joined) when the strip hides or closes.
Sources this machine lacks are hidden, and a line says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from gpulab.monitor import GpuSample, Sampler, Snapshot
from ui.i18n import engine_message
from ui.theme import curve_pen, style_plot
from ui.widgets.live_plot import PlotPlaceholder

REFRESH_MS = 250
WINDOW_S = 60.0
GIB = float(1 << 30)


@dataclass(frozen=True)
class GpuMetric:
    """One GPU plot: its key, how to read its value(s) from a sample (one curve each), its y range."""

    key: str
    reads: tuple[Callable[[GpuSample], float | None], ...]
    y_max: float | None = None


def _per_second_gb(value: float | None) -> float | None:
    return None if value is None else value / 1e9


GPU_METRICS: tuple[GpuMetric, ...] = (
    GpuMetric("util", (lambda g: g.utilization_pct,), 100.0),
    GpuMetric("memory", (lambda g: None if g.memory_used_bytes is None else g.memory_used_bytes / GIB,)),
    GpuMetric("clock", (lambda g: g.sm_clock_mhz,)),
    GpuMetric("power", (lambda g: g.power_w,)),
    GpuMetric("temperature", (lambda g: g.temperature_c,)),
    GpuMetric("pcie", (lambda g: _per_second_gb(g.pcie_tx_bytes_s), lambda g: _per_second_gb(g.pcie_rx_bytes_s))),
)


def _small_plot(y_max: float | None) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setMinimumSize(90, 80)  # room for the 0, 50 and 100 ticks and the time axis
    plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.setXRange(-WINDOW_S, 0, padding=0.04)  # room for the end ticks' labels
    if y_max is not None:
        plot.setYRange(0, y_max, padding=0.12)  # 0 and 100 keep their labels
        plot.getPlotItem().getAxis("left").setTicks([[(0, "0"), (y_max / 2, f"{y_max / 2:g}"), (y_max, f"{y_max:g}")]])
    else:
        plot.enableAutoRange(axis="y")
    half = WINDOW_S / 2
    plot.getPlotItem().getAxis("bottom").setTicks([[(-WINDOW_S, f"−{WINDOW_S:g} s"), (-half, f"−{half:g} s"),
                                                    (0, "0 s")]])  # fmt: skip
    style_plot(plot)
    return plot


class WrappedLine(QLabel):
    """A label that wraps at its width, without telling layouts it has a height-for-width.

    A height-for-width child makes a scrolling panel as tall as its size hint (a scroll bar
    appears at 1024 x 768); the owner sets the height the wrapped text needs instead.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setMinimumWidth(1)  # wraps to the strip's width, never widens the window

    def hasHeightForWidth(self) -> bool:
        return False


class MonitorStrip(QWidget):
    """CPU per-core utilization and, with NVML, GPU counters, as small scrolling plots."""

    def __init__(self, sampler: Sampler | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sampler = sampler or Sampler(hz=4.0)
        # If the widget is deleted without being closed, nothing else would stop the thread.
        sampler_of_this_strip = self.sampler
        self.destroyed.connect(lambda *_args: sampler_of_this_strip.stop())
        available = {source.name: source for source in self.sampler.sources()}
        self.gpu_source = available["nvml"]
        self.cpu_plot = _small_plot(100.0)
        self.cpu_curves: list[pg.PlotDataItem] = []
        self.gpu_plots: dict[str, pg.PlotWidget] = {m.key: _small_plot(m.y_max) for m in GPU_METRICS}
        self.gpu_curves: dict[str, list[pg.PlotDataItem]] = {m.key: [] for m in GPU_METRICS}
        self.titles: dict[str, QLabel] = {}
        self.reason = WrappedLine()
        self.caveat = QLabel()
        self.caveat.setWordWrap(True)
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self._build()
        self.waiting = PlotPlaceholder(self.cpu_plot, larger_pt=0)  # until two samples make a line
        self._show_sources()
        self.retranslate()

    def _titled(self, key: str, plot: pg.PlotWidget) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        title = QLabel()
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.titles[key] = title
        column.addWidget(title)
        column.addWidget(plot, 1)
        return box

    def _build(self) -> None:
        plots = QHBoxLayout()
        plots.setContentsMargins(0, 0, 0, 0)
        self.cpu_box = self._titled("cpu", self.cpu_plot)
        plots.addWidget(self.cpu_box, 1)
        self.gpu_boxes = {key: self._titled(key, plot) for key, plot in self.gpu_plots.items()}
        for box in self.gpu_boxes.values():
            plots.addWidget(box, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(plots, 1)
        layout.addWidget(self.reason)
        layout.addWidget(self.caveat)

    def _show_sources(self) -> None:
        has_gpu = self.gpu_source.available
        for box in self.gpu_boxes.values():
            box.setVisible(has_gpu)
        self.caveat.setVisible(has_gpu)
        self.reason.setVisible(not has_gpu)

    def retranslate(self) -> None:
        titles = {
            "cpu": self.tr("CPU per core (%)"),
            "util": self.tr("GPU utilization (%)"),
            "memory": self.tr("GPU memory used (GiB)"),
            "clock": self.tr("SM clock (MHz)"),
            "power": self.tr("Power (W)"),
            "temperature": self.tr("Temperature (°C)"),
            "pcie": self.tr("PCIe TX / RX (GB/s)"),
        }
        for key, text in titles.items():
            self.titles[key].setText(text)
        reason = engine_message(self.gpu_source.reason_message or self.gpu_source.reason)
        self.reason.setText(self.tr("GPU counters hidden: %1").replace("%1", reason))
        self.reason.setToolTip(self.reason.text())
        self._fit_reason()
        if not self.waiting.isHidden():
            self.waiting.show_text(self.tr("Collecting samples…"))
        self.caveat.setText(self.tr(
            "Note: “GPU utilization” only means a kernel was running during the sample, "
            "not that the SMs were busy; one tiny kernel can show 100%."))  # fmt: skip
        self.gpu_plots["util"].setToolTip(self.caveat.text())

    # ------------------------------------------------------------ sampling

    def start(self) -> None:
        self.sampler.start()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self.sampler.stop()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self.stop()
        super().hideEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_reason()

    def _fit_reason(self) -> None:
        """As many lines as the reason needs at the strip's width."""
        width = max(self.width() - 4, 100)
        self.reason.setFixedHeight(self.reason.heightForWidth(width))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop()
        super().closeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # ------------------------------------------------------------ drawing

    def refresh(self) -> None:
        """Redraw every plot from the sampler's history (called by the timer)."""
        history = self.sampler.history()
        if len(history) >= 2:
            self.waiting.dismiss()
        if not history:
            return
        times = np.array([s.time_s for s in history]) - history[-1].time_s
        self._draw_cpu(times, history)
        if history[-1].gpus:
            self._draw_gpus(times, history)

    def _curves(self, plot: pg.PlotWidget, curves: list[pg.PlotDataItem], count: int) -> list[pg.PlotDataItem]:
        while len(curves) < count:  # created once, then only setData
            curve = plot.plot(pen=curve_pen(len(curves)))
            curve.setClipToView(True)
            curves.append(curve)
        return curves

    def _draw_cpu(self, times: np.ndarray, history: tuple[Snapshot, ...]) -> None:
        cores = len(history[-1].cpu_percent)
        rows = [s.cpu_percent for s in history if len(s.cpu_percent) == cores]
        values = np.array(rows, dtype=float).reshape(len(rows), cores)
        xs = times[-len(rows) :]
        for core, curve in enumerate(self._curves(self.cpu_plot, self.cpu_curves, cores)):
            curve.setData(xs, values[:, core])

    def _draw_gpus(self, times: np.ndarray, history: tuple[Snapshot, ...]) -> None:
        count = len(history[-1].gpus or ())
        for metric in GPU_METRICS:
            wanted = count * len(metric.reads)
            curves = self._curves(self.gpu_plots[metric.key], self.gpu_curves[metric.key], wanted)
            for number, curve in enumerate(curves):
                index, read = divmod(number, len(metric.reads))
                xs, ys = _gpu_values(times, history, index, metric.reads[read])
                curve.setData(xs, ys)


def _gpu_values(
    times: np.ndarray, history: tuple[Snapshot, ...], index: int, read: Callable[[GpuSample], float | None]
) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for t, snapshot in zip(times, history, strict=True):
        gpus = snapshot.gpus or ()
        value = read(gpus[index]) if index < len(gpus) else None
        if value is not None:
            xs.append(t)
            ys.append(value)
    return np.array(xs, dtype=float), np.array(ys, dtype=float)
