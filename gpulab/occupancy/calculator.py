"""The CUDA occupancy rules applied to one kernel launch on one SM.

What ``cudaOccupancyMaxActiveBlocksPerMultiprocessor`` computes, written from the rules of the
CUDA Toolkit's ``cuda_occupancy.h`` (sources in ``resources/occupancy/limits.toml``):

* warps: ``max_warps_per_sm // ceil(threads / 32)`` blocks;
* blocks: the architecture's ``max_blocks_per_sm``;
* registers: each warp gets ``registers * 32`` rounded up to the 256-register unit; the register
  file is split among 4 sub-partitions and a warp lives in one, so ``(registers_per_sm / 4) //
  per_warp`` warps fit in each, and those ``x 4`` warps make ``// warps_per_block`` blocks. A block
  is refused (0 blocks) when its registers, with its warps rounded up to a multiple of the 4
  sub-partitions, exceed the per-block register file, or a thread needs more than the maximum;
* shared memory: the block's static + dynamic bytes plus the driver's reserved bytes per block
  (1 KiB since 8.0), rounded up to the allocation unit; the SM's capacity is the carve-out chosen
  (default: the largest), raised to the next capacity when one block would not fit in it.

The binding limit is the one whose block count is the smallest; several can bind at once, and
``limiters`` lists them all in the order of :data:`LIMITERS` (``limiter`` is the first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpulab.occupancy.limits import ArchLimits, arch_limits

WARP = 32
LIMITERS = ("warps", "registers", "shared_memory", "blocks")
UNLIMITED = 1 << 30  # a resource the kernel does not use (no registers, no shared memory)


class OccupancyError(ValueError):
    """Input the calculator cannot take: ``field`` names the bad one, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps of one launch on one SM, and each limit's block count."""

    arch: str
    threads: int
    registers: int
    shared_bytes: int
    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    limits: dict[str, int]  # blocks each resource alone would allow (LIMITERS order)
    limiters: tuple[str, ...]
    registers_per_block: int  # registers allocated to one block
    shared_per_block_bytes: int  # shared memory allocated to one block (reserved bytes and rounding included)
    shared_per_sm_bytes: int  # the SM's shared memory capacity used for the count
    rules_extrapolated: bool = False

    @property
    def occupancy(self) -> float:
        """Resident warps over the SM's maximum."""
        return self.warps_per_sm / self.max_warps_per_sm

    @property
    def limiter(self) -> str:
        return self.limiters[0] if self.limiters else ""

    def as_dict(self) -> dict[str, Any]:
        return {"arch": self.arch, "threads": self.threads, "registers": self.registers,
                "shared_bytes": self.shared_bytes, "blocks_per_sm": self.blocks_per_sm,
                "warps_per_sm": self.warps_per_sm, "max_warps_per_sm": self.max_warps_per_sm,
                "occupancy": self.occupancy, "limiter": self.limiter, "limiters": list(self.limiters),
                "blocks_by_limit": {k: (None if v >= UNLIMITED else v) for k, v in self.limits.items()},
                "registers_per_block": self.registers_per_block,
                "shared_per_block_bytes": self.shared_per_block_bytes,
                "shared_per_sm_bytes": self.shared_per_sm_bytes,
                "rules_extrapolated": self.rules_extrapolated}  # fmt: skip


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit if unit else value


def _check(arch: ArchLimits, threads: int, registers: int, shared_bytes: int, carveout_kib: int | None) -> None:
    if threads < 1 or threads > arch.max_threads_per_block:
        raise OccupancyError("threads", f"threads per block must be 1-{arch.max_threads_per_block} on {arch.arch}, "
                                        f"got {threads}")
    if registers < 0 or registers > arch.max_registers_per_thread:
        raise OccupancyError("registers", f"registers per thread must be 0-{arch.max_registers_per_thread} on "
                                          f"{arch.arch}, got {registers}")
    if shared_bytes < 0 or shared_bytes > arch.shared_per_block_optin_bytes:
        raise OccupancyError("shared", f"shared memory per block must be 0-{arch.shared_per_block_optin_bytes} "
                                       f"bytes on {arch.arch} (the opt-in maximum), got {shared_bytes}")
    if carveout_kib is not None and carveout_kib not in arch.carveout_kib:
        choices = ", ".join(str(c) for c in arch.carveout_kib)
        raise OccupancyError("carveout", f"shared memory carve-out must be one of {choices} KiB on {arch.arch}, "
                                         f"got {carveout_kib}")


