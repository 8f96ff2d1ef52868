"""The trace doctor beside a lesson (chapter 3, "measure first"): R opens the lab's sample trace on
the Trace doctor page's own Open trace…, the page's Step list judges the preset's step, and the big
number is the one the lab's own run gives; T judges the try-this step; presenter mode folds Open trace…."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpulab import lessons
from tests.ui.walk import click, open_panel

RUN_TIMEOUT_MS = 30_000
Key = Qt.Key


def open_trace_page(qtbot, window):
    viewer = open_panel(qtbot, window, "lesson")
    viewer.open_page(3, "trace-doctor")
    return viewer, viewer.lab.current_panel()


def finding_words(lab) -> str:
    return "\n".join(card.words.text() for card in lab.trace.findings.cards)


def test_r_opens_the_sample_judges_the_presets_step_and_the_number_is_the_labs(qtbot, window):
    from ui.panels.trace import TracePanel

    viewer, lab = open_trace_page(qtbot, window)
    assert isinstance(lab.trace, TracePanel) and lab.pictures() == [lab.trace.chart]
    assert viewer.run_button.isEnabled() and not lab.trace.step_combo.isVisible()  # nothing read yet
    qtbot.keyClick(viewer, Key.Key_R)
    qtbot.waitUntil(lambda: viewer.number.number is not None, timeout=RUN_TIMEOUT_MS)
    assert lab.trace.step_combo.isVisible() and lab.trace.step_combo.currentText() == "step 1"
    engine = lessons.big_number(viewer.page, lessons.run_page(viewer.page))  # gpulab run trace-doctor's
    shown = viewer.number.number
    assert shown.value == pytest.approx(engine.value) and viewer.number.value.text() == engine.text()
    assert shown.kind == "modelled" and lab.trace.badge.text() == "MODELLED"  # a model's trace, never "measured"
    assert "Data loading starves the GPU" in finding_words(lab)
    qtbot.keyClick(viewer, Key.Key_T)  # the try-this: step 2, prefetch on
    qtbot.waitUntil(lambda: viewer.number.number is not None and lab.trace.step_combo.currentText() == "step 2",
                    timeout=RUN_TIMEOUT_MS)  # fmt: skip
    assert viewer.number.number.value < shown.value / 2
    assert "Data loading starves the GPU" not in finding_words(lab)


def test_presenter_mode_folds_open_trace_and_the_settings_button_brings_it_back(qtbot, window):
    viewer, lab = open_trace_page(qtbot, window)
    assert lab.trace.open_button.isVisible() and viewer.settings_button.isVisible()
    qtbot.keyClick(viewer, Key.Key_F5)
    qtbot.waitUntil(lambda: viewer.presenting)
    assert not lab.trace.open_button.isVisible()
    qtbot.keyClick(viewer, Key.Key_R)  # the page's Run still opens the sample
    qtbot.waitUntil(lambda: viewer.number.number is not None, timeout=RUN_TIMEOUT_MS)
    assert lab.trace.window_label.shown_text() == lab.trace.window_label.text()  # whole: a room sees no tooltips
    click(qtbot, viewer.settings_button)
    assert lab.trace.open_button.isVisible()
    qtbot.keyClick(viewer, Key.Key_Escape)
    qtbot.waitUntil(lambda: not viewer.presenting)
