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


@pytest.fixture(autouse=True)
def fails_on_leaked_python_threads():
    """Fail any test that leaves a Python thread running (a second of grace to finish)."""
    import threading
    import time

    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 1.0

    def leaked() -> list[threading.Thread]:
        return [t for t in threading.enumerate()
                if t not in before and t.is_alive() and not isinstance(t, threading._DummyThread)]

    while leaked() and time.monotonic() < deadline:
        time.sleep(0.02)
    if leaked():
        pytest.fail(f"test left threads running: {leaked()}")


@pytest.fixture(autouse=True, scope="session")
def strict_text_catalogue():
    """An unknown catalogue key or a missing argument fails the test (the app renders the key instead)."""
    from gpulab import catalogue

    old = catalogue.set_strict(True)
    yield
    catalogue.set_strict(old)
