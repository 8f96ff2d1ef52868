import json
import subprocess
import sys
import threading

import pytest

from gpulab import cuda
from gpulab.experiments import Cancelled, Context, PartialPoint, drive, get
from gpulab.experiments.divergence import Params, run
from gpulab.lab.emulated import EMULATOR_DEVICE, GPU_TIME_SERIES

SMALL = Params(n=256, block=128, kways=(2, 4, 8), max_rounds=8, gpu_n=1 << 16, repeats=3)
BRANCH = "branch efficiency (emulated)"
WARP = "warp execution efficiency (emulated)"


@pytest.fixture(scope="module")
def result():
    return drive(run(SMALL, Context()))


def by_variant(result, series_name):
    return {p.extra["variant"]: p.y for p in result.get_series(series_name).points}


def test_divergence_is_registered_and_its_series_are_emulated_with_their_kernels_named(result):
    assert get("divergence").run is run
    emulated = [s for s in result.series if s.provenance.kind == "emulated"]
    assert {BRANCH, WARP} <= {s.name for s in emulated}
    for s in emulated:
        assert s.provenance.device == EMULATOR_DEVICE
        assert any("divergence_even_odd<<<2, 128>>>" in k for k in s.provenance.details["kernels"])
        assert [p.x for p in s.points] == list(range(7))
        assert "0 = even/odd" in s.x_label


def test_even_odd_lanes_diverge_while_a_warp_aligned_branch_does_not(result):
    branch, warp = by_variant(result, BRANCH), by_variant(result, WARP)
    assert branch["even/odd"] < 100
    assert warp["even/odd"] < 100
    assert branch["warp-aligned"] == 100
    assert warp["warp-aligned"] == 100


def test_more_paths_leave_more_lanes_idle(result):
    warp = by_variant(result, WARP)
    assert warp["k-way k=2"] > warp["k-way k=4"] > warp["k-way k=8"]


def test_a_loop_costs_its_warp_the_slowest_lanes_rounds_while_uniform_trip_counts_keep_every_lane_busy(result):
    warp, instructions = by_variant(result, WARP), by_variant(result, "instructions executed (emulated)")
    assert warp["data-dependent loop"] < 75
    assert warp["uniform loop"] == 100
    assert instructions["data-dependent loop"] > instructions["uniform loop"]


def test_every_point_names_its_variant_and_launch_and_matched_its_reference(result):
    for point in result.get_series(BRANCH).points:
        assert {"variant", "kernel", "grid", "block"} <= set(point.extra)
        assert point.extra["matches_reference"] is True
    assert "Every emulated output matched the kernel's numpy reference." in result.notes


@pytest.mark.skipif(cuda.gpu_available(), reason="this machine has a GPU")
def test_without_a_gpu_there_is_no_measured_series_and_a_note_says_why(result):
    assert result.get_series(GPU_TIME_SERIES) is None
    assert all(s.provenance.kind != "measured" for s in result.series)
    assert any(n.startswith("No measured GPU series:") and cuda.cuda_status().reason in n for n in result.notes)


@pytest.mark.gpu
def test_with_a_gpu_kernel_times_are_measured_and_outputs_match_the_emulator(result):
    times = result.get_series(GPU_TIME_SERIES)
    assert times.provenance.kind == "measured"
    assert len(times.points) == 7
    assert all(p.y > 0 and p.extra["matches_emulator"] for p in times.points)
    assert any("GPU outputs matched the emulator's" in n for n in result.notes)


def test_cancelling_stops_the_run_between_variants():
    cancel, seen = threading.Event(), []

    def on_event(event):
        if isinstance(event, PartialPoint):
            seen.append(event.point.extra["variant"])
            cancel.set()

    with pytest.raises(Cancelled):
        drive(run(SMALL, Context(cancel)), on_event, cancel)
    assert seen == ["even/odd"]


def test_a_launch_already_cancelled_stops_inside_the_emulator():
    from gpulab.experiments.divergence import variants
    from gpulab.lab.emulated import emulate

    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        emulate(variants(SMALL)[0], SMALL.n, cancel)


@pytest.mark.parametrize("bad", [{"kways": (9,)}, {"n": 100}, {"block": 96}, {"repeats": 0}])
def test_parameters_outside_the_lab_are_refused(bad):
    with pytest.raises(ValueError):
        Params(**bad)


def test_gpulab_run_divergence_writes_an_emulated_result_as_json():
    proc = subprocess.run(
        [sys.executable, "-m", "gpulab.cli", "run", "divergence", "--json", "-", "--quiet",
         "--set", "n=128", "--set", "kways=2,3"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["experiment"] == "divergence"
    kinds = {s["name"]: s["provenance"]["kind"] for s in doc["series"]}
    assert kinds[BRANCH] == "emulated"
    assert [p["extra"]["variant"] for p in doc["series"][0]["points"]][:2] == ["even/odd", "warp-aligned"]


def test_a_gpu_whose_outputs_differ_from_the_emulator_is_named_in_the_notes(monkeypatch):
    from dataclasses import replace

    from gpulab.lab import emulated

    status = replace(cuda.cuda_status(), available=True, reason="")
    monkeypatch.setattr(cuda, "cuda_status", lambda: status)
    monkeypatch.setattr(emulated, "gpu_matches_emulator", lambda run, device: run.variant.name != "even/odd")
    monkeypatch.setattr(emulated, "time_on_gpu", lambda variant, n, repeats, device: ([2e-6] * repeats,
                                                                                    variant.preset(n)))
    result = drive(run(replace(SMALL, kways=(2,)), Context()))
    times = result.get_series(GPU_TIME_SERIES)
    assert times.provenance.kind == "measured"
    assert [p.extra["matches_emulator"] for p in times.points] == [False, True, True, True, True]
    assert times.points[0].y == pytest.approx(0.002)
    assert times.points[0].extra["grid"] == [SMALL.gpu_n // SMALL.block, 1, 1]
    assert any("did NOT match the emulator's for: even/odd" in n for n in result.notes)
