"""Every panel walked as a user walks it: choose, run, wait for the end, switch language, run again.

Everything here goes through the real widgets (sidebar clicks, combo keys, typed fields, button
clicks, the language menu). An exception raised inside any slot on the way fails the test: pytest-qt
captures those, and the session-wide hook in ``tests/conftest.py`` catches the rest.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLineEdit

from gpulab.lab.declare import quick_assignments, registry
from tests.ui.walk import choose, click, fill_form, open_panel, switch_language, type_into, wait_idle
from ui.panels import PANELS, panel_names


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def walk_devices(qtbot, window, panel) -> None:
    click(qtbot, panel.refresh_button)
    wait_idle(qtbot, window)
    assert panel.refresh_button.isEnabled()


def walk_experiments(qtbot, window, panel) -> None:
    choose(qtbot, panel.experiment_combo, "vector-add")
    type_into(qtbot, panel.editors["sizes"].edit, "1024,4096")  # the free-text field under the presets
    type_into(qtbot, panel.editors["repeats"], "1")
    click(qtbot, panel.run_button)
    assert panel.job is not None, "Run started no job"
    wait_idle(qtbot, window)
    assert panel.job is None and panel.last_result is not None
    assert [p.x for p in panel.last_result.series[0].points] == [1024, 4096]


def walk_cpu_vs_gpu(qtbot, window, panel) -> None:
    choose(qtbot, panel.experiment_combo, "vector-add")
    quick = next(i for i in range(panel.sizes_combo.count()) if max(panel.sizes_combo.itemData(i)) <= 1 << 20)
    choose(qtbot, panel.sizes_combo, panel.sizes_combo.itemData(quick))
    click(qtbot, panel.run_button)
    assert panel.job is not None, "Run sweep started no job"
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "vector-add"
    assert all(view.points for view in panel.series.values())


def walk_warp(qtbot, window, panel) -> None:
    wait_idle(qtbot, window)  # the first emulation starts when the panel is shown
    choose(qtbot, panel.kernel_box, "divergence_even_odd")
    wait_idle(qtbot, window)
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.session is not None and panel.session.entry == "divergence_even_odd"
    before = panel.cursor
    click(qtbot, panel.transport.forward_button)
    assert panel.cursor == before + 1


def walk_access_pattern(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["n"], "64")
    type_into(qtbot, panel.editors["strides"], "1, 8")
    click(qtbot, panel.run_button)
    assert panel.job is not None, "Run started no job"
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.table.rowCount() > 0
    assert panel.case_box.memory.step is not None  # the first case's warp load is shown at once


def walk_roofline(qtbot, window, panel) -> None:
    click(qtbot, panel.run_button)
    assert panel.job is not None, "Run started no job"
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "roofline"
    assert panel.verdicts.tree.topLevelItemCount() > 0  # every kernel's verdict is listed


def walk_transfer(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["sizes"].edit, "4096,65536")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "transfer"
    assert panel.plot.curves and panel.plot.levels


def walk_launch(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["ks"].edit, "1, 10")  # the free-text field under the K presets
    type_into(qtbot, panel.editors["repeats"], "1")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "launch"
    assert all([p.x for p in s.points] == [1, 10] for s in panel.last_result.series)


def walk_precision(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["sizes"].edit, "32, 64")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "precision"
    assert panel.table.rows()  # one row per format


def walk_bandwidth(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["working_sets"].edit, "4096, 2^20")
    type_into(qtbot, panel.editors["seconds_per_point"], "0.001")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "bandwidth"
    assert panel.plot.curves and panel.plot.levels  # the CPU's and the GPU's ceilings


def walk_streams(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["chunks"], "4")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "streams"
    assert panel.chart.bar_rects() and panel.diagnosis.text()


def walk_fusion(qtbot, window, panel) -> None:
    choose(qtbot, panel.editors["chain"], "((a+b)*c-d)*0.5")
    type_into(qtbot, panel.editors["sizes"].edit, "1024,4096")
    type_into(qtbot, panel.editors["repeats"], "1")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "fusion"
    assert panel.plot.curves and panel.savings.rows()[0][1:] == ["4", "1"]  # launches, unfused vs fused


def walk_allreduce_steps(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["ranks"], "4")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "allreduce-steps"
    click(qtbot, panel.transport.forward_button)
    assert panel.cursor == 1 and "1" in panel.step_text.text()
    click(qtbot, panel.transport.end_button)
    assert panel.cursor == 6 and "float64" in panel.check_text.text()


def walk_collectives(qtbot, window, panel) -> None:
    from gpulab.cluster.mpi_backend import mpi_status

    status = mpi_status()
    if not status.available:
        pytest.skip(f"the collectives lab needs MPI: {status.reason and status.reason.text}")
    type_into(qtbot, panel.editors["sizes"].edit, "8, 4096")
    type_into(qtbot, panel.editors["seconds_per_point"], "0.002")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "collectives"
    assert len(panel.plot.curves) == 6 and panel.wrong_label.isHidden()


def walk_topology(qtbot, window, panel) -> None:
    type_into(qtbot, panel.editors["nodes"], "2")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "p2p"
    assert panel.matrix.rowCount() >= 2 and panel.network_view.box_rects()


def walk_cluster_scaling(qtbot, window, panel) -> None:
    from PySide6.QtCore import Qt

    before = panel.explorer.numbers()
    slider = panel.explorer.sliders.gpus.qslider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Left)  # half the GPUs: the table and figures follow at once
    after, gpus = panel.explorer.numbers(), panel.explorer.sliders.gpus.value()
    assert after["figures"] != before["figures"] and after["row"] != before["row"]
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "cluster-scaling"
    assert panel.last_result.params["gpus"] == gpus and panel.explorer.table.flagged_rows()


def walk_check(qtbot, window, panel) -> None:
    """Quick, on this machine's real checks (a few seconds: no GPU here, so the GPU checks skip)."""
    click(qtbot, panel.run_button)
    assert panel.job is not None, "Quick started no job"
    wait_idle(qtbot, window)
    assert panel.report is not None and panel.table.rowCount() == len(panel.report.rows) > 0
    assert panel.export_button.isEnabled() and panel.provenance == "measured"


