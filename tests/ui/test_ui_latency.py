"""The latency page, driven as a user: the calculator's fields typed, the architecture chosen,
the animation played and stepped, the warps slider moved, the warp visualizer's "Open in SM view"
clicked; in Chinese too, and at 1024x768 in projector type."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import Qt

from tests.ui.test_ui_lessons_layout import elided_texts
from tests.ui.test_ui_walkthrough import has_chinese
from tests.ui.walk import choose, click, click_tab, open_panel, overlaps, settle, switch_language, wait_idle
from ui.panels.latency import CALCULATOR, HIDING, LADDER

SWEEP_TIMEOUT_MS = 60_000


def typed(qtbot, field, text: str) -> None:
    """Select the field's text and type ``text`` over it, key by key."""
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, text)
    assert field.text() == text


def hiding_ready(qtbot, panel) -> None:
    qtbot.waitUntil(lambda: panel.hiding.animation.ready and panel.hiding.sweep is not None, timeout=SWEEP_TIMEOUT_MS)


@pytest.fixture
def panel(qtbot, window):
    return open_panel(qtbot, window, "latency")


def test_the_page_sits_under_inside_a_gpu_with_three_tabs(window, panel):
    from ui.panels import sections

    inside = next(panels for key, _title, panels in sections() if key == "inside")
    assert ("latency", "Latency and warps") in inside
    assert [panel.tabs.tabText(i) for i in range(3)] == ["Latency ladder", "Occupancy", "Latency hiding"]
    assert panel.run_button.isVisible()  # the ladder's Run, on the first tab


def test_typing_in_the_calculator_changes_the_answer_and_names_the_binding_limit(qtbot, panel):
    click_tab(qtbot, panel.tabs, CALCULATOR)
    assert not panel.run_button.isVisible()  # the form is the ladder's; the calculator has its own fields
    calc = panel.calculator
    choose(qtbot, calc.arch_combo, "sm_80")
    typed(qtbot, calc.threads_field, "256")
    typed(qtbot, calc.registers_field, "32")
    typed(qtbot, calc.shared_field, "0")
    assert "8 blocks per SM" in calc.answer.text() and "64 of 64 warps" in calc.answer.text()
    before = calc.answer.text()
    typed(qtbot, calc.registers_field, "64")  # 64 x 32 x 8 warps = the whole register file for 4 blocks
    assert calc.answer.text() != before
    assert "4 blocks per SM" in calc.answer.text() and "occupancy 50%" in calc.answer.text()
    assert calc.limiter_line.text() == "Binding limit: registers"
    label, bar = calc.bars["registers"]
    assert "<b>" in label.text() and bar.value() == 4 and bar.format() == "4 blocks"
    typed(qtbot, calc.shared_field, "40000")  # 40000 B + 1 KiB reserved: 4 blocks in 164 KiB
    assert calc.bars["shared_memory"][1].value() == 4
    assert "shared memory" in calc.limiter_line.text() and "registers" in calc.limiter_line.text()


def test_choosing_an_architecture_by_its_gpu_changes_the_limits(qtbot, panel):
    click_tab(qtbot, panel.tabs, CALCULATOR)
    calc = panel.calculator
    typed(qtbot, calc.threads_field, "1024")
    typed(qtbot, calc.registers_field, "16")
    choose(qtbot, calc.arch_combo, "t4")  # sm_75: 32 warps per SM
    assert "1 blocks per SM" in calc.answer.text() and "32 of 32 warps" in calc.answer.text()
    choose(qtbot, calc.arch_combo, "h100-sxm")  # sm_90: 64 warps per SM
    assert "2 blocks per SM" in calc.answer.text() and "64 of 64 warps" in calc.answer.text()
    typed(qtbot, calc.threads_field, "2000")  # over the block limit: said, not computed
    assert "threads per block must be 1-1024" in calc.answer.text()


def test_a_lab_kernel_fills_the_registers_from_nvrtc_or_says_why_not(qtbot, window, panel):
    click_tab(qtbot, panel.tabs, CALCULATOR)
    calc = panel.calculator
    typed(qtbot, calc.registers_field, "200")
    choose(qtbot, calc.kernel_combo, "vector_add")
    wait_idle(qtbot, window)
    line = calc.compile_line.text()
    if "compiled by NVRTC" in line:
        assert calc.registers_field.text() != "200" and "registers per thread" in line
    else:
        assert "NVRTC could not compile vector_add" in line and calc.registers_field.text() == "200"
    assert not [m for m in window.services.notifier.history if m[0] == "error"]


