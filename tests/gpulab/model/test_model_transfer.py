"""PCIe copy times: theoretical link rates, pinned versus pageable memory, latency."""

from __future__ import annotations

import pytest

from gpulab.model import (
    DEFAULT_COPY_LATENCY_S,
    DEFAULT_PAGEABLE_EFFICIENCY,
    DEFAULT_PINNED_EFFICIENCY,
    PcieLink,
    pcie_gb_s_per_direction,
    transfer_time,
)
from gpulab.model.transfer import BOTH_WAYS_SHARE, both_ways_share
from gpulab.specs import GpuSpec


@pytest.mark.parametrize(("gen", "expected"), [(3, 15.75), (4, 31.5), (5, 63.0)])
def test_x16_link_rates_match_the_pcie_spec(gen: int, expected: float) -> None:
    assert pcie_gb_s_per_direction(gen) == pytest.approx(expected, rel=0.002)


def test_fewer_lanes_give_proportionally_less_bandwidth() -> None:
    assert pcie_gb_s_per_direction(4, lanes=8) == pytest.approx(pcie_gb_s_per_direction(4) / 2)


@pytest.mark.parametrize(("gen", "lanes"), [(7, 16), (0, 16), (4, 3), (4, 32)])
def test_unknown_generations_and_lane_counts_are_rejected(gen: int, lanes: int) -> None:
    with pytest.raises(ValueError):
        pcie_gb_s_per_direction(gen, lanes)


def test_pinned_copy_of_one_gigabyte_over_gen4_takes_bytes_over_effective_rate() -> None:
    estimate = transfer_time(4, 1e9, pinned=True, latency_s=0.0)
    theoretical = pcie_gb_s_per_direction(4) * 1e9
    assert estimate.seconds == pytest.approx(1e9 / (theoretical * DEFAULT_PINNED_EFFICIENCY))
    assert estimate.bound == "transfer-bound"


def test_pageable_copy_is_slower_than_pinned_by_the_efficiency_ratio() -> None:
    pinned = transfer_time(4, 1e9, pinned=True, latency_s=0.0)
    pageable = transfer_time(4, 1e9, pinned=False, latency_s=0.0)
    ratio = DEFAULT_PINNED_EFFICIENCY / DEFAULT_PAGEABLE_EFFICIENCY
    assert pageable.seconds / pinned.seconds == pytest.approx(ratio)
    assert pageable.seconds > pinned.seconds


def test_default_efficiencies_are_the_stated_assumptions() -> None:
    assert 0.8 <= DEFAULT_PINNED_EFFICIENCY <= 0.9
    assert DEFAULT_PAGEABLE_EFFICIENCY == 0.33  # a DGX A100's bandwidthTest: ~10.4 of 31.5 GB/s
    notes = " ".join(transfer_time(4, 1e6, pinned=False).assumptions)
    assert "pageable host memory reach 33%" in notes


def test_a_copy_while_the_other_direction_copies_keeps_its_cited_share_of_the_rate() -> None:
    for gen in (4, 5):
        for direction in ("h2d", "d2h"):
            alone = transfer_time(gen, 1e9, direction=direction, latency_s=0.0)
            shared = transfer_time(gen, 1e9, direction=direction, latency_s=0.0, both_ways=True)
            assert shared.seconds == pytest.approx(alone.seconds / BOTH_WAYS_SHARE[gen][direction])
            assert shared.bandwidth_gb_s == pytest.approx(alone.bandwidth_gb_s * BOTH_WAYS_SHARE[gen][direction])


def test_on_gen4_host_to_gpu_loses_half_its_rate_both_ways_and_gpu_to_host_almost_nothing() -> None:
    h2d = transfer_time(4, 1 << 28, direction="h2d", both_ways=True)
    d2h = transfer_time(4, 1 << 28, direction="d2h", both_ways=True)
    assert (1 << 28) / h2d.seconds / 1e9 < 13 < 24 < (1 << 28) / d2h.seconds / 1e9  # nvbandwidth#11: 12-13 and ~24
    assert "host to GPU keep 47%" in " ".join(h2d.assumptions)
    assert not any(note.message.key == "model.assumption.no-copy-overlap" for note in h2d.assumptions)


def test_generations_before_gen4_share_the_link_like_gen4_and_bad_directions_are_refused() -> None:
    assert both_ways_share(3, "h2d") == both_ways_share(4, "h2d")
    with pytest.raises(ValueError, match="direction"):
        both_ways_share(4, "both")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="generation"):
        both_ways_share(9, "h2d")


def test_efficiencies_can_be_overridden() -> None:
    estimate = transfer_time(3, 15.75e9, pinned=True, pinned_efficiency=1.0, latency_s=0.0)
    assert estimate.seconds == pytest.approx(1.0, rel=0.002)


def test_an_empty_copy_costs_only_the_latency() -> None:
    estimate = transfer_time(5, 0)
    assert estimate.seconds == pytest.approx(DEFAULT_COPY_LATENCY_S)


def test_a_gpu_spec_copies_over_its_own_pcie_generation(toy: GpuSpec) -> None:
    via_spec = transfer_time(toy, 1e9)
    via_gen = transfer_time(PcieLink(4, 16), 1e9)
    assert via_spec.seconds == pytest.approx(via_gen.seconds)
    assert via_spec.gpu_name == "Toy GPU"
    assert via_gen.gpu_name == "PCIe Gen4 x16"


def test_a_newer_generation_copies_twice_as_fast() -> None:
    gen4 = transfer_time(4, 1e9, latency_s=0.0)
    gen5 = transfer_time(5, 1e9, latency_s=0.0)
    assert gen4.seconds / gen5.seconds == pytest.approx(2.0)


@pytest.mark.parametrize("direction", ["h2d", "d2h"])
def test_the_breakdown_is_named_after_the_direction(direction: str) -> None:
    estimate = transfer_time(4, 1e6, direction=direction)  # type: ignore[arg-type]
    assert dict(estimate.breakdown) == {direction: pytest.approx(estimate.seconds)}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"direction": "sideways"},
        {"pinned_efficiency": 0.0},
        {"pageable_efficiency": 1.2, "pinned": False},
        {"latency_s": -1.0},
    ],
)
def test_bad_transfer_arguments_raise_value_error(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        transfer_time(4, 1e6, **kwargs)  # type: ignore[arg-type]


def test_a_negative_size_is_rejected() -> None:
    with pytest.raises(ValueError):
        transfer_time(4, -1)


def test_a_link_of_the_wrong_type_is_rejected() -> None:
    with pytest.raises(TypeError):
        transfer_time("gen4", 1e6)  # type: ignore[arg-type]
