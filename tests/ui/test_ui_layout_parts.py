"""ui/widgets/layout_parts.py: a layout's widgets and nested layouts in order, leaving no Python
wrapper of a layout item behind (PySide hands a stale one out later for another object)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QLayoutItem, QLineEdit, QVBoxLayout, QWidget
from shiboken6 import Shiboken

from ui.panels.base import least_height
from ui.widgets.layout_parts import items, part_at, parts, widgets


def item_wrappers() -> int:
    """Python wrappers of layout items (not layouts) PySide holds now."""
    if not hasattr(Shiboken, "getAllValidWrappers"):
        pytest.skip("this shiboken6 cannot list its wrappers")
    wrappers = Shiboken.getAllValidWrappers()
    return sum(1 for obj in wrappers if isinstance(obj, QLayoutItem) and not hasattr(obj, "parent"))


def test_parts_are_in_the_layouts_order_with_nested_layouts_and_without_spacers(qtbot):
    page = QWidget()
    qtbot.addWidget(page)
    column = QVBoxLayout(page)
    title, first, second, last = QLabel("title"), QLineEdit(), QLineEdit(), QLabel("last")
    row = QHBoxLayout()
    column.addWidget(title)
    column.addStretch(1)
    column.addLayout(row)
    row.addWidget(second)
    row.insertWidget(0, first)  # made after, placed before
    column.addWidget(last)
    column.insertWidget(0, QLabel("top"))
    found = parts(column)
    assert [type(part).__name__ for part in found] == ["QLabel", "QLabel", "QHBoxLayout", "QLabel"]
    assert found[1] is title and found[2] is row and found[3] is last
    assert parts(row) == [first, second] and widgets(column)[1:] == [title, last]
    assert part_at(column, 1) is title and part_at(column, 2) is None and part_at(column, 3) is row  # 2: the stretch
    assert part_at(column, 9) is None


def test_walking_a_form_leaves_no_item_wrapper_that_outlives_the_item(qtbot):
    page = QWidget()
    qtbot.addWidget(page)
    form = QFormLayout(page)
    for name in "abc":
        form.addRow(name, QLineEdit())
    before = item_wrappers()
    assert len(parts(form)) == 6 and len(items(form)) == 6
    least_height(form, 300)
    assert item_wrappers() == before
    form.itemAt(0)  # what this module avoids: PySide keeps this one as long as the layout lives
    assert item_wrappers() == before + 1
