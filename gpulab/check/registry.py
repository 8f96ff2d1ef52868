"""The checks, declared once in an explicit registry, and the context they run in.

A check is a generator function ``(ctx) -> rows``: it may ``yield`` progress (a catalogue
message saying what it is doing) and ``return``\\ s its :class:`~gpulab.check.model.Row`\\ s.
It never raises for what it finds on the machine (a missing library, a driver error, an
allocation that fails): those are rows with a verdict. :func:`register` files it under its id
with the modes it runs in; :mod:`gpulab.check.run` runs them in registration order.

Thresholds come from ``resources/check/thresholds.toml`` (:func:`thresholds`), where each number
sits with the source it was taken from; a check names the entry it used in ``Row.source``.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from gpulab.catalogue import Message
from gpulab.paths import resource_path

from .model import Row

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

MODES = ("quick", "full")
CheckFn = Callable[["Context"], Generator[Message, None, list[Row]]]


@dataclass
class Context:
    """What a check may use: the mode, the machine's device layer and the thresholds."""

    mode: str = "quick"
    require_gpu: bool = False
    device_index: int | None = None  # --device N: only that GPU
    devices: Any = None  # the device layer (gpulab.check.device); None: the real one, made on first use
    host: str = field(default_factory=socket.gethostname)
    rank: int | None = None
    check_cancelled: Callable[[], None] | None = None
    shared: dict[str, Any] = field(default_factory=dict)  # what one check found that a later one reads

    @property
    def full(self) -> bool:
        return self.mode == "full"


@dataclass(frozen=True)
class Check:
    """One registered check."""

    id: str
    run: CheckFn
    modes: tuple[str, ...] = MODES


CHECKS: dict[str, Check] = {}


def register(check_id: str, modes: tuple[str, ...] = MODES) -> Callable[[CheckFn], CheckFn]:
    """File a check generator under ``check_id`` (its title is ``check.<id>.title``)."""
    unknown = set(modes) - set(MODES)
    if unknown:
        raise ValueError(f"check {check_id}: unknown modes {sorted(unknown)}")

    def add(fn: CheckFn) -> CheckFn:
        if check_id in CHECKS:
            raise ValueError(f"check {check_id!r} is registered twice")
        CHECKS[check_id] = Check(check_id, fn, modes)
        return fn
    return add


@cache
def thresholds() -> Mapping[str, Any]:
    """The thresholds file as a nested mapping (read once)."""
    with open(resource_path("check", "thresholds.toml"), "rb") as f:
        return tomllib.load(f)


def threshold(key: str) -> Mapping[str, Any]:
    """One entry of the thresholds file by its dotted key (``cpu.blas``); KeyError names it."""
    node: Any = thresholds()
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(f"thresholds.toml has no entry {key!r}")
        node = node[part]
    return node
