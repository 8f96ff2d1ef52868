"""The planner's table: one row per DP × TP × PP layout, the ones that cannot run flagged with the reason.

Columns: DP, TP, PP, memory per GPU, fits?, bubble, step time, scaling efficiency (against the
ideal step), and why a plan cannot run (memory beyond the usable share, TP not dividing the heads,
PP beyond the layers, a batch that does not split). The best usable plan's row is marked with a
star, the layout the model's authors published (Llama 3: Meta's Table 4) with a diamond.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from gpulab.experiments import cluster_scaling
from gpulab.model import parallelism
from ui import i18n

translate = QCoreApplication.translate
FITS_COLUMN, REASON_COLUMN = 4, 8
FLAGGED = QColor(220, 60, 60, 70)  # a translucent red: readable on the light and the projector theme


def headers() -> list[str]:
    return ["DP", "TP", "PP", translate("PlanTable", "GB / GPU"), translate("PlanTable", "Fits?"),
            translate("PlanTable", "Bubble"), translate("PlanTable", "Step (s)"),
            translate("PlanTable", "Efficiency"), translate("PlanTable", "Why not")]  # fmt: skip


def row_texts(plan: parallelism.Plan, spec: object, best: bool, published: bool = False) -> list[str]:
    """The cells of one plan, in the current language (★ the best plan, ◆ the published layout; each
    reason a plan cannot run on a line of its own)."""
    layout = plan.layout
    reasons = cluster_scaling.plan_reasons(plan, spec)
    fits = translate("PlanTable", "yes") if plan.fits else translate("PlanTable", "no")
    marks = ("★ " if best else "") + ("◆ " if published else "")
    return [marks + str(layout.dp), str(layout.tp), str(layout.pp), f"{plan.memory.total / 1e9:.1f}",
            fits, f"{plan.bubble * 100:.0f}%", f"{plan.step_s:.1f}", f"{plan.efficiency * 100:.0f}%",
            "\n".join(i18n.engine_message(r) for r in reasons)]  # fmt: skip


class PlanTable(QTableWidget):
    """The plans for the chosen GPU count; rows that cannot run are tinted and say why."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(headers()), parent)
        self.plans: list[parallelism.Plan] = []
        self.spec: object = None
        self.published: parallelism.Plan | None = None
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().hide()
        header = self.horizontalHeader()
        # Every column as wide as its words, the reasons too: a projector shows no tooltips, and the
        # table scrolls sideways where the page is narrow.
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # a reason a line
        self.retranslate()

    def show_plans(self, plans: Sequence[parallelism.Plan], spec: object,
                   published: parallelism.Plan | None = None) -> None:  # fmt: skip
        """One row a plan; ``published``: the plan of the layout the model's authors used, marked ◆."""
        self.plans, self.spec, self.published = list(plans), spec, published
        best = parallelism.best_plan(self.plans)
        self.setRowCount(len(self.plans))
        for row, plan in enumerate(self.plans):
            for column, text in enumerate(row_texts(plan, spec, plan is best, plan is published)):
                item = QTableWidgetItem(text)
                if column < REASON_COLUMN:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if not plan.usable:
                    item.setBackground(QBrush(FLAGGED))
                if column == REASON_COLUMN:
                    item.setToolTip(text)
                self.setItem(row, column, item)
        if best is not None:
            self.scrollToItem(self.item(self.plans.index(best), 0), QAbstractItemView.ScrollHint.PositionAtCenter)

    def flagged_rows(self) -> list[int]:
        """Rows of plans that cannot run (tinted, with a reason)."""
        return [row for row, plan in enumerate(self.plans) if not plan.usable]

    def cell(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""

    def retranslate(self) -> None:
        self.setHorizontalHeaderLabels(headers())
        if self.plans:
            self.show_plans(self.plans, self.spec, self.published)
