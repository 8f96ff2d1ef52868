"""The trace page's two pictures: where the time went as stacked bars, and the zoomable timeline.

:class:`SharesBars` draws one bar per row (all ranks, each rank) split into compute,
communication, memory copies and idle, the idle part split again by its cause (waiting for a
launch, held by a synchronisation, waiting for data, other). It reads the doctor's figures
(``Breakdown.figures()``, the same dictionaries ``gpulab trace --json`` writes), so a live
diagnosis and a replayed one draw alike.

:class:`TraceTimeline` is the labs' timeline chart with zoom: the wheel zooms about the mouse,
a drag moves the window, a double click shows the whole selection again. It only says which
window it wants (``view_changed``); the page fetches that window's operations from the trace,
so a large trace is never drawn whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QMouseEvent, QPainter, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from gpulab.timeline import TimelineOp
from ui.theme import current_theme
from ui.widgets.hover_chart import HoverChart
from ui.widgets.timeline import LABEL_SHARE, TimelineChart, row_title

translate = QCoreApplication.translate

# (segment, colour): Okabe-Ito colours, legible on the light and the projector theme alike.
SEGMENTS: tuple[tuple[str, str], ...] = (
    ("compute", "#009e73"),
    ("communication", "#cc79a7"),
    ("memory", "#0072b2"),
    ("cpu_launch", "#e69f00"),
    ("sync", "#d55e00"),
    ("data", "#f0e442"),
    ("other", "#b0b0b0"),
)
DARK_SEGMENTS = frozenset({"compute", "memory", "sync"})  # white words on these, black on the rest


def segment_title(key: str) -> str:
    titles = {
        "compute": translate("TraceShares", "compute"),
        "communication": translate("TraceShares", "communication"),
        "memory": translate("TraceShares", "memory copies"),
        "cpu_launch": translate("TraceShares", "idle: launch"),
        "sync": translate("TraceShares", "idle: sync"),
        "data": translate("TraceShares", "idle: data"),
        "other": translate("TraceShares", "idle: other"),
    }
    return titles.get(key, key)


def segment_explanation(key: str) -> str:
    """What a segment means, for the hover text (the legend's words are short)."""
    texts = {
        "cpu_launch": translate("TraceShares", "idle: the GPU waited for the CPU to launch the next work"),
        "sync": translate("TraceShares", "idle: the CPU was held by a synchronisation and queued nothing ahead"),
        "data": translate("TraceShares", "idle: the CPU was waiting for the data loader"),
        "other": translate("TraceShares", "idle: work was queued but waited (a dependency, or no host calls "
                                          "in the trace to tell)"),
    }
    return texts.get(key, segment_title(key))


def short_name(name: str) -> str:
    """A rank's name without its parenthesised details ("GPU 1 (NVIDIA H100)" -> "GPU 1"): the
    rows and lanes have room for the name; the rank list and the hover keep the whole."""
    short = name.split(" (", 1)[0]
    return short or name


def segments_of(figures: Mapping[str, Any]) -> list[tuple[str, float]]:
    """A row's shares in drawing order, fractions of its window (the idle share split by cause)."""
    idle = figures.get("idle_breakdown_share") or {}
    found = [("compute", figures.get("compute_share", 0.0)), ("communication", figures.get("communication_share", 0.0)),
             ("memory", figures.get("memory_share", 0.0))]  # fmt: skip
    found += [(cause, idle.get(cause, 0.0)) for cause in ("cpu_launch", "sync", "data", "other")]
    return [(key, max(0.0, float(share or 0.0))) for key, share in found]


def percent(share: float) -> str:
    return f"{100 * share:.0f}%" if share >= 0.01 or share == 0 else "<1%"


class SharesBars(HoverChart):
    """Stacked bars of the shares, one row each; ``set_rows([(title, figures), ...], chosen)``
    (the chosen row's title is drawn bold). Hover names every segment of a row."""

    MAX_ROWS = 9  # a cluster's 64 ranks would take the page: the first ones, and a line saying so

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, min_height=40)
        self.rows: list[tuple[str, Mapping[str, Any]]] = []
        self.hidden_rows = 0
        self.chosen = ""
        self.codes: Mapping[str, str] = {}  # a rank's name -> its code on the timeline's lanes (R1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_rows(self, rows: Sequence[tuple[str, Mapping[str, Any]]], chosen: str = "") -> None:
        self.rows, self.hidden_rows = list(rows[: self.MAX_ROWS]), max(0, len(rows) - self.MAX_ROWS)
        self.chosen = chosen
        self.updateGeometry()
        self.update()

    # ------------------------------------------------------------ geometry

    def _line(self) -> int:
        return self.fontMetrics().height()

    def legend_items(self, width: int | None = None) -> list[tuple[str, QRectF]]:
        # a line and a quarter: Chinese glyphs come from a taller fallback font than the metrics say
        line, metrics, width = round(self._line() * 1.25), self.fontMetrics(), width or self.width()
        x, y, items = 4.0, 2.0, []
        for key, _colour in SEGMENTS:
            wide = line + 4 + metrics.horizontalAdvance(segment_title(key))
            if x > 4 and x + wide > width - 4:
                x, y = 4.0, y + line + 2
            items.append((key, QRectF(x, y, wide, line)))
            x += wide + line
        return items

    def _rows_top(self, width: int) -> float:
        return max((box.bottom() for _key, box in self.legend_items(width)), default=0.0) + 6

    def row_height(self) -> float:
        return round(self._line() * 1.35)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        rows = len(self.rows) + (1 if self.hidden_rows else 0)
        return int(self._rows_top(width) + max(1, rows) * self.row_height() + 4)

    def sizeHint(self) -> QSize:
        return QSize(400, self.heightForWidth(max(self.width(), 400)))

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.heightForWidth(max(self.width(), 200)))

    def label_width(self) -> float:
        widest = max((self.fontMetrics().horizontalAdvance(short_name(title)) for title, _f in self.rows), default=0)
        return min(widest + 12.0, 0.35 * self.width())

    def bar_boxes(self) -> list[tuple[int, str, float, QRectF]]:
        """(row, segment, share, box) of every segment drawn."""
        top, left, row_h = self._rows_top(self.width()), self.label_width(), self.row_height()
        width = max(1.0, self.width() - left - 6)
        boxes = []
        for index, (_title, figures) in enumerate(self.rows):
            x = left
            for key, share in segments_of(figures):
                if share <= 0:
                    continue
                box = QRectF(x, top + index * row_h + 2, share * width, row_h - 4)
                boxes.append((index, key, share, box))
                x += share * width
        return boxes

    # ------------------------------------------------------------ hover

    def text_at(self, pos: QPointF) -> str:
        top, row_h = self._rows_top(self.width()), self.row_height()
        index = int((pos.y() - top) // row_h) if pos.y() >= top else -1
        if not 0 <= index < len(self.rows):
            return ""
        title, figures = self.rows[index]
        parts = [f"{segment_explanation(key)}: {100 * share:.1f}%" for key, share in segments_of(figures)
                 if share > 0]  # fmt: skip
        return "\n".join([title, *parts])

    # ------------------------------------------------------------ painting

    def paintEvent(self, event: QPaintEvent) -> None:
        started = self.begin_paint(bool(self.rows))
        if started is None:
            return
        painter, theme = started
        line = self._line()
        for key, box in self.legend_items():
            swatch = QRectF(box.left(), box.top() + box.height() * 0.2, line, line * 0.7)
            painter.fillRect(swatch, QColor(dict(SEGMENTS)[key]))
            painter.setPen(QColor(theme.text))
            painter.drawText(QRectF(swatch.right() + 4, box.top(), box.width(), box.height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, segment_title(key))
        self._paint_titles(painter, QColor(theme.text))
        metrics = painter.fontMetrics()
        for _row, key, share, box in self.bar_boxes():
            painter.fillRect(box, QColor(dict(SEGMENTS)[key]))
            words = percent(share)
            if metrics.horizontalAdvance(words) + 4 < box.width():
                painter.setPen(QColor("#ffffff" if key in DARK_SEGMENTS else "#000000"))
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, words)
        if self.hidden_rows:
            top = self._rows_top(self.width()) + len(self.rows) * self.row_height()
            painter.setPen(QColor(theme.muted))
            painter.drawText(QRectF(4, top, self.width() - 8, self.row_height()), Qt.AlignmentFlag.AlignVCenter,
                             translate("TraceShares", "and %1 more ranks (in the exported result)")
                             .replace("%1", str(self.hidden_rows)))  # fmt: skip
        painter.end()

    def shown_title(self, title: str, metrics: QFontMetrics, room: int) -> str:
        """A row's name as drawn in ``room`` px: whole (short form), else its lane code (R2: "4 s…ned"
        told no configuration from another, and the lanes' key names R2), else cut in the middle."""
        name = short_name(title)
        if metrics.horizontalAdvance(name) > room and title in self.codes:
            name = self.codes[title]
        return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, room)

    def _paint_titles(self, painter: QPainter, ink: QColor) -> None:
        top, row_h, left = self._rows_top(self.width()), self.row_height(), self.label_width()
        for index, (title, _figures) in enumerate(self.rows):
            font = painter.font()
            font.setBold(title == self.chosen)
            painter.setFont(font)
            # Cut in the middle: ranks named alike ("4 streams, pinned", "4 streams, pageable") differ
            # at the end, which a cut at the right would drop from every one of them.
            text = self.shown_title(title, painter.fontMetrics(), int(left - 8))
            painter.setPen(ink)
            painter.drawText(QRectF(2, top + index * row_h, left - 8, row_h),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)  # fmt: skip
        font = painter.font()
        font.setBold(False)
        painter.setFont(font)


