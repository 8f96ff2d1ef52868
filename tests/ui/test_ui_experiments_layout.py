"""The run-experiment panel at 1024 x 768 in projector type: a long title is elided, never cut,
and the notes show whole lines."""

from __future__ import annotations

import pytest

from tests.ui.test_ui_cpu_vs_gpu_layout import cut_lines
from tests.ui.walk import choose, click, open_panel, type_into, wait_idle


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_long_title_is_elided_and_the_notes_show_whole_lines(qtbot, services, language):
    from ui import i18n
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    apply_theme("projector")
    i18n.set_language(language)
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.resize(1024, 768)
    window.show()
    panel = open_panel(qtbot, window, "experiments")
    choose(qtbot, panel.experiment_combo, "saxpy")  # the longest title
    combo = panel.experiment_combo
    shown = combo.shown_text()
    assert shown.endswith("…") and shown[:-1] in combo.currentText()
    assert combo.toolTip() == combo.currentText()  # the whole title on hover
    type_into(qtbot, panel.editors["sizes"].edit, "1024, 4096")
    click(qtbot, panel.run_button)
    wait_idle(qtbot, window)
    qtbot.waitUntil(panel.notes.isVisible)
    notes = panel.notes
    assert notes.viewport().height() % notes.line_height() == 0
    bar = notes.verticalScrollBar()
    for value in range(0, bar.maximum() + 1, bar.singleStep()):
        bar.setValue(value)
        assert cut_lines(notes) == [], value
