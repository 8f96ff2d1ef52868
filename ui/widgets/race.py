"""The race: one horizontal bar per contender, filling over its (measured or modelled) time.

Real times are scaled by one common factor so the slowest contender finishes after
``race_seconds`` of wall time and every other one finishes in proportion, so a room sees who
wins and by how much. A modelled lane is hatched with a dashed outline and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QElapsedTimer, QEvent, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ui.theme import current_theme
from ui.widgets.badge import kind_label

FRAME_MS = 33


@dataclass(frozen=True)
class Lane:
    """One contender: its name, its real time in seconds, its provenance kind, its colour, and
    optionally the parts of that time in order (``("h2d", s), ("kernel", s), ("d2h", s)``)."""

    label: str
    seconds: float
    kind: str
    colour: str
    parts: tuple[tuple[str, float], ...] = ()


def readable_on(fill: QColor) -> QColor:
    """Black or white, whichever reads better on ``fill`` (relative luminance, WCAG)."""

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * linear(fill.redF()) + 0.7152 * linear(fill.greenF()) + 0.0722 * linear(fill.blueF())
    return QColor("#000000") if luminance > 0.179 else QColor("#ffffff")


def format_seconds(seconds: float) -> str:
    """A time with a unit a room can read: µs, ms or s, three significant figures."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def ratio_text(ratio: float) -> str:
    """A ratio as people say it: 1.4, 12, 1,100, 25,000 (two significant figures, thousands
    separated, never an exponent)."""
    if not math.isfinite(ratio) or ratio <= 0:
        return "?"
    if ratio < 10:
        return f"{ratio:.1f}"
    digits = math.floor(math.log10(ratio)) - 1  # keep two significant figures
    return f"{round(ratio / 10**digits) * 10**digits:,.0f}"


