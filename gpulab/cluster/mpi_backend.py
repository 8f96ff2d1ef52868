"""The MPI backend's parent side: start ``mpiexec`` with N ranks of :mod:`gpulab.cluster.rank_main`,
read rank 0's JSON lines as they come, and stop the job when it fails.

A rank that dies ends the job (MPI aborts the others) before its last point; a rank that hangs
leaves the others waiting in a collective, so no new line comes. Both are caught here: the
first by the job's exit, the second by a silence timeout (no new line for ``silence_s``). Either
way :class:`RankFailure` says what happened with each rank's standard error (every rank writes
its own file), and whoever reads the lines keeps the points that came before.
"""

from __future__ import annotations

import importlib.util
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

from gpulab.catalogue import Message, msg
from gpulab.cluster.report import read_line

INSTALL_HINT = "pip install -e '.[mpi]'"
STDERR_TAIL_LINES = 12


@dataclass(frozen=True)
class MpiStatus:
    """Whether the MPI backend can run here; ``reason`` (a message) says why not."""

    available: bool
    launcher: str | None = None
    reason: Message | None = None


class RankFailure(Exception):
    """A rank died or hung, or sent a line that is no event; ``reason`` says which (a message),
    ``stderr`` what the ranks wrote, ``ranks`` the ranks that wrote on standard error (the likely
    culprits: a rank that fails prints its traceback there), [] when none did or none is known."""

    def __init__(self, reason: Message, stderr: str, ranks: Sequence[int] = ()) -> None:
        self.reason = reason
        self.stderr = stderr
        self.ranks = list(ranks)
        super().__init__(f"{reason.text} {stderr}".strip())


def find_launcher() -> str | None:
    """``mpiexec`` (or ``mpirun``): next to this Python first (the ``mpi`` extra installs Open MPI
    into the environment), then on PATH."""
    for name in ("mpiexec", "mpirun"):
        beside = Path(sys.executable).parent / name
        if beside.is_file() and os.access(beside, os.X_OK):
            return str(beside)
    for name in ("mpiexec", "mpirun"):
        found = shutil.which(name)
        if found:
            return found
    return None


def mpi_status() -> MpiStatus:
    """mpi4py importable and a launcher found, or the reason it cannot run."""
    if importlib.util.find_spec("mpi4py") is None:
        return MpiStatus(False, None, msg("collectives.reason.no-mpi4py"))
    launcher = find_launcher()
    if launcher is None:
        return MpiStatus(False, None, msg("collectives.reason.no-launcher"))
    return MpiStatus(True, launcher)


@cache
def is_open_mpi(launcher: str) -> bool:
    """Whether ``launcher`` is Open MPI's (it alone knows ``--oversubscribe``)."""
    try:
        done = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "open mpi" in (done.stdout + done.stderr).lower() or "open-mpi" in done.stdout.lower()


