"""Per-warp trace steps: merged into one timeline, and stored compactly as numpy columns (no Qt).

The emulator traces each warp separately and numbers every step with a launch-wide ``seq``:
warps with the same number stepped together, so the timeline is the sorted distinct numbers
(exact). Steps without ``seq`` (fake or older traces) are merged by source position instead:
warps whose next steps are at the same source site step together, and otherwise the warp at
the earliest source position goes first (this can misorder calls to functions defined below
their caller).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from gpulab.experiments.warp.shape import WARP

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


def lane_bits(masks: np.ndarray) -> np.ndarray:
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
