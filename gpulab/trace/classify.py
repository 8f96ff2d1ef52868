"""Telling events apart by name, and the doctor's thresholds: both read from one data file,
``resources/trace/thresholds.toml``, where each number stands beside its reason."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from functools import cache
from typing import Any

from gpulab.paths import resource_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project's own fallback, as in gpulab.catalogue
    import tomli as tomllib

THRESHOLDS_FILE = ("trace", "thresholds.toml")
FINDING_KEYS = ("launch_bound", "small_kernels", "pageable_copies", "transfers_on_critical_path", "data_loading",
                "no_overlap", "comm_not_overlapped", "memory_bound", "sync_stalls")  # fmt: skip
"""The one vocabulary of findings, in the order they are reported."""

_VERSION_SUFFIX = re.compile(r"_v\d+$")  # nsys names runtime calls cudaLaunchKernel_v7000


@cache
def thresholds() -> Mapping[str, Any]:
    """The whole file, parsed once."""
    with open(resource_path(*THRESHOLDS_FILE), "rb") as handle:
        return tomllib.load(handle)


def limit(finding: str, name: str) -> float:
    """One threshold of a finding (KeyError names it when the file lacks it)."""
    return float(thresholds()[finding][name])


def lab_of(finding: str) -> str:
    """The lab (a registry name) that teaches what a finding is about."""
    return str(thresholds()[finding]["lab"])


@cache
def _names(group: str) -> tuple[str, ...]:
    return tuple(str(n).lower() for n in thresholds()["names"][group])


def _contains(name: str, group: str) -> bool:
    lowered = name.lower()
    return any(part in lowered for part in _names(group))


def is_communication(kernel_name: str) -> bool:
    return _contains(kernel_name, "communication")


def is_memory_bound_by_name(kernel_name: str) -> bool:
    return _contains(kernel_name, "memory_bound_kernels")


def is_data_loading(range_name: str) -> bool:
    return _contains(range_name, "data_loading")


def call_name(name: str) -> str:
    """A runtime call's name without nsys' version suffix (``cudaMemcpy_v3020`` -> ``cudaMemcpy``)."""
    return _VERSION_SUFFIX.sub("", name)


def is_launch_call(name: str) -> bool:
    return call_name(name).lower() in _names("launch_calls")


def is_sync_call(name: str) -> bool:
    return call_name(name).lower() in _names("sync_calls")


def step_number(name: str) -> int | None:
    """N of a ``ProfilerStep#N`` range, or None for any other name."""
    prefix = str(thresholds()["names"]["step_prefix"])
    if not name.startswith(prefix):
        return None
    digits = name[len(prefix):]
    return int(digits) if digits.isdigit() else None
