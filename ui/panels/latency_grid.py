"""The latency-hiding animation's moving parts: the SM model stepped a cycle at a time, and the
warps x cycles picture it draws.

:class:`SmAnimation` holds two of the engine's generators (:func:`gpulab.latency.sm.simulate`):
the SM with its warps and four schedulers, and a CPU core given the same instruction stream and
the same latency with one thread and nothing to switch to (the configuration of
:func:`gpulab.latency.sm.cpu_contrast`). Each step takes one cycle from both and keeps the last
:data:`WINDOW` cycles of states, the issue slots used and the loads in flight.

:class:`StateGrid` draws such a window as one image (rows: the issue slots, then the warps;
columns: cycles, the newest on the right); its pyqtgraph items are made once and only get new
pixels.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor

from gpulab.latency import sm
from ui.theme import current_theme

translate = QCoreApplication.translate
WINDOW = 240  # cycles on screen
ENDLESS = 1 << 40  # the generators' cycle count: the animation stops when the user does
# Pixel values of the picture (the engine's states first).
ISSUING, READY, STALLED = sm.ISSUING, sm.READY, sm.STALLED
SLOT_BUSY, SLOT_IDLE, GAP = 3, 4, 5
# Okabe-Ito colours (told apart with colour-blindness too), the same on every theme.
COLOURS = {ISSUING: "#009e73", READY: "#56b4e9", STALLED: "#d55e00", SLOT_BUSY: "#009e73", SLOT_IDLE: "#c8c8c8"}


def state_names() -> dict[int, str]:
    return {
        ISSUING: translate("LatencyPanel", "issuing"),
        READY: translate("LatencyPanel", "ready, waiting for its turn"),
        STALLED: translate("LatencyPanel", "stalled on memory"),
        SLOT_IDLE: translate("LatencyPanel", "issue slot idle"),
    }


class Track:
    """One machine's last cycles: states per warp, slots used per scheduler, loads in flight."""

    def __init__(self, warps: int, schedulers: int) -> None:
        self.warps, self.schedulers = warps, schedulers
        self.owner = np.arange(warps) % schedulers
        self.states = np.full((warps, WINDOW), -1, dtype=np.int8)  # -1: not simulated yet
        self.slots = np.zeros((schedulers, WINDOW), dtype=np.int8)  # 1: the scheduler issued
        self.in_flight = np.zeros(WINDOW, dtype=np.int64)
        self.filled = 0
        self.in_flight_now = 0

    def add(self, state: sm.CycleState) -> None:
        issuing = state.states == ISSUING
        busy = np.bincount(self.owner[issuing], minlength=self.schedulers) > 0
        for array, column in ((self.states, state.states), (self.slots, busy.astype(np.int8))):
            array[:, :-1] = array[:, 1:]
            array[:, -1] = column
        self.in_flight[:-1] = self.in_flight[1:]
        self.in_flight[-1] = state.in_flight
        self.in_flight_now = state.in_flight
        self.filled = min(self.filled + 1, WINDOW)

    def utilisation(self) -> float:
        """Share of the issue slots of the cycles on screen that issued an instruction."""
        if not self.filled:
            return 0.0
        return float(self.slots[:, -self.filled:].sum()) / (self.schedulers * self.filled)

    @property
    def slot_height(self) -> int:
        """Picture rows per issue slot: the slots stay a visible band beside many warps."""
        return max(1, round(self.warps / (4 * self.schedulers)))

    def picture(self) -> np.ndarray:
        """Rows: the schedulers' issue slots, a gap, then the warps; values: the pixel codes."""
        slots = np.repeat(np.where(self.slots == 1, SLOT_BUSY, SLOT_IDLE).astype(np.int8), self.slot_height, axis=0)
        if self.filled < WINDOW:
            slots[:, : WINDOW - self.filled] = GAP
        states = np.where(self.states < 0, GAP, self.states).astype(np.int8)
        gap = np.full((1, WINDOW), GAP, dtype=np.int8)
        return np.vstack([slots, gap, states])


