"""A stepped emulation of one block: the model behind the warp visualizer (no Qt here).

:func:`run_session` launches a kernel in the SIMT emulator with the warps of one block
traced, then merges the warps' step lists into one timeline. A :class:`WarpSession` answers
what the visualizer asks for each timeline step: the lane-state matrix (warps x 32, see the
``LANE_*`` codes), the source site, the next divergent branch or memory instruction, the
memory traffic of a memory step (sectors needed vs fetched, banks hit) and the active-lane
staircase of a warp.

The emulator traces each warp separately and numbers every step with a launch-wide ``seq``:
warps with the same number stepped together, so the timeline is the sorted distinct numbers
(exact). Steps without ``seq`` (fake or older traces) are merged by source position instead:
warps whose next steps are at the same source site step together, and otherwise the warp at
the earliest source position goes first (this can misorder calls to functions defined below
their caller).

Lanes are "exited" when the step's ``exited_mask`` says they returned (a lane that skips an
``if`` body is masked there, not exited); steps without it fall back to "never active
again". :meth:`WarpSession.lane_registers` gives a lane's scalar local variables after a
step (from the emulator's per-warp ``RegisterTrace``, kept in ``WarpSession.registers``),
also in :attr:`LaneInfo.registers`; memory steps take their element size from the step's
``itemsize``, falling back to the declarations in the source.

:class:`EmulatorProcess` runs :func:`run_session` in a child process, so a GUI that waits for
it keeps its interpreter lock; the session comes back with its steps as numpy columns
(:class:`StepTable`). :func:`run_on_gpu` runs the same source on a CUDA device for comparison.
"""

from __future__ import annotations

import dataclasses
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

WARP = 32
SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
BANK_BYTES = 4

# Lane states, as stored in the lane-state matrix (uint8).
LANE_IDLE = 0  # no thread: beyond the launch (padding lanes of the block's last warp)
LANE_ACTIVE = 1  # executing this step
LANE_MASKED = 2  # its warp executes this step, but divergence masks it off
LANE_EXITED = 3  # the thread has finished (no later step has it active)
LANE_BARRIER = 4  # at or waiting at __syncthreads()
LANE_WAITING = 5  # alive, but its warp does not execute this step (other warps do)
LANE_STATES = (LANE_IDLE, LANE_ACTIVE, LANE_MASKED, LANE_EXITED, LANE_BARRIER, LANE_WAITING)

MEMORY_KINDS = ("load", "store", "atomic")
DEFAULT_MAX_STEPS = 2_000_000


class SessionError(Exception):
    """A session cannot be built (the launch has no traced warp, ...)."""


