"""The operator-fusion panel, driven as a user: pick the formula, type the sizes, click Run; the
chart shows the timed versions, the table what fusion saves, and a button opens the fused kernel."""

from __future__ import annotations

import pytest

from gpulab.experiments import Context, drive, fusion
from gpulab.measure import flagged, is_clean
from gpulab.results import Point, Provenance, Result, Series
from tests.ui.walk import JOB_TIMEOUT_MS, choose, click, open_panel, switch_language, type_into, wait_idle
from ui.panels.fusion import FusionPanel, time_text


def _run(qtbot, panel: FusionPanel, chain: str = "(a+b)*c") -> Result:
    choose(qtbot, panel.editors["chain"], chain)
    type_into(qtbot, panel.editors["sizes"].edit, "2^10, 2^12")
    type_into(qtbot, panel.editors["repeats"], "1")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    return panel.last_result


@pytest.fixture
def panel(qtbot, window) -> FusionPanel:
    return open_panel(qtbot, window, "fusion")


def test_the_panel_sits_in_the_execution_section_under_its_title(window):
    from ui.panels import sections

    execution = next(panels for key, _title, panels in sections() if key == "execution")
    assert ("fusion", "Operator fusion") in execution
    assert window.panels["fusion"].heading.text() == fusion.TITLE


def test_a_run_of_the_long_chain_charts_the_timed_versions_and_tables_the_savings(qtbot, panel):
    result = _run(qtbot, panel, "((a+b)*c-d)*0.5")
    assert result.params["chain"] == "((a+b)*c-d)*0.5"
    drawn = set(panel.plot.curves)
    assert {str(s.name) for s in result.series if s.role == "emulated"}.isdisjoint(drawn)  # no time claimed
    assert {str(s.name) for s in result.series if s.role == "cpu"} <= drawn
    rows = {row[0]: row[1:] for row in panel.savings.rows()}
    assert rows["Kernel launches"] == ["4", "1"]
    assert rows["Bytes moved (hand count)"] == ["44", "20"]
    assert rows["Bytes moved (emulated)"] == ["44", "20"]
    timed = [p.x for key in ("cpu-numpy-out", "cpu-numpy-blocked") for p in result.get_series(key).points
             if is_clean(p)]  # fmt: skip
    if 4096 in timed and timed.count(4096) == 2:  # both forms timed cleanly there (a busy machine flags points)
        assert any(what.startswith("Time, CPU one thread, measured, n=4096") for what in rows)
    assert "((a+b)*c-d)*0.5" in panel.savings.caption.text()
    assert panel.export_button.isEnabled()


def test_without_a_gpu_the_model_draws_its_bandwidth_and_the_unfused_best_as_levels(qtbot, panel):
    _run(qtbot, panel)
    texts = [line.label.format for line in panel.plot.levels]
    assert "peak 3350 GB/s" in texts  # the modelled H100's spec sheet: its curves run at the achievable share
    assert "unfused ≤ 67%" in texts  # 16 of 24 bytes
    assert any(row[0].startswith("Time, NVIDIA H100") for row in panel.savings.rows())


def test_a_saved_result_opens_with_its_table_and_without_emulated_points_on_the_chart(qtbot, panel):
    result = drive(fusion.run(fusion.Params(sizes=(1024,), repeats=1), Context()))
    panel.show_result(result)
    assert panel.last_result is result  # export writes the emulated counts too
    assert not any("emulated" in name for name in panel.plot.curves)
    assert ["Kernel launches", "2", "1"] in panel.savings.rows()


def test_the_table_and_its_headings_follow_the_language(qtbot, window, panel):
    _run(qtbot, panel)
    switch_language(window, "zh")
    assert panel.savings.tree.headerItem().text(1) == "未融合"
    assert ["核函数启动次数", "2", "1"] in panel.savings.rows()
    assert panel.kernel_button.text() == "单步查看融合核函数"


def test_the_kernel_button_opens_the_fused_kernel_of_the_chosen_formula(qtbot, window, panel):
    choose(qtbot, panel.editors["chain"], "((a+b)*c-d)*0.5")
    click(qtbot, panel.kernel_button)
    warp = window.panels["warp"]
    assert window.current_panel() is warp
    assert warp.kernel_box.currentData() == "fusion_fused_long"
    wait_idle(qtbot, window)


def _standalone(qtbot, services, size: tuple[int, int]) -> FusionPanel:
    widget = FusionPanel(services)
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    return widget


def test_with_room_the_table_sits_under_the_chart(qtbot, services):
    panel = _standalone(qtbot, services, (1700, 1000))
    _run(qtbot, panel)
    qtbot.waitUntil(lambda: not panel.tabbed and panel.savings.isVisible() and panel.plot.isVisible())


def test_on_a_small_projector_screen_chart_and_table_become_two_tabs(qtbot, services):
    from PySide6.QtCore import Qt

    from ui.theme import apply_theme

    apply_theme("projector")  # before the panel, as when the app starts in it
    panel = _standalone(qtbot, services, (830, 700))
    _run(qtbot, panel)
    qtbot.waitUntil(lambda: panel.tabbed)
    assert panel.plot.isVisible() and not panel.savings.isVisible()
    bar = panel.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert panel.savings.isVisible() and ["Kernel launches", "2", "1"] in panel.savings.rows()


def test_times_are_written_in_a_readable_unit():
    assert [time_text(s) for s in (2.5, 0.0123, 4.56e-6, 3e-8)] == ["2.5 s", "12.3 ms", "4.56 µs", "30 ns"]


def test_the_time_row_compares_the_largest_size_both_forms_timed_cleanly(qtbot, panel):
    def timed(key, seconds_by_n, flagged_n=None):
        points = [Point(n, n / s / 1e9, None, {"seconds": s}) for n, s in seconds_by_n.items()]
        points = [flagged(p, ["busy"]) if p.x == flagged_n else p for p in points]
        return Series(key, Provenance("measured", "cpu"), "n", "", "rate", "GB/s", tuple(points), role="cpu", key=key)

    # At 2^20 the fused form was timed while the machine was busy: 100x slow, "fused slower than unfused".
    result = Result("fusion", {"chain": "(a+b)*c"}, (timed("cpu-numpy-out", {1024: 2e-6, 1 << 20: 2e-3}),
                    timed("cpu-numpy-blocked", {1024: 1e-6, 1 << 20: 1e-1}, flagged_n=1 << 20)))  # fmt: skip
    panel.show_result(result)
    rows = {row[0]: row[1:] for row in panel.savings.rows()}
    assert rows["Time, CPU one thread, measured, n=1024"] == ["2 µs", "1 µs"]
    assert not any("2^20" in what for what in rows)
