"""Trace records: what one warp did at one step, for the warp visualizer.

``LaunchResult.trace`` maps a global warp id (block linear id * warps per block + warp in
block) to the ordered list of :class:`TraceStep` of that warp. Only selected warps are
traced (by default the warps of block 0, at most 32 warps) and each warp keeps at most
``MAX_STEPS_PER_WARP`` steps, so memory stays bounded; metrics always cover every warp.

``LaunchResult.registers`` maps the same warp ids to a :class:`RegisterTrace`: the per-lane
values of the current function's scalar local variables after each statement, stored as
changes in numpy columns (a few objects however long the trace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_STEPS_PER_WARP = 20_000
MAX_REGISTER_CHANGES_PER_WARP = 20_000
DEFAULT_TRACED_WARPS = 32
WARP = 32

RegisterValue = int | float | bool


@dataclass(frozen=True)
class TraceStep:
    """One warp-level step.

    ``kind`` is one of ``"stmt"`` (a statement), ``"branch"`` (an if/loop condition),
    ``"load"``, ``"store"``, ``"atomic"`` or ``"barrier"``. ``active_mask``
    has bit *i* set when lane *i* of the warp was active. Memory steps also carry
    ``space`` ("global", "shared" or "local"), the per-lane byte ``addresses`` (None for
    inactive lanes), the distinct 32-byte ``sectors`` and 128-byte ``lines`` touched
    (global), ``bank_conflict_degree`` (shared: wavefronts needed, 1 = conflict-free) and
    ``itemsize`` (bytes per element accessed; 0 on other steps).
    For branches, ``taken_mask`` holds the lanes whose condition was true.

    ``seq`` is the launch-wide order of the step: every traced warp that takes part in
    one lock-step warp-step gets the same number, and numbers grow with time (they are
    not consecutive per warp). ``exited_mask`` has bit *i* set when lane *i* has already
    returned from the kernel (a lane returning at this step is still active here; lanes
    masked off by divergence are not exited). Both are None on steps that did not come
    from the emulator.
    """

    line: int
    col_start: int
    col_end: int
    kind: str
    active_mask: int
    addresses: tuple[int | None, ...] | None = None
    sectors: tuple[int, ...] = ()
    lines: tuple[int, ...] = ()
    bank_conflict_degree: int = 0
    space: str = ""
    buffer: str = ""
    taken_mask: int | None = None
    seq: int | None = None
    itemsize: int = 0
    exited_mask: int | None = None

    @property
    def active_lanes(self) -> int:
        """Number of active lanes at this step."""
        return bin(self.active_mask).count("1")


@dataclass(frozen=True, eq=False)
class RegisterTrace:
    """Per-lane values of one warp's scalar local variables (registers) along its trace.

    A snapshot is taken after every statement that has a step (expression statements,
    initialized declarations, loop increments) for the variables of the function being
    run that are in scope there (parameters included; local arrays live in memory and are
    not registers). It is attached to the last step the warp had recorded by then: the
    statement's own step, or the last load/store it made. :meth:`at` gives the values after
    any step. A lane has no value (None) until a statement that sees the variable has run
    on it, and none once it has returned from the kernel or when it is a padding lane.

    Storage is columnar: ``variables``/``types`` name each variable (C type names, e.g.
    ``"unsigned int"``, ``"float*"``), ``scopes`` lists the variable ids visible in each
    scope; ``snap_step``/``snap_scope``/``snap_changes`` give per snapshot the warp's step
    index, its scope id and how many change records precede it; a change record is
    (``change_var``, ``change_defined`` lane bits, ``change_values`` (n, 32) raw int64:
    integers as int64, floats as float64 bit patterns). ``truncated`` is True when the
    warp's changes hit ``MAX_REGISTER_CHANGES_PER_WARP`` (later snapshots are missing).
    """

    variables: tuple[str, ...]
    types: tuple[str, ...]
    kinds: tuple[str, ...]  # numpy dtype char kind per variable: "i", "u", "f", "b" or "p"
    itemsizes: tuple[int, ...]
    scopes: tuple[tuple[int, ...], ...]
    snap_step: np.ndarray
    snap_scope: np.ndarray
    snap_changes: np.ndarray
    change_var: np.ndarray
    change_defined: np.ndarray
    change_values: np.ndarray
    truncated: bool = False

    def __len__(self) -> int:
        return len(self.snap_step)

    def _snapshot(self, step: int) -> int:
        return int(np.searchsorted(self.snap_step, step, side="right")) - 1

    def at(self, step: int) -> dict[str, tuple[RegisterValue | None, ...]]:
        """Variable name -> 32 per-lane values after the warp's own step ``step``."""
        i = self._snapshot(step)
        if i < 0:
            return {}
        return {self.variables[v]: self._values(v, i) for v in self.scopes[int(self.snap_scope[i])]}

    def lane(self, step: int, lane: int) -> dict[str, RegisterValue]:
        """The variables that have a value in ``lane`` after the warp's own step ``step``."""
        i = self._snapshot(step)
        if i < 0:
            return {}
        out: dict[str, RegisterValue] = {}
        for v in self.scopes[int(self.snap_scope[i])]:
            value = self._values(v, i)[lane]
            if value is not None:
                out[self.variables[v]] = value
        return out

    def type_of(self, name: str, step: int) -> str | None:
        """C type of the variable ``name`` visible after step ``step`` (None if none)."""
        i = self._snapshot(step)
        if i < 0:
            return None
        for v in self.scopes[int(self.snap_scope[i])]:
            if self.variables[v] == name:
                return self.types[v]
        return None

    def _values(self, var: int, snapshot: int) -> tuple[RegisterValue | None, ...]:
        end = int(self.snap_changes[snapshot])
        records = np.flatnonzero(self.change_var[:end] == var)
        if len(records) == 0:
            return (None,) * WARP
        r = int(records[-1])
        defined = int(self.change_defined[r])
        values = decode_registers(self.change_values[r], self.kinds[var], self.itemsizes[var])
        return tuple(values[k] if (defined >> k) & 1 else None for k in range(WARP))


def encode_registers(values: np.ndarray) -> np.ndarray:
    """Raw int64 storage of register values (floats keep their float64 bit pattern)."""
    if values.dtype.kind == "f":
        return values.astype(np.float64).view(np.int64)
    return values.astype(np.int64)


def decode_registers(raw: np.ndarray, kind: str, itemsize: int) -> list[Any]:
    """Python values from :func:`encode_registers` storage, typed like the C variable.

    Floats come back as the shortest decimal that reads back as the same float32 (or
    float64), so ``0.1f`` shows as 0.1; integers wrap to their C width.
    """
    if kind == "f":
        floats = raw.view(np.float64)
        if itemsize == 4:
            return [float(str(x)) for x in floats.astype(np.float32)]
        return floats.tolist()
    if kind == "b":
        return (raw != 0).tolist()
    if kind == "u":
        return raw.astype(np.dtype(f"u{itemsize}")).tolist()
    if kind == "i":
        return raw.astype(np.dtype(f"i{itemsize}")).tolist()
    return raw.tolist()
