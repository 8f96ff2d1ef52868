"""What a panel is: a widget with a provenance, re-translated when the language changes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Signal
from PySide6.QtWidgets import QBoxLayout, QLayout, QWidget

from ui.services import Services
from ui.widgets.layout_parts import items as layout_items


class Panel(QWidget):
    """Base of every panel. Subclasses build widgets, then set texts in ``retranslate()``."""

    provenance_changed = Signal(str)

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.provenance = ""

    def set_provenance(self, kind: str) -> None:
        """Tell the window what kind of numbers this panel now shows."""
        self.provenance = kind
        self.provenance_changed.emit(kind)

    def shutdown(self) -> None:
        """Stop the timers and threads this panel started; called when the window closes."""

    def retranslate(self) -> None:
        """Set every user-visible text; called once built and on each language change."""

    def shown_size(self) -> QSize:
        """What the window shows of this page (its scroll area's view); the panel's own size when
        it is not in a window. Sizes shared from this never ratchet up: the page itself grows with
        its minimum, and a share of it would grow with it."""
        shown = self.parentWidget()
        return shown.size() if shown is not None else self.size()

    def view_resized(self) -> None:
        """The window's view of this page changed size (the page itself may not have: held at its
        minimum, it is not resized). A page that sizes its parts from the view does so here."""

    def heightForWidth(self, width: int) -> int:
        # A word-wrapped label (a heading, a caption) makes the layout height-for-width, and the
        # window's resizable scroll area then makes the page as tall as its *preferred* height for
        # the width: every plot at its preferred size, the page scrolling on a 1024x768 screen
        # though each part could shrink. The page asks for the least height that shows its
        # wrapped lines whole instead; the plots share what the window has beyond that.
        layout = self.layout()
        if layout is None or not layout.hasHeightForWidth():
            return super().heightForWidth(width)
        return least_height(layout, width)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


def least_height(layout: QLayout, width: int) -> int:
    """The height ``layout`` needs at ``width``: its wrapped parts at their height for the width,
    the rest at their minimum (a column's parts added up, a row's tallest)."""
    margins = layout.contentsMargins()
    inner = max(1, width - margins.left() - margins.right())
    shown = [item for item in layout_items(layout) if not item.isEmpty()]  # not itemAt: see layout_parts
    column = isinstance(layout, QBoxLayout) and layout.direction() in (
        QBoxLayout.Direction.TopToBottom, QBoxLayout.Direction.BottomToTop)  # fmt: skip
    # In a row each part wraps at the width the row gave it (the whole width before the first layout).
    heights = [_item_height(item, inner if column or item.geometry().width() <= 0 else item.geometry().width())
               for item in shown]  # fmt: skip
    if not heights:
        return margins.top() + margins.bottom()
    total = sum(heights) + max(0, layout.spacing()) * (len(heights) - 1) if column else max(heights)
    return total + margins.top() + margins.bottom()


def _item_height(item, width: int) -> int:
    inner = item.layout() or (item.widget().layout() if item.widget() is not None else None)
    if isinstance(inner, QBoxLayout) and item.hasHeightForWidth():
        return max(least_height(inner, width), item.minimumSize().height())  # a nested column or row
    if item.hasHeightForWidth():
        return max(item.heightForWidth(width), item.minimumSize().height())
    return item.minimumSize().height()
