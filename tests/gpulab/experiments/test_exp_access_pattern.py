import json

import pytest

from gpulab import cuda, experiments
from gpulab.experiments import Context, drive, get
from gpulab.experiments.access_pattern import Params, run
from gpulab.experiments.access_pattern.cases import MEASURED_KEY, MODEL_KEY, cases, memory_step
from gpulab.lab.emulated import GPU_TIME_SERIES
from gpulab.model import memory_share
from gpulab.results import from_json_dict
from gpulab.specs import load_specs

SMALL = Params(n=512, block=128, strides=(1, 2, 4, 8, 16, 32), offset=1, f64_strides=(1, 2, 4, 8),
               struct_floats=4, gpu_n=1 << 21, repeats=3)  # on a GPU: 2^16 threads ran each case in ~12 µs,
# latency-bound alike (an H200 timed stride 32 faster than coalesced); 2^21 makes them bandwidth-bound
SECTORS = "sectors per request (emulated)"
EFFICIENCY = "load efficiency (emulated)"
SECTORS_IN = "sectors-per-request-in"


@pytest.fixture(scope="module")
def result():
    return drive(run(SMALL, Context()))


def by_variant(result, series_name):
    return {p.extra["variant"]: p.y for p in result.get_series(series_name).points}


def test_access_pattern_is_registered_and_its_counts_are_emulated(result):
    assert get("access-pattern").run is run
    for name in (SECTORS, EFFICIENCY, SECTORS_IN, "bytes-fetched-per-request", "bytes-used-per-request"):
        series = result.get_series(name)
        assert series.provenance.kind == "emulated"
        assert len(series.points) == 1 + 6 + 1 + 1 + 4 + 2  # coalesced, strides, gather, misaligned, float64, AoS, SoA


def test_the_old_name_coalescing_still_runs_the_lab_and_is_not_listed_twice():
    assert get("coalescing") is get("access-pattern")
    assert "coalescing" not in experiments.names() and experiments.canonical("coalescing") == "access-pattern"


@pytest.mark.parametrize("stride", [1, 2, 4, 8, 16, 32])
def test_float32_stride_s_needs_min_s_8_times_4_sectors_per_request(result, stride):
    assert by_variant(result, SECTORS_IN)[f"stride {stride}"] == min(stride, 8) * 4


@pytest.mark.parametrize("stride", [1, 2, 4, 8])
def test_float64_doubles_the_sectors_of_float32_up_to_one_per_lane(result, stride):
    assert by_variant(result, SECTORS_IN)[f"float64 stride {stride}"] == min(8 * stride, 32)


def test_misaligned_by_one_float_straddles_five_sectors_and_soa_needs_four(result):
    sectors = by_variant(result, SECTORS_IN)
    assert sectors["misaligned +1"] == 5
    assert sectors["coalesced"] == 4
    assert sectors["SoA 4 floats"] == 4


def test_reading_one_field_of_an_array_of_structs_loads_like_stride_k(result):
    sectors = by_variant(result, SECTORS_IN)
    assert sectors["AoS 4 floats"] == sectors["stride 4"] == 16


def test_bytes_fetched_and_used_per_request_are_exact(result):
    fetched, used = by_variant(result, "bytes-fetched-per-request"), by_variant(result, "bytes-used-per-request")
    assert (fetched["coalesced"], used["coalesced"]) == (128, 128)
    assert (fetched["stride 32"], used["stride 32"]) == (1024, 128)
    assert (fetched["misaligned +1"], used["misaligned +1"]) == (160, 128)
    assert (fetched["float64 stride 1"], used["float64 stride 1"]) == (256, 256)
    assert (fetched["float64 stride 8"], used["float64 stride 8"]) == (1024, 256)
    assert (fetched["AoS 4 floats"], used["AoS 4 floats"]) == (512, 128)
    assert (fetched["SoA 4 floats"], used["SoA 4 floats"]) == (128, 128)


def test_load_efficiency_counts_the_element_size(result):
    efficiency = by_variant(result, EFFICIENCY)
    assert efficiency["coalesced"] == efficiency["float64 stride 1"] == 100
    assert efficiency["stride 32"] == 12.5 and efficiency["float64 stride 2"] == 50


