"""Shared test set-up: offscreen Qt, and the ``gpu`` marker that skips without a CUDA device."""

from __future__ import annotations

import os
import sys
import traceback

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _qt_missing() -> str:
    """The Qt package the front end's tests need and this Python lacks ('' when none is missing).
    gpulab installs them; a borrowed GPU machine's Python (tools/gpu-smoke.sh on an image without
    Qt) may not, and its engine and GPU tests should still run there."""
    import importlib.util

    for name in ("PySide6", "pytestqt", "pyqtgraph", "superqt"):
        if importlib.util.find_spec(name) is None:
            return name
    return ""


_QT_MISSING = _qt_missing()
collect_ignore = ["ui"] if _QT_MISSING else []


def pytest_report_header(config: pytest.Config) -> str | None:
    if _QT_MISSING:
        return f"tests/ui not collected: {_QT_MISSING} is not installed (pip install -e '.[dev]' installs it)"
    return None

# Exceptions that reach sys.excepthook (PySide6 sends a slot's exception there and carries on).
_UNCAUGHT: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Record every exception that reaches sys.excepthook for the whole run, in any test phase
    (pytest-qt catches those inside a test's own call; this catches fixtures and teardown too)."""
    previous = sys.excepthook

    def record(exc_type, exc, tb) -> None:
        _UNCAUGHT.append("".join(traceback.format_exception(exc_type, exc, tb)))
        previous(exc_type, exc, tb)

    sys.excepthook = record


@pytest.fixture(autouse=True)
def fails_on_uncaught_exceptions_in_slots():
    """Fail the test during which a Qt slot raised: a click that raises is a broken click."""
    seen = len(_UNCAUGHT)
    yield
    new = _UNCAUGHT[seen:]
    if new:
        pytest.fail("an exception was raised inside a Qt slot:\n" + "\n".join(new), pytrace=False)


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """A GPU test runs alone on the GPU (see tests/gpu_turn.py); a skipped one takes no turn."""
    if item.get_closest_marker("gpu") is None or item.get_closest_marker("skip") is not None:
        yield
        return
    from tests.gpu_turn import gpu_turn

    with gpu_turn():
        yield


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
