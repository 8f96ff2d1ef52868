"""Runs experiment generators off the GUI thread: one queue per device.

Jobs on the same device (``"cpu"``, ``"cuda:0"``, ...) run one after another, so two labs
never time each other; jobs on different devices may run side by side. Each job is a
superqt :class:`GeneratorWorker` on the global QThreadPool. Its events come back to the GUI
thread as Qt signals; its errors go to the one :class:`~ui.notify.Notifier`.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import QCoreApplication, QObject, QThreadPool, Signal

from gpulab.lab.run import Cancelled, Context, PartialPoint, Progress
from ui.notify import Notifier

if TYPE_CHECKING:
    from superqt.utils import FunctionWorker, GeneratorWorker

GenFactory = Callable[[Context], Generator[Any, None, Any]]

_CANCELLED = object()  # what a job's worker returns when it stopped on request

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"


class NoResult(Exception):
    """A job's generator returned something other than what its submitter expects."""


def device_key(device_index: int | None) -> str:
    """The queue name for a device: ``cpu`` or ``cuda:N``."""
    return "cpu" if device_index is None else f"cuda:{device_index}"


class Job(QObject):
    """One experiment run. Connect to its signals before the runner starts it."""

    # Objects, not str: an engine's progress message may be a catalogue Message, and a series name
    # a Note carrying its label; a str signal would strip both to plain English.
    progress = Signal(float, object)  # fraction, message (a Message or a str)
    partial = Signal(object, object)  # series name (a str, often a Note), Point
    series_kind = Signal(object, str)  # series name, provenance kind (when an event carries one)
    finished = Signal(object)  # what the generator returned: a Result, a session, ...
    failed = Signal(object)  # the exception (plain_error(exc) gives its one-line text)
    cancelled = Signal()
    event = Signal(object)  # any other event the generator yields, for a page that knows it (a check's turn)

    def __init__(
        self, title: str, device: str, make_gen: GenFactory, expects: type | tuple[type, ...] = object
    ) -> None:
        super().__init__()
        self.title = title
        self.device = device
        self.make_gen = make_gen
        self.expects = expects  # what the generator must return (a registry experiment: a Result)
        self.state = QUEUED
        self.cancel_event = threading.Event()
        self.last_event: PartialPoint | None = None
        self.kinds: dict[str, str] = {}
        self._on_cancel: Callable[[Job], None] | None = None

    def cancel(self) -> None:
        """Ask the job to stop at its next yield (or drop it if it has not started)."""
        self.cancel_event.set()
        if self._on_cancel is not None:
            self._on_cancel(self)

    @property
    def is_over(self) -> bool:
        return self.state in (DONE, FAILED, CANCELLED)


class _RaisedRuntimeError(Exception):
    """Carries a job's RuntimeError past superqt, which would drop it.

    superqt's GeneratorWorker takes a RuntimeError from its generator for "the worker was
    deleted": it warns and stops without ``errored`` or ``finished``, so the job would never end
    and its device queue would stall. CuPy's CUDA errors are RuntimeErrors; the runner unwraps.
    """

    def __init__(self, error: RuntimeError) -> None:
        super().__init__(error)
        self.error = error


def _job_events(make_gen: GenFactory, ctx: Context) -> Generator[Any, None, Any]:
    """Runs on the worker thread: the experiment's events, any RuntimeError wrapped for the runner."""
    try:
        return (yield from _experiment_events(make_gen, ctx))
    except RuntimeError as exc:
        raise _RaisedRuntimeError(exc) from exc


def _experiment_events(make_gen: GenFactory, ctx: Context) -> Generator[Any, None, Any]:
    """Forwards the experiment's events, stops between yields."""
    gen = make_gen(ctx)
    while True:
        if ctx.cancelled:
            gen.close()  # runs the experiment's finally blocks on this thread
            return _CANCELLED
        try:
            event = next(gen)
        except StopIteration as stop:
            return stop.value
        yield event


