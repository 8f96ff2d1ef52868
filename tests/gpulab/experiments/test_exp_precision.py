"""Mixed precision: modelled rates per format, numpy's rates and every format's error, on any machine."""

import math

import pytest

from gpulab import experiments
from gpulab.cuda import cuda_status
from gpulab.experiments import Context, ParamError, drive, precision
from gpulab.measure import is_clean
from gpulab.model import gemm_share, matmul_estimate
from gpulab.results import Result
from gpulab.specs import load_specs


@pytest.fixture(scope="module")
def result() -> Result:
    return drive(precision.run(precision.Params(sizes=(32, 64), repeats=1), Context()))


def by_dtype(result: Result, key: str) -> dict:
    series = result.get_series(key)
    assert series is not None, key
    return {p.extra["dtype"]: p for p in series.points}


def test_each_series_says_what_it_is_and_puts_each_format_at_its_own_x(result):
    keys = {s.key: s for s in result.series}
    assert {"model", "cpu-numpy", "error"} <= set(keys)
    assert keys["model"].provenance.kind == "modelled" and keys["model"].role == "model"
    assert keys["cpu-numpy"].provenance.kind == "measured" and keys["cpu-numpy"].role == "cpu"
    assert keys["error"].provenance.kind == "emulated" and keys["error"].role == "cpu"  # computed exactly, not timed
    assert "rounded to each format" in keys["error"].provenance.details["what"]
    for series in result.series:
        for point in series.points:
            assert point.x == precision.position(point.extra["dtype"])
            assert point.extra["label"] == precision.format_name(point.extra["dtype"])
    assert [precision.position(d) for d in precision.FORMAT_ORDER] == [1, 2, 3, 4, 5, 6, 7]
    assert [precision.format_name(d) for d in ("fp16", "fp8", "fp8e5m2")] == ["FP16", "FP8 E4M3", "FP8 E5M2"]


def test_the_modelled_rates_are_the_achievable_share_of_the_spec_sheet_peak_and_tensor_cores_win(result):
    spec = load_specs().get("h100-sxm")
    model = by_dtype(result, "model")
    assert set(model) == set(precision.FORMAT_ORDER)
    for dtype, point in model.items():
        expected = matmul_estimate(spec, 8192, precision.rate_dtype(dtype))
        assert point.extra["seconds"] == pytest.approx(expected.seconds)
        assert point.extra["peak_gflop_s"] == pytest.approx(expected.peak_tflops * 1e3)
        if gemm_share(spec, precision.rate_dtype(dtype)).origin == "none":
            # No published share (fp64): at the peak as an upper bound, with no "percent of peak" to show.
            assert point.extra["upper_bound"] and "percent_of_peak" not in point.extra
        else:
            assert 60 < point.extra["percent_of_peak"] <= 100
    assert model["fp64"].extra.get("upper_bound")
    # The published H100 measurements: BF16 at about 80% of its peak, FP8 at about 71%.
    assert model["bf16"].extra["percent_of_peak"] == pytest.approx(80.3, abs=1.5)
    assert model["fp8"].extra["percent_of_peak"] == pytest.approx(70.9, abs=1.5)
    assert model["fp8"].y > model["fp16"].y > model["tf32"].y > model["fp32"].y
    assert model["fp16"].y == pytest.approx(model["bf16"].y)
    assert model["fp8e5m2"].y == pytest.approx(model["fp8"].y)  # both encodings run at the FP8 rate
    notes = " ".join(result.notes)
    assert "A large bf16 GEMM reaches 80% of that peak" in notes
    assert "No published large tf32 GEMM measurement" in notes


def test_without_tensor_cores_fp16_runs_at_the_published_cuda_core_rate_not_the_fp32_one(result):
    model = by_dtype(result, "model")
    # H100 whitepaper: FP16 and BF16 (non-Tensor) 133.8 TFLOP/s, twice FP32.
    assert model["fp16"].extra["cuda_core_gflop_s"] == pytest.approx(133.8e3)
    note = next(n for n in result.notes if n.startswith("Without tensor cores the NVIDIA H100"))
    assert "FP16 at 133.8 TFLOP/s (2× FP32)" in note and "BF16 at 133.8" in note


