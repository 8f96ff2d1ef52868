"""The axes of the lab's plots: decades labelled on a log scale, a title that wraps, and axes at
the right for series in another unit.

pyqtgraph writes an axis title on one line centred on the axis, so a long one (the divergence
lab's x axis spells out every variant) runs past both ends, off the plot. Here a title longer
than its axis wraps onto as many lines as it needs, centred, and the axis grows to hold them.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QTextOption

SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class DecadeAxis(pg.AxisItem):
    """An axis whose log scale labels the decades and leaves the ticks between them unlabelled.

    pyqtgraph puts 2·10³, 3·10³ … on the same tick level as 10³ when the view spans a few
    decades, so in projector type they are written on top of each other."""

    extra_title_px = 0.0  # what the title's wrapped lines add to the axis' depth (also while pyqtgraph builds it)

    def __init__(self, orientation: str, **options: Any) -> None:
        super().__init__(orientation, **options)
        # Our axis titles carry their unit in the text ("working set (B)") and a lab may write the
        # ticks itself (KiB ... GiB): pyqtgraph's automatic SI scaling would add "(x1e+09)" to the
        # title and divide the numbers.
        self.enableAutoSIPrefix(False)
        centred = QTextOption(Qt.AlignmentFlag.AlignHCenter)
        self.label.document().setDefaultTextOption(centred)

    def getSIPrefixEnableRanges(self) -> Any:
        # pyqtgraph 0.14 still computes a scale with the prefix disabled (its issue 2899), and
        # setLabel resets any ranges set before: with the prefix off, no range gets one.
        return super().getSIPrefixEnableRanges() if self.autoSIPrefix else ()

    def logTickValues(self, minVal: float, maxVal: float, size: float, stdTicks: Any) -> list[Any]:
        first, last = math.floor(minVal), math.ceil(maxVal)
        decades = [v for v in range(first, last + 1) if minVal <= v <= maxVal]
        # A short axis over many decades (a chart under its table in projector type) has less
        # room per decade than a label takes: label every 2nd, 3rd ... decade, the rest stay lines.
        per_decade_px = size / max(maxVal - minVal, 1e-9)
        step = max(1, math.ceil(self._label_extent_px() / max(per_decade_px, 1e-9)))
        labelled = [float(v) for v in decades if v % step == 0]
        unlabelled = [float(v) for v in decades if v % step != 0]
        between = [v + math.log10(k) for v in range(first, last) for k in range(2, 10)]
        if per_decade_px < 3 * len(range(2, 10)):  # under 3 px apart the lines between make a grey band
            between = []
        return [(float(step), labelled), (None, unlabelled + [v for v in between if minVal < v < maxVal])]

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        """The decades written one way along the whole axis: plain numbers where every label is
        between 0.001 and 1000 ("0.01 0.1 1 10"), otherwise powers of ten ("10⁰ 10¹ 10²").
        pyqtgraph mixes them ("0.1 1 10¹"), which reads as two scales."""
        exponents = [round(v + math.log10(scale)) for v in values]
        if not values or any(abs(v + math.log10(scale) - e) > 1e-6 for v, e in zip(values, exponents, strict=True)):
            return super().logTickStrings(values, scale, spacing)  # not whole decades: pyqtgraph's own
        if all(-3 <= e <= 3 for e in exponents):
            return [f"{10.0**e:.{max(0, -e)}f}" for e in exponents]
        return ["10" + str(e).translate(SUPERSCRIPTS) for e in exponents]

    def _label_extent_px(self) -> float:
        """Pixels a decade's label needs along this axis, with a gap: its line height upright, the
        width of "10⁻⁸" across."""
        metrics = QFontMetrics(self.style.get("tickFont") or self.font())
        if self.orientation in ("left", "right"):
            return 1.3 * metrics.height()
        return metrics.horizontalAdvance("10⁻⁸") + metrics.averageCharWidth()

    # ------------------------------------------------------------ a title that wraps

    def along_px(self) -> float:
        """The axis' length: the room its title has on one line."""
        return self.size().width() if self.orientation in ("top", "bottom") else self.size().height()

    def wrap_title(self) -> None:
        """The title on one line where it fits, otherwise wrapped to the axis' length; the axis
        deepens by what pyqtgraph does not reserve for the lines added."""
        if getattr(self, "label", None) is None:  # while pyqtgraph builds or closes the axis
            return
        self.label.setTextWidth(-1)
        one_line = self.label.boundingRect()
        along = self.along_px()
        if along > 0 and one_line.width() > along:
            self.label.setTextWidth(along)
        # pyqtgraph reserves 0.8 of the title's height and lets the rest overlap the tick labels'
        # margin, right for one line: more lines need the rest of what they add.
        extra = max(0.0, 0.2 * (self.label.boundingRect().height() - one_line.height()))
        if extra != self.extra_title_px:
            self.extra_title_px = extra
            self._updateHeight() if self.orientation in ("top", "bottom") else self._updateWidth()

    def resizeEvent(self, ev: Any = None) -> None:
        self.wrap_title()  # a new length wraps the title anew, before pyqtgraph places it
        super().resizeEvent(ev)

    def labelString(self) -> str:
        # pyqtgraph puts the title into HTML as it is: "sequential (tid < s)" lost all after the "<".
        # Our titles are plain text, so they are escaped first.
        text, units = self.labelText, self.labelUnits
        self.labelText, self.labelUnits = escape(text), escape(units)
        try:
            return super().labelString()
        finally:
            self.labelText, self.labelUnits = text, units

    def _updateLabel(self) -> None:
        super()._updateLabel()
        self.resizeEvent()  # wrapped and placed again: a new title has a new size

    def _updateHeight(self) -> None:
        super()._updateHeight()
        if self.fixedHeight is None and self.isVisible() and self.label.isVisible() and self.extra_title_px:
            self.setMaximumHeight(self.maximumHeight() + self.extra_title_px)
            self.setMinimumHeight(self.maximumHeight())

    def _updateWidth(self) -> None:
        super()._updateWidth()
        if self.fixedWidth is None and self.isVisible() and self.label.isVisible() and self.extra_title_px:
            self.setMaximumWidth(self.maximumWidth() + self.extra_title_px)
            self.setMinimumWidth(self.maximumWidth())


