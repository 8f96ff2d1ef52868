"""The warp visualizer's "On a GPU" tab: its run button, its job, and why there is no run."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpulab import experiments
from gpulab.experiments import Progress
from gpulab.experiments import warp as ws
from ui.panels.warp_gpu import GpuTab
from ui.services import Services

FAULT = "cudaErrorIllegalAddress: an illegal memory access was encountered"


@pytest.fixture(scope="module")
def session() -> ws.WarpSession:
    spec = experiments.kernel("divergence_even_odd")
    preset = spec.presets[0]
    return ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))


def make_tab(qtbot, services: Services, session: ws.WarpSession) -> GpuTab:
    services.devices.refresh()
    qtbot.waitUntil(lambda: services.devices.report is not None, timeout=5_000)
    tab = GpuTab(services.runner, services.devices)
    qtbot.addWidget(tab)
    tab.retranslate()
    tab.show_session(session)
    tab.show()
    return tab


def test_without_a_gpu_the_button_is_off_and_the_reason_is_in_the_interface_language(qtbot, services, session):
    from ui import i18n

    tab = make_tab(qtbot, services, session)
    assert not tab.button.isEnabled() and "No GPU run" in tab.state.text()
    assert tab.run(session, experiments.kernel(session.entry), experiments.kernel(session.entry).presets[0]) is None
    i18n.set_language("zh")
    tab.show_session(session)
    assert i18n.device_reason(services.devices.report.cuda) in tab.state.text()


def test_a_cuda_fault_in_the_run_says_so_in_the_tab_and_to_the_notifier(qtbot, session, monkeypatch, device_reports):
    def faulting(session, spec, preset, ctx):
        yield Progress(0.0, "running on the GPU")
        raise RuntimeError(FAULT)  # what CuPy raises for a bad address

    monkeypatch.setattr(ws, "compare_on_gpu", faulting)
    services = Services.create(probe=lambda: device_reports.gpu)
    tab = make_tab(qtbot, services, session)
    spec = experiments.kernel(session.entry)
    tab.button.clicked.connect(lambda: tab.run(session, spec, spec.presets[0]))
    assert tab.button.isEnabled()
    qtbot.mouseClick(tab.button, Qt.MouseButton.LeftButton)
    assert tab.job is not None and tab.state.text() == "Running on the GPU…"
    qtbot.waitUntil(lambda: tab.job.is_over, timeout=5_000)
    assert tab.state.text() == f"The GPU run failed: {FAULT}"
    assert FAULT in services.notifier.history[-1][1] and tab.gpu_run is None
