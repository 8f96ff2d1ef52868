"""A stepped emulation of one block: the model behind the warp visualizer (no Qt here).

:func:`run_session` launches a kernel in the SIMT emulator with the warps of one block
traced, then merges the warps' step lists into one timeline (:mod:`.steps`). A
:class:`WarpSession` answers what the visualizer asks for each timeline step: the lane-state
matrix (warps x 32, see the ``LANE_*`` codes), the source site, the next divergent branch or
memory instruction, the memory traffic of a memory step (:mod:`.memory`) and the
active-lane staircase of a warp.

Lanes are "exited" when the step's ``exited_mask`` says they returned (a lane that skips an
``if`` body is masked there, not exited); steps without it fall back to "never active
again". :meth:`WarpSession.lane_registers` gives a lane's scalar local variables after a
step (from the emulator's per-warp ``RegisterTrace``, kept in ``WarpSession.registers``),
also in :attr:`LaneInfo.registers`; memory steps take their element size from the step's
``itemsize``, falling back to the declarations in the source. ``WarpSession.printf`` holds
what the launch's ``printf`` calls printed (every block, not only the traced one).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpulab.experiments.warp.memory import BANK_BYTES, MEMORY_KINDS, MemoryStep, analyse_memory_step, buffer_itemsizes
from gpulab.experiments.warp.shape import WARP, LaunchShape, launch_dims
from gpulab.experiments.warp.steps import lane_bits, merge_steps
from gpulab.results import Point, Provenance, Result, Series

# Lane states, as stored in the lane-state matrix (uint8).
LANE_IDLE = 0  # no thread: beyond the launch (padding lanes of the block's last warp)
LANE_ACTIVE = 1  # executing this step
LANE_MASKED = 2  # its warp executes this step, but divergence masks it off
LANE_EXITED = 3  # the thread has finished (no later step has it active)
LANE_BARRIER = 4  # at or waiting at __syncthreads()
LANE_WAITING = 5  # alive, but its warp does not execute this step (other warps do)
LANE_STATES = (LANE_IDLE, LANE_ACTIVE, LANE_MASKED, LANE_EXITED, LANE_BARRIER, LANE_WAITING)

DEFAULT_MAX_STEPS = 2_000_000
# The visualizer's limits. Warp-steps count every warp of the launch, so the lab's large
# presets need up to ~6.3 million (a reduction over 16,384 blocks, about 2 s): a smaller step
# budget would stop honest kernels. The time limit is what stops a runaway loop quickly.
INTERACTIVE_MAX_STEPS = 20_000_000
DEFAULT_MAX_SECONDS = 5.0
EMULATOR_DEVICE = "SIMT emulator"  # what an emulated result names as its device


class SessionError(Exception):
    """A session cannot be built (the launch has no traced warp, ...)."""


@dataclass(frozen=True)
class LaneInfo:
    """Who a lane is, and what it does at one step (for the hover text)."""

    warp: int  # global warp id
    lane: int
    state: int
    thread: tuple[int, int, int] | None  # threadIdx, None for a lane beyond the launch
    block: tuple[int, int, int]
    global_thread: int | None  # blockIdx.x * blockDim.x + threadIdx.x style linear id
    address: int | None  # byte address of this lane's access at a memory step
    registers: Mapping[str, int | float | bool] = field(default_factory=dict)  # see lane_registers


@dataclass(frozen=True)
class Timeline:
    """A warp's staircase: its own step number vs active lanes, and each step's timeline index."""

    warp: int
    active_lanes: np.ndarray  # (steps,) int
    global_step: np.ndarray  # (steps,) timeline index of each of the warp's steps


# ------------------------------------------------------------------ the session


@dataclass
class WarpSession:
    """The traced steps of one block's warps, merged into a timeline the UI can step through."""

    source: str
    entry: str
    shape: LaunchShape
    block: int  # linear block id whose warps are traced
    warps: list[int]  # global warp ids, one row each in the lane-state matrix
    steps: list[Sequence[Any]]  # per row, the warp's TraceSteps (a list, or a StepTable)
    metrics: Mapping[str, float] = field(default_factory=dict)
    args: list[Any] = field(default_factory=list)  # arguments after the launch (outputs filled)
    reference_match: bool | None = None  # emulated outputs vs the catalogue's numpy reference
    itemsizes: Mapping[str, int] = field(default_factory=dict)
    truncated: bool = False  # a warp hit the emulator's per-warp trace cap: later steps are missing
    registers: list[Any] = field(default_factory=list)  # per row, the warp's simt RegisterTrace (or None)
    printf: list[Any] = field(default_factory=list)  # simt PrintfRecords of the whole launch, in order
    printf_lost: int = 0  # oldest printf records lost to the full 1 MiB buffer
    shared_mem: int = 0  # bytes of dynamic shared memory per block the launch gave
    fmad: bool = True  # a*b + c contracted into one fma, as nvcc's default -fmad=true
    constants: Mapping[str, Sequence[float]] = field(default_factory=dict)  # __constant__ data the host filled
    include_dirs: tuple[str, ...] = ()  # where the source's #include "file" was found

    def __post_init__(self) -> None:
        self.step_at = merge_steps(self.steps)
        self._build_arrays()

    # .............................................................. precomputed arrays
    def _build_arrays(self) -> None:
        rows, longest = len(self.steps), max((len(s) for s in self.steps), default=0)
        self._masks = np.zeros((rows, longest), dtype=np.int64)
        self._barrier = np.zeros((rows, longest), dtype=bool)
        self._exited = np.full((rows, longest), -1, dtype=np.int64)  # -1: the step has no exited_mask
        self._lengths = np.array([len(s) for s in self.steps], dtype=np.int64)
        for r, steps in enumerate(self.steps):
            self._masks[r, : len(steps)] = [s.active_mask for s in steps]
            self._barrier[r, : len(steps)] = [s.kind == "barrier" for s in steps]
            exited = [getattr(s, "exited_mask", None) for s in steps]
            self._exited[r, : len(steps)] = [-1 if e is None else e for e in exited]
        self._has_exited = np.array([len(s) > 0 for s in self.steps], dtype=bool) & np.all(
            (self._exited >= 0) | (np.arange(longest)[None, :] >= self._lengths[:, None]), axis=1
        )
        self._last_active = self._last_active_step()
        self._next_own = self._next_own_step()
        self._valid = self._valid_lanes()
        self._divergent, self._memory_step = self._jump_targets()

    def _jump_targets(self) -> tuple[np.ndarray, np.ndarray]:
        """Per timeline step: does a branch split a warp's lanes there; is it a memory access."""
        divergent = np.zeros(len(self.step_at), dtype=bool)
        memory = np.zeros(len(self.step_at), dtype=bool)
        for row, steps in enumerate(self.steps):
            own = self.step_at[:, row]
            for g in np.flatnonzero(own >= 0):
                step = steps[int(own[g])]
                if step.kind == "branch" and step.taken_mask not in (None, 0, step.active_mask):
                    divergent[g] = True
                memory[g] |= step.kind in MEMORY_KINDS
        return divergent, memory

    def _last_active_step(self) -> np.ndarray:
        """(rows, 32): the last own step index at which each lane is active (-1: never)."""
        rows, steps = self._masks.shape
        last = np.full((rows, WARP), -1, dtype=np.int64)
        if steps == 0:
            return last
        for lane in range(WARP):  # one lane at a time: (rows, steps) at most, never x 32
            active = ((self._masks >> lane) & 1).astype(bool)
            from_end = np.argmax(active[:, ::-1], axis=1)
            last[:, lane] = np.where(active.any(axis=1), steps - 1 - from_end, -1)
        return last

    def _next_own_step(self) -> np.ndarray:
        """(timeline, rows): the warp's own step index at or after each timeline step (big if none)."""
        total = self.step_at.shape[0]
        nxt = np.full(self.step_at.shape, np.iinfo(np.int32).max, dtype=np.int64)
        upcoming = np.full(self.step_at.shape[1], np.iinfo(np.int32).max, dtype=np.int64)
        for g in range(total - 1, -1, -1):
            here = self.step_at[g] >= 0
            upcoming[here] = self.step_at[g][here]
            nxt[g] = upcoming
        return nxt

    def _valid_lanes(self) -> np.ndarray:
        tpb = self.shape.threads_per_block
        in_block = np.array([w % self.shape.warps_per_block for w in self.warps], dtype=np.int64)
        return (in_block[:, None] * WARP + np.arange(WARP)[None, :]) < tpb

    # .............................................................. stepping
    def __len__(self) -> int:
        return int(self.step_at.shape[0])

    @property
    def rows(self) -> int:
        return len(self.warps)

    def _clamp(self, g: int) -> int:
        if len(self) == 0:
            raise SessionError("the launch traced no steps")
        return max(0, min(int(g), len(self) - 1))

    def participants(self, g: int) -> list[int]:
        """Rows (warps) that execute timeline step ``g``."""
        return [int(r) for r in np.flatnonzero(self.step_at[self._clamp(g)] >= 0)]

    def step(self, g: int, row: int | None = None) -> Any:
        """The TraceStep at timeline step ``g`` (of ``row``, else of the first warp executing it)."""
        g = self._clamp(g)
        if row is None or self.step_at[g, row] < 0:
            row = self.participants(g)[0]
        return self.steps[row][int(self.step_at[g, row])]

    def line(self, g: int) -> int:
        """Source line (1-based) executed at timeline step ``g``."""
        return int(self.step(g).line)

    def lane_states(self, g: int) -> np.ndarray:
        """(warps, 32) uint8 matrix of ``LANE_*`` codes at timeline step ``g``."""
        g = self._clamp(g)
        own = self.step_at[g].astype(np.int64)
        executing = own >= 0
        ref = np.where(executing, own, self._next_own[g])
        ref_index = np.minimum(ref, self._masks.shape[1] - 1)
        rows = np.arange(self.rows)
        masks = np.where(executing, self._masks[rows, np.maximum(own, 0)], 0)
        at_barrier = self._barrier[rows, ref_index] & (ref < self._masks.shape[1])
        active = lane_bits(masks)
        exited = self._exited_lanes(ref, ref_index)
        states = np.full((self.rows, WARP), LANE_WAITING, dtype=np.uint8)
        states[executing] = LANE_MASKED
        states[at_barrier] = LANE_BARRIER
        states[exited] = LANE_EXITED
        running = np.where(at_barrier, LANE_BARRIER, LANE_ACTIVE).astype(np.uint8)
        states[active] = np.broadcast_to(running[:, None], states.shape)[active]
        states[~self._valid] = LANE_IDLE
        return states

    def _exited_lanes(self, ref: np.ndarray, ref_index: np.ndarray) -> np.ndarray:
        """(rows, 32): lanes that have returned, before the warp's step ``ref`` (own index).

        From the emulator's ``exited_mask`` where the steps carry it (a warp past its last
        step has finished: all its lanes), else inferred: lanes never active again.
        """
        inferred = self._last_active < ref[:, None]
        if not self._has_exited.any():
            return inferred
        rows = np.arange(self.rows)
        done = ref >= self._lengths
        recorded = np.where(done, 0xFFFF_FFFF, np.maximum(self._exited[rows, ref_index], 0))
        return np.where(self._has_exited[:, None], lane_bits(recorded), inferred)

    def next_divergence(self, g: int) -> int | None:
        """The first timeline step after ``g`` where a branch splits a warp's active lanes."""
        return self._next_flagged(self._divergent, g)

    def divergent_steps(self) -> list[int]:
        """Every timeline step where a branch splits a warp's active lanes."""
        return [int(g) for g in np.flatnonzero(self._divergent)]

    def next_memory(self, g: int) -> int | None:
        """The first timeline step after ``g`` that is a load, store or atomic."""
        return self._next_flagged(self._memory_step, g)

    def _next_flagged(self, flags: np.ndarray, g: int) -> int | None:
        later = np.flatnonzero(flags[self._clamp(g) + 1 :])
        return int(later[0]) + self._clamp(g) + 1 if len(later) else None

    # .............................................................. lanes and memory
    def lane_info(self, g: int, row: int, lane: int) -> LaneInfo:
        """Thread and block ids of one lane, its state, and its address at a memory step."""
        g = self._clamp(g)
        warp = self.warps[row]
        linear = (warp % self.shape.warps_per_block) * WARP + lane
        valid = bool(self._valid[row, lane])
        block = self.shape.block_index(self.block)
        thread = self.shape.thread_index(linear) if valid else None
        global_thread = self.block * self.shape.threads_per_block + linear if valid else None
        address = None
        if self.step_at[g, row] >= 0:
            step = self.steps[row][int(self.step_at[g, row])]
            if step.addresses is not None:
                address = step.addresses[lane]
        state = int(self.lane_states(g)[row, lane])
        registers = self.lane_registers(g, row, lane)
        return LaneInfo(warp, lane, state, thread, block, global_thread, address, registers)

    def _own_step_until(self, g: int, row: int) -> int | None:
        """The warp's own index of its last step at or before timeline step ``g`` (None: none yet)."""
        own = self.step_at[: self._clamp(g) + 1, row]
        done = np.flatnonzero(own >= 0)
        return int(own[done[-1]]) if len(done) else None

    def _register_trace(self, row: int) -> Any:
        return self.registers[row] if 0 <= row < len(self.registers) else None

    def lane_registers(self, g: int, row: int, lane: int) -> dict[str, int | float | bool]:
        """Scalar local variables of one lane after timeline step ``g``, for the hover text.

        ``row`` is the warp's row (as in :meth:`lane_info`). Values are those after the warp's
        last step at or before ``g``, for the function it is running there; variables the
        lane has not reached yet, and every variable of a lane that has returned or is beyond
        the launch, are left out. Integers and pointers (byte addresses) are ints, ``float``
        values the shortest decimal that reads back as the same float32, ``bool`` bools.
        Empty when the emulator recorded no registers (an untraced or fake session).
        """
        trace = self._register_trace(row)
        own = self._own_step_until(g, row)
        if trace is None or own is None:
            return {}
        return dict(trace.lane(own, lane))

    def register_types(self, g: int, row: int) -> dict[str, str]:
        """C type of each variable :meth:`lane_registers` may show at ``g`` (``"int"``, ``"float*"``)."""
        trace = self._register_trace(row)
        own = self._own_step_until(g, row)
        if trace is None or own is None:
            return {}
        return {name: trace.type_of(name, own) for name in trace.at(own)}

    def memory(self, g: int, row: int | None = None) -> MemoryStep | None:
        """The memory traffic at timeline step ``g`` (None if it is not a memory step)."""
        step = self.step(g, row)
        if step.kind not in MEMORY_KINDS or step.addresses is None:
            return None
        if row is None or self.step_at[self._clamp(g), row] < 0:
            row = self.participants(g)[0]
        itemsize = getattr(step, "itemsize", 0) or self.itemsizes.get(step.buffer, BANK_BYTES)
        return analyse_memory_step(step, self.warps[row], itemsize)

    def timeline(self, row: int) -> Timeline:
        """Active lanes at each of a warp's own steps (the divergence staircase)."""
        masks = self._masks[row, : len(self.steps[row])]
        active = lane_bits(masks).sum(axis=1).astype(np.int64)
        own = self.step_at[:, row]
        global_step = np.flatnonzero(own >= 0)
        return Timeline(self.warps[row], active, global_step)

    def outputs(self) -> dict[int, np.ndarray]:
        """The array arguments after the launch, by argument index."""
        return {i: a for i, a in enumerate(self.args) if isinstance(a, np.ndarray)}


