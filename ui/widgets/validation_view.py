"""How good is this model? A lab's validation rows: the model's figure beside the published one.

:class:`ValidationButton` sits at the right of a lab's heading (:func:`heading_row`; hidden when the
lab has no rows); it opens a
:class:`ValidationDialog`, a table of the rows (what is compared, the model's figure, the published
one, the error, the tolerance the project claims, the verdict; under each row its source as a link,
the place in it, and where the model departs from the published setting). It wraps to any width, so
a 1024-pixel projector shows every column. The rows are checked off the GUI thread (a planner row
prices a 16,384-GPU layout) and once per session (:func:`gpulab.validation.builtin_checks`).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gpulab import validation
from gpulab.validation import Check
from ui.i18n import engine_message
from ui.jobs import JobRunner
from ui.theme import BOX_COLOURS, current_theme

VERDICT_COLOURS = {"pass": "ok_border", "fail": "error_border", "error": "error_border", "unvalidated": "warn_border"}


class ValidationSheet(QTextBrowser):
    """The checks as a table that wraps to any width: what, model, published, error, tolerance, verdict,
    and under each row its source (a link), the place in it and where the model departs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.checks: list[Check] = []
        self._rows: list[list[str]] = []
        self.setOpenExternalLinks(True)

    def headers(self) -> list[str]:
        return [self.tr("What is compared"), self.tr("Model"), self.tr("Published"), self.tr("Error"),
                self.tr("Tolerance"), self.tr("Verdict")]  # fmt: skip

    def verdict(self, status: str) -> str:
        words = {"pass": self.tr("✓ within"), "fail": self.tr("✗ outside"), "error": self.tr("✗ not priced"),
                 "unvalidated": self.tr("unvalidated")}  # fmt: skip
        return words[status]

    def rows(self) -> list[list[str]]:
        """The cells as shown (what, model, published, error, tolerance, verdict, source), for tests and scripts."""
        return [list(row) for row in self._rows]

    def cells(self, item: Check) -> list[str]:
        row = item.row
        unit = f"\u00a0{row.unit}" if row.unit else ""  # a figure and its unit stay on one line
        model = validation.value_text(item.model_value) + (unit if item.model_value is not None else "")
        published = row.published.text() + unit if row.published else self.tr("none published")
        if row.bound:  # the model's figure is a bound on the measured one, from this side
            model = (self.tr("%1 (upper bound)") if row.bound == "upper" else self.tr("%1 (lower bound)")).replace(
                "%1", model)
        source = row.source.title if row.source else ""
        verdict = self.verdict(item.status) + (self.tr(" · fitted") if row.fitted else "")
        return [engine_message(row.what), model, published, validation.error_text(item),
                f"±{row.tolerance * 100:.0f}%", verdict, source]  # fmt: skip

    def show_checks(self, checks: Sequence[Check]) -> None:
        self.checks = list(checks)
        self._rows = [self.cells(item) for item in self.checks]
        theme = current_theme()
        colours = BOX_COLOURS.get(theme.name, BOX_COLOURS["light"])
        # The figures take the width they need and never wrap; the description takes the rest and wraps.
        head = "".join(f'<th align="left" width="40%">{html.escape(text)}</th>' if i == 0 else
                       f'<th align="right" width="1%" style="white-space: nowrap">{html.escape(text)}</th>'
                       for i, text in enumerate(self.headers()))  # fmt: skip
        body = "".join(self._row_html(item, cells, colours, theme.muted)
                       for item, cells in zip(self.checks, self._rows, strict=True))  # fmt: skip
        self.setHtml(f'<table width="100%" cellspacing="0" cellpadding="5"><tr>{head}</tr>{body}</table>')

    def _row_html(self, item: Check, cells: list[str], colours: dict[str, str], muted: str) -> str:
        colour = colours[VERDICT_COLOURS[item.status]]
        line = f"border-top: 1px solid {muted}"  # a rule above each row, across every column
        # The figures never wrap (a unit split from its number reads wrong); the verdict may, after its mark.
        numbers = "".join(f'<td align="right" width="1%" style="white-space: nowrap; {line}">{html.escape(text)}</td>'
                          for text in cells[1:5])  # fmt: skip
        # The verdict and "fitted" each on a line of their own, never broken inside (CJK would break anywhere).
        lines = "<br>".join(html.escape(part) for part in cells[5].split(" · "))
        verdict = (f'<td align="right" width="1%" style="white-space: nowrap; {line}; color: {colour}">'
                   f"<b>{lines}</b></td>")  # fmt: skip
        first = f'<tr><td style="{line}">{html.escape(cells[0])}</td>{numbers}{verdict}</tr>'
        return first + f'<tr><td colspan="6" style="color: {muted}">{self._about(item)}</td></tr>'

    def _about(self, item: Check) -> str:
        """The row's source as a link with the place in it, where the model departs, why it was not priced."""
        row, parts = item.row, []
        if row.source is not None:
            link = f'<a href="{html.escape(row.source.url)}">{html.escape(row.source.title)}</a>'
            locator = f" — {html.escape(row.locator)}" if row.locator else ""
            parts.append(self.tr("Source: %1").replace("%1", link) + locator)
        if row.bound:
            parts.append(html.escape(self.tr("The model claims only an upper bound: it passes when its figure is at "
                                             "or above the measured one.") if row.bound == "upper" else
                                     self.tr("The model claims only a lower bound: it passes when its figure is at "
                                             "or below the measured one.")))  # fmt: skip
        if row.fitted:
            parts.append(html.escape(self.tr("Fitted: the model's constants were set from this figure, so this row "
                                             "checks that they hang together, not what the model predicts.")))
        if row.gap is not None:
            parts.append(html.escape(self.tr("Where the model departs: %1").replace("%1", engine_message(row.gap))))
        if item.problem:
            parts.append(html.escape(self.tr("Not priced: %1").replace("%1", item.problem)))
        return "<br>".join(parts)