class RightAxes:
    """Axes at a plot's right, each with a view of its own, for series in a unit the left axis does
    not measure: a count drawn against "branch efficiency (%)" reads as 800 %. The views share the
    plot's x, follow its size and lie under it (the mouse stays the plot's). The axes are new ones:
    pyqtgraph's log mode would reach the plot's own right axis, and these stay linear."""

    def __init__(self, item: pg.PlotItem) -> None:
        self.item = item
        self.keys: list[Any] = []  # what each axis measures (stable across languages)
        self.views: list[pg.ViewBox] = []
        self.axes: list[pg.AxisItem] = []
        item.vb.sigResized.connect(self.follow)

    def view(self, key: Any, title: str) -> pg.ViewBox:
        """The view of the axis measuring ``key``, titled ``title`` (made and shown on first use)."""
        if key not in self.keys:
            self._add(key)
        index = self.keys.index(key)
        self.axes[index].setLabel(title)
        return self.views[index]

    def _add(self, key: Any) -> None:
        axis = DecadeAxis("right")
        self.item.layout.addItem(axis, 2, 3 + len(self.views))  # beyond the plot's own (hidden) right axis
        view = pg.ViewBox(enableMenu=False)  # at a view's own depth, under the plot: the mouse stays the plot's
        view.setMouseEnabled(False, False)
        self.item.scene().addItem(view)
        axis.linkToView(view)
        view.setXLink(self.item.vb)
        self.keys.append(key)
        self.views.append(view)
        self.axes.append(axis)
        self.restyle()
        self.follow()

    def follow(self) -> None:
        """Each view over the plot's own, so x agrees (after a resize or a new range)."""
        for view in self.views:
            view.setGeometry(self.item.vb.sceneBoundingRect())
            view.linkedViewChanged(self.item.vb, view.XAxis)

    def restyle(self) -> None:
        """The axes drawn as the left one is (the theme's pen, text and type)."""
        left = self.item.getAxis("left")
        for axis in self.axes:
            axis.setPen(left.pen())
            axis.setTextPen(left.textPen())
            axis.setTickFont(left.style.get("tickFont"))
            axis.label.setFont(left.label.font())
            axis.setStyle(maxTextLevel=0)

    def clear(self) -> None:
        """No right axes: their curves, views and axes go."""
        for view in self.views:
            for child in list(view.addedItems):
                view.removeItem(child)
            if view.scene() is not None:
                view.scene().removeItem(view)
        for axis in self.axes:
            self.item.layout.removeItem(axis)
            if axis.scene() is not None:
                axis.scene().removeItem(axis)
        self.keys, self.views, self.axes = [], [], []
