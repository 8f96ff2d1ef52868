"""A layout's widgets and nested layouts, in their order, without wrapping its items.

``QLayout.itemAt`` hands Python a wrapper of the layout's item, and PySide keeps that wrapper as
long as the layout lives. When Qt deletes the item (a form made again, a widget deleted), the
wrapper stays registered under the item's old address, and the next object Qt makes there and
Python asks for comes back as that stale wrapper: an axis title's text document came back as a
``QWidgetItem`` (AttributeError: no 'setDefaultTextOption') once Tab order walked a lab's form
this way. Asking by ``indexOf`` returns numbers, and a widget's own ``QWidgetItem`` made here is
Python's and goes with it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget, QWidgetItem


def _placed(layout: QLayout) -> list[tuple[int, QWidget | QLayout]]:
    """(index, part) of every widget and nested layout ``layout`` places, by index (spacers left out)."""
    owner = layout.parentWidget()
    children = owner.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly) if owner else []
    nested = [child for child in layout.children() if isinstance(child, QLayout)]
    placed = [(layout.indexOf(part), part) for part in [*children, *nested]]
    return sorted(((index, part) for index, part in placed if index >= 0), key=lambda pair: pair[0])


def parts(layout: QLayout) -> list[QWidget | QLayout]:
    """The widgets and nested layouts ``layout`` places, in its order (spacers left out)."""
    return [part for _index, part in _placed(layout)]


def widgets(layout: QLayout) -> list[QWidget]:
    """The widgets ``layout`` places itself (not those of its nested layouts), in its order."""
    return [part for part in parts(layout) if isinstance(part, QWidget)]


def items(layout: QLayout) -> list[QLayoutItem]:
    """``parts`` as layout items, for what only an item answers (its smart minimum size, whether
    it is empty): a nested layout is one; a widget gets an item of its own, owned here."""
    return [QWidgetItem(part) if isinstance(part, QWidget) else part for part in parts(layout)]


def part_at(layout: QLayout, index: int) -> QWidget | QLayout | None:
    """The widget or nested layout at ``index`` of ``layout`` (None for a spacer or past the end)."""
    return next((part for at, part in _placed(layout) if at == index), None)
