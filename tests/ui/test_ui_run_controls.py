"""The run column every lab shares: Run, Cancel, progress and a status line that follows the job."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox, QLineEdit

from tests.ui.conftest import FakeParams, fake_run
from tests.ui.walk import click
from ui import i18n
from ui.widgets.run_controls import RunControls


@pytest.fixture
def controls(qtbot):
    widget = RunControls()
    qtbot.addWidget(widget)
    widget.show()
    return widget


def submit(services, **params):
    return services.runner.submit("fake", "cpu", lambda ctx: fake_run(FakeParams(**params), ctx))


def test_clicking_run_asks_for_a_run_with_no_arguments(qtbot, controls):
    with qtbot.waitSignal(controls.run_clicked) as blocker:
        click(qtbot, controls.run_button)
    assert blocker.args == []


def test_while_a_job_runs_only_cancel_is_usable_and_the_inputs_are_grey(qtbot, controls, services):
    field, single = QLineEdit(), QComboBox()
    single.addItem("fp32")
    controls.lock_while_running([field, single], lambda widget: widget is not single)
    job = submit(services, steps=50, delay_s=0.01)
    controls.watch(job)
    assert not controls.run_button.isEnabled() and controls.cancel_button.isEnabled()
    assert controls.progress.isVisible() and not field.isEnabled() and not single.isEnabled()
    with qtbot.waitSignal(controls.ended, timeout=10_000) as ended:
        pass
    assert ended.args == ["done"] and controls.status.text() == "Done."
    assert controls.run_button.isEnabled() and not controls.cancel_button.isEnabled()
    assert field.isEnabled() and not single.isEnabled()  # a list with one choice stays grey
    assert not controls.progress.isVisible() and not controls.running


def test_progress_moves_the_bar_and_shows_the_engines_message(qtbot, controls, services):
    job = submit(services, steps=4, delay_s=0.05)
    controls.watch(job)
    qtbot.waitUntil(lambda: controls.progress.value() > 0, timeout=5000)
    assert controls.status.text().startswith("step ")
    qtbot.waitUntil(lambda: not controls.running, timeout=5000)


def test_a_failed_job_says_why_in_the_status_line(qtbot, controls, services):
    job = submit(services, fail_at=2)
    controls.watch(job)
    with qtbot.waitSignal(controls.ended, timeout=5000) as ended:
        pass
    assert ended.args == ["failed"]
    assert controls.status.text() == "Failed: fake failure at step 2"


def test_cancel_stops_the_job_and_says_so(qtbot, controls, services):
    job = submit(services, steps=500, delay_s=0.01)
    controls.watch(job)
    with qtbot.waitSignal(controls.ended, timeout=5000) as ended:
        click(qtbot, controls.cancel_button)
    assert ended.args == ["cancelled"] and controls.status.text() == "Cancelled."
    assert job.state == "cancelled"


def test_the_status_line_is_rewritten_in_the_new_language(qtbot, controls, services):
    controls.watch(submit(services, steps=2))
    qtbot.waitUntil(lambda: not controls.running, timeout=5000)
    i18n.set_language("zh")
    assert controls.status.text() == "完成。"
    assert controls.run_button.text() == "运行" and controls.cancel_button.text() == "取消"
    i18n.set_language("en")
    assert controls.status.text() == "Done."


def test_an_engine_error_is_shown_in_the_interface_language(qtbot, controls, services):
    from gpulab.catalogue import msg
    from gpulab.experiments import ExperimentError

    def failing(_ctx):
        raise ExperimentError(msg("param.error.model-gpu-unknown", key="'b200x'", names="h100-sxm, t4"))
        yield  # a generator, as every job is

    controls.watch(services.runner.submit("failing", "cpu", failing))
    qtbot.waitUntil(lambda: not controls.running, timeout=5000)
    assert controls.status.text() == "Failed: model_gpu: no GPU 'b200x' in the spec table (known: h100-sxm, t4)"
    i18n.set_language("zh")
    assert controls.status.text() == "失败：model_gpu：规格表中没有 GPU 'b200x'（已知：h100-sxm, t4）"
