"""A Gantt chart of :class:`~gpulab.timeline.TimelineOp` records: what ran where and when.

Rows are the ops' lanes (streams, ranks) or their engines (H2D copy engine, SMs, D2H copy
engine, a link); bars are coloured by kind (copy in, kernel, copy out, ...) in the theme's
curve colours, with a legend of the kinds shown. A modelled timeline is hatched with dashed
outlines, like modelled curves elsewhere; a measured one is solid. The time axis reads in µs,
ms or s. Hovering a bar shows its name, lane, start, duration and bytes.

Nothing here knows about the streams lab: the cluster labs draw communication and compute with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gpulab.timeline import TimelineOp, layout
from ui.theme import Theme
from ui.widgets.hover_chart import HoverChart

translate = QCoreApplication.translate

KIND_ORDER = ("h2d", "kernel", "d2h", "comm", "host")
LABEL_SHARE = 0.4  # of the chart's width, at most, for the row titles (longer ones are cut)
ENGINE_ORDER = ("h2d", "copy", "compute", "d2h")


def kind_title(kind: str) -> str:
    titles = {
        "h2d": translate("TimelineChart", "copy in (H2D)"),
        "kernel": translate("TimelineChart", "kernel"),
        "d2h": translate("TimelineChart", "copy out (D2H)"),
        "comm": translate("TimelineChart", "communication"),
        "host": translate("TimelineChart", "host"),
        # what a profiler trace adds (the trace doctor's timeline)
        "d2d": translate("TimelineChart", "copy on the GPU (D2D)"),
        "p2p": translate("TimelineChart", "copy between GPUs (P2P)"),
        "copy": translate("TimelineChart", "copy"),
        "memset": translate("TimelineChart", "memset"),
        "launch": translate("TimelineChart", "CPU launch call"),
        "sync": translate("TimelineChart", "synchronisation"),
        "data": translate("TimelineChart", "data loading"),
        "step": translate("TimelineChart", "profiler step"),
    }
    return titles.get(kind, kind)


def row_title(key: str) -> str:
    """A lane or engine key in words: ``stream 2`` -> "stream 2" (translated), ``h2d`` -> "H2D copy engine"."""
    engines = {
        "h2d": translate("TimelineChart", "H2D copy engine"),
        "d2h": translate("TimelineChart", "D2H copy engine"),
        "copy": translate("TimelineChart", "copy engine"),
        "compute": translate("TimelineChart", "SMs (kernels)"),
        "default": translate("TimelineChart", "default stream"),
        "host": translate("TimelineChart", "host"),
    }
    if key in engines:
        return engines[key]
    if key.startswith("stream ") and key[7:].isdigit():
        return translate("TimelineChart", "stream %1").replace("%1", key[7:])
    return key


def time_text(seconds: float, unit: float | None = None) -> str:
    """A time in µs, ms or s (the unit chosen from ``unit``, default from the value), 3 significant figures."""
    scale = abs(unit if unit is not None else seconds)
    if scale < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if scale < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def bytes_text(n_bytes: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n_bytes >= size:
            return f"{n_bytes / size:.3g} {unit}"
    return f"{n_bytes} B"


def nice_step(span: float, max_ticks: int) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving at most ``max_ticks`` ticks over ``span``."""
    if span <= 0:
        return 1.0
    raw = span / max(1, max_ticks)
    power = 10 ** math.floor(math.log10(raw))
    return next((m * power for m in (1, 2, 5, 10) if m * power >= raw), 10 * power)


