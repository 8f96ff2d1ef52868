"""What the PCIe-transfer panel draws beyond a plain live plot: a GB/s plot that keeps the
keep-it-on-the-GPU and both-ways points out of its curves and keeps its link lines in view, the
two bars that compare the round trips with one batched copy, and the four that set copies both
ways at once against one way at a time."""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from gpulab.catalogue import msg
from gpulab.experiments.transfer import bytes_text
from gpulab.results import Point, Result, Series
from ui import i18n
from ui.theme import current_theme
from ui.widgets.live_plot import LivePlot


def is_batch_point(point: Point) -> bool:
    """A keep-it-on-the-GPU point (it says how many copies it took): shown as bars, not as a curve."""
    return "copies" in point.extra


def is_both_ways_point(point: Point) -> bool:
    """A copy made while a copy the other way runs: shown as bars beside the same copy one way."""
    return bool(point.extra.get("both_ways"))


def is_bar_point(point: Point) -> bool:
    """A point the bars show rather than the curves."""
    return is_batch_point(point) or is_both_ways_point(point)


class TransferPlot(LivePlot):
    """GB/s against bytes per copy, log x with a tick at every size run; the batching points are
    left to the bars, and :meth:`reach` keeps a line above the points (a link's rate) in view."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, log_x=True, log_y=False, x_text=bytes_text)
        self.y_reach = 0.0
        self.point_labels: list[pg.TextItem] = []
        self.labelled_series: str | None = None  # the curve whose colour the labels take
        self.pending_kinds: dict[str, str] = {}  # kinds told before a series' first point

    def add_point(self, series: str, point: Point) -> None:
        if is_bar_point(point):
            return
        new = series not in self.curves
        super().add_point(series, point)
        if new and series in self.pending_kinds:
            super().set_kind(series, self.pending_kinds.pop(series))

    def set_kind(self, series: str, kind: str) -> None:
        """A series' kind comes before its first point: kept until that point shows it is a curve
        (a keep-it-on-the-GPU series never becomes one)."""
        if series not in self.curves:
            self.pending_kinds[series] = kind
            return
        super().set_kind(series, kind)

    def reach(self, y: float) -> None:
        """Keep ``y`` (and a label's height above it) inside the view from now on."""
        self.y_reach = y
        self._fit_to_points()

    def _fit_to_points(self) -> None:
        super()._fit_to_points()
        ((x_low, x_high), (y_low, y_high)) = self.getViewBox().viewRange()
        if not self.series:
            return
        self.setXRange(x_low, x_high + 0.1, padding=0)  # room for the last point's percentage
        if self.y_reach and self.y_reach * 1.15 > y_high:
            self.setYRange(min(y_low, 0.0), self.y_reach * 1.15, padding=0)

    def label_points(self, points: list[Point], texts: list[str], series: str | None = None) -> None:
        """A small text above each of ``points`` (their percent of the link), in the colour of the
        curve ``series`` they belong to (six curves cross here: a neutral "68%" reads as the nearest
        one's), else in the theme's text colour."""
        self.clear_point_labels()
        self.labelled_series = series
        theme = current_theme()
        colour = self._label_colour()
        font = QFont()
        font.setPointSize(max(8, theme.font_pt - 2))
        font.setBold(True)
        for point, text in zip(points, texts, strict=True):
            label = pg.TextItem(text, color=colour, anchor=(0.5, 1.15))
            label.setFont(font)
            label.setPos(_log10(point.x) if self.log_x else point.x, point.y)
            self.addItem(label, ignoreBounds=True)
            self.point_labels.append(label)

    def _label_colour(self) -> Any:
        curve = self.curves.get(self.labelled_series) if self.labelled_series is not None else None
        return pg.mkPen(curve.opts["pen"]).color() if curve is not None else current_theme().text

    def restyle(self) -> None:
        super().restyle()
        for label in getattr(self, "point_labels", ()):  # the theme's curve colours, not the last theme's
            label.setColor(self._label_colour())

    def clear_point_labels(self) -> None:
        for label in self.point_labels:
            self.removeItem(label)
        self.point_labels.clear()

    def clear_series(self) -> None:
        self.y_reach = 0.0
        self.point_labels = []  # the plot's clear() has removed them
        self.pending_kinds = {}
        super().clear_series()


def _log10(x: float) -> float:
    return math.log10(x) if x > 0 else 0.0


def spread_out(points: list[Point], at_most: int) -> list[Point]:
    """At most ``at_most`` of ``points``, evenly spaced, always with the last (the largest copy)."""
    if len(points) <= at_most:
        return points
    step = -(-len(points) // at_most)
    return points[::-1][::step][::-1]


# ------------------------------------------------------------------ the batching bars


class Bar(QWidget):
    """One horizontal bar, ``fraction`` of the widget's width, in the theme's highlight colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction = 0.0
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_fraction(self, fraction: float) -> None:
        self.fraction = min(max(fraction, 0.0), 1.0)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(120, max(12, int(1.2 * self.fontMetrics().height())))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        theme = current_theme()
        painter.setPen(QColor(theme.muted))
        painter.drawRect(0, 0, self.width() - 1, self.height() - 1)
        width = max(3, int(self.fraction * (self.width() - 2))) if self.fraction > 0 else 0
        painter.fillRect(1, 1, width, self.height() - 2, QColor(theme.highlight))
        painter.end()


class LabelledBars(QWidget):
    """A bold title, then rows of a name with its figure at the right and a bar under both, then
    why it matters: the shape of the transfer lab's bar tabs. ``values`` holds the figures' labels."""

    def __init__(self, rows: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.names = [QLabel() for _ in range(rows)]
        self.bars = [Bar() for _ in range(rows)]
        self.values = [QLabel() for _ in range(rows)]
        self.why = QLabel()
        self.why.setWordWrap(True)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.title, 0, 0, 1, 2)
        for row, (name, bar, value) in enumerate(zip(self.names, self.bars, self.values, strict=True)):
            name.setWordWrap(True)  # a long name wraps: the panel must not grow wider than the window
            grid.addWidget(name, 1 + 2 * row, 0)
            grid.addWidget(value, 1 + 2 * row, 1, Qt.AlignmentFlag.AlignRight)
            grid.addWidget(bar, 2 + 2 * row, 0, 1, 2)  # the bar under its name, the whole width
        grid.addWidget(self.why, 1 + 2 * rows, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        self.hide()

    def retranslate(self) -> None:
        """Set every text from what is shown (a subclass); hide when there is nothing to show."""

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class BatchBars(LabelledBars):
    """Keep it on the GPU: the total time of N round trips and of one batched copy as two bars,
    their times in ms, and how many times faster the batch is (measured when there is a measurement)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(2, parent)
        self.times = self.values
        self.pair: tuple[Series, Series] | None = None

    def show_result(self, result: Result | None) -> None:
        """The result's measured pair (``batch-*``), else its modelled one; hidden when it has neither."""
        self.pair = batch_pair(result) if result is not None else None
        self.retranslate()

    def retranslate(self) -> None:
        if self.pair is None:
            self.hide()
            return
        many, one = self.pair
        many_s, one_s = many.points[0].extra["seconds"], one.points[0].extra["seconds"]
        kind = i18n.engine_message(msg(f"provenance.{many.provenance.kind}"))
        ratio = f"{many_s / one_s:.0f}" if one_s > 0 else "?"
        self.title.setText(self.tr("<b>Keep it on the GPU</b> (%1): one batch is %2× faster")
                           .replace("%1", kind).replace("%2", ratio))  # fmt: skip
        for name, bar, label, series, seconds in zip(self.names, self.bars, self.times, self.pair, (many_s, one_s),
                                                     strict=True):  # fmt: skip
            name.setText(i18n.engine_message(series.label) if series.label is not None else series.name)
            bar.set_fraction(seconds / max(many_s, one_s) if max(many_s, one_s) > 0 else 0.0)
            label.setText(f"{seconds * 1e3:.2f} ms")
        self.why.setText(self.tr("The same bytes cross the link either way, but every copy pays a fixed start-up "
                                 "cost: many small copies pay it many times. Batch small pieces, and leave data "
                                 "on the GPU between steps."))  # fmt: skip
        self.show()


def batch_pair(result: Any) -> tuple[Series, Series] | None:
    """(round trips, one batch) of ``result``: measured when both were measured, else modelled."""
    by_key = {s.key: s for s in result.series if s.points}
    for prefix in ("batch-", "model-batch-"):
        many, one = by_key.get(f"{prefix}round-trips"), by_key.get(f"{prefix}one-copy")
        if many is not None and one is not None:
            return many, one
    return None


# ------------------------------------------------------------------ both ways at once


def both_ways_pair(result: Any) -> tuple[Point, Point] | None:
    """The largest modelled copy host to GPU and GPU to host made both ways at once, or None."""
    by_key = {s.key: s for s in result.series if s.points}
    pair = [by_key.get(f"model-both-{way}") for way in ("h2d", "d2h")]
    if any(series is None for series in pair):
        return None
    h2d, d2h = (max(series.points, key=lambda p: p.x) for series in pair if series is not None)
    return h2d, d2h


class BothWaysBars(LabelledBars):
    """Copies both ways at once: each direction's rate one way at a time and while the other
    direction copies, as four bars with their GB/s, the largest copy modelled."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(4, parent)
        self.rates = self.values
        self.pair: tuple[Point, Point] | None = None
        self.link = ""

    def show_result(self, result: Result | None) -> None:
        """The result's modelled both-ways pair; hidden when it has none."""
        self.pair = both_ways_pair(result) if result is not None else None
        series = result.get_series("model-both-h2d") if result is not None and self.pair is not None else None
        self.link = str(series.provenance.details.get("link", "")) if series is not None else ""
        self.retranslate()

    def retranslate(self) -> None:
        if self.pair is None:
            self.hide()
            return
        h2d, d2h = self.pair
        rates = [h2d.extra["one_way_gb_s"], h2d.y, d2h.extra["one_way_gb_s"], d2h.y]
        top = max(rates)
        self.title.setText(self.tr("<b>Both ways at once</b> (%1, %2, %3 copies)").replace(
            "%1", i18n.engine_message(msg("provenance.modelled"))).replace("%2", self.link)
            .replace("%3", bytes_text(h2d.x)))  # fmt: skip
        words = [i18n.engine_message(msg(f"transfer.direction.{way}")) for way in ("h2d", "d2h")]
        names = [self.tr("%1, one way at a time"), self.tr("%1, both ways at once")] * 2
        for row, (name, bar, label, rate) in enumerate(zip(self.names, self.bars, self.rates, rates, strict=True)):
            name.setText(names[row].replace("%1", words[row // 2]))
            bar.set_fraction(rate / top if top > 0 else 0.0)
            label.setText(f"{rate:.1f} GB/s")
        self.why.setText(self.tr("Each direction of the link has its own lanes, but the host's side is shared: "
                                 "hosts measured copies to the GPU falling to about half their rate while copies "
                                 "back keep nearly all of theirs (nvbandwidth, PCIe Gen4). A copy out of one chunk "
                                 "beside the copy in of the next is slower than either alone."))  # fmt: skip
        self.show()
