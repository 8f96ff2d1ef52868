"""Memory traffic of one warp's memory step.

Global memory: every 128-byte line the warp touches is a row of four 32-byte sectors; each
active lane is drawn at its byte offset, sectors the hardware fetches are shaded, and a gauge
shows sectors needed / sectors fetched. Shared memory: the 32 banks as columns, one box per
distinct word a bank must serve (the conflict degree is the tallest column).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QSizePolicy, QVBoxLayout, QWidget

from gpulab.experiments import warp as ws
from ui.theme import Theme, current_theme

MAX_LINES_DRAWN = 8
MIN_NUMBER_PX = 7  # lane numbers smaller than this are left out
LANE_COLOUR = "#0072b2"
FETCHED_COLOUR = "#e69f00"
CONFLICT_COLOUR = "#d55e00"

translate = QCoreApplication.translate


def fill(text: str, *values: object) -> str:
    """Put ``values`` into the %1, %2, ... places of a translated text."""
    for i, value in reversed(list(enumerate(values, 1))):
        text = text.replace(f"%{i}", str(value))
    return text


def kind_words(step: ws.MemoryStep) -> tuple[str, str]:
    kinds = {
        "load": translate("MemoryView", "load from"),
        "store": translate("MemoryView", "store to"),
        "atomic": translate("MemoryView", "atomic on"),
    }
    spaces = {
        "global": translate("MemoryView", "global"),
        "shared": translate("MemoryView", "shared"),
        "local": translate("MemoryView", "local"),
    }
    return kinds.get(step.kind, step.kind), spaces.get(step.space, step.space)


def summary_text(step: ws.MemoryStep) -> str:
    """One plain sentence on what the access costs."""
    kind, space = kind_words(step)
    head = fill(
        translate("MemoryView", "Warp %1: %2 '%3' (%4 memory), %5 lanes x %6 bytes."),
        step.warp,
        kind,
        step.buffer,
        space,
        step.active_lanes,
        step.itemsize,
    )
    if step.space == "shared" and step.conflict_degree > 1:
        tail = fill(
            translate("MemoryView", "Conflict degree %1: the busiest bank serves %1 words one after another."),
            step.conflict_degree,
        )
    elif step.space == "shared":
        tail = translate("MemoryView", "No bank conflict: each bank serves one word (same-word reads are broadcast).")
    else:
        tail = fill(
            translate("MemoryView", "Sectors needed %1, fetched %2, in %3 line(s) of 128 bytes."),
            step.sectors_needed,
            step.sectors_fetched,
            len(step.lines),
        )
    return f"{head} {tail}"


class MemoryCanvas(QWidget):
    """Paints lines and sectors (global) or banks (shared) for one MemoryStep."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.step: ws.MemoryStep | None = None
        self.theme = current_theme()
        self.numbers: list[tuple[QRectF, str, int]] = []
        self.setMinimumHeight(80)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_step(self, step: ws.MemoryStep | None) -> None:
        self.step = step
        self.update()

    def paintEvent(self, event) -> None:
        self.numbers: list[tuple[QRectF, str, int]] = []  # (cell, number, its width) as drawn, for tests
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(self.rect(), QColor(self.theme.base))
        if self.step is None:
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                translate("MemoryView", "Step to a load or store to see its memory traffic."),
            )
        elif self.step.space == "shared":
            self._paint_banks(painter, self.step)
        else:
            self._paint_lines(painter, self.step)
        painter.end()

    # ............................................................ global: lines and sectors
    def _paint_lines(self, painter: QPainter, step: ws.MemoryStep) -> None:
        text, muted = QColor(self.theme.text), QColor(self.theme.muted)
        widest_label = self.fontMetrics().horizontalAdvance(fill(translate("MemoryView", "line %1"), 88))
        label_w, top, margin = max(64, widest_label + 8), 18, 6
        top = max(top, self.fontMetrics().height() + 2)
        room = self.height() - top - margin
        fit = max(1, int(room // 14))  # rows at least 14 px tall that fit the canvas (the last one too)
        shown = step.lines[: min(MAX_LINES_DRAWN, fit if len(step.lines) <= fit else fit - 1)]
        rows = len(shown) + (1 if len(step.lines) > len(shown) else 0)
        row_h = max(1.0, min(34.0, room / max(1, rows)))
        width = self.width() - label_w - margin
        byte_w = width / ws.LINE_BYTES
        painter.setPen(muted)
        for s in range(4):
            painter.drawText(
                QRectF(label_w + s * 32 * byte_w, 0, 32 * byte_w, top),
                Qt.AlignmentFlag.AlignCenter,
                fill(translate("MemoryView", "sector %1"), s),
            )
        fetched = set(step.fetched_sectors)
        for r, line in enumerate(shown):
            y = top + r * row_h
            painter.setPen(text)
            right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            painter.drawText(QRectF(0, y, label_w - 4, row_h), right, fill(translate("MemoryView", "line %1"), r))
            for s in range(4):
                rect = QRectF(label_w + s * 32 * byte_w, y + 1, 32 * byte_w, row_h - 2)
                is_fetched = (line * 4 + s) in fetched
                painter.fillRect(rect, QColor(FETCHED_COLOUR).lighter(150) if is_fetched else QColor(self.theme.base))
                painter.setPen(QPen(muted, 1))
                painter.drawRect(rect)
            self._paint_lanes_in_line(painter, step, r, y, row_h, label_w, byte_w)
        if rows > len(shown):
            painter.setPen(muted)
            y = top + len(shown) * row_h
            more = fill(translate("MemoryView", "... and %1 more lines"), len(step.lines) - len(shown))
            painter.drawText(QRectF(label_w, y, width, row_h), Qt.AlignmentFlag.AlignVCenter, more)

    def _paint_lanes_in_line(
        self, painter: QPainter, step: ws.MemoryStep, row: int, y: float, row_h: float, label_w: float, byte_w: float
    ) -> None:
        lane_fill = QColor(LANE_COLOUR)
        for lane, address in enumerate(step.addresses):
            if address is None or step.line_of_lane[lane] != row:
                continue
            offset = address % ws.LINE_BYTES
            rect = QRectF(
                label_w + offset * byte_w, y + row_h * 0.25, max(2.0, step.itemsize * byte_w - 1), row_h * 0.5
            )
            painter.fillRect(rect, lane_fill)
            self._number(painter, rect, str(lane))

    # ............................................................ shared: banks
    def _paint_banks(self, painter: QPainter, step: ws.MemoryStep) -> None:
        text, muted = QColor(self.theme.text), QColor(self.theme.muted)
        top, bottom_label, margin = 6, 16, 4
        col_w = (self.width() - 2 * margin) / ws.BANKS
        tallest = max(max(step.words_per_bank, default=1), 1)
        box_h = min(20.0, (self.height() - top - bottom_label) / tallest)
        base_y = self.height() - bottom_label
        for bank in range(ws.BANKS):
            x = margin + bank * col_w
            words = step.words_per_bank[bank]
            colour = QColor(CONFLICT_COLOUR if words > 1 and words == step.conflict_degree else LANE_COLOUR)
            for k in range(words):
                rect = QRectF(x + 1, base_y - (k + 1) * box_h, col_w - 2, box_h - 1)
                painter.fillRect(rect, colour)
            lanes = step.lanes_per_bank[bank]
            if words:
                self._number(painter, QRectF(x + 1, base_y - box_h, col_w - 2, box_h - 1), str(len(lanes)))
            painter.setPen(text if bank % 4 == 0 else muted)
            if bank % 4 == 0 or col_w >= 18:
                painter.drawText(
                    QRectF(x - 4, base_y, col_w + 8, bottom_label), Qt.AlignmentFlag.AlignCenter, str(bank)
                )

    def _number(self, painter: QPainter, rect: QRectF, text: str) -> None:
        """White ``text`` inside ``rect`` in the largest type (up to the widget's) that fits it;
        nothing where even small type would not fit."""
        font = QFont(self.font())
        size = font.pixelSize() if font.pixelSize() > 0 else round(font.pointSizeF() * self.logicalDpiY() / 72)
        while size >= MIN_NUMBER_PX:
            font.setPixelSize(size)
            metrics = QFontMetrics(font)
            if metrics.horizontalAdvance(text) <= rect.width() - 2 and metrics.height() <= rect.height() + 2:
                painter.save()
                painter.setFont(font)
                painter.setPen(QColor("#ffffff"))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
                painter.restore()
                self.numbers.append((rect, text, metrics.horizontalAdvance(text)))
                return
            size -= 1

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()


class MemoryView(QWidget):
    """Summary sentence, efficiency gauge and the drawing for the current memory step."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.step: ws.MemoryStep | None = None
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.gauge = QProgressBar()
        self.gauge.setRange(0, 100)
        self.gauge.setTextVisible(False)  # its words go in ``gauge_label``: readable on any fill
        self.gauge_label = QLabel()
        self.canvas = MemoryCanvas()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        row = QHBoxLayout()
        row.addWidget(self.gauge_label)
        row.addWidget(self.gauge, 1)
        layout.addLayout(row)
        layout.addWidget(self.canvas, 1)
        self.set_step(None)

    def set_step(self, step: ws.MemoryStep | None) -> None:
        self.step = step
        self.canvas.set_step(step)
        self.retranslate()

    def efficiency_percent(self) -> int | None:
        return None if self.step is None else round(100 * self.step.efficiency)

    def retranslate(self) -> None:
        step = self.step
        self.gauge.setVisible(step is not None)
        self.gauge_label.setVisible(step is not None)
        if step is None:
            self.summary.setText(translate("MemoryView", "No memory access at this step."))
            return
        self.summary.setText(summary_text(step))
        percent = self.efficiency_percent() or 0
        self.gauge.setValue(percent)
        if step.space == "shared":
            text = translate("MemoryView", "bank efficiency %1% (1 / conflict degree)")
        else:
            text = translate("MemoryView", "coalescing efficiency %1% (sectors needed / fetched)")
        self.gauge.setFormat(fill(text, percent))
        self.gauge_label.setText(self.gauge.format())

    def restyle(self, theme: Theme) -> None:
        self.canvas.set_theme(theme)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
