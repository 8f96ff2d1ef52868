"""The warp lab: one block of a kernel stepped lane by lane in the SIMT emulator (no Qt here).

    from gpulab import kernels
    from gpulab.experiments import warp
    spec = kernels.get("divergence_even_odd")
    preset = spec.presets[0]
    session = warp.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
    session.lane_states(0)        # (warps, 32) LANE_* codes at the first timeline step

One module per concern: :mod:`.shape` (launch geometry), :mod:`.steps` (timeline merge and
compact step storage), :mod:`.memory` (sectors and banks of a memory step), :mod:`.session`
(the :class:`WarpSession` model and :func:`run_session`), :mod:`.server` (the emulator child
process), :mod:`.gpu` (the same source on a CUDA device) and :mod:`.lab` (the generators a
front end runs as jobs). It is not in the experiment registry: its jobs return a session,
not a Result, and its view is the custom warp visualizer.
"""

from __future__ import annotations

from gpulab.experiments.warp.errors import error_message
from gpulab.experiments.warp.gpu import GpuRun, gpu_result, run_on_gpu
from gpulab.experiments.warp.lab import compare_on_gpu, emulate, session_request
from gpulab.experiments.warp.memory import (
    BANK_BYTES,
    BANKS,
    LINE_BYTES,
    MEMORY_KINDS,
    SECTOR_BYTES,
    MemoryStep,
    analyse_memory_step,
    buffer_itemsizes,
)
from gpulab.experiments.warp.server import EmulatorProcess, SessionRequest, emulator_process, session_from_request
from gpulab.experiments.warp.session import (
    DEFAULT_MAX_SECONDS,
    DEFAULT_MAX_STEPS,
    EMULATOR_DEVICE,
    INTERACTIVE_MAX_STEPS,
    LANE_ACTIVE,
    LANE_BARRIER,
    LANE_EXITED,
    LANE_IDLE,
    LANE_MASKED,
    LANE_STATES,
    LANE_WAITING,
    LaneInfo,
    SessionError,
    Timeline,
    WarpSession,
    run_session,
    session_result,
)
from gpulab.experiments.warp.shape import WARP, LaunchShape, launch_dims
from gpulab.experiments.warp.steps import StepTable, merge_steps

__all__ = [
    "BANKS",
    "BANK_BYTES",
    "DEFAULT_MAX_SECONDS",
    "DEFAULT_MAX_STEPS",
    "EMULATOR_DEVICE",
    "INTERACTIVE_MAX_STEPS",
    "LANE_ACTIVE",
    "LANE_BARRIER",
    "LANE_EXITED",
    "LANE_IDLE",
    "LANE_MASKED",
    "LANE_STATES",
    "LANE_WAITING",
    "LINE_BYTES",
    "MEMORY_KINDS",
    "SECTOR_BYTES",
    "WARP",
    "EmulatorProcess",
    "GpuRun",
    "LaneInfo",
    "LaunchShape",
    "MemoryStep",
    "SessionError",
    "SessionRequest",
    "StepTable",
    "Timeline",
    "WarpSession",
    "analyse_memory_step",
    "buffer_itemsizes",
    "compare_on_gpu",
    "emulate",
    "emulator_process",
    "error_message",
    "gpu_result",
    "launch_dims",
    "merge_steps",
    "run_on_gpu",
    "run_session",
    "session_from_request",
    "session_request",
    "session_result",
]