def walk_trace(qtbot, window, panel) -> None:
    """Open trace… with the sample (a modelled run of the streams lab): read on the job queue."""
    from gpulab.paths import resource_path

    # the file dialog, answered
    panel.opener.ask_open_paths = lambda: [str(resource_path("trace", "sample-streams-modelled.json"))]
    click(qtbot, panel.open_button)
    wait_idle(qtbot, window)
    assert panel.diagnosis is not None and panel.chart.bar_rects() and panel.findings.cards
    assert panel.export_button.isEnabled() and panel.provenance == "modelled"

def walk_welcome(qtbot, window, panel) -> None:
    click(qtbot, panel.start_button)
    viewer = window.current_panel()
    assert viewer is window.panels["lesson"] and (viewer.chapter.number, viewer.page_index()) == (0, 1)
    assert open_panel(qtbot, window, "welcome") is panel  # back where the walk started


def walk_lesson(qtbot, window, panel) -> None:
    from PySide6.QtCore import Qt

    panel.open_page(2, 1)
    qtbot.keyClick(panel, Qt.Key.Key_PageDown)  # the clicker's next page: the divergence page
    assert panel.page.id == "divergence"
    qtbot.keyClick(panel, Qt.Key.Key_R)  # its preset, on the lab's own Run
    wait_idle(qtbot, window)
    assert panel.number.number is not None and panel.lab.current_panel().last_result is not None


WALKS = {
    "welcome": walk_welcome,
    "lesson": walk_lesson,
    "devices": walk_devices,
    "experiments": walk_experiments,
    "cpu-vs-gpu": walk_cpu_vs_gpu,
    "warp": walk_warp,
    "access-pattern": walk_access_pattern,
    "roofline": walk_roofline,
    "transfer": walk_transfer,
    "launch": walk_launch,
    "precision": walk_precision,
    "bandwidth": walk_bandwidth,
    "streams": walk_streams,
    "fusion": walk_fusion,
    "allreduce-steps": walk_allreduce_steps,
    "collectives": walk_collectives,
    "topology": walk_topology,
    "cluster-scaling": walk_cluster_scaling,
    "check": walk_check,
    "trace": walk_trace,
}


def walk_quick_run(qtbot, window, panel) -> None:
    """A lab page's walk when it has none of its own: its lab's quick run typed in, Run, a result."""
    spec = next(p for p in PANELS if p.name == panel_name(window, panel))
    fill_form(qtbot, panel.editors, quick_assignments(registry()[spec.lab].lab))
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == spec.lab


def panel_name(window, panel) -> str:
    return next(name for name, built in window.panels.items() if built is panel)


