"""The warp visualizer's "printf output" tab, as a user meets it: empty until the kernel prints,
then one lane-tagged line per thread and call, in English or Chinese, and what a faulting
kernel printed before its fault."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from ui import i18n
from ui.panels.warp import WarpPanel

CJK = re.compile(r"[\u4e00-\u9fff]")
PRINTF = ' if (i % 16 == 3) printf("lane %d: v = %u\\n", threadIdx.x % 32, v);'


@pytest.fixture
def panel(warp_panel):
    return warp_panel


def open_printf_tab(qtbot, panel: WarpPanel) -> None:
    bar = panel.tabs.tabBar()
    index = panel.tabs.indexOf(panel.printf_tab)
    assert bar.tabText(index) in ("printf output", "printf 输出")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert panel.tabs.currentWidget() is panel.printf_tab


def type_after(qtbot, panel: WarpPanel, anchor: str, text: str) -> None:
    """Put the text cursor after ``anchor`` in the code and type ``text`` there."""
    code = panel.code
    cursor = code.document().find(anchor)
    assert not cursor.isNull(), anchor
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    code.setTextCursor(cursor)
    code.setFocus()
    qtbot.keyClicks(code, text)


def run_and_wait(qtbot, panel: WarpPanel) -> None:
    old = panel.session
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.job.is_over and (panel.session is not old or panel.run_state.error is not None),
                    timeout=15_000)


def test_a_kernel_without_printf_says_there_was_no_printf_output(panel, qtbot):
    open_printf_tab(qtbot, panel)
    assert "No printf output" in panel.printf_tab.summary.text()
    assert panel.printf_tab.view.toPlainText() == ""


def test_printf_added_to_the_kernel_lists_one_tagged_line_per_printing_thread(panel, qtbot):
    type_after(qtbot, panel, "out[i] = v;", PRINTF)
    run_and_wait(qtbot, panel)
    open_printf_tab(qtbot, panel)
    session = panel.session
    lines = panel.printf_tab.view.toPlainText().splitlines()
    expected = [i for i in range(session.shape.blocks * session.shape.threads_per_block) if i % 16 == 3]
    assert len(lines) == len(expected) == len(session.printf)
    first = session.printf[0]
    assert lines[0] == (f"[block (0,0,0) thread (3,0,0) | warp 0 lane 3] lane 3: v = "
                        f"{int(session.args[1][3])}")
    assert re.match(r"\[block \(0,0,0\) thread \(19,0,0\) \| warp 0 lane 19\] lane 19: v = \d+$", lines[1])
    assert first.line == next(n for n, t in enumerate(panel.code.source().splitlines(), 1) if "printf" in t)
    assert f"{len(lines)} line(s) printed" in panel.printf_tab.summary.text()
    assert panel.printf_tab.graphicsEffect() is None


def test_the_printf_tab_speaks_chinese_with_the_glossary_words(panel, qtbot):
    type_after(qtbot, panel, "out[i] = v;", PRINTF)
    run_and_wait(qtbot, panel)
    i18n.set_language("zh")
    open_printf_tab(qtbot, panel)
    assert CJK.search(panel.printf_tab.summary.text())
    first = panel.printf_tab.view.toPlainText().splitlines()[0]
    assert first.startswith("[线程块 (0,0,0) 线程 (3,0,0) | 线程束 0 通道 3] lane 3: v = ")


def test_what_a_faulting_kernel_printed_before_its_fault_is_shown_not_greyed(panel, qtbot):
    type_after(qtbot, panel, "unsigned int v = in[i];", ' printf("reached %d\\n", i); v = in[i + n];')
    run_and_wait(qtbot, panel)
    assert panel.run_state.error is not None
    open_printf_tab(qtbot, panel)
    lines = panel.printf_tab.view.toPlainText().splitlines()
    assert lines and lines[0] == "[block (0,0,0) thread (0,0,0) | warp 0 lane 0] reached 0"
    assert "Printed before the error" in panel.printf_tab.summary.text()
    assert panel.printf_tab.graphicsEffect() is None and panel.lanes.stale


def test_an_edit_greys_the_printf_output_of_the_previous_run(panel, qtbot):
    type_after(qtbot, panel, "out[i] = v;", PRINTF)
    run_and_wait(qtbot, panel)
    qtbot.keyClicks(panel.code, " ")
    assert panel.printf_tab.graphicsEffect() is not None
