"""The emulator in a child process, so a GUI that waits for it keeps its interpreter lock (no Qt).

:class:`EmulatorProcess` runs :func:`~gpulab.experiments.warp.session.run_session` in a child
process; the session comes back with its steps as numpy columns
(:class:`~gpulab.experiments.warp.steps.StepTable`), and the emulator's errors come back
rebuilt, their line, buffer and lanes kept. An argument that is a view into an array (the
host side of ``d_in + RADIUS``) crosses the pipe as its whole array and offset
(:class:`ArrayView`), so the child's kernel still points into the whole allocation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gpulab.experiments.warp.session import (
    DEFAULT_MAX_SECONDS,
    INTERACTIVE_MAX_STEPS,
    SessionError,
    WarpSession,
    run_session,
)
from gpulab.experiments.warp.steps import StepTable

# ------------------------------------------------------------------ emulating in a child process


@dataclass(frozen=True)
class SessionRequest:
    """Everything :func:`run_session` needs, picklable, to send to the emulator process."""

    source: str
    entry: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: list[Any]
    block_index: int = 0
    max_steps: int = INTERACTIVE_MAX_STEPS
    max_seconds: float | None = DEFAULT_MAX_SECONDS
    expected: Mapping[int, np.ndarray] | None = None
    rtol: float = 1e-5
    atol: float = 1e-6
    shared_mem: int = 0  # bytes of dynamic shared memory per block
    include_dirs: tuple[str, ...] = ()  # where #include "file" is searched (the kernel's folder)
    fmad: bool = True  # nvcc's -fmad: a*b + c contracted into one fma
    constants: Mapping[str, Sequence[float]] = field(default_factory=dict)  # __constant__ data by name


@dataclass(frozen=True)
class ArrayView:
    """A view argument as it crosses to the child: the whole array and where the view starts.

    Pickling a numpy view copies only the view; two ArrayViews of one array pickle it once
    (pickle keeps shared objects shared), so two pointers into it still share one allocation."""

    whole: np.ndarray
    start: int  # elements from the whole array's start
    count: int

    def view(self) -> np.ndarray:
        return self.whole[self.start : self.start + self.count]


def pack_views(args: Sequence[Any]) -> list[Any]:
    """``args`` with every 1-D contiguous view into a larger array made an :class:`ArrayView`."""
    packed: list[Any] = []
    for arg in args:
        whole = arg.base if isinstance(arg, np.ndarray) and isinstance(arg.base, np.ndarray) else None
        flat = whole is not None and whole.ndim == 1 == arg.ndim and whole.flags.c_contiguous
        if whole is None or not flat or whole.dtype != arg.dtype:
            packed.append(arg)
            continue
        offset = arg.__array_interface__["data"][0] - whole.__array_interface__["data"][0]
        start, rest = divmod(offset, whole.itemsize)
        inside = 0 <= start and start + arg.size <= whole.size and arg.flags.c_contiguous
        packed.append(ArrayView(whole, start, arg.size) if inside and not rest else arg)
    return packed


def unpack_views(args: Sequence[Any]) -> list[Any]:
    """The arguments :func:`pack_views` packed, views again."""
    return [a.view() if isinstance(a, ArrayView) else a for a in args]


def session_from_request(
    request: SessionRequest,
    cancel: threading.Event | None = None,
    progress: Callable[[int], None] | None = None,
) -> WarpSession:
    """Run one request here, in this process (``progress(warp_steps)`` hears how far it got)."""
    from gpulab.kernels import outputs_match

    def compare(args: list[Any], expected: Mapping[int, np.ndarray]) -> bool:
        return all(outputs_match(args[i], want, request.rtol, request.atol) for i, want in expected.items())

    return run_session(
        request.source,
        request.entry,
        request.grid,
        request.block,
        unpack_views(request.args),
        request.block_index,
        cancel=cancel,
        max_steps=request.max_steps,
        expected=request.expected,
        compare=compare,
        max_seconds=request.max_seconds,
        progress=progress,
        shared_mem=request.shared_mem,
        include_dirs=request.include_dirs,
        fmad=request.fmad,
        constants=request.constants,
    )


def _pack_error(exc: BaseException) -> tuple[str, str, str, dict[str, Any]]:
    return type(exc).__module__, type(exc).__qualname__, str(exc), dict(vars(exc))


def _unpack_error(packed: tuple[str, str, str, dict[str, Any]]) -> BaseException:
    """Rebuild an emulator error (its line, buffer, lanes, ... kept) from the child's report."""
    import importlib

    module, name, message, attributes = packed
    try:
        cls = getattr(importlib.import_module(module), name)
        exc = cls.__new__(cls)
        Exception.__init__(exc, message)
        vars(exc).update(attributes)
        return exc
    except Exception:  # an error class we cannot rebuild: keep its words
        return SessionError(message)


def _serve(connection: Any, cancels: Any) -> None:
    """The emulator process: answer ``(id, request)`` messages until the pipe closes.

    A second pipe carries the ids of runs to cancel; a watcher thread turns the current one
    into the ``cancel`` event the emulator polls at every step.
    """
    import os

    if hasattr(os, "nice"):  # on a 2-core laptop the GUI must win the CPU over the emulation
        os.nice(10)
    cancel = threading.Event()
    current = {"id": -1}

    def watch_cancels() -> None:
        while True:
            try:
                run_id = cancels.recv()
            except (EOFError, OSError):
                return
            if run_id == current["id"]:
                cancel.set()

    threading.Thread(target=watch_cancels, name="cancel-watcher", daemon=True).start()
    while True:
        try:
            run_id, request = connection.recv()
        except (EOFError, OSError):
            return
        current["id"] = run_id
        cancel.clear()
        try:
            _send_session(connection, session_from_request(request, cancel, _progress_sender(connection)))
        except Exception as exc:  # every error goes back to the caller, in plain words
            try:
                connection.send(("error", _pack_error(exc)))
            except Exception:  # attributes that do not pickle: keep the words
                connection.send(("error", (*_pack_error(exc)[:3], {})))


