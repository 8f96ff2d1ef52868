"""The squeeze lab's engine: the step model, its breakdown, the trace and what the doctor finds in it."""

from __future__ import annotations

import io
import json
from itertools import pairwise

import pytest

from gpulab.experiments import squeeze
from gpulab.experiments.squeeze import step
from gpulab.experiments.squeeze.loader import LoaderTiming
from gpulab.lab.base import Context, drive
from gpulab.model.launch import costs_for, launch_time
from gpulab.results import Provenance
from gpulab.specs import load_specs

H100 = load_specs().get("h100-sxm")
FIXED_LOADING = LoaderTiming(5e-3, 1e-4, 9, ())  # a loader time given, so the model's answers do not move


def findings(pt) -> list[str]:
    """What the trace doctor finds in a configuration's step (read as the Kineto file it is written as)."""
    from gpulab.trace import diagnose
    from gpulab.trace.kineto import read

    document = squeeze.single_step_document(list(pt.extra["trace"]), pt.extra["seconds"], "step", "GPU")
    trace = read(io.BytesIO(json.dumps(document).encode()), "<step>", b"{")
    return sorted({finding.key for finding in diagnose(trace, step=1).findings})


def point(params: squeeze.Params, switches: tuple[str, ...], loading: LoaderTiming = FIXED_LOADING):
    config = squeeze.Configuration("+".join(switches) or "baseline", switches, True)
    return squeeze.configuration_point(0, config, params, H100, loading)


def test_each_configurations_parts_add_up_to_its_step_time():
    params = squeeze.Params(shape="small")
    for switches in ((), ("prefetch",), ("fusion",), ("mixed_precision",), ("cuda_graphs",), step.SWITCHES):
        extra = point(params, switches).extra
        assert sum(extra["parts"].values()) == pytest.approx(extra["seconds"], rel=1e-9)
        assert 0 < extra["utilisation"] <= 1


def test_each_switch_lowers_its_own_part():
    params = squeeze.Params(shape="recommender", loader_workers=16)
    base = point(params, ()).extra["parts"]
    assert point(params, ("prefetch",)).extra["parts"]["data_wait"] < base["data_wait"]
    assert point(params, ("mixed_precision",)).extra["parts"]["compute"] < base["compute"]
    assert point(params, ("fusion",)).extra["parts"]["launch_gaps"] < base["launch_gaps"]
    assert point(params, ("cuda_graphs",)).extra["parts"]["launch_gaps"] < base["launch_gaps"]
    assert point(params, ("fusion",)).extra["kernels"] < point(params, ()).extra["kernels"]


def test_uniform_kernels_launched_one_by_one_take_the_launch_models_time():
    costs = costs_for(H100)
    kernel = step.Kernel("k", 2e-6, "forward")
    k = 50
    cost = step.StepCosts((kernel,) * k, 0.0, 0.0, costs, 0.0)
    layout = step._Layout()
    end = step._launch_kernels(layout, cost, 0.0, graphs=False)
    expected = costs.issue_s + (k - 1) * max(costs.issue_s, 2e-6 + costs.gap_s) + 2e-6
    assert end == pytest.approx(expected, rel=1e-9)
    one = launch_time("async", H100, 1, 1)  # the launch model's own formula for one kernel: issue + its run
    assert one.seconds == pytest.approx(costs.issue_s + max(8 / 2971e9, costs.kernel_min_s), rel=0.05)


def test_the_doctor_names_what_each_switch_removes():
    params = squeeze.Params(shape="small", loader_workers=16)
    loading = LoaderTiming(0.5e-3, 1e-5, 9, ())

    def found(*switches: str) -> set[str]:
        return set(findings(point(params, switches, loading)))

    assert {"data_loading", "small_kernels", "memory_bound", "pageable_copies"} <= found()
    assert not {"data_loading", "no_overlap"} & found("prefetch")
    assert "memory_bound" not in found("prefetch", "fusion")
    assert "launch_bound" in found("prefetch", "fusion", "mixed_precision")
    assert "launch_bound" not in found(*step.SWITCHES)


def test_a_run_is_modelled_with_the_loader_measured_and_a_verdict():
    result = drive(squeeze.run(squeeze.Params(shape="small"), Context()))
    assert {s.provenance.kind for s in result.series} == {"modelled"}
    assert result.series[0].provenance.details["loader"] == "measured on this CPU"
    keys = [note.message.key for note in result.notes]
    assert any(key.startswith("squeeze.verdict.") for key in keys)
    assert any(key.startswith("squeeze.why.") for key in keys)
    assert "squeeze.note.claim-unsourced" in keys
    assert [s.key for s in result.series][:2] == ["baseline", "prefetch"]
    assert set(findings(result.series[0].points[0])) - set(findings(result.series[1].points[0]))  # prefetch removes one


def test_a_noisy_loader_flags_every_configuration(monkeypatch):
    noisy = LoaderTiming(1e-3, 5e-4, 5, ("busy",))
    monkeypatch.setattr(squeeze, "time_loading", lambda *args, **kwargs: noisy)
    result = drive(squeeze.run(squeeze.Params(shape="small"), Context()))
    assert all(p.extra.get("noisy") for s in result.series for p in s.points)
    assert result.notes[0].message.key.startswith("squeeze.verdict.")
    assert "squeeze.note.loader-noisy" in [note.message.key for note in result.notes]