class JobRunner(QObject):
    """Queues jobs per device and runs each queue's jobs one at a time."""

    job_started = Signal(object)
    job_ended = Signal(object)

    _live: ClassVar[weakref.WeakSet[JobRunner]] = weakref.WeakSet()

    def __init__(self, notifier: Notifier, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.notifier = notifier
        self._queues: dict[str, deque[Job]] = {}
        self._running: dict[str, tuple[Job, GeneratorWorker]] = {}
        self._tasks: set[FunctionWorker] = set()
        self._closed = False
        JobRunner._live.add(self)

    # ------------------------------------------------------------ jobs

    def submit(self, title: str, device: str, make_gen: GenFactory, expects: type | tuple[type, ...] = object) -> Job:
        """Queue ``make_gen(ctx)`` on ``device``; it starts when that device is free.

        ``finished`` carries whatever the generator returns; with ``expects`` (a type), any
        other value fails the job instead ("it ended without a result").
        """
        job = Job(title, device, make_gen, expects)
        job._on_cancel = self._cancel_job
        if self._closed:
            job.state = CANCELLED
            return job
        self._queues.setdefault(device, deque()).append(job)
        self._start_next(device)
        return job

    def busy_devices(self) -> list[str]:
        return sorted(self._running)

    def pending(self, device: str) -> int:
        return len(self._queues.get(device, ()))

    def is_idle(self) -> bool:
        return not self._running and not self._tasks and not any(self._queues.values())

    def _start_next(self, device: str) -> None:
        queue = self._queues.get(device)
        if device in self._running or not queue:
            return
        job = queue.popleft()
        # superqt's package imports all its widgets, a tenth of a second: paid at the first job,
        # not before the window's first paint.
        from superqt.utils import GeneratorWorker

        worker = GeneratorWorker(_job_events, job.make_gen, self._context(job))
        worker.setAutoDelete(False)  # we hold it until it finishes
        self._connect_worker(job, worker)
        self._running[device] = (job, worker)
        job.state = RUNNING
        self.job_started.emit(job)
        QThreadPool.globalInstance().start(worker)

    def _context(self, job: Job) -> Context:
        index = int(job.device.split(":")[1]) if job.device.startswith("cuda:") else None
        return Context(cancel_event=job.cancel_event, device_index=index)

    def _connect_worker(self, job: Job, worker: GeneratorWorker) -> None:
        worker.yielded.connect(lambda event: self._forward(job, event))
        worker.returned.connect(lambda value: self._returned(job, value))
        worker.errored.connect(lambda exc: self._errored(job, exc))
        worker.finished.connect(lambda: self._worker_done(job))

    def _forward(self, job: Job, event: Any) -> None:
        if isinstance(event, Progress):
            job.progress.emit(float(event.fraction), event.message)
        elif isinstance(event, PartialPoint):
            job.last_event = event
            self._note_kind(job, event)
            job.partial.emit(event.series, event.point)
        else:
            job.event.emit(event)

    def _note_kind(self, job: Job, event: PartialPoint) -> None:
        """Pass on a point's provenance, for engines whose PartialPoint carries one."""
        kind = getattr(getattr(event, "provenance", None), "kind", None)
        if isinstance(kind, str) and job.kinds.get(event.series) != kind:
            job.kinds[event.series] = kind
            job.series_kind.emit(event.series, kind)

    def _returned(self, job: Job, value: Any) -> None:
        if value is _CANCELLED:
            self._end(job, CANCELLED)
        elif isinstance(value, job.expects):  # a Result for a registry experiment, a session for a lab
            self._end(job, DONE, value)
        else:
            self._fail(job, NoResult(self.tr("it ended without a result")))

    def _errored(self, job: Job, exc: BaseException) -> None:
        if isinstance(exc, _RaisedRuntimeError):
            exc = exc.error
        if isinstance(exc, Cancelled):
            self._end(job, CANCELLED)
        else:
            self._fail(job, exc)

    def _fail(self, job: Job, exc: BaseException) -> None:
        """The notifier gets one plain line; the job's listeners get the exception itself
        (an emulator error keeps its line and column for the code view)."""
        reason = plain_error(exc)
        self.notifier.error(self.tr("%1 failed: %2").replace("%1", job.title).replace("%2", reason))
        self._end(job, FAILED, exc)

    def _end(self, job: Job, state: str, payload: Any = None) -> None:
        if job.is_over:
            return
        job.state = state
        if state == DONE:
            job.finished.emit(payload)
        elif state == FAILED:
            job.failed.emit(payload)
        else:
            job.cancelled.emit()
        self.job_ended.emit(job)

    def _worker_done(self, job: Job) -> None:
        if not job.is_over:  # the worker stopped without returning or raising
            self._end(job, CANCELLED)
        self._running.pop(job.device, None)
        self._start_next(job.device)

    def _cancel_job(self, job: Job) -> None:
        queue = self._queues.get(job.device)
        if job.state == QUEUED and queue is not None and job in queue:
            queue.remove(job)
            self._end(job, CANCELLED)

    # ------------------------------------------------------------ one-off tasks

    def run_task(
        self,
        func: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        """Run a short blocking function (a device probe) in a worker, outside the queues."""
        if self._closed:
            return
        from superqt.utils import FunctionWorker  # see _start_next: not before the first paint

        worker = FunctionWorker(func)
        worker.setAutoDelete(False)
        worker.returned.connect(on_result)
        worker.errored.connect(lambda exc: self._task_failed(exc, on_error))
        worker.finished.connect(lambda: self._tasks.discard(worker))
        self._tasks.add(worker)
        QThreadPool.globalInstance().start(worker)

    def _task_failed(self, exc: BaseException, on_error: Callable[[str], None] | None) -> None:
        message = plain_error(exc)
        self.notifier.error(message)
        if on_error is not None:
            on_error(message)

    # ------------------------------------------------------------ shutdown

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel everything, wait for the workers to stop; False if one did not in time."""
        self._closed = True
        for queue in self._queues.values():
            while queue:
                self._end(queue.popleft(), CANCELLED)
        for job, _worker in list(self._running.values()):
            job.cancel_event.set()
        stopped = QThreadPool.globalInstance().waitForDone(timeout_ms)
        QCoreApplication.processEvents()  # deliver the workers' last signals
        return stopped and not self._running and not self._tasks

    @classmethod
    def shutdown_all(cls, timeout_ms: int = 10_000) -> bool:
        """Shut down every live runner (window close, test teardown)."""
        return all([runner.shutdown(timeout_ms) for runner in list(cls._live)])


def plain_error(exc: BaseException) -> str:
    """An exception as one line a learner can read: the message, else the type's name."""
    text = str(exc).strip()
    if isinstance(exc, MemoryError):
        return QCoreApplication.translate("Jobs", "out of memory: try smaller sizes")
    return text.splitlines()[0] if text else type(exc).__name__
