"""A live plot whose curves grow as points arrive, and its legend as a wrapping text row.

Each curve is created once and updated with ``setData`` from a timer (pyqtgraph's
PlotSpeedTest pattern). The legend is a Qt label under the plot, not pyqtgraph's in-plot
legend: long device names in large projector type wrap instead of covering the data.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QLabel, QWidget

from gpulab.catalogue import Note
from gpulab.measure import is_clean
from gpulab.results import Point, Result
from ui.i18n import engine_message, localized
from ui.theme import current_theme, curve_pen, style_plot
from ui.widgets.badge import kind_label
from ui.widgets.plot_axes import DecadeAxis, RightAxes
from ui.widgets.plot_marks import PlotMarks

REDRAW_MS = 100  # curves are redrawn at most 10 times a second, whatever the point rate
LINE_SAMPLES = {"modelled": "┅┅┅", "replayed": "┈┈┈"}  # others are solid: ━━━
FLAGGED_ALPHA = 110  # of 255: a flagged point's outline, faded beside the clean ones


class PlotPlaceholder(QLabel):
    """A line of text over an empty plot ("Press Run…"), filling it, until data arrives.

    It also blanks the plot's tick labels while shown: an empty plot's default axes (a log
    axis from 2 to 9) mean nothing and invite a wrong reading.
    """

    def __init__(self, plot: pg.PlotWidget, larger_pt: int = 2) -> None:
        super().__init__(plot)
        self.plot = plot
        self.larger_pt = larger_pt  # points above the theme's type size
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setObjectName("plotPlaceholder")
        plot.installEventFilter(self)
        self._fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # While Python tears a closed panel down, its attributes may go before Qt stops sending
        # the plot's events here (seen once in a full test run): then there is nothing to fit.
        plot = getattr(self, "plot", None)
        if plot is not None and watched is plot and event.type() == QEvent.Type.Resize:
            self._fit()
        return False

    def _fit(self) -> None:
        margin = max(8, self.plot.width() // 10)
        self.setGeometry(margin, 0, max(1, self.plot.width() - 2 * margin), self.plot.height())

    def show_text(self, text: str) -> None:
        """Show ``text`` over the plot and hide its tick labels."""
        self.setText(text)
        self.restyle()
        self._fit()
        self.show()
        self.raise_()
        for side in ("left", "bottom"):
            self.plot.getPlotItem().getAxis(side).setStyle(showValues=False)

    def dismiss(self) -> None:
        """Hide the text and give the axes their tick labels back."""
        if self.isHidden():
            return
        self.hide()
        for side in ("left", "bottom"):
            self.plot.getPlotItem().getAxis(side).setStyle(showValues=True)

    def restyle(self) -> None:
        theme = current_theme()
        size = theme.font_pt + self.larger_pt
        self.setStyleSheet(f"color: {theme.muted}; font-size: {size}pt; background: transparent;")


class LivePlot(PlotMarks, pg.PlotWidget):
    """Curves keyed by series name, growing point by point; ``label_series`` finishes a run.

    ``y_of`` says what a point shows upward (its ``y`` unless told otherwise, e.g. its time in
    ms from ``point.extra``). ``log_x`` and ``log_y`` are fixed or, when None, chosen from the
    data (logarithmic once the values span two decades). With ``x_text`` the x ticks sit at the x values run,
    written by it (sizes as 2^20), and the view is fitted to the points with a margin.
    A series' provenance kind styles its curve: modelled curves are dashed with hollow triangles.
    A point flagged noisy or implausible (:func:`gpulab.measure.is_clean`) is drawn hollow and
    faded, and the line does not run to it: no claim rests on it, and the picture says so.
    """

    legend_changed = Signal()

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        y_of: Callable[[Point], float] | None = None,
        log_x: bool | None = None,
        log_y: bool | None = False,
        x_text: Callable[[float], str] | None = None,
    ) -> None:
        super().__init__(parent, axisItems={"left": DecadeAxis("left"), "bottom": DecadeAxis("bottom")})
        self.y_of = y_of or (lambda point: float(point.y))
        self.fixed_log_x = log_x
        self.fixed_log_y = log_y
        self.log_y = bool(log_y)
        self.x_text = x_text
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.right = RightAxes(self.getPlotItem())
        self.on_right: set[str] = set()  # series drawn on a right axis: another unit than the left's
        self.percent = False  # the left axis reads percentages (it starts at 0)
        self.series: dict[str, list[Point]] = {}
        self.kinds: dict[str, str] = {}
        self.labels: dict[str, Note] = {}  # series name -> the name carrying its label message
        self.markers: list[pg.InfiniteLine] = []
        self.levels: list[pg.InfiniteLine] = []  # horizontal lines: a ceiling, a peak
        self.series_notes: dict[str, str] = {}  # series name -> a few words the legend adds ("91% of peak")
        self.size_ticks: list[tuple[float, str]] = []  # every size run, before thinning
        self.log_x = bool(log_x)
        self.flagged_total = 0  # points drawn hollow as flagged (the legend says what that means)
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.redraw)
        self.setLogMode(x=self.log_x, y=self.log_y)
        for side in ("left", "bottom"):
            # Labels on the major ticks only: a log axis in projector type otherwise writes
            # 2·10³ 3·10³ ... on top of each other.
            self.getPlotItem().getAxis(side).setStyle(maxTextLevel=0)
        style_plot(self)

    def clear_series(self) -> None:
        self.getPlotItem().clear()
        self.right.clear()
        self.on_right.clear()
        self.percent = False
        self.curves.clear()
        self.series.clear()
        self.kinds.clear()
        self.labels.clear()
        self.markers.clear()
        self.levels.clear()
        self.series_notes.clear()
        self.size_ticks = []
        self.flagged_total = 0
        self.log_x, self.log_y = bool(self.fixed_log_x), bool(self.fixed_log_y)
        self.setLogMode(x=self.log_x, y=self.log_y)
        self.getPlotItem().getAxis("bottom").setTicks(None)  # the last run's sizes mean nothing now
        # The last run's view range, in its log units, must not reappear as plain numbers (2.3 … 4.1).
        self.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.enableAutoRange()
        self.legend_changed.emit()

    def add_point(self, series: str, point: Point) -> None:
        """Store ``point``; it is drawn at the next redraw tick (at most 10 a second)."""
        if series not in self.curves:
            self._add_curve(series)
        self.series[series].append(point)
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def _add_curve(self, series: str) -> None:
        curve = self.plot([], [], name=series)
        self.curves[series] = curve
        self.series[series] = []
        self._style_curve(series)
        self.legend_changed.emit()

    def _style_curve(self, series: str) -> None:
        curve = self.curves[series]
        kind = self.kinds.get(series, "")
        curve.provenance_kind = kind  # style_plot reads it on a theme change
        pen = curve_pen(list(self.curves).index(series), kind=kind)
        modelled = kind == "modelled"
        curve.setPen(pen)
        curve.setSymbol("t" if modelled else "o")
        curve.setSymbolSize(9 if modelled else 7)
        curve.setSymbolPen(pen.color())
        curve.setSymbolBrush(None if modelled else pen.color())
        if any(not is_clean(p) for p in self.series.get(series, ())):
            self._set_curve_data(series)  # the single symbol style just set would fill the flagged points

    def _set_curve_data(self, series: str) -> None:
        """The curve's points, its flagged ones hollow and faded with no line to them."""
        curve, points = self.curves[series], self.series[series]
        flags = [not is_clean(p) for p in points]
        style: dict[str, Any] = {}
        if any(flags):
            colour = QColor(curve.opts["pen"].color())
            faded = QColor(colour)
            faded.setAlpha(FLAGGED_ALPHA)
            filled = None if self.kinds.get(series) == "modelled" else colour
            style["symbolBrush"] = [None if flag else filled for flag in flags]
            style["symbolPen"] = [pg.mkPen(faded, width=2) if flag else pg.mkPen(colour) for flag in flags]
            style["connect"] = np.array([not (a or b) for a, b in zip(flags, [*flags[1:], True], strict=True)])
        curve.setData([float(p.x) for p in points], [self.y_of(p) for p in points], **style)

    def restyle(self) -> None:
        """Theme colours and widths for every curve and marker (after a theme change)."""
        style_plot(self)
        self.right.restyle()
        for series in self.curves:
            self._style_curve(series)
        self._style_markers()

    def redraw(self) -> None:
        if not self._dirty:
            self._timer.stop()
            return
        self._dirty = False
        xs_all = [float(p.x) for points in self.series.values() for p in points]
        ys_all = self.left_ys()
        log_x = self.fixed_log_x if self.fixed_log_x is not None else _spans_decades(xs_all)
        log_y = self.fixed_log_y if self.fixed_log_y is not None else _spans_decades(ys_all)
        if (log_x, log_y) != (self.log_x, self.log_y):  # a new log mode re-lays out the plot: only when needed
            self.log_x, self.log_y = log_x, log_y
            self.setLogMode(x=log_x, y=log_y)
            for name in self.on_right:  # the plot's log mode reaches only the curves in its own view
                self.curves[name].setLogMode(log_x, False)
            self._place_decorations()
        for name in self.curves:
            self._set_curve_data(name)
        flagged = sum(1 for points in self.series.values() for p in points if not is_clean(p))
        if flagged != self.flagged_total:
            self.flagged_total = flagged
            self.legend_changed.emit()  # the legend's line on hollow points comes or goes
        if self.x_text is not None:
            self._fit_to_points()
        self._side_markers()

    def _fit_to_points(self) -> None:
        """Ticks at the x values run; the view fitted to the points, with room above for labels."""
        xs = sorted({float(p.x) for points in self.series.values() for p in points if p.x > 0})
        ys = [v for v in self.left_ys() if v > 0 or not self.log_y]
        if not xs or not ys:
            return
        assert self.x_text is not None
        to_x = math.log10 if self.log_x else float
        to_y = math.log10 if self.log_y else float
        self.size_ticks = [(to_x(x), self.x_text(x)) for x in xs]
        self._place_size_ticks()
        x_low, x_high = to_x(xs[0]), to_x(xs[-1])
        x_pad = self._x_pad(x_high - x_low)
        y_low, y_high = min(map(to_y, ys)), max(map(to_y, ys))
        span = max(y_high - y_low, 0.5 if self.log_y else abs(y_high) * 0.1 or 1.0)
        from_zero = self.percent and not self.log_y and y_low >= 0  # 0 % at the foot, with its tick label
        bottom = -0.03 * (y_high + 0.15 * span) if from_zero else y_low - 0.08 * span
        self.setRange(xRange=(x_low - x_pad, x_high + x_pad), yRange=(bottom, y_high + 0.15 * span), padding=0)
        self._fitted = self.getViewBox().viewRange()

    def _x_pad(self, span: float) -> float:
        """Room at each end of the x axis, in its units: 6 % of the span (0.12 at least), or half the
        widest end label where the plot is narrow. pyqtgraph drops a tick label that would stand
        past the axis: a narrow projector plot showed no working set at all."""
        axis = self.getPlotItem().getAxis("bottom")
        metrics = QFontMetrics(axis.style.get("tickFont") or axis.font())
        ends = (self.size_ticks[0][1], self.size_ticks[-1][1])
        half = max(metrics.horizontalAdvance(text) for text in ends) / 2 + 4
        room = self.getViewBox().width() or self.width()
        need = half * span / (room - 2 * half) if room > 4 * half and span > 0 else 0.0
        return max(0.12, 0.06 * span, need)

    def _refit_or_place_ticks(self) -> None:
        """Fit again (a new width or type needs new room for the end labels; the fit places the
        size ticks too), or, where the user has zoomed or panned since the last fit, only place
        the ticks for the new width."""
        fitted = getattr(self, "_fitted", None)
        now = self.getViewBox().viewRange()
        if fitted is not None and np.allclose(np.asarray(fitted, dtype=float), np.asarray(now, dtype=float),
                                              rtol=0, atol=1e-9):  # fmt: skip
            self._fit_to_points()
        else:
            self._place_size_ticks()

    def _place_size_ticks(self) -> None:
        """The size ticks, thinned to every k-th when their labels would not fit side by side."""
        axis = self.getPlotItem().getAxis("bottom")
        room = self.getViewBox().width() or self.width()
        metrics = QFontMetrics(axis.style.get("tickFont") or axis.font())
        axis.setTicks([thinned(self.size_ticks, room, metrics), []])

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        # Also called while the base class is built and while pyqtgraph closes the plot.
        if getattr(self, "size_ticks", None) and getattr(self, "plotItem", None) is not None:
            self._refit_or_place_ticks()  # a narrower plot holds fewer labels, and needs more end room
        if getattr(self, "markers", None) and getattr(self, "plotItem", None) is not None:
            self._side_markers()

    def set_kind(self, series: str, kind: str) -> None:
        """Mark a series' provenance as soon as it is known (modelled curves turn dashed)."""
        if series not in self.curves:
            self._add_curve(series)
        if self.kinds.get(series) == kind:
            return
        self.kinds[series] = kind
        self._style_curve(series)
        self.legend_changed.emit()

    def label_series(self, result: Result) -> None:
        """Give each curve its provenance (modelled ones turn dashed) and label the axes."""
        self.redraw()
        for series in result.series:
            if series.name in self.curves:
                self.kinds[series.name] = series.provenance.kind
                self._style_curve(series.name)
            if series.label is not None:  # the name in any language, also for a result loaded from a file
                self.labels[series.name] = Note(series.label, series.name)
        if result.series:
            first = result.series[0]
            self.setLabel("bottom", _axis_text(engine_message(first.x_label), first.x_unit))
            self.setLabel("left", _axis_text(engine_message(first.y_label), first.y_unit))
            moved = [self._to_right(s) for s in result.series if s.y_unit != first.y_unit and s.name in self.curves]
            if any(moved):  # the left axis' log mode and fit were chosen with them: choose again
                self._dirty = True
                self.redraw()
            self.percent = first.y_unit == "%"
            self._percent_from_zero()
        self.legend_changed.emit()

    def left_ys(self) -> list[float]:
        """The values the left axis reads (a right axis' series have their own)."""
        return [self.y_of(p) for name, points in self.series.items() if name not in self.on_right for p in points]

    def _percent_from_zero(self) -> None:
        """A linear percentage axis starts at 0 %: fitted to the values, 40 % at the bottom edge
        reads as nothing. (A plot fitted to its sizes does it in its own fit.)"""
        ys = self.left_ys()
        if self.percent and not self.log_y and self.x_text is None and ys and min(ys) >= 0:
            top = max(ys) * 1.08 or 1.0
            self.getViewBox().setYRange(-0.03 * top, top, padding=0)  # a little under 0, so 0 gets its tick label

    def _to_right(self, series: Any) -> bool:
        """Draw ``series`` on the right axis for its unit (a count beside percentages), titled as it
        says; whether it moved there now."""
        title = _axis_text(engine_message(series.y_label), series.y_unit)
        view, curve = self.right.view(series.y_unit, title), self.curves[series.name]
        self.on_right.add(series.name)
        if curve.getViewBox() is view:
            return False
        self.getPlotItem().removeItem(curve)
        view.addItem(curve)
        curve.setLogMode(self.log_x, False)
        return True

    def set_series_note(self, series: str, text: str) -> None:
        """A few words the legend shows after the series' name (its percent of peak)."""
        self.series_notes[series] = text
        self.legend_changed.emit()

    def points_of(self, series: str) -> list[Point]:
        return list(self.series.get(series, ()))

    def legend_entries(self) -> list[tuple[str, str, str]]:
        """(series name, colour, provenance kind or '') in curve order. A name is a
        :class:`~gpulab.catalogue.Note` carrying the series' label when the engine gave one."""
        return [
            (self.labels.get(name, name), curve.opts["pen"].color().name(), self.kinds.get(name, ""))
            for name, curve in self.curves.items()
        ]

    def legend_note(self, series: Any) -> str:
        """The legend's note for a series (``series`` as legend_entries names it), or '': the lab's
        few words, and which axis reads it where the plot has one at the right."""
        notes = [self.series_notes.get(str(series), "")]
        if str(series) in self.on_right:
            notes.append(self.tr("right axis"))
        return ", ".join(note for note in notes if note)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            QTimer.singleShot(0, self, self._restyle_if_open)  # after the theme has restyled the plot itself
        super().changeEvent(event)

    def _restyle_if_open(self) -> None:
        if getattr(self, "plotItem", None) is not None:  # pyqtgraph's close() drops it (and reparents: a style change)
            self.restyle()


