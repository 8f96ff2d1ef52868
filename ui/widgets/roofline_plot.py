"""A log-log roofline chart: roofs as lines with their ridge points, kernels as labelled dots.

It is a :class:`~ui.widgets.live_plot.LivePlot` (points arrive one by one, provenance styles a
series, the legend and export work as on every lab plot) that draws its series its own way:
a series whose points carry ``extra["part"]`` is a roof (a line through its foot, ridge and
right edge), one whose points carry ``extra["entry"]`` is a set of kernels (dots without a
line, each with its short name), and one whose points also carry ``extra["pair_of"]`` holds
each kernel's second bound: hollow dots, unnamed, each joined by a thin line to the dot of
the kernel it belongs to (in the kernel series of the same provenance). Points at zero (a
kernel without FLOPs) have no place on a log chart and are left out. Hovering a kernel shows
``describe(point)`` as a tooltip; clicking one emits :attr:`kernel_clicked` with its entry and
launch preset.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QCursor, QFont, QFontMetrics
from PySide6.QtWidgets import QToolTip, QWidget

from gpulab.results import Point
from ui.theme import current_theme
from ui.widgets.live_plot import LivePlot

PICK_RADIUS_PX = 14  # a click or hover this close to a kernel's dot is on it
SAME_SPOT_PX = 6  # kernels closer than this share one label ("matmul_naive, matmul_tiled")


@dataclass
class Spot:
    """Kernels at nearly one place on the chart: where (view units), their names, their dots (pixels)."""

    at: QPointF
    names: list[str]
    dots: list[QRectF] = field(default_factory=list)


class RooflinePlot(LivePlot):
    """Roofs and kernel points on log-log axes."""

    kernel_clicked = Signal(str, str)  # kernel entry, launch preset

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, log_x=True, log_y=True)
        self.kernel_series: set[str] = set()
        self.pair_series: set[str] = set()
        self.roof_series: set[str] = set()
        self.pair_lines = self._new_pair_lines()
        self.kernel_labels: list[pg.TextItem] = []
        self.ridge_items: list[Any] = []
        self.describe: Callable[[Point, str], str] = lambda point, _series: str(point.extra.get("entry", ""))
        self.scene().sigMouseMoved.connect(self._hovered)
        self.scene().sigMouseClicked.connect(self._clicked)

    # ------------------------------------------------------------ series

    def add_point(self, series: str, point: Point) -> None:
        if "pair_of" in point.extra:
            self.pair_series.add(series)
        elif "entry" in point.extra:
            self.kernel_series.add(series)
        elif "part" in point.extra:
            self.roof_series.add(series)
        super().add_point(series, point)

    def clear_series(self) -> None:
        self._remove_labels()
        self.kernel_series.clear()
        self.pair_series.clear()
        self.roof_series.clear()
        super().clear_series()
        self.pair_lines = self._new_pair_lines()  # clearing the plot item removed the old one

    def _new_pair_lines(self) -> pg.PlotDataItem:
        """The item that draws one dashed segment per kernel and its second bound."""
        lines = pg.PlotDataItem([], [], connect="pairs")
        self.addItem(lines, ignoreBounds=True)
        return lines

    def _style_curve(self, series: str) -> None:
        super()._style_curve(series)
        curve = self.curves[series]
        if series in self.kernel_series:  # dots only: a line between kernels means nothing
            colour = curve.opts["pen"].color()
            curve.setPen(None)
            curve.setSymbolSize(16 if current_theme().name == "projector" else 12)
            curve.setSymbolPen(pg.mkPen(colour, width=2))
        elif series in self.pair_series:  # hollow dots in the colour of the kernels they belong to
            colour = self._owner_colour(series) or curve.opts["pen"].color()
            curve.setPen(None)
            curve.setSymbol("o")
            curve.setSymbolSize(14 if current_theme().name == "projector" else 10)
            curve.setSymbolPen(pg.mkPen(colour, width=2))
            curve.setSymbolBrush(pg.mkBrush(current_theme().base))
            self.pair_lines.setPen(pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine))
        elif series in self.roof_series:
            curve.setSymbol(None)

    def owner_of(self, series: str) -> str | None:
        """The kernel series a pair series belongs to: the one of the same provenance."""
        kind = self.kinds.get(series)
        return next((name for name in self.kernel_series if self.kinds.get(name) == kind), None)

    def _owner_colour(self, series: str) -> Any:
        owner = self.owner_of(series)
        return pg.mkPen(self.curves[owner].opts["symbolPen"]).color() if owner in self.curves else None

    def legend_entries(self) -> list[tuple[str, str, str]]:
        """As on every plot, but a kernel series (no line of its own) takes its dots' colour, and a pair
        series has no entry of its own: the kernels' entry says what its hollow dots are (a note)."""
        entries = []
        for name, curve in self.curves.items():
            if name in self.pair_series:
                continue
            pen = curve.opts["symbolPen"] if name in self.kernel_series else curve.opts["pen"]
            colour = pg.mkPen(pen).color().name()
            entries.append((self.labels.get(name, name), colour, self.kinds.get(name, "")))
        return entries

    def placed_points(self, series: str) -> list[Point]:
        """The points of ``series`` a log chart can show (both coordinates above zero)."""
        return [p for p in self.series.get(series, ()) if p.x > 0 and p.y > 0 and math.isfinite(p.x)]

    def redraw(self) -> None:
        if not self._dirty:
            self._timer.stop()
            return
        self._dirty = False
        for name, curve in self.curves.items():
            points = self.placed_points(name)
            curve.setData([p.x for p in points], [p.y for p in points])
        self._join_pairs()
        self._fit_view()
        self.place_labels()
        self._side_markers()

    def pairs(self) -> list[tuple[Point, Point]]:
        """Each kernel's dot and its second bound's, where both are on the chart."""
        joined = []
        for series in self.pair_series:
            owner = self.owner_of(series)
            dots = {str(p.extra["entry"]): p for p in self.placed_points(owner)} if owner else {}
            joined += [(dots[str(p.extra["pair_of"])], p) for p in self.placed_points(series)
                       if str(p.extra["pair_of"]) in dots]  # fmt: skip
        return joined

    def _join_pairs(self) -> None:
        """A thin dashed line from each kernel's dot to its second bound (data units, as the curves:
        the plot's log mode maps them)."""
        ends = [point for pair in self.pairs() for point in pair]
        self.pair_lines.setData([p.x for p in ends], [p.y for p in ends], connect="pairs")
        self.pair_lines.setZValue(-1)  # under the dots it joins

    def _fit_view(self) -> None:
        """The roofs' whole width, and every roof and dot with room above for the labels (they sit
        above their dots; the ridge's words sit under its diamond)."""
        roofs = [p for s in self.roof_series for p in self.placed_points(s)]
        shown = roofs + [p for s in (*self.kernel_series, *self.pair_series) for p in self.placed_points(s)]
        if not roofs:
            return
        xs = [math.log10(p.x) for p in roofs]
        ys = [math.log10(p.y) for p in shown]
        low, high = min(ys), max(ys)
        self.setRange(xRange=(min(xs), max(xs)), yRange=(low - 0.05 * (high - low), high + 0.22 * (high - low)),
                      padding=0)  # fmt: skip

    # ------------------------------------------------------------ labels and ridges

    def _remove_labels(self) -> None:
        for item in self.kernel_labels:
            self.removeItem(item)
        self.kernel_labels.clear()

    def _label_font(self) -> QFont:
        font = QFont()
        font.setPointSize(max(8, current_theme().font_pt - 2))
        return font

    def place_labels(self) -> None:
        """One label per spot: kernels at nearly the same place (closer than a line of the label type)
        share it, so a crowd of dots reads as one list, not as words printed over each other."""
        self._remove_labels()
        font = self._label_font()
        metrics = QFontMetrics(font)
        share_px = max(SAME_SPOT_PX, 1.5 * metrics.height())
        spots: list[Spot] = []
        for series in self.kernel_series:
            for point in sorted(self.placed_points(series), key=lambda p: p.x):
                at = self.view_position(point)
                near = next((s for s in spots if _distance(self.to_pixels(s.at), self.to_pixels(at)) < share_px), None)
                name = str(point.extra["label"])
                if near is None:
                    near = Spot(at, [])
                    spots.append(near)
                if name not in near.names:
                    near.names.append(name)
                near.dots.append(self._dot_box(self.to_pixels(at)))
        spots.sort(key=lambda spot: spot.at.x())
        ridges = [self._pixel_rect(item) for item in self.ridge_items if isinstance(item, pg.TextItem)]
        if self.kernel_series:  # a name never covers a second bound's dot either
            ridges += [self._dot_box(self.to_pixels(self.view_position(p))) for s in self.pair_series
                       for p in self.placed_points(s)]  # fmt: skip
        # Left to right, or right to left (the few compute-bound dots first, where the room is):
        # whichever names more spots.
        placed = max((self._placements(order, font, ridges) for order in (spots, spots[::-1])), key=len)
        for item, box in placed:
            item.setPos(self.getViewBox().mapSceneToView(self.mapToScene(box.topLeft().toPoint())))
            self.addItem(item, ignoreBounds=True)
            self.kernel_labels.append(item)

    def _dot_box(self, pixel: QPointF) -> QRectF:
        """The pixels a kernel's dot covers (its symbol's square, a little inside the outline)."""
        half = 0.4 * float(self.curves[next(iter(self.kernel_series))].opts["symbolSize"])
        return QRectF(pixel.x() - half, pixel.y() - half, 2 * half, 2 * half)

    def _placements(self, spots: list[Spot], font: QFont, taken: list[QRectF]) -> list[tuple[pg.TextItem, QRectF]]:
        """A label and its place for each spot in turn that finds room: the whole list if it fits,
        else its first name and how many more; with no free place inside the plot, none (the dot's
        tooltip and the verdict table still name it). A label may touch its own dots, never another
        spot's: a name printed over a dot hides the very thing it names."""
        theme, taken, placed = current_theme(), list(taken), []
        for spot in spots:
            names = spot.names
            others = [box for other in spots if other is not spot for box in other.dots]
            texts = [", ".join(names)] + ([f"{names[0]} +{len(names) - 1}"] if len(names) > 1 else [])
            for text in texts:
                item = pg.TextItem(text, color=theme.text, anchor=(0.0, 0.0))
                item.setFont(font)
                item.kernel_names = tuple(names)  # every kernel it stands for, "+N" ones too
                size = item.textItem.boundingRect().size()  # in pixels, with the text item's margins
                box = self._free_box(self.to_pixels(spot.at), size.width(), size.height(), taken + others)
                if box is not None:
                    taken.append(box)
                    placed.append((item, box))
                    break
        return placed

    def _free_box(self, dot: QPointF, width: float, height: float, taken: list[QRectF]) -> QRectF | None:
        """Where a label of ``width`` x ``height`` pixels goes beside the dot at ``dot``: above it to the
        right, else to the left, else below, each a line further out in turn; the first place that covers
        no other label and stays inside the plot (crowded dots at low intensity otherwise print over each
        other). None when there is no such place."""
        room = self.getViewBox().sceneBoundingRect()
        inside = QRectF(self.mapFromScene(room.topLeft()).toPointF(), self.mapFromScene(room.bottomRight()).toPointF())
        candidates = []
        for level in range(2):  # further out, a label no longer reads as its dot's
            for top in (dot.y() - height * (level + 1) - 2, dot.y() + height * level + 2):  # above, then below
                candidates += [QRectF(dot.x() + 4, top, width, height), QRectF(dot.x() - width - 4, top, width, height)]
        fits = [box for box in candidates if inside.contains(box)]
        return next((box for box in fits if not any(box.intersects(other) for other in taken)), None)

    def _pixel_rect(self, item: pg.TextItem) -> QRectF:
        """Where ``item`` is drawn, in the widget's pixels."""
        scene = item.sceneBoundingRect()
        return QRectF(self.mapFromScene(scene.topLeft()).toPointF(), self.mapFromScene(scene.bottomRight()).toPointF())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        plot_item = getattr(self, "plotItem", None)  # None once closed: closing resizes the view too
        if getattr(self, "kernel_labels", None) and plot_item is not None and plot_item.vb is not None:
            self.place_labels()  # the labels keep their pixel distances from the dots

    def mark_ridge(self, x: float, y: float, text: str) -> None:
        """A diamond on a roof's ridge point and a few words beside it (cleared with the decorations)."""
        theme = current_theme()
        at = QPointF(math.log10(x), math.log10(y))
        size = 18 if theme.name == "projector" else 13
        dot = pg.ScatterPlotItem([at.x()], [at.y()], symbol="d", size=size, pen=pg.mkPen(theme.text, width=2),
                                 brush=pg.mkBrush(theme.base))  # fmt: skip
        label = pg.TextItem(text, color=theme.text, anchor=(0.5, 0.0))
        label.setFont(self._label_font())
        label.setPos(at)
        for item in (dot, label):
            self.addItem(item, ignoreBounds=True)
            self.ridge_items.append(item)

    def clear_decorations(self) -> None:
        for item in self.ridge_items:
            self.removeItem(item)
        self.ridge_items.clear()
        super().clear_decorations()

    def restyle(self) -> None:
        super().restyle()
        self._dirty = True
        self.redraw()

    # ------------------------------------------------------------ finding a kernel under the mouse

    def view_position(self, point: Point) -> QPointF:
        return QPointF(math.log10(point.x), math.log10(point.y))

    def to_pixels(self, view: QPointF) -> QPointF:
        """A position in the view's (log) units as a position in the widget's viewport."""
        return self.mapFromScene(self.getViewBox().mapViewToScene(view)).toPointF()

    def kernel_at(self, pixel: QPointF) -> tuple[Point, str] | None:
        """The kernel point nearest ``pixel`` (viewport coordinates) within the pick radius."""
        best: tuple[float, Point, str] | None = None
        for series in (*self.kernel_series, *self.pair_series):
            for point in self.placed_points(series):
                gap = _distance(self.to_pixels(self.view_position(point)), pixel)
                if gap <= PICK_RADIUS_PX and (best is None or gap < best[0]):
                    best = (gap, point, series)
        return None if best is None else (best[1], best[2])

    def _hovered(self, scene_pos: QPointF) -> None:
        found = self.kernel_at(self.mapFromScene(scene_pos).toPointF())
        if found is None:
            QToolTip.hideText()
            return
        QToolTip.showText(QCursor.pos(), self.describe(*found), self)

    def _clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        found = self.kernel_at(self.mapFromScene(event.scenePos()).toPointF())
        if found is not None:
            point = found[0]
            self.kernel_clicked.emit(str(point.extra["entry"]), str(point.extra.get("preset", "")))


def _distance(a: QPointF, b: QPointF) -> float:
    return math.hypot(a.x() - b.x(), a.y() - b.y())
