"""Shared test set-up: offscreen Qt, and the ``gpu`` marker that skips without a CUDA device."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_items:
        return
    from gpulab.cuda import cuda_status

    status = cuda_status()
    if status.available:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA device: {status.reason}")
    for item in gpu_items:
        item.add_marker(skip)