def test_the_verdict_follows_the_claims_numbers():
    assert squeeze.Verdict(0.30, 0.86, 0.67).key == "reproduced"
    assert squeeze.Verdict(0.30, 0.40, 0.67).key == "partly"
    assert squeeze.Verdict(0.70, 0.75, 0.10).key == "not"


def test_the_exported_trace_opens_in_the_doctor_a_step_per_configuration(tmp_path):
    from gpulab.trace import diagnose, read_trace

    result = drive(squeeze.run(squeeze.Params(shape="small", loader_workers=16), Context()))
    path = tmp_path / "squeeze.json"
    path.write_text(json.dumps(squeeze.chrome_trace(result)))
    trace = read_trace(path)
    assert [s.number for s in trace.steps()] == list(range(1, len(result.series) + 1))
    for number, series in enumerate(result.series, start=1):
        found = sorted({f.key for f in diagnose(trace, step=number).findings})
        assert found == findings(series.points[0])


def test_gpulab_run_writes_the_trace(tmp_path, capsys):
    from gpulab.cli import main

    path = tmp_path / "t.json"
    assert main(["run", "squeeze", "--quiet", "--set", "shape=small", "--trace", str(path)]) == 0
    assert json.loads(path.read_text())["traceEvents"]
    assert main(["run", "saxpy", "--quiet", "--set", "sizes=1024", "--trace", str(tmp_path / "x.json")]) == 2


QUICK_LOADING = LoaderTiming(1e-3, 1e-5, 9, ())  # about what this project's CI machines measure for the default batch


def ladder(params: squeeze.Params, loading: LoaderTiming = QUICK_LOADING) -> list:
    rungs = [c for c in squeeze.configurations(params.chosen()) if c.ladder]
    return [squeeze.configuration_point(i, c, params, H100, loading) for i, c in enumerate(rungs)]


def test_on_the_default_preset_every_switch_shortens_the_step():
    params = squeeze.Params()
    assert (params.shape, params.loader_workers) == ("medium", 16)
    seconds = [pt.extra["seconds"] for pt in ladder(params)]
    assert len(seconds) == 5
    for before, after in pairwise(seconds):
        assert after < 0.92 * before  # each rung visibly shorter: no two bars alike


def test_the_doctor_per_switch_on_the_default_preset():
    base, prefetch, fusion, _mixed, graphs = (set(findings(pt)) for pt in ladder(squeeze.Params()))
    transfers = {"data_loading", "pageable_copies", "no_overlap", "transfers_on_critical_path"}
    assert transfers <= base
    assert not transfers & prefetch  # prefetch: the loader, the pageable copies and the exposed copy gone
    assert "memory_bound" in prefetch and "memory_bound" not in fusion  # fusion: the element-wise swarm gone
    assert "launch_bound" not in graphs


def test_fusion_cuts_the_small_kernels_and_graphs_remove_launch_bound_on_a_small_model():
    params = squeeze.Params(shape="small", loader_workers=16)
    rungs = ladder(params, LoaderTiming(0.5e-3, 1e-5, 9, ()))
    assert rungs[2].extra["kernels"] < rungs[1].extra["kernels"] / 2
    assert "launch_bound" in findings(rungs[3]) and "launch_bound" not in findings(rungs[4])


def test_the_loss_read_back_is_a_waited_tiny_copy_pinned_with_prefetch():
    params = squeeze.Params(shape="small")
    for switches, memory in (((), "Pageable"), (("prefetch",), "Pinned")):
        events = point(params, switches).extra["trace"]
        readback = [e for e in events if e["name"].startswith("Memcpy DtoH")]
        assert [e["name"] for e in readback] == [f"Memcpy DtoH (Device -> {memory})"]
        copy_end = readback[0]["start_s"] + readback[0]["dur_s"]
        sync = next(e for e in events if e["name"] == "cudaStreamSynchronize")
        assert sync["start_s"] + sync["dur_s"] > copy_end  # the host waits for the copy, pinned or not
    assert "pageable_copies" not in findings(point(params, ("prefetch",)))


def test_the_graphs_note_says_why_they_help_little_when_kernels_are_long():
    def graphs_key(params: squeeze.Params) -> str:
        rungs = ladder(params)
        series = [squeeze._series(squeeze.Configuration(pt.extra["configuration"], tuple(pt.extra["switches"]), True),
                                  pt, Provenance("modelled", "H100")) for pt in rungs]  # fmt: skip
        note = squeeze.graphs_note(series)
        assert note is not None
        return note.key

    assert graphs_key(squeeze.Params(shape="wide")) == "squeeze.note.graphs-little"
    assert graphs_key(squeeze.Params()) == "squeeze.note.graphs-help"


def test_a_modelled_step_written_as_a_trace_is_read_back_as_modelled_never_measured(tmp_path):
    """The trace says in its gpulab field what its times are; a profiler's own file says nothing
    and stays measured."""
    import dataclasses

    from gpulab.trace import read_trace

    result = drive(squeeze.run(squeeze.Params(shape="small", loader_workers=16), Context()))
    modelled = [dataclasses.replace(s, provenance=dataclasses.replace(s.provenance, kind="modelled"))
                for s in result.series]  # as on a machine without a GPU, whatever this one has
    document = squeeze.chrome_trace(dataclasses.replace(result, series=(result.series[0], *modelled[1:])))
    assert document["gpulab"] == {"provenance": "modelled"}
    path = tmp_path / "squeeze.json"
    path.write_text(json.dumps(document))
    assert read_trace(path).provenance == "modelled"
    del document["gpulab"]
    path.write_text(json.dumps(document))
    assert read_trace(path).provenance == "measured"
