"""The trace doctor as a lab: a shipped sample judged as ``gpulab trace`` judges it, step by step."""

from __future__ import annotations

import pytest

from gpulab import experiments
from gpulab.trace import diagnose, read_trace, to_result

lab = experiments.get("trace-doctor")


def run(**fields):
    return experiments.drive(lab.run(lab.Params(**fields), experiments.Context()))


def test_every_sample_is_shipped_and_judged_as_the_trace_command_judges_it():
    for sample in lab.SAMPLES:
        params = lab.Params(sample=sample)
        result = experiments.drive(lab.run(params, experiments.Context()))
        doctor = to_result(diagnose(read_trace(lab.sample_path(params))))
        assert result.experiment == "trace-doctor" and result.params["sample"] == sample
        assert result.series[0].points == doctor.series[0].points
        assert [n.message.key for n in result.notes] == [n.message.key for n in doctor.notes]
        assert result.series[0].provenance.kind == "modelled"  # both samples are models, and say so


def test_in_the_training_step_prefetch_takes_the_data_wait_away():
    """Step 1 is the baseline (the GPU waits on the loader), step 2 adds prefetch."""
    baseline, prefetch = run(step=1), run(step=2)
    idle = [r.series[0].points[0].extra["idle_share"] for r in (baseline, prefetch)]
    assert idle[0] > 0.4 and idle[1] < idle[0] / 2
    keys = [{note.message.key for note in r.notes} for r in (baseline, prefetch)]
    assert "trace.finding.data_loading" in keys[0] and "trace.finding.data_loading" not in keys[1]


def test_a_step_the_sample_lacks_is_an_error_that_names_the_steps_it_has():
    with pytest.raises(experiments.ExperimentError, match=r"no profiler step 99 \(steps in the trace: 1, 2, 3"):
        run(step=99)


def test_a_sample_that_is_not_shipped_is_refused_with_the_ones_that_are():
    with pytest.raises(experiments.ParamError, match="squeeze-step"):
        experiments.params_from_strings(lab.Params, {"sample": "mine"})
