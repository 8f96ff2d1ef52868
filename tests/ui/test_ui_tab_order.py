"""Tab walks a lab's controls as they are drawn: the form's fields, the device, then Run.

Qt orders Tab by when widgets were made; a lab's form is made after its Run button, and a lab page
moves Run (and now the device list) under the scrolled form. Before ``ui/widgets/tab_order.py``,
Tab from the form's last field went to the plot, and the fields came only after Run and Export."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from tests.ui.walk import choose, open_panel, switch_language, type_into, wait_idle


def tab_walk(qtbot, start: QWidget, steps: int, backwards: bool = False) -> list[QWidget]:
    """The widgets focus visits from ``start``, one Tab (or Shift+Tab) key press at a time."""
    start.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is start, timeout=5000)
    key, modifier = (Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier) if backwards else (Qt.Key.Key_Tab,
                                                                                               Qt.KeyboardModifier.NoModifier)
    visited = []
    for _ in range(steps):
        qtbot.keyClick(QApplication.focusWidget(), key, modifier)
        visited.append(QApplication.focusWidget())
    return visited


def form_widgets(panel) -> list[QWidget]:
    """The form's own editable parts (a preset editor's list and field), top to bottom."""
    parts = []
    for editor in panel.form.editors.values():
        children = [child for child in (getattr(editor, "combo", None), getattr(editor, "edit", None)) if child]
        parts.extend(children or [editor])
    return [part for part in parts if part.isEnabled()]


def test_on_a_lab_page_tab_goes_through_every_field_then_the_device_then_run(qtbot, window):
    panel = open_panel(qtbot, window, "fusion")
    window.activateWindow()
    fields = form_widgets(panel)
    assert len(fields) >= 3, "the operator-fusion lab has a form of several fields"
    visited = tab_walk(qtbot, fields[0], len(fields) + 1)
    assert visited[: len(fields) - 1] == fields[1:], "Tab walks the form top to bottom"
    assert visited[len(fields) - 1] is panel.device_combo and visited[len(fields)] is panel.run_button
    assert tab_walk(qtbot, panel.run_button, 2, backwards=True) == [panel.device_combo, fields[-1]]


def test_a_new_experiments_fields_come_before_run_on_the_run_experiment_page(qtbot, window):
    panel = open_panel(qtbot, window, "experiments")
    window.activateWindow()
    choose(qtbot, panel.experiment_combo, "saxpy")  # its fields are made now, after Run was
    fields = form_widgets(panel)
    qtbot.waitUntil(lambda: all(field.isVisible() for field in fields), timeout=5000)  # Qt shows them queued
    visited = tab_walk(qtbot, panel.experiment_combo, len(fields) + 2)
    assert visited[: len(fields)] == fields
    assert visited[len(fields):] == [panel.device_combo, panel.run_button]



def test_ctrl_return_in_a_field_runs_the_lab_and_run_says_so(qtbot, window):
    panel = open_panel(qtbot, window, "fusion")
    window.activateWindow()
    repeats = panel.form.editors["repeats"]
    type_into(qtbot, repeats, "1")
    sizes = panel.form.editors["sizes"].edit
    type_into(qtbot, sizes, "1024")
    qtbot.keyClick(sizes, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # typed, then run: no mouse
    assert panel.job is not None and not panel.run_button.isEnabled()
    qtbot.keyClick(sizes, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # while it runs: nothing more
    wait_idle(qtbot, window)
    assert panel.last_result is not None and tuple(panel.last_result.params["sizes"]) == (1024,)
    assert "Ctrl+Return" in panel.run_button.toolTip()
    switch_language(window, "zh")
    assert panel.run_button.toolTip().startswith("键盘：Ctrl+")  # Qt names the key in Chinese too (回车)


def test_ctrl_return_on_the_check_page_runs_the_quick_check(qtbot, window):
    from tests.gpulab.check.fakes import FakeGpu, FakeLayer

    panel = open_panel(qtbot, window, "check")
    panel.device_layer, panel.only = FakeLayer(FakeGpu(0)), ["software.cuda"]
    window.activateWindow()
    panel.run_button.setFocus()
    keypad = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier
    qtbot.keyClick(panel.run_button, Qt.Key.Key_Enter, keypad)  # Enter on the number pad
    wait_idle(qtbot, window)
    assert panel.report is not None and panel.report.mode == "quick"
