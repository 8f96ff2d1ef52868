"""Presenter mode's legibility, measured: at 1024x768 and 1920x1080, in Chinese and English, one page
of each chapter: body text at least 20 px, no label wider than the room it is given, Run and the big
number on screen without scrolling, the lab's picture at least half the page, nothing overlapping."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from tests.ui.walk import fully_shown, layout_problems, switch_language

PAGES = [(0, 1), (1, 2), (2, 2), (3, 1), (4, 4), (5, 1)]


def clipped_labels(viewer) -> list[str]:
    """Labels cut by their width: a one-line label narrower than its text, any label wider than its parent."""
    found = []
    for label in viewer.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        parent = label.parentWidget()
        if label.geometry().right() > parent.rect().right() + 1:
            found.append(f"{label.text()[:30]!r} runs past its container")
        if not label.wordWrap() and label.sizeHint().width() > label.width() + 1:
            found.append(f"{label.text()[:30]!r} is {label.width()} px wide for {label.sizeHint().width()} px of text")
    return found


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_chapter_in_presenter_mode_is_legible_and_needs_no_scrolling(qtbot, window, size, lang):
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
        problems += [f"{where}: {p}" for p in layout_problems(window, viewer) + clipped_labels(viewer)]
        for widget in (viewer.run_button, viewer.number):
            if not fully_shown(widget):
                problems.append(f"{where}: {type(widget).__name__} is not wholly on screen")
    window.presenter.set_on(False)
    switch_language(window, "en")
    assert not problems, "\n".join(problems)
