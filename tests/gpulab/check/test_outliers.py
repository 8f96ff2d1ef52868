"""The outlier rule: a measured rate below 70 % of the median of its siblings of the same model fails,
even when it cleared its own threshold; its own verdict and reason are kept in its facts."""

from __future__ import annotations

import pytest

from gpulab.catalogue import msg, render
from gpulab.check import registry
from gpulab.check.model import CheckReport, Row, Verdict
from gpulab.check.outliers import apply_outliers
from gpulab.check.registry import Check, Context
from gpulab.check.run import run_checks

MODEL = "NVIDIA H100 80GB HBM3"


def rate(device, value, model=MODEL, host="node1", verdict=Verdict.PASS, unit="GB/s", check="gpu.triad"):
    reason = msg("check.reason.within-expected", value=f"{value}", unit=unit, share="80%", expected="3350")
    return Row(check, verdict, reason, value=value, unit=unit, threshold=1000.0, comparison=">=",
               source="gpu.triad", device=device, host=host, facts={"model": model})


def test_one_gpu_30_percent_below_its_siblings_fails_though_it_cleared_its_threshold():
    rows = [rate("gpu0", 3000.0), rate("gpu1", 3010.0), rate("gpu2", 2990.0), rate("gpu3", 2100.0)]
    judged = apply_outliers(rows)
    assert [row.verdict for row in judged] == [Verdict.PASS] * 3 + [Verdict.FAIL]
    outlier = judged[3]
    assert outlier.source == "outliers" and outlier.threshold == pytest.approx(0.7 * 3000.0)
    assert "median 3000 GB/s" in render(outlier.reason) and "gpu0, gpu1, gpu2" in render(outlier.reason)
    assert render(outlier.reason).startswith(render(rows[3].reason))  # what was measured stays in front
    assert outlier.facts["before_outlier"]["verdict"] == "pass"
    assert outlier.facts["before_outlier"]["reason"]["key"] == "check.reason.within-expected"
    assert CheckReport(judged, "quick").exit_code() == 1


def test_two_gpus_each_hold_the_other_as_reference():
    judged = apply_outliers([rate("gpu0", 3000.0), rate("gpu1", 2000.0)])
    assert [row.verdict for row in judged] == [Verdict.PASS, Verdict.FAIL]


def test_a_gpu_above_70_percent_of_its_siblings_keeps_its_verdict():
    rows = [rate("gpu0", 3000.0), rate("gpu1", 3000.0), rate("gpu2", 2110.0, verdict=Verdict.WARN)]
    assert apply_outliers(rows) == rows


def test_a_lone_gpu_a_different_model_or_another_check_is_not_a_sibling():
    rows = [rate("gpu0", 3000.0), rate("gpu1", 1000.0, model="NVIDIA A100-SXM4-40GB"),
            rate("gpu2", 10.0, check="gpu.h2d")]
    assert apply_outliers(rows) == rows


def test_only_rates_of_a_known_model_are_compared():
    cool = [Row("gpu.throttle", Verdict.PASS, msg("check.gpu.remap.ok"), value=v, unit="°C", device=f"gpu{i}",
                facts={"model": MODEL}) for i, v in enumerate((70.0, 71.0, 30.0))]
    anonymous = [Row("cpu.triad", Verdict.PASS, msg("check.gpu.remap.ok"), value=v, unit="GB/s", device=f"cpu{i}")
                 for i, v in enumerate((50.0, 50.0, 5.0))]
    assert apply_outliers(cool + anonymous) == cool + anonymous


def test_a_row_that_already_failed_or_skipped_without_a_value_is_left_alone():
    rows = [rate("gpu0", 3000.0), rate("gpu1", 3000.0), rate("gpu2", 100.0, verdict=Verdict.FAIL)]
    assert apply_outliers(rows) == rows


def test_a_skipped_rate_with_no_expectation_still_fails_far_below_its_siblings():
    rows = [rate("gpu0", 3000.0), rate("gpu1", 3000.0), rate("gpu2", 1500.0, verdict=Verdict.SKIP)]
    assert apply_outliers(rows)[2].verdict is Verdict.FAIL


def test_in_fleet_mode_nodes_are_siblings_and_named_with_their_host():
    rows = [rate("gpu0", 3000.0, host=f"node{n}") for n in (1, 2, 3)] + [rate("gpu0", 1800.0, host="node4")]
    judged = apply_outliers(rows)
    assert judged[3].verdict is Verdict.FAIL and "node1:gpu0, node2:gpu0, node3:gpu0" in render(judged[3].reason)


def test_run_checks_applies_the_rule_to_the_finished_rows(monkeypatch):
    def measured(ctx):
        yield msg("check.progress.measuring", what="bandwidth")
        return [rate(f"gpu{i}", v) for i, v in enumerate((3000.0, 3000.0, 3000.0, 2100.0))]

    monkeypatch.setitem(registry.CHECKS, "test.rates", Check("test.rates", measured))
    progress = run_checks(Context(host="node1"), only=["test.rates"])
    with pytest.raises(StopIteration) as done:
        while True:
            next(progress)
    report = done.value.value
    assert [row.verdict for row in report.rows] == [Verdict.PASS] * 3 + [Verdict.FAIL]
    assert report.exit_code() == 1