def test_play_and_step_advance_the_grid_and_more_warps_use_more_issue_slots(qtbot, window, panel):
    click_tab(qtbot, panel.tabs, HIDING)
    view = panel.hiding
    hiding_ready(qtbot, panel)
    start = view.animation.cycle
    click(qtbot, view.step_button)
    assert view.animation.cycle == start + 1
    assert view.sm_numbers.text().startswith(f"Cycle {start + 1}")
    click(qtbot, view.play_button)
    qtbot.waitUntil(lambda: view.animation.cycle > start + 50, timeout=10_000)
    click(qtbot, view.play_button)  # pause
    assert not view.timer.isActive()
    paused_at = view.animation.cycle
    click(qtbot, view.step_button)
    assert view.animation.cycle == paused_at + 1
    # Many warps: after the first loads come back, a scheduler nearly always has a ready warp.
    view.step(3000)
    many = view.utilisation()
    view.warps_slider.setFocus()
    qtbot.keyClick(view.warps_slider, Qt.Key.Key_Home)  # the slider to 1 warp, by the keyboard
    assert view.warps_slider.value() == 1 and view.animation.warps == 1 and view.animation.cycle == 0
    view.step(3000)
    one = view.utilisation()
    assert one < many / 5, (one, many)
    assert view.cpu_numbers.text().startswith("CPU core")
    wait_idle(qtbot, window)


def test_the_sweep_reaches_the_roof_with_enough_warps_and_the_cpu_core_does_not(qtbot, window, panel):
    click_tab(qtbot, panel.tabs, HIDING)
    hiding_ready(qtbot, panel)
    sweep = panel.hiding.sweep
    runs, roof = sweep["runs"], sweep["roof"]
    assert runs[0].loads_per_cycle < 0.1 * roof  # one warp mostly waits
    assert max(r.loads_per_cycle for r in runs) > 0.9 * roof  # enough warps reach the memory roof
    assert sweep["cpu"].loads_per_cycle < 0.1 * roof
    assert 1 < sweep["little"] < panel.hiding.warps_slider.maximum()
    assert panel.hiding.little.value() == pytest.approx(sweep["little"])
    assert "Little's law" in panel.hiding.little.label.format
    wait_idle(qtbot, window)


def test_the_warp_visualizers_button_opens_the_sm_view_with_its_kernel(qtbot, window):
    warp = open_panel(qtbot, window, "warp")
    wait_idle(qtbot, window)
    choose(qtbot, warp.kernel_box, "reduce_shuffle")
    wait_idle(qtbot, window)
    click_tab(qtbot, warp.tabs, warp.tabs.indexOf(warp.timeline_tab))  # the warps over time, and the button
    click(qtbot, warp.timeline_tab.sm_button)
    latency = window.panels["latency"]
    assert window.current_panel() is latency
    assert latency.tabs.currentIndex() == HIDING and latency.hiding.kernel() == "reduce_shuffle"
    hiding_ready(qtbot, latency)
    wait_idle(qtbot, window)


def test_in_chinese_the_tabs_fields_and_numbers_read_chinese(qtbot, window, panel):
    switch_language(window, "zh")
    assert all(has_chinese(panel.tabs.tabText(i)) for i in range(3))
    click_tab(qtbot, panel.tabs, CALCULATOR)
    assert has_chinese(panel.calculator.threads_label.text()) and has_chinese(panel.calculator.answer.text())
    typed(qtbot, panel.calculator.registers_field, "128")
    assert has_chinese(panel.calculator.limiter_line.text()) and "寄存器" in panel.calculator.limiter_line.text()
    click_tab(qtbot, panel.tabs, HIDING)
    hiding_ready(qtbot, panel)
    click(qtbot, panel.hiding.step_button)
    for text in (panel.hiding.play_button.text(), panel.hiding.sm_numbers.text(), panel.hiding.cpu_title.text(),
                 panel.hiding.little.label.format):  # fmt: skip
        assert has_chinese(text), text
    click_tab(qtbot, panel.tabs, LADDER)
    assert has_chinese(panel.ladder.hint.text())
    wait_idle(qtbot, window)
    switch_language(window, "en")


