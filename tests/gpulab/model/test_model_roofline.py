"""Roofline arithmetic of kernel_time, checked against hand-computed cases on the toy GPU."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from gpulab.model import (
    DEFAULT_LAUNCH_OVERHEAD_S,
    ModelEstimate,
    UnsupportedDtypeError,
    kernel_time,
    memory_share,
    ridge_point,
)
from gpulab.specs import GpuSpec, load_specs

US = 1e-6


def test_memory_bound_kernel_takes_bytes_over_the_achievable_bandwidth_plus_launch(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, flops=1e6, bytes_moved=12e6, dtype="fp32")
    # 12e6 B / (80% of 1000e9 B/s) = 15 us; 1e6 FLOP / 10e12 FLOP/s = 0.1 us; plus 5 us launch.
    assert estimate.seconds == pytest.approx(15 * US + 5 * US)
    assert estimate.memory_seconds == pytest.approx(15 * US)
    assert estimate.compute_seconds == pytest.approx(0.1 * US)
    assert estimate.roofline_bound == "memory-bound"
    assert estimate.bound == "memory-bound"


def test_compute_bound_kernel_takes_flops_over_peak_plus_launch(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, flops=1e12, bytes_moved=1e6, dtype="fp32")
    assert estimate.seconds == pytest.approx(0.1 + 5 * US)
    assert estimate.bound == "compute-bound"


def test_breakdown_parts_add_up_to_the_total(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, flops=3e9, bytes_moved=7e8, dtype="fp32")
    assert sum(estimate.breakdown.values()) == pytest.approx(estimate.seconds)
    assert set(estimate.breakdown) == {"kernel", "launch"}


def test_default_launch_overhead_is_five_microseconds(toy: GpuSpec) -> None:
    assert pytest.approx(5 * US) == DEFAULT_LAUNCH_OVERHEAD_S
    estimate = kernel_time(toy, flops=0, bytes_moved=0, dtype="fp32")
    assert estimate.seconds == pytest.approx(5 * US)
    assert estimate.breakdown["launch"] == pytest.approx(5 * US)


def test_a_tiny_kernel_is_launch_bound(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, flops=1e3, bytes_moved=12e3, dtype="fp32")
    assert estimate.bound == "launch-bound"
    assert estimate.roofline_bound == "memory-bound"
    assert estimate.fraction("launch") > 0.9


def test_launch_overhead_can_be_changed(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, 0, 12e6, "fp32", launch_overhead_s=0.0)
    assert estimate.seconds == pytest.approx(15 * US)


def test_ridge_point_is_peak_flops_over_bandwidth(toy: GpuSpec) -> None:
    assert ridge_point(10e12, 1000e9) == pytest.approx(10.0)
    # A kernel's own ridge is where its priced rates meet: the peak over the achievable 800 GB/s.
    estimate = kernel_time(toy, flops=1, bytes_moved=1, dtype="fp32")
    assert estimate.ridge_point_flop_per_byte == pytest.approx(12.5)
    fp16 = kernel_time(toy, flops=1, bytes_moved=1, dtype="fp16")
    assert fp16.ridge_point_flop_per_byte == pytest.approx(125.0)


def test_kernel_is_compute_bound_exactly_above_the_ridge(toy: GpuSpec) -> None:
    below = kernel_time(toy, flops=12e9, bytes_moved=1e9, dtype="fp32")
    above = kernel_time(toy, flops=13e9, bytes_moved=1e9, dtype="fp32")
    assert below.arithmetic_intensity_flop_per_byte == pytest.approx(12.0)
    assert below.roofline_bound == "memory-bound"
    assert above.roofline_bound == "compute-bound"


def test_arithmetic_intensity_without_memory_traffic_is_infinite(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, flops=1e9, bytes_moved=0, dtype="fp32")
    assert math.isinf(estimate.arithmetic_intensity_flop_per_byte or 0.0)


def test_efficiency_scales_the_compute_roof_and_memory_keeps_its_achievable_share(toy: GpuSpec) -> None:
    compute = kernel_time(toy, 1e12, 0, "fp32", efficiency=0.5, launch_overhead_s=0)
    assert compute.seconds == pytest.approx(0.2)
    memory = kernel_time(toy, 0, 12e6, "fp32", efficiency=0.5, launch_overhead_s=0)
    assert memory.seconds == pytest.approx(12e6 / (toy.memory_efficiency * toy.memory_bandwidth_bytes_per_s))


def test_a_given_memory_efficiency_overrides_the_achievable_share(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, 0, 12e6, "fp32", efficiency=0.5, memory_efficiency=0.5, launch_overhead_s=0)
    assert estimate.seconds == pytest.approx(24 * US)
    assert any("50% of peak memory bandwidth" in a for a in estimate.assumptions)
    assert estimate.bandwidth_gb_s == toy.memory_bandwidth_gb_s  # the roof stays the spec sheet's


def test_tensor_cores_give_the_fp16_tensor_rate(toy: GpuSpec) -> None:
    tensor = kernel_time(toy, 1e12, 0, "fp16", launch_overhead_s=0)
    cuda_cores = kernel_time(toy, 1e12, 0, "fp16", use_tensor_cores=False, launch_overhead_s=0)
    assert tensor.seconds == pytest.approx(0.01)
    assert cuda_cores.seconds == pytest.approx(0.1)
    assert any("fp32 CUDA-core rate" in a for a in cuda_cores.assumptions)


def test_fp64_uses_fp64_tensor_cores_only_where_the_gpu_has_them(
    make_toy: Callable[..., GpuSpec],
) -> None:
    with_fp64_tensor = make_toy(peak_tflops={"fp64": 5.0, "fp64_tensor": 10.0, "fp32": 10.0})
    assert kernel_time(with_fp64_tensor, 1e12, 0, "fp64").peak_tflops == 10.0
    assert kernel_time(with_fp64_tensor, 1e12, 0, "fp64", use_tensor_cores=False).peak_tflops == 5
    without = make_toy(peak_tflops={"fp64": 5.0, "fp32": 10.0})
    assert kernel_time(without, 1e12, 0, "fp64").peak_tflops == 5.0


def test_a_dtype_the_gpu_lacks_raises_unsupported_dtype(toy: GpuSpec) -> None:
    with pytest.raises(UnsupportedDtypeError, match="Toy GPU has no fp8 rate"):
        kernel_time(toy, 1e9, 1e9, "fp8")


def test_tf32_without_tensor_cores_is_rejected(toy: GpuSpec) -> None:
    with pytest.raises(ValueError, match="only on tensor cores"):
        kernel_time(toy, 1e9, 1e9, "tf32", use_tensor_cores=False)


@pytest.mark.parametrize(
    ("flops", "bytes_moved", "dtype", "kwargs"),
    [
        (1e9, 1e9, "int8", {}),
        (-1.0, 1e9, "fp32", {}),
        (1e9, -1.0, "fp32", {}),
        (math.nan, 1e9, "fp32", {}),
        (1e9, 1e9, "fp32", {"efficiency": 0.0}),
        (1e9, 1e9, "fp32", {"efficiency": 1.5}),
        (1e9, 1e9, "fp32", {"launch_overhead_s": -1e-6}),
    ],
)
def test_bad_arguments_raise_value_error(
    toy: GpuSpec, flops: float, bytes_moved: float, dtype: str, kwargs: dict[str, float]
) -> None:
    with pytest.raises(ValueError):
        kernel_time(toy, flops, bytes_moved, dtype, **kwargs)  # type: ignore[arg-type]


def test_assumptions_are_short_sentences_naming_the_figures_used(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, 1e9, 1e9, "fp32")
    assert all(a.endswith(".") and len(a) < 120 for a in estimate.assumptions)
    text = " ".join(estimate.assumptions)
    assert "10 TFLOP/s" in text and "1000 GB/s" in text and "5 µs" in text


def test_estimate_reports_the_gpu_name_and_is_modelled(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, 1e9, 1e9, "fp32")
    assert estimate.gpu_name == "Toy GPU"
    assert estimate.provenance_kind == "modelled"


def test_estimate_breakdown_cannot_be_changed_after_creation(toy: GpuSpec) -> None:
    estimate = kernel_time(toy, 1e9, 1e9, "fp32")
    with pytest.raises(TypeError):
        estimate.breakdown["kernel"] = 0.0  # type: ignore[index]


def test_estimate_rejects_an_unknown_bound() -> None:
    with pytest.raises(ValueError, match="bound must be one of"):
        ModelEstimate(seconds=1.0, breakdown={}, bound="fast", assumptions=(), gpu_name="x")


# ------------------------------------------------------------- the achievable memory bandwidth


def test_the_default_memory_rate_is_the_gpus_published_share_and_its_note_says_so(toy: GpuSpec) -> None:
    share = memory_share(toy)
    assert (share.share, share.origin, share.gb_s) == (0.8, "measured", pytest.approx(800.0))
    estimate = kernel_time(toy, 0, 8e9, "fp32", launch_overhead_s=0)
    assert estimate.seconds == pytest.approx(8e9 / (share.gb_s * 1e9))
    assert share.note in estimate.assumptions and "80% of the spec-sheet bandwidth" in share.note


def test_a_gpu_without_a_published_share_borrows_the_lowest_one_of_its_memory_type(
    make_toy: Callable[..., GpuSpec],
) -> None:
    shipped = [spec for spec in load_specs() if spec.memory_type == "GDDR6" and spec.memory_efficiency]
    lowest = min(shipped, key=lambda spec: spec.memory_efficiency or 1)
    share = memory_share(make_toy(memory_efficiency=None, memory_type="GDDR6"))
    assert (share.share, share.origin, share.measured_on) == (lowest.memory_efficiency, "borrowed", lowest.name)
    assert share.source == lowest.source_for("memory_efficiency").title
    assert "lowest GDDR6 share published" in share.note and lowest.name in str(share.lab_note)


def test_a_memory_type_nobody_published_borrows_the_lowest_share_in_the_table(
    make_toy: Callable[..., GpuSpec],
) -> None:
    lowest = min(spec.memory_efficiency for spec in load_specs() if spec.memory_efficiency)
    share = memory_share(make_toy(memory_efficiency=None, memory_type="HBM9"))
    assert (share.share, share.origin) == (lowest, "borrowed-any")
    assert "lowest share in the table" in share.note


def test_the_lab_note_names_the_achievable_rate_the_peak_and_the_source(toy: GpuSpec) -> None:
    text = str(memory_share(toy).lab_note)
    assert "800 GB/s" in text and "80%" in text and "1000 GB/s" in text and "Toy GPU sheet" in text


def test_every_assumption_of_a_shipped_gpu_is_a_short_sentence() -> None:
    for spec in load_specs():
        assert len(memory_share(spec).note) < 120, spec.key


def test_with_nothing_published_the_peak_is_used_and_both_notes_say_it_is_a_bound(
    make_toy: Callable[..., GpuSpec], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpulab.model import roofline

    monkeypatch.setattr(roofline, "_published_memory_shares", lambda: ())
    share = memory_share(make_toy(memory_efficiency=None))
    assert (share.share, share.origin, share.source) == (1.0, "none", "")
    assert "upper bound" in share.note and "lower bound" in str(share.lab_note)