def walk_of(name: str):
    """The page's own walk, else (a lab page) the quick run of its lab."""
    spec = next(p for p in PANELS if p.name == name)
    return WALKS.get(name) or (walk_quick_run if spec.lab else None)


def test_every_page_has_a_walk_and_every_page_of_no_one_lab_its_own():
    assert all(walk_of(name) is not None for name in panel_names())
    assert {p.name for p in PANELS if not p.lab} <= set(WALKS)


@pytest.mark.parametrize("name", panel_names())
def test_a_user_can_run_each_panel_then_switch_to_chinese_and_run_it_again(qtbot, window, name):
    panel = open_panel(qtbot, window, name)
    walk = walk_of(name)
    walk(qtbot, window, panel)
    assert not [m for m in window.services.notifier.history if m[0] == "error"]
    switch_language(window, "zh")
    assert has_chinese(window.sidebar.panel_item(name).text())
    walk(qtbot, window, panel)
    switch_language(window, "en")
    assert not [m for m in window.services.notifier.history if m[0] == "error"]


@pytest.mark.parametrize("lab", list(registry()))
def test_every_lab_runs_its_quick_run_on_the_run_experiment_page(qtbot, window, lab):
    """Found by iterating the labs' declarations: a new lab is walked without a line here."""
    panel = open_panel(qtbot, window, "experiments")
    choose(qtbot, panel.experiment_combo, lab)
    fill_form(qtbot, panel.editors, quick_assignments(registry()[lab].lab))
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window, timeout_ms=120_000)
    assert panel.last_result is not None and panel.last_result.experiment == lab
    assert not [m for m in window.services.notifier.history if m[0] == "error"]


def test_the_run_sweep_button_starts_a_sweep_when_clicked(qtbot, window):
    """The headline panel once shipped with a dead Run button: clicked(bool) reached run_sweep's params."""
    panel = open_panel(qtbot, window, "cpu-vs-gpu")
    choose(qtbot, panel.experiment_combo, "vector-add")
    click(qtbot, panel.run_button)
    assert panel.job is not None and not panel.run_button.isEnabled()
    click(qtbot, panel.cancel_button)
    wait_idle(qtbot, window)
    assert panel.job is None and panel.run_button.isEnabled()


def test_walk_helpers_type_into_real_fields(qtbot):
    field = QLineEdit("old")
    qtbot.addWidget(field)
    field.show()
    type_into(qtbot, field, "2^10,2^12")
    assert field.text() == "2^10,2^12"


@pytest.mark.parametrize(("lang", "label", "key"), [("zh", "每点秒数", "seconds_per_point"),
                                                    ("en", "seconds per point", "seconds_per_point")])
def test_a_mistyped_field_is_named_by_its_label_in_the_windows_language(qtbot, window, lang, label, key):
    switch_language(window, lang)
    panel = open_panel(qtbot, window, "experiments")
    choose(qtbot, panel.experiment_combo, "bandwidth")
    type_into(qtbot, panel.editors["seconds_per_point"], "0")
    click(qtbot, panel.run_button)
    assert panel.job is None  # nothing ran
    level, text = window.services.notifier.history[-1][:2]
    assert level == "warning" and label in text and key not in text
    if lang == "zh":
        assert "必须是 0.001 到 10.0 之间的数" in text  # spaced as Chinese is written
    switch_language(window, "en")


def test_in_chinese_a_file_that_is_not_a_result_is_explained_in_chinese(qtbot, window, tmp_path):
    path = tmp_path / "notes.json"
    path.write_text("{ this is not json", encoding="utf-8")
    switch_language(window, "zh")
    window.ask_result_path = lambda: str(path)  # the file a person picks in File → Open result…
    window.open_action.trigger()
    level, text = window.services.notifier.history[-1][:2]
    assert level == "error" and "不是有效的 JSON" in text and "not valid JSON" not in text
    switch_language(window, "en")


