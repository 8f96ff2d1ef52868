"""Locate the data folders (``kernels/`` and ``resources/``) in a checkout or an installed wheel.

In a checkout (and an editable install) they sit beside the ``gpulab`` package; a built wheel
carries them inside the package as ``gpulab/_data/``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def _data_root(folder: str) -> Path:
    for candidate in (_PACKAGE_DIR / "_data" / folder, _PACKAGE_DIR.parent / folder):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"gpulab's '{folder}' folder was not found next to {_PACKAGE_DIR}; "
        "the installation is incomplete (reinstall with pip)."
    )


def resource_path(*parts: str) -> Path:
    """Path of a file or folder under ``resources/``."""
    return _data_root("resources").joinpath(*parts)


def kernels_dir() -> Path:
    """The folder holding the CUDA C kernels (``kernels/*.cu``)."""
    return _data_root("kernels")
