"""Occupancy: how many blocks and warps of a kernel one SM holds, and which resource runs out first.

:mod:`.limits` reads the per-architecture limits (``resources/occupancy/limits.toml``, every figure
cited there), :mod:`.calculator` applies the CUDA occupancy rules to them, and :mod:`.cubin` reads
a kernel's registers and static shared memory out of the cubin NVRTC compiles (no GPU needed).

    >>> from gpulab.occupancy import occupancy
    >>> r = occupancy("sm_70", threads=128, registers=37, shared_bytes=0)
    >>> r.blocks_per_sm, r.warps_per_sm, r.limiter
    (12, 48, 'registers')
"""

from __future__ import annotations

from gpulab.occupancy.calculator import LIMITERS, Occupancy, OccupancyError, occupancy
from gpulab.occupancy.limits import ArchLimits, arch_limits, known_archs, resolve_arch

__all__ = ["LIMITERS", "ArchLimits", "Occupancy", "OccupancyError", "arch_limits", "known_archs", "occupancy",
           "resolve_arch"]