# ------------------------------------------------------------------ running


def _default_launch(*args: Any, **kwargs: Any) -> Any:
    from gpulab import simt

    return simt.launch(*args, **kwargs)


def run_session(
    source: str,
    entry: str,
    grid: Sequence[int],
    block: Sequence[int],
    args: list[Any],
    block_index: int = 0,
    *,
    cancel: threading.Event | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    expected: Mapping[int, np.ndarray] | None = None,
    compare: Callable[[list[Any], Mapping[int, np.ndarray]], bool] | None = None,
    launch: Callable[..., Any] = _default_launch,
    max_seconds: float | None = None,
    progress: Callable[[int], None] | None = None,
    shared_mem: int = 0,
    include_dirs: Sequence[str] = (),
    fmad: bool = True,
    constants: Mapping[str, Sequence[float]] | None = None,
) -> WarpSession:
    """Emulate ``entry`` with the warps of block ``block_index`` traced; blocks until done.

    ``args`` are modified in place (outputs). With ``expected`` (reference outputs by
    argument index) and ``compare``, the session records whether the emulation matched.
    ``max_seconds`` limits the launch's time and ``progress(warp_steps)`` hears how far it
    has got (both passed to the emulator when given); ``shared_mem`` is the bytes of dynamic
    shared memory per block (``extern __shared__`` arrays); ``include_dirs`` are searched by
    ``#include "file"``; ``fmad`` and ``constants`` are :func:`gpulab.simt.launch`'s (nvcc's
    ``-fmad``; ``__constant__`` data filled before the launch, as ``cudaMemcpyToSymbol``).
    Raises the emulator's errors (``CompileError``, ``KernelFault``, ``Cancelled``).
    """
    shape = LaunchShape(launch_dims(grid), launch_dims(block))
    if not 0 <= block_index < shape.blocks:
        raise SessionError(f"block {block_index} is outside the grid of {shape.blocks} blocks")
    warps = shape.block_warps(block_index)
    limits: dict[str, Any] = {"max_seconds": max_seconds} if max_seconds is not None else {}
    if progress is not None:
        limits["progress"] = progress
    if shared_mem:
        limits["shared_mem"] = shared_mem
    if include_dirs:
        limits["include_dirs"] = tuple(include_dirs)
    if not fmad:
        limits["fmad"] = False
    if constants:
        limits["constants"] = dict(constants)
    result = launch(
        source, entry, grid=shape.grid, block=shape.block, args=args, trace=warps, max_steps=max_steps, cancel=cancel,
        **limits,
    )
    trace = result.trace or {}
    traced = [w for w in warps if w in trace]
    if not traced:
        raise SessionError("the emulator traced no warp of this block")
    match = compare(args, expected) if expected is not None and compare is not None else None
    return WarpSession(
        source=source,
        entry=entry,
        shape=shape,
        block=block_index,
        warps=traced,
        steps=[list(trace[w]) for w in traced],
        metrics=dict(result.metrics or {}),
        args=args,
        reference_match=match,
        itemsizes=buffer_itemsizes(source, entry, include_dirs),
        truncated=bool(getattr(result, "trace_truncated", False)),
        registers=[(getattr(result, "registers", None) or {}).get(w) for w in traced],
        printf=list(getattr(result, "printf", None) or []),
        printf_lost=int(getattr(result, "printf_lost", 0)),
        shared_mem=shared_mem,
        fmad=fmad,
        constants=dict(constants or {}),
        include_dirs=tuple(include_dirs),
    )


def session_result(session: WarpSession) -> Result:
    """The run as a Result: active lanes of the first traced warp at each of its steps (emulated)."""
    timeline = session.timeline(0)
    prov = Provenance("emulated", EMULATOR_DEVICE, {"kernel": session.entry})
    points = tuple(Point(float(i), float(n)) for i, n in enumerate(timeline.active_lanes))
    series = Series(f"warp {timeline.warp}", prov, "step", "", "active lanes", "lanes", points)
    params = {
        "kernel": session.entry,
        "grid": list(session.shape.grid),
        "block": list(session.shape.block),
        "traced_block": session.block,
        "fmad": session.fmad,
        **({"constants": {k: list(v) for k, v in session.constants.items()}} if session.constants else {}),
    }
    return Result("warp-session", params, (series,))
