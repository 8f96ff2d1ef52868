"""Launch overhead: K numpy calls against one on any CPU, the four GPU ways modelled from measured
costs without a GPU (and checked by hand), measured through CuPy with one (a faked bench here)."""

import numpy as np
import pytest

from gpulab import cuda, experiments, simt
from gpulab.devices import CudaStatus
from gpulab.experiments import Context, ParamError, drive, launch
from gpulab.experiments.launch import gpu as launch_gpu
from gpulab.experiments.launch.gpu import Timing
from gpulab.measure import RepeatPolicy, is_clean
from gpulab.model.launch import (
    AMPERE_COSTS,
    GRAPH_NODE_OVERHEAD_S,
    SYNC_ROUND_TRIP_S,
    VOLTA_COSTS,
    LaunchCosts,
    costs_for,
    launch_time,
    step_seconds,
)
from gpulab.model.roofline import memory_share
from gpulab.specs import load_specs

KS = (1, 10, 100)


def _no_gpu(monkeypatch):
    monkeypatch.setattr(cuda, "cuda_status", lambda: CudaStatus(False, "no GPU in this test", "no-device"))


@pytest.fixture(scope="module")
def result():
    with pytest.MonkeyPatch.context() as patch:
        _no_gpu(patch)
        return drive(launch.run(launch.Params(ks=KS, n=1024, repeats=2), Context()))


def _series(result, key):
    return next(s for s in result.series if s.key == key)


# ------------------------------------------------------------------ end to end on the CPU


def test_without_a_gpu_both_cpu_series_are_measured_and_the_four_gpu_ways_are_modelled(result):
    keys = [s.key for s in result.series]
    assert keys == ["cpu-k-calls", "cpu-one-call", "model-async", "model-sync", "model-graph", "model-fused"]
    for series in result.series:
        assert [p.x for p in series.points] == list(KS), series.key
        assert series.role == ("cpu" if series.key.startswith("cpu") else "model")
        assert series.provenance.kind == ("measured" if series.role == "cpu" else "modelled")
        assert series.y_unit == "µs" and all(p.y > 0 for p in series.points)


def test_every_point_is_microseconds_per_step_and_keeps_its_total_time(result):
    for series in result.series:
        for point in series.points:
            assert point.y == pytest.approx(point.extra["seconds"] / point.x * 1e6, rel=1e-9), series.key


def test_one_numpy_call_costs_less_per_step_than_k_calls_once_k_is_large(result):
    calls, one = _series(result, "cpu-k-calls"), _series(result, "cpu-one-call")
    assert one.points[-1].y < calls.points[-1].y  # K=100: one call against a hundred (not a timed bound)


def test_the_notes_say_why_there_is_no_gpu_what_a_launch_costs_and_where_the_figures_come_from(result):
    text = "\n".join(result.notes)
    assert "no GPU in this test" in text
    assert "What a launch costs on NVIDIA H100" in text and "(modelled)" in text
    cpu = [p for s in result.series if s.key in ("cpu-k-calls", "cpu-one-call") for p in s.points if p.x == 100]
    # A busy machine flags the CPU points: then the CPU's cost is not stated (no claim rests on them).
    assert ("The same on this CPU (measured): at K=100" in text) == all(map(is_clean, cpu))
    assert "Getting Started with CUDA Graphs" in text and "Jia et al." in text and "CSCS" in text
    assert "Each kernel replayed from a CUDA Graph costs the GPU 0.5 µs" in text
    assert "The host spends 2.7 µs on each launch call (measured on a A100 host)" in text
    assert "No launch costs are published for NVIDIA H100" in text  # the H100 borrows the A100's


def test_without_sync_the_waited_series_is_left_out(monkeypatch):
    _no_gpu(monkeypatch)
    result = drive(launch.run(launch.Params(ks=(1, 2), n=8, sync=False, repeats=1), Context()))
    assert "model-sync" not in [s.key for s in result.series]
    assert not any("Waiting for each kernel" in note for note in result.notes)


def test_k_values_are_run_once_each_in_rising_order(monkeypatch):
    _no_gpu(monkeypatch)
    result = drive(launch.run(launch.Params(ks=(10, 1, 10), n=8, repeats=1), Context()))
    assert [p.x for p in _series(result, "model-graph").points] == [1, 10]