def test_modelled_gb_s_is_the_achievable_bandwidth_times_useful_over_fetched_bytes(result):
    spec = load_specs().get("h100-sxm")
    bandwidth = memory_share(spec).gb_s  # the share a published streaming benchmark reached, not the peak
    assert bandwidth < spec.memory_bandwidth_gb_s
    model = result.get_series(MODEL_KEY)
    assert model.provenance.kind == "modelled" and model.role == "model"
    assert model.provenance.details["memory_bandwidth_gb_s"] == spec.memory_bandwidth_gb_s  # the peak line
    assert model.provenance.details["achievable_gb_s"] == bandwidth
    points = {p.extra["variant"]: p for p in model.points}
    assert points["coalesced"].y == pytest.approx(bandwidth)
    # stride 32: each warp loads 32 sectors for 128 bytes and stores 4 sectors, all used: 256 / 1152
    assert points["stride 32"].y == pytest.approx(bandwidth * 256 / 1152)
    for point in model.points:
        assert point.y == pytest.approx(bandwidth * point.extra["used_bytes"] / point.extra["fetched_bytes"])


def test_another_model_gpu_scales_the_modelled_series_and_an_unknown_one_is_refused():
    small = dict(n=64, block=64, strides=(1,), f64_strides=(1,))
    a100 = drive(run(Params(**small, model_gpu="a100-sxm4-80gb"), Context()))
    assert a100.get_series(MODEL_KEY).points[0].y == pytest.approx(memory_share(load_specs()["a100-sxm4-80gb"]).gb_s)
    with pytest.raises(experiments.ExperimentError, match="model_gpu"):
        drive(run(Params(**small, model_gpu="no-such-gpu"), Context()))


def test_the_notes_name_the_achievable_share_and_its_source(result):
    share = memory_share(load_specs().get("h100-sxm"))
    note = next(n for n in result.notes if n.startswith("The modelled NVIDIA H100"))
    assert f"{share.gb_s:.0f} GB/s" in note and share.percent in note and share.source in note
    assert any(f"achievable memory bandwidth ({share.gb_s:.0f} GB/s)" in n for n in result.notes)


def test_each_case_carries_one_warps_request_that_the_memory_view_can_draw(result):
    rows = {row.label.text: row for row in cases(result)}
    assert len(rows) == 15
    stride2 = memory_step(rows["stride 2"])
    assert stride2.active_lanes == 32 and stride2.itemsize == 4
    assert (stride2.sectors_fetched, stride2.sectors_needed) == (8, 4)
    misaligned = memory_step(rows["misaligned +1"])
    assert (misaligned.sectors_fetched, misaligned.sectors_needed) == (5, 4)
    doubles = memory_step(rows["float64 stride 1"])
    assert doubles.itemsize == 8 and doubles.sectors_fetched == 8
    assert rows["AoS 4 floats"].kernel == "load_aos" and rows["AoS 4 floats"].sizes["fields"] == 4


def test_the_case_table_survives_a_saved_result_and_an_old_coalescing_one(result):
    document = json.loads(result.to_json())
    assert len(json.dumps(document)) < 200_000  # the stored requests keep the result small
    again = cases(from_json_dict(document).as_replayed())
    assert [r.sectors_per_request for r in again] == [r.sectors_per_request for r in cases(result)]
    assert again[0].gb_s_kind == "modelled" and again[0].request is not None
    document["experiment"] = "coalescing"  # a result saved before the rename, without the new series
    document["series"] = [s for s in document["series"] if s["key"] in (SECTORS_IN, "sectors-per-request")]
    for series in document["series"]:
        for point in series["points"]:
            for key in ("case", "request", "traffic", "sizes"):
                point["extra"].pop(key, None)
    old = from_json_dict(document)
    assert get(old.experiment) is get("access-pattern")
    rows = cases(old)
    assert rows[1].label.text == "stride 1" and rows[1].sectors_per_request == 4
    assert rows[1].request is None and memory_step(rows[1]) is None and rows[1].gb_s is None


def test_a_case_shows_the_modelled_gb_s_when_nothing_was_measured(result):
    rows = cases(result)
    if result.get_series(MEASURED_KEY) is None:
        assert all(r.gb_s_kind == "modelled" for r in rows)
    assert rows[0].efficiency_percent == 100


def test_misaligned_loads_and_gathers_scatter(result):
    sectors = by_variant(result, SECTORS)
    assert 4 < sectors["random gather"] < 32
    alone = by_variant(result, SECTORS_IN)
    assert alone["random gather"] > sectors["random gather"] and alone["random gather"] > 16


def test_load_sites_from_the_trace_account_for_every_load_request(result):
    point = next(p for p in result.get_series(SECTORS).points if p.extra["variant"] == "random gather")
    sites = point.extra["load_sites"]
    assert [s["buffer"] for s in sites] == ["idx", "in"]
    assert sites[0]["line"] == sites[1]["line"]
    assert sites[0]["sectors_per_request"] == 4
    assert sum(s["requests"] for s in sites) == 2 * SMALL.n // 32
    assert all(s["bytes_used"] == 4 * SMALL.n for s in sites)


