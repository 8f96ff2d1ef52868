"""The checks run one at a time for the window (gpulab.check.live) and a saved report read back
(gpulab.check.saved), with the GPU checks on the test double."""

from __future__ import annotations

import json

import pytest

from gpulab.catalogue import Message, render
from gpulab.check.live import CheckPlan, CheckStep, run_live
from gpulab.check.model import CheckReport, Verdict
from gpulab.check.registry import Context
from gpulab.check.saved import is_report, read_report
from gpulab.lab.run import Cancelled, Progress
from gpulab.results import ResultFormatError
from tests.gpulab.check.fakes import FakeLayer, fault

GPU_CHECKS = ["gpu.ecc", "gpu.remap", "gpu.throttle", "gpu.pcie"]


def drained(gen) -> tuple[list, CheckReport]:
    events = []
    try:
        while True:
            events.append(next(gen))
    except StopIteration as done:
        return events, done.value


def faulty_ctx() -> Context:
    return Context(devices=FakeLayer(fault(0), fault(1, idle={"ecc_uncorrected_volatile": 2})), host="node7")


def test_the_plan_comes_first_then_each_check_starts_and_ends_with_its_rows():
    events, report = drained(run_live(faulty_ctx(), ["software.cuda", *GPU_CHECKS]))
    assert events[0] == CheckPlan(("software.cuda", *GPU_CHECKS))
    steps = [(e.check, e.done) for e in events if isinstance(e, CheckStep)]
    assert steps == [(check, done) for check in ("software.cuda", *GPU_CHECKS) for done in (False, True)]
    ecc = next(e for e in events if isinstance(e, CheckStep) and e.done and e.check == "gpu.ecc")
    assert [(row.device, row.verdict) for row in ecc.rows] == [("gpu0", Verdict.PASS), ("gpu1", Verdict.FAIL)]
    assert all(isinstance(e.message, Message) for e in events if isinstance(e, Progress))
    # the report is the run's rows in order, with the machine and the exit code of a failure
    assert [row.check for row in report.rows] == ["software.cuda"] + [c for c in GPU_CHECKS for _ in (0, 1)]
    assert report.exit_code() == 1 and report.machine["host"] == "node7" and report.started


def test_a_run_of_no_check_is_still_a_report_of_this_machine():
    events, report = drained(run_live(Context(devices=FakeLayer()), []))
    assert events == [CheckPlan(())] and report.rows == [] and report.exit_code() == 0 and report.versions


def test_a_cancelled_run_stops_after_the_check_it_was_in_and_shows_no_verdict_for_it():
    cancelled = []

    def check_cancelled() -> None:
        if cancelled:
            raise Cancelled("cancelled")

    ctx = Context(devices=FakeLayer(fault(0)), check_cancelled=check_cancelled)
    gen = run_live(ctx, GPU_CHECKS)
    assert next(gen) == CheckPlan(tuple(GPU_CHECKS))
    assert next(gen) == CheckStep("gpu.ecc")
    cancelled.append(True)
    with pytest.raises(Cancelled):
        for event in gen:
            assert not (isinstance(event, CheckStep) and event.done), "a cancelled check reported rows"


def saved(tmp_path, data, name="report.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_a_saved_report_reads_back_row_for_row(tmp_path):
    _, report = drained(run_live(faulty_ctx(), ["software.cuda", "gpu.ecc"]))
    path = saved(tmp_path, report.to_json())
    assert is_report(path)
    again = read_report(path)
    assert again.rows == report.rows and again.machine == report.machine and again.started == report.started


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"schema": "gpulab.check/1", "rows": [', "not valid JSON (line 1, column"),
        ('{"schema": "gpulab.result/2"}', "not a gpulab check report (its schema is gpulab.result/2"),
        ('{"schema": "gpulab.check/1", "rows": {}}', "the report's rows cannot be read (dict)"),
        ('{"schema": "gpulab.check/1", "rows": [{"check": "cpu.blas", "verdict": "pass", "reason": {"text": "ok"}},'
         ' {"check": "cpu.triad", "reason": {"text": "no verdict"}}]}',
         "row 2 of the report cannot be read (no 'verdict')"),
        ('{"schema": "gpulab.check/1", "rows": [{"check": "x", "verdict": "green", "reason": "?"}]}',
         "row 1 of the report cannot be read"),
    ],
)
def test_a_malformed_report_names_the_file_and_the_problem(tmp_path, text, said):
    path = saved(tmp_path, text)
    with pytest.raises(ResultFormatError) as raised:
        read_report(path)
    english = render(raised.value.message)
    assert english.startswith(f"{path}: ") and said in english, english
    assert "：" in render(raised.value.message, "zh")  # said in Chinese too


def test_a_result_or_a_broken_file_is_not_taken_for_a_check_report(tmp_path):
    assert not is_report(saved(tmp_path, '{"schema": "gpulab.result/2"}'))
    assert not is_report(saved(tmp_path, "{not json", "broken.json"))
    assert not is_report(tmp_path / "missing.json")