@pytest.mark.parametrize(("assignment", "named"), [({"ks": "0"}, "ks"), ({"ks": "10001"}, "ks"), ({"n": "0"}, "n"),
                                                   ({"repeats": "0"}, "repeats")])  # fmt: skip
def test_bad_parameters_name_the_field(assignment, named):
    with pytest.raises(ParamError, match=named):
        experiments.params_from_strings(launch.Params, assignment)


def test_the_presets_run_from_one_to_ten_thousand():
    assert dict(launch.K_PRESETS)["standard"] == (1, 10, 100, 1000, 10000)
    assert max(dict(launch.K_PRESETS)["quick"]) == launch.MAX_K == 10000


# ------------------------------------------------------------------ the model, by hand

SPECS = load_specs()
H100, V100 = SPECS["h100-sxm"], SPECS["v100-sxm2-16gb"]  # 3350 GB/s, 1980 MHz boost; 900 GB/s
ISSUE, SHORTEST, GAP, NODE = 2.7e-6, 0.45e-6, 0.9e-6, 0.5e-6  # the H100 borrows the A100's launch call
WAIT = 9.65e-6 - 2.7e-6 - 0.45e-6  # CSCS's waited empty kernel on an A100, less its launch and run


def test_the_costs_are_the_differences_of_the_published_measurements():
    assert VOLTA_COSTS.issue_s == pytest.approx(1.83e-6)  # CSCS: empty kernels back to back on a V100
    assert VOLTA_COSTS.gap_s == pytest.approx(3.8e-6 - 2.9e-6)  # blog: queued 2.9 µs kernels
    assert GRAPH_NODE_OVERHEAD_S == pytest.approx(3.4e-6 - 2.9e-6)  # blog: the same from a graph
    assert SYNC_ROUND_TRIP_S == pytest.approx(9.6e-6 - 2.9e-6 - 1.83e-6)  # blog: waited, less run and launch
    assert VOLTA_COSTS.kernel_min_s == pytest.approx(2.9e-6 - (9.6e-6 - 7.15e-6))  # CSCS's waited empty kernel
    assert (AMPERE_COSTS.issue_s, AMPERE_COSTS.sync_s) == (pytest.approx(ISSUE), pytest.approx(WAIT))


def test_a_gpu_takes_the_costs_of_its_generation():
    assert costs_for(V100) is VOLTA_COSTS and costs_for(SPECS["t4"]) is VOLTA_COSTS
    assert costs_for(SPECS["a100-sxm4-80gb"]) is AMPERE_COSTS and costs_for(H100) is AMPERE_COSTS


def test_a_tiny_kernel_runs_no_shorter_than_an_empty_one():
    assert step_seconds(H100, 1024) == pytest.approx(SHORTEST)  # its 8 KiB would take 2.4 ns at 3350 GB/s
    big = 1 << 20  # 2.8 µs: its bytes set it, at the achievable rate (a published STREAM share of 3350 GB/s)
    assert step_seconds(H100, big) == pytest.approx(8 * big / (memory_share(H100).share * 3350e9))


@pytest.mark.parametrize(("way", "seconds"), [
    ("async", 100 * ISSUE + SHORTEST),                   # the host's launch calls set the pace
    ("sync", 100 * (ISSUE + SHORTEST + WAIT)),           # launch, run, wait, a hundred times
    ("graph", ISSUE + 100 * (SHORTEST + NODE)),          # one graph launch, a hundred nodes
    ("fused", ISSUE + max(100 * 4 / 1980e6, SHORTEST)),  # one launch; 100 dependent adds of 4 cycles take
                                                         # 0.2 µs, less than any kernel runs
])  # fmt: skip
def test_modelled_k_100_on_an_h100_matches_the_hand_computation(way, seconds):
    estimate = launch_time(way, H100, 100, 1024)
    assert estimate.seconds == pytest.approx(seconds, rel=1e-12)
    assert sum(estimate.breakdown.values()) == pytest.approx(estimate.seconds, rel=1e-12)


