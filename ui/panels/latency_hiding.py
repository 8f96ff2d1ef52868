"""The latency-hiding view: an SM with N warps running a lab kernel's emulated instruction stream,
animated cycle by cycle beside a CPU core that has the same latency and one thread, and the
throughput the model reaches as warps are added (Little's law marked, the memory roof drawn).

The instruction stream is emulated and the sweep run in the job runner's worker; the animation
steps the engine's generator on a QTimer, a few cycles a tick.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpulab import experiments
from gpulab.latency import gpu_levels, sm
from gpulab.occupancy import arch_limits, known_archs
from ui.jobs import JobRunner
from ui.panels import warp_texts
from ui.panels.latency_grid import COLOURS, SmAnimation, StateGrid, state_names
from ui.theme import current_theme, style_plot
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.flow_layout import FlowBox, WrapLabel, group

DEFAULT_KERNEL = "matmul_tiled"  # enough arithmetic per load that the issue slots fill as warps are added
PUBLISHED_ARCH = "sm_75"  # the architecture whose DRAM latency the view starts with (the ladder tab's first GPU)
FALLBACK_LATENCY = 400  # cycles, the SM model's default, where no published figure is listed
SPEEDS = (1, 5, 25, 100)  # cycles per tick
TICK_MS = 40
ROOF_HEADROOM = 1.5  # the chart's top as a multiple of the memory roof: room for its two-line name
SWEEP_CYCLES = 12_000  # long enough for the warps to fall out of step after their first loads


def most_warps() -> int:
    """The most resident warps per SM of any architecture in the limits table (64)."""
    return max(arch_limits(arch).max_warps_per_sm for arch in known_archs())


def published_latency(arch: str = PUBLISHED_ARCH) -> tuple[int, gpu_levels.GpuLevels | None]:
    """(cycles, the published levels) of ``arch``'s DRAM latency (None: no figure listed)."""
    levels = gpu_levels.levels(arch)
    return (FALLBACK_LATENCY, None) if levels is None else (levels.dram_mid_cycles, levels)


def sweep_counts(top: int) -> list[int]:
    return sorted({1, 2, 3, *range(4, top + 1, 4), top})


def model_sweep(stream: np.ndarray, latency: int, rate: float, top: int) -> dict[str, Any]:
    """The throughput curve, Little's law and the CPU core, for the worker thread."""
    config = sm.SmConfig(schedulers=SmAnimation.SCHEDULERS, latency=latency, requests_per_cycle=rate)
    runs = [sm.run(stream, count, config, SWEEP_CYCLES) for count in sweep_counts(top)]
    roof = sm.load_roof(stream, rate)
    little = sm.littles_law_warps(stream, config)  # the loads' share of the pipe, in flight for the latency
    return {"runs": runs, "little": little, "saturated": sm.saturation_warps(runs), "roof": roof,
            "cpu": sm.cpu_contrast(stream, latency, SWEEP_CYCLES), "rate": rate}  # fmt: skip


