"""The lane grid: warps x 32 lanes, one colour per lane state, with a legend in words.

One image item with a lookup table draws the whole (warps, 32) uint8 state matrix, so a step
is one ``set_states``. The item scales its tiny image to screen pixels itself (nearest
neighbour, then an unscaled blit): letting QPainter scale it costs ~5x more at 1920x1080,
too slow for 30 frames/s on a laptop. More than ``DETAIL_ROWS`` warps get a downsampled overview
of every warp beside a detail view of ``DETAIL_ROWS`` warps around the selected one.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QLineF, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from gpulab.experiments import warp as ws
from ui.theme import Theme, current_theme
from ui.widgets.flow_layout import FlowBox, WrapLabel, group

DETAIL_ROWS = 32
LANES = ws.WARP
MIN_CELLS_PX = (300, 150)  # the lane cells never get smaller than this (width, height)
LANE_PX = 20  # a lane at least this wide where the cells stand across the panel or on a large screen
COMPACT_CELLS_PX = (LANES * LANE_PX, 40)  # large type on a small screen: the cells under the code, across
WIDE_CELLS_PX = (LANES * LANE_PX, 150)  # a large screen: the cells beside the code

# Colour-blind-safe hues (Okabe-Ito, Tol's wine) that also differ in lightness (CIE L* 32, 46,
# 58, 71, 89; >= 12 apart), so the states read apart in greyscale too. Idle follows the theme.
STATE_COLOURS = {
    ws.LANE_BARRIER: "#882255",  # wine, darkest
    ws.LANE_ACTIVE: "#0072b2",  # blue
    ws.LANE_EXITED: "#8c8c8c",  # grey
    ws.LANE_MASKED: "#e69f00",  # orange
    ws.LANE_WAITING: "#f0e442",  # yellow, lightest
}


def idle_colour(theme: Theme) -> QColor:
    """Lanes beyond the launch: a faint shade of the background, so they read as 'nothing'."""
    base, text = QColor(theme.base), QColor(theme.text)
    mix = 0.12
    return QColor(*(round(b + (t - b) * mix) for b, t in zip(base.getRgb()[:3], text.getRgb()[:3], strict=True)))


def state_lut(theme: Theme) -> np.ndarray:
    """(len(LANE_STATES), 4) uint8 RGBA lookup table for the state codes."""
    lut = np.zeros((len(ws.LANE_STATES), 4), dtype=np.uint8)
    for state in ws.LANE_STATES:
        colour = idle_colour(theme) if state == ws.LANE_IDLE else QColor(STATE_COLOURS[state])
        lut[state] = colour.getRgb()
    return lut


def greyed(lut: np.ndarray, theme: Theme, keep: float = 0.35) -> np.ndarray:
    """``lut`` as a previous run's cells are drawn: each colour's grey (its luma), faded towards
    the background to ``keep`` of its contrast, so that nobody reads them as the current run."""
    rgb = lut[:, :3].astype(float)
    grey = rgb @ np.array([0.299, 0.587, 0.114])
    base = np.array(QColor(theme.base).getRgb()[:3], dtype=float)
    faded = base + (grey[:, None] - base) * keep
    out = lut.copy()
    out[:, :3] = np.clip(np.rint(faded), 0, 255).astype(np.uint8)
    return out


def state_name(state: int) -> str:
    names = {
        ws.LANE_ACTIVE: QCoreApplication.translate("LaneGrid", "active"),
        ws.LANE_MASKED: QCoreApplication.translate("LaneGrid", "masked (divergence)"),
        ws.LANE_EXITED: QCoreApplication.translate("LaneGrid", "exited"),
        ws.LANE_BARRIER: QCoreApplication.translate("LaneGrid", "at barrier"),
        ws.LANE_WAITING: QCoreApplication.translate("LaneGrid", "warp not issued"),
        ws.LANE_IDLE: QCoreApplication.translate("LaneGrid", "no thread"),
    }
    return names[state]


def state_explanation(state: int) -> str:
    tips = {
        ws.LANE_ACTIVE: QCoreApplication.translate("LaneGrid", "The lane executes this step."),
        ws.LANE_MASKED: QCoreApplication.translate(
            "LaneGrid", "Its warp executes this step, but the lane took the other side of a branch and waits."
        ),
        ws.LANE_EXITED: QCoreApplication.translate("LaneGrid", "The thread has finished; it never runs again."),
        ws.LANE_BARRIER: QCoreApplication.translate(
            "LaneGrid", "The lane is at __syncthreads(), waiting for every thread of the block."
        ),
        ws.LANE_WAITING: QCoreApplication.translate(
            "LaneGrid", "Other warps run this step; this warp runs its own instructions at another step."
        ),
        ws.LANE_IDLE: QCoreApplication.translate("LaneGrid", "Beyond the launch: the block has no thread here."),
    }
    return tips[state]


class Legend(QWidget):
    """A colour swatch and a word for every lane state."""

    LEGEND_ORDER = (ws.LANE_ACTIVE, ws.LANE_MASKED, ws.LANE_WAITING, ws.LANE_BARRIER, ws.LANE_EXITED, ws.LANE_IDLE)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = FlowBox(spacing=10, row_spacing=2)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box)
        self.swatches: dict[int, QLabel] = {}
        self.labels: dict[int, QLabel] = {}
        for state in self.LEGEND_ORDER:
            swatch, label = QLabel(), QLabel()
            swatch.setFixedSize(14, 14)
            self.box.add(group(swatch, label, spacing=6))
            self.swatches[state], self.labels[state] = swatch, label
        self.restyle(current_theme())
        self.retranslate()

    def rows(self) -> int:
        return self.box.rows()

    def restyle(self, theme: Theme) -> None:
        lut = state_lut(theme)
        for state, swatch in self.swatches.items():
            r, g, b, _ = lut[state]
            swatch.setStyleSheet(f"background: rgb({r},{g},{b}); border: 1px solid {theme.muted};")

    def retranslate(self) -> None:
        for state, label in self.labels.items():
            label.setText(state_name(state))
            label.setToolTip(state_explanation(state))
            self.swatches[state].setToolTip(state_explanation(state))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class LaneImage(pg.GraphicsObject):
    """A (rows, 32) state matrix drawn one cell per lane, in item units of one lane x one warp."""

    def __init__(self) -> None:
        super().__init__()
        self.states = np.zeros((0, LANES), dtype=np.uint8)
        self.argb_lut = np.zeros(len(ws.LANE_STATES), dtype=np.uint32)
        self.separator: QColor | None = None  # thin lines between cells, when they are big enough

    def set_lut(self, lut: np.ndarray) -> None:
        """RGBA rows (as from :func:`state_lut`) to packed 0xffRRGGBB (opaque RGB32: the fastest blit)."""
        lut = lut.astype(np.uint32)
        self.argb_lut = np.uint32(0xFF000000) | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]
        self.update()

    def set_states(self, states: np.ndarray) -> None:
        if states.shape != self.states.shape:
            self.prepareGeometryChange()
        self.states = states
        self.update()

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, LANES, self.states.shape[0])

    def paint(self, painter: QPainter, *_args) -> None:
        rows = self.states.shape[0]
        if rows == 0:
            return
        transform = painter.transform()
        target = transform.mapRect(self.boundingRect()).toAlignedRect()
        if target.width() <= 0 or target.height() <= 0:
            return
        states = self.states[:: -1 if transform.m22() < 0 else 1, :: -1 if transform.m11() < 0 else 1]
        argb = np.ascontiguousarray(self.argb_lut[states])
        image = QImage(argb.data, LANES, rows, LANES * 4, QImage.Format.Format_RGB32)
        scaled = image.scaled(
            target.width(),
            target.height(),
            Qt.AspectRatioMode.IgnoreAspectRatio,
            Qt.TransformationMode.FastTransformation,
        )
        painter.save()
        painter.resetTransform()
        painter.drawImage(target.topLeft(), scaled)
        if self.separator is not None:
            self._draw_separators(painter, target, rows)
        painter.restore()

    def _draw_separators(self, painter: QPainter, target: QRect, rows: int) -> None:
        cell_w, cell_h = target.width() / LANES, target.height() / rows
        if cell_w < 4 or cell_h < 4:
            return
        painter.setPen(QPen(self.separator, 1))
        left, top, right, bottom = target.left(), target.top(), target.right(), target.bottom()
        lines = [QLineF(left + k * cell_w, top, left + k * cell_w, bottom) for k in range(1, LANES)]
        lines += [QLineF(left, top + r * cell_h, right, top + r * cell_h) for r in range(1, rows)]
        painter.drawLines(lines)


def _image_plot(title: str = "") -> tuple[pg.PlotItem, LaneImage]:
    plot = pg.PlotItem()
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMouseEnabled(x=False, y=False)
    plot.invertY(True)
    image = LaneImage()
    plot.addItem(image)
    plot.setTitle(title or None)  # an empty title would still take a row of the plot's height
    return plot, image


class LaneGrid(QWidget):
    """Shows a (warps, 32) lane-state matrix; emits ``lane_hovered(row, lane)`` under the mouse."""

    lane_hovered = Signal(int, int)
    row_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.states = np.zeros((1, LANES), dtype=np.uint8)
        self.row_labels: list[int] = [0]
        self.detail_start = 0
        self.selected_row = 0
        self.min_cells = MIN_CELLS_PX
        self.stale = False  # a previous run's cells: drawn grey (see set_stale)
        self.axis_titles = True  # 'warp' and 'lane' beside the axes (compact: the tooltip says it)
        self.graphics = pg.GraphicsLayoutWidget()
        self.detail_plot, self.detail = _image_plot()
        self.overview_plot, self.overview = _image_plot()
        self.window_box = pg.LinearRegionItem(
            orientation="horizontal", movable=True, brush=pg.mkBrush(0, 0, 0, 60), pen=pg.mkPen("#000000", width=2)
        )
        self.window_box.sigRegionChanged.connect(self._window_moved)
        self.overview_plot.addItem(self.window_box)
        self.graphics.addItem(self.overview_plot, 0, 0)
        self.graphics.addItem(self.detail_plot, 0, 1)
        self.graphics.ci.layout.setColumnStretchFactor(0, 1)
        self.graphics.ci.layout.setColumnStretchFactor(1, 4)
        self.highlight = pg.QtWidgets.QGraphicsRectItem(0, 0, LANES, 1)
        self.detail_plot.addItem(self.highlight)
        self.graphics.scene().sigMouseMoved.connect(self._mouse_moved)
        self.detail_plot.vb.sigResized.connect(self._plot_laid_out)
        self.graphics.scene().sigMouseClicked.connect(self._mouse_clicked)
        self.legend = Legend()
        self.hover_label = WrapLabel(min_lines=2, max_lines=5)  # the lane under the mouse; an owner may move it
        self.graphics.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetMinAndMaxSize)  # no taller than its parts
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.hover_label)
        self.restyle(current_theme())
        self.set_states(self.states)

    # ............................................................ data
    def set_states(self, states: np.ndarray, row_labels: list[int] | None = None) -> None:
        """Show a new (warps, 32) matrix of ``LANE_*`` codes (``row_labels``: warp ids)."""
        reshaped = states.shape != self.states.shape
        self.states = states
        if row_labels is not None:
            self.row_labels = list(row_labels)
        elif reshaped:
            self.row_labels = list(range(states.shape[0]))
        if reshaped:
            self._layout_for_rows(states.shape[0])
        self._draw()

    def _layout_for_rows(self, rows: int) -> None:
        many = rows > DETAIL_ROWS
        self.overview_plot.setVisible(many)
        self.graphics.ci.layout.setColumnStretchFactor(0, 1 if many else 0)
        self.overview_plot.setMaximumWidth(140 if many else 0)
        self.detail_start = min(self.detail_start, max(0, rows - DETAIL_ROWS))
        if many:
            self.window_box.blockSignals(True)
            self.window_box.setRegion((self.detail_start, self.detail_start + DETAIL_ROWS))
            self.window_box.blockSignals(False)
            self.overview_plot.setRange(xRange=(0, LANES), yRange=(0, rows), padding=0)
        self._update_axes()
        self._cap_height()

    def _cap_height(self) -> None:
        """No taller than square cells need: two warps do not get rows a third of a screen high
        (and fewer pixels to paint at every step)."""
        rows = min(DETAIL_ROWS, self.states.shape[0])
        axes_width, axes_height = self._axes_room()
        cells_width = max(1, self.graphics.width() - axes_width)
        row_px = cells_width // LANES
        if self.min_cells == COMPACT_CELLS_PX:  # under the code: rows 20 px tall leave the tabs their room
            row_px = min(row_px, LANE_PX)
        height = max(self.min_cells[1], rows * row_px) + axes_height
        self.graphics.setMaximumHeight(max(self.graphics.minimumHeight(), height))

    def _axes_room(self) -> tuple[int, int]:
        """Pixels the plot takes beside and below the lane cells (axes, labels, the overview):
        measured once pyqtgraph has laid the plot out, else guessed from the type size."""
        line = self.fontMetrics().height()
        cells = self.cells_rect()
        if self.graphics.isVisible() and cells.width() > 1 and cells.height() > 1:
            # Never more beside the cells than the guess: a plot wider than its cells need (slack the
            # layout gave it) must not become its minimum, or the page can only grow past the screen.
            beside = min(self.graphics.width() - round(cells.width()), 4 * line)
            return beside, self.graphics.height() - round(cells.height())
        return 4 * line, 3 * line

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._cap_height()

    def _plot_laid_out(self, *_args) -> None:
        self._reserve_plot_room()  # now with the axes' real sizes

    def _draw(self) -> None:
        rows = self.states.shape[0]
        window = self.states[self.detail_start : self.detail_start + DETAIL_ROWS]
        self.detail.set_states(window)
        self.detail.setPos(0, self.detail_start)
        if rows > DETAIL_ROWS:
            self.overview.set_states(self.states)
        self._place_highlight()

    def _update_axes(self) -> None:
        shown = min(DETAIL_ROWS, self.states.shape[0])
        self.detail_plot.setRange(xRange=(0, LANES), yRange=(self.detail_start, self.detail_start + shown), padding=0)
        left = self.detail_plot.getAxis("left")
        step = max(1, shown // 8)
        ticks = [
            (r + 0.5, str(self.row_labels[r]))
            for r in range(self.detail_start, self.detail_start + shown, step)
            if r < len(self.row_labels)
        ]
        left.setTicks([ticks])
        every = 4 if self.min_cells[0] >= MIN_CELLS_PX[0] else 8  # narrow cells: numbers that do not touch
        self.detail_plot.getAxis("bottom").setTicks([[(x + 0.5, str(x)) for x in range(0, LANES, every)]])

    # ............................................................ selection
    def select_row(self, row: int) -> None:
        """Outline one warp; scroll the detail view to it when there are many warps."""
        self.selected_row = max(0, min(row, self.states.shape[0] - 1))
        if not self.detail_start <= self.selected_row < self.detail_start + DETAIL_ROWS:
            self.show_window(self.selected_row - DETAIL_ROWS // 2)
        self._place_highlight()

    def show_window(self, start: int) -> None:
        """Show warps ``start`` .. ``start + DETAIL_ROWS`` in the detail view."""
        self.detail_start = max(0, min(int(start), self.states.shape[0] - DETAIL_ROWS))
        self.window_box.blockSignals(True)
        self.window_box.setRegion((self.detail_start, self.detail_start + DETAIL_ROWS))
        self.window_box.blockSignals(False)
        self._update_axes()
        self._draw()

    def _window_moved(self) -> None:
        low, _high = self.window_box.getRegion()
        self.show_window(round(low))

    def _place_highlight(self) -> None:
        self.highlight.setRect(0, self.selected_row, LANES, 1)

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        """(row, lane) under a scene position, or None outside the detail image."""
        if not self.detail_plot.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.detail_plot.vb.mapSceneToView(scene_pos)
        row, lane = int(np.floor(point.y())), int(np.floor(point.x()))
        if 0 <= lane < LANES and self.detail_start <= row < min(self.states.shape[0], self.detail_start + DETAIL_ROWS):
            return row, lane
        return None

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        cell = self.cell_at(scene_pos)
        if cell is not None:
            self.lane_hovered.emit(*cell)

    def _mouse_clicked(self, event) -> None:
        cell = self.cell_at(event.scenePos())
        if cell is not None:
            self.select_row(cell[0])
            self.row_selected.emit(cell[0])

    # ............................................................ looks
    def set_stale(self, stale: bool) -> None:
        """Draw the cells grey (a previous run's, ``stale``) or in their colours. An opacity
        effect on this widget would not reach the plot's own viewport: the colours change instead."""
        if stale != self.stale:
            self.stale = stale
            self._set_luts(current_theme())

    def _set_luts(self, theme: Theme) -> None:
        self.lut = state_lut(theme)
        shown = greyed(self.lut, theme) if self.stale else self.lut
        self.detail.set_lut(shown)
        self.overview.set_lut(shown)

    def restyle(self, theme: Theme) -> None:
        self._set_luts(theme)
        self.graphics.setBackground(theme.base)
        pen = pg.mkPen(theme.text, width=max(2, theme.line_width))
        self.highlight.setPen(pen)
        self.detail.separator = QColor(theme.base)
        for plot in (self.detail_plot, self.overview_plot):
            for side in ("left", "bottom"):
                plot.getAxis(side).setPen(theme.muted)
                plot.getAxis(side).setTextPen(theme.text)
        self.legend.restyle(theme)
        self._reserve_plot_room()
        self.retranslate()
        if hasattr(self, "states"):
            self._draw()

    def _reserve_plot_room(self) -> None:
        """At least ``min_cells`` of lane cells, plus room for the axes in the theme's type size."""
        axes_width, axes_height = self._axes_room()
        width, height = self.min_cells
        self.graphics.setMinimumSize(width + axes_width, height + axes_height)
        self._cap_height()

    def set_min_cells(self, size: tuple[int, int]) -> None:
        """The least (width, height) of the lane cells: smaller where the code needs the room."""
        if size != self.min_cells:
            self.min_cells = size
            self._update_axes()
            self._reserve_plot_room()

    def cells_rect(self) -> QRectF:
        """The detail plot's data area in widget pixels: where the lane cells are drawn."""
        box = self.detail_plot.vb.sceneBoundingRect()
        return self.graphics.mapFromScene(box).boundingRect().toRectF()

    def set_axis_titles(self, shown: bool) -> None:
        """Write 'warp' and 'lane' beside the axes, or (``shown`` False: the lanes stand under the
        code in large type on a small screen) leave the row and column they take to the cells."""
        if shown != self.axis_titles:
            self.axis_titles = shown
            self.retranslate()
            self._reserve_plot_room()

    def retranslate(self) -> None:
        titles = {
            "left": QCoreApplication.translate("LaneGrid", "warp"),
            "bottom": QCoreApplication.translate("LaneGrid", "lane"),
        }
        for side, title in titles.items():
            axis = self.detail_plot.getAxis(side)
            axis.setLabel(title)
            axis.showLabel(self.axis_titles)
        self.overview_plot.setTitle(QCoreApplication.translate("LaneGrid", "all warps"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.FontChange:
            self._reserve_plot_room()
        super().changeEvent(event)


def counts_by_state(states: np.ndarray) -> dict[int, int]:
    """How many lanes are in each state (for the caption and the tests)."""
    counts = np.bincount(states.ravel(), minlength=len(ws.LANE_STATES))
    return {state: int(counts[state]) for state in ws.LANE_STATES}


__all__ = ["DETAIL_ROWS", "STATE_COLOURS", "LaneGrid", "Legend", "counts_by_state", "state_lut", "state_name"]
