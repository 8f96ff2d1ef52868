import threading

import numpy as np
import pytest

from gpulab.cuda import cuda_status
from gpulab.experiments import Cancelled, Context, ExperimentError, PartialPoint, drive, matmul
from gpulab.measure import RepeatPolicy, crossover
from gpulab.results import Point, Provenance, Result, Series

TINY = matmul.Params(sizes=(16, 32), repeats=2)


@pytest.fixture(scope="module")
def tiny_result() -> Result:
    return drive(matmul.run(TINY, Context()))


def cpu_all(result: Result) -> Series:
    return next(s for s in result.series if s.name.startswith("CPU numpy (all"))


def test_cpu_series_are_measured_at_every_size_in_gflops(tiny_result):
    for series in (cpu_all(tiny_result), tiny_result.get_series(matmul.CPU_ONE_THREAD)):
        assert series.provenance.kind == "measured"
        assert series.y_unit == "GFLOP/s"
        assert [p.x for p in series.points] == [16, 32]
        assert all(p.y > 0 and p.extra["seconds"] > 0 and p.extra["repeats"] >= 2 for p in series.points)


def test_single_thread_series_records_one_thread_and_the_other_the_blas_count(tiny_result):
    from gpulab.devices import blas_info

    one = tiny_result.get_series(matmul.CPU_ONE_THREAD)
    assert {p.extra["threads"] for p in one.points} == {1}
    threads = blas_info()[0].threads
    assert cpu_all(tiny_result).name == matmul.cpu_all_threads_name(threads)
    assert cpu_all(tiny_result).provenance.details["blas_threads"] == threads


def test_gflops_is_two_n_cubed_over_the_median_time(tiny_result):
    point = cpu_all(tiny_result).points[-1]
    assert point.y == pytest.approx(2 * 32**3 / point.extra["seconds"] / 1e9, rel=0.25)


@pytest.mark.skipif(cuda_status().available, reason="checks the no-GPU case")
def test_without_a_gpu_the_gpu_series_is_modelled_and_the_notes_say_why(tiny_result):
    from gpulab.specs import load_specs

    spec = load_specs().get("h100-sxm")
    model = tiny_result.get_series(matmul.model_series_name(spec.name))
    assert model is not None and model.provenance.kind == "modelled"
    assert model.provenance.device == spec.name
    assert "2·N³" in model.provenance.details["formula"] and model.provenance.details["assumptions"]
    assert tiny_result.get_series(matmul.GPU_CUBLAS) is None
    assert any(cuda_status().reason in note for note in tiny_result.notes)
    assert any("Peak fp32 rate" in note for note in tiny_result.notes)
    assert all(p.spread is None and p.extra["repeats"] == 0 for p in model.points)


def test_modelled_points_are_two_n_cubed_over_the_model_time(tiny_result):
    from gpulab.model import matmul_estimate
    from gpulab.specs import load_specs

    spec = load_specs().get("h100-sxm")
    point = tiny_result.get_series(matmul.model_series_name(spec.name)).points[0]
    seconds = matmul_estimate(spec, 16, "fp32").seconds
    assert point.extra["seconds"] == pytest.approx(seconds)
    assert point.y == pytest.approx(2 * 16**3 / seconds / 1e9)


def test_the_modelled_gpu_runs_at_an_achievable_share_of_its_peak_and_a_small_matrix_fills_few_sms():
    from gpulab.specs import load_specs

    spec = load_specs().get("v100-sxm2-16gb")
    sizes = (64, 2048, 8192)
    rates = {n: 2 * n**3 / matmul.model_estimate(spec, n, "fp32").seconds / 1e12 for n in sizes}
    peak = spec.peak_tflops["fp32"]
    assert rates[8192] == pytest.approx(peak * spec.gemm_efficiency["fp32"], rel=0.01)  # not the peak
    assert rates[64] < 0.05 * rates[8192] < rates[2048]  # one 64x64 tile for 80 SMs, and the launch
    result = drive(matmul.run(matmul.Params(sizes=(64, 128), repeats=1, cpu_single_thread=False,
                                            model_gpu="v100-sxm2-16gb"), Context()))  # fmt: skip
    notes = " ".join(result.notes)
    assert "A large fp32 GEMM reaches 92% of that peak on the Tesla V100 SXM2 16 GB" in notes
    assert "A thread block computes a 64×64 tile of C" in notes
    assert "Crossover: Tesla V100 SXM2 16 GB (modelled)" in notes  # the note says the GPU is modelled


def test_notes_name_a_crossover_for_each_gpu_series(tiny_result):
    assert any(note.startswith("Crossover:") for note in tiny_result.notes)


def test_including_transfers_makes_the_modelled_gpu_slower_and_shows_the_copies():
    params = matmul.Params(sizes=(512,), repeats=1, cpu_single_thread=False, include_transfers=True)
    with_copies = drive(matmul.run(params, Context()))
    without = drive(matmul.run(matmul.Params(sizes=(512,), repeats=1, cpu_single_thread=False), Context()))
    name = next(s.name for s in with_copies.series if s.provenance.kind == "modelled")
    slow, fast = with_copies.get_series(name).points[0], without.get_series(name).points[0]
    assert slow.extra["seconds"] > fast.extra["seconds"]
    assert slow.extra["h2d_seconds"] > 0 and slow.extra["d2h_seconds"] > 0
    assert any("copying A and B" in note for note in with_copies.notes)


def test_fp16_has_no_cpu_series_and_says_why():
    result = drive(matmul.run(matmul.Params(sizes=(16,), repeats=1, dtype="fp16"), Context()))
    assert not any(s.name.startswith("CPU") for s in result.series)
    assert any("half-precision BLAS" in note for note in result.notes)


