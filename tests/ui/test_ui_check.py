"""The Check page: Quick clicked, each check's line live, the traffic-light table, a saved report
opened (replayed), a broken one refused, Export, Chinese. The GPU checks run on the test double
(tests/gpulab/check/fakes.py) with a fault injected; the slow CPU checks are left out of the runs."""

from __future__ import annotations

import json
import threading

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFileDialog

from gpulab.check.html import VERDICT_COLOURS
from gpulab.check.live import run_live
from gpulab.check.model import Verdict
from gpulab.check.registry import Context
from gpulab.check.saved import read_report
from tests.gpulab.check.fakes import FakeGpu, FakeLayer, fault
from tests.ui.test_ui_walkthrough import has_chinese
from tests.ui.walk import click, layout_problems, open_panel, switch_language, wait_idle
from ui.panels.check_table import DEVICE, REASON, VALUE, VERDICT

FAST = ["software.cuda", "gpu.ecc", "gpu.remap", "gpu.throttle", "gpu.pcie"]  # no CPU measurement: quick


def faulty_layer() -> FakeLayer:
    return FakeLayer(fault(0), fault(1, idle={"ecc_uncorrected_volatile": 2}))


@pytest.fixture
def page(qtbot, window):
    panel = open_panel(qtbot, window, "check")
    panel.device_layer, panel.only = faulty_layer(), list(FAST)
    return panel


def texts(panel, row: int) -> list[str]:
    return [panel.table.item(row, column).text() for column in range(panel.table.columnCount())]


def errors(window) -> list[str]:
    return [text for level, text in window.services.notifier.history if level == "error"]


def saved_report(tmp_path, name="node7.json"):
    """A report as `gpulab check --json` writes it, made on the test double on host node7."""
    gen = run_live(Context(devices=faulty_layer(), host="node7"), FAST)
    try:
        while True:
            next(gen)
    except StopIteration as done:
        report = done.value
    path = tmp_path / name
    path.write_text(json.dumps(report.to_json()), encoding="utf-8")
    return path, report


def test_quick_runs_on_a_worker_and_the_failure_heads_the_table_in_its_colour_and_word(qtbot, window, page):
    asked_from = []
    layer = page.device_layer
    status = layer.status
    layer.status = lambda: asked_from.append(threading.get_ident()) or status()
    click(qtbot, page.run_button)
    assert not page.run_button.isEnabled() and not page.full_button.isEnabled() and page.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: page.report is not None, timeout=10_000)
    assert asked_from and threading.get_ident() not in asked_from  # the checks ran off the GUI thread
    first = texts(page, 0)
    assert first[VERDICT] == "FAIL" and first[DEVICE] == "gpu1"
    assert "2 uncorrectable ECC error(s)" in first[REASON] and "\n→ Drain the node" in first[REASON]
    light = page.table.item(0, VERDICT)
    assert light.background().color() == QColor(VERDICT_COLOURS[Verdict.FAIL])
    assert [row.verdict for row in page.table.rows()][1:] == [Verdict.PASS] * 8  # worst first
    assert "1 failed" in page.summary.text() and "Exit code 1" in page.summary.text()
    assert page.badge.text() == "MEASURED" and window.badge.text() == "MEASURED"
    assert "Source:" in page.table.item(0, VALUE).toolTip()  # the threshold's citation
    assert page.run_button.isEnabled() and page.export_button.isEnabled() and not errors(window)


class Held(FakeGpu):
    """A GPU whose health answer waits until the test lets it go (a check caught mid-way)."""

    def __init__(self) -> None:
        super().__init__(0)
        self.asked, self.go = threading.Event(), threading.Event()

    def health(self):
        self.asked.set()
        self.go.wait(10)
        return super().health()


def test_each_check_says_waiting_running_then_its_verdict_and_cancel_leaves_the_rest_not_run(qtbot, window, page,
                                                                                              tmp_path):
    gpu = Held()
    page.device_layer = FakeLayer(gpu)
    click(qtbot, page.run_button)
    qtbot.waitUntil(gpu.asked.is_set, timeout=10_000)
    # The check's start and its first message are two queued signals: a loaded machine's event
    # loop may hand over the first before the second, so the test waits for both.
    qtbot.waitUntil(lambda: page.table.rowCount() == 5 and texts(page, 1)[VERDICT] == "RUNNING"
                    and texts(page, 1)[REASON] != "", timeout=5000)  # the running check says what it does
    lines = [texts(page, row) for row in range(5)]
    assert lines[0][VERDICT] == "PASS" and "1 usable GPU" in lines[0][REASON]  # CUDA: done
    assert [line[VERDICT] for line in lines[2:]] == ["WAITING"] * 3
    assert lines[1][REASON].startswith("Looking at: "), lines[1][REASON]
    window.ask_result_path = lambda: str(saved_report(tmp_path)[0])
    window.open_action.trigger()  # File → Open result… of a check report mid-run: the run's lines stay
    assert page.table.rowCount() == 5 and page.report is None
    assert any("running" in text for level, text in window.services.notifier.history if level == "warning")
    click(qtbot, page.cancel_button)
    gpu.go.set()
    wait_idle(qtbot, window)
    verdicts = [texts(page, row)[VERDICT] for row in range(page.table.rowCount())]
    assert verdicts == ["PASS", "NOT RUN", "NOT RUN", "NOT RUN", "NOT RUN"]
    assert page.report is None and not page.export_button.isEnabled()
    assert page.run_controls.status.text() == "Cancelled."
    assert page.run_button.isEnabled()


