"""The CPU-vs-GPU panel on a projector at 1024 x 768: the plot is the main thing, the notes show
whole lines, the CPU monitor can be read (0, 50 and 100 %, and a time axis)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage, QPainter

from tests.ui.walk import choose, click, open_panel, wait_idle
from ui.widgets.notes_box import NotesBox

LONG_ZH = "有噪声：CPU（numpy）在 n=1024、n=4096：测量期间其他程序占用了超过 25% 的 CPU。请谨慎解读这些点。" * 3
LONG_EN = "Crossover: NVIDIA H100 SXM5 80 GB (modelled) is faster than CPU (numpy) from n=2^16 up. " * 4


def run_quick_sweep(qtbot, window):
    """Open the panel from the sidebar, choose a quick vector-add sweep and press Run sweep."""
    panel = open_panel(qtbot, window, "cpu-vs-gpu")
    choose(qtbot, panel.experiment_combo, "vector-add")
    quick = next(i for i in range(panel.sizes_combo.count()) if max(panel.sizes_combo.itemData(i)) <= 1 << 20)
    choose(qtbot, panel.sizes_combo, panel.sizes_combo.itemData(quick))
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: panel.notes.isVisible())
    qtbot.wait(50)  # the layout after the notes appeared
    return panel


def cut_lines(box: NotesBox) -> list[int]:
    """Lines of the box that are partly in view (cut through a glyph), by number."""
    document, top = box.document(), box.verticalScrollBar().value()
    bottom = top + box.viewport().height()
    cut, number, block = [], 0, document.begin()
    while block.isValid():
        origin = document.documentLayout().blockBoundingRect(block).top()
        layout = block.layout()
        for index in range(layout.lineCount()):
            rect = layout.lineAt(index).rect()  # its glyphs' box: ascent and descent
            y0, y1 = origin + rect.top(), origin + rect.bottom()
            inside, outside = top <= y0 and y1 <= bottom, y1 <= top or y0 >= bottom
            if not (inside or outside):
                cut.append(number)
            number += 1
        block = block.next()
    return cut


def tick_labels(plot, side: str) -> list[str]:
    """The tick labels pyqtgraph draws on ``side`` of ``plot`` now (it drops those that stick out)."""
    axis = plot.getPlotItem().getAxis(side)
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _rect, _flags, text in texts]


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_at_1024_by_768_in_projector_type_the_plot_takes_most_of_the_panel(qtbot, projector_window):
    panel = run_quick_sweep(qtbot, projector_window)
    plot = panel.rate_plot
    assert plot.width() >= 0.6 * panel.width(), (plot.width(), panel.width())
    assert plot.height() >= 0.42 * panel.height(), (plot.height(), panel.height())
    assert panel.controls_scroll.width() <= 0.35 * panel.width()
    combos = panel.experiment_combo, panel.sizes_combo, panel.model_combo
    for combo in combos:  # narrow, yet every choice whole
        widest = max(combo.fontMetrics().horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))
        assert widest <= combo.width() - 30, combo.currentText()


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_the_notes_after_a_sweep_show_whole_lines_only(qtbot, projector_window):
    panel = run_quick_sweep(qtbot, projector_window)
    notes = panel.notes
    assert notes.viewport().height() % notes.line_height() == 0
    bar = notes.verticalScrollBar()
    for value in range(0, bar.maximum() + 1, bar.singleStep()):
        bar.setValue(value)
        assert cut_lines(notes) == [], value


@pytest.mark.parametrize("text", [LONG_EN, LONG_ZH])
def test_a_notes_box_scrolled_anywhere_shows_no_line_cut_in_half(qtbot, text):
    from ui.theme import apply_theme

    apply_theme("projector")
    box = NotesBox(lines=4)
    qtbot.addWidget(box)
    box.resize(420, 50)
    box.setText(text)
    box.show()
    qtbot.waitExposed(box)
    assert box.line_count() > 4 and box.viewport().height() == 4 * box.line_height()
    bar = box.verticalScrollBar()
    assert bar.maximum() > 0 and bar.maximum() % box.line_height() == 0
    for value in (0, bar.singleStep(), box.line_height() * 3 // 2, bar.maximum() - 3, bar.maximum()):
        bar.setValue(value)  # a drag between two lines comes to rest on a line's edge
        assert bar.value() % box.line_height() == 0 or bar.value() == bar.maximum()
        assert cut_lines(box) == [], value


def test_a_short_note_takes_only_the_lines_it_needs(qtbot):
    box = NotesBox(lines=4)
    qtbot.addWidget(box)
    box.resize(600, 50)
    box.setText("One short note.")
    box.show()
    qtbot.waitExposed(box)
    assert box.height() == box.line_height() and not box.verticalScrollBar().isVisible()


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_the_cpu_monitor_labels_0_50_100_percent_and_its_time_axis(qtbot, projector_window):
    panel = run_quick_sweep(qtbot, projector_window)
    plot = panel.monitor.cpu_plot
    qtbot.waitUntil(lambda: panel.monitor.waiting.isHidden())  # the ticks show once samples make a line
    assert plot.isVisible()
    # The axes take their room for the labels at the next layout, which a busy machine may not
    # have run yet when the placeholder goes: wait for it, as the eye does.
    # Each axis takes its room at its own layout pass: wait for both (one may come a pass later).
    qtbot.waitUntil(lambda: tick_labels(plot, "left") == ["0", "50", "100"]
                    and tick_labels(plot, "bottom") == ["−60 s", "−30 s", "0 s"], timeout=3_000)  # fmt: skip
    reason = panel.monitor.reason
    if reason.isVisible():  # no GPU counters: the reason sits beside the CPU plot, whole
        assert reason.geometry().left() >= panel.monitor.cpu_box.geometry().right()
        assert reason.height() >= reason.heightForWidth(reason.width())


def test_a_short_narrow_monitor_plot_keeps_its_end_labels(qtbot):
    from gpulab.monitor import Sampler
    from ui.theme import apply_theme
    from ui.widgets.monitor import MonitorStrip

    apply_theme("projector")
    strip = MonitorStrip(Sampler(hz=20, use_nvml=False))
    qtbot.addWidget(strip)
    strip.resize(360, 60)  # smaller than it allows: it keeps its least height
    strip.show()
    qtbot.waitExposed(strip)
    qtbot.waitUntil(lambda: len(strip.sampler.history()) >= 2)
    strip.refresh()
    qtbot.wait(50)  # the axes widen for their labels at the next layout
    assert strip.cpu_plot.height() >= 4 * strip.fontMetrics().height()
    assert tick_labels(strip.cpu_plot, "left") == ["0", "50", "100"]
    assert tick_labels(strip.cpu_plot, "bottom") == ["−60 s", "−30 s", "0 s"]


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_the_controls_and_the_series_list_fit_without_scrolling(qtbot, projector_window):
    panel = run_quick_sweep(qtbot, projector_window)
    qtbot.waitUntil(lambda: panel.controls_scroll.verticalScrollBar().maximum() == 0, timeout=2_000)
    assert not panel.dtype_combo.isVisible()  # vector add has one data type: no row for it
    choose(qtbot, panel.experiment_combo, "matmul")
    assert panel.dtype_combo.isVisible() and panel.dtype_combo.count() > 1  # a real choice: shown