def test_model_gpu_accepts_a_device_name_and_rejects_an_unknown_one():
    assert matmul.resolve_model_gpu("NVIDIA H100 80GB HBM3").key == "h100-sxm"
    with pytest.raises(ExperimentError, match="h100-sxm"):
        drive(matmul.run(matmul.Params(sizes=(16,), model_gpu="warp-core-9000"), Context()))


def test_sizes_above_the_limit_are_refused():
    with pytest.raises(ValueError, match="8192"):
        matmul.Params(sizes=(16384,))


def test_cancelling_after_the_first_point_stops_the_sweep():
    cancel, seen = threading.Event(), []

    def on_event(event):
        if isinstance(event, PartialPoint):
            seen.append(event)
            cancel.set()

    with pytest.raises(Cancelled):
        drive(matmul.run(matmul.Params(sizes=(16, 32, 64)), Context(cancel)), on_event, cancel)
    assert len(seen) == 1


def test_repeat_policy_takes_at_least_the_repeats_and_stops_at_the_time_cap():
    policy = RepeatPolicy(repeats=3, min_seconds=0.0, max_seconds=1.0)
    assert policy.wants_more(2, 0.5) and not policy.wants_more(3, 0.5)
    assert not policy.wants_more(1, 1.5)
    assert policy.wants_more(0, 99.0)


# ----------------------------------------------------------------- crossover


def made_up(name: str, kind: str, seconds_by_n: dict[int, float]) -> Series:
    points = tuple(Point(n, 2 * n**3 / s / 1e9, None, {"seconds": s}) for n, s in seconds_by_n.items())
    return Series(name, Provenance(kind, "x"), "N", "", "throughput", "GFLOP/s", points)


def result_of(*series: Series) -> Result:
    return Result("matmul", {}, series, host={})


def test_crossover_is_the_first_size_from_which_the_gpu_always_wins():
    cpu = made_up("cpu", "measured", {64: 1e-5, 256: 1e-3, 1024: 0.05, 4096: 3.0})
    gpu = made_up("gpu", "modelled", {64: 1e-4, 256: 2e-3, 1024: 0.01, 4096: 0.1})
    assert crossover(result_of(cpu, gpu), "gpu", "cpu") == 1024


def test_crossover_ignores_an_early_win_that_is_lost_again():
    cpu = made_up("cpu", "measured", {64: 1e-4, 256: 1e-3, 1024: 0.05, 4096: 3.0})
    gpu = made_up("gpu", "measured", {64: 1e-5, 256: 2e-3, 1024: 0.01, 4096: 0.1})
    assert crossover(result_of(cpu, gpu), "gpu", "cpu") == 1024


def test_crossover_is_none_when_the_gpu_never_wins_or_a_series_is_missing():
    cpu = made_up("cpu", "measured", {64: 1e-5, 256: 1e-3})
    gpu = made_up("gpu", "measured", {64: 1e-4, 256: 2e-3})
    assert crossover(result_of(cpu, gpu), "gpu", "cpu") is None
    assert crossover(result_of(cpu), "gpu", "cpu") is None


@pytest.mark.gpu
def test_cublas_series_is_within_ten_percent_of_cupy_benchmark():
    import cupy
    from cupyx.profiler import benchmark

    n = 4096
    result = drive(matmul.run(matmul.Params(sizes=(n,), gpu_kernels=False, cpu_single_thread=False), Context()))
    ours = result.get_series(matmul.GPU_CUBLAS).points[0].extra["seconds"]
    a = cupy.random.standard_normal((n, n), dtype=cupy.float32)
    b = cupy.random.standard_normal((n, n), dtype=cupy.float32)
    c = cupy.empty_like(a)
    perf = benchmark(cupy.matmul, (a, b), {"out": c}, n_repeat=50, n_warmup=5, max_duration=5.0)
    reference = float(np.median(perf.gpu_times[0]))  # gpu_times: (devices, n_repeat) numpy array, seconds
    assert ours == pytest.approx(reference, rel=0.10)


@pytest.mark.gpu
def test_on_a_gpu_every_gpu_series_is_measured_with_events():
    result = drive(matmul.run(matmul.Params(sizes=(256,), repeats=3, include_transfers=True), Context()))
    for name in (matmul.GPU_CUBLAS, matmul.GPU_NAIVE, matmul.GPU_TILED):
        series = result.get_series(name)
        assert series.provenance.kind == "measured"
        point = series.points[0]
        assert point.extra["kernel_seconds"] > 0 and point.extra["h2d_seconds"] > 0


def test_without_copies_the_notes_still_say_where_the_modelled_gpu_would_win_with_them(tiny_result):
    from gpulab.measure import is_clean

    said = any(note.startswith("With the PCIe copies counted") for note in tiny_result.notes)
    cpu_clean = any(is_clean(p) for s in tiny_result.series if s.role == "cpu" for p in s.points)
    # Under load every CPU point may be flagged: then no claim is made, and the headline says why.
    assert said or (not cpu_clean and "measured under load or look implausible" in tiny_result.notes[0])


def test_what_if_copied_note_compares_copied_times_with_the_best_cpu_series():
    from gpulab.measure import what_if_copied_note

    cpu = made_up("cpu", "measured", {64: 1e-5, 1024: 0.05, 4096: 3.0})
    result = result_of(cpu)
    late = what_if_copied_note(result, ["cpu"], "Toy GPU", {64: 1e-3, 1024: 0.01, 4096: 0.5})
    assert late == "With the PCIe copies counted, Toy GPU (modelled) would beat cpu only from N=1024 up."
    never = what_if_copied_note(result, ["cpu"], "Toy GPU", {64: 1.0, 1024: 1.0, 4096: 9.0})
    assert never is not None and "would not beat" in never
