"""Fixtures for the Qt front end: offscreen Qt, throwaway settings, no leaked threads."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

import pytest
from PySide6.QtCore import QSettings, QThreadPool

from gpulab import experiments
from gpulab.devices import BlasInfo, CpuInfo, CudaStatus, DeviceReport, GpuInfo
from gpulab.experiments import Context, PartialPoint, Progress
from gpulab.results import Point, Provenance, Result, Series

NO_GPU_REASON = "No NVIDIA driver is installed (test report)."


def cpu_info() -> CpuInfo:
    blas = (BlasInfo("openblas", "0.3.27", 4, "Haswell"),)
    return CpuInfo("Test CPU 9000", 4, 8, 3200.0, 16 << 30, blas)


def no_gpu_report() -> DeviceReport:
    return DeviceReport(CudaStatus(False, NO_GPU_REASON, "no-driver", (), "14.0.0", "12.9"), cpu_info())


def gpu_report() -> DeviceReport:
    gpu = GpuInfo(0, "Test H100", "9.0", 132, 80 << 30, 1980.0, 2619.0, 5120, 50 << 20,
                  "0000:01:00.0", 3352.3)  # fmt: skip
    cuda = CudaStatus(True, "1 CUDA device(s) found.", "ok", (gpu,), "14.0.0", "12.9", "13.0")
    return DeviceReport(cuda, cpu_info())


@pytest.fixture(autouse=True)
def temporary_settings(tmp_path) -> Iterator[None]:
    """Point QSettings at a throwaway folder so tests never touch the user's settings."""
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    yield


@pytest.fixture(autouse=True)
def fails_on_leaked_threads(qapp) -> Iterator[None]:
    """Fail any test that leaves a worker or Python thread running (napari's rule)."""
    from ui.jobs import JobRunner

    before = set(threading.enumerate())
    yield
    JobRunner.shutdown_all()
    pool_busy = QThreadPool.globalInstance().activeThreadCount()
    # Qt's pool threads show up as _DummyThread once they run Python; the pool count covers them.
    leaked = [
        t
        for t in threading.enumerate()
        if t not in before and t.is_alive() and not isinstance(t, threading._DummyThread)
    ]
    if pool_busy or leaked:
        pytest.fail(f"test left threads running: {pool_busy} pool worker(s), {leaked}")


@pytest.fixture(autouse=True, scope="session")
def collects_garbage_on_the_gui_thread_only(qapp) -> None:
    """As the app does (ui.app.collect_garbage_on_gui_thread): no collection in a worker thread."""
    from ui.app import collect_garbage_on_gui_thread

    collect_garbage_on_gui_thread()


@pytest.fixture(autouse=True)
def restores_language_and_theme(qapp) -> Iterator[None]:
    """Put back English and the light theme, and really delete the test's closed widgets."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from ui import i18n
    from ui.theme import apply_theme, current_theme

    if not qapp.styleSheet():  # as the app starts: a theme applied before any window (a first one
        apply_theme("light")  # applied under open windows left their type at Qt's default size)
    yield
    # Without a running event loop, deleteLater() never happens unless we deliver it.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()  # the test's cycles go now, on this (the GUI) thread

    if i18n.current_language() != "en":
        i18n.set_language("en")
    if current_theme().name != "light":
        apply_theme("light")


@pytest.fixture
def services(qapp):
    from ui.services import Services

    return Services.create(probe=no_gpu_report)


def _shown_window(qtbot, services):
    """The main window at 1024 x 768, shown, once the device probe has answered."""
    from ui.main_window import MainWindow

    win = MainWindow(services)
    qtbot.addWidget(win)
    win.resize(1024, 768)
    win.show()
    qtbot.waitUntil(lambda: services.devices.report is not None)
    return win


@pytest.fixture
def window(qtbot, services):
    return _shown_window(qtbot, services)


@pytest.fixture
def projector_window(qtbot, services, request):
    """The main window at 1024 x 768 in the projector theme, in the language the test asks for
    (``indirect`` parametrisation; English by default). The theme and language are restored after."""
    from ui import i18n
    from ui.theme import apply_theme

    apply_theme("projector")
    i18n.set_language(getattr(request, "param", "en"))
    return _shown_window(qtbot, services)


def wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    """Process events until ``condition()`` holds (pytest-qt's waitUntil without qtbot)."""
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        QApplication.processEvents()
        time.sleep(0.005)


# --------------------------------------------------------------- a fake experiment


@dataclass(frozen=True)
class FakeParams:
    steps: int = 6
    delay_s: float = 0.0
    fail_at: int = -1


def fake_run(params: FakeParams, ctx: Context):
    """Yields one point per step on a parabola; raises at ``fail_at``."""
    prov = Provenance("emulated", "test device")
    series = Series("squares", prov, "n", "", "n squared", "")
    for i in range(params.steps):
        if i == params.fail_at:
            raise ValueError(f"fake failure at step {i}")
        time.sleep(params.delay_s)
        point = Point(i + 1, (i + 1) ** 2)
        series = series.with_point(point)
        yield Progress(i / params.steps, f"step {i}")
        yield PartialPoint("squares", point)
    return Result("fake", {"steps": params.steps}, (series,), ("a fake note",))


@pytest.fixture
def fake_experiment(monkeypatch) -> types.ModuleType:
    """A registered experiment called 'fake', first in the list."""
    module = types.ModuleType("gpulab_test_fake_experiment")
    module.TITLE = "Fake squares"
    module.DESCRIPTION = "Squares of 1..steps, for tests."
    module.Params = FakeParams
    module.run = fake_run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    registry = {"fake": module.__name__, **experiments.REGISTRY}
    monkeypatch.setattr(experiments, "REGISTRY", registry)
    return module


@pytest.fixture
def device_reports() -> types.SimpleNamespace:
    return types.SimpleNamespace(no_gpu=no_gpu_report(), gpu=gpu_report(), reason=NO_GPU_REASON)


# --------------------------------------------------------------- the warp visualizer


@pytest.fixture
def warp_panel(qtbot, services):
    """A warp panel at 1024x768 whose first emulation has arrived and whose job is over."""
    from ui.panels.warp import WarpPanel

    widget = WarpPanel(services)
    qtbot.addWidget(widget)
    widget.resize(1024, 768)
    widget.show()
    qtbot.waitUntil(lambda: widget.session is not None and widget.job.is_over, timeout=10_000)
    return widget


def warp_in_window(qtbot, services, theme: str = "projector"):
    """The warp panel inside a 1024x768 main window in ``theme``, once its first emulation has arrived."""
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    apply_theme(theme)
    window = MainWindow(services, panel="warp")
    qtbot.addWidget(window)
    window.resize(1024, 768)
    window.show()
    panel = window.panels["warp"]
    qtbot.waitUntil(lambda: panel.session is not None, timeout=10_000)
    return panel
