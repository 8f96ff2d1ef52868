"""Published per-level GPU load latencies (``resources/latency/gpu_levels.toml``), each with its source.

Only what could be read and checked is listed; :func:`levels` returns None for an architecture
without a published figure here, and callers say so instead of guessing. The figures are labelled
*modelled* and *unvalidated* (no validation row measures them on this project's kernels).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from gpulab.paths import resource_path


@dataclass(frozen=True)
class GpuLevels:
    arch: str
    shared_cycles: int | None  # None: the source lists no shared-memory figure
    l1_cycles: int
    l2_cycles: int
    dram_cycles_low: int
    dram_cycles_high: int  # the same as low where the source gives one figure
    source_title: str
    source_url: str
    validated: bool = False  # True only with a row in resources/validation/ that measures it
    source_short: str = ""  # the source's name for a line with no room for its title
    measured_on: str = ""  # the GPU the source measured

    @property
    def dram_mid_cycles(self) -> int:
        """The DRAM latency the SM model uses: the middle of the published range."""
        return (self.dram_cycles_low + self.dram_cycles_high) // 2

    def as_rows(self) -> list[tuple[str, float]]:
        """(level, cycles) rows, DRAM at the middle of its published range; shared only where listed."""
        rows: list[tuple[str, float]] = [] if self.shared_cycles is None else [("shared", self.shared_cycles)]
        return [*rows, ("L1", self.l1_cycles), ("L2", self.l2_cycles),
                ("DRAM", (self.dram_cycles_low + self.dram_cycles_high) / 2)]  # fmt: skip


def _entry(arch: str, entry: dict, source: dict) -> GpuLevels:
    shared = entry.get("shared_cycles")
    return GpuLevels(arch, None if shared is None else int(shared), int(entry["l1_cycles"]), int(entry["l2_cycles"]),
                     int(entry["dram_cycles_low"]), int(entry["dram_cycles_high"]), str(source["title"]),
                     str(source["url"]), bool(entry.get("validated", False)), str(source.get("short", source["title"])),
                     str(entry.get("measured_on", "")))  # fmt: skip


@cache
def _table() -> dict[str, GpuLevels]:
    with resource_path("latency", "gpu_levels.toml").open("rb") as handle:
        raw = tomllib.load(handle)
    sources = raw.get("sources", {})
    return {arch: _entry(arch, entry, sources[entry["source"]]) for arch, entry in raw.get("arch", {}).items()}


def levels(arch: str) -> GpuLevels | None:
    """The published latencies for ``arch`` (``sm_75``), or None where none is listed."""
    return _table().get(arch)


def covered() -> tuple[str, ...]:
    return tuple(sorted(_table()))