def clipped_labels(page) -> list[str]:
    """Labels on screen whose text does not fit their width (a word-wrapped one may take lines; rich
    text is measured as its document lays it out)."""
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QLabel, QPushButton

    found = []
    for widget in page.findChildren(QLabel) + page.findChildren(QPushButton):
        if not widget.isVisible() or not widget.text() or (isinstance(widget, QLabel) and widget.wordWrap()):
            continue
        needed = widget.fontMetrics().horizontalAdvance(widget.text())
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText and "<" in widget.text():
            document = QTextDocument()
            document.setDocumentMargin(0)
            document.setDefaultFont(widget.font())
            document.setHtml(widget.text())
            needed = round(document.idealWidth())
        if needed > widget.width():
            found.append(f"{type(widget).__name__} {widget.text()!r}: {needed} px in {widget.width()}")
    return found


def cut_lines(view) -> list[str]:
    """The hiding tab's wrapped lines shown cut short (an ellipsis where the room ran out)."""
    labels = (view.source_line, view.sm_numbers, view.cpu_numbers)
    return [label.text() for label in labels if label.shown_text() != label.text()]


def cut_combos(page) -> list[str]:
    """Combo boxes whose shown entry is wider than their text field (a combo cuts it, no ellipsis)."""
    from PySide6.QtWidgets import QComboBox

    from tests.ui.walk import combo_field_width

    found = []
    for combo in page.findChildren(QComboBox):
        if not combo.isVisible():
            continue
        needed, room = combo.fontMetrics().horizontalAdvance(combo.currentText()), combo_field_width(combo)
        if needed > room:
            found.append(f"{combo.currentText()!r}: {needed} px in {room}")
    return found


