"""The GPU smoke script runs to its "no GPU" summary here, and its plan covers every experiment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gpulab import experiments
from gpulab.bench import gpu_smoke

ROOT = Path(__file__).resolve().parents[3]


def test_the_smoke_script_runs_to_its_no_gpu_summary_without_error(tmp_path):
    out = tmp_path / "smoke"
    done = subprocess.run(["bash", str(ROOT / "tools" / "gpu-smoke.sh"), str(out), "--no-gpu"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "no GPU: --no-gpu was given" in done.stdout
    assert "ok" in done.stdout and "gpulab info --json" in done.stdout
    assert len(done.stdout.splitlines()) <= 24  # one screen
    assert (out / "summary.txt").read_text(encoding="utf-8").strip() == done.stdout.strip()
    assert isinstance(json.loads((out / "info.json").read_text(encoding="utf-8")), dict)


def test_the_smoke_plan_runs_every_experiment_with_valid_small_parameters():
    assert sorted(gpu_smoke.small_runs()) == sorted(experiments.names())
    for name, assignments in gpu_smoke.small_runs().items():
        experiments.params_from_strings(experiments.get(name).Params, dict(a.split("=", 1) for a in assignments))


def test_the_smoke_script_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "old.txt").write_text("keep", encoding="utf-8")
    assert gpu_smoke.main([str(tmp_path), "--no-gpu"]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert (tmp_path / "old.txt").read_text(encoding="utf-8") == "keep"


def test_a_step_past_its_timeout_is_stopped_and_reported(tmp_path):
    smoke = gpu_smoke.Smoke(tmp_path, total_s=60)
    step = smoke.run("sleeper", [sys.executable, "-c", "import time; time.sleep(30)"], 1.0, "sleep.log")
    assert step.status == "timeout" and step.seconds < 10
    summary = gpu_smoke._summary(smoke.steps, True, "", tmp_path)
    assert "timeout" in summary and "1 step(s) failed or timed out" in summary


def test_the_streams_step_checks_the_measured_four_stream_speedup(tmp_path):
    def run_file(speedup: float) -> Path:
        series = {"key": "pinned", "provenance": {"kind": "measured"}, "points": [{"extra": {"speedup": speedup}}]}
        path = tmp_path / f"run-streams-{speedup}.json"
        path.write_text(json.dumps({"series": [series]}), encoding="utf-8")
        return path

    assert gpu_smoke.streams_overlap_step(run_file(2.2)).status == "ok"
    assert "1.20x" in gpu_smoke.streams_overlap_step(run_file(1.2)).detail
    assert gpu_smoke.streams_overlap_step(run_file(1.2)).status == "failed"
    assert gpu_smoke.streams_overlap_step(tmp_path / "missing.json").status == "failed"
