"""A signal never costs a measured point (issue 24): ``gpulab run`` and ``gpulab collectives``,
stopped by SIGINT, SIGTERM or SIGHUP in a real child process, write the points measured so far
as a result marked partial, say where on standard error, and exit 128 + the signal's number."""

from __future__ import annotations

import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpulab import results
from gpulab.cluster import mpi_backend

MPI = mpi_backend.mpi_status()
FIRST_POINT_WAIT_S = 120.0
EXIT_WAIT_S = 60.0
# Slow points: the run is still measuring when the test has seen its first one.
SLOW_BANDWIDTH = ["run", "bandwidth", "--set", "working_sets=4096,8192,16384,32768,65536,131072",
                  "--set", "forms=numpy", "--set", "seconds_per_point=10"]  # fmt: skip


def _start(argv: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    env = {**mpi_backend.launch_env(), "TMPDIR": str(tmp_path)}  # its temporary folders, counted by the tests
    return subprocess.Popen([sys.executable, "-m", "gpulab.cli", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)  # fmt: skip


def _wait_for_line(process: subprocess.Popen[str], wanted: str, limit_s: float) -> list[str]:
    """The child's standard error lines up to the first that contains ``wanted`` (bounded wait)."""
    assert process.stderr is not None
    seen: list[str] = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            line = process.stderr.readline()
            if not line:
                break
            seen.append(line)
            if wanted in line:
                return seen
    process.kill()
    pytest.fail(f"no line with {wanted!r} within {limit_s} s; the child said: {''.join(seen)[-2000:]}")


def _stop_with(process: subprocess.Popen[str], signum: int) -> str:
    process.send_signal(signum)
    try:
        _out, err = process.communicate(timeout=EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    return err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signalled_run_writes_its_points_so_far_as_a_partial_result_that_replays(tmp_path, signum):
    target = tmp_path / "result.json"
    process = _start([*SLOW_BANDWIDTH, "--json", str(target)], tmp_path)
    before = _wait_for_line(process, " x=4096 ", FIRST_POINT_WAIT_S)
    err = _stop_with(process, signum)
    assert process.returncode == 128 + signum
    assert "Traceback" not in err
    said = [line for line in err.splitlines() if "marked partial" in line]
    assert len(said) == 1 and signal.Signals(signum).name in said[0] and str(target) in said[0]
    replayed = results.replay(target)
    assert replayed.partial is not None and replayed.partial["cause"] == signal.Signals(signum).name
    assert replayed.partial["last_point"]["x"] == 4096 and replayed.partial["host"]
    kept = [p.x for s in replayed.series for p in s.points]
    assert 4096 in kept and replayed.partial["points"] == len(kept)
    assert any("Partial result" in note for note in replayed.notes)
    assert before  # the first point was on screen before the signal


def test_a_signalled_run_without_json_prints_its_points_and_says_they_are_partial(tmp_path):
    process = _start(SLOW_BANDWIDTH, tmp_path)
    _wait_for_line(process, " x=4096 ", FIRST_POINT_WAIT_S)
    err = _stop_with(process, signal.SIGTERM)
    assert process.returncode == 128 + signal.SIGTERM
    assert "printed on standard output, marked partial" in err


@pytest.mark.mpi
@pytest.mark.skipif(not MPI.available, reason=f"needs mpi4py and mpiexec: {MPI.reason and MPI.reason.text}")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signalled_collectives_run_keeps_its_report_stops_its_ranks_and_leaves_no_folder(tmp_path, signum):
    report = tmp_path / "report.json"
    process = _start(["collectives", "--backend", "mpi", "--collectives", "allreduce,allgather",
                      "--sizes", "8,64,512,4096", "--seconds-per-point", "2", "--report", str(report)],
                     tmp_path)  # fmt: skip
    _wait_for_line(process, "S=          8 B", FIRST_POINT_WAIT_S)
    err = _stop_with(process, signum)
    assert process.returncode == 128 + signum and "Traceback" not in err
    replayed = results.replay(report)
    assert replayed.partial is not None and replayed.partial["cause"] == signal.Signals(signum).name
    assert replayed.series[0].points[0].x == 8 and replayed.series[0].x_unit == "B"
    assert not list(tmp_path.glob("gpulab-ranks-*"))
