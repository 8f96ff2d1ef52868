"""Trace records: what one warp did at one step, for the warp visualizer.

``LaunchResult.trace`` maps a global warp id (block linear id * warps per block + warp in
block) to the ordered list of :class:`TraceStep` of that warp. Only selected warps are
traced (by default the warps of block 0, at most 32 warps) and each warp keeps at most
``MAX_STEPS_PER_WARP`` steps, so memory stays bounded; metrics always cover every warp.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_STEPS_PER_WARP = 20_000
DEFAULT_TRACED_WARPS = 32


@dataclass(frozen=True)
class TraceStep:
    """One warp-level step.

    ``kind`` is one of ``"stmt"`` (a statement), ``"branch"`` (an if/loop condition),
    ``"load"``, ``"store"``, ``"atomic"`` or ``"barrier"``. ``active_mask``
    has bit *i* set when lane *i* of the warp was active. Memory steps also carry
    ``space`` ("global", "shared" or "local"), the per-lane byte ``addresses`` (None for
    inactive lanes), the distinct 32-byte ``sectors`` and 128-byte ``lines`` touched
    (global), and ``bank_conflict_degree`` (shared: wavefronts needed, 1 = conflict-free).
    For branches, ``taken_mask`` holds the lanes whose condition was true.
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

    @property
    def active_lanes(self) -> int:
        """Number of active lanes at this step."""
        return bin(self.active_mask).count("1")
