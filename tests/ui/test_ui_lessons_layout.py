"""Presenter mode's legibility, measured: at 1024x768 and 1920x1080, in Chinese and English, every
page of every chapter: body text at least 20 px, no text cut short (a label wider than its room, a
tab, a list's entry or a button's words elided), Run and the big number on screen without
scrolling, the lab's picture at least half the page, nothing overlapping."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QComboBox, QHeaderView, QLabel, QListWidget, QPushButton, QTabBar, QTableView

from gpulab import lessons
from tests.ui.walk import combo_field_width, fully_shown, layout_problems, switch_language, wait_idle

PAGES = [(c.number, i) for c in lessons.chapters() for i in range(1, len(c.pages) + 1)]
SLACK_PX = 2  # rounding between a font's advance and the widget's pixels


def clipped_labels(viewer, presenting: bool = True) -> list[str]:
    """Labels cut by their width: a one-line label narrower than its text, any label wider than its
    parent or cut by a scroll area's edge, a label that shows its text cut short ('…'): in presenter
    mode at all (a room sees no tooltips), out of it without the whole text in its tooltip."""
    found = []
    for label in viewer.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        parent = label.parentWidget()
        if label.geometry().right() > parent.rect().right() + 1:
            found.append(f"{label.text()[:30]!r} runs past its container")
        seen = label.visibleRegion().boundingRect()  # a scroll area (its horizontal bar off) cuts its right edge
        if not seen.isEmpty() and seen.width() < label.width() - 1:
            found.append(f"{label.text()[:30]!r} is cut by its container's edge: {seen.width()} of {label.width()} px")
        if not label.wordWrap() and label.sizeHint().width() > label.width() + 1:
            found.append(f"{label.text()[:30]!r} is {label.width()} px wide for {label.sizeHint().width()} px of text")
        shown = label.shown_text() if hasattr(label, "shown_text") else label.text()
        if shown != label.text() and presenting:
            found.append(f"{label.text()[:30]!r} is cut short in presenter mode (the rest only on hover)")
        elif shown != label.text() and label.toolTip() != label.text():
            found.append(f"{label.text()[:30]!r} is cut short and its tooltip does not hold it")
    return found


def elided_texts(viewer) -> list[str]:
    """Words a widget draws cut short or not at all: a tab narrower than its title (or scrolled out
    of its bar), a list's closed box or an entry narrower than its text, a button narrower than its words."""
    found = []
    for bar in viewer.findChildren(QTabBar):
        if not bar.isVisible():
            continue
        for i in range(bar.count()):
            rect, need = bar.tabRect(i), bar.tabSizeHint(i)
            if rect.width() + SLACK_PX < need.width():
                found.append(f"tab {bar.tabText(i)!r} is {rect.width()} px wide for {need.width()} px")
            if rect.left() < 0 or rect.right() > bar.width() + SLACK_PX:
                found.append(f"tab {bar.tabText(i)!r} is scrolled out of its bar")
    for combo in viewer.findChildren(QComboBox):
        if not combo.isVisible():
            continue
        text = combo.shown_text() if hasattr(combo, "shown_text") else combo.currentText()
        room = combo_field_width(combo)
        if combo.fontMetrics().horizontalAdvance(text) > room + SLACK_PX:
            found.append(f"the list shows {text!r} in {room} px")
    for items in viewer.findChildren(QListWidget):
        if not items.isVisible() or items.wordWrap():
            continue
        for i in range(items.count()):
            text = items.item(i).text()
            if items.fontMetrics().horizontalAdvance(text) > items.viewport().width() + SLACK_PX:
                found.append(f"the entry {text!r} is wider than its list")
    for button in viewer.findChildren(QPushButton):
        text = button.text().replace("&", "")
        if button.isVisible() and text and button.fontMetrics().horizontalAdvance(text) > button.width() - 4:
            found.append(f"the button {text!r} is {button.width()} px wide")
    return found + cut_axis_titles(viewer) + cut_cells(viewer)


def cut_axis_titles(viewer) -> list[str]:
    """A plot's axis title longer than its axis: pyqtgraph centres it and lets both ends run past."""
    found = []
    for plot in viewer.findChildren(pg.PlotWidget):
        if not plot.isVisible():
            continue
        for side, entry in plot.getPlotItem().axes.items():
            axis = entry["item"]
            if not axis.isVisible() or not axis.label.isVisible() or not axis.labelText:
                continue
            length = axis.label.boundingRect().width()  # along the axis (an upright title is turned)
            room = axis.width() if side in ("top", "bottom") else axis.height()
            if length > room + SLACK_PX:
                found.append(f"the {side} axis title {axis.labelText[:30]!r} is {length:.0f} px on {room:.0f} px")
    return found


