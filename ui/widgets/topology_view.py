"""A picture of a :class:`~gpulab.cluster.topology.Topology`: GPUs, switches, CPUs and NICs as boxes,
links as lines whose colour says their kind and whose width grows with their rate.

Boxes stand in rows by kind (spines over leaves over nodes; NVSwitch chips over the GPUs, PCIe
switches, CPU sockets and NICs under them), each lower box under the boxes it connects to. A
modelled picture has dashed lines and says MODELLED in its corner. Hovering a line tells its kind,
its links and its rate; hovering a box tells what it is. Nothing here knows about an experiment.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication, QEvent, QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from gpulab.cluster.topology import Topology, Wire
from ui.theme import Theme
from ui.widgets.badge import BADGE_COLOURS, kind_label
from ui.widgets.hover_chart import HoverChart

translate = QCoreApplication.translate

TIERS = ("spine", "leaf", "node", "nvswitch", "gpu", "pcie-switch", "cpu", "nic")
CENTRED_TIERS = ("pcie-switch", "cpu", "nic")  # placed under what they connect to
WIRE_ORDER = ("nvlink", "pcie", "cpu-link", "network")
WIRE_COLOUR_INDEX = {"nvlink": 2, "pcie": 0, "cpu-link": 1, "network": 3}


def box_title(kind: str, index: int) -> str:
    titles = {
        "gpu": translate("TopologyView", "GPU %1"),
        "nvswitch": translate("TopologyView", "NVSwitch %1"),
        "pcie-switch": translate("TopologyView", "PCIe switch %1"),
        "cpu": translate("TopologyView", "CPU %1"),
        "nic": translate("TopologyView", "NIC %1"),
        "node": translate("TopologyView", "Node %1"),
        "leaf": translate("TopologyView", "Leaf %1"),
        "spine": translate("TopologyView", "Spine %1"),
    }
    return titles.get(kind, kind + " %1").replace("%1", str(index))


def wire_title(kind: str) -> str:
    titles = {
        "nvlink": translate("TopologyView", "NVLink"),
        "pcie": translate("TopologyView", "PCIe"),
        "cpu-link": translate("TopologyView", "link between CPU sockets"),
        "network": translate("TopologyView", "InfiniBand (network)"),
    }
    return titles.get(kind, kind)


def rate_text(gb_s: float | None) -> str:
    if gb_s is None:
        return translate("TopologyView", "rate not known")
    return translate("TopologyView", "%1 GB/s per direction").replace("%1", f"{gb_s:.4g}")


def pen_width(gb_s: float | None, theme: Theme) -> float:
    """Thicker for faster links: 1x the theme's line width at 10 GB/s or less, 3.5x at 500 GB/s and more."""
    base = max(1.0, theme.line_width / 2)
    if not gb_s or gb_s <= 0:
        return base
    share = min(max(math.log(gb_s / 10) / math.log(50), 0.0), 1.0)
    return base * (1.0 + 2.5 * share)


