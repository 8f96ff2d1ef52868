"""The warp lab's jobs return what the visualizer reads; Results and provenance come from the engine."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gpulab import kernels
from gpulab.experiments import Cancelled, Context, Progress
from gpulab.experiments import warp as ws


def run_to_end(gen, events=None):
    """What a job runner does: collect the events, return what the generator returns."""
    while True:
        try:
            event = next(gen)
        except StopIteration as stop:
            return stop.value
        if events is not None:
            events.append(event)


def even_odd():
    spec = kernels.get("divergence_even_odd")
    return spec, spec.presets[0]


def test_emulating_a_catalogue_kernel_returns_its_session_with_the_outputs_checked():
    spec, preset = even_odd()
    events: list[Progress] = []
    session = run_to_end(ws.emulate(spec, preset, spec.source, 0, Context()), events)
    assert isinstance(session, ws.WarpSession)
    assert session.entry == spec.entry and session.block == 0
    assert session.reference_match is True
    assert [type(e) for e in events] == [Progress]


def test_an_edited_source_that_changes_the_outputs_is_flagged_against_the_catalogue_reference():
    spec, preset = even_odd()
    edited = spec.source.replace("v = v * 3 + 1", "v = v * 3 + 2")
    assert edited != spec.source
    session = run_to_end(ws.emulate(spec, preset, edited, 0, Context()))
    assert session.reference_match is False


def test_a_cancelled_emulation_raises_the_experiments_cancelled_not_the_emulators():
    spec = kernels.get("matmul_tiled")
    preset = spec.preset("small")  # long enough to be still running when the cancel is seen
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_to_end(ws.emulate(spec, preset, spec.source, 0, Context(cancel_event=cancel)))


def test_the_session_result_is_the_first_warps_active_lane_staircase_labelled_emulated():
    spec, preset = even_odd()
    session = ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
    result = ws.session_result(session)
    (series,) = result.series
    assert series.provenance.kind == "emulated" and series.provenance.device == ws.EMULATOR_DEVICE
    assert [p.y for p in series.points] == [float(n) for n in session.timeline(0).active_lanes]
    assert result.params["kernel"] == spec.entry and result.params["traced_block"] == 0


def test_the_gpu_result_is_one_measured_time_per_launch_on_the_device_that_ran_it():
    spec, preset = even_odd()
    session = ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
    run = ws.GpuRun("Toy GPU", {1: True}, (2e-6, 3e-6, 4e-6))
    (series,) = ws.gpu_result(session, run).series
    assert series.provenance.kind == "measured" and series.provenance.device == "Toy GPU"
    assert series.provenance.details["repeats"] == 3
    assert np.allclose([p.y for p in series.points], run.times_s)


def test_a_kernel_launched_with_a_pointer_into_its_input_reads_its_halo_in_the_emulator_process():
    spec = kernels.get("stencil_1d")
    preset = spec.presets[0]
    args = spec.build_args(preset)
    assert args[0].base is not None  # in = d_in + RADIUS, a view into the halo'd array
    session = run_to_end(ws.emulate(spec, preset, spec.source, 0, Context()))
    assert session.reference_match is True  # out[0] read in[-2] and in[-1], inside the allocation


def test_constants_fill_constant_data_before_the_launch_in_the_emulator_process():
    spec = kernels.get("stencil_1d")
    preset = spec.presets[0]
    session = run_to_end(ws.emulate(spec, preset, spec.source, 0, Context(), constants={"weights": [0, 0, 1, 0, 0]}))
    inputs = spec.build_args(preset)[0]
    assert session.args[1].tolist() == inputs[: preset.sizes["n"]].tolist()  # the middle weight only: a copy
    assert session.reference_match is False and session.constants == {"weights": [0, 0, 1, 0, 0]}


def test_fmad_false_rounds_the_product_before_the_add_as_nvcc_fmad_false_does():
    spec = kernels.get("vector_add")
    preset = spec.presets[0]
    source = spec.source.replace("a[i] + b[i]", "a[i] * b[i] + a[i]")
    assert source != spec.source
    fused = run_to_end(ws.emulate(spec, preset, source, 0, Context()))
    separate = run_to_end(ws.emulate(spec, preset, source, 0, Context(), fmad=False))
    a, b = (x.astype(np.float64) for x in spec.build_args(preset)[:2])
    assert fused.fmad and not separate.fmad
    assert fused.args[2].tolist() == (a * b + a).astype(np.float32).tolist()  # rounded once
    product = (a * b).astype(np.float32).astype(np.float64)
    assert separate.args[2].tolist() == (product + a).astype(np.float32).tolist()  # rounded twice
    assert fused.args[2].tolist() != separate.args[2].tolist()


def test_two_views_into_one_array_cross_to_the_emulator_process_as_one_array():
    whole = np.arange(10, dtype=np.float32)
    packed = ws.server.pack_views([whole[2:], whole[5:8], np.float32(1), whole])
    import pickle

    first, second, scalar, same = ws.server.unpack_views(pickle.loads(pickle.dumps(packed)))
    assert first.base is second.base and first[0] == 2 and second.tolist() == [5, 6, 7]
    assert scalar == 1 and same.tolist() == whole.tolist()
