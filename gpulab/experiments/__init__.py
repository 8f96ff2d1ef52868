"""The labs, one module or package each, and the registry found from their declarations.

Each lab declares itself once with ``LAB = Lab(...)`` (:mod:`gpulab.lab.declare`: its name,
page, quick run, kernels) and has a ``Params`` dataclass and a generator ``run(params, ctx)``
(:mod:`gpulab.lab.base`). :data:`REGISTRY` (name -> module) and :data:`ALIASES` (old name ->
lab) are read from those declarations without importing any lab; a lab's module is imported
when it is asked for (:func:`get`). Its ``LAB.kernels`` join the base kernel catalogue in
:func:`kernel_catalogue`, which the warp visualizer lists and the kernel tests check.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from gpulab.lab import declare
from gpulab.lab.base import (
    Cancelled,
    Context,
    ExperimentError,
    ParamError,
    ParamSpec,
    PartialPoint,
    Progress,
    choices,
    drive,
    field_spec,
    params_from_strings,
    presets,
    validate_params,
)
from gpulab.lab.declare import kernel, kernel_catalogue
from gpulab.paths import kernels_dir

__all__ = [
    "ALIASES",
    "REGISTRY",
    "Cancelled",
    "Context",
    "ExperimentError",
    "ParamError",
    "ParamSpec",
    "PartialPoint",
    "Progress",
    "canonical",
    "choices",
    "drive",
    "field_spec",
    "get",
    "kernel",
    "kernel_catalogue",
    "name_of",
    "names",
    "params_from_strings",
    "presets",
    "validate_params",
]


def __getattr__(name: str) -> Any:
    """``REGISTRY`` and ``ALIASES``, derived from the labs' declarations on first use (then kept,
    so a test may put a lab of its own in them)."""
    if name == "REGISTRY":
        value: dict[str, str] = {n: entry.module for n, entry in declare.registry().items()}
    elif name == "ALIASES":
        value = declare.aliases()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _table(name: str) -> dict[str, str]:
    return globals()[name] if name in globals() else __getattr__(name)


def names() -> list[str]:
    """Registered experiment names, in sidebar order."""
    return list(_table("REGISTRY"))


def canonical(name: str) -> str:
    """The registry name of ``name``: itself, or the lab an old name (:data:`ALIASES`) now means."""
    return _table("ALIASES").get(name, name)


def get(name: str) -> ModuleType:
    """The module of experiment ``name`` (or of an old name for it); ExperimentError names the known ones otherwise."""
    name = canonical(name)
    registry = _table("REGISTRY")
    if name not in registry:
        raise ExperimentError(f"no experiment called {name!r} (known: {', '.join(registry)})")
    return importlib.import_module(registry[name])


def name_of(module: ModuleType) -> str | None:
    """The registry name of an experiment module (its catalogue keys are ``experiment.<name>.*``), or None."""
    return next((name for name, path in _table("REGISTRY").items() if path == module.__name__), None)


def uncatalogued_kernel_files() -> list[str]:
    """``.cu`` files in kernels/ that no catalogue entry or tool (``kernels.TOOL_KERNELS``) describes (none)."""
    from gpulab.kernels import TOOL_KERNELS

    described = {spec.file for spec in (*kernel_catalogue().values(), *TOOL_KERNELS)}
    return sorted(path.name for path in kernels_dir().glob("*.cu") if path.name not in described)