def grid_name_problems(grid) -> list[str]:
    """A state grid's row names (left axis) cut by the grid's edge or drawn over each other."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFontMetrics

    item = grid.widget.getPlotItem()
    axis = item.getAxis("left")
    height = QFontMetrics(axis.style["tickFont"] or grid.widget.font()).height()
    spans = []
    for row, name in grid.row_ticks:
        middle = grid.widget.mapFromScene(item.vb.mapViewToScene(QPointF(0, row))).y()
        spans.append((name, middle - height / 2, middle + height / 2))
    found = [f"{name!r} runs past the grid ({top:.0f}..{bottom:.0f} of {grid.widget.height()} px)"
             for name, top, bottom in spans if top < 0 or bottom > grid.widget.height()]  # fmt: skip
    for (first, _top, bottom), (second, top, _bottom) in itertools.pairwise(spans):
        if bottom > top:
            found.append(f"{first!r} and {second!r} overlap ({bottom:.0f} > {top:.0f})")
    return found


def chart_label_problems(view) -> list[str]:
    """The sweep chart's own words (the roof's, Little's law's, the CPU core's) outside the plot or
    over each other."""
    box = view.chart.getPlotItem().vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    labels = {"roof": view.roof.label, "little": view.little.label, "cpu": view.cpu_text}
    rects = {name: label.sceneBoundingRect() for name, label in labels.items()}
    found = [f"the {name} label leaves the plot: {rect} not in {box}" for name, rect in rects.items()
             if not box.contains(rect)]  # fmt: skip
    names = list(rects)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if rects[first].intersects(rects[second]):
                found.append(f"the {first} and {second} labels overlap")
    return found


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_each_tab_fits_a_1024x768_projector_without_clipped_labels(qtbot, projector_window):
    window = projector_window
    panel = open_panel(qtbot, window, "latency")
    for index in (LADDER, CALCULATOR, HIDING):
        click_tab(qtbot, panel.tabs, index)
        if index == HIDING:
            hiding_ready(qtbot, panel)
            panel.hiding.step(50)
        settle(panel)
        tab = panel.tabs.currentWidget()
        assert not clipped_labels(tab), clipped_labels(tab)
        assert not overlaps(tab), overlaps(tab)
        # the tab bar whole (the form's long labels wrap rather than widen its column) and the GPU list's name whole
        assert not elided_texts(panel), elided_texts(panel)
        shown = panel.parentWidget()
        assert panel.height() <= shown.height() and panel.width() <= shown.width(), "the page scrolls"
    wait_idle(qtbot, window)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("theme", ["light", "projector"])
def test_the_hiding_tab_shows_everything_whole_at_both_window_sizes(qtbot, services, language, theme):
    """At 1024x768 and 1920x1080: no label, grid row name, chart label, line or kernel name cut."""
    from ui import i18n
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    apply_theme(theme)  # before the window, as the app does (the conftest puts back light and English)
    i18n.set_language(language)
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.resize(1024, 768)
    window.show()
    qtbot.waitUntil(lambda: services.devices.report is not None)
    panel = open_panel(qtbot, window, "latency")
    click_tab(qtbot, panel.tabs, HIDING)
    hiding_ready(qtbot, panel)
    view = panel.hiding
    view.step(400)  # past the first loads: the numbers under the grids at their longest
    for size in ((1024, 768), (1920, 1080)):
        window.resize(*size)
        settle(window)
        problems = (clipped_labels(view) + cut_lines(view) + cut_combos(view) + overlaps(view)
                    + grid_name_problems(view.sm_grid) + grid_name_problems(view.cpu_grid)
                    + chart_label_problems(view))  # fmt: skip
        assert not problems, (size, problems)
        shown = panel.parentWidget()
        assert panel.height() <= shown.height() and panel.width() <= shown.width(), ("the page scrolls", size)
    assert view.sm_grid.row_ticks[1][1] == ("warps 0–47" if language == "en" else "线程束 0–47")
    wait_idle(qtbot, window)


def test_the_ladder_shows_the_published_figures_of_the_chosen_architecture_with_their_source(qtbot, panel):
    ladder = panel.ladder
    choose(qtbot, ladder.gpu_combo, "sm_90")
    line = ladder.gpu_line.text()
    for part in ("H100 SXM", "L1 40", "L2 291", "DRAM 700", "shared memory not listed", "markdewing/AI_kernels"):
        assert part in line, (part, line)
    assert ladder.gpu_badge.isVisible() and ladder.gpu_line.shown_text() == line  # whole, the link too
    choose(qtbot, ladder.gpu_combo, "t4")  # by its GPU: sm_75, a source with a shared-memory figure
    assert "shared memory 23" in ladder.gpu_line.text() and "DRAM 1000–1200" in ladder.gpu_line.text()
    choose(qtbot, ladder.gpu_combo, "sm_86")
    assert ladder.gpu_line.text() == "No published figures for this architecture (sm_86)."
    assert not ladder.gpu_badge.isVisible()


def test_the_hiding_tab_starts_from_the_dram_latency_of_the_gpu_the_ladder_shows(qtbot, panel):
    """The ladder tab's GPU (picked in its list) gives the hiding tab its DRAM latency and its
    source; a GPU with no figure leaves it; a latency the user typed stays theirs."""
    view = panel.hiding
    choose(qtbot, panel.ladder.gpu_combo, "sm_90")
    click_tab(qtbot, panel.tabs, HIDING)
    assert view.latency_box.value() == 700  # H100 SXM's published DRAM latency, cycles
    assert "sm_90" in view.source_line.text()
    hiding_ready(qtbot, panel)
    assert view.animation.latency == 700
    click_tab(qtbot, panel.tabs, LADDER)
    choose(qtbot, panel.ladder.gpu_combo, "sm_86")  # no figures listed: the view keeps H100's
    choose(qtbot, panel.ladder.gpu_combo, "a100-sxm4-80gb")
    assert view.latency_box.value() == 550 and "sm_80" in view.source_line.text()
    click_tab(qtbot, panel.tabs, HIDING)
    view.latency_box.setFocus()
    view.latency_box.selectAll()
    qtbot.keyClicks(view.latency_box, "900")  # the box writes its unit after the number
    qtbot.keyClick(view.latency_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.latency_box.value() == 900)
    click_tab(qtbot, panel.tabs, LADDER)
    choose(qtbot, panel.ladder.gpu_combo, "sm_90")
    assert view.latency_box.value() == 900 and "you gave" in view.source_line.text()
