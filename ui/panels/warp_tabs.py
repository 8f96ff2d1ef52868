"""The warp visualizer's splits: code | lanes side by side, above a tab area that gives the
code the room on a small screen and opens on a click; on a large screen the tabs move under
the lanes, and the code has the whole height."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget
from shiboken6 import isValid

from ui.widgets.layout_parts import part_at

# A host at least this wide and tall (pixels) is "large": the lanes need a fraction of the right
# column's height there, so the tabs fill the rest of it (1920 x 1080 in any theme; not 1366 x 768).
LARGE_PX = (1400, 850)
CODE_SHARE = 0.72  # beside the tabs, the code column takes up to this much of the width
COMPACT_TABS_SHARE = 0.46  # compact: the tabs beside the code take this much of the width
OPEN_TAB_PX, OPEN_TAB_LINES = 200, 8  # a tab opened by a click is at least this tall (the bar included)


class TabArea(QObject):
    """Builds ``upper`` (``left`` | ``right``) above ``tabs`` in ``splitter`` and shares the
    host's room between them.

    Until the user drags a splitter the right column gets half the width (or its minimum) and
    the tabs a third of the height, or only their bar in large type on a small screen; a click
    on a tab of a squeezed area opens it in place (the parts above give up room), a second
    closes it. On a large host the tabs stand in
    the right column under ``right`` instead (``beside``), and the code gets the full height.
    """

    def __init__(
        self, host: QWidget, left: QWidget, right: QWidget, tabs: QTabWidget, below: QWidget | None = None
    ) -> None:
        super().__init__(host)
        self.host, self.tabs = host, tabs
        self.right = right
        self.beside = False  # the tabs stand under the lanes, not under code | lanes
        self.left_wants: Callable[[], int] | None = None  # the width the left column's content needs
        self.upper = QSplitter(Qt.Orientation.Horizontal)
        self.upper.addWidget(left)
        self.upper.addWidget(right)
        self.upper.setChildrenCollapsible(False)
        self.upper.setStretchFactor(0, 5)
        self.upper.setStretchFactor(1, 6)
        self.top: QWidget = self.upper  # the splitter's first part: the columns (and ``below`` them)
        if below is not None:
            self.top = QWidget()
            column = QVBoxLayout(self.top)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(3)
            column.addWidget(self.upper, 1)
            column.addWidget(below)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.top)
        self.splitter.addWidget(tabs)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.pages = tabs.findChild(QStackedWidget)  # the tab pages under the bar
        self.dragged = False  # the user moved a splitter: sizes are theirs from now on
        self.opened = False  # a click opened a tab of the squeezed area: it keeps its room
        self.tab_opened: Callable[[bool], None] | None = None  # told when a tab opens or closes
        self.splitter.splitterMoved.connect(self._splitter_dragged)
        self.upper.splitterMoved.connect(self._splitter_dragged)
        tabs.tabBarClicked.connect(self.open_tab)
        tabs.installEventFilter(self)
        self.upper.installEventFilter(self)
        right.installEventFilter(self)
        self.compact = False

    def _line(self) -> int:
        return self.host.fontMetrics().height()

    def fit_to_type(self) -> None:
        """The tab area's smallest height is its bar in the current type size (an open tab's
        height while one is open)."""
        bar = self.tabs.tabBar().sizeHint().height() + 2
        self.tabs.setMinimumHeight(self.open_height() if self.opened else bar)
        self.upper.setMinimumHeight(0)

    def _splitter_dragged(self, *_args) -> None:
        self.dragged = True
        self.show_pages()

    def show_pages(self) -> None:
        """A tab area squeezed to its bar shows the bar alone, not a sliver of the page."""
        if self.pages is not None:
            room = self.tabs.height() - self.tabs.tabBar().sizeHint().height()
            self.pages.setVisible(room >= 4 * self._line())

    def is_large(self) -> bool:
        return self.host.width() >= LARGE_PX[0] and self.host.height() >= LARGE_PX[1]

    def place_tabs(self, beside: bool) -> None:
        """The tabs under the lanes in the right column (``beside``), or under both columns."""
        if beside == self.beside or (beside and self.right.layout() is None):
            return  # a right column without a layout has no room to hold them
        self.beside = beside
        if beside:
            first = part_at(self.right.layout(), 0)  # not itemAt: see layout_parts
            after = 1 if isinstance(first, QWidget) else 0  # after the lanes, if there
            self.right.layout().insertWidget(after, self.tabs, 3)  # the rest of the column
        else:
            self.splitter.addWidget(self.tabs)
            self.splitter.setStretchFactor(1, 2)
        self.tabs.show()

    def share_height(self, compact: bool) -> None:
        """The tabs get a third of the height, or what the upper part (at its minimum) leaves;
        On a large host, or ``compact`` (large type on a small screen: the host has moved what
        stood in the right column away), they go in the right column, beside the code, and the
        code column has the whole height."""
        if self.dragged:
            return
        self.compact = compact
        self.place_tabs(compact or self.is_large())
        self._share_width()
        if self.beside:
            self.show_pages()
            return
        total = self.splitter.height() - self.splitter.handleWidth()
        share = total - self.tabs.minimumHeight() if compact else round(total * 0.68)
        if compact and self.opened:  # an opened tab gets all the parts above can give up
            share = 0
        upper = max(self.top.minimumSizeHint().height(), share)
        self.splitter.setSizes([upper, max(0, total - upper)])
        self.show_pages()

    def _share_width(self) -> None:
        """Half the width for the right column, or (compact) ``COMPACT_TABS_SHARE`` of it, or
        (beside) what the code's longest line leaves: the code gets the rest."""
        if self.dragged or not isValid(self.upper):
            return
        width = self.upper.width() - self.upper.handleWidth()
        least = self.upper.widget(1).minimumSizeHint().width()
        right = max(least, round(width * COMPACT_TABS_SHARE) if self.compact else width // 2)
        if self.compact:  # every tab on the bar: none behind the bar's scroll arrows
            right = min(max(right, self.tabs.tabBar().sizeHint().width() + 4), width * 2 // 3)
        if self.beside and not self.compact and self.left_wants is not None:  # the code unwrapped if it can, up to 72 %
            right = max(least, width - min(self.left_wants(), round(width * CODE_SHARE)))
        self.upper.setSizes([max(0, width - right), right])

    def open_tab(self, index: int) -> None:
        """A click on a tab of a squeezed tab area opens it at least ``OPEN_TAB_LINES`` lines
        (and ``OPEN_TAB_PX``) tall, in place: the host is told (``tab_opened``) so that the parts
        above can give up their room, and the splitter moves. A click on the open tab closes it."""
        if self.beside:
            return  # a tab under the lanes has its room already
        if self.opened and index == self.tabs.currentIndex():
            self._set_open(False)
            return
        if self.opened or len(self.splitter.sizes()) != 2 or self.splitter.sizes()[1] >= self.open_height():
            return  # open already, or the tab has the room
        self._set_open(True)

    def close_tab(self) -> None:
        """Back to the bar alone (the host gets its room back)."""
        if self.opened:
            self._set_open(False)

    def open_height(self) -> int:
        return max(OPEN_TAB_PX, OPEN_TAB_LINES * self._line())

    def _set_open(self, opened: bool) -> None:
        self.opened = opened
        if self.tab_opened is not None:
            self.tab_opened(opened)
        self.fit_to_type()
        if self.dragged:  # the user's sizes: only make the room the tab needs
            total = sum(self.splitter.sizes())
            tabs = max(self.splitter.sizes()[1], self.tabs.minimumHeight())
            self.splitter.setSizes([total - tabs, tabs])
        else:
            self.share_height(self.compact)
            QTimer.singleShot(0, self, lambda: self.share_height(self.compact))  # with the host's new least sizes
        QTimer.singleShot(0, self.show_pages)  # once the splitter has moved

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tabs and event.type() == QEvent.Type.Resize:
            self.show_pages()
        elif (
            (watched is self.upper and event.type() == QEvent.Type.Resize)
            or (watched is self.upper.widget(1) and event.type() == QEvent.Type.LayoutRequest)  # its least width
        ) and not self.dragged:
            QTimer.singleShot(0, self._share_width)  # once the splitter has placed them: the final width
        return super().eventFilter(watched, event)