class SeriesLegend(QLabel):
    """One wrapping line: a coloured line sample, the series name and its provenance word."""

    def __init__(self, plot: LivePlot, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = plot
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        plot.legend_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        parts = [_entry_html(name, colour, kind, self.plot.legend_note(name))
                 for name, colour, kind in self.plot.legend_entries()]  # fmt: skip
        self.setText(self.flagged_line() + "&nbsp;&nbsp;&nbsp; ".join(parts))
        self.setVisible(bool(parts))

    def flagged_line(self) -> str:
        """A line over the entries, when the plot has flagged points, saying what hollow means
        (next to the plot: the noise notes below the fold are not read in a lecture; first, so a
        long legend scrolled in its box never hides it)."""
        if not self.plot.flagged_total:
            return ""
        text = self.tr("○ Hollow, faded points: %1 measured under load or implausible; no ratio, crossover, "
                       "ceiling or speed-up uses them.").replace("%1", str(self.plot.flagged_total))  # fmt: skip
        return f"<i>{escape(text)}</i><br>"

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.PaletteChange):
            QTimer.singleShot(0, self, self.refresh)  # after the theme restyled the curves
        super().changeEvent(event)


class GroupedLegend(SeriesLegend):
    """The legend with each provenance word said once: "MEASURED: ━ a ━ b   MODELLED: ┅ c ┅ d". Six
    modelled links with "— MODELLED" after each would take the plot's room in projector type."""

    def refresh(self) -> None:
        groups: dict[str, list[str]] = {}
        for name, colour, kind in self.plot.legend_entries():
            sample = f'<span style="color:{colour}; font-weight:bold">{LINE_SAMPLES.get(kind, "━━━")}</span>'
            note = self.plot.legend_note(name)
            entry = f"{sample}&nbsp;{escape(series_title(name, kind))}" + (f" ({escape(note)})" if note else "")
            groups.setdefault(kind, []).append(entry)
        colon = localized(": ", "：")
        lines = [(f"<b>{escape(kind_label(kind))}</b>{colon}" if kind else "") + "&nbsp;&nbsp; ".join(entries)
                 for kind, entries in groups.items()]  # fmt: skip
        self.setText(self.flagged_line() + "<br>".join(lines))
        self.setVisible(bool(lines))