def lane_title(key: str) -> str:
    """A trace lane in words: ``rank 0 · stream 7`` -> "rank 0 · stream 7" in the interface language."""
    if " · " not in key:
        return row_title(key)
    who, lane = key.rsplit(" · ", 1)
    who = rank_title(short_name(who))
    names = {"steps": translate("TraceTimeline", "profiler steps")}
    if lane.startswith("thread "):
        lane = translate("TraceTimeline", "CPU thread %1").replace("%1", lane[7:])
    return f"{who} · {names.get(lane, row_title(lane))}"


def rank_title(name: str) -> str:
    """A rank's name in the interface language: ``rank 3`` -> "rank 3" / "进程 3"; other names
    (a GPU, a lab configuration) as they are."""
    number = _rank_number(name)
    return translate("TraceTimeline", "rank %1").replace("%1", number) if number is not None else name


def _rank_number(who: str) -> str | None:
    """``rank 3`` -> ``3``; any other name (a GPU, a lab configuration) -> None."""
    return who[5:] if who.startswith("rank ") and who[5:].isdigit() else None


def lane_code(lane: str) -> str:
    """A lane's short name, for a chart short of room: ``stream 7`` -> ``S7``, ``thread 4321`` ->
    ``T4321`` (an id longer than four digits keeps its last three: ``T…321``), ``default`` -> ``D``."""
    if lane.startswith("stream ") and lane[7:].isdigit():
        return "S" + lane[7:]
    if lane.startswith("thread "):
        tid = lane[7:]
        return "T" + (tid if len(tid) <= 4 else "…" + tid[-3:])
    if lane == "steps":
        return translate("TraceTimeline", "steps")
    if lane == "default":
        return "D"
    return row_title(lane)


