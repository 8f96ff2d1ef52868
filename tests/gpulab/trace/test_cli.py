"""``gpulab trace``: the text in English and Chinese, the --json gpulab result, exit codes."""

from __future__ import annotations

import json

from gpulab import catalogue
from gpulab.cli import main
from gpulab.experiments import names
from gpulab.results import load, replay
from gpulab.trace import FINDING_KEYS, lab_of
from tests.gpulab.trace.builders import Kineto


def _launch_bound(tmp_path):
    trace = Kineto()
    trace.annotation("ProfilerStep#1", 0.0, 800.0)
    for i in range(30):
        trace.kernel("ampere_sgemm_128x64_nn", i * 25.0, 5.0)
    return trace.write(tmp_path / "rank0.json.gz", compress=True)


def test_the_text_gives_the_shares_the_findings_their_evidence_and_the_lab(tmp_path, capsys):
    assert main(["trace", str(_launch_bound(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "rank 0: compute 20." in out and "idle 79." in out
    assert "[launch_bound] rank 0: Launch-bound: the GPU waited 79%" in out
    assert "evidence: idle_waiting_for_launch_ns=" in out and "cudaLaunchKernel" in out
    assert "gpulab lab 'launch' (Launch overhead & CUDA Graphs)" in out


def test_the_text_in_chinese(tmp_path, capsys):
    assert main(["trace", str(_launch_bound(tmp_path)), "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "受限于启动开销" in out and "计算 20." in out and "深入了解" in out


def test_json_writes_a_measured_gpulab_result_with_shares_and_findings(tmp_path, capsys):
    out = tmp_path / "diagnosis.json"
    assert main(["trace", str(_launch_bound(tmp_path)), "--json", str(out), "--step", "1"]) == 0
    result = load(out)
    assert result.experiment == "trace" and result.params["step"] == 1
    (series,) = result.series
    assert series.provenance.kind == "measured" and series.provenance.details["file"] == "rank0.json.gz"
    summary = result.params["summary"]
    for scope in (summary["overall"], summary["ranks"]["0"]):
        assert set(scope) >= {"compute_share", "communication_share", "memory_share", "idle_share"}
        assert abs(sum(scope[k] for k in ("compute_share", "communication_share", "memory_share",
                                          "idle_share")) - 1) < 1e-5  # fmt: skip
    keys = [f["key"] for f in summary["findings"]]
    assert "launch_bound" in keys and set(keys) <= set(FINDING_KEYS)
    assert summary["findings"][0]["evidence"]["gaps"] == 29 and summary["findings"][0]["step"] == 1
    assert next(n.message.key for n in result.notes) == "trace.finding.launch_bound"
    assert replay(out).series[0].provenance.kind == "replayed"
    capsys.readouterr()
    assert main(["trace", str(_launch_bound(tmp_path)), "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == "gpulab.result/2"


def test_a_bad_file_is_exit_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["trace", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gpulab trace: {bad}: not valid JSON") and err.count("\n") == 1
    assert main(["trace", str(tmp_path / "nothing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["trace", str(_launch_bound(tmp_path)), "--step", "4"]) == 2
    assert "no profiler step 4" in capsys.readouterr().err


def test_every_finding_has_words_in_both_languages_and_a_lab_that_exists():
    for key in FINDING_KEYS:
        assert catalogue.has(f"trace.finding.{key}") and catalogue.has(f"trace.advice.{key}")
        assert lab_of(key) in names()