class ValidationDialog(QDialog):
    """A lab's rows, checked; ``lab`` is its experiment id (None: every lab's), ``title`` names it now."""

    def __init__(self, lab: str | None, title: Callable[[], str], runner: JobRunner,
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.lab, self.title = lab, title
        self.checks: list[Check] | None = None  # None until the worker has checked them
        self.caption, self.summary = QLabel(), QLabel()
        for label in (self.caption, self.summary):
            label.setWordWrap(True)
        self.table = ValidationSheet()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        for widget in (self.caption, self.summary):
            layout.addWidget(widget)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(1000, 520)
        self.retranslate()
        runner.run_task(lambda: validation.builtin_checks(lab), self._checked, self._failed)

    def _checked(self, checks: Sequence[Check]) -> None:
        self.checks = list(checks)
        self.retranslate()

    def _failed(self, message: str) -> None:
        self.summary.setText(self.tr("The rows could not be checked: %1").replace("%1", message))

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("How good is this model? — %1").replace("%1", self.title()))
        self.caption.setText(self.tr(
            "Each row sets one modelled figure against a published measurement. The model passes "
            "a row when it lands within the tolerance the project claims; the error is measured from the nearest "
            "end of the published figure. A row without a published figure is unvalidated. Under each row: its "
            "source, and where the model departs from the published setting."))  # fmt: skip
        if self.checks is None:
            self.summary.setText(self.tr("Checking the model against the published figures…"))
            return
        counts = validation.summary(self.checks)
        compared = len(self.checks) - counts["unvalidated"]
        if counts["unvalidated"]:
            text = self.tr("%1 of %2 rows within tolerance; %3 unvalidated.").replace("%3", str(counts["unvalidated"]))
        else:
            text = self.tr("%1 of %2 rows within tolerance.")
        text = text.replace("%1", str(counts["pass"])).replace("%2", str(compared))
        if counts["fitted"]:
            # The space is the translation's: Chinese joins its sentences without one.
            text += self.tr(" %1 of the rows set the model's constants (fitted).").replace("%1", str(counts["fitted"]))
        self.summary.setText(text)
        self.table.show_checks(self.checks)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def heading_row(heading: QLabel, button: QPushButton) -> QWidget:
    """A page's heading with its "How good is this model?" button at the right end of the same line:
    where a teacher looks first, and out of the controls column, which a projector keeps narrow."""
    row = QWidget()
    line = QHBoxLayout(row)
    line.setContentsMargins(0, 0, 0, 0)
    heading.setWordWrap(True)  # a long title wraps before it pushes the button off the page
    line.addWidget(heading, 1)
    line.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
    return row


class ValidationButton(QPushButton):
    """"How good is this model?": opens the lab's rows; hidden for a lab that has none."""

    def __init__(self, lab: str, title: Callable[[], str], runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title, self.runner = title, runner
        self.dialog: ValidationDialog | None = None
        self.clicked.connect(self.open_dialog)
        self.set_lab(lab)

    def set_lab(self, lab: str) -> None:
        """Show ``lab``'s rows from now on (a page whose experiment can change: CPU vs GPU)."""
        self.lab = lab
        self.rows = validation.rows_for(lab) if lab else []
        self.setVisible(bool(self.rows))
        if self.dialog is not None and self.dialog.lab != lab:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
        self.retranslate()

    def open_dialog(self) -> ValidationDialog:
        if self.dialog is None:
            self.dialog = ValidationDialog(self.lab, self.title, self.runner, self.window())
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def retranslate(self) -> None:
        self.setText(self.tr("How good is this model?"))
        self.setToolTip(self.tr("%1 published measurements set against this lab's model").replace(
            "%1", str(sum(row.published is not None for row in self.rows))))  # fmt: skip

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