def cut_cells(viewer) -> list[str]:
    """A table's cell or header whose words do not fit its column (on one line, or wrapped in its row's
    height): the table draws it with '…' and the rest only shows on hover."""
    found = []
    for table in viewer.findChildren(QTableView):
        if not table.isVisible() or table.model() is None:
            continue
        model, header = table.model(), table.horizontalHeader()
        for column in range(model.columnCount()):
            if table.isColumnHidden(column):
                continue
            room = table.columnWidth(column)
            title = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
            if header.isVisible() and header.sectionSizeFromContents(column).width() > room + SLACK_PX:
                found.append(f"the column title {title!r} is cut in {room} px")
            for row in range(model.rowCount()):
                index = model.index(row, column)
                text = str(index.data() or "")
                if text and not fits_cell(table, index, text, room, table.rowHeight(row)):
                    found.append(f"the cell {text[:30]!r} is cut in {room} px")
                    break  # one a column is enough to say
    return found


def fits_cell(table, index, text: str, width: int, height: int) -> bool:
    """Whether the cell's ``text`` fits ``width`` x ``height`` px: on one line by the view's own size
    hint (its margins, icon and font), or wrapped, where the table wraps, within its row's height."""
    need = table.sizeHintForIndex(index).width()
    if need <= width + SLACK_PX:
        return True
    if not table.wordWrap():
        return False
    metrics = table.fontMetrics()
    inner = width - (need - metrics.horizontalAdvance(text))  # less the margins the hint adds
    wrapped = metrics.boundingRect(QRect(0, 0, max(inner, 1), 100_000), Qt.TextFlag.TextWordWrap, text)
    # no word wider than the column, and the row as tall as the view says its wrapped cells need
    return wrapped.width() <= inner + SLACK_PX and height + SLACK_PX >= table.sizeHintForRow(index.row())


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_page_in_presenter_mode_is_legible_and_needs_no_scrolling(qtbot, window, size, lang):
    window.presenter.full_screen = False  # the window keeps the size under test
    window.resize(*size)
    switch_language(window, lang)
    viewer = window.open_lesson(0, 1)
    window.presenter.set_on(True)
    problems = []
    for chapter, page in PAGES:
        viewer.open_page(chapter, page)
        where = f"{size} {lang} chapter {chapter} page {page}"
        assert viewer.text.text.fontInfo().pixelSize() >= 20, where
        found = layout_problems(window, viewer) + clipped_labels(viewer) + elided_texts(viewer)
        problems += [f"{where}: {p}" for p in found]
        for widget in (viewer.run_button, viewer.number):
            if not fully_shown(widget):
                problems.append(f"{where}: {type(widget).__name__} is not wholly on screen")
    window.presenter.set_on(False)
    switch_language(window, "en")
    assert not problems, "\n".join(problems)


def test_the_geometry_checks_see_a_cut_tab_a_cut_list_and_a_cut_button(qtbot, window):
    """The checks above are not blind: a tab, a closed list and a button squeezed on purpose are found."""
    viewer = window.open_lesson(4, 1)
    window.presenter.set_on(False)
    viewer.run_button.setFixedWidth(20)
    viewer.nav.chapter_combo.setFixedWidth(30)
    tabs = viewer.lab.current_panel().explorer.tabs
    tabs.setFixedWidth(120)
    found = "\n".join(elided_texts(viewer))
    assert "the button 'Run this page (R)'" in found
    assert "the list shows 'Chapter 4'" in found
    assert "tab 'Efficiency, goodput'" in found


def test_the_geometry_checks_see_a_line_cut_short_with_its_rest_on_hover(qtbot, window):
    """Out of presenter mode a line cut short with its whole text in the tooltip passes; in
    presenter mode it is found, for a room sees no tooltips."""
    window.presenter.full_screen = False
    window.resize(1024, 768)
    viewer = window.open_lesson(4, 6)
    line = viewer.lab.current_panel().explorer.llama_line
    line.set_lines(1, 1)
    line.setFixedWidth(120)
    qtbot.waitUntil(lambda: line.shown_text().endswith("…"))
    assert line.toolTip() == line.text()
    assert not [p for p in clipped_labels(viewer, presenting=False) if "Llama 3" in p]
    found = "\n".join(clipped_labels(viewer, presenting=True))
    assert "'Llama 3, 16,384 H100s" in found and "only on hover" in found


LIVE_PAGES = [(c.number, i) for c in lessons.chapters() for i, p in enumerate(c.pages, 1) if p.is_live]
SIZES = [(1024, 768), (1920, 1080)]


def after_run_problems(window, viewer, where: str) -> list[str]:
    """What the page shows wrong now, in presenter mode: the geometry checks, and Run and the big number on screen."""
    found = layout_problems(window, viewer) + clipped_labels(viewer) + elided_texts(viewer)
    found += [f"{type(w).__name__} is not wholly on screen" for w in (viewer.run_button, viewer.number)
              if not fully_shown(w)]  # fmt: skip
    return [f"{where}: {p}" for p in found]