class HidingView(QWidget):
    """Controls, the SM's warps x cycles, the CPU core's cycles, the live numbers and the sweep."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.animation = SmAnimation()
        self.sweep: dict[str, Any] | None = None
        self._asked: tuple = ()  # the settings of the newest request (older answers are dropped)
        self.arch = PUBLISHED_ARCH  # whose published DRAM latency the view uses (while the user gives none)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.step(self.speed()))
        self._make_widgets()
        self._build_layout()
        self._connect()

    # ------------------------------------------------------------ building

    def _make_widgets(self) -> None:
        self.kernel_label, self.warps_label, self.latency_label = QLabel(), QLabel(), QLabel()
        self.rate_label, self.speed_label = QLabel(), QLabel()
        self.kernel_combo = QComboBox()
        self.kernel_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kernel_combo.setMinimumContentsLength(14)
        for spec in experiments.kernel_catalogue().values():
            if not spec.gpu_only:
                self.kernel_combo.addItem(warp_texts.kernel_title(spec), spec.entry)
        self.kernel_combo.setCurrentIndex(max(0, self.kernel_combo.findData(DEFAULT_KERNEL)))
        self.warps_slider = QSlider(Qt.Orientation.Horizontal)
        self.warps_slider.setRange(1, most_warps())
        self.warps_slider.setValue(48)  # past Little's law for the lab kernels at the starting latency
        self.warps_value = QLabel()
        self.latency_box = QSpinBox()
        self.latency_box.setRange(1, 10_000)
        self.latency_box.setValue(published_latency()[0])
        self.latency_box.setKeyboardTracking(False)
        self.rate_box = QDoubleSpinBox()
        self.rate_box.setRange(0.005, 1.0)
        self.rate_box.setDecimals(3)
        self.rate_box.setSingleStep(0.01)
        self.rate_box.setValue(0.05)
        self.rate_box.setKeyboardTracking(False)
        self.play_button, self.step_button = QPushButton(), QPushButton()
        self.play_button.setCheckable(True)
        self.speed_combo = QComboBox()
        for cycles in SPEEDS:
            self.speed_combo.addItem("", cycles)
        self.speed_combo.setCurrentIndex(2)
        self.controls = FlowBox(spacing=12, row_spacing=4)
        self.source_line = WrapLabel()  # whole: the source's short name keeps it to a few lines
        self.sm_grid, self.cpu_grid = StateGrid(), StateGrid()
        self.sm_title, self.cpu_title = WrapLabel(max_lines=2), WrapLabel(max_lines=2)
        self.sm_numbers, self.cpu_numbers = WrapLabel(max_lines=2), WrapLabel(max_lines=2)
        self.keys = FlowBox(spacing=16, row_spacing=0)  # a key never breaks inside: the row wraps between keys
        self.key_labels = {code: QLabel() for code in state_names()}
        self.keys.add(*self.key_labels.values())
        self.emulated_badge, self.modelled_badge = ProvenanceBadge("emulated"), ProvenanceBadge("modelled")
        self.controls.add(group(self.kernel_label, self.kernel_combo),
                          group(self.warps_label, self.warps_slider, self.warps_value),
                          group(self.latency_label, self.latency_box), group(self.rate_label, self.rate_box),
                          group(self.play_button, self.step_button), group(self.speed_label, self.speed_combo),
                          group(self.emulated_badge, self.modelled_badge))  # fmt: skip
        self._make_chart()

    def _make_chart(self) -> None:
        import pyqtgraph as pg

        self.chart = pg.PlotWidget()
        self.chart.setMenuEnabled(False)
        self.chart.setMouseEnabled(x=False, y=False)
        self.curve = self.chart.plot([], [], symbol="o", symbolSize=6)
        # Two lines each: the roof's above the roof (the y range leaves it the room: the curve never
        # passes the roof); Little's law's left of its line, above the CPU core's name at the bottom, on
        # the page's colour where the curve runs behind it.
        self.roof = pg.InfiniteLine(angle=0, movable=False, label="",
                                    labelOpts={"position": 0.03, "anchors": [(0, 1), (0, 1)]})
        self.little = pg.InfiniteLine(angle=90, movable=False, label="",
                                      labelOpts={"position": 0.25, "anchors": [(1.05, 0.5), (1.05, 0.5)]})
        self.now = pg.ScatterPlotItem(size=16, symbol="star")
        self.cpu_point = pg.ScatterPlotItem(size=14, symbol="s")
        self.cpu_text = pg.TextItem(anchor=(0, 1))
        for item in (self.roof, self.little, self.now, self.cpu_point, self.cpu_text):
            self.chart.addItem(item)
        self.restyle()

    def _build_layout(self) -> None:
        # The grids get the height: the badges wrap with the controls and the latency's source sits
        # under the chart (a row of their own above the grids cost a third of the SM's rows at 1024x768).
        left = QVBoxLayout()
        left.addWidget(self.sm_grid.widget, 4)  # the titles are the grids' tooltips: the numbers under them say it
        left.addWidget(self.sm_numbers)
        left.addWidget(self.cpu_grid.widget, 1)
        left.addWidget(self.cpu_numbers)
        left.addWidget(self.keys)
        right = QVBoxLayout()
        right.addWidget(self.chart, 1)
        right.addWidget(self.source_line)
        row = QHBoxLayout()
        row.addLayout(left, 3)
        row.addLayout(right, 2)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.controls)
        column.addLayout(row, 1)

    def _connect(self) -> None:
        self.kernel_combo.currentIndexChanged.connect(lambda _i: (self._fit_kernel_combo(), self.prepare()))
        self.warps_slider.valueChanged.connect(self._warps_moved)
        self.latency_box.valueChanged.connect(lambda _v: self.prepare())
        self.rate_box.valueChanged.connect(lambda _v: self.prepare())
        self.play_button.toggled.connect(self._play)
        self.step_button.clicked.connect(lambda: self.step(1))

    def fit_to_type(self) -> None:
        """The grids keep a few text lines of height; the chart a third of the width."""
        line = self.fontMetrics().height()
        self.sm_grid.widget.setMinimumHeight(5 * line)
        self.cpu_grid.widget.setMinimumHeight(int(2.6 * line))  # two row names and half a line above and below
        self.cpu_grid.widget.setMaximumHeight(4 * line)
        self.cpu_grid.fit_to_type(line)  # its names sit on its first and last rows (the SM's sit mid-band)
        self.warps_slider.setMinimumWidth(8 * line)
        self.chart.setMinimumWidth(9 * line)

    # ------------------------------------------------------------ texts

    def retranslate(self) -> None:
        self.kernel_label.setText(self.tr("Kernel:"))
        self.warps_label.setText(self.tr("Warps per SM:"))
        self.latency_label.setText(self.tr("Load latency:"))
        self.latency_box.setSuffix(self.tr(" cycles"))
        self.rate_label.setText(self.tr("Memory:"))
        self.rate_box.setSuffix(self.tr(" requests/cycle"))
        self.rate_box.setToolTip(self.tr("Requests (loads and stores) the memory accepts per cycle: the bandwidth, "
                                         "the memory roof"))
        self.warps_slider.setToolTip(self.tr("Resident warps on the SM (up to %1, the most an SM holds)")
                                     .replace("%1", str(most_warps())))  # fmt: skip
        self.play_button.setText(self.tr("Pause") if self.play_button.isChecked() else self.tr("Play"))
        self.step_button.setText(self.tr("Step"))
        self.step_button.setToolTip(self.tr("One cycle"))
        self.speed_label.setText(self.tr("Speed:"))
        for index, cycles in enumerate(SPEEDS):
            self.speed_combo.setItemText(index, self.tr("%1 cycles/tick").replace("%1", str(cycles)))
        for index in range(self.kernel_combo.count()):
            spec = experiments.kernel(self.kernel_combo.itemData(index))
            self.kernel_combo.setItemText(index, warp_texts.kernel_title(spec))
        self.emulated_badge.setToolTip(self.tr("Emulated: each warp replays warp 0's instructions as the SIMT "
                                               "emulator ran them (global loads, the rest as one-cycle issues)."))
        self.modelled_badge.setToolTip(self.tr("Modelled: a small SM model (four schedulers, one instruction per "
                                               "cycle each, an in-order memory pipe), not measured."))
        self.sm_title.setText(self.tr("SM: issue slots of its 4 schedulers, then each warp"))
        self.cpu_title.setText(self.tr("CPU core: the same instructions and latency, one thread, nothing to switch to"))
        self.sm_grid.widget.setToolTip(self.sm_title.text())
        self.cpu_grid.widget.setToolTip(self.cpu_title.text())
        for code, name in state_names().items():
            self.key_labels[code].setText(f'<span style="color:{COLOURS[code]}">■</span>&nbsp;{name}')
        self._fit_kernel_combo()
        self.chart.setLabel("bottom", self.tr("resident warps"))
        self.chart.setLabel("left", self.tr("loads per cycle"))
        self._show_source()
        self._show_sweep()
        self.show_frame()

    def _show_source(self) -> None:
        """The latency's origin in one short line: the source's name; its full title and address on hover."""
        latency, levels = published_latency(self.arch)
        if levels is not None and self.latency_box.value() == latency:
            text = self.tr("Latency: the DRAM latency published for %1 (%2).").replace("%1", self.arch)
            self.source_line.setText(text.replace("%2", levels.source_short))
            self.source_line.setToolTip(f"{levels.source_title}\n{levels.source_url}")
        else:
            self.source_line.setText(self.tr("Latency: %1 cycles, the figure you gave.")
                                     .replace("%1", str(self.latency_box.value())))  # fmt: skip
            self.source_line.setToolTip("")

    def use_gpu(self, arch: str) -> None:
        """Take the DRAM latency published for ``arch`` (the GPU the ladder tab shows), unless the
        user gave a figure of their own; with no figure listed for it the latency stays."""
        old, _levels = published_latency(self.arch)
        new, levels = published_latency(arch)
        if levels is None or self.latency_box.value() != old:
            return
        self.arch = arch
        with QSignalBlocker(self.latency_box):
            self.latency_box.setValue(new)
        if self._asked:  # already shown: run it again with the new latency
            self.prepare()
        else:
            self._show_source()

    # ------------------------------------------------------------ choosing

    def choose_kernel(self, entry: str) -> bool:
        index = self.kernel_combo.findData(entry)
        if index < 0:
            return False
        if index == self.kernel_combo.currentIndex():
            self.prepare()
        self.kernel_combo.setCurrentIndex(index)
        return True

    def _fit_kernel_combo(self) -> None:
        """As wide as the kernel shown, in pixels: a Chinese name is twice as wide as its character
        count says, and a combo cuts its text without an ellipsis."""
        shown = self.kernel_combo.fontMetrics().horizontalAdvance(self.kernel_combo.currentText())
        self.kernel_combo.setMinimumWidth(shown + 2 * self.fontMetrics().height())  # the arrow and the frame

    def kernel(self) -> str:
        return str(self.kernel_combo.currentData())

    def speed(self) -> int:
        return int(self.speed_combo.currentData())

    def prepare(self) -> None:
        """Emulate the chosen kernel's stream (in the worker), then restart the animation and the sweep."""
        entry, latency, rate = self.kernel(), self.latency_box.value(), self.rate_box.value()
        asked = (entry, latency, rate)
        self._asked = asked
        self.sweep = None
        self._show_source()
        self._show_sweep()
        self.runner.run_task(lambda: sm.emulated_stream(entry), lambda stream: self._stream_arrived(asked, stream))

    def _stream_arrived(self, asked: tuple, stream: np.ndarray) -> None:
        if asked != self._asked:
            return  # the user has since chosen something else
        self._restart(stream)
        top = self.warps_slider.maximum()
        _entry, latency, rate = asked
        self.runner.run_task(lambda: model_sweep(stream, latency, rate, top),
                             lambda found: self._sweep_arrived(asked, found))  # fmt: skip

    def _sweep_arrived(self, asked: tuple, found: dict[str, Any]) -> None:
        if asked == self._asked:
            self.sweep = found
            self._show_sweep()

    def _restart(self, stream: np.ndarray | None = None) -> None:
        stream = stream if stream is not None else self.animation.stream
        if stream is None:
            return
        self.animation.reset(stream, self.warps_slider.value(), self.latency_box.value(), self.rate_box.value())
        self.show_frame()
        self._show_now()

    def _warps_moved(self, warps: int) -> None:
        self.warps_value.setText(str(warps))
        self._restart()

    # ------------------------------------------------------------ the animation

    def _play(self, playing: bool) -> None:
        self.play_button.setText(self.tr("Pause") if playing else self.tr("Play"))
        if playing:
            self.timer.start()
        else:
            self.timer.stop()

    def show_whole(self, whole: bool) -> None:
        """Presenter mode: every line whole, for a room sees no tooltips (the kernel's name always is)."""
        for label in (self.sm_title, self.cpu_title, self.sm_numbers, self.cpu_numbers):
            label.set_lines(1, None if whole else 2)

    def pause(self) -> None:
        self.play_button.setChecked(False)

    def step(self, cycles: int) -> None:
        if not self.animation.ready:
            return
        self.animation.step(cycles)
        self.show_frame()

    def show_frame(self) -> None:
        a = self.animation
        self.warps_value.setText(str(self.warps_slider.value()))
        warps = self.tr("warps 0–%1").replace("%1", str(a.warps - 1)) if a.warps > 1 else self.tr("warp 0")
        self.sm_grid.show(a.sm, (self.tr("slots"), warps))
        self.cpu_grid.show(a.cpu, (self.tr("slot"), self.tr("thread")))
        if not a.ready:
            self.sm_numbers.setText(self.tr("Emulating the kernel…"))
            self.cpu_numbers.setText("")
            return
        text = self.tr("Cycle %1 · %2 warps: issue slots used %3% · loads in flight %4")
        self.sm_numbers.setText(text.replace("%1", str(a.cycle)).replace("%2", str(a.warps))
                                .replace("%3", f"{100 * a.sm.utilisation():.0f}")
                                .replace("%4", str(a.sm.in_flight_now)))  # fmt: skip
        text = self.tr("CPU core: issue slot used %1% · loads in flight %2: it waits out every load")
        self.cpu_numbers.setText(text.replace("%1", f"{100 * a.cpu.utilisation():.0f}")
                                 .replace("%2", str(a.cpu.in_flight_now)))  # fmt: skip

    def utilisation(self) -> float:
        return self.animation.sm.utilisation()

    # ------------------------------------------------------------ the sweep

    def _show_sweep(self) -> None:
        found = self.sweep
        if found is None:
            self.curve.setData([], [])
            self.cpu_point.setData([], [])
            self.cpu_text.setText("")
            self.roof.label.setFormat(self.tr("running the model over warp counts…"))
            self.roof.setPos(0)
            self.little.setPos(-100)
            self.now.setData([], [])
            return
        runs = found["runs"]
        self.curve.setData([r.warps for r in runs], [r.loads_per_cycle for r in runs])
        self.roof.setPos(found["roof"])
        self.roof.label.setFormat(self.tr("memory roof:\n%1 loads/cycle").replace("%1", f"{found['roof']:.3g}"))
        self.little.setPos(found["little"])
        self.little.label.setFormat(self.tr("Little's law:\n%1 warps").replace("%1", f"{found['little']:.0f}"))
        cpu = found["cpu"].loads_per_cycle
        self.cpu_point.setData([1], [cpu])
        self.cpu_text.setText(self.tr("CPU core"))
        self.cpu_text.setPos(1.5, cpu)
        self.chart.getPlotItem().setRange(xRange=(0, self.warps_slider.maximum() + 1),
                                          yRange=(0, ROOF_HEADROOM * found["roof"]), padding=0)  # fmt: skip
        self._show_now()

    def _show_now(self) -> None:
        """The star on the curve at the warps chosen."""
        if self.sweep is None:
            return
        runs = self.sweep["runs"]
        nearest = min(runs, key=lambda r: abs(r.warps - self.warps_slider.value()))
        self.now.setData([nearest.warps], [nearest.loads_per_cycle])

    def sweep_summary(self) -> str:
        """One line: how the throughput grows with the warps (for the exported picture's caption)."""
        if self.sweep is None:
            return ""
        runs, roof = self.sweep["runs"], self.sweep["roof"]

        def share(rate: float) -> str:
            return self.tr("at the roof") if rate >= 0.95 * roof else f"{100 * rate / roof:.0f}%"

        text = self.tr("Loads per cycle against the memory roof: 1 warp %1, %2 warps %3, a CPU core %4.")
        return (text.replace("%1", share(runs[0].loads_per_cycle)).replace("%2", str(runs[-1].warps))
                .replace("%3", share(max(r.loads_per_cycle for r in runs)))
                .replace("%4", share(self.sweep["cpu"].loads_per_cycle)))  # fmt: skip

    # ------------------------------------------------------------ theme

    def restyle(self) -> None:
        import pyqtgraph as pg

        theme = current_theme()
        style_plot(self.chart)
        width = theme.line_width
        self.curve.setPen(pg.mkPen(theme.curve_colors[0], width=width, style=Qt.PenStyle.DashLine))
        self.curve.setSymbolBrush(theme.curve_colors[0])
        self.roof.setPen(pg.mkPen(theme.text, width=max(1, width // 2)))
        self.little.setPen(pg.mkPen(theme.curve_colors[2], width=max(1, width // 2), style=Qt.PenStyle.DashLine))
        for line in (self.roof, self.little):
            line.label.setColor(theme.text)
            line.label.setFont(self.font())
        self.little.label.fill = pg.mkBrush(theme.base)
        self.now.setBrush(pg.mkBrush(theme.curve_colors[1]))
        self.cpu_point.setBrush(pg.mkBrush(theme.curve_colors[3]))
        self.cpu_text.setColor(theme.text)
        self.cpu_text.setFont(self.font())
        for grid in (self.sm_grid, self.cpu_grid):
            grid.restyle()
        self.fit_to_type()

    def shutdown(self) -> None:
        self.timer.stop()
