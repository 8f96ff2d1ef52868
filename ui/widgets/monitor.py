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
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QFontMetrics, QHideEvent, QResizeEvent, QShowEvent
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


Ticks = list[tuple[float, str]]


def _small_plot(y_max: float | None) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setMinimumSize(90, 80)  # raised to the type size by MonitorStrip.fit_to_type
    plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    half = WINDOW_S / 2
    x_ticks = [(-WINDOW_S, f"−{WINDOW_S:g} s"), (-half, f"−{half:g} s"), (0.0, "0 s")]
    y_ticks = [(0.0, "0"), (y_max / 2, f"{y_max / 2:g}"), (y_max, f"{y_max:g}")] if y_max is not None else None
    if y_ticks is None:
        plot.enableAutoRange(axis="y")
    plot.end_room = EndLabelRoom(plot, x_ticks, y_ticks)  # type: ignore[attr-defined]
    style_plot(plot)
    return plot


class EndLabelRoom(QObject):
    """Fixed ticks on a plot, with room in pixels for the labels of the end ticks.

    pyqtgraph drops a tick label that would stick out of the plot, so a short 0-100 % plot
    showed its 50 alone and a narrow one lost its "−60 s". The range runs from the first tick
    to the last with a margin of half a label (its height for y, its width for x) at each end,
    recomputed whenever the plot is resized (a new type size resizes it too).
    """

    def __init__(self, plot: pg.PlotWidget, x_ticks: Ticks, y_ticks: Ticks | None) -> None:
        super().__init__(plot)
        self.plot, self.x_ticks, self.y_ticks = plot, x_ticks, y_ticks
        item = plot.getPlotItem()
        item.getAxis("bottom").setTicks([x_ticks])
        if y_ticks is not None:
            item.getAxis("left").setTicks([y_ticks])
        item.getViewBox().sigResized.connect(self.fit)
        self.fit()

    def _tick_metrics(self, side: str) -> QFontMetrics:
        font = self.plot.getPlotItem().getAxis(side).style.get("tickFont")
        return QFontMetrics(font if font is not None else self.plot.font())

    def fit(self, *_args) -> None:
        view = self.plot.getPlotItem().getViewBox()
        rect = view.boundingRect()
        widest = max(self._tick_metrics("bottom").horizontalAdvance(text) for _value, text in self.x_ticks)
        view.setXRange(*_with_margin(self.x_ticks, widest / 2 + 2, rect.width()), padding=0)
        if self.y_ticks is not None:
            label = self._tick_metrics("left").height()
            view.setYRange(*_with_margin(self.y_ticks, label / 2 + 2, rect.height()), padding=0)


def _with_margin(ticks: Ticks, margin_px: float, length_px: float) -> tuple[float, float]:
    """From the first tick to the last, widened so that ``margin_px`` of ``length_px`` pixels lie
    beyond each end."""
    low, high = ticks[0][0], ticks[-1][0]
    inner = max(1.0, length_px - 2 * margin_px)
    extra = (high - low) * margin_px / inner
    return low - extra, high + extra


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

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.setMinimumHeight(self.heightForWidth(self.width()))  # the lines its width needs, no more


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
        # Without GPU counters their six plots would only be hidden: not built, they cost no start-up time.
        self.gpu_metrics = GPU_METRICS if self.gpu_source.available else ()
        self.gpu_plots: dict[str, pg.PlotWidget] = {m.key: _small_plot(m.y_max) for m in self.gpu_metrics}
        self.gpu_curves: dict[str, list[pg.PlotDataItem]] = {m.key: [] for m in self.gpu_metrics}
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
        self.fit_to_type()

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
        # Without GPU counters the reason takes their place beside the CPU plot (not a line under
        # it): the strip is no taller than its plot and the CPU plot no wider than it needs.
        plots.addWidget(self.reason, 1, Qt.AlignmentFlag.AlignVCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(plots, 1)
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
        for key, title in self.titles.items():
            title.setText(titles[key])
        reason = engine_message(self.gpu_source.reason_message or self.gpu_source.reason)
        self.reason.setText(self.tr("GPU counters hidden: %1").replace("%1", reason))
        self.reason.setToolTip(self.reason.text())
        self.reason.setMinimumHeight(self.reason.heightForWidth(max(1, self.reason.width())))
        if not self.waiting.isHidden():
            self.waiting.show_text(self.tr("Collecting samples…"))
        self.caveat.setText(self.tr(
            "Note: “GPU utilization” only means a kernel was running during the sample, "
            "not that the SMs were busy; one tiny kernel can show 100%."))  # fmt: skip
        if "util" in self.gpu_plots:
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

    def sizeHint(self) -> QSize:
        """As tall as its plots' least height (a panel that wants it taller says so)."""
        return QSize(super().sizeHint().width(), self.minimumSizeHint().height())

    def fit_to_type(self) -> None:
        """Plots tall enough for three y tick labels and the time axis in this theme's type,
        and their end labels kept (the tick font may have changed)."""
        line = self.fontMetrics().height()
        for plot in (self.cpu_plot, *self.gpu_plots.values()):
            plot.setMinimumHeight(4 * line + 24)
            plot.end_room.fit()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop()
        super().closeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            QTimer.singleShot(0, self, self.fit_to_type)  # after the theme has restyled the plots
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
        for metric in self.gpu_metrics:
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