@dataclass(frozen=True)
class LaunchShape:
    """Grid and block dimensions of a launch, with the thread naming arithmetic."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def warps_per_block(self) -> int:
        return -(-self.threads_per_block // WARP)

    def block_index(self, linear: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return (linear % gx, (linear // gx) % gy, linear // (gx * gy))

    def thread_index(self, linear: int) -> tuple[int, int, int]:
        bx, by, _ = self.block
        return (linear % bx, (linear // bx) % by, linear // (bx * by))

    def block_warps(self, block: int) -> list[int]:
        """Global warp ids of a block's warps (the emulator's numbering)."""
        first = block * self.warps_per_block
        return list(range(first, first + self.warps_per_block))


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
class MemoryStep:
    """The memory traffic of one warp at one memory step.

    Global: ``line_of_lane``/``sector_of_lane`` index into ``lines`` and the sectors of those
    lines (-1 for inactive lanes); ``sectors_needed`` is the fewest 32-byte sectors the
    distinct bytes asked for could fit in, ``sectors_fetched`` what the access touched.
    Shared: ``bank_of_lane``, ``lanes_per_bank`` (distinct words per bank, the wavefronts
    that bank needs) and the emulator's ``conflict_degree``.
    """

    warp: int
    kind: str
    space: str
    buffer: str
    itemsize: int
    addresses: tuple[int | None, ...]
    active_lanes: int
    lines: tuple[int, ...] = ()
    line_of_lane: tuple[int, ...] = ()
    sector_of_lane: tuple[int, ...] = ()
    sectors_needed: int = 0
    sectors_fetched: int = 0
    fetched_sectors: tuple[int, ...] = ()
    bank_of_lane: tuple[int, ...] = ()
    words_per_bank: tuple[int, ...] = ()
    lanes_per_bank: tuple[tuple[int, ...], ...] = ()
    conflict_degree: int = 0

    @property
    def efficiency(self) -> float:
        """Coalescing (global: needed/fetched sectors) or bank efficiency (shared: 1/degree)."""
        if self.space == "shared":
            return 1.0 / self.conflict_degree if self.conflict_degree else 1.0
        if self.sectors_fetched == 0:
            return 1.0
        return min(1.0, self.sectors_needed / self.sectors_fetched)


@dataclass(frozen=True)
class Timeline:
    """A warp's staircase: its own step number vs active lanes, and each step's timeline index."""

    warp: int
    active_lanes: np.ndarray  # (steps,) int
    global_step: np.ndarray  # (steps,) timeline index of each of the warp's steps


# ------------------------------------------------------------------ kernel source facts

_C_SIZES = {
    "char": 1, "unsigned char": 1, "signed char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
    "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "int16_t": 2, "uint16_t": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
    "long long": 8, "unsigned long long": 8, "double": 8, "int64_t": 8, "uint64_t": 8,
    "long": 8, "unsigned long": 8, "size_t": 8,
    "float2": 8, "int2": 8, "float4": 16, "int4": 16, "double2": 16,
}  # fmt: skip
_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|restrict|__shared__|static|extern)\b")
_POINTER_PARAM = re.compile(r"([A-Za-z_][\w ]*?)\s*\*\s*(?:const\s+)?(?:__restrict__\s+)?([A-Za-z_]\w*)\s*(?=[,)])")
_SHARED_ARRAY = re.compile(r"__shared__\s+([A-Za-z_][\w ]*?)\s+([A-Za-z_]\w*)\s*\[")
_LOCAL_ARRAY = re.compile(r"\b([A-Za-z_][\w ]*?)\s+([A-Za-z_]\w*)\s*\[\s*\d+\s*\]\s*[;=]")


def buffer_itemsizes(source: str) -> dict[str, int]:
    """Element size in bytes of every pointer parameter and array the source declares."""
    sizes: dict[str, int] = {}
    for pattern in (_LOCAL_ARRAY, _POINTER_PARAM, _SHARED_ARRAY):
        for match in pattern.finditer(source):
            ctype = " ".join(_QUALIFIERS.sub(" ", match.group(1)).split())
            if ctype in _C_SIZES:
                sizes[match.group(2)] = _C_SIZES[ctype]
    return sizes


# ------------------------------------------------------------------ timeline merge


def _site_key(step: Any) -> tuple[Any, ...]:
    seq = getattr(step, "seq", None)
    return (seq,) if seq is not None else (step.line, step.col_start, step.col_end, step.kind)


def _order_key(step: Any) -> tuple[int, int]:
    seq = getattr(step, "seq", None)
    return (seq, 0) if seq is not None else (step.line, step.col_start)


def _seq_column(steps: Sequence[Any]) -> np.ndarray | None:
    """The steps' ``seq`` numbers as an array, or None when any step lacks one."""
    if isinstance(steps, StepTable):
        kind, column = steps.columns.get("seq", ("", None))
        if kind != "int" or np.any(column == _NONE):
            return None
        return column
    seqs = [getattr(step, "seq", None) for step in steps]
    if any(q is None for q in seqs):
        return None
    return np.array(seqs, dtype=np.int64)


