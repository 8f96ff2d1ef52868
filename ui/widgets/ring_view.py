"""The AllReduce animation: ranks on a circle (ring) or in a binary tree, this step's messages as
arrows labelled with their chunks, and each rank's buffer as a row of chunk cells.

A cell's colour says how many ranks' data the chunk sums so far: pale for its own only, deeper as
partial sums grow, green once it is the full sum of all n. While a step plays, each message travels
along its arrow as a small block (at display rate, from a QTimer) and the receivers' cells change
when it arrives. The widget draws; the panel owns the steps and the cursor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QElapsedTimer, QEvent, QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from gpulab.cluster.allreduce_steps import Step, Transfer, contributor_count, tree_depth, tree_level
from ui.theme import current_theme

TRAVEL_MS = 450  # how long a message takes along its arrow when a step plays
FRAME_MS = 16  # display rate
FULL_SUM = "#1b9e4b"  # a chunk that holds the sum of every rank


def best_grid(n: int, width: float, height: float) -> tuple[int, int, float]:
    """(rows, columns, cell side) of a rank's n chunk cells in width × height: 1, 2 or 4 rows,
    whichever gives the largest cells."""
    options = []
    for rows in (1, 2, 4):
        cols = math.ceil(n / rows)
        options.append((min(width / cols, height / rows, 60.0), rows, cols))
    cell, rows, cols = max(options)
    return rows, cols, max(3.0, cell)


def blend(low: QColor, high: QColor, fraction: float) -> QColor:
    f = max(0.0, min(1.0, fraction))
    return QColor.fromRgbF(*(a + (b - a) * f for a, b in zip(low.getRgbF()[:3], high.getRgbF()[:3], strict=True)))


def cell_colour(count: int, n: int) -> QColor:
    """Pale for one rank's data, the theme's highlight as the partial sum grows, green when complete."""
    if count >= n:
        return QColor(FULL_SUM)
    theme = current_theme()
    return blend(QColor("#e8eef8"), QColor(theme.highlight), (count - 1) / max(1, n - 1))


@dataclass(frozen=True)
class CellLayout:
    """How a rank's box is filled: the caption left of the cells (else over them), the cell grid."""

    caption_left: bool
    rows: int
    cols: int
    cell: float
    number_w: float