def test_the_graph_gains_about_as_much_as_nvidia_measured_on_a_2_9_us_kernel_and_more_on_a_tiny_one():
    n = round(2.9e-6 * 900e9 / 8)  # the elements a V100 moves in 2.9 µs
    queued, graph = (launch_time(way, V100, 20000, n).seconds for way in ("async", "graph"))
    assert queued / graph == pytest.approx(3.8 / 3.4, rel=0.01)  # the blog's 1.12
    tiny = launch_time("async", H100, 10000, 1024).seconds / launch_time("graph", H100, 10000, 1024).seconds
    assert tiny == pytest.approx(ISSUE / (SHORTEST + NODE), rel=0.01)  # launch call over empty kernel and node


def test_the_modelled_points_of_the_run_are_the_models_per_step_times(result):
    graph = _series(result, "model-graph")
    per_kernel = [(ISSUE + k * (SHORTEST + NODE)) / k * 1e6 for k in KS]  # one graph launch spread over K
    assert [p.y for p in graph.points] == pytest.approx(per_kernel)
    assert _series(result, "model-async").points[0].y == pytest.approx((ISSUE + SHORTEST) * 1e6)


def test_a_kernel_longer_than_its_launch_is_memory_bound_and_the_gpu_sets_the_pace():
    n = 1 << 28  # a 1 GiB array: 0.64 ms a step on an H100
    estimate = launch_time("async", H100, 10, n)
    assert estimate.bound == "memory-bound"
    assert estimate.seconds == pytest.approx(ISSUE + 10 * step_seconds(H100, n) + 9 * GAP)
    assert launch_time("async", H100, 10, 1024).bound == "launch-bound"


def test_the_model_refuses_an_unknown_way_an_empty_run_and_a_negative_cost():
    with pytest.raises(ValueError, match="way"):
        launch_time("overlapped", H100, 10, 1024)
    with pytest.raises(ValueError, match="K and n"):
        launch_time("async", H100, 0, 1024)
    with pytest.raises(ValueError, match="issue_s"):
        LaunchCosts(issue_s=-1.0, kernel_min_s=0, gap_s=0, sync_s=0, graph_node_s=0, graph_launch_s=0,
                    measured_on="v100-sxm2-16gb")


# ------------------------------------------------------------------ the kernels


def test_both_kernels_join_the_catalogue_and_the_emulator_matches_numpy():
    for entry in ("tiny_add", "tiny_add_fused"):
        spec = experiments.kernel(entry)
        preset = spec.smallest_preset
        args = spec.build_args(preset)
        expected = spec.expected(args)
        simt.launch(spec.source, spec.entry, preset.grid, preset.block, args)
        assert spec.matches(args, expected), entry


def test_the_fused_kernel_gives_bit_for_bit_what_k_launches_of_the_tiny_kernel_give():
    step, fused = experiments.kernel("tiny_add"), experiments.kernel("tiny_add_fused")
    n, k, c = 40, 6, np.float32(0.1)
    start = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    launched = start.copy()
    for _ in range(k):
        simt.launch(step.source, "tiny_add", (1, 1, 1), (64, 1, 1), [np.int32(n), c, launched])
    folded = start.copy()
    simt.launch(fused.source, "tiny_add_fused", (1, 1, 1), (64, 1, 1), [np.int32(n), np.int32(k), c, folded])
    assert np.array_equal(launched, folded)


# ------------------------------------------------------------------ the GPU path, with a faked bench

PER_KERNEL_S = {"async": 4e-6, "sync": 11e-6, "graph": 1.5e-6, "fused": 0.02e-6}


def _fake_gpu(monkeypatch, fail_at=None):
    made = []

    class FakeBench:
        def __init__(self, device_index, n, step_source, fused_source):
            assert "tiny_add" in step_source and "tiny_add_fused" in fused_source
            made.append((device_index, n))

        def time(self, way, k, policy, check_cancelled):
            if fail_at is not None and k >= fail_at:
                raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access")
            seconds = PER_KERNEL_S[way] * k
            return Timing([seconds] * 3, [seconds * 1.1] * 3, 0.004 if way == "graph" else None)

    status = CudaStatus(True, "ok", "ok", cupy_version="13.6.0", cuda_runtime_version="12.9")
    monkeypatch.setattr(cuda, "cuda_status", lambda: status)
    monkeypatch.setattr(launch_gpu, "LaunchBench", FakeBench)
    return made


