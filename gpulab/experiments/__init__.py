"""The experiment registry: one explicit table from name to module.

Each module has ``TITLE``, ``DESCRIPTION``, a ``Params`` dataclass and ``run(params, ctx)``
(see :mod:`gpulab.experiments.base`). Modules are imported only when asked for.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from gpulab.experiments.base import (
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

REGISTRY: dict[str, str] = {
    "vector-add": "gpulab.experiments.vector_add",
    "matmul": "gpulab.experiments.matmul",
    "divergence": "gpulab.experiments.divergence",
    "coalescing": "gpulab.experiments.coalescing",
    "bank-conflicts": "gpulab.experiments.bank_conflicts",
    "reduction": "gpulab.experiments.reduction",
}

__all__ = [
    "REGISTRY",
    "Cancelled",
    "Context",
    "ExperimentError",
    "ParamError",
    "ParamSpec",
    "PartialPoint",
    "Progress",
    "choices",
    "drive",
    "field_spec",
    "get",
    "name_of",
    "names",
    "params_from_strings",
    "presets",
    "validate_params",
]


def names() -> list[str]:
    """Registered experiment names, in registry order."""
    return list(REGISTRY)


def get(name: str) -> ModuleType:
    """The module of experiment ``name``; ExperimentError names the known ones otherwise."""
    if name not in REGISTRY:
        raise ExperimentError(f"no experiment called {name!r} (known: {', '.join(REGISTRY)})")
    return importlib.import_module(REGISTRY[name])


def name_of(module: ModuleType) -> str | None:
    """The registry name of an experiment module (its catalogue keys are ``experiment.<name>.*``), or None."""
    return next((name for name, path in REGISTRY.items() if path == module.__name__), None)