class TopologyView(HoverChart):
    """``set_topology(topology, kind)`` shows a topology (``kind``: its provenance, drawn dashed when
    modelled); ``set_empty_text`` what shows before. Emits ``hovered(text)``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, min_height=160)
        self.topology: Topology | None = None
        self.kind = "measured"

    def set_topology(self, topology: Topology | None, kind: str = "measured") -> None:
        self.topology, self.kind, self.hover_text = topology, kind, ""
        self.update()

    def set_empty_text(self, text: str) -> None:
        self.empty_text = text
        self.update()

    # ------------------------------------------------------------ geometry

    def items(self) -> dict[str, tuple[str, int]]:
        """Every box and GPU by key: (kind, index)."""
        if self.topology is None:
            return {}
        out = {g.key: ("gpu", g.index) for g in self.topology.gpus}
        out.update({b.key: (b.kind, b.index) for b in self.topology.boxes})
        return out

    def legend_rect(self) -> QRectF:
        return QRectF(8, 4, self.width() - 16, self._line() * 1.3)

    def _line(self) -> int:
        return self.fontMetrics().height()

    def box_rects(self) -> dict[str, QRectF]:
        """Where each box is drawn, in widget pixels."""
        items = self.items()
        rows = [[key for key, (kind, _i) in items.items() if kind == tier] for tier in TIERS]
        rows = [row for row in rows if row]
        if not rows:
            return {}
        line = self._line()
        top = self.legend_rect().bottom() + line * 0.8
        row_h = max(line * 2.0, (self.height() - top - line * 0.5) / len(rows))
        box_h = min(line * 1.8, row_h * 0.6)
        placed: dict[str, QRectF] = {}
        for r, row in enumerate(rows):
            row.sort(key=lambda key: items[key][1])
            centres = self._centres(row, placed, items)
            slot = (self.width() - 16) / max(len(row), 1)
            width = min(slot * 0.86, max(self._label_width(items[k]) for k in row) + line)
            y = top + r * row_h + (row_h - box_h) / 2
            for key, x in zip(row, centres, strict=True):
                placed[key] = QRectF(x - width / 2, y, width, box_h)
        return placed

    def _centres(self, row: list[str], placed: dict[str, QRectF], items: dict[str, tuple[str, int]]) -> list[float]:
        """Evenly spread; a PCIe switch, CPU or NIC under the mean of the boxes it connects to, pushed apart."""
        slot = (self.width() - 16) / max(len(row), 1)
        even = [8 + slot * (i + 0.5) for i in range(len(row))]
        if items[row[0]][0] not in CENTRED_TIERS or self.topology is None:
            return even
        wanted = []
        for key, fallback in zip(row, even, strict=True):
            xs = [placed[o].center().x() for w in self.topology.wires for o in (w.a, w.b)
                  if key in (w.a, w.b) and o != key and o in placed]  # fmt: skip
            wanted.append(sum(xs) / len(xs) if xs else fallback)
        order = sorted(range(len(row)), key=lambda i: wanted[i])
        gap = min(slot, max(self._label_width(items[k]) for k in row) + 2 * self._line())
        xs_sorted: list[float] = []
        for i in order:
            xs_sorted.append(max(wanted[i], xs_sorted[-1] + gap) if xs_sorted else max(wanted[i], 8 + gap / 2))
        overflow = max(0.0, xs_sorted[-1] - (self.width() - 8 - gap / 2))
        out = [0.0] * len(row)
        for slot_index, i in enumerate(order):
            out[i] = xs_sorted[slot_index] - overflow
        return out

    def _label_width(self, item: tuple[str, int]) -> int:
        return QFontMetrics(self.box_font()).horizontalAdvance(box_title(*item))

    def wire_lines(self) -> list[tuple[QLineF, Wire]]:
        """Each wire as a line between its boxes' facing edges."""
        rects = self.box_rects()
        out = []
        for wire in self.topology.wires if self.topology is not None else ():
            a, b = rects.get(wire.a), rects.get(wire.b)
            if a is None or b is None:
                continue
            if abs(a.center().y() - b.center().y()) < 1:  # same row: side to side
                left, right = (a, b) if a.center().x() < b.center().x() else (b, a)
                out.append((QLineF(QPointF(left.right(), left.center().y()), QPointF(right.left(), right.center().y())),
                            wire))  # fmt: skip
                continue
            upper, lower = (a, b) if a.center().y() < b.center().y() else (b, a)
            out.append((QLineF(QPointF(upper.center().x(), upper.bottom()), QPointF(lower.center().x(), lower.top())),
                        wire))  # fmt: skip
        return out

    # ------------------------------------------------------------ hover

    def describe_wire(self, wire: Wire) -> str:
        items = self.items()
        ends = " – ".join(box_title(*items[k]) for k in (wire.a, wire.b) if k in items)
        count = ""
        if wire.count and wire.kind == "nvlink":
            count = " " + translate("TopologyView", "× %1 links").replace("%1", str(wire.count))
        elif wire.count and wire.kind == "pcie":
            count = f" x{wire.count}"
        elif wire.count and wire.count > 1:
            count = " " + translate("TopologyView", "× %1 links").replace("%1", str(wire.count))
        title = wire_title(wire.kind)
        named = self.topology.facts.get("cpu_link") if self.topology is not None else None
        if wire.kind == "cpu-link" and named:
            title = f"{title} ({named})"  # UPI, Infinity Fabric: what a copy between sockets crosses
        return f"{title}{count}: {rate_text(wire.gb_s)}\n{ends}"

    def describe_box(self, key: str) -> str:
        kind, index = self.items()[key]
        lines = [box_title(kind, index)]
        gpu = next((g for g in self.topology.gpus if g.key == key), None) if self.topology else None
        if gpu is not None:
            lines += [gpu.name or "?", translate("TopologyView", "bus %1").replace("%1", gpu.bus_id or "?")]
            links = "?" if gpu.nvlinks is None else str(gpu.nvlinks)
            lines.append(translate("TopologyView", "NVLink links: %1").replace("%1", links))
            pcie = f"Gen{gpu.pcie_gen or '?'} x{gpu.pcie_width or '?'}"
            lines.append(translate("TopologyView", "PCIe: %1").replace("%1", pcie))
        return "\n".join(lines)

    def text_at(self, pos: QPointF) -> str:
        for key, rect in self.box_rects().items():
            if rect.contains(pos):
                return self.describe_box(key)
        best, best_d = None, 7.0
        for line, wire in self.wire_lines():
            d = _distance(pos, line)
            if d < best_d:
                best, best_d = wire, d
        return self.describe_wire(best) if best is not None else ""

    # ------------------------------------------------------------ painting

    def wire_colour(self, kind: str, theme: Theme) -> QColor:
        return QColor(theme.curve_colors[WIRE_COLOUR_INDEX.get(kind, 4) % len(theme.curve_colors)])

    def _pen(self, wire_kind: str, gb_s: float | None, theme: Theme) -> QPen:
        colour = self.wire_colour(wire_kind, theme)
        colour.setAlpha(200)  # where many links cross, the ones behind still show
        pen = QPen(colour, pen_width(gb_s, theme))
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        if self.kind == "modelled":
            pen.setStyle(Qt.PenStyle.DashLine)
        return pen

    def paintEvent(self, event: QPaintEvent) -> None:
        started = self.begin_paint(self.topology is not None and bool(self.items()))
        if started is None:
            return
        painter, theme = started
        self._paint_legend(painter, theme)
        for line, wire in self.wire_lines():
            painter.setPen(self._pen(wire.kind, wire.gb_s, theme))
            painter.drawLine(line)
        self._paint_boxes(painter, theme)
        painter.end()

    def _paint_legend(self, painter: QPainter, theme: Theme) -> None:
        area, line = self.legend_rect(), self._line()
        present = {w.kind for w in self.topology.wires} if self.topology else set()
        x = area.left()
        if self.kind == "modelled":  # the picture says what it is, even when cut out of the panel
            word = kind_label(self.kind)
            width = painter.fontMetrics().horizontalAdvance(word) + line
            background, text = BADGE_COLOURS.get(self.kind, BADGE_COLOURS["none"])
            badge = QRectF(area.right() - width, area.top(), width, line * 1.2)
            painter.fillRect(badge, QColor(background))
            painter.setPen(QColor(text))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, word)
        for kind in [k for k in WIRE_ORDER if k in present]:
            painter.setPen(self._pen(kind, 50.0, theme))
            y = area.top() + line * 0.6
            painter.drawLine(QPointF(x, y), QPointF(x + line * 1.5, y))
            painter.setPen(QColor(theme.text))
            title = wire_title(kind)
            painter.drawText(QRectF(x + line * 1.8, area.top(), area.width(), line * 1.2), Qt.AlignmentFlag.AlignLeft,
                             title)  # fmt: skip
            x += line * 3 + painter.fontMetrics().horizontalAdvance(title)

    def box_font(self) -> QFont:
        """A little smaller than the text around it, so that "GPU 7" still fits eight boxes in a row."""
        font = QFont(self.font())
        font.setPointSizeF(max(8.0, self.font().pointSizeF() * 0.85))
        return font

    def _paint_boxes(self, painter: QPainter, theme: Theme) -> None:
        items = self.items()
        painter.setFont(self.box_font())
        metrics = painter.fontMetrics()
        for key, rect in self.box_rects().items():
            kind, index = items[key]
            fill = QColor(theme.highlight if kind == "gpu" else theme.button)
            painter.setPen(QPen(QColor(theme.text), max(1, theme.line_width // 2)))
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(QColor("#ffffff" if kind == "gpu" else theme.text))
            title = box_title(kind, index)
            if metrics.horizontalAdvance(title) > rect.width() - 4:
                title = title.replace(" ", "")  # "GPU7", then just "7": the whole name is on hover
            if metrics.horizontalAdvance(title) > rect.width() - 4:
                title = str(index)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, title)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.FontChange, QEvent.Type.PaletteChange):
            self.update()
        super().changeEvent(event)


def _distance(point: QPointF, line: QLineF) -> float:
    """Pixels from ``point`` to the segment ``line``."""
    dx, dy = line.dx(), line.dy()
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return math.hypot(point.x() - line.x1(), point.y() - line.y1())
    t = max(0.0, min(1.0, ((point.x() - line.x1()) * dx + (point.y() - line.y1()) * dy) / length2))
    return math.hypot(point.x() - (line.x1() + t * dx), point.y() - (line.y1() + t * dy))
