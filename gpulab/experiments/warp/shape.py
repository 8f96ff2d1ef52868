"""The geometry of a launch: warp width, grid and block dimensions, thread naming (no Qt here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

WARP = 32


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


def launch_dims(value: Sequence[int] | int) -> tuple[int, int, int]:
    """A grid or block size as three dimensions (``4`` and ``(4,)`` become ``(4, 1, 1)``)."""
    dims = (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)
    return (*dims, *(1,) * (3 - len(dims)))  # type: ignore[return-value]
