"""The warp visualizer's "printf output" tab: what the kernel's printf calls printed, lane-tagged."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from gpulab.experiments import warp as ws
from ui.widgets.memory_view import fill

MAX_SHOWN_LINES = 2000  # a launch may print up to 1 MiB: the first lines are what a reader reads


class PrintfTab(QWidget):
    """A one-line summary above the records, one line each: block, thread, warp and lane, then the text.

    The records come from the session (every block of the launch, in the emulator's order),
    or from an emulator error that carries what was printed before it.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.records: list = []
        self.lost = 0
        self.failed = False  # the records are what an emulation printed before its error
        self.shown = False  # some run's output (or its absence) is on screen
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)

    def show_session(self, session: ws.WarpSession) -> None:
        self._show(list(session.printf), session.printf_lost, failed=False)

    def show_error(self, error: BaseException) -> None:
        """A failed emulation: what it printed before the error, if anything (else the last run stays)."""
        records = list(getattr(error, "printf", None) or [])
        if records:
            self._show(records, 0, failed=True)
            self.setGraphicsEffect(None)  # type: ignore[arg-type]  # this run's output: not greyed

    def _show(self, records: list, lost: int, failed: bool) -> None:
        self.records, self.lost, self.failed, self.shown = records, lost, failed, True
        self.retranslate()

    def line(self, record) -> str:
        """``[block (0,0,0) thread (5,0,0) | warp 0 lane 5] text`` (one trailing newline dropped)."""
        text = record.text[:-1] if record.text.endswith("\n") else record.text
        b, t = record.block, record.thread
        tag = fill(self.tr("[block (%1) thread (%2) | warp %3 lane %4]"), f"{b[0]},{b[1]},{b[2]}",
                   f"{t[0]},{t[1]},{t[2]}", record.warp, record.lane)
        return f"{tag} {text}"

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        if not self.shown:
            self.summary.setText("")
            return
        self.view.setPlainText("\n".join(self.line(r) for r in self.records[:MAX_SHOWN_LINES]))
        self.summary.setText(self.summary_text())

    def summary_text(self) -> str:
        count = len(self.records)
        if count == 0:
            return self.tr("No printf output: the kernel printed nothing in this run.")
        text = (self.tr("Printed before the error: %1 line(s).") if self.failed
                else self.tr("%1 line(s) printed, one per thread and printf call, in the emulator's order "
                             "(a GPU may order warps and blocks differently)."))
        text = fill(text, count)
        if count > MAX_SHOWN_LINES:
            text += " " + fill(self.tr("The first %1 are shown."), MAX_SHOWN_LINES)
        if self.lost:
            text += " " + fill(self.tr("%1 older line(s) were lost: the 1 MiB printf buffer was full, as it "
                                       "would be on a GPU."), self.lost)
        return text