def test_numpy_times_fp64_fp32_and_a_capped_fp16_and_the_notes_say_how_much_slower_fp16_is():
    params = precision.Params(sizes=(64, 512), dtypes=("fp32", "fp16"), repeats=1)
    result = drive(precision.run(params, Context()))
    cpu = by_dtype(result, "cpu-numpy")
    assert set(cpu) == {"fp32", "fp16"}
    assert cpu["fp32"].extra["n"] == 512 and [r["n"] for r in cpu["fp32"].extra["by_size"]] == [64, 512]
    assert cpu["fp16"].extra["n"] == 64  # 512 is past the cap
    assert all(p.y > 0 for p in cpu.values())
    assert any("timed only up to N = 256" in note for note in result.notes)
    # The "x times slower" rests on clean points only: on a busy machine (flagged points) it is not stated.
    if not is_clean(cpu["fp16"]):
        assert not any("slower than its FP32" in note for note in result.notes)


def test_the_fp16_slowdown_on_the_cpu_is_read_from_clean_points_only():
    rates = {"fp16": {64: 1.0, 128: None}, "fp32": {64: 100.0, 128: 400.0}}  # at 128 FP16 was flagged
    (note,) = precision._half_on_cpu_note(rates)
    assert note.args["ratio"] == "100" and note.args["size"] == 64


def test_the_error_follows_the_significand_width_from_fp64_to_fp8(result):
    error = by_dtype(result, "error")
    order = [d for d in precision.FORMAT_ORDER if d in error]
    assert order == list(precision.FORMAT_ORDER) or "fp64" not in error
    values = [error[d].y for d in order]
    assert values == sorted(values)  # tf32 below fp16: same 11 bits, but FP16 also rounds C
    assert error["fp32"].y < 1e-5 < error["fp16"].y < 1e-3 < error["bf16"].y < 1e-2 < error["fp8"].y < 0.1
    assert error["fp8"].y < error["fp8e5m2"].y < 0.2  # E5M2: one mantissa bit less than E4M3
    for point in error.values():
        assert point.extra["n"] == 64 or point.extra["dtype"] == "fp64"
        assert point.extra["componentwise_max"] > 0 and point.extra["unit_roundoff"] > 0
        assert [row["n"] for row in point.extra["by_size"]][-1] == point.extra["n"]
    assert sum(note.startswith("FP16 (N = 64): inputs rounded to FP16") for note in result.notes) == 1


def test_memory_per_format_is_three_matrices_of_its_width_and_tf32_saves_none(result):
    assert precision.footprint_bytes("fp16", 8192) == 3 * 8192 * 8192 * 2
    assert precision.footprint_bytes("tf32", 100) == precision.footprint_bytes("fp32", 100)
    assert precision.footprint_bytes("fp8", 100) * 8 == precision.footprint_bytes("fp64", 100)
    memory = next(note for note in result.notes if note.startswith("A, B and C at N = 8192"))
    assert "1.6 GB in FP64" in memory and "201 MB in FP8 E4M3" in memory and "201 MB in FP8 E5M2" in memory
    for point in by_dtype(result, "error").values():
        assert point.extra["footprint_bytes"] == precision.footprint_bytes(point.extra["dtype"], point.extra["n"])


def test_without_a_gpu_the_notes_say_why_and_no_series_claims_one(result):
    if cuda_status().available:
        pytest.skip("a GPU is usable here")
    assert all(s.role != "gpu" for s in result.series)
    assert any(cuda_status().reason in note for note in result.notes)