def test_an_emulated_size_too_big_to_trace_every_warp_is_refused():
    with pytest.raises(ValueError, match=r"^n: must be a multiple of 32 from 32 to 65536, got 1048576$"):
        Params(n=1 << 20)


@pytest.mark.skipif(cuda.gpu_available(), reason="this machine has a GPU")
def test_without_a_gpu_there_is_no_measured_series_and_the_notes_say_why(result):
    assert result.get_series(GPU_TIME_SERIES) is None and result.get_series(MEASURED_KEY) is None
    assert any(n.startswith("No measured GPU series:") for n in result.notes)


@pytest.mark.gpu
def test_with_a_gpu_every_case_is_timed_matches_the_emulator_and_gets_its_measured_gb_s(result):
    times = result.get_series(GPU_TIME_SERIES)
    assert times.provenance.kind == "measured"
    assert all(p.extra["matches_emulator"] for p in times.points)
    measured = result.get_series(MEASURED_KEY)
    assert measured.provenance.kind == "measured" and measured.role == "gpu"
    assert len(measured.points) == len(times.points) == 15
    for rate, time in zip(measured.points, times.points, strict=True):
        assert rate.y == pytest.approx(rate.extra["used_bytes"] / (time.y * 1e-3) / 1e9)
    rows = {r.label.text: r for r in cases(result)}
    assert all(r.gb_s_kind == "measured" for r in rows.values())
    assert rows["coalesced"].gb_s > rows["stride 32"].gb_s  # the GPU shows what the emulator counts


def test_each_default_case_opens_in_the_warp_visualizer_at_a_preset_with_its_own_sizes():
    from gpulab.experiments.access_pattern.cases import preset_for

    rows = {r.label.text: r for r in cases(drive(run(Params(n=64, block=64), Context())))}
    assert preset_for(rows["stride 8"]) == "stride=8" and preset_for(rows["stride 4"]) == "tiny"
    assert preset_for(rows["float64 stride 4"]) == "stride=4" and preset_for(rows["AoS 4 floats"]) == "tiny"
    assert preset_for(rows["stride 16"]) == "tiny"  # no preset of its own: the smallest one
    for row in rows.values():
        preset = experiments.kernel(row.kernel).preset(preset_for(row))
        assert preset.threads <= 64


def test_measured_gb_s_are_the_useful_bytes_over_the_gpus_kernel_time(monkeypatch):
    """The measured path without a GPU: the timing is faked, the arithmetic and labels are real."""
    from gpulab import cuda as cuda_module
    from gpulab.devices import CudaStatus
    from gpulab.lab import emulated

    status = CudaStatus(True, "", "ok", cupy_version="13.0", cuda_runtime_version="12.4", cuda_driver_version="12.4")
    monkeypatch.setattr(cuda_module, "cuda_status", lambda: status)
    monkeypatch.setattr(emulated, "gpu_matches_emulator", lambda run, device: True)
    monkeypatch.setattr(emulated, "time_on_gpu", lambda variant, n, repeats, device: (
        [1e-3] * repeats, variant.preset(n)))  # fmt: skip
    params = Params(n=64, block=64, strides=(32,), f64_strides=(1,), gpu_n=1 << 20, repeats=3)
    result = drive(run(params, Context()))
    measured = result.get_series(MEASURED_KEY)
    assert measured.provenance.kind == "measured" and measured.role == "gpu"
    rates = {p.extra["variant"]: p.y for p in measured.points}
    # a float32 copy moves 8 useful bytes per element, a float64 copy 16, the gather 12: in 1 ms each
    assert rates["coalesced"] == pytest.approx(8 * (1 << 20) / 1e-3 / 1e9)
    assert rates["float64 stride 1"] == pytest.approx(16 * (1 << 20) / 1e-3 / 1e9)
    assert rates["random gather"] == pytest.approx(12 * (1 << 20) / 1e-3 / 1e9)
    rows = {r.label.text: r for r in cases(result)}
    assert all(r.gb_s_kind == "measured" for r in rows.values())
    assert rows["stride 32"].gb_s == pytest.approx(rates["stride 32"])


def test_the_validation_rows_price_a_case_as_the_lab_models_it(result):
    from gpulab.validation.memory import access_pattern_gb_s

    modelled = {p.extra["variant"]: p.y for p in result.get_series(MODEL_KEY).points}
    for case in ("coalesced", "stride 2", "stride 32"):
        assert access_pattern_gb_s({"gpu": "h100-sxm", "case": case}) == pytest.approx(modelled[case], rel=0.02), case
    with pytest.raises(ValueError, match="case must be one of coalesced"):
        access_pattern_gb_s({"gpu": "h100-sxm", "case": "zigzag"})