def test_a_run_that_breaks_says_why_on_the_page_and_in_the_window(qtbot, window, page, monkeypatch):
    def broken(*_args, **_kwargs):
        raise OSError("the checks could not be loaded")

    monkeypatch.setattr("gpulab.check.live.planned", broken)
    click(qtbot, page.run_button)
    wait_idle(qtbot, window)
    assert "the checks could not be loaded" in page.run_controls.status.text()
    assert any("the checks could not be loaded" in text for text in errors(window))
    assert page.run_button.isEnabled() and page.report is None


def test_open_report_shows_a_saved_report_replayed_with_its_machine_and_date(qtbot, window, page, tmp_path,
                                                                              monkeypatch):
    path, report = saved_report(tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args: (str(path), "*.json"))
    click(qtbot, page.open_button)
    assert page.table.rows()[0].verdict is Verdict.FAIL and len(page.table.rows()) == len(report.rows)
    assert page.badge.text() == "REPLAYED" and window.badge.text() == "REPLAYED"
    where = page.where.text()
    assert "Replayed" in where and path.name in where and "node7" in where and report.started[:10] in where
    assert page.where.toolTip() == str(path)


@pytest.mark.parametrize(
    ("content", "said"),
    [("{\"schema\": \"gpulab.check/1\", \"rows\": [", "not valid JSON"),
     ("{\"schema\": \"gpulab.check/1\", \"rows\": [{\"check\": \"gpu.ecc\"}]}", "row 1 of the report")],
)
def test_a_malformed_report_is_refused_by_name_and_the_report_shown_stays(qtbot, window, page, tmp_path,
                                                                           monkeypatch, content, said):
    good, report = saved_report(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    for path in (good, bad):
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args, p=path: (str(p), "*.json"))
        click(qtbot, page.open_button)
    assert len(errors(window)) == 1 and str(bad) in errors(window)[0] and said in errors(window)[0]
    assert said in page.run_controls.status.text()
    assert page.report is not None and len(page.table.rows()) == len(report.rows)  # nothing lost
    switch_language(window, "zh")  # the error line is written again in Chinese
    status = page.run_controls.status.text()
    assert status.startswith("无法打开检查报告") and str(bad) in status
    switch_language(window, "en")


def test_file_open_result_sends_a_check_report_to_the_check_page(qtbot, window, tmp_path):
    path, _report = saved_report(tmp_path)
    window.ask_result_path = lambda: str(path)  # the dialog; the menu entry is the real one
    window.open_action.trigger()
    panel = window.current_panel()
    assert panel is window.panels["check"]
    assert panel.report is not None and panel.report.rows and panel.badge.text() == "REPLAYED"
    assert window.badge.text() == "REPLAYED" and not errors(window)


@pytest.mark.parametrize("fmt", ["json", "html"])
def test_export_writes_the_report_shown_and_it_reads_back(qtbot, window, page, tmp_path, monkeypatch, fmt):
    path, report = saved_report(tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args: (str(path), "*.json"))
    click(qtbot, page.open_button)
    target = tmp_path / "out" / f"exported.{fmt}"
    target.parent.mkdir()
    page.export_button.ask_path = lambda _fmt: str(target)
    actions = page.export_button.menu().actions()
    actions[["json", "html"].index(fmt)].trigger()
    assert not errors(window)
    if fmt == "json":
        assert read_report(target).rows == report.rows
    else:
        text = target.read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>") and "2 uncorrectable ECC error(s)" in text
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary file left


def test_in_chinese_the_table_summary_and_headers_are_chinese(qtbot, window, page, tmp_path, monkeypatch):
    path, _report = saved_report(tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args: (str(path), "*.json"))
    click(qtbot, page.open_button)
    switch_language(window, "zh")
    first = texts(page, 0)
    assert first[VERDICT] == "失败" and has_chinese(first[REASON].partition("→")[2])
    assert has_chinese(page.summary.text()) and has_chinese(page.where.text())
    assert has_chinese(page.table.horizontalHeaderItem(REASON).text()) and has_chinese(page.run_button.text())
    switch_language(window, "en")
    assert texts(page, 0)[VERDICT] == "FAIL"


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_a_report_fits_a_1024x768_projector_without_the_page_scrolling(qtbot, projector_window):
    from gpulab.paths import resource_path

    panel = open_panel(qtbot, projector_window, "check")
    panel.open_report(str(resource_path("check", "sample-report.json")))
    assert layout_problems(projector_window, panel) == []
    table = panel.table
    for row in range(min(3, table.rowCount())):  # the wrapped reason of the first rows is whole
        needed = table.sizeHintForRow(row)
        assert table.rowHeight(row) >= needed
