"""Facts about this computer's memory that the memory labs mark on their axes.

* :func:`cpu_caches`: the data caches of CPU 0 (level, kind, bytes), read from Linux sysfs
  (``/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}``), else from glibc's
  ``sysconf``, else none. It never raises: an empty tuple means "not known here".
* :func:`dram_theoretical_gb_s`: the DRAM's theoretical rate from the firmware's memory-device
  table (SMBIOS type 17: transfer rate x data width per installed module). Linux lets only
  root read that table, so it is usually None (not available).
* :func:`available_memory_bytes`: what the OS can hand out now (psutil), for clamping sweeps.
* :func:`page_aligned_full`: an array that starts on a page, so a timed copy measures the copy.

Everything here is a plain record with units in its names, for a Result's provenance.
"""

from __future__ import annotations

import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SYSFS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")
SYSFS_DMI = Path("/sys/firmware/dmi/entries")

# glibc's sysconf numbers for the cache sizes (bits/confname.h). CPython does not name them,
# but os.sysconf takes the number; other C libraries give -1 or EINVAL, which we treat as unknown.
_GLIBC_SYSCONF = {1: 188, 2: 191, 3: 194, 4: 197}  # level -> _SC_LEVELn_(D)CACHE_SIZE


@dataclass(frozen=True)
class CacheLevel:
    """One cache of CPU 0: its level (1, 2, 3...), kind (``Data``/``Unified``) and size."""

    level: int
    kind: str
    size_bytes: int

    @property
    def name(self) -> str:
        return f"L{self.level}"


@dataclass(frozen=True)
class HostMemory:
    """The caches, the DRAM's theoretical rate (None: not reported) and where they came from."""

    caches: tuple[CacheLevel, ...]
    caches_source: str
    dram_theoretical_gb_s: float | None
    dram_source: str

    @property
    def last_level_bytes(self) -> int | None:
        """The size of the largest (last-level) cache, or None when no cache is known."""
        return max((c.size_bytes for c in self.caches), default=None)

    def as_dict(self) -> dict[str, object]:
        """Plain data for a Result's provenance details."""
        return {
            "caches": [{"level": c.level, "kind": c.kind, "size_bytes": c.size_bytes} for c in self.caches],
            "caches_source": self.caches_source,
            "dram_theoretical_gb_s": self.dram_theoretical_gb_s,
            "dram_source": self.dram_source,
        }


def parse_size(text: str) -> int | None:
    """sysfs writes cache sizes as ``32K``, ``1M`` or plain bytes; None for anything else."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in ("K", "M", "G") else text
    return int(digits) * scale if digits.isdigit() and int(digits) > 0 else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def caches_from_sysfs(root: Path = SYSFS_CACHE) -> tuple[CacheLevel, ...]:
    """The data and unified caches listed under ``root`` (instruction caches left out), by level."""
    found: dict[int, CacheLevel] = {}
    try:
        entries = sorted(root.glob("index*"))
    except OSError:
        return ()
    for entry in entries:
        level, kind, size = (_read(entry / name) for name in ("level", "type", "size"))
        if not level or not level.isdigit() or kind not in ("Data", "Unified") or size is None:
            continue
        size_bytes = parse_size(size)
        if size_bytes is not None:
            found.setdefault(int(level), CacheLevel(int(level), kind, size_bytes))
    return tuple(found[level] for level in sorted(found))


def caches_from_sysconf() -> tuple[CacheLevel, ...]:
    """The cache sizes glibc's sysconf reports (Linux without sysfs); () elsewhere."""
    if not sys.platform.startswith("linux"):
        return ()
    found = []
    for level, name in _GLIBC_SYSCONF.items():
        try:
            size = os.sysconf(name)
        except (OSError, ValueError):
            continue
        if size > 0:
            found.append(CacheLevel(level, "Data" if level == 1 else "Unified", int(size)))
    return tuple(found)


