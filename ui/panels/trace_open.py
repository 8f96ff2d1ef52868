"""Open trace… and Cancel on the Trace doctor page: the file dialog (one file, or one per rank of a
distributed run), the reading job on the CPU queue, how far it got, and how it ended.

The reading runs on the job queue as the engine's generator (:func:`gpulab.trace.reading_traces`),
which reports the fraction of the files' bytes read every few hundred KiB: the bar shows it, and
Cancel stops the reading there, its files closed. What the page shows changes only when every
file was read and diagnosed: a file that cannot be read is one line naming it, a cancelled
reading says so, and either way the trace shown before stays.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QFileDialog, QProgressBar, QPushButton, QWidget

from gpulab.catalogue import Message
from ui import i18n
from ui.jobs import Job
from ui.services import Services
from ui.widgets.flow_layout import WrapLabel

if TYPE_CHECKING:
    from gpulab.results import Result
    from gpulab.trace import Diagnosis

PROGRESS_STEPS = 1000


@dataclass
class Opened:
    """What the worker made of the files: a diagnosis, a saved diagnosis (result), or why neither."""

    paths: list[str] = field(default_factory=list)
    diagnosis: Diagnosis | None = None
    result: Result | None = None
    error: Message | None = None


def reading(paths: Sequence[str]) -> Generator[Any, None, Opened]:
    """On the worker: the files read as one trace (a rank each) and diagnosed, or one file's saved
    ``gpulab trace --json`` diagnosis, or the first error. Yields the reading's progress."""
    from gpulab.catalogue import msg
    from gpulab.lab.run import Progress
    from gpulab.trace import TraceError, diagnose, reading_traces

    try:
        trace = yield from reading_traces(paths)
        yield Progress(1.0, msg("trace.progress.diagnosing"))  # a last chance to stop before the judging
        return Opened(list(paths), diagnosis=diagnose(trace))
    except TraceError as exc:
        saved = _saved_diagnosis(paths[0]) if len(paths) == 1 and exc.message.key == "trace.error.no-timeline" \
            else None  # fmt: skip
        return Opened(list(paths), result=saved) if saved is not None else Opened(list(paths), error=exc.message)


def _saved_diagnosis(path: str) -> Result | None:
    """A saved result without timelines: a `gpulab trace --json` diagnosis, if it is one."""
    from gpulab.results import ResultFormatError, replay

    try:
        result = replay(path)
    except ResultFormatError:
        return None
    return result if result.experiment == "trace" else None


class TraceOpener(QObject):
    """The Open trace… and Cancel buttons, the reading bar and the status line, and the job between
    them. ``opened(Opened)`` carries a reading that ended (read, or why not); ``ask_open_paths``
    is the file dialog (a test answers it by patching ``QFileDialog.getOpenFileNames``)."""

    opened = Signal(object)

    def __init__(self, services: Services, owner: QWidget) -> None:
        super().__init__(owner)
        self.services, self.owner = services, owner
        self.job: Job | None = None
        self.has_trace: Callable[[], bool] = lambda: False  # whether a cancelled reading leaves a trace shown
        self.ask_open_paths: Callable[[], list[str]] = self._open_dialog
        self._status: Callable[[], str] = lambda: ""
        self.open_button = QPushButton()
        self.open_button.clicked.connect(lambda: self.open())
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()  # only while a trace reads
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # until the first report: that it works, no fraction yet
        self.busy.setMaximumHeight(owner.fontMetrics().height())
        self.busy.setTextVisible(False)  # the status line under it says how far, with the file's name
        self.busy.hide()
        self.status = WrapLabel(max_lines=2)  # reading…, cancelled, or why the files could not be read
        self.status.setObjectName("traceStatus")

    # ------------------------------------------------------------ the job

    def open(self, paths: Sequence[str] | str | None = None) -> Job | None:
        """Read ``paths`` (or the files the dialog names) on the job queue; ``opened`` when done."""
        if self.job is not None:
            return None
        chosen = [paths] if isinstance(paths, str) else list(paths or self.ask_open_paths())
        if not chosen:
            return None
        job = self.services.runner.submit(self.tr("Reading a trace"), "cpu", lambda _ctx: reading(chosen), Opened)
        self.job = job
        names = file_names(chosen)
        self._status = lambda: self.tr("Reading %1…").replace("%1", names)
        self.busy.setRange(0, 0)
        job.progress.connect(self._progress)
        job.finished.connect(self._finished)
        job.failed.connect(lambda _exc: self._ended(lambda: ""))  # the runner has said why, in the notifications
        job.cancelled.connect(lambda: self._ended(self._cancelled_text))
        self._show_state()
        return job

    def cancel(self) -> None:
        """Stop the reading at its next report (the trace shown stays)."""
        if self.job is not None:
            self.job.cancel()
            self._status = lambda: self.tr("Cancelling…")
            self.cancel_button.setEnabled(False)
            self._show_state()

    def _progress(self, fraction: float, message: object) -> None:
        if self.job is None or self.job.cancel_event.is_set():
            return  # "Cancelling…" stays until it has stopped
        self.busy.setRange(0, PROGRESS_STEPS)
        self.busy.setValue(round(fraction * PROGRESS_STEPS))
        self._status = lambda: f"{i18n.engine_message(message)} {fraction:.0%}"  # type: ignore[arg-type]
        self._show_state()

    def _cancelled_text(self) -> str:
        if self.has_trace():
            return self.tr("Reading cancelled: the trace shown before stays.")
        return self.tr("Reading cancelled.")

    def _finished(self, opened: Opened) -> None:
        problem = opened.error  # kept: the line is written again in the next language
        self._ended((lambda: self.tr("Could not open the trace: %1").replace("%1", i18n.engine_message(problem)))
                    if problem is not None else (lambda: ""))  # fmt: skip
        if problem is not None:
            self.services.notifier.error(self._status())
        self.opened.emit(opened)

    def _ended(self, status: Callable[[], str]) -> None:
        self.job = None
        self._status = status
        self._show_state()

    def _show_state(self) -> None:
        reading_now = self.job is not None
        self.busy.setVisible(reading_now)
        self.open_button.setEnabled(not reading_now)
        self.cancel_button.setVisible(reading_now)
        if not reading_now:
            self.cancel_button.setEnabled(True)
        self.status.setText(self._status())
        self.status.setVisible(bool(self.status.text()))

    def _open_dialog(self) -> list[str]:
        paths, _filter = QFileDialog.getOpenFileNames(
            self.owner, self.tr("Open a profiler trace (several files: one per rank)"), "",
            self.tr("Traces (*.json *.json.gz *.gz *.sqlite);;All files (*)"))  # fmt: skip
        return list(paths)

    # ------------------------------------------------------------ words

    def retranslate(self) -> None:
        self.open_button.setText(self.tr("Open trace…"))
        self.open_button.setToolTip(self.tr("A PyTorch Profiler / Kineto trace (or one file per rank of a "
                                            "distributed run), an Nsight Systems SQLite export, a saved lab "
                                            "result or a saved gpulab trace --json diagnosis"))  # fmt: skip
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop reading: the trace shown before stays"))
        self._show_state()

    def shutdown(self) -> None:
        if self.job is not None:
            self.job.cancel()


def file_names(paths: Sequence[str]) -> str:
    """The files' names for a line of text: all of them when few, else the first, the last and how many."""
    names = [Path(p).name for p in paths]
    if len(names) <= 3:
        return ", ".join(names)
    return QCoreApplication.translate("TraceOpener", "%1 … %2 (%3 files)").replace("%1", names[0]).replace(
        "%2", names[-1]).replace("%3", str(len(names)))  # fmt: skip
