"""The Check page: ``gpulab check`` in the window. Is this machine healthy, and if not, what next?

Quick and Full run the checks (:func:`gpulab.check.live.run_live`, the command's checks one at a
time) on the job queue, never on this thread; each planned check's line in the table says
waiting, running (and what it does now) or its verdict as it finishes; Cancel stops the run at
the next step. A finished run is sorted worst first with its summary and what its exit code
means. Open report… shows a saved ``gpulab check --json`` file, marked replayed with where and
when it was made (File → Open result… sends check reports here too); Export… writes the report
shown as JSON or as the self-contained HTML page.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui import i18n
from ui.jobs import Job
from ui.panels.base import Panel
from ui.panels.check_table import CheckTable
from ui.services import Services
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.export import save, write_atomically
from ui.widgets.run_controls import RunControls

if TYPE_CHECKING:
    from gpulab.check.model import CheckReport

REPORT_FORMATS = ("json", "html")


class ReportExportButton(QToolButton):
    """Export…: the report as JSON (``gpulab check --json``'s document) or as an HTML page. Emits
    ``export_requested(format, path)`` once a file is named (``ask_path`` is the dialog; tests replace it)."""

    export_requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setMenu(QMenu(self))
        self._actions = {fmt: self.menu().addAction("") for fmt in REPORT_FORMATS}
        for fmt, action in self._actions.items():
            action.triggered.connect(lambda _checked=False, f=fmt: self._chosen(f))
        self.ask_path: Callable[[str], str] = self._dialog
        self.retranslate()

    def retranslate(self) -> None:
        self.setText(self.tr("Export…"))
        self._actions["json"].setText(self.tr("Report as JSON (gpulab check --json)…"))
        self._actions["html"].setText(self.tr("Report as an HTML page…"))

    def _dialog(self, fmt: str) -> str:
        title = self.tr("Export the check report as %1").replace("%1", fmt.upper())
        path, _filter = QFileDialog.getSaveFileName(self, title, f"gpulab-check.{fmt}", f"*.{fmt}")
        return path

    def _chosen(self, fmt: str) -> None:
        path = self.ask_path(fmt)
        if path:
            self.export_requested.emit(fmt, path if path.lower().endswith(f".{fmt}") else f"{path}.{fmt}")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class _Controls(RunControls):
    """Run controls whose status line takes no room while it has nothing to say (a report opened)."""

    def set_status(self, text: Callable[[], str]) -> None:
        super().set_status(text)
        self.status.setVisible(bool(self.status.text()))


class CheckPanel(Panel):
    """Quick / Full / Cancel, Open report… and Export…, the summary and the traffic-light table."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.report: CheckReport | None = None
        self.replayed_from = ""  # the file the report shown was opened from ('' for a run here)
        self.job: Job | None = None
        self.device_layer: Any = None  # the checks' device layer (None: this machine's); tests give a fake
        self.only: list[str] | None = None  # run only these checks (None: every check of the mode)
        self.ask_open_path: Callable[[], str] = self._open_dialog
        self._status: Callable[[], str] = lambda: ""
        self._make_widgets()
        self._make_layout()
        self.retranslate()

    def _make_widgets(self) -> None:
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.heading.setWordWrap(True)
        self.badge = ProvenanceBadge()
        self.run_controls = _Controls(lambda: self.tr("Quick check"))
        self.run_button, self.cancel_button = self.run_controls.run_button, self.run_controls.cancel_button
        self.run_controls.set_status(lambda: "")
        self.full_button = QPushButton()
        self.run_controls.add_run_button(self.full_button)
        self.run_controls.run_clicked.connect(lambda: self.start("quick"))
        self.run_controls.run_by_keys(self)
        self.full_button.clicked.connect(lambda: self.start("full"))
        self.open_button = QPushButton()
        self.open_button.clicked.connect(lambda: self.open_report())
        self.export_button = ReportExportButton()
        self.export_button.setEnabled(False)
        self.export_button.export_requested.connect(self.export)
        self.run_controls.buttons.addStretch(1)
        self.run_controls.buttons.addWidget(self.open_button)
        self.run_controls.buttons.addWidget(self.export_button)
        self.run_controls.lock_while_running([self.open_button, self.export_button],
                                             lambda w: w is not self.export_button or self.report is not None)
        self.run_controls.ended.connect(self._ended)
        self.summary = QLabel()
        self.summary.setObjectName("checkSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where = QLabel()  # where and when the report shown was made
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = CheckTable()

    def _make_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.run_controls)
        layout.addWidget(self.summary)
        layout.addWidget(self.where)
        layout.addWidget(self.table, 1)

    # ------------------------------------------------------------ a run here

    def start(self, mode: str) -> Job:
        """Run the checks of ``mode`` ("quick" or "full") on the CPU's job queue."""
        from gpulab.check.model import CheckReport

        layer, only = self.device_layer, list(self.only) if self.only is not None else None
        title = self.tr("Full check") if mode == "full" else self.tr("Quick check")
        job = self.services.runner.submit(title, "cpu", lambda ctx: _live_run(mode, layer, only, ctx), CheckReport)
        self.job = job
        self.report, self.replayed_from = None, ""
        self.table.show_plan([])
        self._show_texts()
        job.event.connect(self._event)
        job.progress.connect(lambda _fraction, message: self.table.check_doing(message))
        job.finished.connect(self._finished)
        self.run_controls.watch(job)
        self.set_provenance("measured")
        return job

    def _event(self, event: object) -> None:
        from gpulab.check.live import CheckPlan, CheckStep

        if isinstance(event, CheckPlan):
            self.table.show_plan(event.checks)
        elif isinstance(event, CheckStep):
            if event.done:
                self.table.check_done(event.check, event.rows)
            else:
                self.table.check_started(event.check)

    def _finished(self, report: CheckReport) -> None:
        self.show_report(report)

    def _ended(self, state: str) -> None:
        self.job = None
        if state != "done":
            self.table.stopped()  # a failed run's error is in the status line and the message bar
            self.set_provenance("measured" if self.table.rows() else "")

    # ------------------------------------------------------------ a report shown

    def show_report(self, report: CheckReport, replayed_from: str = "") -> None:
        """``report`` in the table, worst first, with its summary; marked replayed when it came from a file."""
        self.report, self.replayed_from = report, replayed_from
        self.table.show_rows(report.rows)
        self.export_button.setEnabled(self.job is None)
        self.set_provenance("replayed" if replayed_from else "measured")
        self._show_texts()

    def set_provenance(self, kind: str) -> None:
        super().set_provenance(kind)
        self.badge.set_kind(kind)

    def open_report(self, path: str | None = None) -> CheckReport | None:
        """A saved report from ``path`` (or the one the dialog names), shown replayed; a file that is not
        a readable report is said in the window and the report shown stays."""
        from gpulab.check.saved import read_report
        from gpulab.results import ResultFormatError

        if self.job is not None:  # File → Open result… during a run: the run's table stays
            self.services.notifier.warning(self.tr("The checks are running: open the report when they are done."))
            return None
        path = path or self.ask_open_path()
        if not path:
            return None
        try:
            report = read_report(path)
        except ResultFormatError as exc:
            problem = exc.message  # kept: the line is written again in the next language
            self._say_error(lambda: self.tr("Could not open the check report: %1")
                            .replace("%1", i18n.engine_message(problem)))  # fmt: skip
            return None
        self.show_report(report, path)
        self._status = lambda: ""
        self.run_controls.set_status(self._status)
        return report

    def _say_error(self, text: Callable[[], str]) -> None:
        """In the window's message bar and on this page's status line (rewritten on a language switch)."""
        self.services.notifier.error(text())
        self.run_controls.set_status(text)

    def _open_dialog(self) -> str:
        path, _filter = QFileDialog.getOpenFileName(
            self, self.tr("Open a saved check report"), "",
            self.tr("gpulab check reports (*.json);;All files (*)"))  # fmt: skip
        return path

    def export(self, fmt: str, path: str) -> list[str]:
        """The report shown as ``fmt`` (json or html) in ``path``, written whole or not at all; said in the window."""
        report = self.report
        if report is None:
            self.services.notifier.warning(
                self.tr("Run the checks or open a report first: there is nothing to export."))
            return []
        language = i18n.current_language()
        return save(self.services.notifier, path, lambda: [write_atomically(path, lambda t: _write(report, fmt, t,
                                                                                                   language))])

    # ------------------------------------------------------------ texts

    def _show_texts(self) -> None:
        report = self.report
        if report is None:
            self.summary.setText(self.tr("Running the checks…") if self.job is not None else self.tr(
                "Quick takes about half a minute, Full a few minutes. Or open a report saved with "
                "gpulab check --json."))  # fmt: skip
            self.where.setText("")
            self.where.setVisible(False)
            return
        self.summary.setText(f"<b>{_escape(i18n.engine_message(report.summary()))}</b> {_escape(self._exit_meaning())}")
        self.where.setText(self._where_text(report))
        self.where.setToolTip(self.replayed_from)  # the whole path; the line names the file
        self.where.setVisible(True)

    def _exit_meaning(self) -> str:
        if self.report is not None and self.report.exit_code():
            return self.tr("That is: something failed, so a script or a job that runs gpulab check stops here.")
        return self.tr("That is: nothing failed (warnings and skips do not fail the check).")

    def _where_text(self, report: CheckReport) -> str:
        host = _host_of(report) or self.tr("an unknown machine")
        when = _local_time(report.started)
        mode = self.tr("full") if report.mode == "full" else self.tr("quick")
        if self.replayed_from:
            text = self.tr("Replayed from %1: a %2 check made on %3 at %4, shown as saved (not run again).")
            text = text.replace("%1", Path(self.replayed_from).name)
        else:
            text = self.tr("Measured now: a %2 check of this machine (%3) at %4.")
        return text.replace("%2", mode).replace("%3", host).replace("%4", when)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Is this machine healthy?"))
        self.full_button.setText(self.tr("Full check"))
        self.full_button.setToolTip(self.tr("Every check, with more repeats (a few minutes)"))
        self.run_button.setToolTip(self.tr("The quick checks (about half a minute)"))
        self.open_button.setText(self.tr("Open report…"))
        self.open_button.setToolTip(
            self.tr("Show a report saved with gpulab check --json (from this or another machine)"))
        self._show_texts()

    def shutdown(self) -> None:
        if self.job is not None:
            self.job.cancel()


def _live_run(mode: str, layer: Any, only: list[str] | None, job_ctx: Any):
    """On the worker thread: the checks of ``mode``, stopping when the job is cancelled."""
    from gpulab.check.live import run_live
    from gpulab.check.registry import Context

    ctx = Context(mode=mode, devices=layer, check_cancelled=job_ctx.check_cancelled)
    return run_live(ctx, only)


def _write(report: CheckReport, fmt: str, temporary: Path, language: str) -> None:
    if fmt == "html":
        from gpulab.check.html import render_html

        temporary.write_text(render_html(report, language), encoding="utf-8")
    else:
        from gpulab.output import write_json

        write_json(report.to_json(), str(temporary))


def _host_of(report: CheckReport) -> str:
    """The machine a report was made on (the nodes, for a fleet's)."""
    machine = report.machine
    if isinstance(machine.get("nodes"), dict):
        return ", ".join(str(name) for name in machine["nodes"])
    return str(machine.get("host", ""))


def _local_time(started: str) -> str:
    try:
        return datetime.datetime.fromisoformat(started).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return started or "?"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