def _progress_sender(connection: Any) -> Callable[[int], None]:
    """Report warp-steps done to the caller, at most every ``PROGRESS_S`` seconds."""
    last = [0.0]

    def send(steps: int) -> None:
        now = time.monotonic()
        if now - last[0] >= EmulatorProcess.PROGRESS_S:
            last[0] = now
            connection.send(("progress", steps))

    return send


def _send_session(connection: Any, session: WarpSession) -> None:
    """Send a session with its steps as :class:`StepTable` columns (cheap to unpickle)."""
    session.steps = [StepTable(steps) for steps in session.steps]
    connection.send(("ok", session))


class EmulatorProcess:
    """A child process that runs emulations, so a long one never holds this process's GIL.

    Threads of one Python process share one interpreter lock: an emulation running in a
    worker thread makes the GUI thread wait for the lock at every call into Python, which
    stalls the event loop for hundreds of milliseconds. The child starts on first use (spawn:
    about a second) and is reused; a cancelled run stops at its next step (the child is
    killed, and restarted on the next run, only if it does not stop within two seconds).
    """

    POLL_S = 0.02
    PROGRESS_S = 0.2
    CANCEL_GRACE_S = 2.0

    def __init__(self) -> None:
        self._process: Any = None
        self._connection: Any = None
        self._cancel: Any = None
        self._run_id = 0
        self._lock = threading.Lock()

    def _start(self) -> None:
        import multiprocessing
        import sys
        import types

        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        cancel_reader, cancel_writer = context.Pipe(duplex=False)  # pipes, not semaphores: nothing leaks
        process = context.Process(target=_serve, args=(child, cancel_reader), name="gpulab-emulator", daemon=True)
        # The child needs only this module: hide the caller's main script from spawn, which
        # would otherwise re-run it in the child (a script without a __main__ guard breaks).
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            process.start()
        finally:
            sys.modules["__main__"] = main
        child.close()
        cancel_reader.close()
        self._process, self._connection, self._cancel = process, parent, cancel_writer

    def run(self, request: SessionRequest, cancel: threading.Event | None = None) -> WarpSession:
        """Emulate ``request`` in the child; raises its errors here, or ``Cancelled`` when cancelled."""
        steps = self.run_steps(request, cancel)
        while True:
            try:
                next(steps)
            except StopIteration as stop:
                return stop.value

    def run_steps(
        self, request: SessionRequest, cancel: threading.Event | None = None
    ) -> Generator[int, None, WarpSession]:
        """Like :meth:`run`, yielding the warp-steps done so far while the child works.

        Closing the generator before it ends cancels the child's run.
        """
        with self._lock:
            if self._process is None or not self._process.is_alive():
                self._start()
            self._run_id += 1
            self._connection.send((self._run_id, replace(request, args=pack_views(request.args))))
            try:
                status, payload = yield from self._replies(cancel)
            except GeneratorExit:
                self._abandon()
                raise
        if status == "ok":
            return payload
        raise _unpack_error(payload)

    def _replies(self, cancel: threading.Event | None) -> Generator[int, None, tuple[str, Any]]:
        """Wait for the run's answer, passing on its progress reports."""
        while True:
            while not self._connection.poll(self.POLL_S):
                if cancel is not None and cancel.is_set():
                    self._cancel_running()
                if not self._process.is_alive():
                    self._forget()
                    raise SessionError("the emulator process stopped unexpectedly (out of memory?)")
            status, payload = self._connection.recv()
            if status != "progress":
                return status, payload
            yield int(payload)

    def _abandon(self) -> None:
        """The caller stopped listening mid-run: stop the child's run so the next one starts clean."""
        from gpulab.simt import Cancelled

        try:
            self._cancel_running()
        except Cancelled:
            pass

    def _cancel_running(self) -> None:
        """Ask the child to stop (the emulator polls at every step); kill it if it does not."""
        from gpulab.simt import Cancelled

        self._cancel.send(self._run_id)
        deadline = time.monotonic() + self.CANCEL_GRACE_S
        while True:  # progress reports may come first: wait for the run's answer
            if not self._connection.poll(max(0.0, deadline - time.monotonic())):
                self.stop()
                break
            if self._connection.recv()[0] != "progress":  # Cancelled, or a result just in time
                break
        raise Cancelled("emulation cancelled")

    def stop(self) -> None:
        """Kill the child (a later run starts a new one)."""
        if self._process is not None and self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=5)
        self._forget()

    def _forget(self) -> None:
        for connection in (self._connection, self._cancel):
            if connection is not None:
                connection.close()
        self._process, self._connection, self._cancel = None, None, None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()


_shared_process: EmulatorProcess | None = None


def emulator_process() -> EmulatorProcess:
    """The process-wide emulator child (created on first use)."""
    global _shared_process
    if _shared_process is None:
        _shared_process = EmulatorProcess()
    return _shared_process