def series_title(name: str, kind: str = "") -> str:
    """A series' name in the interface language, shown beside its kind word: a modelled GPU's
    "(model)" is dropped there, so "H100 SXM — MODELLED" says it once, not "(model) — MODELLED"."""
    message = getattr(name, "message", None)
    if kind == "modelled" and message is not None and message.key == "series.model" and "gpu" in message.args:
        return str(message.args["gpu"])
    return engine_message(name)  # the series' label (a Note) in the interface language; plain names as they are


def _entry_html(name: str, colour: str, kind: str, note: str = "") -> str:
    sample = f'<span style="color:{colour}; font-weight:bold">{LINE_SAMPLES.get(kind, "━━━")}</span>'
    name = series_title(name, kind)
    label = f"{escape(name)} — <b>{escape(kind_label(kind))}</b>" if kind else escape(name)
    return f"{sample}&nbsp;{label}" + (f" ({escape(note)})" if note else "")


def thinned(ticks: list[tuple[float, str]], room_px: float, metrics: Any) -> list[tuple[float, str]]:
    """Every k-th tick, the smallest k at which the labels (and a gap of two characters each) fit
    in ``room_px``: crowded labels overlap into an unreadable row, fewer stay legible."""
    if not ticks or room_px <= 0:
        return ticks
    gap = 2 * metrics.averageCharWidth()
    needed = sum(metrics.horizontalAdvance(label) + gap for _pos, label in ticks)
    step = max(1, math.ceil(needed / room_px))
    return ticks[::step]


def _axis_text(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit else label


def _spans_decades(xs: list[float]) -> bool:
    positive = [x for x in xs if x > 0]
    return len(positive) == len(xs) and len(xs) > 1 and max(positive) >= 100 * min(positive)
