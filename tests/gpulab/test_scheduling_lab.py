"""The scheduling lab: seeded, its series, the week of 16,384 GPUs (no timing asserted), the
checkpoint interval's lesson, and the interruption rate against Llama 3's."""

from __future__ import annotations

import json

import pytest

from gpulab import experiments
from gpulab.lab.base import Context, drive
from gpulab.model import reliability
from gpulab.model.scheduling import sim
from gpulab.results import load

module = experiments.get("scheduling")


def run(**changes):
    return drive(module.run(module.Params(**changes), Context()))


def test_the_same_inputs_give_the_same_result_and_another_seed_another():
    a, b = run(gpus=256, hours=24), run(gpus=256, hours=24)
    assert [s.points for s in a.series] == [s.points for s in b.series]
    c = run(gpus=256, hours=24, seed=2)
    assert a.get_series("runs").points != c.get_series("runs").points


def test_the_series_are_modelled_and_the_saved_result_reads_back(tmp_path):
    result = run(gpus=256, hours=24)
    assert {s.key for s in result.series} == {"utilisation", "queue-wait", "fragmentation", "goodput", "lost",
                                              "runs", "failures"}
    assert all(s.provenance.kind == "modelled" and s.role == "model" for s in result.series)
    assert [p.extra["cause"] for p in result.get_series("lost").points] == list(sim.LOSS_CAUSES)
    assert all(0 <= p.y <= 100 for p in result.get_series("utilisation").points)
    path = tmp_path / "scheduling.json"
    result.save(path)
    back = load(path)
    assert back.get_series("runs").points[0].extra["nodes"] == result.get_series("runs").points[0].extra["nodes"]
    json.loads(path.read_text(encoding="utf-8"))  # plain JSON: no NaN


def test_the_seeded_week_of_16384_gpus_runs_with_plausible_figures():
    params = module.Params()
    outcome = module.simulate(params)
    s = module.summary(outcome)
    assert params.gpus == 16384 and params.hours == 168
    assert 1000 < s.jobs < 10000 and s.finished > s.jobs // 2
    assert 0.6 < s.utilisation <= 1.0 and s.goodput <= s.utilisation
    # Llama 3's rate on 16,384 GPUs: about 8.5 a day, so about 60 in a week
    expected = reliability.interruptions_per_day(16384, params.failures_per_gpu_year) * 7
    assert abs(s.failures - expected) < 4 * expected**0.5


def test_checkpointing_every_20_minutes_beats_every_5_hours_for_a_16k_gpu_run():
    common = {"gpus": 16384, "hours": 168, "mix": "one-big-run", "policy": "topology", "seed": 3}
    often = module.summary(module.simulate(module.Params(**common, checkpoint_minutes=20)))
    rarely = module.summary(module.simulate(module.Params(**common, checkpoint_minutes=300)))
    assert often.goodput > rarely.goodput + 0.05


def test_the_default_interval_is_dalys_for_the_jobs_size():
    outcome = module.simulate(module.Params(gpus=256, hours=24))
    job = max(outcome.jobs, key=lambda j: j.gpus)
    mtbf = reliability.mtbf_seconds(job.gpus, reliability.LLAMA3_FAILURES_PER_GPU_YEAR)
    assert job.checkpoint_interval_s == pytest.approx(reliability.daly_interval_seconds(60.0, mtbf))


def test_the_assumed_speeds_are_parameters_and_the_json_says_they_are_assumed(tmp_path):
    from gpulab.model.scheduling import cluster

    default = module.Params().tp_split_speed
    assert default == module.TP_SPLIT_SPEED == pytest.approx(cluster.tp_across_nodes_speed(), abs=0.005)
    result = run(gpus=256, hours=24, tp_split_speed=0.5, rack_span_speed=0.9)
    assert result.params["tp_split_speed"] == 0.5 and result.params["rack_span_speed"] == 0.9
    path = tmp_path / "scheduling.json"
    result.save(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assumed = saved["series"][0]["provenance"]["details"]["assumed"]
    assert assumed["tp_split_speed"]["value"] == 0.5 and assumed["tp_split_speed"]["measured"] is False
    assert assumed["tp_split_speed"]["default"] == default and "assumed" in assumed["tp_split_speed"]["why"]
    note = " ".join(str(n) for n in result.notes)
    assert "Assumed, not measured" in note and "0.50x" in note and "0.90x" in note


def test_a_slower_split_tp_group_slows_the_runs_that_straddle_nodes():
    common = {"gpus": 256, "hours": 24, "mix": "many-small", "policy": "backfill", "seed": 4}
    base, slow = (module.simulate(module.Params(**common, tp_split_speed=s)) for s in (1.0, 0.25))
    assert {round(r.speed, 6) for r in base.runs} <= {1.0, round(module.Params().rack_span_speed, 6)}
    assert any(r.speed <= 0.25 for r in slow.runs)
