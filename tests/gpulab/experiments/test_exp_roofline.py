"""Roofline: every kernel counted by the emulator, scaled by its complexity, placed under its roof."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpulab import cuda, kernels
from gpulab.cuda import cuda_status
from gpulab.devices import CudaStatus
from gpulab.experiments import Context, ExperimentError, drive, kernel, kernel_catalogue, roofline
from gpulab.experiments.roofline import gpu as roofline_gpu
from gpulab.lab.cpu_peaks import CpuPeaks
from gpulab.lab.kernel_work import (
    Complexity,
    complexity_of,
    count_work,
    emulate_counts,
    scaled_preset,
)
from gpulab.model import memory_share
from gpulab.results import Result
from gpulab.specs import load_specs

N = 1 << 20  # a 1-D teaching size for hand counts
SIDE = 1024  # an N x N one


def _work(entry: str):
    return count_work(kernel(entry))


# ------------------------------------------------------------- hand counts


@pytest.mark.parametrize(("entry", "flops_per_element", "bytes_per_element"), [
    ("vector_add", 1, 12), ("saxpy", 2, 12), ("load_coalesced", 0, 8), ("load_strided", 0, 8),
    ("divergence_even_odd", 0, 8), ("loop_data_dependent", 0, 12),
])  # fmt: skip
def test_one_dimensional_kernels_match_their_hand_counts(entry, flops_per_element, bytes_per_element):
    work = _work(entry)
    assert work.flops(N) == pytest.approx(flops_per_element * N)
    assert work.bytes(N) == pytest.approx(bytes_per_element * N)


@pytest.mark.parametrize("entry", ["matmul_naive", "matmul_tiled"])
def test_matmul_is_two_n_cubed_flop_and_reads_two_writes_one_matrix(entry):
    work = _work(entry)
    assert work.flops(SIDE) == pytest.approx(2 * SIDE**3)
    assert work.bytes(SIDE) == pytest.approx(12 * SIDE**2)


def test_without_a_cache_naive_matmul_fetches_about_eight_times_what_tiled_does():
    naive, tiled = _work("matmul_naive"), _work("matmul_tiled")
    # a warp is 2 rows x 16 columns: per k, 2 sectors of A and 2 of B for its 32 lanes; C: 4 sectors
    assert naive.bytes(SIDE, "sectors") == pytest.approx(4 * SIDE**3 + 4 * SIDE**2)
    assert naive.bytes(SIDE, "sectors") / tiled.bytes(SIDE, "sectors") == pytest.approx(8, rel=0.05)


def test_strided_loads_fetch_whole_sectors_for_one_float_in_four():
    work = _work("load_strided")  # stride 4: each 32-byte sector serves 2 of its 8 floats
    assert work.bytes(N, "sectors") == pytest.approx((16 + 4) * N)


def test_a_reduction_reads_every_element_and_writes_one_sum_per_block():
    work = _work("reduce_sequential")
    assert work.bytes(N) == pytest.approx(4 * N + 4 * N / 256)


def test_the_transposes_read_and_write_each_element_once():
    assert _work("transpose_shared_padded").bytes(SIDE) == pytest.approx(8 * SIDE**2)


# ------------------------------------------------------------- complexity and scaling


STATED = sorted(entry for entry, spec in kernel_catalogue().items() if spec.complexity is not None)


def test_every_base_catalogue_kernel_states_its_complexity():
    assert [entry for entry, spec in kernels.catalogue().items() if spec.complexity is None] == []
    assert set(kernels.catalogue()) < set(STATED)  # and a lab's own kernel can state one too (saxpy)


@pytest.mark.parametrize("entry", STATED)
def test_the_stated_complexity_predicts_a_third_emulated_size(entry):
    spec = kernel(entry)
    work = count_work(spec)
    assert work.check_error is None or work.check_error < (0.05 if entry == "load_gather" else 1e-9)
    first = work.counted_sizes[0]
    n = first * 3 // 2 if work.complexity.square else 4 * first  # square kernels: a side the tiles still divide
    counted = emulate_counts(spec, scaled_preset(work.base, n, work.complexity.square))
    tolerance = 0.05 if entry == "load_gather" else 1e-9  # random indices: linear only on average
    assert work.flops(n) == pytest.approx(counted.flops, rel=tolerance)
    assert work.bytes(n) == pytest.approx(counted.unique_bytes, rel=tolerance)
    assert work.bytes(n, "sectors") == pytest.approx(counted.sector_bytes, rel=tolerance)


def test_a_kernel_without_a_stated_complexity_is_assumed_linear_and_flagged():
    spec = dataclasses.replace(kernel("vector_add"), entry="mystery", complexity=None)
    guess = complexity_of(spec)
    assert guess == Complexity(stated=False)


def test_a_gpu_only_kernel_cannot_be_counted():
    spec = dataclasses.replace(kernel("vector_add"), gpu_only=True)
    with pytest.raises(kernels.CatalogueError, match="GPU-only"):
        count_work(spec)


def test_a_scaled_preset_keeps_the_block_and_extra_sizes_and_covers_n():
    base = kernel("load_strided").preset("small")
    preset = scaled_preset(base, 10_000, square=False)
    assert preset.block == base.block and preset.sizes == {**base.sizes, "n": 10_000}
    assert preset.threads >= 10_000 > preset.threads - base.block[0]
    square = scaled_preset(kernel("matmul_tiled").preset("small"), 100, square=True)
    assert square.grid == (7, 7, 1) and square.block == (16, 16, 1)


# ------------------------------------------------------------- the experiment


@pytest.fixture(scope="module")
def result() -> Result:
    return drive(roofline.run(roofline.Params(measure_cpu=False, measure_gpu=False), Context()))


def _points(result: Result, key: str = "kernels-model") -> dict:
    series = result.get_series(key)
    assert series is not None
    return {p.extra["entry"]: p for p in series.points}


def test_every_catalogue_kernel_gets_one_modelled_point(result):
    points = _points(result)
    assert set(points) == set(kernel_catalogue())
    assert result.get_series("kernels-model").provenance.kind == "modelled"


def test_points_carry_intensity_attained_rate_bound_and_distance_below_the_roof(result):
    spec = load_specs().get("h100-sxm")
    vector_add = _points(result)["vector_add"]
    assert vector_add.x == pytest.approx(1 / 12)
    assert vector_add.extra["bound"] == "memory-bound"
    assert vector_add.extra["roof_gflop_s"] == pytest.approx(spec.memory_bandwidth_gb_s / 12)
    # Modelled: the roof is the spec sheet's, the bytes move at the achievable share of it, plus a launch.
    assert 75 < vector_add.extra["percent_of_roof"] < 100 * memory_share(spec).share
    assert vector_add.y == pytest.approx(vector_add.extra["roof_gflop_s"] * vector_add.extra["percent_of_roof"] / 100)
    assert vector_add.extra["preset"] == kernel("vector_add").smallest_preset.name
    matmul = _points(result)["matmul_tiled"]  # by default placed with no reuse: memory-bound
    assert matmul.extra["bound"] == "memory-bound" and matmul.x == pytest.approx(4, rel=0.01)


def test_the_note_says_the_roof_is_the_spec_sheet_and_the_points_move_bytes_at_the_achievable_rate(result):
    spec, share = load_specs().get("h100-sxm"), memory_share(load_specs().get("h100-sxm"))
    note = next(n for n in result.notes if n.startswith("The roof is the spec sheet's"))
    assert f"({spec.memory_bandwidth_gb_s:g} GB/s)" in note and f"achievable {share.gb_s:.0f} GB/s" in note
    assert share.percent in note and share.share < 1


def test_kernels_without_flops_sit_at_zero_and_are_named_in_a_note(result):
    reduce = _points(result)["reduce_shuffle"]
    assert (reduce.x, reduce.y) == (0, 0) and reduce.extra["bound"] == "memory-bound"
    assert reduce.extra["attained_gb_s"] > 0
    assert any("reduce_shuffle" in note and "floating-point" in note for note in result.notes)


def test_the_gpu_roof_is_drawn_from_the_spec_sheet_with_its_ridge(result):
    spec = load_specs().get("h100-sxm")
    roof = result.get_series("gpu-roof")
    assert roof.provenance.kind == "modelled"
    ridge = next(p for p in roof.points if p.extra["part"] == "ridge")
    assert ridge.x == pytest.approx(spec.peak_tflops["fp32"] * 1e3 / spec.memory_bandwidth_gb_s)
    assert ridge.y == pytest.approx(spec.peak_tflops["fp32"] * 1e3)
    assert roof.points[0].x < min(p.x for p in _points(result).values() if p.x > 0)
    assert result.get_series("cpu-roof") is None


def test_each_matmul_has_a_no_reuse_point_with_its_verdict_joined_to_an_ideal_reuse_bound(result):
    spec = load_specs().get("h100-sxm")
    points, ideal = _points(result), _points(result, "kernels-model-other")
    assert set(ideal) == {"matmul_naive", "matmul_tiled", "stencil_1d"}  # only kernels whose two counts differ
    assert result.get_series("kernels-model-other").provenance.kind == "modelled"
    # The stencil reads each input 5 times: 10 FLOP per 8 unique bytes with perfect reuse, still under the slope.
    stencil = ideal["stencil_1d"]
    assert stencil.extra["bound"] == "memory-bound" and stencil.x == pytest.approx(10 / 8, rel=1e-3)
    for entry in ("matmul_naive", "matmul_tiled"):
        assert points[entry].extra["bound"] == "memory-bound"  # the verdict: no reuse
        assert ideal[entry].extra["bound"] == "compute-bound" and ideal[entry].x == pytest.approx(4096 / 6)
        assert ideal[entry].extra["pair_of"] == entry and ideal[entry].extra["traffic"] == "unique"
        assert points[entry].extra["other_intensity"] == pytest.approx(ideal[entry].x)
        assert points[entry].extra["other_bound"] == "compute-bound"
    # Tiling moves the no-reuse point 8x right; the naive kernel's verdict is its intensity times the
    # achievable bandwidth (a few percent of the peak), its launch lost in a long kernel.
    assert points["matmul_tiled"].x / points["matmul_naive"].x == pytest.approx(8, rel=0.05)
    naive = points["matmul_naive"]
    assert naive.y == pytest.approx(naive.x * memory_share(spec).gb_s, rel=0.01)
    assert naive.y / (spec.peak_tflops["fp32"] * 1e3) < 0.05


def test_published_sgemm_measurements_are_named_with_their_share_of_the_peak(result):
    naive = _points(result)["matmul_naive"].extra["published"]
    assert [(item["gpu"], item["gflop_s"]) for item in naive] == [("NVIDIA RTX A6000", 1986.5)]
    assert naive[0]["percent_of_peak"] == pytest.approx(100 * 1986.5 / 38700)
    assert "Boehm" in naive[0]["source"]
    note = next(n for n in result.notes if n.startswith("Published measurements of kernels like these"))
    assert "a kernel like matmul_naive reached 1986 GFLOP/s, 5.1% of the NVIDIA RTX A6000's fp32 peak" in note
    assert _points(result)["vector_add"].extra["published"] == []


def test_the_validation_rows_price_a_kernel_as_the_lab_places_it():
    params = roofline.Params(measure_cpu=False, measure_gpu=False, elements=1 << 20, model_gpu="rtx-a6000")
    points = _points(drive(roofline.run(params, Context())))
    rate = roofline.modelled_gflop_s("matmul_naive", "rtx-a6000", 1 << 20, "sectors")
    assert rate == pytest.approx(points["matmul_naive"].y)


def test_a_bound_row_prices_the_roof_above_the_point_and_the_point_sits_under_it():
    from gpulab.validation.memory import roofline_kernel_gflops

    params = roofline.Params(measure_cpu=False, measure_gpu=False, elements=1 << 20, model_gpu="rtx-a6000")
    point = _points(drive(roofline.run(params, Context())))["matmul_tiled"]
    config = {"kernel": "matmul_tiled", "gpu": "rtx-a6000", "elements": 1 << 20, "traffic": "sectors"}
    assert roofline_kernel_gflops({**config, "at": "roof"}) == pytest.approx(point.extra["roof_gflop_s"])
    assert roofline_kernel_gflops(config) == pytest.approx(point.y)
    assert point.y < point.extra["roof_gflop_s"]
    with pytest.raises(ValueError, match="at must be 'point' or 'roof'"):
        roofline_kernel_gflops({**config, "at": "ceiling"})


def test_with_ideal_reuse_chosen_the_hollow_points_are_the_no_reuse_ones():
    params = roofline.Params(measure_cpu=False, measure_gpu=False, traffic="unique", elements=1 << 20)
    result = drive(roofline.run(params, Context()))
    points, other = _points(result), _points(result, "kernels-model-other")
    assert points["matmul_naive"].extra["bound"] == "compute-bound"
    assert other["matmul_naive"].extra["traffic"] == "sectors" and other["matmul_naive"].x == pytest.approx(0.5, 0.01)
    assert result.get_series("kernels-model-other").name == "No reuse (model)"
    assert any(note.startswith("A kernel whose two counts differ") and "ideal reuse (its verdict here" in note
               for note in result.notes)  # fmt: skip


def test_sector_traffic_moves_naive_matmul_left_of_the_ridge():
    params = roofline.Params(measure_cpu=False, measure_gpu=False, traffic="sectors", elements=1 << 20)
    points = _points(drive(roofline.run(params, Context())))
    assert points["matmul_naive"].extra["bound"] == "memory-bound"
    assert points["matmul_naive"].x == pytest.approx(0.5, rel=0.01)
    assert points["matmul_tiled"].x == pytest.approx(4, rel=0.01)


def test_the_cpu_roof_is_the_measured_peaks_with_provenance_measured(monkeypatch):
    peaks = CpuPeaks(gflop_s=100.0, gb_s=20.0, gemm_n=1024, triad_elements=1 << 23, triad_method="numexpr")
    monkeypatch.setattr(roofline, "measure_cpu_peaks", lambda *_args, **_kw: peaks)
    result = drive(roofline.run(roofline.Params(measure_gpu=False), Context()))
    cpu = result.get_series("cpu-roof")
    assert cpu.role == "cpu" and cpu.provenance.kind == "measured"
    ridge = next(p for p in cpu.points if p.extra["part"] == "ridge")
    assert (ridge.x, ridge.y) == (pytest.approx(5.0), pytest.approx(100.0))
    assert cpu.points[0].y == pytest.approx(cpu.points[0].x * 20.0)
    assert any("100 GFLOP/s" in note for note in result.notes)


@pytest.mark.parametrize(("method", "says"), [("compiled", None), ("numexpr", "ran through numexpr"),
                                             ("numpy", "two numpy passes")])  # fmt: skip
def test_a_cpu_memory_roof_taken_without_the_compiled_loop_says_it_may_be_low(monkeypatch, method, says):
    peaks = CpuPeaks(gflop_s=100.0, gb_s=20.0, gemm_n=1024, triad_elements=1 << 23, triad_method=method)
    monkeypatch.setattr(roofline, "measure_cpu_peaks", lambda *_args, **_kw: peaks)
    notes = " ".join(drive(roofline.run(roofline.Params(measure_gpu=False), Context())).notes)
    assert (says is None and "drawn low" not in notes) or (says in notes and "drawn low" in notes)


def test_the_cpu_triad_peak_runs_the_compiled_loop_and_computes_the_triad():
    from gpulab import compiled
    from gpulab.lab import cpu_peaks

    a, b, c = np.zeros(1000, np.float32), np.arange(1000, dtype=np.float32), np.ones(1000, np.float32)
    call, method = cpu_peaks._triad_call(a, b, c)
    call()
    assert method == ("compiled" if compiled.import_error() is None else "numexpr")
    assert np.array_equal(a, b + cpu_peaks.TRIAD_SCALAR)


def test_a_compiled_loop_that_cannot_compile_leaves_the_triad_peak_to_numexpr(monkeypatch):
    from gpulab import compiled
    from gpulab.lab import cpu_peaks

    def broken(*_args):
        raise RuntimeError("LoweringError")

    monkeypatch.setattr(compiled, "call", broken)
    a, b, c = np.zeros(10, np.float32), np.ones(10, np.float32), np.ones(10, np.float32)
    call, method = cpu_peaks._triad_call(a, b, c)
    call()
    assert method == "numexpr" and np.array_equal(a, b + cpu_peaks.TRIAD_SCALAR)


def test_an_unknown_gpu_is_a_clear_error():
    with pytest.raises(ExperimentError, match="nope"):
        drive(roofline.run(roofline.Params(model_gpu="nope", measure_cpu=False), Context()))


def test_without_a_gpu_the_result_says_why_there_is_no_measured_series(result):
    if cuda_status().available:
        pytest.skip("a GPU is usable here")
    assert result.get_series("kernels-gpu") is None
    assert any(cuda_status().reason in note for note in result.notes)


@pytest.mark.gpu
def test_on_a_gpu_every_kernel_is_timed_and_placed_under_the_local_roof():
    params = roofline.Params(measure_cpu=False, elements=1 << 22, repeats=3)
    result = drive(roofline.run(params, Context()))
    measured = result.get_series("kernels-gpu")
    assert measured is not None and measured.provenance.kind == "measured" and measured.role == "gpu"
    points = _points(result, "kernels-gpu")
    assert set(points) == set(kernel_catalogue())
    for point in points.values():
        assert point.extra["seconds"] > 0
        if point.extra["bound"] is not None:  # the local GPU is in the spec table
            assert point.extra["percent_of_roof"] > 0
            if point.extra["percent_of_roof"] >= 150:  # above the roof only where the caches explain it:
                # counted without reuse, matmul_naive's sectors are 340x its unique bytes and an H200
                # ran it at 211% of its no-reuse roof (the A6000 validation row says about 5x above)
                assert point.extra["sector_bytes"] > 10 * point.extra["unique_bytes"], point.extra["entry"]
    assert points["vector_add"].extra["attained_gb_s"] > 0
    assert points["vector_add"].extra["bound"] in ("memory-bound", None)


def _stand_in_gpu(monkeypatch, name: str, seconds_of):
    """CUDA 'available' with one GPU called ``name``; each kernel's times come from ``seconds_of(launch)``."""
    status = CudaStatus(True, "ok", "ok", cupy_version="13.6.0", cuda_runtime_version="12.9")
    monkeypatch.setattr(cuda, "cuda_status", lambda: status)
    monkeypatch.setattr(cuda, "device_name", lambda device_index=0: name)
    monkeypatch.setattr(roofline_gpu, "_time_kernel", lambda launch, repeats, device: seconds_of(launch, repeats))


