"""Run and Cancel, a progress bar while a job runs, and one status line: the column every lab has.

A panel gives the controls its job (``watch(job)``) and listens to ``run_clicked``; the
controls keep the buttons, the bar and the status line in step with the job's life (waiting,
progress, done, failed, cancelled) and grey out the panel's inputs while it runs. The status
line is kept as *how to write it*, not as text, so a language switch rewrites it too ("Done."
becomes "完成。" instead of staying in the language it was first written in).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from gpulab.catalogue import Message
from ui.i18n import engine_message
from ui.jobs import Job, plain_error

PROGRESS_STEPS = 1000
RUN_KEYS = ("Ctrl+Return", "Ctrl+Enter")  # Enter beside the letters, and on the keypad


class RunControls(QWidget):
    """Emits ``run_clicked`` (no arguments) and ``ended(state)`` when the watched job is over."""

    run_clicked = Signal()
    ended = Signal(str)  # "done", "failed" or "cancelled"

    def __init__(self, run_text: Callable[[], str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_text = run_text or (lambda: self.tr("Run"))
        self.job: Job | None = None
        self.inputs: list[QWidget] = []
        self.extra_run_buttons: list[QPushButton] = []
        self.usable_when_idle: Callable[[QWidget], bool] = lambda _widget: True
        self.status_text: Callable[[], str] = lambda: ""
        self.runs_by_keys = False  # Ctrl+Return presses Run on the panel (its tooltip says so)
        self._make_widgets()
        self.retranslate()

    def _make_widgets(self) -> None:
        self.run_button = QPushButton()
        # clicked(bool) would hand its `checked` flag to whatever slot takes an argument.
        self.run_button.clicked.connect(lambda: self.run_clicked.emit())
        self.cancel_button = QPushButton()
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, PROGRESS_STEPS)
        self.progress.setTextVisible(False)
        self.progress.hide()  # shown while a job runs; an empty bar at rest looks like a text field
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.buttons = QHBoxLayout()
        self.buttons.setContentsMargins(0, 0, 0, 0)
        self.buttons.addWidget(self.run_button)
        self.buttons.addWidget(self.cancel_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self.buttons)
        column.addWidget(self.progress)
        column.addWidget(self.status)

    def add_run_button(self, button: QPushButton) -> None:
        """A second way to run (a longer run), beside Run and before Cancel; the page connects it,
        the controls grey it out while a job runs."""
        self.buttons.insertWidget(self.buttons.indexOf(self.cancel_button), button)
        self.extra_run_buttons.append(button)

    def run_by_keys(self, page: QWidget) -> None:
        """Ctrl+Return anywhere on ``page``, a field being typed in too, presses Run: change a number,
        run again, without reaching for the mouse (the warp visualizer's key, on every lab)."""
        for key in RUN_KEYS:
            shortcut = QShortcut(QKeySequence(key), page, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(self._run_by_key)
        self.runs_by_keys = True
        self.retranslate()

    def _run_by_key(self) -> None:
        if self.run_button.isEnabled() and self.run_button.isVisible():  # not while it runs, nor where Run is folded
            self.run_button.click()

    # ------------------------------------------------------------ the job

    @property
    def running(self) -> bool:
        return self.job is not None

    def lock_while_running(
        self, widgets: Iterable[QWidget], usable_when_idle: Callable[[QWidget], bool] | None = None
    ) -> None:
        """Inputs greyed out while a job runs; after it, each is enabled where ``usable_when_idle``
        says so (a list with a single choice stays grey)."""
        self.inputs = list(widgets)
        self.usable_when_idle = usable_when_idle or (lambda _widget: True)

    def watch(self, job: Job) -> None:
        """Follow ``job`` until it ends: progress, status line, buttons and locked inputs."""
        self.job = job
        self.progress.setValue(0)
        self.set_status(lambda: self.tr("Waiting for the device to be free…"))
        job.progress.connect(self._progress)
        job.finished.connect(lambda _value: self._end("done", lambda: self.tr("Done.")))
        job.failed.connect(lambda exc: self._end("failed", self._failure_text(exc)))
        job.cancelled.connect(lambda: self._end("cancelled", lambda: self.tr("Cancelled.")))
        self._show_running(True)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.set_status(lambda: self.tr("Cancelling…"))

    def set_status(self, text: Callable[[], str]) -> None:
        """Show ``text()`` now and again after each language switch."""
        self.status_text = text
        self.status.setText(text())

    def _progress(self, fraction: float, message: object) -> None:
        self.progress.setValue(round(fraction * PROGRESS_STEPS))
        self.set_status(lambda: engine_message(message))

    def _failure_text(self, exc: BaseException) -> Callable[[], str]:
        """An engine error's keyed message renders in the interface language; others as one plain line."""
        message = getattr(exc, "message", None)
        reason = message if isinstance(message, Message) else plain_error(exc)
        return lambda: self.tr("Failed: %1").replace("%1", engine_message(reason))

    def _end(self, state: str, text: Callable[[], str]) -> None:
        self.job = None
        self.set_status(text)
        self._show_running(False)
        self.ended.emit(state)

    def _show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        for button in self.extra_run_buttons:
            button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        for widget in self.inputs:
            widget.setEnabled(not running and self.usable_when_idle(widget))

    # ------------------------------------------------------------ texts

    def retranslate(self) -> None:
        self.run_button.setText(self.run_text())
        if self.runs_by_keys:
            key = QKeySequence(RUN_KEYS[0]).toString(QKeySequence.SequenceFormat.NativeText)
            self.run_button.setToolTip(self.tr("Keyboard: %1").replace("%1", key))
        self.cancel_button.setText(self.tr("Cancel"))
        self.status.setText(self.status_text())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
