import pytest

from gpulab import cuda
from gpulab.experiments import Context, drive, get
from gpulab.experiments.coalescing import Params, run
from gpulab.experiments.emulated import GPU_TIME_SERIES

SMALL = Params(n=512, block=128, strides=(1, 2, 8, 32), offset=1, gpu_n=1 << 16, repeats=3)
SECTORS = "sectors per request (emulated)"
EFFICIENCY = "load efficiency (emulated)"


@pytest.fixture(scope="module")
def result():
    return drive(run(SMALL, Context()))


def by_variant(result, series_name):
    return {p.extra["variant"]: p.y for p in result.get_series(series_name).points}


def test_coalescing_is_registered_and_its_series_are_emulated(result):
    assert get("coalescing").run is run
    for name in (SECTORS, EFFICIENCY):
        series = result.get_series(name)
        assert series.provenance.kind == "emulated"
        assert len(series.points) == 7


def test_a_coalesced_float_load_needs_four_sectors_and_uses_every_byte(result):
    sectors, efficiency = by_variant(result, SECTORS), by_variant(result, EFFICIENCY)
    assert sectors["coalesced"] == 4
    assert sectors["stride 1"] == 4
    assert efficiency["coalesced"] == 100


def test_stride_32_needs_a_sector_per_lane_and_wastes_seven_eighths(result):
    sectors, efficiency = by_variant(result, SECTORS), by_variant(result, EFFICIENCY)
    assert sectors["stride 2"] == 8
    assert sectors["stride 8"] == 32
    assert sectors["stride 32"] == 32
    assert efficiency["stride 32"] == 12.5


def test_misaligned_loads_straddle_one_extra_sector_and_gathers_scatter(result):
    sectors = by_variant(result, SECTORS)
    assert sectors["misaligned +1"] == 5
    assert 4 < sectors["random gather"] < 32


@pytest.mark.skipif(cuda.gpu_available(), reason="this machine has a GPU")
def test_without_a_gpu_coalescing_has_no_measured_series_and_says_why(result):
    assert result.get_series(GPU_TIME_SERIES) is None
    assert any(n.startswith("No measured GPU series:") for n in result.notes)


@pytest.mark.gpu
def test_with_a_gpu_strided_loads_are_timed_and_match_the_emulator(result):
    times = result.get_series(GPU_TIME_SERIES)
    assert times.provenance.kind == "measured"
    assert all(p.extra["matches_emulator"] for p in times.points)


def test_the_gathered_load_alone_needs_far_more_sectors_than_the_kernel_wide_average(result):
    alone = by_variant(result, "sectors per request of the in[] load (emulated)")
    assert alone["random gather"] > by_variant(result, SECTORS)["random gather"]
    assert alone["random gather"] > 16
    assert alone["stride 32"] == 32


def test_load_sites_from_the_trace_account_for_every_load_request(result):
    point = next(p for p in result.get_series(SECTORS).points if p.extra["variant"] == "random gather")
    sites = point.extra["load_sites"]
    assert [s["buffer"] for s in sites] == ["idx", "in"]
    assert sites[0]["line"] == sites[1]["line"]
    assert sites[0]["sectors_per_request"] == 4
    assert sum(s["requests"] for s in sites) == 2 * SMALL.n // 32


def test_an_emulated_size_too_big_to_trace_every_warp_is_refused():
    with pytest.raises(ValueError, match=r"^n: must be a multiple of 32 from 32 to 65536, got 1048576$"):
        Params(n=1 << 20)
