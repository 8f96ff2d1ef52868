"""The cluster-scaling lab: modelled series, the planner rows, notes, and impossible inputs named."""

from __future__ import annotations

import pytest

from gpulab import experiments
from gpulab.catalogue import from_json, render
from gpulab.lab.base import Context, ParamError, drive, params_from_strings

module = experiments.get("cluster-scaling")


def run(**changes):
    return drive(module.run(module.Params(**changes), Context()))


def test_every_series_is_modelled_and_the_planner_rows_carry_their_layout():
    result = run(gpu_counts=(8, 64, 1024, 16384))
    assert {s.key for s in result.series} == {"allreduce-ring", "allreduce-tree", "allreduce-hierarchical",
                                              "allreduce-nvls", "efficiency", "goodput", "plans"}
    assert [p.x for p in result.get_series("allreduce-nvls").points] == [8]  # NVLS stays inside one node
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
    assert "model 8.5 interruptions/day at 0.19 per GPU-year" in notes  # all 466 stop the job
    assert "not fitted" in notes  # no fit without a measurement


@pytest.mark.parametrize(("assignments", "problem"), [
    ({"model": "gpt-1.3b", "tp": "3"}, "TP 3 does not divide the 16 attention heads"),
    ({"model": "gpt-1.3b", "pp": "32"}, "PP 32 is more stages than the 24 layers"),
    ({"gpus": "64", "dp": "2", "tp": "2", "pp": "2"}, "DP × TP × PP = 2 × 2 × 2 = 8, not the 64 GPUs"),
    ({"dp": "3"}, "batch 2048 not divisible by DP 3 × 1"),
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


def _saved_collectives(tmp_path, alpha_s: float, gb_s: float, ranks: int = 2):
    """A collectives result whose AllReduce times follow a ring of ``alpha_s`` and ``gb_s`` exactly."""
    from gpulab.experiments.collectives import Collector

    collector = Collector("mpi", {"ranks": ranks})
    collector.add({"event": "hello", "ranks": ranks, "hosts": ["here"] * ranks})
    for size in (1 << 10, 1 << 16, 1 << 20, 1 << 24):
        seconds = 2 * (ranks - 1) * alpha_s + 2 * (ranks - 1) / ranks * size / (gb_s * 1e9)
        algbw = size / seconds / 1e9
        collector.add({"event": "point", "collective": "allreduce", "message_bytes": size, "count": size // 4,
                       "ranks": ranks, "seconds": seconds, "algbw_gb_s": algbw,
                       "busbw_gb_s": algbw * 2 * (ranks - 1) / ranks, "repeats": 3, "wrong": 0})  # fmt: skip
    path = tmp_path / "allreduce.json"
    collector.result().save(path)
    return path


def test_a_saved_allreduce_measurement_is_fitted_and_drawn_as_a_ring_on_that_link(tmp_path):
    path = _saved_collectives(tmp_path, alpha_s=20e-6, gb_s=4.0, ranks=4)
    result = run(gpu_counts=(8, 64), fit_from=str(path))
    fitted = result.get_series("allreduce-ring-fitted")
    assert fitted.provenance.kind == "modelled" and fitted.provenance.details["fitted_to"] == str(path)
    assert fitted.provenance.details["alpha_s"] == pytest.approx(20e-6, rel=1e-6)
    assert 1e-9 / fitted.provenance.details["beta_s_per_byte"] == pytest.approx(4.0, rel=1e-6)
    # 8 GPUs on that link: 14 steps of alpha and 2*7/8 of 256 MiB at 4 GB/s.
    expected_s = 14 * 20e-6 + 2 * 7 / 8 * (1 << 28) / 4e9
    assert fitted.points[0].extra["seconds"] == pytest.approx(expected_s, rel=1e-6)
    assert any(n.message.key == "cluster-scaling.note.fitted" for n in result.notes)


def test_without_a_measurement_the_notes_say_alpha_and_beta_are_assumed():
    result = run(gpu_counts=(8,))
    assert any(n.message.key == "cluster-scaling.note.no-fit" for n in result.notes)


@pytest.mark.parametrize("content, why", [
    (None, "No such file"),
    ('{"not": "a result"}', ""),
])  # fmt: skip
def test_a_bad_fit_file_is_a_param_error_that_names_it(tmp_path, content, why):
    path = tmp_path / "fit.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ParamError) as caught:
        run(gpu_counts=(8,), fit_from=str(path))
    text = render(caught.value.message)
    assert str(path) in text and why in text


def test_a_result_of_another_lab_cannot_be_fitted(tmp_path):
    other = run(gpu_counts=(8,))
    path = tmp_path / "scaling.json"
    other.save(path)
    with pytest.raises(ParamError) as caught:
        run(gpu_counts=(8,), fit_from=str(path))
    assert "not of the collectives lab" in render(caught.value.message)


def test_the_model_beside_an_nccl_allreduce_is_the_ring_and_nvls_at_the_measured_sizes():
    from gpulab.experiments.cluster_scaling import fit as cluster_fit
    from gpulab.experiments.collectives import Collector
    from gpulab.model import cluster
    from gpulab.specs import load_specs

    collector = Collector("nccl", {"ranks": 8})
    collector.add({"event": "hello", "ranks": 8, "hosts": ["h"] * 8, "devices": ["NVIDIA H100 80GB HBM3"] * 8})
    for size in (1 << 20, 1 << 30):
        collector.add({"event": "point", "collective": "allreduce", "message_bytes": size, "count": size // 4,
                       "ranks": 8, "seconds": 1e-3, "algbw_gb_s": 1.0, "busbw_gb_s": 1.75, "repeats": 3,
                       "wrong": 0})  # fmt: skip
    reference = cluster_fit.model_reference(collector.result())
    fabric = cluster.fabric_for(load_specs().get("h100-sxm"))
    expected = cluster.bus_bandwidth_gb_s(8, 1 << 30, cluster.allreduce_seconds("nvls", 8, 1 << 30, fabric))
    assert reference is not None and set(reference.curves) == {"ring", "nvls"} and reference.missing is None
    assert [size for size, _b in reference.curves["nvls"]] == [1 << 20, 1 << 30]
    assert reference.curves["nvls"][-1][1] == pytest.approx(expected)
    cpu = Collector("mpi", {"ranks": 2})
    assert cluster_fit.model_reference(cpu.result()) is None  # CPU ranks: nothing to model


@pytest.mark.parametrize(("ranks", "problem"), [(1e300, "ranks"), (2.9, "whole number")])
def test_a_saved_rank_count_is_checked_as_the_collectives_form_checks_it(tmp_path, ranks, problem):
    from gpulab.experiments import ParamError
    from gpulab.experiments.cluster_scaling.fit import fit_to_saved
    from gpulab.results import Point, Provenance, Result, Series

    points = tuple(Point(size, 1.0, extra={"seconds": 1e-5 + size * 1e-10}) for size in (1 << 10, 1 << 20, 1 << 24))
    series = Series("allreduce", Provenance("measured", "cpu"), "bytes", "B", "busbw", "GB/s", points,
                    key="mpi-allreduce")  # fmt: skip
    path = tmp_path / "collectives.json"
    Result("collectives", {"ranks": ranks}, (series,)).save(path)
    with pytest.raises(ParamError, match=problem):
        fit_to_saved(str(path))


def test_fit_from_a_named_pipe_is_refused_by_name_without_waiting(tmp_path):
    import os

    from gpulab.experiments import ParamError
    from gpulab.experiments.cluster_scaling.fit import fit_to_saved

    fifo = tmp_path / "collectives.json"
    os.mkfifo(fifo)
    with pytest.raises(ParamError, match="not a regular file"):
        fit_to_saved(str(fifo))
