"""The allreduce-steps lab: its result holds every step, the sweep over n, and reopens from JSON."""

from __future__ import annotations

import pytest

from gpulab import experiments, results
from gpulab.catalogue import render
from gpulab.cluster import allreduce_steps as ar
from gpulab.experiments import allreduce_steps as lab
from gpulab.lab.base import Context, ParamError, drive


@pytest.fixture(scope="module")
def result():
    return drive(lab.run(lab.Params(ranks=5, chunk_elements=2, seed=3, link_gb_s=100.0), Context()))


def test_the_lab_is_registered_and_runs_from_strings():
    module = experiments.get("allreduce-steps")
    params = experiments.params_from_strings(module.Params, {"ranks": "6", "link_gb_s": "63"})
    assert (params.ranks, params.link_gb_s) == (6, 63.0)
    with pytest.raises(ParamError, match="ranks"):
        experiments.params_from_strings(module.Params, {"ranks": "17"})


def test_the_result_keeps_every_step_with_its_record_and_the_check(result):
    ring, tree = result.get_series("ring-steps"), result.get_series("tree-steps")
    assert len(ring.points) == 1 + 2 * 4 and len(tree.points) == 1 + 2 * ar.tree_depth(5)
    assert ring.provenance.kind == "emulated" and ring.role == "emulated"
    steps = [ar.step_from_json(p.extra) for p in ring.points]
    assert [s.index for s in steps] == list(range(9))
    assert ring.points[-1].extra["verification"]["ok"] is True
    assert [p.y for p in ring.points[1:]] == [5 * 8] * 8  # 5 links, one 8-byte chunk each


def test_the_sweep_shows_busbw_flat_and_algbw_falling(result):
    busbw = result.get_series("ring-busbw")
    algbw = result.get_series("ring-algbw")
    assert [p.x for p in busbw.points] == list(lab.SWEEP_RANKS)
    assert all(p.y == pytest.approx(100.0) for p in busbw.points)
    assert [p.y for p in algbw.points] == pytest.approx([100.0 * n / (2 * (n - 1)) for n in lab.SWEEP_RANKS])
    assert busbw.provenance.kind == "modelled" and busbw.role == "model"
    links = result.get_series("ring-link-bytes")
    assert [p.y for p in links.points] == pytest.approx([ar.busbw_factor(n) for n in lab.SWEEP_RANKS])
    assert links.provenance.kind == "emulated"


def test_notes_say_what_was_verified_and_what_is_modelled(result):
    texts = [str(note) for note in result.notes]
    assert texts[0].startswith("Ring: Verified") and texts[1].startswith("Tree: Verified")
    assert any("modelled" in t for t in texts) and any("nccl-tests" in t for t in texts)
    assert "已验证" in render(result.notes[0].message, "zh")


def test_a_saved_result_reopens_with_its_steps(result, tmp_path):
    path = tmp_path / "allreduce.json"
    result.save(path)
    again = results.load(path)
    assert again.to_json_dict()["series"] == result.to_json_dict()["series"]
    step = ar.step_from_json(again.get_series("tree-steps").points[2].extra)
    assert step.phase == "reduce" and step.transfers


def test_each_step_is_described_in_words():
    data = lab.rank_vectors(3, 1, 0)
    ring = ar.steps("ring", data)
    assert render(lab.describe(ring[0], "ring", 4)).startswith("Start: each of the 3 ranks")
    text = render(lab.describe(ring[1], "ring", 4))
    assert text.startswith("Step 1 of 4, reduce-scatter: rank 0 sends chunk 0 (4 B) to rank 1")
    tree = ar.steps("tree", data)
    assert "ranks 1, 2 send their whole vector (12 B each)" in render(lab.describe(tree[1], "tree", 2))
    assert "进程 1，2" in render(lab.describe(tree[1], "tree", 2), "zh")
    assert "the busiest rank has sent 8 of its 16 B" in render(lab.bytes_text(ring, 2))