class SmAnimation:
    """The SM model and the CPU core, stepped together a cycle at a time."""

    SCHEDULERS = 4

    def __init__(self) -> None:
        self.stream: np.ndarray | None = None
        self.cycle = 0
        self.warps = 1
        self.latency = 1
        self.sm: Track = Track(1, self.SCHEDULERS)
        self.cpu: Track = Track(1, 1)
        self._sm_run = self._cpu_run = None

    def reset(self, stream: np.ndarray, warps: int, latency: int, requests_per_cycle: float) -> None:
        self.stream, self.warps, self.latency, self.cycle = stream, warps, latency, 0
        config = sm.SmConfig(schedulers=self.SCHEDULERS, latency=latency, requests_per_cycle=requests_per_cycle)
        self._sm_run = sm.simulate(stream, warps, config, ENDLESS, chunk=1)
        # cpu_contrast's core: one thread, one issue slot, the same latency, a memory that never queues.
        core = sm.SmConfig(schedulers=1, latency=latency, requests_per_cycle=1.0)
        self._cpu_run = sm.simulate(stream, 1, core, ENDLESS, chunk=1)
        self.sm, self.cpu = Track(warps, self.SCHEDULERS), Track(1, 1)

    @property
    def ready(self) -> bool:
        return self._sm_run is not None

    def step(self, cycles: int = 1) -> None:
        if self._sm_run is None or self._cpu_run is None:
            return
        for _ in range(cycles):
            self.sm.add(next(self._sm_run))
            self.cpu.add(next(self._cpu_run))
            self.cycle += 1


def lookup_table() -> np.ndarray:
    """RGBA per pixel code; the gap is the theme's background."""
    table = np.zeros((GAP + 1, 4), dtype=np.ubyte)
    colours = {**COLOURS, GAP: current_theme().base}
    for code, name in colours.items():
        colour = QColor(name)
        table[code] = (colour.red(), colour.green(), colour.blue(), 255)
    return table


class StateGrid:
    """A pyqtgraph plot showing a :class:`Track`'s picture; made once, ``show`` gives it new pixels."""

    def __init__(self, rows_title: str = "") -> None:
        import pyqtgraph as pg

        from ui.theme import style_plot

        self.widget = pg.PlotWidget()
        self.widget.setMenuEnabled(False)
        self.widget.setMouseEnabled(x=False, y=False)
        self.widget.hideButtons()
        item = self.widget.getPlotItem()
        item.invertY(True)
        item.showAxis("bottom", False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setLookupTable(lookup_table())
        self.image.setLevels((0, GAP))
        item.addItem(self.image)
        self.rows_title = rows_title
        self.row_ticks: list[tuple[float, str]] = []
        style_plot(self.widget)
        item.showGrid(x=False, y=False)

    def restyle(self) -> None:
        from ui.theme import style_plot

        style_plot(self.widget)
        self.widget.getPlotItem().showGrid(x=False, y=False)
        self.image.setLookupTable(lookup_table())

    def fit_to_type(self, line_px: int) -> None:
        """Half a line above and below the picture: a row name centred on the first or last row keeps
        its whole height inside the widget (pyqtgraph lets left-axis labels run past the picture)."""
        margin = (line_px + 1) // 2
        self.widget.getPlotItem().setContentsMargins(0, margin, 0, margin)

    def show(self, track: Track, row_names: tuple[str, str]) -> None:
        """``track``'s window; the left axis names the slot band and the warp band (``row_names``), each
        at the band's middle, so the two names stay apart however few pixels the slot band gets."""
        picture = track.picture()
        self.image.setImage(picture, autoLevels=False, levels=(0, GAP))
        rows = picture.shape[0]
        slots, warps = row_names
        band = track.schedulers * track.slot_height
        self.row_ticks = [(band / 2, slots), (band + 1 + track.warps / 2, warps)]  # (picture row, name)
        self.widget.getPlotItem().getAxis("left").setTicks([self.row_ticks, []])
        self.widget.getPlotItem().setRange(xRange=(0, WINDOW), yRange=(0, rows), padding=0)
