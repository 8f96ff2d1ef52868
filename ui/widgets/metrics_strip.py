"""The metrics strip: four nvprof-style metrics of the emulated launch, each with its ideal
value beside it and one line saying what it means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QBoxLayout, QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from ui.widgets.badge import ProvenanceBadge
from ui.widgets.flow_layout import WrapLabel

translate = QCoreApplication.translate


@dataclass(frozen=True)
class MetricSpec:
    key: str  # the emulator's (nvprof) metric name
    unit: str  # "%" or "" (a ratio)
    ideal: float
    title: Callable[[], str]
    explanation: Callable[[], str]
    short: Callable[[], str] | None = None  # the title in a narrow cell (the whole one in the tooltip)


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "branch_efficiency", "%", 100.0,
        lambda: translate("MetricsStrip", "Branch efficiency"),
        lambda: translate("MetricsStrip", "Share of branches where all lanes of a warp went the same way."),
    ),
    MetricSpec(
        "warp_execution_efficiency", "%", 100.0,
        lambda: translate("MetricsStrip", "Warp execution efficiency"),
        lambda: translate(
            "MetricsStrip",
            "nvprof's warp_execution_efficiency: active lanes / 32, averaged over every warp-step of "
            "every warp in the launch.",
        ),
    ),
    MetricSpec(
        "gld_transactions_per_request", "", 4.0,
        lambda: translate("MetricsStrip", "Sectors per load request"),
        lambda: translate("MetricsStrip", "32-byte sectors per warp load; 32 lanes x 4 bytes need only 4."),
        lambda: translate("MetricsStrip", "Sectors per load"),
    ),
    MetricSpec(
        "shared_load_transactions_per_request", "", 1.0,
        lambda: translate("MetricsStrip", "Shared transactions per request"),
        lambda: translate("MetricsStrip", "Bank passes per shared load; more than 1 means bank conflicts."),
        lambda: translate("MetricsStrip", "Shared transactions"),
    ),
)  # fmt: skip


def format_value(value: float | None, unit: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    text = f"{value:.1f}" if unit == "%" else f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{text} %" if unit == "%" else text


def is_ideal(value: float | None, spec: MetricSpec) -> bool | None:
    """Whether a value reaches its ideal (None when there is no value or nothing was measured)."""
    if value is None:
        return None
    return value >= spec.ideal - 1e-9 if spec.unit == "%" else value <= spec.ideal + 1e-9


GOOD, FAIR, POOR, BELOW = "good", "fair", "poor", "below"
GOOD_WITHIN, FAIR_WITHIN = 0.05, 0.25  # shortfall (or excess) as a share of the ideal


def rating(value: float | None, spec: MetricSpec) -> str | None:
    """How far a value is from its ideal, in the direction that is worse.

    Percentages are better high (ideal 100 %), transactions per request better low: a value
    within 5 % of its ideal is good, within 25 % fair, else poor. A ratio *under* its ideal
    (3.25 sectors where 32 lanes x 4 bytes need 4) is ``below``: fewer lanes loaded, which
    is no alarm but not the ideal pattern either.
    """
    if value is None or math.isnan(value):
        return None
    if spec.unit == "%":
        off = (spec.ideal - value) / spec.ideal
    else:
        if value < spec.ideal - 1e-9:
            return BELOW
        off = (value - spec.ideal) / spec.ideal
    return GOOD if off <= GOOD_WITHIN + 1e-12 else FAIR if off <= FAIR_WITHIN + 1e-12 else POOR


class MetricCell(QFrame):
    def __init__(self, spec: MetricSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.number: float | None = None
        self.spec = spec
        self.compact = False  # a narrow cell: the short title, if the metric has one
        self.rating: str | None = None
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = WrapLabel()
        self.value = QLabel("—")
        self.value.setObjectName("metricValue")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.value.setFont(font)
        self.ideal = QLabel()
        self.explanation = WrapLabel()
        self.explanation.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        small = self.explanation.font()
        small.setPointSizeF(small.pointSizeF() * 0.85)
        self.explanation.setFont(small)
        self.title.setFont(small)
        self.ideal.setFont(small)
        self.grid = QGridLayout(self)
        self.grid.setVerticalSpacing(1)
        self.grid.addWidget(self.title, 0, 0, 1, 2)
        self.grid.addWidget(self.value, 1, 0)
        self.grid.addWidget(self.explanation, 3, 0, 1, 2)
        self.grid.setContentsMargins(5, 2, 5, 2)
        self.ideal_beside: bool | None = None
        self._place_ideal(True)

    def _place_ideal(self, beside: bool) -> None:
        """'ideal 100.0 %' beside the value, or under it when the cell is too narrow for both."""
        if beside == self.ideal_beside:
            return
        self.ideal_beside = beside
        self.grid.removeWidget(self.ideal)
        if beside:
            self.grid.addWidget(self.ideal, 1, 1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        else:
            self.grid.addWidget(self.ideal, 2, 0, 1, 2, Qt.AlignmentFlag.AlignLeft)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        needed = self.value.sizeHint().width() + self.ideal.fontMetrics().horizontalAdvance(self.ideal.text()) + 24
        self._place_ideal(self.width() >= needed)

    def set_value(self, value: float | None) -> None:
        self.number = value
        self.value.setText(format_value(value, self.spec.unit))
        self._colour()

    def _colour(self) -> None:
        """Green near the ideal, amber a little off, red-orange far off (see :func:`rating`);
        the theme's text colour under the ideal; lighter shades on a dark background."""
        self.rating = rating(self.number, self.spec)
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        colours = (
            {GOOD: "#34d399", FAIR: "#f2c12e", POOR: "#ff8c69"}
            if dark
            else {GOOD: "#1b7f3b", FAIR: "#8a5a00", POOR: "#c83200"}
        )
        colour = colours.get(self.rating or "", "")
        self.value.setStyleSheet(f"color: {colour};" if colour else "")
        self._write_ideal()

    def _write_ideal(self) -> None:
        ideal = format_value(self.spec.ideal, self.spec.unit)
        if self.rating == BELOW:
            text = translate("MetricsStrip", "under the ideal %1: not every lane loads").replace("%1", ideal)
        else:
            text = translate("MetricsStrip", "ideal %1").replace("%1", ideal)
        self.ideal.setText(text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._colour()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setToolTip(self.spec.title() + ": " + self.spec.explanation())
        self.title.setText(self.spec.short() if self.compact and self.spec.short else self.spec.title())
        self._write_ideal()
        self.explanation.setText(self.spec.explanation())


class MetricsStrip(QWidget):
    """Four metric cells and an 'emulated' provenance badge.

    The cells sit in one row when each gets ``CELL_EMS`` type widths (``COMPACT_CELL_EMS`` when
    compact), else in a 2 x 2 grid; ``set_compact`` hides the one-line explanations (they stay
    as tooltips) and keeps each title to two lines (read whole), so that the four fit one short row.
    """

    CELL_EMS = 11
    COMPACT_CELL_EMS = 7

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.badge = ProvenanceBadge("")
        self.cells = {spec.key: MetricCell(spec) for spec in METRICS}
        self.compact = False
        self.columns = 0
        self.outer = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.outer.setContentsMargins(0, 0, 0, 0)
        side = QVBoxLayout()
        side.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignLeft)
        side.addStretch(1)
        self.outer.addLayout(side)
        self.grid = QGridLayout()
        self.grid.setSpacing(4)
        self.outer.addLayout(self.grid, 1)
        self._arrange(2)
        self.retranslate()

    def set_compact(self, compact: bool) -> None:
        """Hide (True) or show the explanation under each metric."""
        if compact != self.compact:
            self.compact = compact
            for cell in self.cells.values():
                cell.compact = compact
                cell.explanation.setVisible(not compact)
                cell.title.set_lines(1, 2 if compact else None)  # two lines: read whole, not cut
                cell.retranslate()
            self._arrange(self.wanted_columns(self.width()))

    def _arrange(self, columns: int) -> None:
        if columns == self.columns:
            return
        self.columns = columns
        for cell in self.cells.values():
            self.grid.removeWidget(cell)
        for i, cell in enumerate(self.cells.values()):
            self.grid.addWidget(cell, *divmod(i, columns))
        for column in range(4):
            self.grid.setColumnStretch(column, 1 if column < columns else 0)
        wide = QBoxLayout.Direction.LeftToRight
        self.outer.setDirection(wide if columns == 4 else QBoxLayout.Direction.TopToBottom)  # badge above 2 x 2

    def wanted_columns(self, width: int) -> int:
        em = self.fontMetrics().horizontalAdvance("M")
        room = width - self.badge.sizeHint().width() - 3 * self.grid.spacing()
        ems = self.COMPACT_CELL_EMS if self.compact else self.CELL_EMS
        return 4 if room >= 4 * ems * em else 2

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange(self.wanted_columns(self.width()))

    def set_metrics(self, metrics: Mapping[str, float] | None) -> None:
        """Show a launch's metrics (None: nothing run yet). Ratios with no request show '—'."""
        metrics = metrics or {}
        for key, cell in self.cells.items():
            value = metrics.get(key)
            if key.endswith("_per_request") and not metrics.get(key.replace("transactions_per_request", "requests")):
                value = None
            cell.set_value(None if value is None else float(value))
        self.badge.set_kind("emulated" if metrics else "")

    def value_text(self, key: str) -> str:
        return self.cells[key].value.text()

    def retranslate(self) -> None:
        for cell in self.cells.values():
            cell.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