def _merge_by_seq(seqs: Sequence[np.ndarray]) -> np.ndarray:
    """``step_at`` from launch-wide sequence numbers: one timeline step per distinct number."""
    order = np.unique(np.concatenate(seqs)) if seqs else np.zeros(0, dtype=np.int64)
    step_at = np.full((len(order), len(seqs)), -1, dtype=np.int32)
    for row, seq in enumerate(seqs):
        step_at[np.searchsorted(order, seq), row] = np.arange(len(seq), dtype=np.int32)
    return step_at


def merge_steps(per_warp: Sequence[Sequence[Any]]) -> np.ndarray:
    """Merge per-warp step lists into one timeline.

    Returns ``step_at`` of shape (timeline steps, warps): the warp's own step index at that
    timeline step, or -1 where the warp does not execute. When every step carries the
    emulator's launch-wide ``seq``, warps with the same number step together, in number
    order (exact). Otherwise warps whose next steps share a source site step together and
    the earliest source position goes first.
    """
    seqs = [_seq_column(steps) for steps in per_warp]
    if per_warp and all(q is not None for q in seqs):
        return _merge_by_seq(seqs)  # type: ignore[arg-type]
    heads = [0] * len(per_warp)
    rows: list[list[int]] = []
    while True:
        waiting = [w for w, steps in enumerate(per_warp) if heads[w] < len(steps)]
        if not waiting:
            break
        first = min(waiting, key=lambda w: _order_key(per_warp[w][heads[w]]))
        key = _site_key(per_warp[first][heads[first]])
        row = [-1] * len(per_warp)
        for w in waiting:
            if _site_key(per_warp[w][heads[w]]) == key:
                row[w] = heads[w]
                heads[w] += 1
        rows.append(row)
    return np.array(rows, dtype=np.int32).reshape(len(rows), len(per_warp))


def _lane_bits(masks: np.ndarray) -> np.ndarray:
    """(..., 32) bool from 32-bit lane masks."""
    return ((masks[..., None] >> np.arange(WARP, dtype=np.int64)) & 1).astype(bool)


# ------------------------------------------------------------------ compact step storage

_NONE = np.iinfo(np.int64).min  # stands for None in integer columns


class StepTable(Sequence[Any]):
    """One warp's trace steps as numpy columns; indexing rebuilds a step object.

    Thousands of small step objects cost the receiving process a long garbage-collector pass
    when they arrive from the emulator child (~30 ms, on the GUI's interpreter lock); a few
    arrays cost nothing. Integer fields become int64 columns, strings small code tables,
    tuples (per-lane addresses, sectors, lines) one flat column with offsets.
    """

    def __init__(self, steps: Sequence[Any]) -> None:
        self.step_type = type(steps[0]) if len(steps) else None
        self.length = len(steps)
        self.columns: dict[str, tuple[str, Any]] = {}
        names = [f.name for f in dataclasses.fields(self.step_type)] if self.step_type else []
        for name in names:
            self.columns[name] = _column([getattr(step, name) for step in steps])

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.length))]
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError(index)
        assert self.step_type is not None
        return self.step_type(**{name: _cell(column, index) for name, column in self.columns.items()})


def _column(values: list[Any]) -> tuple[str, Any]:
    if all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values):
        return "int", np.array([_NONE if v is None else v for v in values], dtype=np.int64)
    if all(isinstance(v, str) for v in values):
        table = sorted(set(values))
        return "str", (table, np.array([table.index(v) for v in values], dtype=np.int32))
    if all(v is None or isinstance(v, tuple) for v in values):
        lengths = np.array([-1 if v is None else len(v) for v in values], dtype=np.int64)
        flat = [x for v in values if v is not None for x in v]
        flat_array = np.array([_NONE if x is None else x for x in flat], dtype=np.int64)
        return "tuple", (lengths, np.concatenate([[0], np.cumsum(np.maximum(lengths, 0))]), flat_array)
    return "any", values


