"""The Trace doctor page, driven as a person drives it: Open trace… (the file dialog answered),
the step chosen in its list, a finding's lab button clicked, File → Open result… with a saved
diagnosis, a file that is not a trace, both languages."""

from __future__ import annotations

import html
import json
import subprocess
import sys

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt, QThreadPool
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QFileDialog

from gpulab.paths import resource_path
from tests.gpulab.trace.builders import Kineto, Nsys, busy_kernels, write_large_trace
from tests.ui.test_ui_walkthrough import has_chinese
from tests.ui.walk import JOB_TIMEOUT_MS, choose, click, layout_problems, open_panel, switch_language, wait_idle
from ui.panels.trace_view import lane_title, short_name

SAMPLE = resource_path("trace", "sample-streams-modelled.json")


def stepped_trace(path):
    """Two profiler steps: step 1 busy with long kernels, step 2 tiny kernels launched late
    (the GPU waits on the CPU: launch-bound, small kernels)."""
    trace = Kineto(rank=0)
    trace.annotation("ProfilerStep#1", 0.0, 2050.0)
    busy_kernels(trace, start=10, count=20)
    trace.annotation("ProfilerStep#2", 2100.0, 4000.0)
    t = 2110.0
    for _ in range(40):
        trace.kernel("vectorized_elementwise_kernel", t, 2.0, launch_at=t - 3.0, launch_dur=4.0)
        t += 60.0
    return trace.write(path)


def opened(qtbot, window, path):
    """The page, with ``path`` opened through Open trace… (the dialog answered with it)."""
    panel = open_panel(qtbot, window, "trace")
    panel.opener.ask_open_paths = lambda: [str(path)]
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    return panel


def keys_of(panel) -> list[str]:
    return [card.finding["key"] for card in panel.findings.cards]


def test_a_kineto_trace_opens_on_the_worker_and_each_step_is_judged_alone(qtbot, window, tmp_path):
    panel = open_panel(qtbot, window, "trace")
    panel.opener.ask_open_paths = lambda: [str(stepped_trace(tmp_path / "steps.json"))]
    click(qtbot, panel.open_button)
    assert panel.job is not None and panel.busy.isVisible() and not panel.open_button.isEnabled()
    wait_idle(qtbot, window)
    assert panel.job is None and not panel.busy.isVisible() and panel.provenance == "measured"
    assert "steps.json" in panel.about.text() and "Kineto" in panel.about.text()
    assert panel.step_combo.isVisible() and not panel.rank_combo.isVisible()  # one rank: nothing to choose
    whole_kernels = len([op for op in panel.chart.ops if op.kind == "kernel"])
    choose(qtbot, panel.step_combo, 2)
    assert panel.diagnosis.step == 2 and panel.last_result.params["step"] == 2
    assert {"launch_bound", "small_kernels"} <= set(keys_of(panel))
    kernels = [op for op in panel.chart.ops if op.kind == "kernel"]
    assert 40 <= len(kernels) < whole_kernels  # the timeline is the step's window
    assert all(op.name == "vectorized_elementwise_kernel" for op in kernels)
    choose(qtbot, panel.step_combo, 1)
    assert "launch_bound" not in keys_of(panel) and panel.shares.rows


def test_a_findings_lab_button_switches_the_window_to_that_lab(qtbot, window, tmp_path):
    panel = opened(qtbot, window, stepped_trace(tmp_path / "steps.json"))
    choose(qtbot, panel.step_combo, 2)
    card = next(c for c in panel.findings.cards if c.finding["key"] == "launch_bound")
    assert card.lab == "launch" and "Launch" in card.lab_button.text()
    assert "Evidence" in card.words.text()
    panel.findings.ensureWidgetVisible(card.lab_button)
    click(qtbot, card.lab_button)
    assert window.current_panel() is window.panels["launch"]


def test_the_wheel_zooms_the_timeline_into_fewer_operations_and_a_double_click_shows_all(qtbot, window, tmp_path):
    panel = opened(qtbot, window, stepped_trace(tmp_path / "steps.json"))
    chart = panel.chart
    before = len(chart.ops)
    middle = QPointF(chart.plot_rect().center())
    for _ in range(6):
        wheel = QWheelEvent(middle, chart.mapToGlobal(middle), QPoint(), QPoint(0, 120), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)  # fmt: skip
        chart.wheelEvent(wheel)
    assert chart.zoomed() and 0 < len(chart.ops) < before
    qtbot.mouseDClick(chart, Qt.MouseButton.LeftButton, pos=middle.toPoint())
    assert not chart.zoomed() and len(chart.ops) == before


