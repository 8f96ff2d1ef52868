"""The parent side of the MPI backend: points streamed as they come; a rank that dies or hangs is
caught (by its exit, by the silence timeout) with its standard error, and the points before are kept.

The "ranks" here are a plain Python program that prints rank 0's JSON lines and then fails, so
these tests need no MPI; the real rank program's faults are in tests/gpulab/experiments/test_exp_collectives.py.
"""

from __future__ import annotations

import json
import sys

import pytest

from gpulab.cluster import mpi_backend
from gpulab.cluster.report import Collector

POINT = {"event": "point", "collective": "allreduce", "count": 2, "ranks": 2, "seconds": 1e-6,
         "seconds_iqr": 1e-7, "algbw_gb_s": 0.008, "busbw_gb_s": 0.008, "busbw_iqr": 0.001, "repeats": 5}


def _fake_job(tmp_path, ending: str) -> list[str]:
    lines = [{"event": "hello", "ranks": 2, "hosts": ["here", "here"]},
             {**POINT, "message_bytes": 8, "wrong": 0}, {**POINT, "message_bytes": 64, "wrong": 3}]
    script = "\n".join([
        "import sys, time",
        *[f"print({json.dumps(json.dumps(line))}, flush=True)" for line in lines],
        f"open({str(tmp_path / 'rank-1.stderr')!r}, 'w').write('rank 1: Segmentation fault in Allreduce\\n')",
        ending,
    ])  # fmt: skip
    return [sys.executable, "-c", script]


def _collect(command, tmp_path, silence_s=30.0):
    collector = Collector("mpi", {})
    with pytest.raises(mpi_backend.RankFailure) as failure:
        for event in mpi_backend.stream_events(command, None, silence_s, stderr_dir=tmp_path):
            collector.add(event)
    return collector, failure.value


def test_a_rank_that_dies_is_reported_with_its_stderr_and_the_points_before_are_kept(tmp_path):
    collector, failure = _collect(_fake_job(tmp_path, "sys.exit(3)"), tmp_path)
    assert "exit code 3" in failure.reason.text
    assert "[rank-1] rank 1: Segmentation fault" in failure.stderr
    points = collector.series["mpi-allreduce"].points
    assert [p.x for p in points] == [8, 64] and points[1].extra["wrong"] == 3


def test_a_rank_that_hangs_is_stopped_by_the_silence_timeout_with_its_stderr(tmp_path):
    collector, failure = _collect(_fake_job(tmp_path, "time.sleep(600)"), tmp_path, silence_s=1.0)
    assert "no new point for 1.0 s" in failure.reason.text
    assert "Segmentation fault" in failure.stderr
    assert collector.points == 2


def test_a_job_that_ends_without_its_done_line_counts_as_failed(tmp_path):
    _collector, failure = _collect(_fake_job(tmp_path, "sys.exit(0)"), tmp_path)
    assert "exit code 0" in failure.reason.text


def test_lines_that_are_not_json_objects_are_skipped(tmp_path):
    script = "print('warning: something'); print('[1, 2]'); print('{\"event\": \"done\"}')"
    events = list(mpi_backend.stream_events([sys.executable, "-c", script], None, 30.0, stderr_dir=tmp_path))
    assert events == [{"event": "done"}]


def test_more_ranks_than_cores_are_oversubscribed_and_root_may_run_open_mpi(monkeypatch):
    monkeypatch.setattr(mpi_backend, "is_open_mpi", lambda _launcher: True)
    monkeypatch.setattr(mpi_backend.os, "cpu_count", lambda: 2)
    assert "--oversubscribe" in mpi_backend.launch_command("mpiexec", 3, [])
    assert "--oversubscribe" not in mpi_backend.launch_command("mpiexec", 2, [])
    monkeypatch.setattr(mpi_backend.os, "geteuid", lambda: 0)
    env = mpi_backend.launch_env()
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
