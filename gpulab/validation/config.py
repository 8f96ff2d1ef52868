"""What every evaluator reads from a row's ``config`` the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulab.lab.base import resolve_model_gpu

DEFAULT_GPU = "h100-sxm"


def model_gpu(config: Mapping[str, Any]) -> Any:
    """The spec-table GPU a row names (``gpu``: a key or a device name; default H100 SXM), as the labs
    resolve their ``model_gpu`` field; an unknown one is an error the row's check reports."""
    return resolve_model_gpu(str(config.get("gpu", DEFAULT_GPU)))
