"""The warp lab's jobs: generators a front end runs off its GUI thread (no Qt here).

Unlike the registry's experiments, these return the object the visualizer reads, not a
:class:`~gpulab.results.Result`: :func:`emulate` returns the :class:`WarpSession` (with its
traced steps and outputs), :func:`compare_on_gpu` the :class:`GpuRun`. Their Results, for a
report, come from :func:`~gpulab.experiments.warp.session.session_result` and
:func:`~gpulab.experiments.warp.gpu.gpu_result`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Generator, Mapping, Sequence

from gpulab import kernels
from gpulab.catalogue import msg
from gpulab.experiments.warp.gpu import GpuRun, run_on_gpu
from gpulab.experiments.warp.server import SessionRequest, emulator_process
from gpulab.experiments.warp.session import DEFAULT_MAX_SECONDS, WarpSession
from gpulab.lab.base import Cancelled, Context, Progress


def session_request(
    spec: kernels.KernelSpec,
    preset: kernels.LaunchPreset,
    source: str,
    block: int,
    shared_mem: int | None = None,
    *,
    fmad: bool = True,
    constants: Mapping[str, Sequence[float]] | None = None,
) -> SessionRequest:
    """A request to emulate ``source`` (the catalogue kernel, maybe edited) with ``block`` traced.

    The inputs and the numpy reference come from the catalogue, so an edit that changes the
    outputs shows as a mismatch. ``shared_mem`` (bytes of dynamic shared memory per block)
    defaults to the preset's; ``fmad`` and ``constants`` are :func:`gpulab.simt.launch`'s.
    """
    args = spec.build_args(preset)
    return SessionRequest(
        source,
        spec.entry,
        preset.grid,
        preset.block,
        args,
        block,
        expected=spec.expected(args),
        rtol=spec.rtol,
        atol=spec.atol,
        shared_mem=preset.shared_mem if shared_mem is None else shared_mem,
        include_dirs=(str(spec.path.parent),),  # an edited kernel still finds its headers
        fmad=fmad,
        constants=dict(constants or {}),
    )


def emulate(
    spec: kernels.KernelSpec,
    preset: kernels.LaunchPreset,
    source: str,
    block: int,
    ctx: Context,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    shared_mem: int | None = None,
    *,
    fmad: bool = True,
    constants: Mapping[str, Sequence[float]] | None = None,
) -> Generator[Progress, None, WarpSession]:
    """Emulate with one block traced, in the emulator child process; returns the session.

    Yields progress while the child works: the bar's fraction is how near the run is to
    whichever limit stops it first, the step budget or the time limit ``max_seconds``
    (None: none). The emulator's errors (``CompileError``, ``KernelFault``,
    ``SessionError``) are raised as they are, so the caller can show them at their line; a
    cancel raises ``Cancelled``. ``shared_mem``: bytes of dynamic shared memory per block
    (None: the preset's). ``fmad=False`` compiles as ``nvcc -fmad=false``; ``constants`` fills
    ``__constant__`` data by name before the launch (as ``cudaMemcpyToSymbol``).
    """
    from gpulab import simt

    yield Progress(0.0, msg("progress.emulating-kernel"))
    request = session_request(spec, preset, source, block, shared_mem, fmad=fmad, constants=constants)
    request = dataclasses.replace(request, max_seconds=max_seconds)
    budget = request.max_steps
    started = time.monotonic()
    try:
        # In a child process: an emulation in this process would stall a GUI thread (GIL).
        steps = emulator_process().run_steps(request, ctx.cancel_event)
        try:
            while True:
                try:
                    done = next(steps)
                except StopIteration as stop:
                    return stop.value
                used = done / budget
                if max_seconds:
                    used = max(used, (time.monotonic() - started) / max_seconds)
                yield Progress(
                    min(1.0, used), msg("progress.emulated-steps", done=f"{done:,}", budget=f"{budget:,}")
                )
        finally:
            steps.close()  # a run abandoned between yields is cancelled in the child too
    except simt.Cancelled:
        raise Cancelled("cancelled") from None


def compare_on_gpu(
    session: WarpSession,
    spec: kernels.KernelSpec,
    preset: kernels.LaunchPreset,
    ctx: Context,
) -> Generator[Progress, None, GpuRun]:
    """Run the session's source on the context's GPU with fresh catalogue inputs; returns the GpuRun."""
    yield Progress(0.0, msg("progress.running-on-gpu"))
    fresh_args = spec.build_args(preset)
    return run_on_gpu(session, fresh_args, ctx.device_index or 0, rtol=spec.rtol, atol=spec.atol)