class TraceTimeline(TimelineChart):
    """The timeline chart, zoomable. ``set_bounds(span_s)`` sets the whole selection (0..span);
    the wheel, a drag and a double click move the view inside it and emit ``view_changed(a_s, b_s)``.

    When the lanes' names do not fit beside them (several ranks named alike, a projector's large
    type), each lane is drawn by its short name (``R1 · S7``: rank 1, stream 7) and the key under
    the time axis (:meth:`lane_key`) says what the short names stand for, so nothing needs the
    hover; hovering a lane's name shows it whole too. ``rank_codes`` maps a rank's name to its
    short one (``R1``)."""

    view_changed = Signal(float, float)
    ZOOM_STEP = 1.25
    MAX_NAMED = 6  # ranks named in the line under the chart; the rank list names the rest
    LEAST_SPAN_S = 1e-7  # 100 ns: no finer than a trace's own resolution matters

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.row_titles = lane_title
        self.row_elide = Qt.TextElideMode.ElideMiddle
        self.lane_noun = lambda: translate("TraceTimeline", "lane")
        self.rank_codes: dict[str, str] = {}
        self._lane_cache: tuple[tuple[object, ...] | None, tuple[bool, list[str]]] = (None, (False, []))
        self._key_cache: tuple[tuple[object, ...] | None, int] = (None, 0)
        self.bounds_s = 0.0
        self.view_s = (0.0, 0.0)
        self._drag_from: tuple[float, tuple[float, float]] | None = None

    # ------------------------------------------------------------ lane names

    def short_lanes(self) -> bool:
        """Whether the lanes are drawn by their short names: their whole names would be cut."""
        return self._lanes()[0]

    def _whos(self) -> list[str]:
        """The ranks (by name) the lanes belong to, in order."""
        return self._lanes()[1]

    def _lanes(self) -> tuple[bool, list[str]]:
        """(short names?, the ranks), worked out once per operations, width and type: every lane's
        title asks, and the painting asks for every title more than once."""
        state = (self.ops, self.width(), self.font().key(), self.lane_noun())  # lane_noun: the language
        cached = self._lane_cache[0]
        if cached is None or cached[0] is not self.ops or cached[1:] != state[1:]:
            rows, metrics = self.rows(), self.fontMetrics()
            widest = max((metrics.horizontalAdvance(lane_title(key)) for key in rows), default=0)
            whos = list(dict.fromkeys(key.rsplit(" · ", 1)[0] for key in rows if " · " in key))
            self._lane_cache = (state, (widest + 16.0 > LABEL_SHARE * self.width(), whos))
        return self._lane_cache[1]

    def short_title(self, key: str) -> str:
        """``rank 1 · stream 7`` -> ``R1 · S7``; with one rank on the chart just ``S7``."""
        if " · " not in key:
            return lane_code(key)
        who, lane = key.rsplit(" · ", 1)
        if len(self._whos()) <= 1:
            return lane_code(lane)
        return f"{self.rank_codes.get(who, short_name(who))} · {lane_code(lane)}"

    def shown_row_title(self, key: str) -> str:
        return self.short_title(key) if self.short_lanes() else lane_title(key)

    def lane_key(self) -> str:
        """What the short lane names stand for ("" when the lanes show their whole names)."""
        if not self.ops or not self.short_lanes():
            return ""
        whos, parts = self._whos(), []
        if len(whos) > 1:
            named = [who for who in whos if _rank_number(short_name(who)) is None]
            parts += [f"{self.rank_codes.get(who, '?')} = {short_name(who)}" for who in named[:self.MAX_NAMED]]
            if len(named) > self.MAX_NAMED:
                parts.append(translate("TraceTimeline", "… (the rank list names them all)"))
            if len(named) < len(whos):
                parts.append(translate("TraceTimeline", "R = rank"))
        lanes = {key.rsplit(" · ", 1)[-1] for key in self.rows()}
        for found, words in ((lambda lane: lane.startswith("stream "), translate("TraceTimeline", "S = stream")),
                             (lambda lane: lane == "default", translate("TraceTimeline", "D = default stream")),
                             (lambda lane: lane.startswith("thread "), translate("TraceTimeline", "T = CPU thread"))):
            if any(found(lane) for lane in lanes):
                parts.append(words)
        parts = [part.replace(" = ", "\u00a0=\u00a0") for part in parts]  # a line breaks between two, not inside one
        return translate("TraceTimeline", "Lanes: %1").replace("%1", translate("TraceTimeline", "; ").join(parts))

    def key_height(self) -> int:
        """The height of the lane key under the time axis (0 without one), its lines wrapped to the chart's width."""
        key, width = self.lane_key(), max(1, self.width() - 16)
        state = (key, width, self.font().key())
        if self._key_cache[0] != state:
            lines = self.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), key)
            self._key_cache = (state, lines.height() + 6 if key else 0)
        return self._key_cache[1]

    def plot_rect(self) -> QRectF:
        """The chart's plot, above the lane key when there is one."""
        area, key = super().plot_rect(), self.key_height()
        return QRectF(area.left(), area.top(), area.width(), max(1.0, area.height() - key)) if key else area

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        key, height = self.lane_key(), self.key_height()
        if not key or not self.ops:
            return
        painter = QPainter(self)  # the chart's own painter has ended: the key goes on after it
        painter.setPen(QColor(current_theme().text))
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
        painter.drawText(QRectF(8, self.height() - height, self.width() - 16, height), flags, key)
        painter.end()

    def text_at(self, pos: QPointF) -> str:
        """Over a lane's name: the lane's whole name; over a bar: the operation."""
        area, rows = self.plot_rect(), self.rows()
        if rows and pos.x() < area.left() and area.top() <= pos.y() < area.bottom():
            return lane_title(rows[int((pos.y() - area.top()) // (area.height() / len(rows)))])
        return super().text_at(pos)

    # ------------------------------------------------------------ the view

    def set_bounds(self, span_s: float) -> None:
        self.bounds_s = max(span_s, 0.0)
        self.view_s = (0.0, self.bounds_s)

    def zoomed(self) -> bool:
        return self.view_s != (0.0, self.bounds_s)

    def set_view(self, start_s: float, end_s: float) -> None:
        """Show ``start_s``..``end_s`` of the selection (kept inside it, at least LEAST_SPAN_S wide)."""
        span = min(max(end_s - start_s, self.LEAST_SPAN_S), self.bounds_s)
        start = min(max(start_s, 0.0), self.bounds_s - span)
        view = (start, start + span)
        if view != self.view_s:
            self.view_s = view
            self.view_changed.emit(*view)

    def zoom(self, factor: float, at_fraction: float = 0.5) -> None:
        """Zoom in (factor < 1) or out about the point ``at_fraction`` of the way across the view."""
        a, b = self.view_s
        middle = a + (b - a) * at_fraction
        self.set_view(middle - (middle - a) * factor, middle + (b - middle) * factor)

    def bar_rects(self) -> list[tuple[QRectF, TimelineOp]]:
        """The bars, cut at the plot's edges (an operation begun before the view starts there)."""
        area = self.plot_rect()
        kept = []
        for rect, op in super().bar_rects():
            cut = rect.intersected(QRectF(area.left(), rect.top(), area.width(), rect.height()))
            if cut.width() > 0:
                kept.append((cut, op))
        return kept

    def _fraction(self, x: float) -> float:
        area = self.plot_rect()
        return min(max((x - area.left()) / area.width(), 0.0), 1.0)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if not self.ops or not steps:
            return super().wheelEvent(event)
        self.zoom(self.ZOOM_STEP ** -steps, self._fraction(event.position().x()))
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_from = (event.position().x(), self.view_s)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_from is not None and event.buttons() & Qt.MouseButton.LeftButton:
            x0, (a, b) = self._drag_from
            shift = (x0 - event.position().x()) / self.plot_rect().width() * (b - a)
            self.set_view(a + shift, b + shift)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag_from = None
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.set_view(0.0, self.bounds_s)
        super().mouseDoubleClickEvent(event)
