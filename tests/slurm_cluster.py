"""A single-node Slurm for tests: munged, slurmctld and slurmd from Debian's packages, configured in a
temporary folder and stopped after (:func:`single_node_slurm`), shared by the tests that run the
README's ``srun`` commands (``gpulab check`` and ``gpulab collectives``).

Skips, with the reason, where that cannot be done: the daemons are not installed (``apt-get install
slurmctld slurmd munge slurm-client``; .ci/run tries), the test does not run as root (slurmd starts
jobs as their user and must be root), or a daemon does not come up (its log's tail is in the reason).
Every wait is bounded."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

DAEMONS = ("munged", "slurmctld", "slurmd", "srun", "sinfo")
START_TIMEOUT_S = 60.0
RUN_TIMEOUT_S = 240


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 8) -> str:
    try:
        return " | ".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no {path.name})"


def find(name: str) -> str | None:
    return shutil.which(name) or next((str(p) for d in ("/usr/sbin", "/sbin") if (p := Path(d) / name).exists()), None)


def _slurm_conf(folder: Path, host: str, cpus: int, munge_socket: Path) -> str:
    return f"""ClusterName=gpulabtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
AuthType=auth/munge
AuthInfo=socket={munge_socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/slurmctld.log
SlurmdLogFile={folder}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
"""


def _wait_for(what: str, ready, deadline_s: float, logs: list[Path]) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.5)
    pytest.skip(f"{what} did not come up within {deadline_s:g} s: " + "; ".join(_tail(p) for p in logs))


@contextlib.contextmanager
def _one_slurm_at_a_time(deadline_s: float = 2 * RUN_TIMEOUT_S) -> Iterator[None]:
    """Two single-node Slurms at once (pytest-xdist's workers) would both name this host's node and
    trip over each other: a file lock lets one start at a time, waiting a bounded time for it."""
    import fcntl

    with open(Path("/tmp") / "gpulab-slurm.lock", "w") as handle:
        deadline = time.monotonic() + deadline_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.skip(f"another test's Slurm was still running after {deadline_s:g} s")
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def single_node_slurm(folder: Path) -> Iterator[dict[str, str]]:
    """munged, slurmctld and slurmd in ``folder``; yields the environment for srun; stops them after.
    One at a time on this machine (:func:`_one_slurm_at_a_time`)."""
    with _one_slurm_at_a_time():
        yield from _single_node_slurm(folder)


def _single_node_slurm(folder: Path) -> Iterator[dict[str, str]]:
    missing = [name for name in DAEMONS if find(name) is None]
    if missing:
        pytest.skip(f"Slurm is not installed here (no {', '.join(missing)}): apt-get install slurmctld slurmd munge "
                    "slurm-client")
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("a single-node Slurm needs root here (slurmd starts the jobs as their user)")
    for sub in ("state", "spool", "munge"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "munge").chmod(0o700)
    key = folder / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    munge_socket = folder / "munge" / "munge.socket"
    host = socket.gethostname().split(".")[0]
    conf = folder / "slurm.conf"
    conf.write_text(_slurm_conf(folder, host, max(2, os.cpu_count() or 2), munge_socket), encoding="utf-8")
    env = {**os.environ, "SLURM_CONF": str(conf)}
    started: list[subprocess.Popen] = []

    def start(*command: str, log: Path) -> None:
        with open(log, "ab") as handle:  # the daemon keeps its own copy of the descriptor
            started.append(subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True))

    try:
        start(find("munged") or "munged", "--foreground", "--force", f"--socket={munge_socket}",
              f"--key-file={key}", f"--pid-file={folder}/munge/munged.pid", f"--seed-file={folder}/munge/seed",
              f"--log-file={folder}/munge/munged.log", log=folder / "munged.out")
        _wait_for("munged", munge_socket.exists, START_TIMEOUT_S, [folder / "munged.out", folder / "munge/munged.log"])
        start(find("slurmctld") or "slurmctld", "-D", "-i", "-f", str(conf), log=folder / "slurmctld.out")
        start(find("slurmd") or "slurmd", "-D", "-f", str(conf), log=folder / "slurmd.out")

        def node_idle() -> bool:
            try:
                done = subprocess.run([find("sinfo") or "sinfo", "-h", "-o", "%t"], env=env, capture_output=True,
                                      text=True, timeout=10)
            except subprocess.TimeoutExpired:
                return False
            return done.returncode == 0 and done.stdout.strip().startswith("idle")

        _wait_for("slurmctld and slurmd", node_idle, START_TIMEOUT_S,
                  [folder / "slurmctld.out", folder / "slurmctld.log", folder / "slurmd.out", folder / "slurmd.log"])
        yield env
    finally:
        for process in reversed(started):  # only the daemons this test started, by their own process groups
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15)


def slurm_folder() -> Path:
    """A fresh folder for the daemons: short, as munge's socket path has a length limit."""
    folder = Path("/tmp") / f"gpulab-slurm-{os.getpid()}"
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def gpulab_command() -> list[str]:
    """This environment's ``gpulab`` script (or ``python -m gpulab.cli`` without one)."""
    script = Path(sys.executable).parent / "gpulab"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gpulab.cli"]
