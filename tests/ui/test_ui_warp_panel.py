"""The warp visualizer panel: lab kernels stepped in the emulator, shown lane by lane."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from gpulab import experiments, kernels
from gpulab.catalogue import render
from gpulab.experiments import warp as ws
from tests.ui.walk import click_tab
from ui.app import image_is_blank
from ui.panels.warp import WarpPanel
from ui.widgets.lane_grid import COMPACT_CELLS_PX, MIN_CELLS_PX

CJK = re.compile(r"[\u4e00-\u9fff]")


def emulated(qtbot, panel: WarpPanel, entry: str, preset: str | None = None) -> ws.WarpSession:
    """Choose a kernel and wait for its emulation to arrive."""
    old = panel.session
    if panel.kernel_box.currentData() == entry and preset is None:
        panel.run()
    else:
        panel.choose_kernel(entry, preset)
    qtbot.waitUntil(
        lambda: panel.session is not old and panel.session is not None and panel.session.entry == entry, timeout=10_000
    )
    return panel.session


@pytest.fixture
def panel(warp_panel):
    return warp_panel


def first_step_on_line(session: ws.WarpSession, line: int) -> int:
    return next(g for g in range(len(session)) if session.line(g) == line)


def source_line(spec: kernels.KernelSpec, text: str) -> int:
    return next(i for i, src in enumerate(spec.source.splitlines(), 1) if text in src)


def test_even_odd_divergence_shows_exactly_the_even_lanes_active_on_the_then_line(panel, qtbot):
    session = emulated(qtbot, panel, "divergence_even_odd")
    line = source_line(experiments.kernel("divergence_even_odd"), "v = v * 3 + 1")
    panel.set_cursor(first_step_on_line(session, line))
    shown = panel.lanes.states
    for row in range(session.rows):
        assert list(np.flatnonzero(shown[row] == ws.LANE_ACTIVE)) == list(range(0, 32, 2))
        assert list(np.flatnonzero(shown[row] == ws.LANE_MASKED)) == list(range(1, 32, 2))
    assert panel.code.highlighted_lines() == [line]


def test_warp_aligned_divergence_never_masks_a_lane(panel, qtbot):
    session = emulated(qtbot, panel, "divergence_warp_aligned")
    for g in range(len(session)):
        panel.set_cursor(g)
        assert not np.any(panel.lanes.states == ws.LANE_MASKED)
    assert panel.session.next_divergence(0) is None


def test_a_panel_that_was_never_shown_emulates_nothing(qtbot, services):
    hidden = WarpPanel(services)
    qtbot.addWidget(hidden)
    hidden.choose_kernel("load_strided")
    assert hidden.job is None and services.runner.is_idle()
    hidden.show()
    qtbot.waitUntil(lambda: hidden.session is not None, timeout=10_000)
    assert hidden.session.entry == "load_strided"


@pytest.mark.parametrize("entry", sorted(e for e, s in experiments.kernel_catalogue().items() if not s.gpu_only))
def test_every_lab_kernel_steps_from_first_to_last_step_with_its_line_marked(panel, qtbot, entry):
    session = emulated(qtbot, panel, entry)
    assert session.reference_match is True
    for g in range(len(session)):
        panel.transport.step_requested.emit(1) if g else panel.transport.seek_requested.emit(0)
        assert panel.cursor == g
        assert panel.code.current_line == session.step(g, panel.row).line
    assert panel.transport.position == len(session) - 1
    assert f"step {len(session)} / {len(session)}" in panel.transport.position_label.text()


def test_metrics_strip_shows_the_emulated_branch_efficiency_with_its_ideal(panel, qtbot):
    session = emulated(qtbot, panel, "divergence_even_odd")
    expected = f"{session.metrics['branch_efficiency']:.1f} %"
    assert panel.metrics.value_text("branch_efficiency") == expected
    assert session.metrics["branch_efficiency"] < 100
    assert panel.metrics.cells["branch_efficiency"].ideal.text() == "ideal 100.0 %"
    assert panel.metrics.badge.kind == "emulated"
    assert panel.provenance == "emulated"


def test_next_divergence_jumps_to_a_branch_that_splits_the_warp(panel, qtbot):
    session = emulated(qtbot, panel, "divergence_even_odd")
    panel.set_cursor(0)
    panel.transport.divergence_button.click()
    step = session.step(panel.cursor)
    assert step.kind == "branch"
    assert step.taken_mask not in (0, step.active_mask)


def test_next_memory_on_a_strided_load_shows_a_quarter_of_the_fetched_sectors_used(panel, qtbot):
    emulated(qtbot, panel, "load_strided")
    panel.set_cursor(0)
    panel.transport.memory_button.click()
    shown = panel.memory.step
    assert shown is not None and shown.kind == "load" and shown.buffer == "in"
    assert (shown.sectors_needed, shown.sectors_fetched) == (4, 16)
    assert panel.memory.efficiency_percent() == 25
    assert "fetched 16" in panel.memory.summary.text()


def shared_read_conflict(panel, qtbot, entry: str) -> int:
    session = emulated(qtbot, panel, entry)
    g = next(g for g in range(len(session)) if session.step(g).kind == "load" and session.step(g).space == "shared")
    panel.set_cursor(g)
    return panel.memory.step.conflict_degree


def test_transposing_through_an_unpadded_tile_reads_a_column_with_a_32_way_bank_conflict(panel, qtbot):
    assert shared_read_conflict(panel, qtbot, "transpose_shared") == 32
    assert panel.memory.efficiency_percent() == 3


def test_the_padded_tile_reads_its_column_without_a_bank_conflict(panel, qtbot):
    assert shared_read_conflict(panel, qtbot, "transpose_shared_padded") == 1
    assert panel.memory.step.words_per_bank == (1,) * 32


def test_a_compile_error_is_written_in_plain_words_under_its_line(panel, qtbot):
    source = panel.code.source().replace("int i = blockIdx.x", "goto end; int i = blockIdx.x", 1)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "goto" in text)
    panel.code.setPlainText(source)
    job = panel.run()
    qtbot.waitUntil(lambda: job.is_over, timeout=10_000)
    assert panel.code.error_line == line
    assert line in panel.code.highlighted_lines()
    assert panel.code.error_note.isVisible()
    assert "cannot run this code" in panel.code.error_text and "goto" in panel.code.error_text


def test_an_out_of_bounds_load_is_shown_as_a_crash_at_its_line(panel, qtbot):
    emulated(qtbot, panel, "load_coalesced")
    source = panel.code.source().replace("in[i]", "in[i + 100]")
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "in[i + 100]" in text)
    panel.code.setPlainText(source)
    job = panel.run()
    qtbot.waitUntil(lambda: job.is_over, timeout=10_000)
    assert panel.code.error_line == line
    assert "crashed" in panel.code.error_text and "out-of-bounds" in panel.code.error_text


def test_editing_the_source_and_running_emulates_the_edited_code(panel, qtbot):
    emulated(qtbot, panel, "load_coalesced")
    source = panel.code.source().replace("out[i] = in[i];", "out[i] = in[i] * 2.0f;")
    panel.code.setPlainText(source)
    old = panel.session
    panel.run()
    qtbot.waitUntil(lambda: panel.session is not old, timeout=10_000)
    assert panel.session.source == source
    assert panel.session.reference_match is False
    assert "DIFFER" in panel.status.text()


def test_choosing_another_block_traces_that_blocks_warps(panel, qtbot):
    emulated(qtbot, panel, "reduce_interleaved")
    old = panel.session
    panel.block_box.setValue(1)
    qtbot.waitUntil(lambda: panel.session is not old, timeout=10_000)
    assert panel.session.block == 1
    assert panel.session.warps == [2, 3]


def test_hovering_a_lane_names_its_thread_and_block(panel, qtbot):
    emulated(qtbot, panel, "divergence_even_odd")
    panel.set_cursor(0)
    panel.lanes.lane_hovered.emit(1, 5)
    text = panel.lanes.hover_label.text()
    assert "Warp 1, lane 5" in text and "threadIdx (37, 0, 0)" in text and "blockIdx (0, 0, 0)" in text


def test_play_advances_on_its_own_and_stops_at_the_last_step(panel, qtbot):
    session = emulated(qtbot, panel, "load_coalesced")
    panel.set_cursor(0)
    panel.transport.set_speed(60)
    panel.transport.play()
    assert panel.transport.playing
    qtbot.waitUntil(lambda: not panel.transport.playing, timeout=5_000)
    assert panel.cursor == len(session) - 1


def test_the_timeline_compares_a_divergent_kernel_with_its_warp_aligned_twin(panel, qtbot):
    emulated(qtbot, panel, "divergence_even_odd")
    qtbot.waitUntil(lambda: panel.timeline_tab.compare_session is not None, timeout=10_000)
    mine, other = panel.timeline_tab.timeline.timeline, panel.timeline_tab.compare_timeline.timeline
    assert other is not None and panel.timeline_tab.compare_session.entry == "divergence_warp_aligned"
    assert min(mine.active_lanes) == 16 and set(other.active_lanes) == {32}
    assert len(mine.active_lanes) > len(other.active_lanes)


def test_without_a_gpu_the_gpu_tab_says_why_and_offers_no_run(panel):
    assert not panel.gpu_tab.button.isEnabled()
    assert "No GPU run" in panel.gpu_tab.state.text()
    assert panel.run_on_gpu() is None


def test_in_chinese_the_gpu_tab_says_in_chinese_why_there_is_no_gpu(panel, services, qtbot):
    from ui import i18n

    services.devices.refresh()
    qtbot.waitUntil(lambda: services.devices.report is not None, timeout=5_000)
    i18n.set_language("zh")
    reason = i18n.device_reason(services.devices.report.cuda)
    assert CJK.search(reason) and reason in panel.gpu_tab.state.text()
    assert services.devices.report.cuda.reason not in panel.gpu_tab.state.text()


@pytest.mark.gpu
def test_on_a_gpu_the_same_source_matches_the_emulator_and_is_timed_with_events(qtbot):
    from gpulab.devices import device_report
    from ui.services import Services

    services = Services.create(probe=device_report)
    services.devices.refresh()
    qtbot.waitUntil(lambda: services.devices.report is not None, timeout=30_000)
    widget = WarpPanel(services)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitUntil(lambda: widget.session is not None, timeout=10_000)
    job = widget.run_on_gpu()
    assert job is not None
    qtbot.waitUntil(lambda: job.is_over, timeout=60_000)
    assert widget.gpu_tab.gpu_run is not None and widget.gpu_tab.gpu_run.all_match
    assert widget.gpu_tab.badge.kind == "measured" and widget.gpu_tab.gpu_run.median_s > 0


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_panel_paints_at_1024_by_768_in_both_languages(panel, qtbot, tmp_path, language):
    from ui import i18n

    i18n.set_language(language)
    emulated(qtbot, panel, "divergence_even_odd")
    panel.jump_to_next_divergence()
    panel.set_cursor(panel.cursor + 1)
    image = panel.grab().toImage()
    image.save(str(tmp_path / f"warp_{language}.png"))
    assert (image.width(), image.height()) == (1024, 768)
    assert not image_is_blank(image)
    if language == "zh":
        assert panel.run_button.text() != "Run"


def test_switching_to_the_dark_theme_recolours_the_code_marker_and_the_idle_lanes(panel, qtbot):
    from PySide6.QtGui import QColor

    from ui.theme import apply_theme

    light_idle = tuple(panel.lanes.lut[ws.LANE_IDLE])
    apply_theme("dark")
    qtbot.waitUntil(lambda: panel.code.current_colour.lightness() < 128, timeout=2_000)
    assert QColor(*panel.lanes.lut[ws.LANE_IDLE][:3]).lightness() < 80
    assert tuple(panel.lanes.lut[ws.LANE_IDLE]) != light_idle


def cie_lightness(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 116 * y ** (1 / 3) - 16


def test_the_lane_colours_differ_in_lightness_so_they_read_without_hue(panel):
    from ui.widgets.lane_grid import STATE_COLOURS

    lightness = sorted(cie_lightness(colour) for colour in STATE_COLOURS.values())
    assert all(b - a >= 12 for a, b in itertools.pairwise(lightness))
    assert len(panel.lanes.legend.labels) == len(ws.LANE_STATES)


def test_a_warp_with_no_work_in_a_reduction_round_waits_at_the_barrier(panel, qtbot):
    session = emulated(qtbot, panel, "reduce_interleaved")
    g = next(g for g in range(len(session)) if session.participants(g) == [0] and session.step(g).kind == "load")
    panel.set_cursor(g)
    assert np.all(panel.lanes.states[1] == ws.LANE_BARRIER)
    active = int((panel.lanes.states[0] == ws.LANE_ACTIVE).sum())
    assert f"1 of 2 warps execute, {active} lanes active" in panel.step_label.text()


def test_keys_on_the_lane_grid_step_and_jump(panel, qtbot):
    from PySide6.QtCore import Qt

    session = emulated(qtbot, panel, "divergence_even_odd")
    panel.set_cursor(0)
    panel.lanes.setFocus()
    qtbot.keyClick(panel.lanes, Qt.Key.Key_Right)
    assert panel.cursor == 1
    qtbot.keyClick(panel.lanes, Qt.Key.Key_D)
    assert panel.cursor == session.next_divergence(1)
    qtbot.keyClick(panel.lanes, Qt.Key.Key_Left)
    assert panel.cursor == session.next_divergence(1) - 1


def test_switching_kernels_mid_run_cancels_the_old_run_and_leaves_no_thread_running(panel, qtbot, services):
    from PySide6.QtCore import QThreadPool

    panel.choose_kernel("matmul_tiled", "small")
    first = panel.job
    panel.choose_kernel("load_gather")
    qtbot.waitUntil(
        lambda: first.is_over and panel.session is not None and panel.session.entry == "load_gather", timeout=20_000
    )
    assert first.state in ("cancelled", "done")
    qtbot.waitUntil(services.runner.is_idle, timeout=20_000)
    assert services.runner.shutdown(5_000)
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def test_hovering_a_lane_at_a_strided_load_says_which_sector_and_line_it_hits(panel, qtbot):
    emulated(qtbot, panel, "load_strided")
    panel.set_cursor(0)
    panel.jump_to_next_memory()
    panel.lanes.lane_hovered.emit(0, 9)
    memory = panel.memory.step
    expected = f"Sector {memory.sector_of_lane[9]} of line {memory.line_of_lane[9]}."
    assert expected in panel.lanes.hover_label.text()


def test_clicking_the_timeline_moves_the_cursor_to_that_step_of_the_warp(panel, qtbot):
    from PySide6.QtCore import QPointF, Qt

    session = emulated(qtbot, panel, "divergence_even_odd")
    timeline = panel.timeline_tab.timeline
    assert timeline.own_step_at(7.5) == 7 and timeline.own_step_at(-1) is None
    panel.tabs.setCurrentIndex(1)
    qtbot.waitUntil(timeline.plot.isVisible)
    scene_point = timeline.plot.getPlotItem().vb.mapViewToScene(QPointF(7.5, 16))
    pixel = timeline.plot.mapFromScene(scene_point)
    qtbot.mouseClick(timeline.plot.viewport(), Qt.MouseButton.LeftButton, pos=pixel)
    assert panel.cursor == int(session.timeline(0).global_step[7])


def visible_rect_in(widget, ancestor):
    from PySide6.QtCore import QRect

    return QRect(widget.mapTo(ancestor, widget.rect().topLeft()), widget.size())


@pytest.mark.parametrize(("language", "theme"), [("en", "projector"), ("zh", "projector"), ("zh", "light")])
def test_at_1024_by_768_the_panel_fits_without_sideways_scrolling_and_shows_lanes_legend_and_metrics(
    qtbot, services, language, theme
):
    from tests.ui.conftest import warp_in_window
    from ui import i18n

    i18n.set_language(language)
    panel = warp_in_window(qtbot, services, theme)
    scroll = panel.parentWidget().parentWidget()
    qtbot.waitUntil(lambda: panel.width() <= scroll.viewport().width(), timeout=2_000)
    assert panel.minimumSizeHint().width() <= scroll.viewport().width()
    assert not scroll.horizontalScrollBar().isVisible()
    least = panel.lanes.min_cells  # projector type: 20 px a lane, across the panel under the code
    assert least == (COMPACT_CELLS_PX if theme == "projector" else MIN_CELLS_PX)
    big_enough = lambda: panel.lanes.cells_rect().width() >= least[0] and panel.lanes.cells_rect().height() >= least[1]  # noqa: E731
    qtbot.waitUntil(big_enough, timeout=2_000)  # pyqtgraph lays its plots out a little later
    viewport = scroll.viewport()
    legend = list(panel.lanes.legend.labels.values())  # in the transport's flow, beside its buttons
    if theme == "projector":  # the metrics have a tab beside the code there
        click_tab(qtbot, panel.tabs, panel.tabs.indexOf(panel.metrics))
        qtbot.waitUntil(panel.metrics.isVisible, timeout=2_000)
    for widget in (panel.code, *legend, panel.metrics, panel.transport, panel.kernel_box, panel.run_button):
        assert viewport.rect().contains(visible_rect_in(widget, viewport)), widget
    for cell in panel.metrics.cells.values():
        assert panel.metrics.rect().contains(visible_rect_in(cell, panel.metrics))
    assert panel.kernel_box.width() >= panel.kernel_box.sizeHint().width()  # the title is not cut


def test_hovering_a_lane_after_its_index_is_computed_shows_the_lanes_variables(panel, qtbot):
    session = emulated(qtbot, panel, "divergence_even_odd")
    line = source_line(experiments.kernel("divergence_even_odd"), "int i = ")
    panel.set_cursor(first_step_on_line(session, line))
    panel.lanes.lane_hovered.emit(1, 5)
    text = panel.lanes.hover_label.text()
    assert "i = 37" in text and "Variables:" in text
    assert panel.lanes.graphics.toolTip() == text
    assert "in = 0x" in text  # a pointer reads as a byte address
    panel.lanes.lane_hovered.emit(1, 6)
    assert "i = 38" in panel.lanes.hover_label.text()


def test_in_chinese_the_kernel_and_size_lists_are_in_chinese(panel, qtbot):
    from ui import i18n

    i18n.set_language("zh")
    spec = experiments.kernel(panel.kernel_box.currentData())
    title_zh = render(spec.title_message, "zh")
    assert CJK.search(title_zh) and panel.kernel_box.currentText() == title_zh
    compare_box = panel.timeline_tab.compare_box
    index = compare_box.findData("divergence_warp_aligned")
    assert compare_box.itemText(index) == render(experiments.kernel("divergence_warp_aligned").title_message, "zh")
    assert "threads" not in panel.preset_box.currentText() and "线程" in panel.preset_box.currentText()
    i18n.set_language("en")
    assert panel.kernel_box.currentText() == spec.title
    assert panel.preset_box.currentText() == "tiny (64 threads)"


def test_a_narrow_code_view_scrolls_sideways_to_the_steps_span(panel, qtbot):
    session = emulated(qtbot, panel, "transpose_shared")
    qtbot.wait(10)  # the panel's own choice of wrapping first (it wraps a column narrower than its code)
    panel.code.set_wrapping(False)  # unwrapped, as when lines fit: a narrower view must scroll sideways
    panel.code.setFixedWidth(150)
    qtbot.waitUntil(lambda: panel.code.width() == 150)
    line = source_line(experiments.kernel("transpose_shared"), "out[y * n + x] =")
    panel.set_cursor(first_step_on_line(session, line))
    assert panel.code.horizontalScrollBar().value() > 0
    assert panel.code.span_visible()
    panel.code.setFixedWidth(2000)
    qtbot.waitUntil(lambda: panel.code.width() == 2000)
    panel.set_cursor(0)
    assert panel.code.horizontalScrollBar().value() == 0  # it all fits: back to the line starts


def test_lanes_that_return_early_show_as_exited_in_grey_while_the_rest_work(panel, qtbot):
    from PySide6.QtGui import QColor

    from ui.widgets.lane_grid import STATE_COLOURS

    emulated(qtbot, panel, "vector_add")
    source = panel.code.source().replace("    if (i < n) {", "    if (threadIdx.x >= 40) return;\n    if (i < n) {")
    panel.code.set_source(source)
    old = panel.session
    panel.run()
    qtbot.waitUntil(lambda: panel.session is not old and panel.session is not None, timeout=10_000)
    store = next(g for g in range(len(panel.session)) if panel.session.step(g).kind == "store")
    panel.set_cursor(store)
    states = panel.lanes.states
    assert np.all(states[1, 8:] == ws.LANE_EXITED) and np.all(states[1, :8] == ws.LANE_ACTIVE)
    assert np.all(states[0] == ws.LANE_ACTIVE)
    assert QColor(*panel.lanes.lut[ws.LANE_EXITED][:3]).name() == STATE_COLOURS[ws.LANE_EXITED]
