"""Recording per-lane register values of traced warps (see :class:`trace.RegisterTrace`).

Only used when a launch is traced. The compiler gives every scalar local variable of every
function an id and every statement the tuple of (variable id, register slot) in scope
there; after such a statement the recorder copies those registers for the lanes of the
traced warps into a per-activation shadow (active lanes only: a lane's register changes
only while it is active, and the emulator may overwrite inactive lanes' slots with values
that are never read) and appends a change record per warp whose values differ from the
last ones recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .trace import MAX_REGISTER_CHANGES_PER_WARP, MAX_STEPS_PER_WARP, WARP, RegisterTrace, TraceStep, encode_registers

Visible = tuple[tuple[int, int], ...]  # (variable id, register slot) pairs in scope


class TracedLaunch(Protocol):
    """What the recorder reads of the launch (a :class:`~.machine.Machine`, which owns a
    recorder, so this module does not import that one)."""

    trace: dict[int, list[TraceStep]] | None
    exited: np.ndarray


@dataclass(frozen=True)
class RegisterTable:
    """What the compiler knows about register variables, for every function of a program."""

    variables: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    itemsizes: tuple[int, ...] = ()
    scopes: tuple[tuple[int, ...], ...] = ()


class _WarpLog:
    """Snapshots and change records of one traced warp, appended while running."""

    __slots__ = ("change_defined", "change_values", "change_var", "snap_changes", "snap_scope", "snap_step",
                 "truncated")

    def __init__(self) -> None:
        self.snap_step: list[int] = []
        self.snap_scope: list[int] = []
        self.snap_changes: list[int] = []
        self.change_var: list[int] = []
        self.change_defined: list[int] = []
        self.change_values = bytearray()
        self.truncated = False


class Shadow:
    """Traced lanes' last known values of one function activation's registers."""

    __slots__ = ("defined", "values")

    def __init__(self) -> None:
        self.values: dict[int, np.ndarray] = {}
        self.defined: dict[int, np.ndarray] = {}


class RegisterRecorder:
    """Per traced warp register logs for one launch."""

    def __init__(self, table: RegisterTable, warps: np.ndarray) -> None:
        self.table = table
        self.warps = [int(w) for w in warps]
        self.lanes = (np.asarray(warps, dtype=np.int64)[:, None] * WARP + np.arange(WARP)).reshape(-1)
        self.logs = [_WarpLog() for _ in self.warps]
        self.last_values: dict[int, np.ndarray] = {}
        self.last_defined: dict[int, np.ndarray] = {}

    def record(self, mc: TracedLaunch, shadow: Shadow, registers: list[Any], active_bits: np.ndarray,
               scope_id: int, visible: Visible) -> None:
        """After a statement: snapshot the visible registers of the warps active in it."""
        active = active_bits[self.lanes]
        warp_active = active.reshape(-1, WARP).any(axis=1)
        if not warp_active.any():
            return
        assert mc.trace is not None
        rows = [r for r in np.flatnonzero(warp_active).tolist()
                if not self.logs[r].truncated and len(mc.trace[self.warps[r]]) < MAX_STEPS_PER_WARP]
        if not rows:  # a warp that cannot record any more never needs its shadow again
            return
        live = ~mc.exited[self.lanes]
        changes = [(var, self._update(shadow, registers[slot], slot, active, live, var))
                   for var, slot in visible if registers[slot] is not None]
        for r in rows:
            self._append(r, mc.trace[self.warps[r]], scope_id, changes)

    def _update(self, shadow: Shadow, value: Any, slot: int, active: np.ndarray, live: np.ndarray,
                var: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Refresh the shadow of one register; return (values, defined, changed per warp)."""
        raw = encode_registers(value[self.lanes] if isinstance(value, np.ndarray) and value.ndim
                               else np.full(len(self.lanes), value))
        values = shadow.values.get(slot)
        if values is None:
            values = shadow.values[slot] = np.zeros(len(self.lanes), dtype=np.int64)
            shadow.defined[slot] = np.zeros(len(self.lanes), dtype=bool)
        values[active] = raw[active]
        defined = shadow.defined[slot]
        defined |= active
        shown = defined & live
        last_values, last_defined = self.last_values.get(var), self.last_defined.get(var)
        if last_values is None or last_defined is None:
            changed = shown.reshape(-1, WARP).any(axis=1)
        else:
            differs = (shown != last_defined) | (shown & (values != last_values))
            changed = differs.reshape(-1, WARP).any(axis=1)
        return values, shown, changed

    def _append(self, r: int, steps: list[Any], scope_id: int,
                changes: list[tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray]]]) -> None:
        log = self.logs[r]
        lanes = slice(r * WARP, (r + 1) * WARP)
        for var, (values, shown, changed) in changes:
            if not changed[r]:
                continue
            if len(log.change_var) >= MAX_REGISTER_CHANGES_PER_WARP:
                log.truncated = True
                return
            log.change_var.append(var)
            log.change_defined.append(int(np.packbits(shown[lanes], bitorder="little").view("<u4")[0]))
            log.change_values += values[lanes].tobytes()
            self._remember(var, lanes, values, shown)
        log.snap_step.append(len(steps) - 1)
        log.snap_scope.append(scope_id)
        log.snap_changes.append(len(log.change_var))

    def _remember(self, var: int, lanes: slice, values: np.ndarray, shown: np.ndarray) -> None:
        last_values = self.last_values.get(var)
        if last_values is None:
            last_values = self.last_values[var] = np.zeros(len(self.lanes), dtype=np.int64)
            self.last_defined[var] = np.zeros(len(self.lanes), dtype=bool)
        last_values[lanes] = values[lanes]
        self.last_defined[var][lanes] = shown[lanes]

    def result(self) -> dict[int, RegisterTrace]:
        """The finished :class:`RegisterTrace` of every traced warp."""
        t = self.table
        out = {}
        for w, log in zip(self.warps, self.logs, strict=True):
            out[w] = RegisterTrace(
                t.variables, t.types, t.kinds, t.itemsizes, t.scopes,
                np.array(log.snap_step, dtype=np.int64), np.array(log.snap_scope, dtype=np.int32),
                np.array(log.snap_changes, dtype=np.int64), np.array(log.change_var, dtype=np.int32),
                np.array(log.change_defined, dtype=np.uint32),
                np.frombuffer(bytes(log.change_values), dtype=np.int64).reshape(-1, WARP), log.truncated)
        return out
