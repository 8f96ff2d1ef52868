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
    shared_cycles: int
    l1_cycles: int
    l2_cycles: int
    dram_cycles_low: int
    dram_cycles_high: int
    source_title: str
    source_url: str
    validated: bool = False  # True only with a row in resources/validation/ that measures it
    source_short: str = ""  # a few words for a one-line caption (the title is for the citation)

    def as_rows(self) -> list[tuple[str, float]]:
        """(level, cycles) rows, DRAM at the middle of its published range."""
        return [("shared", self.shared_cycles), ("L1", self.l1_cycles), ("L2", self.l2_cycles),
                ("DRAM", (self.dram_cycles_low + self.dram_cycles_high) / 2)]


@cache
def _table() -> dict[str, GpuLevels]:
    with resource_path("latency", "gpu_levels.toml").open("rb") as handle:
        raw = tomllib.load(handle)
    sources = raw.get("sources", {})
    found = {}
    for arch, entry in raw.get("arch", {}).items():
        source = sources[entry["source"]]
        found[arch] = GpuLevels(arch, int(entry["shared_cycles"]), int(entry["l1_cycles"]), int(entry["l2_cycles"]),
                                int(entry["dram_cycles_low"]), int(entry["dram_cycles_high"]), str(source["title"]),
                                str(source["url"]), bool(entry.get("validated", False)),
                                str(source.get("short", source["title"])))  # fmt: skip
    return found


def levels(arch: str) -> GpuLevels | None:
    """The published latencies for ``arch`` (``sm_75``), or None where none is listed."""
    return _table().get(arch)


def covered() -> tuple[str, ...]:
    return tuple(sorted(_table()))