class TimelineChart(HoverChart):
    """The chart. ``set_ops(ops, kind)`` shows a timeline; ``set_grouping("lane" | "engine")`` picks the rows;
    ``span_s`` fixes the time axis (several timelines on one scale). Emits ``hovered(text)``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, min_height=140)
        self.ops: tuple[TimelineOp, ...] = ()
        self.kind = "measured"
        self.by = "lane"
        self.span_s: float | None = None
        self.row_titles: Callable[[str], str] = row_title  # a lab may name its rows its own way
        self.lane_noun: Callable[[], str] = lambda: translate("TimelineChart", "stream")  # "rank" in a cluster lab
        self.row_elide = Qt.TextElideMode.ElideRight  # a trace's "rank · stream" rows keep their stream: middle

    # ------------------------------------------------------------ state

    def set_ops(self, ops: Sequence[TimelineOp], kind: str = "measured", span_s: float | None = None) -> None:
        self.ops, self.kind, self.span_s = tuple(ops), kind, span_s
        self.hover_text = ""
        self.update()

    def set_grouping(self, by: str) -> None:
        self.by = by if by in ("lane", "engine") else "lane"
        self.update()

    def set_empty_text(self, text: str) -> None:
        self.empty_text = text
        self.update()

    def rows(self) -> list[str]:
        return layout(self.ops, self.by, ENGINE_ORDER if self.by == "engine" else ())[0]

    def kinds(self) -> list[str]:
        present = {op.kind for op in self.ops}
        return [k for k in KIND_ORDER if k in present] + sorted(present - set(KIND_ORDER))

    @property
    def axis_span_s(self) -> float:
        return self.span_s if self.span_s else max((op.end_s for op in self.ops), default=0.0)

    # ------------------------------------------------------------ geometry

    def _line(self) -> int:
        return self.fontMetrics().height()

    def shown_row_title(self, key: str) -> str:
        """A row's title as drawn beside it (a chart short of room may draw a shorter one; the
        hover text keeps :attr:`row_titles`)."""
        return self.row_titles(key)

    def label_width(self) -> float:
        metrics = self.fontMetrics()
        return max((metrics.horizontalAdvance(self.shown_row_title(key)) for key in self.rows()), default=0) + 16.0

    def plot_rect(self) -> QRectF:
        """Where the bars go: right of the row titles, below the legend, above the time axis."""
        line = self._line()
        left = min(self.label_width(), LABEL_SHARE * self.width())
        top = max((box.bottom() for _kind, box in self.legend_items()), default=0.0) + 8.0
        return QRectF(left, top, max(1.0, self.width() - left - 12.0), max(1.0, self.height() - top - 2.2 * line - 8))

    def bar_rects(self) -> list[tuple[QRectF, TimelineOp]]:
        """Each op's bar in widget pixels (what is painted and what the mouse hits)."""
        rows, bars = layout(self.ops, self.by, ENGINE_ORDER if self.by == "engine" else (), self.axis_span_s)
        if not rows:
            return []
        area = self.plot_rect()
        row_h = area.height() / len(rows)
        pad = min(6.0, row_h * 0.15)
        out = []
        for bar in bars:
            x0 = area.left() + bar.x0 * area.width()
            width = max(2.0, (bar.x1 - bar.x0) * area.width())  # a zero-length op still shows
            out.append((QRectF(x0, area.top() + bar.row * row_h + pad, width, row_h - 2 * pad), bar.op))
        return out

    def op_at(self, pos: QPointF) -> TimelineOp | None:
        """The op under ``pos``; the shortest when bars overlap (a kernel over a long copy)."""
        hits = [op for rect, op in self.bar_rects() if rect.contains(pos)]
        return min(hits, key=lambda op: op.duration_s) if hits else None

    def describe(self, op: TimelineOp) -> str:
        """The hover text of an op: name, lane, start, duration and bytes."""
        lane = translate("TimelineChart", "%1: %2").replace("%1", self.lane_noun()).replace(
            "%2", self.row_titles(op.lane))  # fmt: skip
        start = translate("TimelineChart", "start: %1").replace("%1", time_text(op.start_s, self.axis_span_s))
        duration = translate("TimelineChart", "duration: %1").replace("%1", time_text(op.duration_s))
        lines = [op.name, lane, start, duration]
        if op.bytes:
            lines.append(translate("TimelineChart", "bytes: %1").replace("%1", bytes_text(op.bytes)))
        return "\n".join(lines)

    # ------------------------------------------------------------ mouse

    def text_at(self, pos: QPointF) -> str:
        op = self.op_at(pos)
        return self.describe(op) if op is not None else ""

    def leaveEvent(self, event: QEvent) -> None:
        self.hover_text = ""
        super().leaveEvent(event)

    # ------------------------------------------------------------ painting

    def kind_colour(self, kind: str, theme: Theme) -> QColor:
        kinds = self.kinds()
        index = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER) + kinds.index(kind)
        return QColor(theme.curve_colors[index % len(theme.curve_colors)])

    def paintEvent(self, event: QPaintEvent) -> None:
        started = self.begin_paint(bool(self.ops))
        if started is None:
            return
        painter, theme = started
        self._paint_legend(painter, theme)
        self._paint_rows(painter, theme)
        for rect, op in self.bar_rects():
            self._paint_bar(painter, rect, self.kind_colour(op.kind, theme), theme)
        self._paint_axis(painter, theme)
        painter.end()

    def legend_items(self) -> list[tuple[str, QRectF]]:
        """Each kind's legend entry (kind, the box of its swatch and title), wrapped onto as many lines as it needs."""
        line, metrics = self._line(), self.fontMetrics()
        x, y, items = 8.0, 4.0, []
        for kind in self.kinds():
            width = line + 4 + metrics.horizontalAdvance(kind_title(kind))
            if x > 8 and x + width > self.width() - 8:
                x, y = 8.0, y + line + 4
            items.append((kind, QRectF(x, y, width, line)))
            x += width + line
        return items

    def _paint_legend(self, painter: QPainter, theme: Theme) -> None:
        line = self._line()
        for kind, box in self.legend_items():
            swatch = QRectF(box.left(), box.top() + line * 0.1, line, line * 0.8)
            self._paint_bar(painter, swatch, self.kind_colour(kind, theme), theme)
            painter.setPen(QColor(theme.text))
            painter.drawText(QRectF(swatch.right() + 4, box.top(), box.width(), line), Qt.AlignmentFlag.AlignLeft,
                             kind_title(kind))  # fmt: skip

    def _paint_rows(self, painter: QPainter, theme: Theme) -> None:
        area, rows = self.plot_rect(), self.rows()
        row_h = area.height() / max(1, len(rows))
        painter.save()  # the axis keeps the chart's own type
        if row_h < painter.fontMetrics().height():  # rows lower than a line of type: smaller type, never overlap
            font = painter.font()
            font.setPixelSize(max(6, int(row_h * 0.85)))
            painter.setFont(font)
        metrics = painter.fontMetrics()
        for index, key in enumerate(rows):
            top = area.top() + index * row_h
            if index % 2:
                painter.fillRect(QRectF(area.left(), top, area.width(), row_h), QColor(theme.button))
            title = metrics.elidedText(self.shown_row_title(key), self.row_elide, int(area.left() - 12))
            painter.setPen(QColor(theme.text))
            painter.drawText(QRectF(4, top, area.left() - 8, row_h),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, title)  # fmt: skip
        painter.restore()

    def _paint_bar(self, painter: QPainter, rect: QRectF, colour: QColor, theme: Theme) -> None:
        modelled = self.kind == "modelled"
        if modelled:  # a pale tint under the hatching, so a thin bar still reads as its colour
            tint = QColor(colour)
            tint.setAlpha(70)
            painter.fillRect(rect, tint)
        painter.setBrush(QBrush(colour, Qt.BrushStyle.BDiagPattern if modelled else Qt.BrushStyle.SolidPattern))
        pen = QPen(colour.darker(130) if not modelled else colour, max(1, theme.line_width // 2))
        pen.setStyle({"modelled": Qt.PenStyle.DashLine, "replayed": Qt.PenStyle.DotLine}.get(
            self.kind, Qt.PenStyle.SolidLine))  # fmt: skip
        painter.setPen(pen)
        painter.drawRect(rect)

    def _paint_axis(self, painter: QPainter, theme: Theme) -> None:
        area, span, line = self.plot_rect(), self.axis_span_s, self._line()
        painter.setPen(QPen(QColor(theme.text), max(1, theme.line_width // 2)))
        painter.drawLine(QPointF(area.left(), area.bottom()), QPointF(area.right(), area.bottom()))
        if span <= 0:
            return
        metrics = painter.fontMetrics()
        widest = metrics.horizontalAdvance(time_text(span, span)) + line
        step = nice_step(span, max(1, int(area.width() // max(widest, 1))))
        tick = 0.0
        while tick <= span * (1 + 1e-9):
            x = area.left() + tick / span * area.width()
            painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 4))
            text = time_text(tick, span)
            box = QRectF(x - widest / 2, area.bottom() + 4, widest, line)
            box.moveLeft(min(max(box.left(), area.left() - line), self.width() - widest))
            painter.drawText(box, Qt.AlignmentFlag.AlignHCenter, text)
            tick += step
        painter.setPen(QColor(theme.muted))
        painter.drawText(QRectF(area.left(), area.bottom() + 4 + line, area.width(), line),
                         Qt.AlignmentFlag.AlignRight, translate("TimelineChart", "time"))  # fmt: skip

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.FontChange, QEvent.Type.PaletteChange):
            self.update()
        super().changeEvent(event)