def test_with_a_gpu_the_four_ways_are_measured_with_events_and_the_wall_clock(monkeypatch):
    made = _fake_gpu(monkeypatch)
    result = drive(launch.run(launch.Params(ks=(1, 100), n=256, repeats=3), Context()))
    assert made == [(0, 256)]  # one bench for the whole run
    keys = [s.key for s in result.series]
    assert keys == ["cpu-k-calls", "cpu-one-call", "gpu-async", "gpu-sync", "gpu-graph", "gpu-fused"]
    plain = _series(result, "gpu-async")
    assert plain.role == "gpu" and plain.provenance.kind == "measured"
    point = plain.points[-1]
    assert point.y == pytest.approx(4.0)  # events, per kernel
    assert point.extra["us_per_kernel_wall"] == pytest.approx(4.4)
    assert point.extra["wall_over_events"] == pytest.approx(1.1)
    assert _series(result, "gpu-graph").points[-1].extra["graph_build_seconds"] == 0.004
    text = "\n".join(result.notes)
    assert "4 µs per kernel from CUDA events, 4.4 µs from the wall clock (10% apart)" in text
    assert "Capturing and instantiating the graph of K=100 kernels took 4 ms" in text
    assert "1.5 µs each, against 4 µs as plain launches" in text
    assert "Getting Started" not in text  # nothing modelled: no sources to cite


def test_a_gpu_error_mid_sweep_keeps_the_points_so_far_and_says_what_happened(monkeypatch):
    _fake_gpu(monkeypatch, fail_at=10)
    result = drive(launch.run(launch.Params(ks=(1, 10, 100), n=64, repeats=1), Context()))
    assert [p.x for p in _series(result, "gpu-async").points] == [1]
    assert [p.x for p in _series(result, "cpu-k-calls").points] == [1, 10, 100]  # the CPU goes on
    assert any("The GPU stopped at K=10" in note and "cudaErrorIllegalAddress" in note for note in result.notes)


# ------------------------------------------------------------------ on a real GPU

ONE_SAMPLE = RepeatPolicy(repeats=1, min_seconds=0.0, max_samples=1)  # one warm-up run and one timed run


@pytest.mark.gpu
@pytest.mark.parametrize("way", ["async", "sync", "fused", "graph"])
def test_on_a_gpu_each_way_adds_the_same_k_steps_to_the_array(way):
    bench = launch_gpu.LaunchBench(0, 1000, launch.TINY_ADD.source, launch.TINY_ADD_FUSED.source)
    timing = bench.time(way, 50, ONE_SAMPLE, lambda: None)
    runs = 2 * 50 + (1 if way == "graph" else 0)  # warm-up + sample; a graph's kernel also runs once before capture
    assert np.array_equal(bench.values(), np.full(1000, runs, np.float32))
    assert len(timing.events_seconds) == len(timing.wall_seconds) == 1
    assert (timing.build_seconds is not None) == (way == "graph")


@pytest.mark.gpu
def test_on_a_gpu_a_capture_executes_nothing_until_the_graph_is_launched():
    bench = launch_gpu.LaunchBench(0, 64, launch.TINY_ADD.source, launch.TINY_ADD_FUSED.source)
    with bench.device, bench.stream:
        bench.launch_step()  # loads the module before capturing
        bench.reset()
        graph = bench.capture(5)
        assert not np.any(bench.values())
        graph.launch(bench.stream)
    assert np.array_equal(bench.values(), np.full(64, 5, np.float32))


@pytest.mark.gpu
def test_on_a_gpu_the_run_measures_every_way_and_records_events_and_wall_clock():
    result = drive(launch.run(launch.Params(ks=(1, 100), n=256, repeats=3), Context()))
    for way in ("async", "sync", "graph", "fused"):
        series = _series(result, f"gpu-{way}")
        assert series.provenance.kind == "measured" and len(series.points) == 2
        assert all(p.extra["events_seconds"] > 0 and p.extra["wall_seconds"] > 0 for p in series.points)
    assert any("from CUDA events" in note for note in result.notes)
