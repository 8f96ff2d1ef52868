"""The same source on a real GPU: outputs compared with the emulator's, time from CUDA events."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab.experiments.warp.session import WarpSession
from gpulab.results import Point, Provenance, Result, Series


@dataclass(frozen=True)
class GpuRun:
    """The kernel run on a real device: outputs compared with the emulator's, and its time."""

    device: str
    matches: dict[int, bool]  # argument index -> GPU output equals the emulated output
    times_s: tuple[float, ...]  # CUDA-event times of repeated launches (provenance: measured)

    @property
    def all_match(self) -> bool:
        return all(self.matches.values())

    @property
    def median_s(self) -> float:
        return float(np.median(self.times_s)) if self.times_s else math.nan


def run_on_gpu(
    session: WarpSession,
    fresh_args: list[Any],
    device_index: int = 0,
    repeats: int = 20,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> GpuRun:
    """Run the session's source on a GPU with ``fresh_args`` (the inputs before the launch).

    Compares every array argument after one launch with the emulated outputs, then times
    ``repeats`` launches with CUDA events (inputs are re-used; only the times are kept). It is
    compiled as the session was (``-fmad=false`` when it was) and its ``__constant__`` data is
    filled as the session's was; a view into an array is the same pointer into the whole array.
    """
    from gpulab import cuda
    from gpulab.kernels import outputs_match

    cupy = cuda.require_cupy()
    options = cuda.DEFAULT_NVRTC_OPTIONS + (() if session.fmad else ("--fmad=false",))
    if session.constants:  # a module of its own: the shared one keeps the source's values
        kernel = cuda.kernel_with_constants(session.source, session.entry, _constant_data(session), device_index,
                                            options)  # fmt: skip
    else:
        kernel = cuda.get_kernel(session.source, session.entry, device_index, options)
    with cupy.cuda.Device(device_index):
        device_args = cuda.to_device(fresh_args)
        launch = lambda: kernel(  # noqa: E731
            session.shape.grid, session.shape.block, tuple(device_args), shared_mem=session.shared_mem
        )
        launch()
        cupy.cuda.Device(device_index).synchronize()
        matches = {
            i: outputs_match(cupy.asnumpy(device_args[i]), emulated, rtol, atol)
            for i, emulated in session.outputs().items()
        }
        times = cuda.time_with_events(launch, repeats=repeats)
    return GpuRun(cuda.device_name(device_index), matches, tuple(times))


def _constant_data(session: WarpSession) -> dict[str, np.ndarray]:
    """The session's host-filled ``__constant__`` values in each symbol's own type (as the emulator read them)."""
    from gpulab.simt.translate import compile_source

    program = compile_source(session.source, "kernel.cu", session.include_dirs)
    types = {d.name: d.dtype for d in program.memory if d.space == "constant"}
    return {name: np.asarray(values, dtype=types[name]) for name, values in session.constants.items()}


def gpu_result(session: WarpSession, run: GpuRun) -> Result:
    """The GPU run as a Result: each timed launch's kernel time (measured, CUDA events)."""
    prov = Provenance("measured", run.device, {"kernel": session.entry, "repeats": len(run.times_s)})
    points = tuple(Point(float(i), t) for i, t in enumerate(run.times_s))
    series = Series("kernel time", prov, "launch", "", "time", "s", points)
    return Result("warp-session-gpu", {"kernel": session.entry}, (series,))