def _cell(column: tuple[str, Any], i: int) -> Any:
    kind, data = column
    if kind == "int":
        value = int(data[i])
        return None if value == _NONE else value
    if kind == "str":
        table, codes = data
        return table[codes[i]]
    if kind == "tuple":
        lengths, starts, flat = data
        if lengths[i] < 0:
            return None
        return tuple(None if x == _NONE else x for x in flat[starts[i] : starts[i + 1]].tolist())
    return data[i]


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
        active = _lane_bits(masks)
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
        return np.where(self._has_exited[:, None], _lane_bits(recorded), inferred)

    def next_divergence(self, g: int) -> int | None:
        """The first timeline step after ``g`` where a branch splits a warp's active lanes."""
        return self._next_flagged(self._divergent, g)

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
        active = _lane_bits(masks).sum(axis=1).astype(np.int64)
        own = self.step_at[:, row]
        global_step = np.flatnonzero(own >= 0)
        return Timeline(self.warps[row], active, global_step)

    def outputs(self) -> dict[int, np.ndarray]:
        """The array arguments after the launch, by argument index."""
        return {i: a for i, a in enumerate(self.args) if isinstance(a, np.ndarray)}


def analyse_memory_step(step: Any, warp: int, itemsize: int) -> MemoryStep:
    """Sectors needed vs fetched (global) or the bank histogram (shared) of one memory step."""
    addresses = tuple(step.addresses)
    used = [(lane, a) for lane, a in enumerate(addresses) if a is not None]
    common = dict(
        warp=warp,
        kind=step.kind,
        space=step.space,
        buffer=step.buffer,
        itemsize=itemsize,
        addresses=addresses,
        active_lanes=len(used),
    )
    if step.space == "shared":
        return MemoryStep(**common, **_bank_analysis(used, itemsize, step.bank_conflict_degree))
    return MemoryStep(**common, **_sector_analysis(used, itemsize, step))