def _register_blocks(arch: ArchLimits, warps_per_block: int, registers: int) -> tuple[int, int]:
    """(blocks the register file allows, registers allocated per block)."""
    per_warp = _round_up(registers * WARP, arch.register_unit)
    per_block = per_warp * warps_per_block
    # The hardware's check assumes the block's warps are spread over every sub-partition at once.
    assumed = per_warp * _round_up(warps_per_block, arch.sub_partitions)
    if per_warp == 0:
        return UNLIMITED, 0
    if assumed > arch.registers_per_block or per_block > arch.registers_per_block:
        return 0, per_block
    warps_per_partition = (arch.registers_per_sm // arch.sub_partitions) // per_warp
    return (warps_per_partition * arch.sub_partitions) // warps_per_block, per_block


def _capacity_bytes(arch: ArchLimits, kib: int) -> int:
    return kib * 1024


def _shared_blocks(arch: ArchLimits, shared_bytes: int, carveout_kib: int | None) -> tuple[int, int, int]:
    """(blocks shared memory allows, bytes allocated per block, the SM capacity used)."""
    per_block = _round_up(shared_bytes + arch.reserved_shared_per_block_bytes, arch.shared_unit_bytes)
    limit_per_block = (arch.shared_per_block_optin_bytes if shared_bytes > arch.shared_per_block_bytes
                       else arch.shared_per_block_bytes) + arch.reserved_shared_per_block_bytes
    preferred = arch.shared_per_sm_bytes if carveout_kib is None else _capacity_bytes(arch, carveout_kib)
    if per_block > limit_per_block:
        return 0, per_block, preferred
    capacity = preferred
    if capacity < per_block:  # the driver raises the carve-out to the next capacity one block fits in
        capacity = min((_capacity_bytes(arch, c) for c in arch.carveout_kib if _capacity_bytes(arch, c) >= per_block),
                       default=arch.shared_per_sm_bytes)
    if per_block == 0:
        return UNLIMITED, 0, capacity
    return capacity // per_block, per_block, capacity


def occupancy(arch: str | ArchLimits, threads: int, registers: int, shared_bytes: int = 0,
              carveout_kib: int | None = None) -> Occupancy:
    """Resident blocks and warps per SM for blocks of ``threads`` threads using ``registers``
    registers per thread and ``shared_bytes`` of shared memory per block (static + dynamic).
    ``carveout_kib`` picks the SM's shared memory capacity (default: the largest).
    :class:`OccupancyError` for input outside the architecture's limits."""
    limits = arch if isinstance(arch, ArchLimits) else arch_limits(arch)
    _check(limits, threads, registers, shared_bytes, carveout_kib)
    warps_per_block = -(-threads // WARP)
    by_registers, registers_per_block = _register_blocks(limits, warps_per_block, registers)
    by_shared, shared_per_block, capacity = _shared_blocks(limits, shared_bytes, carveout_kib)
    blocks_by = {"warps": limits.max_warps_per_sm // warps_per_block, "registers": by_registers,
                 "shared_memory": by_shared, "blocks": limits.max_blocks_per_sm}  # fmt: skip
    blocks = min(blocks_by.values())
    binding = tuple(name for name in LIMITERS if blocks_by[name] == blocks)
    return Occupancy(arch=limits.arch, threads=threads, registers=registers, shared_bytes=shared_bytes,
                     blocks_per_sm=blocks, warps_per_sm=blocks * warps_per_block,
                     max_warps_per_sm=limits.max_warps_per_sm, limits=blocks_by, limiters=binding,
                     registers_per_block=registers_per_block, shared_per_block_bytes=shared_per_block,
                     shared_per_sm_bytes=capacity, rules_extrapolated=limits.rules_extrapolated)  # fmt: skip