def cpu_caches(root: Path = SYSFS_CACHE) -> tuple[tuple[CacheLevel, ...], str]:
    """(caches, where they came from): sysfs, else sysconf, else ``()`` and ``"not available"``."""
    for source, read in (("sysfs", lambda: caches_from_sysfs(root)), ("sysconf", caches_from_sysconf)):
        try:
            caches = read()
        except Exception:  # an odd platform must not stop a lab; the caches are just unknown
            caches = ()
        if caches:
            return caches, source
    return (), "not available"


# SMBIOS type 17 (memory device) field offsets, from the DMTF SMBIOS specification (DSP0134).
_DMI_DATA_WIDTH, _DMI_SIZE, _DMI_SPEED, _DMI_CONFIGURED_SPEED = 0x0A, 0x0C, 0x15, 0x20


def _module_gb_s(raw: bytes) -> float | None:
    """One installed module's theoretical rate: MT/s x data width in bytes; None if not installed."""
    if len(raw) < _DMI_SPEED + 2 or raw[0] != 17:
        return None
    length = raw[1]
    (width_bits,) = struct.unpack_from("<H", raw, _DMI_DATA_WIDTH)
    (size,) = struct.unpack_from("<H", raw, _DMI_SIZE)
    (speed,) = struct.unpack_from("<H", raw, _DMI_SPEED)
    if length >= _DMI_CONFIGURED_SPEED + 2 and len(raw) >= _DMI_CONFIGURED_SPEED + 2:
        (configured,) = struct.unpack_from("<H", raw, _DMI_CONFIGURED_SPEED)
        speed = configured or speed  # the rate it runs at, when the firmware says
    if size in (0, 0xFFFF) or width_bits in (0, 0xFFFF) or speed in (0, 0xFFFF):
        return None
    return speed * 1e6 * (width_bits / 8) / 1e9


def dram_theoretical_gb_s(root: Path = SYSFS_DMI) -> float | None:
    """Sum of every installed module's rate (one channel per module assumed); None if unreadable."""
    total = 0.0
    try:
        for entry in sorted(root.glob("17-*")):
            try:
                rate = _module_gb_s((entry / "raw").read_bytes())
            except OSError:
                return None  # root-only on most systems: the rate is not available
            total += rate or 0.0
    except OSError:
        return None
    return total or None


def host_memory(cache_root: Path = SYSFS_CACHE, dmi_root: Path = SYSFS_DMI) -> HostMemory:
    """The caches and the DRAM rate of this machine; never raises."""
    caches, source = cpu_caches(cache_root)
    dram = dram_theoretical_gb_s(dmi_root)
    dram_source = ("SMBIOS memory devices: configured MT/s x data width, one channel per module"
                   if dram is not None else "not available (the firmware's memory table is unreadable)")  # fmt: skip
    return HostMemory(caches, source, dram, dram_source)


def available_memory_bytes() -> int | None:
    """Memory the OS can give this process now without swapping (psutil); None if unknown."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:
        return None


def bytes_text(n: float) -> str:
    """A byte count as a person reads it: 4096 -> '4 KiB', 3 << 29 -> '1.5 GiB', 100 -> '100 B'."""
    value, unit = float(n), "B"
    for next_unit in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, next_unit
    return f"{value:.0f} {unit}" if unit == "B" or value == int(value) else f"{value:.3g} {unit}"


# ----------------------------------------------------------------- buffers for timing

PAGE_BYTES = 4096


def page_aligned_full(n: int, value: float, dtype: Any = np.float64) -> np.ndarray:
    """A new array of ``n`` copies of ``value`` that starts on a 4 KiB page boundary.

    Where numpy's allocator happens to put two arrays decides a copy's speed otherwise: on this
    x86 machine, a store 16 bytes past a load modulo 4 KiB ("4K aliasing") made a compiled copy
    of a 256 KiB working set 8x slower (6-8 GB/s against 40-70). Every array starting on a page,
    as BabelStream's aligned allocation does, makes each point measure the operation, not the
    allocator's luck."""
    itemsize = np.dtype(dtype).itemsize
    spare = PAGE_BYTES // itemsize
    buffer = np.empty(n + spare, dtype=dtype)
    skip = (-buffer.ctypes.data % PAGE_BYTES) // itemsize
    array = buffer[skip : skip + n]  # a view: it keeps the whole buffer alive
    array.fill(value)
    return array
