"""PCIe transfers: modelled Gen3/4/5 curves anywhere; the link as NVML reads it; clamping to free
memory; the keep-it-on-the-GPU numbers; a faked GPU that fails mid-sweep; the CuPy paths on a GPU."""

from __future__ import annotations

import types

import numpy as np
import pytest

from gpulab import cuda, devices, experiments
from gpulab.catalogue import render
from gpulab.devices import CudaStatus, GpuInfo
from gpulab.experiments import Context, ParamError, PartialPoint, drive, transfer
from gpulab.experiments.transfer import gpu as transfer_gpu
from gpulab.experiments.transfer.gpu import LinkReading
from gpulab.model import DEFAULT_COPY_LATENCY_S, DEFAULT_PINNED_EFFICIENCY, pcie_gb_s_per_direction
from gpulab.model.transfer import BOTH_WAYS_SHARE

SMALL = (4096, 1 << 20, 1 << 28)


@pytest.fixture(scope="module")
def modelled():
    """A run on this machine with the GPU path switched off: only the modelled series."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cuda, "cuda_status", lambda: CudaStatus(False, "no GPU in this test", "no-device"))
        return drive(transfer.run(transfer.Params(sizes=SMALL), Context()))


# ------------------------------------------------------------------ the model


@pytest.mark.parametrize(("gen", "rate"), [(3, 15.75), (4, 31.5), (5, 63.0)])
def test_without_a_gpu_each_generation_has_modelled_pinned_and_pageable_curves_against_its_rate(modelled, gen, rate):
    for kind in ("pinned", "pageable"):
        series = modelled.get_series(f"model-gen{gen}-{kind}")
        assert series is not None and series.role == "model" and series.provenance.kind == "modelled"
        assert [p.x for p in series.points] == list(SMALL)
        assert series.provenance.details["link_gb_s_per_direction"] == pytest.approx(rate, rel=0.002)
        for point in series.points:
            assert point.extra["percent_of_peak"] == pytest.approx(100 * point.y / series.provenance.details[
                "link_gb_s_per_direction"])


@pytest.mark.parametrize("gen", [3, 4, 5])
def test_small_copies_sit_on_the_latency_floor_and_large_ones_approach_efficiency_times_rate(modelled, gen):
    rate = pcie_gb_s_per_direction(gen)
    pinned = modelled.get_series(f"model-gen{gen}-pinned")
    small, large = pinned.points[0], pinned.points[-1]
    assert small.y < 0.05 * rate  # 4 KiB: the 10 µs start-up cost is nearly all of it
    assert small.extra["seconds"] == pytest.approx(4096 / (rate * 1e9 * DEFAULT_PINNED_EFFICIENCY)
                                                   + DEFAULT_COPY_LATENCY_S)
    assert large.y == pytest.approx(DEFAULT_PINNED_EFFICIENCY * rate, rel=0.01)  # 256 MiB
    assert modelled.get_series(f"model-gen{gen}-pageable").points[-1].y < large.y


def test_the_modelled_run_is_labelled_and_lists_its_assumptions(modelled):
    assert all(s.role == "model" for s in modelled.series)
    text = " ".join(modelled.notes)
    assert "No GPU series: no GPU in this test" in text
    for gen in ("Gen3", "Gen4", "Gen5"):
        assert f"The host link is PCIe {gen} x16" in text
    assert "fixed start-up cost of 10 µs" in text and "pageable host memory reach 33%" in text
    assert "Latency floor (modelled)" in text
    assert "copies host to GPU keep 47% of their one-way rate, copies GPU to host 94%" in text


def test_both_ways_at_once_the_gen4_link_gives_each_direction_its_cited_share(modelled):
    one_way = modelled.get_series("model-gen4-pinned").points[-1]  # 256 MiB, alone on the link
    h2d, d2h = (modelled.get_series(f"model-both-{way}") for way in ("h2d", "d2h"))
    assert h2d.role == d2h.role == "model" and h2d.provenance.details["link"] == "PCIe Gen4 x16"
    assert [p.x for p in h2d.points] == list(SMALL)
    assert h2d.points[-1].y == pytest.approx(one_way.y * BOTH_WAYS_SHARE[4]["h2d"], rel=0.01)
    assert d2h.points[-1].y == pytest.approx(one_way.y * BOTH_WAYS_SHARE[4]["d2h"], rel=0.01)
    note = next(n for n in modelled.notes if n.message.key == "note.transfer.both-ways")
    assert note.message.args["h2d"] == f"{h2d.points[-1].y:.1f}" and note.message.args["size"] == "256 MiB"


@pytest.mark.parametrize("choice", [{"directions": "h2d"}, {"memory": "pageable"}])
def test_both_ways_at_once_is_modelled_only_for_both_directions_of_pinned_copies(monkeypatch, choice):
    monkeypatch.setattr(cuda, "cuda_status", lambda: CudaStatus(False, "no GPU in this test", "no-device"))
    result = drive(transfer.run(transfer.Params(sizes=(4096, 1 << 20), **choice), Context()))
    assert not any(s.key.startswith("model-both-") for s in result.series)
    assert not any(n.message.key == "note.transfer.both-ways" for n in result.notes)


def test_every_series_shares_the_bytes_and_gb_s_axes_so_a_generic_plot_reads_right(modelled):
    assert {(s.x_label, s.x_unit, s.y_label, s.y_unit) for s in modelled.series} == {
        ("bytes per copy", "B", "bandwidth", "GB/s")}


def test_the_keep_it_on_the_gpu_model_counts_a_start_up_cost_per_copy():
    link = transfer.PcieLink(4)
    many_s, one_s = transfer.batch_seconds_modelled(link, 1000, 4096)
    per_copy = 4096 / (link.gb_s_per_direction * 1e9 * DEFAULT_PINNED_EFFICIENCY) + DEFAULT_COPY_LATENCY_S
    assert many_s == pytest.approx(2 * 1000 * per_copy)
    assert one_s == pytest.approx(2 * (4096e3 / (link.gb_s_per_direction * 1e9 * DEFAULT_PINNED_EFFICIENCY)
                                       + DEFAULT_COPY_LATENCY_S))
    assert many_s / one_s > 50


def test_the_modelled_batching_pair_and_its_note(modelled):
    many, one = modelled.get_series("model-batch-round-trips"), modelled.get_series("model-batch-one-copy")
    assert many.name == "1024 round trips × 4 KiB (model)" and one.name == "one batched copy of 4 MiB (model)"
    assert many.points[0].x == one.points[0].x == 1024 * 4096
    assert many.points[0].extra["copies"] == 2048 and one.points[0].extra["copies"] == 2
    assert many.points[0].extra["seconds"] > 50 * one.points[0].extra["seconds"]
    assert many.provenance.device == "PCIe Gen4 x16"  # the lesson's link when Gen4 is listed
    assert any(note.startswith("Keep it on the GPU (modelled): 1024 round trips of 4 KiB") for note in modelled.notes)


@pytest.mark.parametrize(("assignment", "named"), [
    ({"sizes": "0"}, "sizes"), ({"sizes": "2^31"}, "sizes"), ({"directions": "up"}, "directions"),
    ({"memory": "shared"}, "memory"), ({"model_gens": "6"}, "model_gens"),
    ({"batch_chunks": "2^20", "batch_chunk_bytes": "2^20"}, "batch_chunks"),
])  # fmt: skip
def test_bad_parameters_name_the_field(assignment, named):
    with pytest.raises(ParamError, match=named):
        experiments.params_from_strings(transfer.Params, assignment)


def test_sizes_are_written_in_binary_units():
    assert [transfer.bytes_text(n) for n in (1000, 4096, 1 << 28, 1 << 30, 1536)] == [
        "1000 B", "4 KiB", "256 MiB", "1 GiB", "1.5 KiB"]


# ------------------------------------------------------------------ the link as NVML reads it


def _fake_nvml(gen_now=1, gen_max=5, width_now=16, width_max=16, fail_pcie=False):
    def pcie(value):
        def call(_handle):
            if fail_pcie:
                raise RuntimeError("NVML_ERROR_NOT_SUPPORTED")
            return value
        return call

    return types.SimpleNamespace(
        nvmlDeviceGetHandleByPciBusId=lambda bus: "handle",
        nvmlDeviceGetCurrPcieLinkGeneration=pcie(gen_now), nvmlDeviceGetMaxPcieLinkGeneration=pcie(gen_max),
        nvmlDeviceGetCurrPcieLinkWidth=pcie(width_now), nvmlDeviceGetMaxPcieLinkWidth=pcie(width_max),
        nvmlDeviceGetPowerUsage=lambda h: 70000, nvmlDeviceGetEnforcedPowerLimit=lambda h: 700000,
        nvmlSystemGetDriverVersion=lambda: b"560.35", nvmlDeviceGetTemperature=lambda h, sensor: 40,
        NVML_TEMPERATURE_GPU=0,
    )  # fmt: skip


def test_an_idle_link_below_its_maximum_reads_as_downshifted_and_is_compared_with_its_maximum(monkeypatch):
    monkeypatch.setattr("gpulab.nvml.library", lambda: _fake_nvml(gen_now=1, gen_max=5))
    reading = transfer_gpu.link_from_nvml(devices.nvml_info("0000:07:00.0"))
    assert (reading.gen_current, reading.gen_max, reading.width_current, reading.width_max) == (1, 5, 16, 16)
    assert reading.source == "nvml" and reading.downshifted and reading.current_label == "Gen1 x16"
    assert reading.link == transfer.PcieLink(5, 16)
    notes = [render(note) for note in transfer.link_notes(reading)]
    assert notes[0].startswith("Link: PCIe Gen5 x16, read from NVML (the driver): 63.0 GB/s per direction")
    assert "At rest the link ran at Gen1 x16, below its maximum Gen5 x16" in notes[1]
    assert "链路" in render(transfer.link_notes(reading)[1], "zh")


def test_a_link_at_its_maximum_and_a_narrowed_link(monkeypatch):
    monkeypatch.setattr("gpulab.nvml.library", lambda: _fake_nvml(gen_now=4, gen_max=4))
    full = transfer_gpu.link_from_nvml(devices.nvml_info("0000:07:00.0"))
    assert not full.downshifted and len(transfer.link_notes(full)) == 1
    narrow = LinkReading(4, 4, 8, 16, "nvml")
    assert narrow.downshifted and narrow.link == transfer.PcieLink(4, 16)
    still = transfer.link_notes(full, after=LinkReading(1, 4, 16, 16, "nvml"))
    assert "Right after the copies NVML still read Gen1 x16" in render(still[-1])


@pytest.mark.parametrize("nvml", [None, _fake_nvml(fail_pcie=True)])
def test_without_nvml_or_its_pcie_figures_the_link_is_unknown_and_nothing_raises(monkeypatch, nvml):
    monkeypatch.setattr("gpulab.nvml.library", lambda: nvml)
    reading = transfer_gpu.link_from_nvml(devices.nvml_info("0000:07:00.0"))
    assert reading.link is None and not reading.downshifted and reading.current_label == "Gen? x?"
    assert reading.details()["link_gb_s_per_direction"] is None
    assert transfer.link_ceiling(reading.link, reading.source) is None
    assert "Neither NVML nor the spec table" in render(transfer.link_notes(reading)[0])


def _gpu_status(name="NVIDIA H100 PCIe"):
    gpu = GpuInfo(0, name, "9.0", 114, 80 << 30, None, None, None, None, "0000:07:00.0", None)
    return CudaStatus(True, "1 CUDA device", "ok", (gpu,), "13.3", "12.9", "12.9")


def test_read_link_falls_back_to_the_spec_table_when_nvml_says_nothing(monkeypatch):
    monkeypatch.setattr(cuda, "cuda_status", _gpu_status)
    monkeypatch.setattr("gpulab.nvml.library", lambda: None)
    reading = transfer_gpu.read_link(0)
    assert reading.source == "spec" and reading.link == transfer.PcieLink(5, 16)  # H100 PCIe: Gen5 x16
    assert transfer_gpu.read_link(3) == LinkReading()  # no such device
    monkeypatch.setattr(cuda, "cuda_status", lambda: _gpu_status("Some Unknown Accelerator"))
    assert transfer_gpu.read_link(0).link is None


# ------------------------------------------------------------------ clamping


def test_sizes_beyond_the_limit_are_clamped_to_the_largest_power_of_two_within_it():
    assert transfer.clamp_sizes((4096, 1 << 20, 1 << 30), 3 << 20) == (4096, 1 << 20, 2 << 20)
    assert transfer.clamp_sizes((1 << 28, 1 << 29, 1 << 30), 1 << 27) == (1 << 27,)
    assert transfer.clamp_sizes((4096,), 0) == ()


def test_clamping_to_memory_names_the_memory_that_was_short():
    params = transfer.Params(sizes=(4096, 1 << 30), batch_chunks=1 << 16, batch_chunk_bytes=4096)
    sizes, chunks, notes = transfer.clamp_to_memory(params, {"host": 1 << 29, "device": 1 << 40})
    assert sizes == (4096, 1 << 29) and chunks == 1 << 16
    assert [render(n) for n in notes] == [
        "Sizes and batches above 512 MiB were cut down to fit: that is as much as the free host memory allows here."]
    sizes, chunks, notes = transfer.clamp_to_memory(params, {"device": 1 << 20})
    assert sizes == (4096, 1 << 20) and chunks == 256 and "GPU memory" in render(notes[0])
    assert transfer.clamp_to_memory(params, {}) == (params.sizes, params.batch_chunks, [])


def test_buffer_limits_keep_a_share_of_each_memory_free():
    limits = transfer_gpu.buffer_limits(host_free=8 << 30, device_free=4 << 30, host_buffers=2)
    assert limits == {"host": 2 << 30, "device": 2 << 30}
    assert transfer_gpu.buffer_limits(None, None, 2) == {}


# ------------------------------------------------------------------ a faked GPU


class FakeCopies:
    """Copies timed by the model of a Gen4 link at 80%; ``fail_at`` bytes raises like a GPU error."""

    def __init__(self, max_bytes, kinds, fail_at=None):
        self.max_bytes, self.kinds, self.fail_at, self.closed = max_bytes, kinds, fail_at, False

    def copy_call(self, direction, kind, n):
        assert n <= self.max_bytes and kind in self.kinds
        return ("copy", n * (1 if kind == "pinned" else 2))

    def round_trips_call(self, chunks, chunk_bytes):
        return ("trips", chunks, chunk_bytes)

    def batched_call(self, chunks, chunk_bytes):
        return ("batch", chunks, chunk_bytes)

    def time(self, call, policy, check):
        check()
        if call[0] == "copy":
            if self.fail_at is not None and call[1] >= self.fail_at:
                raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
            return [call[1] / 25.2e9 + 5e-6] * 3
        if call[0] == "trips":
            return [call[1] * 2 * 7e-6] * 3
        return [2 * (call[1] * call[2] / 25.2e9 + 5e-6)] * 3

    def close(self):
        self.closed = True


IDLE_GEN1 = LinkReading(1, 4, 16, 16, "nvml")


def _fake_gpu(monkeypatch, fail_at=None, host_free=64 << 30, reading=IDLE_GEN1):
    made = []

    def open_copies(device, max_bytes, kinds):
        made.append(FakeCopies(max_bytes, kinds, fail_at))
        return made[-1]

    monkeypatch.setattr(cuda, "cuda_status", _gpu_status)
    monkeypatch.setattr(transfer_gpu, "read_link", lambda device: reading)
    monkeypatch.setattr(transfer_gpu, "free_host_bytes", lambda: host_free)
    monkeypatch.setattr(transfer_gpu, "free_device_bytes", lambda device: 40 << 30)
    monkeypatch.setattr(transfer_gpu, "open_copies", open_copies)
    return made


def test_with_a_gpu_every_direction_and_memory_is_measured_beside_a_model_of_its_own_link(monkeypatch):
    made = _fake_gpu(monkeypatch)
    events = []
    result = drive(transfer.run(transfer.Params(sizes=(4096, 1 << 20)), Context()), events.append)
    keys = [s.key for s in result.series]
    assert keys[:4] == ["h2d-pinned", "h2d-pageable", "d2h-pinned", "d2h-pageable"]
    assert {"batch-round-trips", "batch-one-copy", "model-link-pinned", "model-link-pageable"} <= set(keys)
    assert not any(key.startswith("model-gen") for key in keys)
    h2d = result.get_series("h2d-pinned")
    assert h2d.role == "gpu" and h2d.provenance.kind == "measured" and h2d.provenance.device == "NVIDIA H100 PCIe"
    assert h2d.provenance.details["pcie_gen_current"] == 1 and h2d.provenance.details["link"] == "PCIe Gen4 x16"
    assert h2d.points[-1].extra["percent_of_peak"] == pytest.approx(100 * h2d.points[-1].y / 31.5, rel=0.01)
    assert made[0].closed and made[0].kinds == ("pageable", "pinned")
    assert next(e.series for e in events if isinstance(e, PartialPoint)) == "host → GPU, pinned"
    text = " ".join(result.notes)
    assert "At rest the link ran at Gen1 x16" in text and "Latency floor (measured)" in text
    assert "Keep it on the GPU (measured)" in text


def test_a_gpu_error_mid_sweep_keeps_the_points_so_far_and_says_what_happened(monkeypatch):
    made = _fake_gpu(monkeypatch, fail_at=1 << 20)
    result = drive(transfer.run(transfer.Params(sizes=(4096, 1 << 20, 1 << 22)), Context()))
    for key in ("h2d-pinned", "h2d-pageable", "d2h-pinned", "d2h-pageable"):
        assert [p.x for p in result.get_series(key).points] == [4096]
    assert not result.get_series("batch-round-trips").points
    error = next(note for note in result.notes if note.startswith("The GPU failed while"))
    assert "Copying: host → GPU, pinned, 1 MiB" in error and "cudaErrorIllegalAddress" in error
    assert made[0].closed
    assert result.get_series("model-batch-one-copy").points  # the model still speaks


def test_sizes_beyond_free_host_memory_are_clamped_with_a_note_not_allocated(monkeypatch):
    made = _fake_gpu(monkeypatch, host_free=1 << 30)  # half of it, over two host buffers: 256 MiB each
    result = drive(transfer.run(transfer.Params(sizes=(4096, 1 << 30)), Context()))
    assert made[0].max_bytes == 1 << 28
    assert [p.x for p in result.get_series("h2d-pinned").points] == [4096, 1 << 28]
    assert any("cut down to fit" in note and "host memory" in note for note in result.notes)


def test_an_unknown_link_measures_without_percentages(monkeypatch):
    _fake_gpu(monkeypatch, reading=LinkReading())
    result = drive(transfer.run(transfer.Params(sizes=(4096,), memory="pinned", directions="h2d"),
                                Context()))  # fmt: skip
    assert "percent_of_peak" not in result.get_series("h2d-pinned").points[0].extra
    assert any(note.startswith("Neither NVML nor the spec table") for note in result.notes)


# ------------------------------------------------------------------ the CuPy paths, on a GPU


@pytest.mark.gpu
def test_on_a_gpu_pinned_and_pageable_copies_move_the_bytes_both_ways():
    copies = transfer_gpu.CupyCopies(0, 1 << 20, ("pinned", "pageable"))
    try:
        copies.host["pinned"][:] = np.arange(1 << 20, dtype=np.uint32).astype(np.uint8)
        copies.copy_call("h2d", "pinned", 1 << 20)()
        copies.cupy.cuda.get_current_stream().synchronize()
        assert np.array_equal(copies.device_buffer.get(), copies.host["pinned"])
        copies.device_buffer[:4096] = 7
        copies.copy_call("d2h", "pageable", 4096)()
        copies.cupy.cuda.get_current_stream().synchronize()
        assert (copies.host["pageable"][:4096] == 7).all() and (copies.host["pageable"][4096:] == 1).all()
        samples = copies.time(copies.copy_call("h2d", "pinned", 1 << 20), transfer.RepeatPolicy(repeats=3), None)
        assert len(samples) >= 3 and all(s > 0 for s in samples)
    finally:
        copies.close()


@pytest.mark.gpu
def test_on_a_gpu_the_sweep_measures_with_percentages_of_the_link_and_batching_wins():
    params = transfer.Params(sizes=(4096, 1 << 22), batch_chunks=256)
    result = drive(transfer.run(params, Context()))
    assert not any(note.startswith("The GPU failed") for note in result.notes), result.notes
    h2d = result.get_series("h2d-pinned")
    assert h2d.provenance.kind == "measured" and len(h2d.points) == 2
    assert h2d.points[0].y < h2d.points[1].y  # the latency floor
    if h2d.provenance.details["link"] is not None:
        assert 0 < h2d.points[1].extra["percent_of_peak"] <= 110
    many, one = result.get_series("batch-round-trips"), result.get_series("batch-one-copy")
    assert many.points[0].extra["seconds"] > one.points[0].extra["seconds"]


def test_repeat_counts_shrink_to_the_time_budget():
    roomy = transfer._Budget(10.0, points=10).policy()
    assert roomy.repeats == 3 and 0.5 < roomy.max_seconds <= 1.0
    spent = transfer._Budget(0.0, points=10).policy()
    assert spent.max_samples == 1  # over budget: one sample each, the sweep still ends with every point


def test_the_latency_floor_is_read_from_the_clean_copies_only():
    from gpulab.catalogue import msg
    from gpulab.measure import flagged
    from gpulab.results import Point, Provenance, Series

    def copy(x, gb_s, **extra):
        return Point(x, gb_s, None, {"seconds": x / gb_s / 1e9, **extra})

    stalled = flagged(copy(1 << 30, 0.02), ["busy"])  # the largest copy timed while the machine was busy
    series = Series("h2d", Provenance("measured", "gpu"), "bytes", "B", "rate", "GB/s", role="gpu", key="h2d-pinned",
                    points=(copy(1 << 10, 0.5), copy(1 << 20, 20.0, percent_of_peak=80.0), stalled))  # fmt: skip
    note = transfer.latency_note(series, msg("provenance.measured"))
    assert note.args["large"] == "1 MiB" and note.args["large_rate"] == "20.0" and note.args["percent"] == "80%"