def test_too_many_operations_are_capped_with_a_note(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr("ui.panels.trace.MAX_OPS", 10)
    panel = opened(qtbot, window, stepped_trace(tmp_path / "steps.json"))
    assert len(panel.chart.ops) == 10 and "10 longest" in panel.window_label.text()


def test_an_nsys_sqlite_export_opens_with_its_gpu_named(qtbot, window, tmp_path):
    db = Nsys(tmp_path / "run.sqlite")
    for i in range(30):
        db.kernel("ampere_sgemm_128x64_nn", 1_000_000 + i * 101_000, 100_000)
    db.copy(1, 1, 3, 5_000_000, 400_000, 64 << 20)  # a pageable copy of 64 MiB
    db.close()
    panel = opened(qtbot, window, tmp_path / "run.sqlite")
    assert panel.status.isHidden() and "Nsight Systems" in panel.about.text()
    assert panel.chart.bar_rects() and "pageable_copies" in keys_of(panel)


def test_a_malformed_file_is_one_line_and_the_trace_shown_stays(qtbot, window, tmp_path):
    panel = opened(qtbot, window, stepped_trace(tmp_path / "steps.json"))
    shown = panel.diagnosis
    bad = tmp_path / "broken.json"
    bad.write_text('{"traceEvents": [ {"ph": "X", ', encoding="utf-8")
    panel.opener.ask_open_paths = lambda: [str(bad)]
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    assert panel.status.isVisible() and "broken.json" in panel.status.text() and "\n" not in panel.status.text()
    assert panel.diagnosis is shown and panel.chart.ops  # nothing lost
    assert [level for level, *_ in window.services.notifier.history].count("error") == 1
    switch_language(window, "zh")
    assert has_chinese(panel.status.text())  # the line is written again in the reader's language
    switch_language(window, "en")


def test_a_labs_own_timeline_opens_modelled_with_its_configurations_as_ranks(qtbot, window):
    panel = opened(qtbot, window, SAMPLE)
    assert panel.provenance == "modelled" and panel.badge.kind == "modelled" and window.badge.kind == "modelled"
    assert "modelled run" in panel.about.text() and panel.chart.kind == "modelled"
    assert panel.rank_combo.isVisible() and panel.rank_combo.count() == 5  # all, and four configurations
    choose(qtbot, panel.rank_combo, 1)
    assert {op.lane.split(" · ")[0] for op in panel.chart.ops} == {panel.rank_combo.currentText()}
    assert len(panel.shares.rows) == 5 and "no_overlap" in keys_of(panel)


def test_a_saved_diagnosis_opens_from_file_open_result_as_replayed(qtbot, window, tmp_path):
    source = stepped_trace(tmp_path / "steps.json")
    saved = tmp_path / "diagnosis.json"
    done = subprocess.run([sys.executable, "-m", "gpulab.cli", "trace", str(source), "--step", "2", "--json",
                           str(saved)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    window.ask_result_path = lambda: str(saved)
    window.open_action.trigger()
    panel = window.panels["trace"]
    assert window.current_panel() is panel and panel.provenance == "replayed" and window.badge.kind == "replayed"
    assert "Replayed from diagnosis.json" in panel.about.text() and "steps.json" in panel.about.text()
    assert "launch_bound" in keys_of(panel) and not panel.chart.ops and panel.shares.rows
    assert panel.last_result.experiment == "trace" and panel.export_button.isEnabled()


def test_export_writes_the_diagnosis_as_the_commands_result(qtbot, window, tmp_path):
    panel = opened(qtbot, window, stepped_trace(tmp_path / "steps.json"))
    choose(qtbot, panel.step_combo, 2)
    panel.export_button.ask_path = lambda _fmt: str(tmp_path / "out.json")
    panel.export_button.menu().actions()[3].trigger()
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert data["experiment"] == "trace" and data["params"]["step"] == 2
    assert "launch_bound" in [f["key"] for f in data["params"]["summary"]["findings"]]


def test_the_page_reads_in_chinese(qtbot, window, tmp_path):
    switch_language(window, "zh")
    panel = opened(qtbot, window, stepped_trace(tmp_path / "steps.json"))
    choose(qtbot, panel.step_combo, 2)
    texts = [panel.heading.text(), panel.open_button.text(), panel.about.text(), panel.window_label.text(),
             panel.step_combo.currentText(), panel.findings.cards[0].words.text(),
             panel.findings.cards[0].lab_button.text()]  # fmt: skip
    assert all(has_chinese(text) for text in texts), texts
    assert has_chinese(window.sidebar.panel_item("trace").text())
    switch_language(window, "en")
    assert not has_chinese(panel.findings.cards[0].words.text())


@pytest.mark.parametrize("name", ["trace.json.gz"])
def test_a_gzip_trace_opens_like_the_plain_one(qtbot, window, tmp_path, name):
    trace = Kineto(rank=0)
    busy_kernels(trace, count=10)
    panel = opened(qtbot, window, trace.write(tmp_path / name, compress=True))
    assert panel.status.isHidden() and len([op for op in panel.chart.ops if op.kind == "kernel"]) == 10


def answer_the_dialog(monkeypatch, paths) -> list[tuple]:
    """The Open dialog answered with ``paths`` (several, as a person picks one file per rank);
    returns the questions it was asked."""
    asked: list[tuple] = []

    def pick(*args, **_kwargs):
        asked.append(args)
        return [str(p) for p in paths], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", pick)
    return asked


def rank_file(path, rank: int, kernels: int):
    trace = Kineto(rank=rank)
    end = busy_kernels(trace, count=kernels)
    trace.kernel("ampere_sgemm_128x64_nn", end + 2000, 100.0, launch_at=end + 1950)  # then 2 ms idle
    return trace.write(path)


def test_one_file_per_rank_opens_as_one_run_with_a_lane_and_a_share_per_rank(qtbot, window, tmp_path, monkeypatch):
    files = [rank_file(tmp_path / "worker-b.json", 1, 30), rank_file(tmp_path / "worker-a.json", 0, 10)]
    asked = answer_the_dialog(monkeypatch, files)
    panel = open_panel(qtbot, window, "trace")
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    assert len(asked) == 1 and panel.status.isHidden()
    ranks = [panel.rank_combo.itemText(i) for i in range(panel.rank_combo.count())]
    assert panel.rank_combo.isVisible() and ranks == ["all ranks", "rank 0 (worker-a.json)", "rank 1 (worker-b.json)"]
    assert [title for title, _ in panel.shares.rows] == ["all ranks", "rank 0", "rank 1"]
    busy = {title: figures["compute_share"] for title, figures in panel.shares.rows}
    assert busy["rank 1"] > busy["rank 0"]  # rank 1 (worker-b.json, listed first) kept the rank it states
    assert {op.lane for op in panel.chart.ops if op.kind == "kernel"} == {"rank 0 · stream 7", "rank 1 · stream 7"}
    about = panel.about.text()
    assert "these 2 files" in about and "rank 0: worker-a.json" in about and "rank 1: worker-b.json" in about
    choose(qtbot, panel.rank_combo, 1)
    assert {op.lane.split(" · ")[0] for op in panel.chart.ops} == {"rank 1"}
    switch_language(window, "zh")  # every rank named in the reader's language
    assert panel.rank_combo.itemText(1) == "进程 0 (worker-a.json)" and "进程 1: worker-b.json" in panel.about.text()
    assert [title for title, _ in panel.shares.rows] == ["所有进程", "进程 0", "进程 1"]
    assert panel.findings.cards and all(card.words.text().startswith("<b>进程 ") for card in panel.findings.cards)
    switch_language(window, "en")


def test_a_bad_file_among_the_ranks_is_named_and_the_run_shown_before_stays(qtbot, window, tmp_path, monkeypatch):
    good = [rank_file(tmp_path / f"rank{r}.json", r, 10) for r in (0, 1)]
    answer_the_dialog(monkeypatch, good)
    panel = open_panel(qtbot, window, "trace")
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    shown, rows = panel.diagnosis, list(panel.shares.rows)
    bad = tmp_path / "rank2.json"
    bad.write_text('{"distributedInfo": {"rank": 2}, "traceEvents": [{"ph": "X", ', encoding="utf-8")
    answer_the_dialog(monkeypatch, [rank_file(tmp_path / "rank3.json", 3, 5), bad])
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    status = panel.status.text()
    assert panel.status.isVisible() and "rank2.json" in status and "rank3.json" not in status and "\n" not in status
    assert panel.diagnosis is shown and panel.shares.rows == rows and panel.rank_combo.count() == 3  # all or nothing


def test_cancel_stops_a_large_trace_while_it_reads_and_the_trace_shown_stays(qtbot, window, tmp_path, monkeypatch):
    answer_the_dialog(monkeypatch, [stepped_trace(tmp_path / "steps.json")])
    panel = open_panel(qtbot, window, "trace")
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    shown = panel.diagnosis
    assert not panel.cancel_button.isVisible()  # only while reading
    answer_the_dialog(monkeypatch, [write_large_trace(tmp_path / "large.json", 100_000)])  # about 20 MiB
    click(qtbot, panel.open_button)
    assert panel.cancel_button.isVisible() and not panel.open_button.isEnabled()
    qtbot.waitUntil(lambda: panel.busy.maximum() > 0, timeout=JOB_TIMEOUT_MS)  # its first report: it reads
    assert 0 < panel.busy.value() < panel.busy.maximum() and "large.json" in panel.status.text()
    click(qtbot, panel.cancel_button)
    qtbot.waitUntil(lambda: panel.job is None, timeout=JOB_TIMEOUT_MS)
    assert panel.status.text() == "Reading cancelled: the trace shown before stays."
    assert panel.diagnosis is shown and panel.chart.ops and not panel.busy.isVisible()
    assert panel.open_button.isEnabled() and not panel.cancel_button.isVisible()
    qtbot.waitUntil(lambda: QThreadPool.globalInstance().activeThreadCount() == 0, timeout=JOB_TIMEOUT_MS)
    assert not [level for level, *_ in window.services.notifier.history if level == "error"]
    switch_language(window, "zh")
    assert has_chinese(panel.status.text())
    switch_language(window, "en")


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_on_a_1024x768_projector_each_lane_has_its_own_short_name_and_a_key_says_them_all(
        qtbot, projector_window, monkeypatch):  # fmt: skip
    window = projector_window
    answer_the_dialog(monkeypatch, [SAMPLE])  # four configurations named alike: "4 streams, pinned", ...
    panel = open_panel(qtbot, window, "trace")
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    chart, names = panel.chart, [panel.rank_combo.itemText(i) for i in range(1, panel.rank_combo.count())]
    titles = [chart.shown_row_title(key) for key in chart.rows()]
    room = chart.plot_rect().left() - 12
    assert chart.short_lanes() and len(set(titles)) == len(titles) == 14, titles  # no two lanes alike
    assert all(chart.fontMetrics().horizontalAdvance(title) <= room for title in titles)  # drawn whole, not cut
    assert "R2 · S3" in titles and "R3 · D" in titles
    key = chart.lane_key()  # drawn under the time axis, whole, for all to see without hovering
    assert all(f"R{i}\u00a0=\u00a0{short_name(name)}" in key for i, name in enumerate(names)), key
    line = chart.fontMetrics().height()
    assert chart.plot_rect().bottom() + 2 * line <= chart.height() - chart.key_height()  # below the axis's words
    needed = chart.fontMetrics().boundingRect(QRect(0, 0, chart.width() - 16, 10_000), int(Qt.TextFlag.TextWordWrap),
                                              key).height()  # fmt: skip
    assert chart.key_height() >= needed > 2 * line  # room for every line it wraps to
    assert layout_problems(window, panel) == []
    shares, room = panel.shares, int(panel.shares.label_width() - 8)
    drawn = [shares.shown_title(title, shares.fontMetrics(), room) for title, _figures in shares.rows[1:]]
    assert len(set(drawn)) == len(drawn) and not any("…" in name for name in drawn), drawn  # a code, never "4 s…ned"
    row = chart.rows().index(next(k for k in chart.rows() if chart.shown_row_title(k) == "R1 · S2"))
    area = chart.plot_rect()
    qtbot.mouseMove(chart, pos=QPoint(int(area.left() / 2), int(area.top() + (row + 0.5) * area.height() / 14)))
    qtbot.waitUntil(lambda: bool(chart.hover_text), timeout=2000)
    assert chart.hover_text == lane_title(chart.rows()[row]) and "4 streams, pinned" in chart.hover_text
    choose(qtbot, panel.rank_combo, 2)  # one configuration: its lanes need no rank, the key no names
    assert [chart.shown_row_title(k) for k in chart.rows()] in (["S1", "S2", "S3", "S4"], ["stream 1", "stream 2",
                                                                "stream 3", "stream 4"])  # fmt: skip
    assert "R2\u00a0=" not in chart.lane_key() and "S\u00a0=" in chart.lane_key()


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_findings_with_long_names_wrap_inside_their_column_on_a_projector(qtbot, projector_window, monkeypatch,
                                                                         tmp_path):  # fmt: skip
    window = projector_window
    trace = Kineto(rank=0)  # launch-bound tiny kernels with a templated name, as PyTorch writes them
    name = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, " \
           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
    for i in range(30):
        trace.kernel(name, i * 25.0, 5.0)
    answer_the_dialog(monkeypatch, [trace.write(tmp_path / "tiny.json")])
    panel = open_panel(qtbot, window, "trace")
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    findings = panel.findings
    card = next(c for c in findings.cards if c.lab == "launch")
    assert findings.widget().width() <= findings.viewport().width()  # no card runs past the column's edge
    assert card.lab_button.text().replace("\n", " ") == card.button_text  # every word of it shown, wrapped
    words = html.unescape(" ".join(c.words.text() for c in findings.cards)).replace("\u200b", "")
    assert "void at::native::vectorized_elementwise_kern…" in words  # its start and its end, cut in the middle
    assert "…tor_add<float>, at::detail::Array<char*, 3>) (stream 7" in words
    assert layout_problems(window, panel) == []
