"""A live plot whose curves grow as points arrive, and its legend as a wrapping text row.

Each curve is created once and updated with ``setData`` from a timer (pyqtgraph's
PlotSpeedTest pattern). The legend is a Qt label under the plot, not pyqtgraph's in-plot
legend: long device names in large projector type wrap instead of covering the data.
"""

from __future__ import annotations

from html import escape

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from gpulab.results import Point, Result
from ui.i18n import engine_message
from ui.theme import current_theme, curve_pen, style_plot
from ui.widgets.badge import kind_label

REDRAW_MS = 100  # curves are redrawn at most 10 times a second, whatever the point rate
LINE_SAMPLES = {"modelled": "┅┅┅", "replayed": "┈┈┈"}  # others are solid: ━━━


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
        if watched is self.plot and event.type() == QEvent.Type.Resize:
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


class LivePlot(pg.PlotWidget):
    """Curves keyed by series name; ``label_series`` adds provenance once a run is over."""

    legend_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.points: dict[str, tuple[list[float], list[float]]] = {}
        self.kinds: dict[str, str] = {}
        self.log_x = False
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self.redraw)
        style_plot(self)

    def clear_series(self) -> None:
        self.getPlotItem().clear()
        self.curves.clear()
        self.points.clear()
        self.kinds.clear()
        self.log_x = False
        self.setLogMode(x=False, y=False)
        self.legend_changed.emit()

    def add_point(self, series: str, point: Point) -> None:
        if series not in self.curves:
            self._add_curve(series)
        xs, ys = self.points[series]
        xs.append(float(point.x))
        ys.append(float(point.y))
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def _add_curve(self, series: str) -> None:
        curve = self.plot([], [], pen=curve_pen(len(self.curves)))
        curve.setSymbol("o")
        curve.setSymbolSize(7)
        self.curves[series] = curve
        self.points[series] = ([], [])
        self.legend_changed.emit()

    def redraw(self) -> None:
        if not self._dirty:
            self._timer.stop()
            return
        self._dirty = False
        log_x = _spans_decades([x for xs, _ys in self.points.values() for x in xs])
        if log_x != self.log_x:  # changing the log mode re-lays out the plot: only when needed
            self.log_x = log_x
            self.setLogMode(x=log_x, y=False)
        for name, curve in self.curves.items():
            curve.setData(*self.points[name])
            curve.setSymbolBrush(curve.opts["pen"].color())

    def set_kind(self, series: str, kind: str) -> None:
        """Mark a series' provenance as soon as it is known (modelled curves turn dashed)."""
        if series not in self.curves:
            self._add_curve(series)
        self.curves[series].provenance_kind = kind  # style_plot reads it
        self.kinds[series] = kind
        style_plot(self)
        self.legend_changed.emit()

    def label_series(self, result: Result) -> None:
        """Give each curve its provenance (modelled ones turn dashed) and label the axes."""
        self.redraw()
        for series in result.series:
            curve = self.curves.get(series.name)
            if curve is not None:
                curve.provenance_kind = series.provenance.kind  # style_plot reads it
                self.kinds[series.name] = series.provenance.kind
        if result.series:
            first = result.series[0]
            self.setLabel("bottom", _axis_text(engine_message(first.x_label), first.x_unit))
            self.setLabel("left", _axis_text(engine_message(first.y_label), first.y_unit))
        style_plot(self)
        self.legend_changed.emit()

    def legend_entries(self) -> list[tuple[str, str, str]]:
        """(series name, colour, provenance kind or '') in curve order."""
        return [
            (name, curve.opts["pen"].color().name(), self.kinds.get(name, "")) for name, curve in self.curves.items()
        ]


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
        parts = [_entry_html(name, colour, kind) for name, colour, kind in self.plot.legend_entries()]
        self.setText("&nbsp;&nbsp;&nbsp; ".join(parts))
        self.setVisible(bool(parts))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.PaletteChange):
            QTimer.singleShot(0, self, self.refresh)  # after the theme restyled the curves
        super().changeEvent(event)


def _entry_html(name: str, colour: str, kind: str) -> str:
    sample = f'<span style="color:{colour}; font-weight:bold">{LINE_SAMPLES.get(kind, "━━━")}</span>'
    name = engine_message(name)  # the engine's English series name, in the interface language
    label = f"{escape(name)} — <b>{escape(kind_label(kind))}</b>" if kind else escape(name)
    return f"{sample}&nbsp;{label}"


def _axis_text(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit else label


def _spans_decades(xs: list[float]) -> bool:
    positive = [x for x in xs if x > 0]
    return len(positive) == len(xs) and len(xs) > 1 and max(positive) >= 100 * min(positive)