def settled_problems(qtbot, window, viewer, where: str) -> list[str]:
    """:func:`after_run_problems` once the page has reflowed: a resize or a step relays the page out
    over the next turns of the event loop, and on CI's loaded machine a check read straight after
    the 8-rank run's resize once saw the page mid-reflow (818 px in a 760 px view; alone it fits).
    What is still wrong after the bound is reported."""
    try:
        qtbot.waitUntil(lambda: not after_run_problems(window, viewer, where), timeout=3000)
    except qtbot.TimeoutError:
        pass
    return after_run_problems(window, viewer, where)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_after_its_run_every_page_still_fits_with_run_and_the_big_number_on_screen(qtbot, window, lang):
    """The big number arrives with the run (a value, its badge, what it means, where it ran), and the
    lab's texts with it (a verdict, notes, the doctor's findings): every live page must still need no
    scrolling and cut nothing, at 1024x768 and 1920x1080 in presenter mode, in both languages."""
    window.presenter.full_screen = False
    switch_language(window, lang)
    viewer = window.open_lesson(0, 1)
    window.presenter.set_on(True)
    problems = []
    for chapter, page in LIVE_PAGES:
        window.resize(*SIZES[0])
        viewer.open_page(chapter, page)
        qtbot.keyClick(viewer, Qt.Key.Key_R)
        qtbot.waitUntil(lambda: viewer.running is None, timeout=120_000)
        wait_idle(qtbot, window)  # what a page does after its run (the squeeze doctor reads the trace)
        if viewer.number.number is None:
            problems.append(f"{lang} chapter {chapter} page {page}: no big number after the run")
        for size in SIZES:
            window.resize(*size)
            problems += after_run_problems(window, viewer, f"{size} {lang} chapter {chapter} page {page} after its run")
    window.presenter.set_on(False)
    switch_language(window, "en")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_ring_and_tree_steps_beside_a_lesson_cut_no_text_at_any_step(qtbot, window, lang):
    """Ring & tree's step view in the lesson's compact layout, in presenter mode: at every step of
    both algorithms, for the page's 4 ranks (R) and its try-this 8 (T), at both sizes, every text
    is whole and the page needs no scrolling (the last step adds the check against the plain sum)."""
    from tests.ui.walk import choose_index, click, click_tab

    window.presenter.full_screen = False
    window.resize(*SIZES[0])
    switch_language(window, lang)
    viewer = window.open_lesson(4, "ring-and-tree")
    window.presenter.set_on(True)
    panel = viewer.lab.current_panel()
    problems = []
    for key, ranks in ((Qt.Key.Key_R, 4), (Qt.Key.Key_T, 8)):
        qtbot.keyClick(viewer, key)
        qtbot.waitUntil(lambda: viewer.running is None, timeout=60_000)
        click_tab(qtbot, panel.tabs, 0)
        for algorithm in range(panel.algorithm_combo.count()):
            choose_index(qtbot, panel.algorithm_combo, algorithm)
            for size in SIZES:
                window.resize(*size)
                for step in range(panel.last() + 1):
                    if step:
                        click(qtbot, panel.transport.forward_button)
                    where = f"{size} {lang} {ranks} ranks, {panel.algorithm} step {step}"
                    problems += settled_problems(qtbot, window, viewer, where)
                assert "Verified" in panel.check_text.text() or "已验证" in panel.check_text.text()
                click(qtbot, panel.transport.start_button)
    window.presenter.set_on(False)
    switch_language(window, "en")
    assert not problems, "\n".join(problems[:20])


def test_the_geometry_checks_see_a_cut_axis_title_and_a_cut_table_cell(qtbot, window):
    """An axis title longer than its axis and a table column narrower than its words are found."""
    window.presenter.full_screen = False
    window.resize(1024, 768)
    viewer = window.open_lesson(4, 1)
    window.presenter.set_on(False)
    table = viewer.lab.current_panel().explorer.table
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    table.setColumnWidth(3, 12)  # as narrow as the header allows
    found = "\n".join(elided_texts(viewer))
    assert f"the column title 'GB / GPU' is cut in {table.columnWidth(3)} px" in found
    assert f"the cell '{table.item(0, 3).text()}' is cut in {table.columnWidth(3)} px" in found
    viewer.open_page(2, 2)
    plot = viewer.lab.current_panel().plot
    plot.setLabel("bottom", "an_unbroken_word_" * 60)  # a title wraps at spaces: one word cannot
    assert "the bottom axis title 'an_unbroken_word_an_unbroken_" in "\n".join(elided_texts(viewer))
