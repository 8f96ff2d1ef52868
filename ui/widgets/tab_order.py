"""Tab goes through a column of controls in the order a reader sees them.

Qt's Tab order is the order the widgets were made in, not where they sit. A lab's form is made
again for each experiment, after its Run button and device list, and a lab page moves Run under
a scrolled form: Tab went from the last field back to the top of the page, and reached the fields
only after Run. Ordering by the layouts (the order they place their widgets: top to bottom in a
column, left to right in a row) follows the page as it is drawn, whatever a subclass inserted.
"""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLayout, QScrollArea, QWidget

from ui.widgets.layout_parts import parts


def reading_order(root: QWidget) -> list[QWidget]:
    """The widgets under ``root`` that take Tab, in the order ``root``'s layouts place them."""
    found: list[QWidget] = []
    _visit_widget(root, found)
    return [widget for widget in found if widget is not root]


def _visit_widget(widget: QWidget, found: list[QWidget]) -> None:
    if isinstance(widget, QScrollArea):  # what it scrolls is not in a layout of its own
        inner = widget.widget()
        if inner is not None:
            _visit_widget(inner, found)
        return
    layout = widget.layout()
    if layout is not None and layout.count():
        _visit_layout(layout, found)  # a compound editor: its parts (a preset list and its field)
    elif widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
        found.append(widget)


def _visit_layout(layout: QLayout, found: list[QWidget]) -> None:
    for part in parts(layout):  # not by itemAt: see layout_parts
        if isinstance(part, QLayout):
            _visit_layout(part, found)
        else:
            _visit_widget(part, found)


def order_tabs(root: QWidget) -> None:
    """Tab (and Shift+Tab) through ``root``'s controls in their reading order."""
    chain = reading_order(root)
    for before, after in pairwise(chain):
        QWidget.setTabOrder(before, after)