def test_the_gpu_half_times_the_kernels_it_is_handed_and_the_lab_places_them_under_the_local_roof(monkeypatch):
    handed = []

    def seconds_of(launch, repeats):
        handed.append((launch.entry, launch.preset))
        assert repeats == 3
        return None if launch.entry == "vector_add" else [6e-3, 1e-3, 2e-3]

    _stand_in_gpu(monkeypatch, "NVIDIA RTX A6000", seconds_of)
    params = roofline.Params(measure_cpu=False, elements=1 << 20, repeats=3)
    result = drive(roofline.run(params, Context()))
    modelled = _points(result)
    assert [entry for entry, _preset in handed] == list(modelled)
    assert all(preset.grid and preset.block for _entry, preset in handed)
    measured = _points(result, "kernels-gpu")
    assert set(measured) == set(modelled) - {"vector_add"}
    a6000 = load_specs()["rtx-a6000"]
    for entry, point in measured.items():
        assert point.extra["seconds"] == 2e-3 and point.extra["repeats"] == 3  # the median (the mean is 3 ms)
        assert point.extra["flops"] == modelled[entry].extra["flops"]  # the size the modelled point is for
        if point.extra["flops"]:
            assert point.extra["roof_gflop_s"] <= a6000.peak_tflops["fp32"] * 1e3 * (1 + 1e-9)
    local = result.get_series("gpu-local-roof")
    assert local is not None and local.provenance.device == "NVIDIA RTX A6000"
    assert any("not timed: vector_add" in note for note in result.notes)


def test_a_gpu_the_spec_table_does_not_know_is_timed_without_a_roof(monkeypatch):
    _stand_in_gpu(monkeypatch, "Some Future GPU", lambda launch, repeats: [1e-3] * repeats)
    result = drive(roofline.run(roofline.Params(measure_cpu=False, elements=1 << 20, repeats=2), Context()))
    measured = _points(result, "kernels-gpu")
    assert measured and all(p.extra["bound"] is None for p in measured.values())
    assert result.get_series("gpu-local-roof") is None
    assert any("Some Future GPU" in note for note in result.notes)
