"""The same source on a GPU: outputs compared with the emulator's, time measured with CUDA events."""

from __future__ import annotations

import pytest

from gpulab.experiments import warp as ws


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ["divergence_even_odd", "load_strided", "transpose_shared", "reduce_interleaved"])
def test_on_a_gpu_the_same_source_gives_the_emulated_outputs_and_a_measured_time(entry):
    from gpulab import kernels

    spec = kernels.get(entry)
    preset = spec.presets[0]
    session = ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
    run = ws.run_on_gpu(session, spec.build_args(preset), repeats=5, rtol=spec.rtol, atol=spec.atol)
    assert run.matches and run.all_match
    assert len(run.times_s) == 5 and 0 < run.median_s < 1.0


@pytest.mark.gpu
@pytest.mark.parametrize("fmad", [True, False])
def test_on_a_gpu_a_pointer_into_the_input_fmad_and_constants_are_as_the_session_had_them(fmad):
    from gpulab import kernels

    spec = kernels.get("stencil_1d")  # launched with in + RADIUS; weights in __constant__
    preset = spec.preset("small")
    constants = {"weights": [0.3, 0.7, 1.1, 0.7, 0.3]}
    session = ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                             fmad=fmad, constants=constants)  # fmt: skip
    run = ws.run_on_gpu(session, spec.build_args(preset), repeats=2, rtol=0, atol=0)  # bit for bit
    assert run.all_match
    # The session's weights went to a module of its own: the shared one still has the source's.
    import cupy

    from gpulab import cuda

    args = spec.build_args(preset)
    device_args = cuda.to_device(args)
    cuda.get_kernel(spec.source, spec.entry)(preset.grid, preset.block, tuple(device_args))
    host = [cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else a for a in device_args]
    assert spec.matches(host, spec.expected(args))
