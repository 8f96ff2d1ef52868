"""The per-SM limits of each compute capability, read from ``resources/occupancy/limits.toml``."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from gpulab.paths import resource_path

LIMITS_FILE = ("occupancy", "limits.toml")


class UnknownArch(ValueError):
    """An architecture that is neither ``sm_XY`` of the limits file nor a spec-table GPU id."""


@dataclass(frozen=True)
class ArchLimits:
    """One compute capability's per-SM limits; units in the names (registers are 32-bit)."""

    capability: tuple[int, int]
    name: str
    max_warps_per_sm: int
    max_threads_per_block: int
    max_blocks_per_sm: int
    registers_per_sm: int
    registers_per_block: int
    max_registers_per_thread: int
    register_unit: int
    sub_partitions: int
    shared_per_sm_bytes: int
    shared_per_block_bytes: int
    shared_per_block_optin_bytes: int
    shared_unit_bytes: int
    reserved_shared_per_block_bytes: int
    carveout_kib: tuple[int, ...]
    schedulers_per_sm: int
    rules_extrapolated: bool = False

    @property
    def arch(self) -> str:
        return f"sm_{self.capability[0]}{self.capability[1]}"


_INT_FIELDS = ("max_warps_per_sm", "max_threads_per_block", "max_blocks_per_sm", "registers_per_sm",
               "registers_per_block", "max_registers_per_thread", "register_unit", "sub_partitions",
               "shared_per_sm_bytes", "shared_per_block_bytes", "shared_per_block_optin_bytes",
               "shared_unit_bytes", "reserved_shared_per_block_bytes", "schedulers_per_sm")  # fmt: skip


def _entry(key: str, raw: dict[str, Any]) -> ArchLimits:
    found = re.fullmatch(r"(\d+)\.(\d+)", key)
    if found is None:
        raise ValueError(f"{'/'.join(LIMITS_FILE)}: capability {key!r} is not major.minor")
    values = {}
    for name in _INT_FIELDS:
        value = raw.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{'/'.join(LIMITS_FILE)}: cc {key} field {name} must be a non-negative integer")
        values[name] = value
    carveout = tuple(int(v) for v in raw.get("carveout_kib", ()))
    return ArchLimits(capability=(int(found.group(1)), int(found.group(2))), name=str(raw.get("name", key)),
                      carveout_kib=carveout, rules_extrapolated=bool(raw.get("rules_extrapolated", False)),
                      **values)  # fmt: skip


@cache
def _table() -> dict[str, ArchLimits]:
    with resource_path(*LIMITS_FILE).open("rb") as handle:
        raw = tomllib.load(handle)
    table = {}
    for key, entry in raw.get("cc", {}).items():
        limits = _entry(key, entry)
        table[limits.arch] = limits
    return table


def known_archs() -> tuple[str, ...]:
    """``sm_XY`` names the limits file covers, oldest first."""
    return tuple(sorted(_table(), key=lambda a: _table()[a].capability))


def arch_limits(arch: str) -> ArchLimits:
    """The limits of ``arch`` (``sm_80``, ``8.0``, ``80`` or a spec-table GPU id such as ``h100-sxm``)."""
    return _table()[resolve_arch(arch)]


def resolve_arch(text: str) -> str:
    """``sm_XY`` for an architecture name or a spec-table GPU id; :class:`UnknownArch` names the known ones."""
    cleaned = text.strip().lower()
    found = re.fullmatch(r"(?:sm_?|compute_)?(\d+)\.?(\d)", cleaned)
    if found is not None:
        arch = f"sm_{int(found.group(1))}{found.group(2)}"
        if arch in _table():
            return arch
    from gpulab.specs import shipped_specs  # the spec table: only when the name is not an sm_XY

    spec = shipped_specs().get(cleaned)
    if spec is not None:
        major, minor = spec.compute_capability
        arch = f"sm_{major}{minor}"
        if arch in _table():
            return arch
    known = ", ".join((*known_archs(), *shipped_specs().keys()))
    raise UnknownArch(f"unknown architecture {text!r} (known: {known})")
