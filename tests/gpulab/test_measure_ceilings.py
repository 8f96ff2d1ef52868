"""Measured GPU points are compared with the ceiling of the device they ran on."""

import pytest

from gpulab.measure import (
    Ceiling,
    ceiling_details,
    gpu_bandwidth_ceiling,
    gpu_flops_ceiling,
    with_ceiling,
)
from gpulab.results import Point


def test_fp32_gemm_ceiling_is_the_cuda_core_peak_of_the_matched_gpu():
    ceiling = gpu_flops_ceiling("NVIDIA H100 80GB HBM3", "fp32")
    assert ceiling is not None
    assert ceiling.value == pytest.approx(67_000)  # 67 TFLOP/s fp32, H100 SXM datasheet
    assert "H100" in ceiling.source and "fp32" in ceiling.source


def test_fp64_gemm_ceiling_prefers_the_tensor_core_rate_where_there_is_one():
    a100 = gpu_flops_ceiling("NVIDIA A100-SXM4-40GB", "fp64")
    v100 = gpu_flops_ceiling("Tesla V100-SXM2-16GB", "fp64")
    assert a100 is not None and "fp64_tensor" in a100.source
    assert v100 is not None and "fp64 peak" in v100.source


def test_an_unknown_gpu_has_no_flops_ceiling_and_says_why():
    assert gpu_flops_ceiling("Imaginary GPU 9000", "fp32") is None
    assert "not in the spec table" in ceiling_details(None)["ceiling_source"]


def test_bandwidth_ceiling_comes_from_the_spec_sheet_or_else_from_the_driver():
    spec = gpu_bandwidth_ceiling("NVIDIA A100-SXM4-40GB", derived_gb_s=1555.2)
    derived = gpu_bandwidth_ceiling("Imaginary GPU 9000", derived_gb_s=1000.0)
    assert spec is not None and "spec sheet" in spec.source
    assert derived == Ceiling(1000.0, "memory clock x bus width reported by the driver")
    assert gpu_bandwidth_ceiling("Imaginary GPU 9000", derived_gb_s=None) is None


def test_a_point_gets_its_percentage_of_the_ceiling_and_keeps_its_other_facts():
    point = Point(1024, 500.0, 3.0, {"seconds": 1e-3})
    marked = with_ceiling(point, Ceiling(2000.0, "test"))
    assert marked.extra["percent_of_peak"] == pytest.approx(25.0)
    assert marked.extra["seconds"] == 1e-3 and marked.y == 500.0
    assert with_ceiling(point, None) is point


@pytest.mark.gpu
def test_measured_gpu_points_report_a_plausible_share_of_their_ceiling():
    from gpulab.experiments import Context, drive, get

    module = get("matmul")
    result = drive(module.run(module.Params(sizes=(2048,), repeats=3), Context()))
    gpu = result.get_series("GPU cuBLAS (cupy.matmul)")
    assert gpu is not None
    if gpu.provenance.details["ceiling"] is None:
        pytest.skip("this GPU is not in the spec table")
    assert 1.0 < gpu.points[0].extra["percent_of_peak"] <= 110.0