def test_a_model_gpu_without_fp8_models_the_rest_and_says_so():
    params = precision.Params(sizes=(16,), dtypes=("fp16", "fp8"), model_gpu="a100-sxm4-80gb", repeats=1)
    result = drive(precision.run(params, Context()))
    assert set(by_dtype(result, "model")) == {"fp16"}
    assert set(by_dtype(result, "error")) == {"fp16", "fp8"}  # the error needs no GPU
    assert any(note.startswith("FP8 E4M3 has no modelled rate") for note in result.notes)
    note = next(n for n in result.notes if n.startswith("Without tensor cores the NVIDIA A100"))
    assert "FP16 at 78 TFLOP/s (4× FP32)" in note  # A100: FP16 on CUDA cores is four times FP32


def test_formats_are_read_in_any_case_and_order_and_drawn_in_the_labs_order():
    params = experiments.params_from_strings(precision.Params, {"dtypes": "FP16, fp64,fp16"})
    assert params.dtypes == ("fp64", "fp16")


BAD = [({"dtypes": "fp12"}, "dtypes"), ({"sizes": "4"}, "sizes"), ({"gpu_size": "100"}, "gpu_size"),
       ({"repeats": "0"}, "repeats")]


@pytest.mark.parametrize(("assignment", "named"), BAD)
def test_bad_parameters_name_the_field(assignment, named):
    with pytest.raises(ParamError, match=named):
        experiments.params_from_strings(precision.Params, assignment)


def test_the_command_line_runs_the_lab_end_to_end():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "gpulab.cli", "run", "precision", "--set", "sizes=16",
                           "--set", "dtypes=fp32,bf16", "--set", "repeats=1", "--quiet"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "BF16:" in proc.stdout and "Error against FP64" in proc.stdout


# ------------------------------------------------------------ on a GPU


@pytest.fixture(scope="module")
def gpu_result() -> Result:
    params = precision.Params(sizes=(32,), gpu_size=4096, repeats=3)
    return drive(precision.run(params, Context()))


@pytest.mark.gpu
def test_on_a_gpu_cublas_is_timed_per_format_against_that_formats_spec_peak(gpu_result):
    gpu = by_dtype(gpu_result, "gpu-cublas")
    assert {"fp64", "fp32", "fp16"} <= set(gpu)
    assert "fp8" not in gpu
    assert any(note.startswith("FP8 E4M3 not measured on this GPU: CuPy has no FP8") for note in gpu_result.notes)
    for point in gpu.values():
        assert point.y > 0 and point.extra["n"] <= 4096
        if "percent_of_peak" in point.extra:
            assert 0 < point.extra["percent_of_peak"] <= 110
    assert gpu["fp16"].y > gpu["fp32"].y  # tensor cores against CUDA cores


@pytest.mark.gpu
def test_on_an_ampere_or_later_gpu_tf32_beats_fp32_and_the_switch_is_put_back(gpu_result):
    import cupy
    import numpy as np
    from cupy._core import _routines_linalg as linalg

    if int(cupy.cuda.Device(0).compute_capability) < 80:
        pytest.skip("no TF32 tensor cores before compute capability 8.0")
    before = linalg.get_compute_type(np.float32)
    with precision.tf32_matmuls(cupy):
        assert linalg.get_compute_type(np.float32) == linalg.COMPUTE_TYPE_TF32
    assert linalg.get_compute_type(np.float32) == before
    gpu = by_dtype(gpu_result, "gpu-cublas")
    assert gpu["tf32"].y > 1.5 * gpu["fp32"].y
    assert not math.isnan(gpu["tf32"].extra["percent_of_peak"])


def test_fp64s_error_never_needs_a_long_double_product_past_its_cap():
    from gpulab.precision import extended_reference_available

    if not extended_reference_available():
        pytest.skip("long double is plain FP64 here")
    params = precision.Params(sizes=(512,), dtypes=("fp64",), repeats=1)
    result = drive(precision.run(params, Context()))
    assert by_dtype(result, "error")["fp64"].extra["n"] == precision.EXTENDED_MAX_N
    assert by_dtype(result, "cpu-numpy")["fp64"].extra["n"] == 512
