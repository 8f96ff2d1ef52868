"""A warp's timeline: its own step number vs active lanes. Serialized branch paths show up as
a staircase (32 lanes, then 16 + 16, ...); two of these side by side compare two kernels.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gpulab.experiments import warp as ws
from ui.theme import Theme, current_theme, curve_pen, style_plot
from ui.widgets.flow_layout import WrapLabel

translate = QCoreApplication.translate


def staircase_summary(timeline: ws.Timeline) -> tuple[int, float]:
    """(steps, mean active lanes) of a warp."""
    steps = len(timeline.active_lanes)
    return steps, float(timeline.active_lanes.mean()) if steps else 0.0


class WarpTimeline(QWidget):
    """Step curve of active lanes for one warp, with a cursor at the current step.

    Clicking the plot emits ``step_clicked`` with the timeline index of the warp's step there.
    """

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, with_cursor: bool = True) -> None:
        super().__init__(parent)
        self.with_cursor = with_cursor
        self.timeline: ws.Timeline | None = None
        self.name = ""
        self.caption = WrapLabel(max_lines=2)  # the whole caption in its tooltip when cut
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.setYRange(0, ws.WARP + 1, padding=0)
        self.plot.getPlotItem().getAxis("left").setTicks([[(v, str(v)) for v in (0, 8, 16, 24, 32)]])
        self.curve = self.plot.plot([], [], stepMode="center", fillLevel=0)
        self.cursor = pg.InfiniteLine(angle=90, movable=False)
        self.plot.addItem(self.cursor)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot, 1)
        self.restyle(current_theme())
        self._fit_to_type()
        self.retranslate()

    def set_timeline(self, timeline: ws.Timeline | None, name: str = "") -> None:
        self.timeline, self.name = timeline, name
        if timeline is None or len(timeline.active_lanes) == 0:
            self.curve.setData([], [])
            self.cursor.setVisible(False)
        else:
            lanes = timeline.active_lanes.astype(float)
            edges = np.arange(len(lanes) + 1, dtype=float)
            self.curve.setData(edges, lanes)
            self.plot.setXRange(0, len(lanes), padding=0.02)
            self.cursor.setVisible(self.with_cursor)
        self.retranslate()

    def own_step_at(self, x: float) -> int | None:
        """The warp's own step under plot coordinate ``x`` (None off the curve)."""
        if self.timeline is None or not 0 <= x < len(self.timeline.active_lanes):
            return None
        return int(x)

    def _clicked(self, event) -> None:
        if self.timeline is None or not self.with_cursor:
            return
        point = self.plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        own = self.own_step_at(point.x())
        if own is not None:
            self.step_clicked.emit(int(self.timeline.global_step[own]))

    def set_cursor_step(self, own_step: int) -> None:
        """Put the cursor on the warp's ``own_step``-th step."""
        self.cursor.setPos(own_step + 0.5)

    def restyle(self, theme: Theme) -> None:
        style_plot(self.plot, theme)
        pen = curve_pen(0, theme)
        self.curve.setPen(pen)
        colour = pg.mkColor(theme.curve_colors[0])
        colour.setAlpha(70)
        self.curve.setBrush(pg.mkBrush(colour))
        self.cursor.setPen(pg.mkPen(theme.curve_colors[1], width=theme.line_width))

    def retranslate(self) -> None:
        self.plot.setLabel("left", translate("WarpTimeline", "active lanes"))
        self.plot.setLabel("bottom", translate("WarpTimeline", "step of this warp"))
        if self.timeline is None:
            self.caption.setText(self.name or translate("WarpTimeline", "Nothing run yet."))
            self.caption.setToolTip("")
            return
        steps, mean = staircase_summary(self.timeline)
        text = translate(
            "WarpTimeline", "%1 — warp %2 alone: %3 steps, %4 of 32 lanes active on average (%5 %)"
        )
        values = (self.name, self.timeline.warp, steps, f"{mean:.1f}", f"{100 * mean / 32:.1f}")
        for i, value in reversed(list(enumerate(values, 1))):
            text = text.replace(f"%{i}", str(value))
        self.caption.setText(text)
        self.caption.setToolTip(
            text + "\n\n" + translate(
                "WarpTimeline",
                "This warp's own steps only. The warp execution efficiency metric averages every warp "
                "of the launch, and the warp-steps count on the GPU tab counts every warp's steps.",
            )
        )

    def _fit_to_type(self) -> None:
        """A chart tall enough for its vertical axis title and five ticks in the current type."""
        line = self.fontMetrics().height()
        self.plot.setMinimumHeight(6 * line)
        self.plot.getPlotItem().getAxis("left").setWidth(round(2.6 * line))  # ticks and the title beside them

    def resizeEvent(self, event: QResizeEvent) -> None:
        # short (a tab opened on a small screen in large type): the caption keeps one line, the
        # chart the rest; all of the caption is in its tooltip
        line = self.fontMetrics().height()
        self.caption.set_lines(1, 1 if event.size().height() < 10 * line else 2)
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.FontChange:
            self._fit_to_type()
        super().changeEvent(event)
