import math

import pytest

from gpulab import cuda
from gpulab.experiments import Context, drive, get
from gpulab.experiments.bank_conflicts import Params, run
from gpulab.lab.emulated import GPU_TIME_SERIES

SMALL = Params(side=32, block=64, strides=(1, 2, 3, 8, 32), gpu_side=256, repeats=3)
LOADS = "shared load transactions per request (emulated)"
STORES = "shared store transactions per request (emulated)"


@pytest.fixture(scope="module")
def result():
    return drive(run(SMALL, Context()))


def by_variant(result, series_name):
    return {p.extra["variant"]: p.y for p in result.get_series(series_name).points}


def test_bank_conflicts_is_registered_and_its_series_are_emulated(result):
    assert get("bank-conflicts").run is run
    for name in (LOADS, STORES):
        assert result.get_series(name).provenance.kind == "emulated"
    launches = result.get_series(LOADS).provenance.details["launches"]
    assert launches["transpose 32x32 tile"] == {"kernel": "transpose_shared", "grid": [1, 1, 1], "block": [32, 32, 1]}


def test_reading_a_column_of_an_unpadded_tile_is_a_32_way_conflict_and_padding_removes_it(result):
    loads, stores = by_variant(result, LOADS), by_variant(result, STORES)
    assert loads["transpose 32x32 tile"] == 32
    assert loads["transpose 32x33 tile (padded)"] == 1
    assert stores["transpose 32x32 tile"] == stores["transpose 32x33 tile (padded)"] == 1


@pytest.mark.parametrize("stride", [1, 2, 3, 8, 32])
def test_a_shared_stride_costs_gcd_of_stride_and_32_wavefronts(result, stride):
    assert by_variant(result, LOADS)[f"shared stride {stride}"] == math.gcd(stride, 32)


@pytest.mark.skipif(cuda.gpu_available(), reason="this machine has a GPU")
def test_without_a_gpu_bank_conflicts_has_no_measured_series_and_says_why(result):
    assert result.get_series(GPU_TIME_SERIES) is None
    assert any(n.startswith("No measured GPU series:") for n in result.notes)


@pytest.mark.gpu
def test_with_a_gpu_the_transposes_are_timed_and_match_the_emulator(result):
    times = result.get_series(GPU_TIME_SERIES)
    assert times.provenance.kind == "measured"
    assert all(p.extra["matches_emulator"] for p in times.points)
