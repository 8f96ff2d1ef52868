"""The access-pattern panel, driven as a user drives it: run from its Run button, click a case in
the table, open it in the warp visualizer, open a saved result (also one saved as 'coalescing')."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from gpulab.experiments import Context, drive
from gpulab.experiments.access_pattern import Params, run
from gpulab.model import memory_share
from gpulab.specs import load_specs
from tests.ui.walk import choose, click, open_panel, switch_language, type_into, wait_idle
from ui.widgets.badge import BADGE_COLOURS, kind_label
from ui.widgets.case_table import GB_S_COLUMN, SOURCE_COLUMN

SMALL = {"n": "64", "block": "64", "strides": "1, 2, 8, 32", "f64_strides": "1, 4"}
CASES = ["coalesced", "stride 1", "stride 2", "stride 8", "stride 32", "random gather", "misaligned +1",
         "float64 stride 1", "float64 stride 4", "AoS 4 floats", "SoA 4 floats"]  # fmt: skip


def run_small(qtbot, window, panel) -> None:
    for name, text in SMALL.items():
        type_into(qtbot, panel.editors[name], text)
    click(qtbot, panel.run_button)
    assert panel.job is not None, "Run started no job"
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "access-pattern"


def click_case(qtbot, panel, row: int) -> None:
    """A click on the case's name in the table, where a person would click."""
    table = panel.table
    table.scrollToItem(table.item(row, 1))
    rect = table.visualItemRect(table.item(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


@pytest.fixture
def panel(qtbot, window):
    panel = open_panel(qtbot, window, "access-pattern")
    run_small(qtbot, window, panel)
    return panel


def test_the_panel_renders_one_row_per_case_with_modelled_badges_without_a_gpu(panel):
    table = panel.table
    assert [table.item(r, 1).text() for r in range(table.rowCount())] == CASES
    assert table.source_kinds() == ["modelled"] * len(CASES)
    source = table.item(0, SOURCE_COLUMN)
    assert source.text() == kind_label("modelled")
    assert source.background().color().name() == BADGE_COLOURS["modelled"][0]
    # Every byte used: the H100 SXM's achievable bandwidth (a published benchmark's share), under the peak line.
    assert table.item(0, GB_S_COLUMN).text() == f"{memory_share(load_specs()['h100-sxm']).gb_s:.0f}" != "3350"
    assert panel.provenance == "modelled"  # a modelled number is never labelled measured
    assert [line.label.format for line in panel.plot.levels] == ["peak 3350 GB/s"]
    assert list(panel.plot.curves) == ["useful GB/s, NVIDIA H100 SXM5 80 GB (model)"]  # only GB/s on the chart


def test_clicking_a_case_shows_that_cases_warp_load_in_the_memory_view(qtbot, panel):
    click_case(qtbot, panel, CASES.index("stride 8"))
    assert panel.chosen_case().label.text == "stride 8"
    assert panel.lower.page_in_view(panel.case_box) and panel.case_box.memory.isVisible()
    step = panel.case_box.memory.step
    assert (step.sectors_fetched, step.sectors_needed, step.itemsize) == (32, 4, 4)
    assert "stride 8" in panel.case_box.title.text()
    assert [m.marker_text for m in panel.plot.markers] == ["4: stride 8"]  # the case is marked on the chart
    click_case(qtbot, panel, CASES.index("misaligned +1"))
    assert panel.case_box.memory.step.sectors_fetched == 5
    click_case(qtbot, panel, CASES.index("float64 stride 1"))
    assert (panel.case_box.memory.step.sectors_fetched, panel.case_box.memory.step.itemsize) == (8, 8)


def test_open_in_warp_visualizer_shows_the_cases_kernel_at_its_own_stride(qtbot, window, panel):
    click_case(qtbot, panel, CASES.index("stride 8"))
    click(qtbot, panel.case_box.open_button)
    warp = window.panels["warp"]
    assert window.current_panel() is warp
    assert warp.kernel_box.currentData() == "load_strided"
    assert warp.preset_box.currentData() == "stride=8"
    wait_idle(qtbot, window)


def test_double_clicking_a_case_also_opens_it_in_the_warp_visualizer(qtbot, window, panel):
    click_case(qtbot, panel, CASES.index("AoS 4 floats"))  # a double-click starts with a click
    table = panel.table
    rect = table.visualItemRect(table.item(CASES.index("AoS 4 floats"), 1))
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.current_panel() is window.panels["warp"]
    assert window.panels["warp"].kernel_box.currentData() == "load_aos"
    wait_idle(qtbot, window)


def test_in_chinese_the_table_the_tabs_and_the_badges_are_chinese(qtbot, window, panel):
    switch_language(window, "zh")
    headers = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    assert "情形" in headers and "来源" in headers
    assert panel.table.item(1, 1).text() == "跨步 1"
    assert panel.table.item(0, SOURCE_COLUMN).text() == "模型估算"
    assert panel.lower.tabs.tabText(0) == "一个线程束的加载"
    assert "线程束" in panel.case_box.memory.summary.text()


def _saved(tmp_path, experiment: str, strip: bool = False):
    result = drive(run(Params(n=64, block=64, strides=(2,), f64_strides=(1,)), Context()))
    document = json.loads(result.to_json())
    document["experiment"] = experiment
    if strip:  # what the coalescing lab saved: no bytes, no GB/s, no stored request
        document["series"] = [s for s in document["series"] if s["key"].startswith("sectors-per-request")]
        for series in document["series"]:
            for point in series["points"]:
                for key in ("case", "request", "traffic", "sizes"):
                    point["extra"].pop(key, None)
    path = tmp_path / f"{experiment}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("experiment", ["access-pattern", "coalescing"])
def test_file_open_shows_a_saved_result_in_this_panel_also_under_the_old_name(qtbot, window, tmp_path, experiment):
    path = _saved(tmp_path, experiment, strip=experiment == "coalescing")
    window.ask_result_path = lambda: str(path)
    window.open_action.trigger()
    panel = window.panels["access-pattern"]
    assert window.current_panel() is panel
    assert panel.table.rowCount() == 7
    assert panel.table.item(1, 1).text() == "stride 2"
    if experiment == "coalescing":  # an old result: counts, no GB/s, no warp load to draw
        assert panel.table.source_kinds() == [""] * 7
        assert panel.case_box.memory.step is None and "older gpulab" in panel.case_box.title.text()
    else:
        assert panel.table.source_kinds() == ["modelled"] * 7  # the original kind under 'replayed'
        assert panel.case_box.memory.step is not None
    assert not [m for m in window.services.notifier.history if m[0] in ("error", "warning")]


def test_the_generic_run_experiment_panel_still_runs_the_lab(qtbot, window):
    panel = open_panel(qtbot, window, "experiments")
    choose(qtbot, panel.experiment_combo, "access-pattern")
    for name, text in SMALL.items():
        type_into(qtbot, panel.editors[name], text)
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    assert panel.last_result is not None and panel.last_result.experiment == "access-pattern"
    assert panel.last_result.get_series("model-gb-s") is not None


@pytest.mark.parametrize("width", [1920, 1024])
def test_the_table_fills_its_width_or_scrolls_and_never_cuts_a_case_name(qtbot, window, panel, width):
    window.resize(width, 900)
    table = panel.table
    header = table.horizontalHeader()
    metrics = table.fontMetrics()
    widest = max(metrics.horizontalAdvance(table.item(r, 1).text()) for r in range(table.rowCount()))

    def fitted() -> bool:
        used = sum(header.sectionSize(c) for c in range(table.columnCount()))
        return used >= table.viewport().width() - 1 or table.horizontalScrollBar().maximum() > 0

    qtbot.waitUntil(fitted)  # no blank beside the table: it fills its width, or needs more and scrolls
    assert header.sectionSize(1) >= widest  # every case name whole
