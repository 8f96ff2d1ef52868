"""The access-pattern lab's case table: one row per load pattern, what the emulator counted
beside the GB/s it costs, and a provenance badge on every GB/s figure.

Columns: case number (the chart's x), case, sectors per request, useful share of the bytes
fetched, GB/s and its source (measured on this GPU, else modelled), bytes fetched / used per
request (last: the GB/s and their badge stay in view in a narrow window). Choosing a
row (click or arrow keys) emits ``case_chosen``; a double-click emits ``case_opened``.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from gpulab.experiments.access_pattern.cases import Case
from ui import i18n
from ui.widgets.badge import BADGE_COLOURS, kind_explanation, kind_label

translate = QCoreApplication.translate
CASE_COLUMN, GB_S_COLUMN, SOURCE_COLUMN = 1, 4, 5


def headers() -> list[str]:
    return [
        "#",
        translate("CaseTable", "Case"),
        translate("CaseTable", "Sectors"),
        translate("CaseTable", "Useful"),
        "GB/s",
        translate("CaseTable", "Source"),
        translate("CaseTable", "Bytes fetched / used"),
    ]


def header_tips() -> list[str]:
    return [
        translate("CaseTable", "The case's number on the chart"),
        translate("CaseTable", "The load pattern"),
        translate("CaseTable", "32-byte sectors one warp's load of in[] fetches (emulated, exact)"),
        translate("CaseTable", "Bytes used / bytes fetched of that load"),
        translate("CaseTable", "Useful bytes per second of the whole kernel: measured on the GPU, else modelled"),
        translate("CaseTable", "Where the GB/s come from"),
        translate("CaseTable", "Bytes those sectors hold / bytes the 32 lanes asked for, per warp load (emulated)"),
    ]


def _number(value: float | None, digits: int = 0) -> str:
    """Whole numbers without decimals, others to ``digits`` places; a dash for none."""
    if value is None:
        return "–"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.{digits}f}"


def row_texts(case: Case) -> list[str]:
    """The cell texts of one case, in the current language."""
    fetched, used = case.bytes_fetched_per_request, case.bytes_used_per_request
    efficiency = case.efficiency_percent
    return [
        str(case.index + 1),
        i18n.engine_message(case.label),
        _number(case.sectors_per_request, 1),
        f"{_number(efficiency, 1)}%" if efficiency is not None else "–",
        _number(case.gb_s),
        kind_label(case.gb_s_kind) if case.gb_s is not None else "",
        f"{_number(fetched)} / {_number(used)}" if fetched is not None else "–",
    ]


class CaseTable(QTableWidget):
    """One row per case; the GB/s source cell is coloured like the provenance badge."""

    case_chosen = Signal(int)  # row (the case's index in ``cases``), -1 when none
    case_opened = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(headers()), parent)
        self.cases: list[Case] = []
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # a narrow window scrolls sideways
        self.itemSelectionChanged.connect(lambda: self.case_chosen.emit(self.current_case_row()))
        self.cellDoubleClicked.connect(lambda row, _column: self.case_opened.emit(row))
        self.retranslate()

    def current_case_row(self) -> int:
        rows = self.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def current_case(self) -> Case | None:
        row = self.current_case_row()
        return self.cases[row] if 0 <= row < len(self.cases) else None

    def fill(self, cases: list[Case]) -> None:
        """Show ``cases``; the selected row (by case number) stays selected where it still exists."""
        keep = self.current_case_row()
        self.blockSignals(True)
        self.cases = list(cases)
        self.clearContents()
        self.setRowCount(len(self.cases))
        for row, case in enumerate(self.cases):
            self._fill_row(row, case)
        self.blockSignals(False)
        if self.cases:
            self.selectRow(keep if 0 <= keep < len(self.cases) else 0)
        else:
            self.case_chosen.emit(-1)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Every column as wide as its contents; where that leaves room, the case names take it
        (a wide window otherwise shows the table beside a blank half), and where it does not, the
        table scrolls sideways rather than cut a name."""
        header = self.horizontalHeader()
        header.setSectionResizeMode(CASE_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        natural = sum(header.sectionSize(column) for column in range(self.columnCount()))
        if natural < self.viewport().width():
            header.setSectionResizeMode(CASE_COLUMN, QHeaderView.ResizeMode.Stretch)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def _fill_row(self, row: int, case: Case) -> None:
        for column, text in enumerate(row_texts(case)):
            item = QTableWidgetItem(text)
            alignment = Qt.AlignmentFlag.AlignLeft if column == CASE_COLUMN else Qt.AlignmentFlag.AlignRight
            item.setTextAlignment(alignment | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(text)
            self.setItem(row, column, item)
        if case.gb_s is not None:
            self._badge(self.item(row, SOURCE_COLUMN), case.gb_s_kind)

    @staticmethod
    def _badge(item: QTableWidgetItem, kind: str) -> None:
        background, foreground = BADGE_COLOURS.get(kind, BADGE_COLOURS["none"])
        item.setBackground(QBrush(QColor(background)))
        item.setForeground(QBrush(QColor(foreground)))
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        item.setToolTip(kind_explanation(kind))

    def source_kinds(self) -> list[str]:
        """The provenance kind of each row's GB/s ('' where there is none), for tests and the badge."""
        return [case.gb_s_kind if case.gb_s is not None else "" for case in self.cases]

    def retranslate(self) -> None:
        self.setHorizontalHeaderLabels(headers())
        for column, tip in enumerate(header_tips()):
            header = self.horizontalHeaderItem(column)
            if header is not None:
                header.setToolTip(tip)
        for row, case in enumerate(self.cases):
            for column, text in enumerate(row_texts(case)):
                item = self.item(row, column)
                if item is not None:
                    item.setText(text)
                    if column != SOURCE_COLUMN:
                        item.setToolTip(text)
            if case.gb_s is not None:
                self._badge(self.item(row, SOURCE_COLUMN), case.gb_s_kind)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.fit_columns()  # the headers and names changed width
        super().changeEvent(event)
