"""Marks on a live plot: vertical marker lines with a boxed label (a crossover, a cache size) and
horizontal level lines (a ceiling, a peak), kept at their values when an axis turns logarithmic,
styled by the theme, and each marker's label put on the side of its line where it stands whole,
at the top unless a curve passes there.

:class:`PlotMarks` is a part of :class:`~ui.widgets.live_plot.LivePlot` (it reads the plot's
``markers``, ``levels``, ``log_x``, ``log_y`` and ``curves``), kept in its own file so each stays
one screenful of one job.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics

from ui.theme import current_theme

RIGHT_OF_LINE, LEFT_OF_LINE = (-0.05, 0.0), (1.05, 0.0)  # text anchors of a marker label


class PlotMarks:
    """Markers and levels of a :class:`~ui.widgets.live_plot.LivePlot`."""

    markers: list[pg.InfiniteLine]
    levels: list[pg.InfiniteLine]
    log_x: bool
    log_y: bool
    curves: dict[str, pg.PlotDataItem]
    series_notes: dict[str, str]
    legend_changed: Any

    def add_marker(self, x: float, text: str) -> pg.InfiniteLine:
        """A vertical dotted line at ``x`` with a boxed label (a crossover, a cache size)."""
        position = view_value(x, self.log_x)
        # At the top, in the room the view keeps above the curves; the side is chosen by _side_markers.
        options = {"position": 0.98, "anchors": [RIGHT_OF_LINE, RIGHT_OF_LINE]}
        line = pg.InfiniteLine(pos=position, angle=90, movable=False, label=text, labelOpts=options)
        line.marker_text = text  # the whole label; _side_markers may break it in two
        line.raw_value = x
        self.addItem(line, ignoreBounds=True)
        self.markers.append(line)
        self._style_markers()
        return line

    def add_level(self, y: float, text: str) -> pg.InfiniteLine:
        """A horizontal dashed line at ``y`` with a boxed label at its right end (a ceiling, a peak)."""
        options = {"position": 0.98, "anchors": [(1.0, 1.0), (1.0, 1.0)]}  # above the line, at the right
        line = pg.InfiniteLine(pos=view_value(y, self.log_y), angle=0, movable=False, label=text, labelOpts=options)
        line.raw_value = y
        # Under the curves: a ceiling's label sits where the curves reach the ceiling, and must not
        # hide the points it is about (its box still masks the grid behind the words).
        line.setZValue(-10)
        self.addItem(line, ignoreBounds=True)
        self.levels.append(line)
        self._style_markers()
        return line

    def clear_decorations(self) -> None:
        """Remove every marker and level line and the legend's notes (the curves stay)."""
        for line in [*self.markers, *self.levels]:
            self.removeItem(line)
        self.markers.clear()
        self.levels.clear()
        self.series_notes.clear()
        self.legend_changed.emit()

    def _place_decorations(self) -> None:
        """Markers and levels at their values in the axes' current (log or linear) units."""
        for line in self.markers:
            line.setValue(view_value(line.raw_value, self.log_x))
        for line in self.levels:
            line.setValue(view_value(line.raw_value, self.log_y))

    def _style_markers(self) -> None:
        """Markers and their labels in the theme's text colour and type size, on an opaque box."""
        theme = current_theme()
        font = QFont()
        font.setPointSize(theme.font_pt)
        font.setBold(True)
        level_font = QFont(font)  # a ceiling's words are smaller than a marker's: they run along the curves
        level_font.setBold(False)
        level_font.setPointSize(max(8, theme.font_pt - 2))
        for line in self.levels:
            line.setPen(pg.mkPen(theme.text, width=max(2, theme.line_width // 2 + 1), style=Qt.PenStyle.DashLine))
            line.label.setColor(theme.text)
            line.label.fill = pg.mkBrush(theme.base)
            line.label.setFont(level_font)
            line.label.update()
        for line in self.markers:
            line.setPen(pg.mkPen(theme.text, width=max(2, theme.line_width // 2 + 1), style=Qt.PenStyle.DotLine))
            line.label.setColor(theme.text)
            line.label.fill = pg.mkBrush(theme.base)
            line.label.border = pg.mkPen(theme.text)
            line.label.setFont(font)
            line.label.update()
        self._side_markers()

    def set_marker_text(self, line: pg.InfiniteLine, text: str) -> None:
        """A new label for marker ``line`` (e.g. in another language), placed again."""
        line.marker_text = text
        line.label.setFormat(text)
        self._side_markers()

    def _side_markers(self) -> None:
        """Each marker's label on the side of its line where it fits whole: right when there is room,
        else left, else the roomier side (a label past the plot's edge is cut off)."""
        (x_low, x_high), _ = self.getViewBox().viewRange()
        width_px = self.getViewBox().width()
        if width_px <= 0 or x_high <= x_low:
            return
        for line in self.markers:
            metrics = QFontMetrics(line.label.textItem.font())
            text = getattr(line, "marker_text", line.label.format)
            right_px = (x_high - line.value()) / (x_high - x_low) * width_px
            left_px = width_px - right_px
            if metrics.horizontalAdvance(text) + 12 > max(left_px, right_px):
                text = two_lines(text)  # too wide for either side: a second line halves it
            label_px = max(metrics.horizontalAdvance(part) for part in text.split("\n")) + 12
            right = right_px >= label_px or right_px >= left_px
            span = label_px / width_px * (x_high - x_low)
            xs = (line.value(), line.value() + span) if right else (line.value() - span, line.value())
            height = (metrics.height() * (text.count("\n") + 1) + 8) / max(1.0, self.getViewBox().height())
            top = not self._curves_in(xs, (1.0 - height - 0.04, 1.0)) or self._curves_in(xs, (0.0, height + 0.04))
            anchor = (RIGHT_OF_LINE if right else LEFT_OF_LINE)[0], 0.0 if top else 1.0
            line.label.anchors = [anchor, anchor]
            line.label.setPosition(0.98 if top else 0.02)  # at the top unless a curve is there
            line.label.setFormat(text)
            line.label.updatePosition()

    def _curves_in(self, xs: tuple[float, float], band: tuple[float, float]) -> bool:
        """Whether a curve passes through x in ``xs`` (view units) at a height in ``band``
        (fractions of the view's height, 0 at the bottom)."""
        for curve in self.curves.values():
            _x_range, (y_low, y_high) = (curve.getViewBox() or self.getViewBox()).viewRange()  # a right axis' own
            if y_high <= y_low:
                continue
            x, y = curve.getData()
            if x is None or len(x) == 0:
                continue
            order = np.argsort(x)
            x, y = np.asarray(x)[order], np.asarray(y)[order]
            inside = (x >= xs[0]) & (x <= xs[1])
            if x[0] > xs[1] or x[-1] < xs[0]:
                continue
            ys = np.concatenate([y[inside], np.interp(xs, x, y)])  # the points and the span's edges
            frac = (ys - y_low) / (y_high - y_low)
            if np.any((frac >= band[0]) & (frac <= band[1])):
                return True
        return False

def view_value(value: float, log: bool) -> float:
    """Where ``value`` sits on an axis in pyqtgraph's units (its log10 on a log axis)."""
    return math.log10(value) if log and value > 0 else value


def two_lines(text: str) -> str:
    """``text`` broken at the space nearest its middle (unchanged when it has no space)."""
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    if not spaces:
        return text
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return f"{text[:cut]}\n{text[cut + 1:]}"
