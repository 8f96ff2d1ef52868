"""The Check page's traffic-light table: one line per check while a run goes, one per row after.

While a run goes each planned check has a line that says it is waiting, running (with what it
is doing now) or, once over, its verdict: the check's rows take its place as it finishes. A
finished report is sorted worst first (failures, warnings, passes, skips; the run's order
within each). Each verdict is a word on its colour, never a colour alone; the value cell's
tooltip names the source of its threshold. Every text is rendered again on a language switch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from gpulab import catalogue
from gpulab.catalogue import Message, msg
from gpulab.check.html import VERDICT_COLOURS, source_text
from gpulab.check.model import SEVERITY, Row, unit_text
from ui.i18n import current_language, engine_message

translate = QCoreApplication.translate
VERDICT, CHECK, DEVICE, VALUE, REASON = range(5)  # REASON holds the reason, then "→ next action" below it
# What a line may not break inside: a run of letters, digits and signs; a Chinese character stands alone.
WORD = re.compile(r"[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+")
WRAPPED = (CHECK, VALUE, REASON)  # the columns that share the width left and wrap their words
CELL_MARGIN_PX = 6
# A check's line before its rows: (background, text) with the contrast of the verdict colours.
STATE_COLOURS = {"waiting": ("#d9d9d9", "#1a1a1a"), "running": ("#1f5fbf", "#ffffff"),
                 "not-run": ("#d9d9d9", "#1a1a1a")}  # fmt: skip


@dataclass
class Pending:
    """A planned check that has no rows yet: ``waiting``, ``running`` or ``not-run`` (cancelled)."""

    check: str
    state: str = "waiting"
    doing: Message | str = ""  # its latest progress message while it runs


Entry = Row | Pending


def headers() -> list[str]:
    return [translate("CheckTable", "Verdict"), translate("CheckTable", "Check"),
            translate("CheckTable", "Device"), translate("CheckTable", "Value"),
            translate("CheckTable", "Reason and next action")]  # fmt: skip


def header_tips() -> list[str]:
    return [translate("CheckTable", "Pass, warning, failure or skipped (could not be checked here)"),
            translate("CheckTable", "What was checked"),
            translate("CheckTable", "The device checked (host: the machine's software)"),
            translate("CheckTable", "What was measured, and in brackets the threshold it is held to; "
                                    "hover over a value for the threshold's source"),
            translate("CheckTable", "Why this verdict, and below it (after →) what to do about it")]  # fmt: skip


def check_title(check: str) -> str:
    """The check's title in the interface language (its id when the catalogue has none: a report
    written by a newer gpulab)."""
    key = f"check.{check}.title"
    return engine_message(msg(key)) if catalogue.has(key) else check


def verdict_word(entry: Entry) -> str:
    if isinstance(entry, Row):
        return engine_message(msg(f"check.verdict.{entry.verdict.value}"))
    return {"waiting": translate("CheckTable", "WAITING"), "running": translate("CheckTable", "RUNNING"),
            "not-run": translate("CheckTable", "NOT RUN")}[entry.state]  # fmt: skip


def verdict_colours(entry: Entry) -> tuple[str, str]:
    """(background, text) of the verdict cell."""
    return (VERDICT_COLOURS[entry.verdict], "#ffffff") if isinstance(entry, Row) else STATE_COLOURS[entry.state]


def device_text(row: Row, many_hosts: bool) -> str:
    """``gpu0``, and on a report of several hosts (a fleet's) where and which rank."""
    parts = [row.device]
    if many_hosts and row.host:
        parts.append(f"@ {row.host}")
    if row.rank is not None:
        parts.append(translate("CheckTable", "(rank %1)").replace("%1", str(row.rank)))
    return " ".join(parts)


def threshold_tip(row: Row) -> str:
    """Where the row's threshold comes from (the thresholds file's citation), for the value's tooltip."""
    source = source_text(row.source)
    if row.threshold is None and not source:
        return translate("CheckTable", "No number is held against a threshold in this check.")
    lines = []
    if row.threshold is not None:
        unit = unit_text(row.unit, current_language())
        lines.append(translate("CheckTable", "Threshold: %1 %2 %3").replace("%1", row.comparison)
                     .replace("%2", f"{row.threshold:g}").replace("%3", unit).strip())  # fmt: skip
    if source:
        lines.append(translate("CheckTable", "Source: %1").replace("%1", source))
    return "\n".join(lines)


def row_texts(entry: Entry, many_hosts: bool = False) -> list[str]:
    """The cell texts of one line, in the interface language."""
    if isinstance(entry, Pending):
        doing = engine_message(entry.doing) if entry.state == "running" and entry.doing else ""
        return [verdict_word(entry), check_title(entry.check), "", "", doing]  # no row yet: the check's own title
    # The next action under its reason, as the text report and the HTML page write it: one column
    # of reasons beside one of actions made every row as tall as the narrower one's text.
    said = engine_message(entry.reason)
    if entry.action is not None:
        said += "\n→ " + engine_message(entry.action)
    value = entry.value_text(current_language())
    return [verdict_word(entry), entry.title(current_language()), device_text(entry, many_hosts), value, said]


def worst_first(rows: list[Row]) -> list[Row]:
    """Failures first, then warnings, passes and skips; the run's order within each."""
    return sorted(rows, key=lambda row: -SEVERITY[row.verdict])


class CheckTable(QTableWidget):
    """The lines of a run or a report; ``entries`` is what it shows, in order."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(headers()), parent)
        self.entries: list[Entry] = []
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(True)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)  # tall wrapped rows
        self.verticalHeader().hide()
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.retranslate()

    # ------------------------------------------------------------ what it shows

    def show_plan(self, checks: list[str] | tuple[str, ...]) -> None:
        self.entries = [Pending(check) for check in checks]
        self.refill()

    def check_started(self, check: str) -> None:
        for entry in self.entries:
            if isinstance(entry, Pending) and entry.check == check:
                entry.state = "running"
        self.refill()

    def check_doing(self, doing: Message | str) -> None:
        """The running check's latest progress message."""
        for row, entry in enumerate(self.entries):
            if isinstance(entry, Pending) and entry.state == "running":
                entry.doing = doing
                self._set_row(row, entry)
        self.resizeRowsToContents()

    def check_done(self, check: str, rows: tuple[Row, ...]) -> None:
        """The check's line gives way to its rows (to none when another check's row said it all)."""
        at = next((i for i, e in enumerate(self.entries) if isinstance(e, Pending) and e.check == check), None)
        if at is None:
            self.entries.extend(rows)
        else:
            self.entries[at:at + 1] = list(rows)
        self.refill()

    def stopped(self) -> None:
        """A run ended early: the checks it did not finish say they were not run."""
        for entry in self.entries:
            if isinstance(entry, Pending):
                entry.state, entry.doing = "not-run", ""
        self.refill()

    def show_rows(self, rows: list[Row]) -> None:
        """A finished report's rows, worst first."""
        self.entries = list(worst_first(rows))
        self.refill()

    def rows(self) -> list[Row]:
        return [entry for entry in self.entries if isinstance(entry, Row)]

    def refill(self) -> None:
        self.setRowCount(len(self.entries))
        for row, entry in enumerate(self.entries):
            self._set_row(row, entry)
        self.fit_columns()

    def _many_hosts(self) -> bool:
        return len({row.host for row in self.rows()}) > 1

    def _set_row(self, row: int, entry: Entry) -> None:
        texts = row_texts(entry, self._many_hosts())
        for column, text in enumerate(texts):
            item = self.item(row, column)
            if item is None:
                item = QTableWidgetItem()
                self.setItem(row, column, item)
            item.setText(text)
            item.setToolTip(text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        light = self.item(row, VERDICT)
        background, foreground = verdict_colours(entry)
        light.setBackground(QBrush(QColor(background)))
        light.setForeground(QBrush(QColor(foreground)))
        bold = QFont(self.font())
        bold.setBold(True)
        light.setFont(bold)
        light.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)  # seen in a tall row
        light.setToolTip(verdict_tip(entry))
        if isinstance(entry, Row):
            self.item(row, VALUE).setToolTip(threshold_tip(entry))

    # ------------------------------------------------------------ its columns

    def fit_columns(self) -> None:
        """The verdict and device columns as wide as their words. The wrapped columns each get at
        least their longest word (a word is never cut) and share the rest where it shortens the
        table most (one narrow column would make every row tall); every row then as tall as its
        longest cell. The room of the vertical scroll bar is kept whether it shows or not: the
        columns never outgrow the table when the rows grow tall enough to scroll."""
        header = self.horizontalHeader()
        natural = {c: max(self.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in (VERDICT, DEVICE)}
        for column, width in natural.items():
            self.setColumnWidth(column, width)
        inner = self.width() - 2 * self.frameWidth() - self.verticalScrollBar().sizeHint().width()
        room = max(0, inner - sum(natural.values()))
        advances = {c: self._advances(c) for c in WRAPPED}
        least = {c: max(header.sectionSizeHint(c), *self._advances(c, words=True)) for c in WRAPPED}
        for column, width in share_width(least, advances, room - sum(least.values())).items():
            self.setColumnWidth(column, width)
        self.resizeRowsToContents()

    def _advances(self, column: int, words: bool = False) -> list[int]:
        """Each cell's text on one line (or each of its words), in pixels with the cell's margins."""
        metrics = self.fontMetrics()
        texts = [self.item(row, column).text() for row in range(self.rowCount()) if self.item(row, column)]
        if words:
            texts = [word for text in texts for word in WORD.findall(text)]
        return [metrics.horizontalAdvance(text) + 2 * CELL_MARGIN_PX for text in texts] or [0]

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def retranslate(self) -> None:
        self.setHorizontalHeaderLabels(headers())
        for column, tip in enumerate(header_tips()):
            item = self.horizontalHeaderItem(column)
            if item is not None:
                item.setToolTip(tip)
        self.refill()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.FontChange):
            self.retranslate()
        super().changeEvent(event)


def share_width(least: dict[int, int], advances: dict[int, list[int]], spare: int) -> dict[int, int]:
    """Column widths from ``least`` plus ``spare`` pixels: the values and the titles on one line
    where that takes at most a third of what is spare, the rest given a step at a time to the column where
    they shorten the table most (a row is as many lines as its fullest cell; a row's lines count
    squared, so one very tall row, the failure that heads the table, is shortened first); what no
    column needs goes to the reasons."""
    widths = dict(least)
    rows = range(max(len(a) for a in advances.values()))
    for column in (VALUE, CHECK):  # short texts on one line where that costs little of the room
        need = max(advances[column]) - widths[column]
        if 0 < need <= spare // 3:
            widths[column] += need
            spare -= need

    def lines(trial: dict[int, int]) -> float:  # unrounded: a step that brings a line nearer counts
        return sum(max(a[r] / max(1, trial[c]) if r < len(a) else 1.0 for c, a in advances.items()) ** 2
                   for r in rows)  # fmt: skip

    step = max(4, spare // 80)
    while spare >= step:
        now = lines(widths)
        gains = {c: now - lines({**widths, c: widths[c] + step}) for c in widths if widths[c] < max(advances[c])}
        if not gains:
            break
        best = max(gains, key=lambda c: (gains[c], max(advances[c]) - widths[c]))
        widths[best] += step
        spare -= step
    widths[REASON] += max(0, spare)
    return widths


def verdict_tip(entry: Entry) -> str:
    """What the verdict word means, for its tooltip."""
    if isinstance(entry, Pending):
        return {"waiting": translate("CheckTable", "This check has not started yet."),
                "running": translate("CheckTable", "This check is running now."),
                "not-run": translate("CheckTable", "The run was stopped before this check finished: no verdict.")
                }[entry.state]  # fmt: skip
    return {"pass": translate("CheckTable", "Pass: the measured value meets its threshold."),
            "warn": translate("CheckTable", "Warning: worth a look, but the run does not fail for it."),
            "fail": translate("CheckTable", "Failure: something is wrong here; the check's exit code is 1."),
            "skip": translate("CheckTable",
                              "Skipped: this could not be checked here (the reason says why); never a pass."),
            }[entry.verdict.value]  # fmt: skip
