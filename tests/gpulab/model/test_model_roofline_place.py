"""Placing a kernel on a roofline: bound by which side of the ridge, and how far below the roof."""

import math

import pytest

from gpulab.model import place, ridge_point, roof_at

PEAK = 100e12  # FLOP/s
BANDWIDTH = 2e12  # bytes/s: the ridge is at 50 FLOP/byte


def test_the_roof_rises_with_intensity_until_the_ridge_then_stays_flat():
    assert ridge_point(PEAK, BANDWIDTH) == 50
    assert roof_at(1.0, PEAK, BANDWIDTH) == 2e12
    assert roof_at(50.0, PEAK, BANDWIDTH) == PEAK
    assert roof_at(5000.0, PEAK, BANDWIDTH) == PEAK


def test_a_kernel_left_of_the_ridge_is_memory_bound_and_its_share_of_the_roof_is_its_share_of_bandwidth():
    flops, moved = 1e9, 1e10  # 0.1 FLOP/byte
    seconds = 4 * moved / BANDWIDTH  # four times slower than the memory roof allows
    spot = place(flops, moved, seconds, PEAK, BANDWIDTH)
    assert spot.intensity_flop_per_byte == pytest.approx(0.1)
    assert spot.bound == "memory-bound"
    assert spot.roof_flop_per_s == pytest.approx(0.1 * BANDWIDTH)
    assert spot.percent_of_roof == pytest.approx(25.0)
    assert spot.attained_flop_per_s == pytest.approx(spot.roof_flop_per_s / 4)
    assert spot.times_below_roof == pytest.approx(4.0)


def test_a_kernel_right_of_the_ridge_is_compute_bound_against_the_flat_roof():
    flops, moved = 1e12, 1e9  # 1000 FLOP/byte
    spot = place(flops, moved, flops / (0.6 * PEAK), PEAK, BANDWIDTH)
    assert spot.bound == "compute-bound"
    assert spot.roof_flop_per_s == PEAK
    assert spot.percent_of_roof == pytest.approx(60.0)


def test_a_kernel_exactly_at_the_ridge_counts_as_compute_bound():
    assert place(50e9, 1e9, 1.0, PEAK, BANDWIDTH).bound == "compute-bound"


def test_a_kernel_without_flops_is_memory_bound_and_measured_by_its_bandwidth():
    spot = place(0.0, 1e9, 1e9 / BANDWIDTH * 2, PEAK, BANDWIDTH)
    assert spot.intensity_flop_per_byte == 0
    assert spot.bound == "memory-bound"
    assert spot.percent_of_roof == pytest.approx(50.0)


def test_a_kernel_without_bytes_has_infinite_intensity():
    spot = place(1e9, 0.0, 1e9 / PEAK, PEAK, BANDWIDTH)
    assert math.isinf(spot.intensity_flop_per_byte) and spot.bound == "compute-bound"
    assert spot.percent_of_roof == pytest.approx(100.0)


@pytest.mark.parametrize(("flops", "moved", "seconds"), [(-1, 1, 1), (1, -1, 1), (1, 1, 0), (1, 1, math.inf)])
def test_impossible_work_or_time_is_refused(flops, moved, seconds):
    with pytest.raises(ValueError):
        place(flops, moved, seconds, PEAK, BANDWIDTH)
