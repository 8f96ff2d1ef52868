"""Vector add and matmul estimates, with and without host transfers."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from gpulab.model import (
    BYTES_PER_ELEMENT,
    DEFAULT_COPY_LATENCY_S,
    DEFAULT_PINNED_EFFICIENCY,
    matmul_estimate,
    memory_share,
    pcie_gb_s_per_direction,
    vector_add_estimate,
)
from gpulab.model.workloads import gemm_share, tile_fill
from gpulab.specs import GpuSpec, load_specs

US = 1e-6


def test_bytes_per_element_follow_the_dtype_width() -> None:
    assert BYTES_PER_ELEMENT == {
        "fp64": 8,
        "fp32": 4,
        "tf32": 4,
        "fp16": 2,
        "bf16": 2,
        "fp8": 1,
    }


def test_vector_add_of_a_million_fp32_moves_12_mb_at_the_achievable_bandwidth_plus_launch(toy: GpuSpec) -> None:
    estimate = vector_add_estimate(toy, 10**6, "fp32")
    assert estimate.memory_seconds == pytest.approx(15 * US)  # 12 MB at 80% of 1000 GB/s
    assert estimate.seconds == pytest.approx(20 * US)
    assert estimate.roofline_bound == "memory-bound"
    assert estimate.arithmetic_intensity_flop_per_byte == pytest.approx(1 / 12)


def test_vector_add_in_fp16_moves_half_the_bytes(toy: GpuSpec) -> None:
    fp16 = vector_add_estimate(toy, 10**6, "fp16", launch_overhead_s=0)
    fp32 = vector_add_estimate(toy, 10**6, "fp32", launch_overhead_s=0)
    assert fp16.seconds == pytest.approx(fp32.seconds / 2)


def test_vector_add_with_transfers_copies_two_inputs_in_and_one_output_back(
    toy: GpuSpec,
) -> None:
    estimate = vector_add_estimate(toy, 10**6, "fp32", include_transfers=True)
    rate = pcie_gb_s_per_direction(4) * 1e9 * DEFAULT_PINNED_EFFICIENCY
    one_copy = 4e6 / rate + DEFAULT_COPY_LATENCY_S
    assert estimate.breakdown["h2d"] == pytest.approx(2 * one_copy)
    assert estimate.breakdown["d2h"] == pytest.approx(one_copy)
    assert estimate.seconds == pytest.approx(20 * US + 3 * one_copy)
    assert sum(estimate.breakdown.values()) == pytest.approx(estimate.seconds)


def test_vector_add_with_transfers_is_transfer_bound(toy: GpuSpec) -> None:
    estimate = vector_add_estimate(toy, 10**8, "fp32", include_transfers=True)
    assert estimate.bound == "transfer-bound"
    assert estimate.roofline_bound == "memory-bound"
    assert estimate.fraction("h2d") + estimate.fraction("d2h") > 0.9


def test_matmul_counts_two_n_cubed_flops(toy: GpuSpec) -> None:
    estimate = matmul_estimate(toy, 1000, "fp32", launch_overhead_s=0, efficiency=1.0)
    assert estimate.compute_seconds == pytest.approx(2e9 / 10e12)
    assert estimate.memory_seconds == pytest.approx(3 * 1000**2 * 4 / 800e9)  # at the achievable 80%


def test_large_matmul_at_full_efficiency_is_compute_bound_at_the_peak(toy: GpuSpec) -> None:
    estimate = matmul_estimate(toy, 4096, "fp32", efficiency=1.0)
    assert estimate.bound == "compute-bound"
    assert estimate.seconds == pytest.approx(2 * 4096**3 / 10e12 + 5 * US)


def test_matmul_intensity_grows_with_size(toy: GpuSpec) -> None:
    small = matmul_estimate(toy, 64, "fp32")
    large = matmul_estimate(toy, 4096, "fp32")
    # AI = 2 n^3 / (3 n^2 * 4 B) = n / 6
    assert small.arithmetic_intensity_flop_per_byte == pytest.approx(64 / 6)
    assert large.arithmetic_intensity_flop_per_byte == pytest.approx(4096 / 6)


def test_small_matmul_is_memory_bound_below_the_ridge(toy: GpuSpec) -> None:
    estimate = matmul_estimate(toy, 48, "fp32", launch_overhead_s=0, efficiency=1.0)  # AI 8 < ridge 10
    assert estimate.roofline_bound == "memory-bound"


def test_matmul_in_fp16_uses_tensor_cores_by_default(toy: GpuSpec) -> None:
    estimate = matmul_estimate(toy, 4096, "fp16")
    assert estimate.peak_tflops == 100.0
    assert matmul_estimate(toy, 4096, "fp16", use_tensor_cores=False).peak_tflops == 10.0


def test_matmul_with_transfers_adds_three_matrix_copies(toy: GpuSpec) -> None:
    without = matmul_estimate(toy, 1024, "fp32")
    with_copies = matmul_estimate(toy, 1024, "fp32", include_transfers=True)
    rate = pcie_gb_s_per_direction(4) * 1e9 * DEFAULT_PINNED_EFFICIENCY
    one_copy = 1024**2 * 4 / rate + DEFAULT_COPY_LATENCY_S
    assert with_copies.seconds == pytest.approx(without.seconds + 3 * one_copy)


def test_pageable_transfers_make_the_whole_estimate_slower(toy: GpuSpec) -> None:
    pinned = matmul_estimate(toy, 2048, "fp32", include_transfers=True, pinned=True)
    pageable = matmul_estimate(toy, 2048, "fp32", include_transfers=True, pinned=False)
    assert pageable.seconds > pinned.seconds
    assert pageable.breakdown["kernel"] == pinned.breakdown["kernel"]


def test_matmul_assumptions_state_the_ideal_traffic(toy: GpuSpec) -> None:
    estimate = matmul_estimate(toy, 1024, "fp32", include_transfers=True)
    assert any("exactly once" in a for a in estimate.assumptions)
    assert any("pinned host memory" in a for a in estimate.assumptions)
    assert len(estimate.assumptions) == len(set(estimate.assumptions))


@pytest.mark.parametrize("n", [0, -5, 2.5, True])
def test_sizes_must_be_positive_integers(toy: GpuSpec, n: object) -> None:
    with pytest.raises(ValueError):
        vector_add_estimate(toy, n)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        matmul_estimate(toy, n)  # type: ignore[arg-type]


def test_fp8_matmul_on_an_h100_is_faster_than_bf16_on_the_shipped_table() -> None:
    h100 = load_specs()["h100-sxm"]
    fp8 = matmul_estimate(h100, 8192, "fp8")
    bf16 = matmul_estimate(h100, 8192, "bf16")
    assert fp8.seconds < bf16.seconds
    assert fp8.bound == "compute-bound"


def test_vector_add_on_every_shipped_gpu_is_memory_bound_at_its_achievable_bandwidth() -> None:
    for spec in load_specs():
        estimate = vector_add_estimate(spec, 10**8, "fp32")
        assert estimate.bound == "memory-bound", spec.key
        achievable = memory_share(spec).gb_s
        assert achievable < spec.memory_bandwidth_gb_s, spec.key
        assert estimate.memory_seconds == pytest.approx(1.2e9 / (achievable * 1e9))
        assert estimate.bandwidth_gb_s == spec.memory_bandwidth_gb_s  # the spec sheet's, shown beside it


# ------------------------------------------------------------- achievable GEMM rates


def test_a_large_matmul_runs_at_the_published_share_of_the_peak(make_toy) -> None:
    toy = make_toy(gemm_efficiency=MappingProxyType({"fp32": 0.9}))
    estimate = matmul_estimate(toy, 4096, "fp32", launch_overhead_s=0)
    fill = tile_fill(toy, 4096)  # 4096 tiles over 10 SMs: 410 waves, the last one 6 of 10 full
    assert fill == pytest.approx(4096 / 4100)
    assert estimate.compute_seconds == pytest.approx(2 * 4096**3 / (10e12 * 0.9 * fill))
    assert any("reaches 90% of that peak" in a for a in estimate.assumptions)
    assert not any("of peak compute" in a for a in estimate.assumptions)  # the share replaces the 100%


def test_without_its_own_measurement_a_gpu_borrows_the_lowest_share_published_for_the_dtype(toy) -> None:
    lowest = min(s.gemm_efficiency["bf16"] for s in load_specs() if "bf16" in s.gemm_efficiency)
    share = gemm_share(toy, "bf16")
    assert (share.share, share.origin) == (lowest, "borrowed")
    assert "lowest share published for bf16" in share.note


def test_a_dtype_nobody_published_runs_at_its_peak_and_says_it_is_an_upper_bound(toy) -> None:
    share = gemm_share(toy, "fp64")
    assert (share.share, share.origin) == (1.0, "none")
    assert "an upper bound" in share.note
    assert gemm_share(toy, "fp16", use_tensor_cores=False).origin == "none"  # no share for CUDA-core fp16


@pytest.mark.parametrize(("n", "busy"), [(64, 1 / 10), (128, 4 / 10), (256, 16 / 20), (640, 1.0)])
def test_a_small_matmul_keeps_only_its_tiles_sms_busy(toy, n, busy) -> None:
    assert tile_fill(toy, n) == pytest.approx(busy)  # 64x64 tiles of C on 10 SMs


def test_the_achievable_rate_climbs_with_size_towards_the_share(make_toy) -> None:
    toy = make_toy(gemm_efficiency=MappingProxyType({"fp32": 0.9}))
    rates = [2 * n**3 / matmul_estimate(toy, n, "fp32").seconds for n in (64, 256, 1024, 8192)]
    assert rates == sorted(rates)
    assert rates[-1] == pytest.approx(10e12 * 0.9, rel=0.01)
    assert rates[0] < 0.1 * rates[-1]  # launch overhead and one busy SM in ten


def test_fp16_without_tensor_cores_runs_at_the_published_cuda_core_rate() -> None:
    h100, a100, l4 = (load_specs()[key] for key in ("h100-sxm", "a100-sxm4-80gb", "l4"))
    assert matmul_estimate(h100, 4096, "fp16", use_tensor_cores=False).peak_tflops == 133.8  # 2x FP32
    assert matmul_estimate(a100, 4096, "fp16", use_tensor_cores=False).peak_tflops == 78.0  # 4x FP32
    assert matmul_estimate(a100, 4096, "bf16", use_tensor_cores=False).peak_tflops == 39.0  # 2x FP32
    fallback = matmul_estimate(l4, 4096, "fp16", use_tensor_cores=False)  # none published: FP32's
    assert fallback.peak_tflops == l4.peak_tflops["fp32"]
    assert any("no published CUDA-core (non-tensor) fp16 rate" in a for a in fallback.assumptions)