class RaceView(QWidget):
    """Bars filling at the same time scale; ``start()`` runs the race, ``finished`` ends it."""

    finished = Signal()

    def __init__(self, parent: QWidget | None = None, race_seconds: float = 5.0) -> None:
        super().__init__(parent)
        self.lanes: list[Lane] = []
        self.race_seconds = race_seconds
        self.title = ""
        self.progress = 0.0  # 0 = start, 1 = the slowest lane has finished
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._tick)
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # ------------------------------------------------------------ state

    def set_lanes(self, lanes: list[Lane], title: str = "") -> None:
        self.stop()
        self.lanes = [lane for lane in lanes if lane.seconds > 0]
        self.title = title
        self.progress = 0.0
        self.update()

    @property
    def slowest_seconds(self) -> float:
        return max((lane.seconds for lane in self.lanes), default=0.0)

    def lane_fraction(self, lane: Lane) -> float:
        """How full a lane's bar is now: the race's simulated time over the lane's own time."""
        if not self.lanes:
            return 0.0
        simulated = self.progress * self.slowest_seconds
        return min(1.0, simulated / lane.seconds)

    def is_running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        if not self.lanes:
            return
        self.progress = 0.0
        self._clock.start()
        self._timer.start()
        self.update()

    def stop(self) -> None:
        self._timer.stop()

    def set_progress(self, progress: float) -> None:
        """Jump to a point of the race (0..1): for screenshots and tests."""
        self.progress = max(0.0, min(1.0, progress))
        self.update()

    def _tick(self) -> None:
        self.set_progress(self._clock.elapsed() / 1000.0 / max(self.race_seconds, 1e-3))
        if self.progress >= 1.0:
            self._timer.stop()
            self.finished.emit()

    def summary(self) -> str:
        """'A is 12× faster than B' for the fastest against the slowest lane."""
        if len(self.lanes) < 2:
            return ""
        fast = min(self.lanes, key=lambda lane: lane.seconds)
        slow = max(self.lanes, key=lambda lane: lane.seconds)
        ratio = slow.seconds / fast.seconds
        return self.tr("%1 is about %2× faster than %3").replace("%1", fast.label).replace(
            "%2", ratio_text(ratio)).replace("%3", slow.label)  # fmt: skip

    # ------------------------------------------------------------ drawing

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        theme = current_theme()
        painter.fillRect(self.rect(), QColor(theme.base))
        font = QFont(self.font())
        painter.setFont(font)
        metrics = painter.fontMetrics()
        line = metrics.height()
        top = 6.0
        if self.title:
            painter.setPen(QColor(theme.text))
            painter.drawText(QRectF(8, top, self.width() - 16, line), Qt.AlignmentFlag.AlignLeft, self.title)
            top += line + 4
        if not self.lanes:
            painter.setPen(QColor(theme.muted))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.tr("Run a sweep, then race one size."))
            painter.end()
            return
        wrap = Qt.TextFlag.TextWordWrap
        summary_box = metrics.boundingRect(QRect(0, 0, max(1, self.width() - 16), 10 * line), wrap, self.summary())
        summary_height = max(line, summary_box.height()) + 6  # kept free from the start: the bars never jump
        lane_height = max(line * 2 + 8.0, (self.height() - top - summary_height) / len(self.lanes) - 6)
        lane_height = min(lane_height, line * 4.0)
        for lane in self.lanes:
            self._paint_lane(painter, lane, QRectF(8, top, self.width() - 16, lane_height), line)
            top += lane_height + 6
        if self.progress >= 1.0:
            painter.setPen(QColor(theme.text))
            flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
            painter.drawText(QRectF(8, top, self.width() - 16, max(line, self.height() - top)), flags, self.summary())
        painter.end()

    def caption_lines(self, lane: Lane, width: float, height: float, metrics: QFontMetrics) -> int:
        """1 when the name fits beside its kind and time; 2 (name above them) when it does not
        and the lane is tall enough to keep a bar of at least one line."""
        right = f"[{kind_label(lane.kind)}]  {format_seconds(max(lane.seconds, self.slowest_seconds))} …"
        needed = metrics.horizontalAdvance(lane.label) + metrics.horizontalAdvance("  " + right)
        return 2 if needed > width and height >= 3 * metrics.height() + 4 else 1

    def _paint_lane(self, painter: QPainter, lane: Lane, box: QRectF, line: int) -> None:
        theme = current_theme()
        metrics = painter.fontMetrics()
        lines = self.caption_lines(lane, box.width(), box.height(), metrics)
        caption = QRectF(box.left(), box.top(), box.width(), line * lines)
        bar = QRectF(box.left(), caption.bottom() + 2, box.width(), box.height() - caption.height() - 2)
        fraction = self.lane_fraction(lane)
        done = fraction >= 1.0
        elapsed = self.progress * self.slowest_seconds
        status = format_seconds(lane.seconds) + " ✓" if done else format_seconds(elapsed) + " …"
        painter.setPen(QColor(theme.text))
        right = f"[{kind_label(lane.kind)}]  {status}"  # the time is never cut; a long name is
        room = int(caption.width()) if lines == 2 else int(caption.width()) - metrics.horizontalAdvance(right + "  ")
        elide = Qt.TextElideMode.ElideMiddle  # two CPU lanes differ at the end of their names
        name = metrics.elidedText(lane.label, elide, max(0, room))
        align = Qt.AlignmentFlag
        painter.drawText(caption, align.AlignLeft | (align.AlignTop if lines == 2 else align.AlignVCenter), name)
        painter.drawText(caption, align.AlignRight | (align.AlignBottom if lines == 2 else align.AlignVCenter), right)
        painter.setPen(QPen(QColor(theme.muted), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        fill = QRectF(bar.left(), bar.top(), bar.width() * fraction, bar.height())
        colour = QColor(lane.colour)
        modelled = lane.kind == "modelled"
        pen = QPen(colour, max(2, theme.line_width))
        pen.setStyle(Qt.PenStyle.DashLine if modelled else Qt.PenStyle.SolidLine)
        if lane.parts:
            self._paint_parts(painter, lane, bar, fill.right())
        else:
            painter.setBrush(QBrush(colour, Qt.BrushStyle.BDiagPattern if modelled else Qt.BrushStyle.SolidPattern))
        painter.setPen(pen)
        if not lane.parts:
            painter.drawRect(fill)
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(fill)

    def part_title(self, part: str) -> str:
        titles = {"h2d": self.tr("copy in"), "kernel": self.tr("compute"), "d2h": self.tr("copy out")}
        return titles.get(part, part)

    def _paint_parts(self, painter: QPainter, lane: Lane, bar: QRectF, filled_to: float) -> None:
        """Copies in a pale shade, compute in the lane's colour, each labelled where it fits."""
        colour = QColor(lane.colour)
        pattern = Qt.BrushStyle.BDiagPattern if lane.kind == "modelled" else Qt.BrushStyle.SolidPattern
        left = bar.left()
        for part, seconds in lane.parts:
            width = bar.width() * seconds / lane.seconds
            shown = QRectF(left, bar.top(), max(0.0, min(width, filled_to - left)), bar.height())
            shade = colour if part == "kernel" else colour.lighter(170)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(shade, pattern))
            painter.drawRect(shown)
            title = self.part_title(part)
            if shown.width() >= painter.fontMetrics().horizontalAdvance(title) + 8:
                self._paint_part_title(painter, shown, shade, title, lane.kind == "modelled")
            left += width

    def _paint_part_title(self, painter: QPainter, box: QRectF, shade: QColor, title: str, hatched: bool) -> None:
        """A part's name, readable on its fill: on a hatched (modelled) fill, on a plain box of the base colour."""
        metrics = painter.fontMetrics()
        if hatched:
            theme = current_theme()
            plate = QRectF(0, 0, metrics.horizontalAdvance(title) + 6, metrics.height())
            plate.moveCenter(box.center())
            painter.fillRect(plate, QColor(theme.base))
            painter.setPen(QColor(theme.text))
        else:
            painter.setPen(readable_on(shade))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, title)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.update()
        super().changeEvent(event)
