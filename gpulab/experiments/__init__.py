"""The experiment registry: one explicit table from name to module.

Each module has ``TITLE``, ``DESCRIPTION``, a ``Params`` dataclass and ``run(params, ctx)``
(see :mod:`gpulab.experiments.base`). Modules are imported only when asked for.

A lab may bring its own kernel: a module's ``KERNELS`` (a tuple of
:class:`~gpulab.kernels.KernelSpec` for files in ``kernels/``) joins the base kernel catalogue
in :func:`kernel_catalogue`, which is what the warp visualizer lists and the kernel tests check
(emulated against the numpy reference, compiled with NVRTC). So a new lab is its kernel, its
module, its catalogue texts, its test and its line in ``REGISTRY``.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

from gpulab import kernels
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
from gpulab.paths import kernels_dir

REGISTRY: dict[str, str] = {
    "vector-add": "gpulab.experiments.vector_add",
    "matmul": "gpulab.experiments.matmul",
    "divergence": "gpulab.experiments.divergence",
    "access-pattern": "gpulab.experiments.access_pattern",
    "bank-conflicts": "gpulab.experiments.bank_conflicts",
    "reduction": "gpulab.experiments.reduction",
    "saxpy": "gpulab.experiments.saxpy",
    "precision": "gpulab.experiments.precision",
    "roofline": "gpulab.experiments.roofline",
    "transfer": "gpulab.experiments.transfer",
    "launch": "gpulab.experiments.launch",
    "bandwidth": "gpulab.experiments.bandwidth",
    "streams": "gpulab.experiments.streams",
    "fusion": "gpulab.experiments.fusion",
    "allreduce-steps": "gpulab.experiments.allreduce_steps",
    "collectives": "gpulab.experiments.collectives",
    "p2p": "gpulab.experiments.p2p",
    "cluster-scaling": "gpulab.experiments.cluster_scaling",
}
# Old names that still run (and open results of) a renamed lab; not listed, so no lab runs twice.
ALIASES: dict[str, str] = {"coalescing": "access-pattern"}

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


def names() -> list[str]:
    """Registered experiment names, in registry order."""
    return list(REGISTRY)


def canonical(name: str) -> str:
    """The registry name of ``name``: itself, or the lab an old name (:data:`ALIASES`) now means."""
    return ALIASES.get(name, name)


def get(name: str) -> ModuleType:
    """The module of experiment ``name`` (or of an old name for it); ExperimentError names the known ones otherwise."""
    name = canonical(name)
    if name not in REGISTRY:
        raise ExperimentError(f"no experiment called {name!r} (known: {', '.join(REGISTRY)})")
    return importlib.import_module(REGISTRY[name])


def name_of(module: ModuleType) -> str | None:
    """The registry name of an experiment module (its catalogue keys are ``experiment.<name>.*``), or None."""
    return next((name for name, path in REGISTRY.items() if path == module.__name__), None)


@cache
def kernel_catalogue() -> dict[str, kernels.KernelSpec]:
    """Every kernel the lab runs, by entry name: the base catalogue and each registered lab's ``KERNELS``."""
    table = dict(kernels.catalogue())
    for name in REGISTRY:
        for spec in getattr(get(name), "KERNELS", ()):
            if spec.entry in table:
                clash = f"experiment {name!r} declares kernel {spec.entry!r}, which is in the catalogue already"
                raise kernels.CatalogueError(clash)
            table[spec.entry] = spec
    return table


def kernel(entry: str) -> kernels.KernelSpec:
    """The catalogue entry of kernel ``entry``, wherever it is declared; CatalogueError names the known ones."""
    table = kernel_catalogue()
    if entry not in table:
        raise kernels.CatalogueError(f"no kernel {entry!r} in the catalogue (known: {', '.join(sorted(table))})")
    return table[entry]


def uncatalogued_kernel_files() -> list[str]:
    """``.cu`` files in kernels/ that no catalogue entry describes (should be none)."""
    described = {spec.file for spec in kernel_catalogue().values()}
    return sorted(path.name for path in kernels_dir().glob("*.cu") if path.name not in described)
