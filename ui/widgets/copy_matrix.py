"""The GPU-to-GPU copy matrix as a heat map: a row per source GPU, a column per destination, GB/s in
each cell, deeper colour for faster pairs. Hovering a cell tells the pair, its path and how its
rate compares with the path's nominal rate."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from gpulab.results import Result
from ui.theme import current_theme

translate = QCoreApplication.translate


def path_title(kind: str) -> str:
    titles = {
        "nvlink": translate("CopyMatrix", "NVLink, direct"),
        "nvswitch": translate("CopyMatrix", "NVLink through NVSwitch"),
        "internal": translate("CopyMatrix", "on one board"),
        "pcie-switch": translate("CopyMatrix", "PCIe switch"),
        "host-bridge": translate("CopyMatrix", "PCIe host bridge"),
        "numa-node": translate("CopyMatrix", "through one CPU socket"),
        "system": translate("CopyMatrix", "across CPU sockets"),
    }
    return titles.get(kind, translate("CopyMatrix", "path not known"))


def matrix_of(result: Result) -> dict[tuple[int, int], tuple[float, dict]]:
    """(source, destination) -> (GB/s, the point's facts) from a p2p result's series."""
    cells = {}
    for series in result.series:
        try:
            source = int(series.key.rsplit("-", 1)[1])
        except (IndexError, ValueError):
            continue
        for point in series.points:
            cells[(source, int(point.x))] = (float(point.y), dict(point.extra))
    return cells


def blend(low: QColor, high: QColor, share: float) -> QColor:
    share = min(max(share, 0.0), 1.0)
    return QColor(*(round(a + (b - a) * share) for a, b in zip(low.getRgb()[:3], high.getRgb()[:3], strict=True)))


class CopyMatrix(QTableWidget):
    """``show_result(result | None)`` fills the table; cells are read-only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Result | None = None
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)

    def show_result(self, result: Result | None) -> None:
        self.result = result
        cells = matrix_of(result) if result is not None else {}
        n = max((max(s, d) for s, d in cells), default=-1) + 1
        self.clear()
        self.setRowCount(n)
        self.setColumnCount(n)
        titles = [translate("CopyMatrix", "GPU %1").replace("%1", str(i)) for i in range(n)]
        self.setHorizontalHeaderLabels(titles)  # "to GPU 7" would not fit eight columns in projector type
        self.setVerticalHeaderLabels(titles)
        top = max((v for v, _facts in cells.values()), default=0.0)
        theme = current_theme()
        for row in range(n):
            for column in range(n):
                self.setItem(row, column, self._cell(row, column, cells.get((row, column)), top, theme))

    def _cell(self, src: int, dst: int, cell: tuple[float, dict] | None, top: float, theme) -> QTableWidgetItem:
        if cell is None:
            item = QTableWidgetItem("—")
            item.setToolTip(translate("CopyMatrix", "A GPU does not copy to itself here.") if src == dst else "")
        else:
            value, facts = cell
            item = QTableWidgetItem(f"{value:.3g}")
            share = value / top if top > 0 else 0.0
            background = blend(QColor(theme.base), QColor(theme.highlight), 0.15 + 0.85 * share)
            item.setBackground(background)
            item.setForeground(QColor("#ffffff" if background.lightness() < 128 else "#000000"))
            item.setToolTip(self.describe(src, dst, value, facts))
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        return item

    def describe(self, src: int, dst: int, value: float, facts: dict) -> str:
        lines = [translate("CopyMatrix", "GPU %1 → GPU %2: %3 GB/s").replace("%1", str(src)).replace("%2", str(dst))
                 .replace("%3", f"{value:.4g}"), path_title(str(facts.get("path", "")))]  # fmt: skip
        if facts.get("links"):
            lines.append(translate("CopyMatrix", "NVLink links: %1").replace("%1", str(facts["links"])))
        nominal = facts.get("nominal_gb_s")
        if nominal:
            lines.append(translate("CopyMatrix", "nominal: %1 GB/s").replace("%1", f"{float(nominal):.4g}"))
        percent = facts.get("percent_of_peak")
        if percent is not None:
            lines.append(translate("CopyMatrix", "%1% of nominal").replace("%1", f"{float(percent):.0f}"))
        return "\n".join(lines)
