"""Memory-step analysis: sectors needed vs fetched (global), banks hit (shared) (no Qt here).

A memory step of a trace holds every lane's byte address; :func:`analyse_memory_step` turns it
into the picture the visualizer draws: which 128-byte line and 32-byte sector each lane hits,
how few sectors the bytes asked for could fit in, or how many distinct words each of the 32
shared-memory banks serves. Element sizes come from the step itself or, for older traces,
from the kernel's declarations (:func:`buffer_itemsizes`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpulab import simt
from gpulab.experiments.warp.shape import WARP

SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
BANK_BYTES = 4
MEMORY_KINDS = ("load", "store", "atomic")


@dataclass(frozen=True)
class MemoryStep:
    """The memory traffic of one warp at one memory step.

    Global: ``line_of_lane``/``sector_of_lane`` index into ``lines`` and the sectors of those
    lines (-1 for inactive lanes); ``sectors_needed`` is the fewest 32-byte sectors the
    distinct bytes asked for could fit in, ``sectors_fetched`` what the access touched.
    Shared: ``bank_of_lane``, ``lanes_per_bank`` (distinct words per bank, the wavefronts
    that bank needs) and the emulator's ``conflict_degree``.
    """

    warp: int
    kind: str
    space: str
    buffer: str
    itemsize: int
    addresses: tuple[int | None, ...]
    active_lanes: int
    lines: tuple[int, ...] = ()
    line_of_lane: tuple[int, ...] = ()
    sector_of_lane: tuple[int, ...] = ()
    sectors_needed: int = 0
    sectors_fetched: int = 0
    fetched_sectors: tuple[int, ...] = ()
    bank_of_lane: tuple[int, ...] = ()
    words_per_bank: tuple[int, ...] = ()
    lanes_per_bank: tuple[tuple[int, ...], ...] = ()
    conflict_degree: int = 0

    @property
    def efficiency(self) -> float:
        """Coalescing (global: needed/fetched sectors) or bank efficiency (shared: 1/degree)."""
        if self.space == "shared":
            return 1.0 / self.conflict_degree if self.conflict_degree else 1.0
        if self.sectors_fetched == 0:
            return 1.0
        return min(1.0, self.sectors_needed / self.sectors_fetched)


# ------------------------------------------------------------------ kernel source facts

def buffer_itemsizes(source: str, entry: str = "", include_dirs: Sequence[str] = ()) -> dict[str, int]:
    """Element size in bytes of every pointer parameter and array the source declares (of kernel
    ``entry``, or the first), as the emulator compiled them: macros, typedefs and templates included.
    Empty for a source the emulator cannot compile (a GPU-only kernel): its memory steps then
    show no element sizes rather than guessed ones."""
    try:
        return simt.declared_itemsizes(source, entry, include_dirs=include_dirs)
    except simt.CompileError:
        return {}


def analyse_memory_step(step: Any, warp: int, itemsize: int) -> MemoryStep:
    """Sectors needed vs fetched (global) or the bank histogram (shared) of one memory step."""
    addresses = tuple(step.addresses)
    used = [(lane, a) for lane, a in enumerate(addresses) if a is not None]
    common = dict(
        warp=warp,
        kind=step.kind,
        space=step.space,
        buffer=step.buffer,
        itemsize=itemsize,
        addresses=addresses,
        active_lanes=len(used),
    )
    if step.space == "shared":
        return MemoryStep(**common, **_bank_analysis(used, itemsize, step.bank_conflict_degree))
    return MemoryStep(**common, **_sector_analysis(used, itemsize, step))


def _sector_analysis(used: list[tuple[int, int]], itemsize: int, step: Any) -> dict[str, Any]:
    lines = tuple(step.lines) or tuple(sorted({a // LINE_BYTES for _, a in used}))
    line_pos = {line: i for i, line in enumerate(lines)}
    line_of = [-1] * WARP
    sector_of = [-1] * WARP
    for lane, a in used:
        line_of[lane] = line_pos.get(a // LINE_BYTES, -1)
        sector_of[lane] = (a % LINE_BYTES) // SECTOR_BYTES
    distinct_bytes = len({a for _, a in used}) * itemsize
    fetched = tuple(step.sectors) or tuple(sorted({a // SECTOR_BYTES for _, a in used}))
    return dict(
        lines=lines,
        line_of_lane=tuple(line_of),
        sector_of_lane=tuple(sector_of),
        sectors_needed=math.ceil(distinct_bytes / SECTOR_BYTES),
        sectors_fetched=len(fetched),
        fetched_sectors=fetched,
    )


def _bank_analysis(used: list[tuple[int, int]], itemsize: int, degree: int) -> dict[str, Any]:
    bank_of = [-1] * WARP
    words: list[set[int]] = [set() for _ in range(BANKS)]
    lanes: list[list[int]] = [[] for _ in range(BANKS)]
    for lane, a in used:
        first_word = a // BANK_BYTES
        bank_of[lane] = first_word % BANKS
        for word in range(first_word, first_word + max(1, itemsize // BANK_BYTES)):
            words[word % BANKS].add(word)
            lanes[word % BANKS].append(lane)
    per_bank = tuple(len(w) for w in words)
    return dict(
        bank_of_lane=tuple(bank_of),
        words_per_bank=per_bank,
        lanes_per_bank=tuple(tuple(x) for x in lanes),
        conflict_degree=degree or max(per_bank, default=0),
    )