def launch_env() -> dict[str, str]:
    """The ranks' environment: ours, gpulab importable from where it is now, and as root the two
    variables Open MPI wants before it runs as root."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def launch_command(launcher: str, ranks: int, rank_args: Sequence[str]) -> list[str]:
    """``mpiexec -n RANKS [--oversubscribe] python -m gpulab.cluster.rank_main ARGS``; more ranks
    than cores need ``--oversubscribe`` (Open MPI refuses them otherwise)."""
    command = [launcher, "-n", str(ranks)]
    if ranks > (os.cpu_count() or 1) and is_open_mpi(launcher):
        command.append("--oversubscribe")
    return [*command, sys.executable, "-m", "gpulab.cluster.rank_main", *rank_args]


# ------------------------------------------------------------------ reading the job


def _reader(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def stderr_text(folder: Path) -> str:
    """The last lines each rank (and the launcher) wrote on standard error, rank by rank."""
    parts = []
    for path in sorted(folder.glob("*.stderr"), key=lambda p: (len(p.stem), p.stem)):
        try:
            lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
        except OSError:
            continue
        if lines:
            parts.append(f"[{path.stem}] " + "\n".join(lines[-STDERR_TAIL_LINES:]))
    return "\n".join(parts)


def ranks_that_wrote(folder: Path) -> list[int]:
    """The ranks whose ``rank-N.stderr`` in ``folder`` is not empty, in order."""
    ranks = []
    for path in folder.glob("rank-*.stderr"):
        number = path.stem.removeprefix("rank-")
        try:
            if number.isdigit() and path.stat().st_size > 0:
                ranks.append(int(number))
        except OSError:
            continue
    return sorted(ranks)


def _failure(reason: Message, folder: Path) -> RankFailure:
    return RankFailure(reason, stderr_text(folder), ranks_that_wrote(folder))


def _stop(process: subprocess.Popen[str]) -> None:
    """End the job and everything it started (its own process group), gently first."""
    if process.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, sig)
            else:  # pragma: no cover - Windows
                process.kill()
        except (ProcessLookupError, PermissionError):
            return
        try:
            process.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def stream_events(command: Sequence[str], env: dict[str, str] | None, silence_s: float,
                  check_cancelled: Callable[[], None] | None = None,
                  stderr_dir: Path | None = None) -> Generator[dict[str, Any], None, None]:  # fmt: skip
    """Run ``command`` and yield each JSON object it prints on standard output, as it comes.

    Raises :class:`RankFailure` when it exits before a ``{"event": "done"}`` line (a rank died) or
    prints nothing for ``silence_s`` seconds (a rank hangs); the job is stopped either way, and when
    ``check_cancelled`` raises (the run was cancelled) or the caller stops reading. The standard
    error files go to ``stderr_dir``, or to a temporary folder removed when the job ends."""
    if stderr_dir is not None:
        yield from _run_job(command, env, silence_s, check_cancelled, stderr_dir)
        return
    with rank_folder() as folder:
        yield from _run_job(command, env, silence_s, check_cancelled, folder)


@contextmanager
def rank_folder() -> Iterator[Path]:
    """A temporary ``gpulab-ranks-*`` folder for the ranks' standard error, removed however the run ends."""
    folder = Path(tempfile.mkdtemp(prefix="gpulab-ranks-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_job(command: Sequence[str], env: dict[str, str] | None, silence_s: float,
             check_cancelled: Callable[[], None] | None, folder: Path) -> Iterator[dict[str, Any]]:  # fmt: skip
    with open(folder / "launcher.stderr", "w", encoding="utf-8") as launcher_err:
        process = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=launcher_err, text=True,
                                   env=env, stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    lines: queue.Queue[str | None] = queue.Queue()
    assert process.stdout is not None
    reader = threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True)
    reader.start()
    try:
        yield from _events(process, lines, silence_s, check_cancelled, folder)
    finally:
        _stop(process)
        reader.join(timeout=5.0)  # the pipe ends with the job; then it is safe to close
        process.stdout.close()


def _events(process: subprocess.Popen[str], lines: queue.Queue[str | None], silence_s: float,
            check_cancelled: Callable[[], None] | None, folder: Path) -> Iterator[dict[str, Any]]:  # fmt: skip
    last = time.monotonic()
    finished = False
    while True:
        if check_cancelled is not None:
            check_cancelled()
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            if time.monotonic() - last > silence_s:
                _stop(process)
                raise _failure(msg("collectives.failure.hung", seconds=round(silence_s, 1)), folder) from None
            continue
        if line is None:
            break
        last = time.monotonic()
        event = read_line(line)
        if event is not None:
            finished = finished or event.get("event") == "done"
            yield event
    code = process.wait()
    if code != 0 or not finished:
        failure = _failure(msg("collectives.failure.died", code=code), folder)
        if failure.ranks:
            failure.reason = msg("collectives.failure.died-ranks", code=code, ranks=failure.ranks)
        raise failure