def _sector_analysis(used: list[tuple[int, int]], itemsize: int, step: Any) -> dict[str, Any]:
    lines = tuple(step.lines) or tuple(sorted({a // LINE_BYTES for _, a in used}))
    line_pos = {line: i for i, line in enumerate(lines)}
    line_of = [-1] * WARP
    sector_of = [-1] * WARP
    for lane, a in used:
        line_of[lane] = line_pos.get(a // LINE_BYTES, -1)
        sector_of[lane] = (a % LINE_BYTES) // SECTOR_BYTES
    distinct_bytes = len({a for _, a in used}) * itemsize
    fetched = tuple(step.sectors) or tuple(sorted({a // SECTOR_BYTES for _, a in used}))
    return dict(
        lines=lines,
        line_of_lane=tuple(line_of),
        sector_of_lane=tuple(sector_of),
        sectors_needed=math.ceil(distinct_bytes / SECTOR_BYTES),
        sectors_fetched=len(fetched),
        fetched_sectors=fetched,
    )


def _bank_analysis(used: list[tuple[int, int]], itemsize: int, degree: int) -> dict[str, Any]:
    bank_of = [-1] * WARP
    words: list[set[int]] = [set() for _ in range(BANKS)]
    lanes: list[list[int]] = [[] for _ in range(BANKS)]
    for lane, a in used:
        first_word = a // BANK_BYTES
        bank_of[lane] = first_word % BANKS
        for word in range(first_word, first_word + max(1, itemsize // BANK_BYTES)):
            words[word % BANKS].add(word)
            lanes[word % BANKS].append(lane)
    per_bank = tuple(len(w) for w in words)
    return dict(
        bank_of_lane=tuple(bank_of),
        words_per_bank=per_bank,
        lanes_per_bank=tuple(tuple(x) for x in lanes),
        conflict_degree=degree or max(per_bank, default=0),
    )


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
) -> WarpSession:
    """Emulate ``entry`` with the warps of block ``block_index`` traced; blocks until done.

    ``args`` are modified in place (outputs). With ``expected`` (reference outputs by
    argument index) and ``compare``, the session records whether the emulation matched.
    Raises the emulator's errors (``CompileError``, ``KernelFault``, ``Cancelled``).
    """
    shape = LaunchShape(_dims(grid), _dims(block))
    if not 0 <= block_index < shape.blocks:
        raise SessionError(f"block {block_index} is outside the grid of {shape.blocks} blocks")
    warps = shape.block_warps(block_index)
    result = launch(
        source, entry, grid=shape.grid, block=shape.block, args=args, trace=warps, max_steps=max_steps, cancel=cancel
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
        itemsizes=buffer_itemsizes(source),
        truncated=bool(getattr(result, "trace_truncated", False)),
        registers=[(getattr(result, "registers", None) or {}).get(w) for w in traced],
    )


# ------------------------------------------------------------------ emulating in a child process


@dataclass(frozen=True)
class SessionRequest:
    """Everything :func:`run_session` needs, picklable, to send to the emulator process."""

    source: str
    entry: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: list[Any]
    block_index: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    expected: Mapping[int, np.ndarray] | None = None
    rtol: float = 1e-5
    atol: float = 1e-6


def session_from_request(request: SessionRequest, cancel: threading.Event | None = None) -> WarpSession:
    """Run one request here, in this process."""
    from gpulab.kernels import outputs_match

    def compare(args: list[Any], expected: Mapping[int, np.ndarray]) -> bool:
        return all(outputs_match(args[i], want, request.rtol, request.atol) for i, want in expected.items())

    return run_session(
        request.source,
        request.entry,
        request.grid,
        request.block,
        request.args,
        request.block_index,
        cancel=cancel,
        max_steps=request.max_steps,
        expected=request.expected,
        compare=compare,
    )


def _pack_error(exc: BaseException) -> tuple[str, str, str, dict[str, Any]]:
    return type(exc).__module__, type(exc).__qualname__, str(exc), dict(vars(exc))


def _unpack_error(packed: tuple[str, str, str, dict[str, Any]]) -> BaseException:
    """Rebuild an emulator error (its line, buffer, lanes, ... kept) from the child's report."""
    import importlib

    module, name, message, attributes = packed
    try:
        cls = getattr(importlib.import_module(module), name)
        exc = cls.__new__(cls)
        Exception.__init__(exc, message)
        vars(exc).update(attributes)
        return exc
    except Exception:  # an error class we cannot rebuild: keep its words
        return SessionError(message)


def _serve(connection: Any, cancels: Any) -> None:
    """The emulator process: answer ``(id, request)`` messages until the pipe closes.

    A second pipe carries the ids of runs to cancel; a watcher thread turns the current one
    into the ``cancel`` event the emulator polls at every step.
    """
    import os

    if hasattr(os, "nice"):  # on a 2-core laptop the GUI must win the CPU over the emulation
        os.nice(10)
    cancel = threading.Event()
    current = {"id": -1}

    def watch_cancels() -> None:
        while True:
            try:
                run_id = cancels.recv()
            except (EOFError, OSError):
                return
            if run_id == current["id"]:
                cancel.set()

    threading.Thread(target=watch_cancels, name="cancel-watcher", daemon=True).start()
    while True:
        try:
            run_id, request = connection.recv()
        except (EOFError, OSError):
            return
        current["id"] = run_id
        cancel.clear()
        try:
            _send_session(connection, session_from_request(request, cancel))
        except Exception as exc:  # every error goes back to the caller, in plain words
            try:
                connection.send(("error", _pack_error(exc)))
            except Exception:  # attributes that do not pickle: keep the words
                connection.send(("error", (*_pack_error(exc)[:3], {})))


def _send_session(connection: Any, session: WarpSession) -> None:
    """Send a session with its steps as :class:`StepTable` columns (cheap to unpickle)."""
    session.steps = [StepTable(steps) for steps in session.steps]
    connection.send(("ok", session))


class EmulatorProcess:
    """A child process that runs emulations, so a long one never holds this process's GIL.

    Threads of one Python process share one interpreter lock: an emulation running in a
    worker thread makes the GUI thread wait for the lock at every call into Python, which
    stalls the event loop for hundreds of milliseconds. The child starts on first use (spawn:
    about a second) and is reused; a cancelled run stops at its next step (the child is
    killed, and restarted on the next run, only if it does not stop within two seconds).
    """

    POLL_S = 0.02
    CANCEL_GRACE_S = 2.0

    def __init__(self) -> None:
        self._process: Any = None
        self._connection: Any = None
        self._cancel: Any = None
        self._run_id = 0
        self._lock = threading.Lock()

    def _start(self) -> None:
        import multiprocessing
        import sys
        import types

        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        cancel_reader, cancel_writer = context.Pipe(duplex=False)  # pipes, not semaphores: nothing leaks
        process = context.Process(target=_serve, args=(child, cancel_reader), name="gpulab-emulator", daemon=True)
        # The child needs only this module: hide the caller's main script from spawn, which
        # would otherwise re-run it in the child (a script without a __main__ guard breaks).
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            process.start()
        finally:
            sys.modules["__main__"] = main
        child.close()
        cancel_reader.close()
        self._process, self._connection, self._cancel = process, parent, cancel_writer

    def run(self, request: SessionRequest, cancel: threading.Event | None = None) -> WarpSession:
        """Emulate ``request`` in the child; raises its errors here, or ``Cancelled`` when cancelled."""
        with self._lock:
            if self._process is None or not self._process.is_alive():
                self._start()
            self._run_id += 1
            self._connection.send((self._run_id, request))
            while not self._connection.poll(self.POLL_S):
                if cancel is not None and cancel.is_set():
                    self._cancel_running()
                if not self._process.is_alive():
                    self._forget()
                    raise SessionError("the emulator process stopped unexpectedly (out of memory?)")
            status, payload = self._connection.recv()
        if status == "ok":
            return payload
        raise _unpack_error(payload)

    def _cancel_running(self) -> None:
        """Ask the child to stop (the emulator polls at every step); kill it if it does not."""
        from gpulab.simt import Cancelled

        self._cancel.send(self._run_id)
        if self._connection.poll(self.CANCEL_GRACE_S):
            self._connection.recv()  # Cancelled, or a result that came just in time
        else:
            self.stop()
        raise Cancelled("emulation cancelled")

    def stop(self) -> None:
        """Kill the child (a later run starts a new one)."""
        if self._process is not None and self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=5)
        self._forget()

    def _forget(self) -> None:
        for connection in (self._connection, self._cancel):
            if connection is not None:
                connection.close()
        self._process, self._connection, self._cancel = None, None, None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.is_alive()


_shared_process: EmulatorProcess | None = None


def emulator_process() -> EmulatorProcess:
    """The process-wide emulator child (created on first use)."""
    global _shared_process
    if _shared_process is None:
        _shared_process = EmulatorProcess()
    return _shared_process


def _dims(value: Sequence[int] | int) -> tuple[int, int, int]:
    dims = (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)
    return (*dims, *(1,) * (3 - len(dims)))  # type: ignore[return-value]


# ------------------------------------------------------------------ the same source on a GPU


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
    ``repeats`` launches with CUDA events (inputs are re-used; only the times are kept).
    """
    from gpulab import cuda
    from gpulab.kernels import outputs_match

    cupy = cuda.require_cupy()
    kernel = cuda.get_kernel(session.source, session.entry, device_index)
    with cupy.cuda.Device(device_index):
        device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in fresh_args]
        launch = lambda: kernel(session.shape.grid, session.shape.block, tuple(device_args))  # noqa: E731
        launch()
        cupy.cuda.Device(device_index).synchronize()
        matches = {
            i: outputs_match(cupy.asnumpy(device_args[i]), emulated, rtol, atol)
            for i, emulated in session.outputs().items()
        }
        times = cuda.time_with_events(launch, repeats=repeats)
    return GpuRun(cuda.device_name(device_index), matches, tuple(times))
