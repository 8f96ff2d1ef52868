"""SAXPY: two numpy forms and a modelled GPU on any machine; the kernel joins the catalogue."""

import numpy as np
import pytest

from gpulab import experiments, simt
from gpulab.cuda import cuda_status
from gpulab.experiments import Context, ParamError, drive, saxpy
from gpulab.model import DEFAULT_LAUNCH_OVERHEAD_S, memory_share
from gpulab.results import Result
from gpulab.specs import load_specs


@pytest.fixture(scope="module")
def result() -> Result:
    return drive(saxpy.run(saxpy.Params(sizes=(1024, 1 << 16), repeats=3), Context()))


def test_both_numpy_forms_are_measured_cpu_series_and_the_model_is_labelled_modelled(result):
    keys = {s.key: s for s in result.series}
    assert {"cpu-numpy-as-written", "cpu-numpy-out", "model"} <= set(keys)
    assert keys["cpu-numpy-as-written"].role == keys["cpu-numpy-out"].role == "cpu"
    assert keys["cpu-numpy-out"].provenance.kind == "measured"
    assert keys["model"].role == "model" and keys["model"].provenance.kind == "modelled"
    assert [p.x for s in result.series for p in s.points] == [1024, 1 << 16] * len(result.series)


def test_every_point_credits_the_12_bytes_per_element_saxpy_must_move(result):
    for series in result.series:
        for point in series.points:
            expected = 12 * point.x / point.extra["seconds"] / 1e9
            assert point.y == pytest.approx(expected, rel=0.3), series.key  # a median of rates vs of times


def test_the_modelled_h100_moves_12_bytes_per_element_at_its_achievable_bandwidth_plus_one_launch(result):
    spec = load_specs().get("h100-sxm")
    share = memory_share(spec)
    model = next(s for s in result.series if s.key == "model")
    assert model.provenance.device == spec.name and model.provenance.details["achievable_gb_s"] == share.gb_s
    assert any(share.source in note and share.percent in note for note in result.notes)
    for point in model.points:
        expected_s = 12 * point.x / (share.gb_s * 1e9) + DEFAULT_LAUNCH_OVERHEAD_S
        assert point.extra["seconds"] == pytest.approx(expected_s, rel=1e-6)
        assert point.extra["kernel_seconds"] > 2 * point.x / spec.peak_flops("fp32")  # bytes, not FLOP, set it


def test_the_notes_say_what_the_rate_counts_and_why_there_is_no_gpu_series(result):
    assert any("12 bytes per element" in note for note in result.notes)
    if not cuda_status().available:
        assert all(s.role != "gpu" for s in result.series)
        assert any(cuda_status().reason in note for note in result.notes)


def test_the_saxpy_kernel_joins_the_catalogue_and_the_emulator_matches_numpy():
    spec = experiments.kernel("saxpy")
    preset = spec.preset("tiny")
    args = spec.build_args(preset)
    expected = spec.expected(args)
    simt.launch(spec.source, spec.entry, preset.grid, preset.block, args)
    assert spec.matches(args, expected)
    assert not np.array_equal(expected[3], spec.build_args(preset)[3])  # y really changed


@pytest.mark.parametrize(("assignment", "named"), [({"sizes": "0"}, "sizes"), ({"repeats": "0"}, "repeats"),
                                                   ({"sizes": "2^29"}, "sizes")])  # fmt: skip
def test_bad_parameters_name_the_field(assignment, named):
    with pytest.raises(ParamError, match=named):
        experiments.params_from_strings(saxpy.Params, assignment)


@pytest.mark.gpu
def test_on_a_gpu_the_kernel_is_timed_with_a_percentage_of_the_bandwidth_ceiling():
    result = drive(saxpy.run(saxpy.Params(sizes=(1 << 22,), repeats=3), Context()))
    gpu = next(s for s in result.series if s.role == "gpu")
    assert gpu.provenance.kind == "measured" and gpu.points[0].y > 0
    assert 0 < gpu.points[0].extra.get("percent_of_peak", 0) <= 110