class RingView(QWidget):
    """Ranks and their chunk cells, with the arrows of the step shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps: list[Step] = []
        self.algorithm = "ring"
        self.position = 0
        self.travel = 1.0  # 0 … 1 along the arrows; 1: arrived, the step's buffers shown
        self.cell_layout = CellLayout(False, 1, 1, 10.0, 0.0)  # set with the boxes' size
        self.empty_text = ""
        self.rank_text = "rank %1"
        self.all_text = "all"
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._advance)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(260, 200)

    def sizeHint(self) -> QSize:
        return QSize(560, 380)

    # ............................................................ state
    def set_steps(self, steps: Sequence[Step], algorithm: str) -> None:
        self.steps, self.algorithm = list(steps), algorithm
        self.position, self.travel = 0, 1.0
        self._timer.stop()
        self.update()

    def set_position(self, position: int, animate: bool = False) -> None:
        """Show the state after step ``position``; ``animate`` lets its messages travel first."""
        self.position = max(0, min(position, len(self.steps) - 1)) if self.steps else 0
        if animate and self.steps and self.steps[self.position].transfers:
            self.travel = 0.0
            self._clock.start()
            self._timer.start()
        else:
            self.travel = 1.0
            self._timer.stop()
        self.update()

    def set_texts(self, empty: str, rank: str, all_chunks: str) -> None:
        """The words drawn: the empty view's line, "rank %1", and the label of a whole-vector message."""
        self.empty_text, self.rank_text, self.all_text = empty, rank, all_chunks
        self.update()

    @property
    def animating(self) -> bool:
        return self._timer.isActive()

    def _advance(self) -> None:
        self.travel = min(1.0, self._clock.elapsed() / TRAVEL_MS)
        if self.travel >= 1.0:
            self._timer.stop()
        self.update()

    def shown_step(self) -> Step | None:
        """The buffers drawn: the step before while its messages are on their way."""
        if not self.steps:
            return None
        return self.steps[self.position - 1] if self.travel < 1.0 and self.position > 0 else self.steps[self.position]

    # ............................................................ geometry
    def caption_font(self) -> QFont:
        """Rank captions a little smaller than the text around the view."""
        font = QFont(self.font())
        font.setPointSizeF(self.font().pointSizeF() * 0.85)
        return font

    def _box_size(self, n: int, slot_w: float, slot_h: float) -> tuple[float, float]:
        """(width, height) of a rank's box that fits a slot, with the largest cells: the caption over
        the cells, or (in a flat slot) the rank's number at their left. Kept for drawing in ``cell_layout``."""
        caption = QFontMetricsF(self.caption_font())
        ch = caption.height()
        rows, cols, cell = best_grid(n, slot_w - 6, slot_h - ch - 8)
        number_w = caption.horizontalAdvance(str(n - 1)) + 8
        rows_b, cols_b, cell_b = best_grid(n, slot_w - number_w - 6, slot_h - 6)
        if cell_b > 1.25 * cell:
            self.cell_layout = CellLayout(True, rows_b, cols_b, cell_b, number_w)
            return number_w + cols_b * cell_b + 6, max(rows_b * cell_b + 6, ch + 4)
        self.cell_layout = CellLayout(False, rows, cols, cell, 0.0)
        widest = caption.horizontalAdvance(self.rank_text.replace("%1", str(n - 1))) + 8
        return max(cols * cell + 6, min(widest, slot_w)), rows * cell + ch + 8

    def rank_boxes(self) -> list[QRectF]:
        """Where each rank is drawn: its caption and cells inside."""
        if not self.steps:
            return []
        n = self.steps[0].ranks
        return self._tree_boxes(n) if self.algorithm == "tree" else self._ring_boxes(n)

    def _ring_boxes(self, n: int) -> list[QRectF]:
        """Round an ellipse as wide and tall as the view, rank 0 at the top, clockwise."""
        w, h = self.width(), self.height()
        # Neighbours at the top and bottom sit about 2π·rx/n apart, at the sides 2π·ry/n: boxes no bigger.
        bw, bh = self._box_size(n, min(0.62 * 2 * math.pi * 0.42 * w / n, 0.3 * w),
                                min(0.62 * 2 * math.pi * 0.40 * h / n, 0.3 * h))  # fmt: skip
        rx, ry = max(10.0, w / 2 - bw / 2 - 4), max(10.0, h / 2 - bh / 2 - 4)
        boxes = []
        for r in range(n):
            angle = -math.pi / 2 + 2 * math.pi * r / n
            centre = QPointF(w / 2 + rx * math.cos(angle), h / 2 + ry * math.sin(angle))
            boxes.append(QRectF(centre.x() - bw / 2, centre.y() - bh / 2, bw, bh))
        return boxes

    def _tree_boxes(self, n: int) -> list[QRectF]:
        w, h = self.width(), self.height()
        depth = tree_depth(n)
        level_h = h / (depth + 1)
        bw, bh = self._box_size(n, 0.9 * w / 2**depth, 0.7 * level_h)
        boxes = []
        for r in range(n):
            level = tree_level(r)
            slot = r - (2**level - 1)
            x = (slot + 0.5) * w / 2**level
            y = (level + 0.5) * level_h
            boxes.append(QRectF(x - bw / 2, y - bh / 2, bw, bh))
        return boxes

    # ............................................................ drawing
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        theme = current_theme()
        painter.fillRect(self.rect(), QColor(theme.base))
        step = self.shown_step()
        if step is None:
            painter.setPen(QColor(theme.muted))
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(self.rect().adjusted(12, 12, -12, -12), flags, self.empty_text)
            return
        boxes = self.rank_boxes()
        current = self.steps[self.position]
        for rank, box in enumerate(boxes):
            self._draw_rank(painter, rank, box, step, current)
        for transfer in current.transfers:
            self._draw_arrow(painter, transfer, boxes)
        painter.end()

    def _draw_rank(self, painter: QPainter, rank: int, box: QRectF, step: Step, current: Step) -> None:
        theme = current_theme()
        n = step.ranks
        font = self.caption_font()
        caption = QFontMetricsF(font)
        fit = self.cell_layout
        rows, cols, cell = fit.rows, fit.cols, fit.cell
        sends = any(t.src == rank for t in current.transfers)
        painter.setPen(QPen(QColor(theme.highlight), 3) if sends else QPen(QColor(theme.muted), 1))
        painter.setBrush(QColor(theme.window))
        painter.drawRoundedRect(box, 4, 4)
        painter.setFont(font)
        painter.setPen(QColor(theme.text))
        if fit.caption_left:
            painter.drawText(QRectF(box.left() + 2, box.top(), fit.number_w - 4, box.height()),
                             Qt.AlignmentFlag.AlignCenter, str(rank))  # fmt: skip
            left, top = box.left() + fit.number_w, box.center().y() - rows * cell / 2
        else:
            widest = self.rank_text.replace("%1", str(n - 1))
            full = caption.horizontalAdvance(widest) <= box.width() - 4
            text = self.rank_text.replace("%1", str(rank)) if full else str(rank)
            painter.drawText(QRectF(box.left(), box.top() + 2, box.width(), caption.height()),
                             Qt.AlignmentFlag.AlignCenter, text)  # fmt: skip
            left, top = box.center().x() - cols * cell / 2, box.top() + caption.height() + 5
        sending = {c for t in current.transfers if t.src == rank for c in t.chunks}
        small = QFont(self.font())
        small.setPointSizeF(max(6.0, min(self.font().pointSizeF(), cell * 0.45)))
        painter.setFont(small)
        for c in range(n):
            cell_rect = QRectF(left + (c % cols) * cell, top + (c // cols) * cell, cell - 1, cell - 1)
            count = contributor_count(step.contributors[rank][c])
            painter.setPen(QPen(QColor(theme.text), 2.5) if c in sending and len(current.transfers[0].chunks) == 1
                           else Qt.PenStyle.NoPen)  # fmt: skip
            painter.setBrush(cell_colour(count, n))
            painter.drawRect(cell_rect)
            if cell >= 14:  # room for a digit or two in the smaller type
                painter.setPen(QColor("#ffffff") if count > n // 2 else QColor("#1a1a1a"))
                painter.drawText(cell_rect, Qt.AlignmentFlag.AlignCenter, str(count))
        painter.setFont(self.font())

    def _draw_arrow(self, painter: QPainter, transfer: Transfer, boxes: list[QRectF]) -> None:
        theme = current_theme()
        start, end = _edge_points(boxes[transfer.src], boxes[transfer.dst])
        dx, dy = end.x() - start.x(), end.y() - start.y()
        length = math.hypot(dx, dy) or 1.0
        nx, ny = -dy / length * 5, dx / length * 5  # to the right of the direction: opposite arrows part
        start, end = QPointF(start.x() + nx, start.y() + ny), QPointF(end.x() + nx, end.y() + ny)
        pen = QPen(QColor(theme.highlight), max(2, theme.line_width))
        painter.setPen(pen)
        painter.drawLine(start, end)
        _arrow_head(painter, start, end, QColor(theme.highlight), 4 + 2 * theme.line_width)
        label = self.all_text if len(transfer.chunks) > 1 else str(transfer.chunks[0])
        middle = QPointF((start.x() + end.x()) / 2, (start.y() + end.y()) / 2)
        self._draw_label(painter, middle, label)
        if self.travel < 1.0:
            t = self.travel
            where = QPointF(start.x() + dx * t, start.y() + dy * t)
            side = max(8.0, self.fontMetrics().height() * 0.6)
            painter.setPen(QPen(QColor(theme.text), 1))
            painter.setBrush(QColor(theme.highlight))
            painter.drawRect(QRectF(where.x() - side / 2, where.y() - side / 2, side, side))

    def _draw_label(self, painter: QPainter, centre: QPointF, text: str) -> None:
        theme = current_theme()
        metrics = self.fontMetrics()
        w, h = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
        rect = QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h)
        path = QPainterPath()
        path.addRoundedRect(rect, 3, 3)
        painter.fillPath(path, QColor(theme.base))
        painter.setPen(QPen(QColor(theme.highlight), 1))
        painter.drawPath(path)
        painter.setPen(QColor(theme.text))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.update()
        super().changeEvent(event)


def _edge_points(a: QRectF, b: QRectF) -> tuple[QPointF, QPointF]:
    """Where the line between two boxes' centres leaves the first and enters the second."""
    return _exit(a, b.center()), _exit(b, a.center())


def _exit(box: QRectF, towards: QPointF) -> QPointF:
    c = box.center()
    dx, dy = towards.x() - c.x(), towards.y() - c.y()
    if dx == 0 and dy == 0:
        return c
    scale = min(box.width() / 2 / abs(dx) if dx else math.inf, box.height() / 2 / abs(dy) if dy else math.inf)
    return QPointF(c.x() + dx * scale, c.y() + dy * scale)


def _arrow_head(painter: QPainter, start: QPointF, end: QPointF, colour: QColor, size: float) -> None:
    angle = math.atan2(end.y() - start.y(), end.x() - start.x())
    left = QPointF(end.x() - size * math.cos(angle - 0.4), end.y() - size * math.sin(angle - 0.4))
    right = QPointF(end.x() - size * math.cos(angle + 0.4), end.y() - size * math.sin(angle + 0.4))
    painter.setBrush(colour)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawPolygon(QPolygonF([end, left, right]))