def test_in_chinese_the_emulators_common_compile_errors_and_a_refused_fit_read_in_chinese(tmp_path):
    from gpulab import simt
    from gpulab.catalogue import render
    from gpulab.experiments import ParamError
    from gpulab.experiments.cluster_scaling.fit import fit_to_saved
    from gpulab.experiments.warp.errors import error_message
    from gpulab.results import Result

    texts = []
    for source in ("this is not C", 'extern "C" __global__ void k(int *a) { a[0] = never_declared; }'):
        with pytest.raises(simt.CompileError) as caught:
            simt.launch(source, "k", (1, 1, 1), (32, 1, 1), [])
        texts.append(render(error_message(caught.value), "zh"))
    saved = tmp_path / "other.json"
    Result("saxpy", {}, ()).save(saved)
    with pytest.raises(ParamError) as refused:
        fit_to_saved(str(saved))
    texts.append(render(refused.value.message, "zh"))
    assert "语法错误" in texts[0] and "从未声明" in texts[1] and "不是集合通信实验的结果" in texts[2]
    english = ("syntax error", "is not declared", "it is a result of", "Cannot fit")
    assert not [t for t in texts if any(words in t for words in english)], texts


def run_saxpy(qtbot, window, sizes: str, repeats: str):
    """SAXPY run from the Run experiment page with these sizes and repeats, typed and clicked."""
    panel = open_panel(qtbot, window, "experiments")
    choose(qtbot, panel.experiment_combo, "saxpy")
    type_into(qtbot, panel.editors["sizes"].edit, sizes)
    type_into(qtbot, panel.editors["repeats"], repeats)
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    return panel


def test_an_opened_result_says_where_and_when_it_was_made_and_fills_the_form(qtbot, window, tmp_path):
    import socket

    panel = run_saxpy(qtbot, window, "1024, 4096", "2")
    path = tmp_path / "saxpy.json"
    panel.last_result.save(path)
    type_into(qtbot, panel.editors["repeats"], "9")  # the form moves on after the run
    window.ask_result_path = lambda: str(path)  # the file a person picks in File → Open result…
    window.open_action.trigger()
    level, text = window.services.notifier.history[-1][:2]
    assert level == "info" and socket.gethostname() in text and "elsewhere" not in text
    assert panel.editors["repeats"].text() == "2" and panel.editors["sizes"].text() == "1024, 4096"


def test_without_a_gpu_time_kernels_on_the_gpu_is_greyed_out_and_says_why(qtbot, window):
    from ui.device_text import short_reason

    wait_idle(qtbot, window)  # the device probe has answered
    report = window.services.devices.report
    if report is not None and report.cuda.available:
        pytest.skip("this machine has a usable GPU: the box is offered")
    panel = open_panel(qtbot, window, "roofline")
    box = panel.editors["measure_gpu"]
    assert not box.isEnabled() and not box.isChecked()
    assert short_reason(window.services.devices.report.cuda) in box.toolTip()
    switch_language(window, "zh")
    assert "没有可用的 GPU" in box.toolTip()
    switch_language(window, "en")


@pytest.mark.parametrize("answer", ["keep", "cancel"])
def test_closing_the_window_mid_run_keeps_the_points_so_far_or_stays_open(qtbot, window, fake_experiment,
                                                                          monkeypatch, tmp_path, answer):  # fmt: skip
    from gpulab.results import replay
    from ui import main_window

    monkeypatch.setattr(main_window, "partial_folder", lambda: tmp_path)
    asked = []
    window.ask_keep_partial = lambda folder: asked.append(folder) or answer  # the question a person answers
    panel = open_panel(qtbot, window, "experiments")
    choose(qtbot, panel.experiment_combo, "fake")
    type_into(qtbot, panel.editors["steps"], "200")
    type_into(qtbot, panel.editors["delay_s"], "0.05")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.point_log is not None and panel.point_log.count >= 2, timeout=30_000)
    window.close()
    assert asked == [tmp_path]
    kept = list(tmp_path.glob("fake-*-partial.json"))
    if answer == "cancel":
        assert window.isVisible() and panel.job is not None and not kept
        click(qtbot, panel.cancel_button)
        wait_idle(qtbot, window)
        return
    assert len(kept) == 1
    result = replay(kept[0])
    assert result.partial is not None and result.partial["cause"] == "window closed"
    assert result.series and len(result.series[0].points) == result.partial["points"] >= 2


def test_a_pages_notes_give_its_own_lesson_before_the_missing_gpu(qtbot, window):
    wait_idle(qtbot, window)
    report = window.services.devices.report
    if report is not None and report.cuda.available:
        pytest.skip("this machine has a usable GPU: there is no missing-GPU note")
    panel = run_saxpy(qtbot, window, "1024", "1")
    lines = panel.notes.toPlainText().splitlines()
    lesson = next(i for i, line in enumerate(lines) if line.startswith("GB/s counts the 12 bytes"))
    missing = next(i for i, line in enumerate(lines) if line.startswith("No GPU series"))
    assert lesson < missing
