"""The cluster-scaling lab: modelled series, the planner rows, notes, and impossible inputs named."""

from __future__ import annotations

import pytest

from gpulab import experiments
from gpulab.catalogue import from_json, render
from gpulab.experiments.base import Context, ParamError, drive, params_from_strings

module = experiments.get("cluster-scaling")


def run(**changes):
    return drive(module.run(module.Params(**changes), Context()))


def test_every_series_is_modelled_and_the_planner_rows_carry_their_layout():
    result = run(gpu_counts=(8, 64, 1024, 16384))
    assert {s.key for s in result.series} == {"allreduce-ring", "allreduce-tree", "allreduce-hierarchical",
                                              "efficiency", "goodput", "plans"}
    assert all(s.provenance.kind == "modelled" and s.role == "model" for s in result.series)
    ring = result.get_series("allreduce-ring")
    assert [p.x for p in ring.points] == [8, 64, 1024, 16384] and all(p.extra["busbw_gb_s"] > 0 for p in ring.points)
    plans = result.get_series("plans").points
    assert all(p.extra["dp"] * p.extra["tp"] * p.extra["pp"] == 16384 for p in plans)
    unfit = [p for p in plans if not p.extra["fits"]]
    assert unfit and all(any(from_json(r).key == "cluster-scaling.problem.memory" for r in p.extra["reasons"])
                         for p in unfit)


def test_the_notes_compare_the_model_with_metas_llama3_figures():
    notes = "\n".join(run().notes)
    assert "Meta's paper: 8.6 (466 in 54 days), 7.8 of them unexpected (419)" in notes
    assert "model 7.6 interruptions/day" in notes
    assert "gpulab.cluster is absent" in notes or "does not read" in notes  # no fit without a measurement


@pytest.mark.parametrize(("assignments", "problem"), [
    ({"model": "gpt-1.3b", "tp": "3"}, "TP 3 does not divide the 16 attention heads"),
    ({"model": "gpt-1.3b", "pp": "32"}, "PP 32 is more stages than the 24 layers"),
    ({"gpus": "64", "dp": "2", "tp": "2", "pp": "2"}, "DP × TP × PP = 2 × 2 × 2 = 8, not the 64 GPUs"),
    ({"dp": "3"}, "the batch of 2048 sequences does not split"),
])  # fmt: skip
def test_impossible_planner_inputs_are_named(assignments, problem):
    with pytest.raises(ParamError) as caught:
        params_from_strings(module.Params, assignments)
    assert problem in str(caught.value)
    assert render(caught.value.message, "zh") != str(caught.value)


def test_a_model_that_fits_nowhere_says_so():
    result = run(gpus=8, gpu_counts=(8,))
    assert any("No plan fits in memory on 8 GPUs" in note for note in result.notes)
    assert result.get_series("efficiency").points == ()
