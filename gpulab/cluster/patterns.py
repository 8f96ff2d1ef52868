"""Each rank's input values and the result it must get back, so every measured call is checked.

Element ``k`` of rank ``r``'s send buffer holds ``r + 1 + (k mod 13)``: small whole numbers, so
float32 sums over ranks are exact (below 2^24 for up to a million ranks) and a wrong, missing or
misplaced chunk changes the value. The check counts the elements that differ, as nccl-tests'
``#wrong`` column does. Works on numpy arrays and, through ``xp``, on CuPy arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpulab.cluster.busbw import Layout

ROOT = 0  # Broadcast's source and Reduce's destination
_PERIOD = 13


def values(xp: Any, rank: int, start: int, length: int) -> Any:
    """float32 ``rank + 1 + (k mod 13)`` for k = start ... start + length - 1."""
    k = xp.arange(start, start + length, dtype=xp.int64)
    return (rank + 1 + k % _PERIOD).astype(xp.float32)


def _summed(xp: Any, ranks: int, start: int, length: int) -> Any:
    """Σ over ranks r of values(r, k): n(n+1)/2 + n·(k mod 13)."""
    k = xp.arange(start, start + length, dtype=xp.int64)
    return (ranks * (ranks + 1) // 2 + ranks * (k % _PERIOD)).astype(xp.float32)


def send_buffer(xp: Any, plan: Layout, rank: int) -> Any:
    """What ``rank`` passes to the collective (Broadcast: only the root's is sent; the others'
    are overwritten, so they start at zero)."""
    if plan.collective == "broadcast" and rank != ROOT:
        return xp.zeros(plan.send_elements, dtype=xp.float32)
    return values(xp, rank, 0, plan.send_elements)


def expected(xp: Any, plan: Layout, rank: int) -> Any | None:
    """What ``rank``'s receive buffer must hold afterwards; None where nothing is defined
    (Reduce's result exists on the root only)."""
    n, count = plan.ranks, plan.count
    kind = plan.collective
    if kind == "allreduce":
        return _summed(xp, n, 0, count)
    if kind == "broadcast":
        return values(xp, ROOT, 0, count)
    if kind == "reduce":
        return _summed(xp, n, 0, count) if rank == ROOT else None
    if kind == "allgather":  # chunk j comes from rank j
        return xp.concatenate([values(xp, j, 0, count) for j in range(n)])
    if kind == "reducescatter":  # rank r gets the sum of everybody's chunk r
        return _summed(xp, n, rank * count, count)
    if kind == "alltoall":  # chunk j is what rank j sent to this rank: its chunk number ``rank``
        return xp.concatenate([values(xp, j, rank * count, count) for j in range(n)])
    raise ValueError(f"no collective {kind!r}")


def wrong_elements(xp: Any, plan: Layout, rank: int, received: Any) -> int:
    """How many elements of ``received`` differ from what ``rank`` must hold (0 where nothing is defined)."""
    want = expected(xp, plan, rank)
    if want is None:
        return 0
    if received.shape != want.shape:
        return int(max(received.size, want.size))
    return int((received != want).sum())


def numpy_wrong(plan: Layout, rank: int, received: np.ndarray) -> int:
    """:func:`wrong_elements` on numpy arrays."""
    return wrong_elements(np, plan, rank, received)
