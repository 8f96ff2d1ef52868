import pytest

from gpulab import cuda
from gpulab.experiments import Context, drive, get
from gpulab.experiments.reduction import Params, run
from gpulab.lab.emulated import GPU_TIME_SERIES

SMALL = Params(n=1000, block=128, gpu_n=1 << 16, repeats=3)
WARP = "warp execution efficiency (emulated)"
BRANCH = "branch efficiency (emulated)"
INSTRUCTIONS = "instructions executed (emulated)"
INTERLEAVED, SEQUENTIAL, SHUFFLE = "interleaved (tid % 2s)", "sequential (tid < s)", "warp shuffle"


@pytest.fixture(scope="module")
def result():
    return drive(run(SMALL, Context()))


def by_variant(result, series_name):
    return {p.extra["variant"]: p.y for p in result.get_series(series_name).points}


def test_reduction_is_registered_and_its_series_are_emulated(result):
    assert get("reduction").run is run
    for name in (WARP, BRANCH, INSTRUCTIONS):
        series = result.get_series(name)
        assert series.provenance.kind == "emulated"
        assert [p.extra["variant"] for p in series.points] == [INTERLEAVED, SEQUENTIAL, SHUFFLE]


def test_every_reduction_gives_the_exact_per_block_sums(result):
    assert all(p.extra["matches_reference"] for p in result.get_series(WARP).points)


def test_interleaved_addressing_leaves_more_lanes_idle_than_sequential_addressing(result):
    warp, branch = by_variant(result, WARP), by_variant(result, BRANCH)
    assert warp[INTERLEAVED] < warp[SEQUENTIAL]
    assert branch[INTERLEAVED] < branch[SEQUENTIAL]


def test_warp_shuffles_need_the_fewest_instructions(result):
    instructions = by_variant(result, INSTRUCTIONS)
    assert instructions[SHUFFLE] < instructions[SEQUENTIAL] < instructions[INTERLEAVED]


def test_a_block_that_is_not_a_power_of_two_is_refused():
    with pytest.raises(ValueError, match="power of two"):
        Params(block=192)


@pytest.mark.skipif(cuda.gpu_available(), reason="this machine has a GPU")
def test_without_a_gpu_reduction_has_no_measured_series_and_says_why(result):
    assert result.get_series(GPU_TIME_SERIES) is None
    assert any(n.startswith("No measured GPU series:") for n in result.notes)


@pytest.mark.gpu
def test_with_a_gpu_the_reductions_are_timed_and_match_the_emulator(result):
    times = result.get_series(GPU_TIME_SERIES)
    assert times.provenance.kind == "measured"
    assert all(p.extra["matches_emulator"] for p in times.points)


@pytest.mark.parametrize("lab", ["reduction", "divergence"])
def test_an_n_whose_emulation_cannot_fit_in_memory_is_refused_before_anything_is_allocated(monkeypatch, lab):
    from gpulab import experiments, hostmem
    from gpulab.catalogue import render
    from gpulab.experiments import Context, ParamError, drive

    monkeypatch.setattr(hostmem, "available_memory_bytes", lambda: 16 << 30)
    module = experiments.get(lab)
    params = experiments.params_from_strings(module.Params, {"n": str((1 << 31) - 64)})
    with pytest.raises(ParamError) as refused:
        drive(module.run(params, Context()))
    assert "16 GiB is free" in render(refused.value.message) and "TiB" in render(refused.value.message)
