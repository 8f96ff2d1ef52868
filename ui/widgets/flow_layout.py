"""A flow layout: items left to right, wrapping onto the next row when the width runs out.

Qt's own example, plus two things a panel inside a splitter or scroll area needs: an item
wider than the row is shrunk to the row (down to its minimum width), and :class:`FlowBox`
keeps its minimum height equal to the height its rows need at its current width (a splitter
never asks a child for height-for-width, so without that the rows would overlap).
"""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLayout, QLayoutItem, QSizePolicy, QWidget


class FlowLayout(QLayout):
    """Rows of items at their preferred widths; each row as tall as its tallest item."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, row_spacing: int = 4) -> None:
        self._rows_at: dict[int, list[list[tuple[QLayoutItem, int]]]] = {}  # width -> rows, until invalidated
        self._placed: QRect | None = None  # where the items were last placed (nothing changed since)
        super().__init__(parent)
        self.items: list[QLayoutItem] = []
        self.column_gap, self.row_gap = spacing, row_spacing
        self.uniform = False  # every item as wide as the widest: the items line up in columns
        self.setContentsMargins(0, 0, 0, 0)

    def invalidate(self) -> None:
        self._rows_at.clear()
        self._placed = None
        super().invalidate()

    # ............................................................ QLayout's interface
    def addItem(self, item: QLayoutItem) -> None:
        self.items.append(item)
        self.invalidate()

    def count(self) -> int:
        return len(self.items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self.items[index] if 0 <= index < len(self.items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self.items):
            return None
        self.invalidate()
        return self.items.pop(index)

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        if rect != self._placed:  # a relayout elsewhere in the window moves nothing here
            self._arrange(rect, move=True)
            self._placed = QRect(rect)

    def sizeHint(self) -> QSize:
        visible = self._visible()
        margins = self.contentsMargins()
        width = sum(self._hint(i).width() for i in visible) + self.column_gap * max(0, len(visible) - 1)
        height = max((self._hint(i).height() for i in visible), default=0)
        return QSize(width, height).grownBy(margins)

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        return size.grownBy(self.contentsMargins())

    # ............................................................ arranging
    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self.items if not item.isEmpty()]

    def _hint(self, item: QLayoutItem) -> QSize:
        hint = item.sizeHint()
        if self.uniform:
            widest = max((i.sizeHint().width() for i in self._visible()), default=0)
            hint = QSize(widest, hint.height())
        return hint

    def row_count(self, width: int) -> int:
        """How many rows the items take at ``width`` (for tests and for choosing layouts)."""
        rows = self._rows(width - self.contentsMargins().left() - self.contentsMargins().right())
        return len(rows)

    def _rows(self, width: int) -> list[list[tuple[QLayoutItem, int]]]:
        if width not in self._rows_at:
            self._rows_at[width] = self._pack(width)
        return self._rows_at[width]

    def _pack(self, width: int) -> list[list[tuple[QLayoutItem, int]]]:
        rows: list[list[tuple[QLayoutItem, int]]] = []
        used = 0
        for item in self._visible():
            item_width = min(self._hint(item).width(), max(width, item.minimumSize().width()))
            if rows and used + self.column_gap + item_width <= width:
                rows[-1].append((item, item_width))
                used += self.column_gap + item_width
            else:
                rows.append([(item, item_width)])
                used = item_width
        return rows

    def _arrange(self, rect: QRect, move: bool) -> int:
        margins: QMargins = self.contentsMargins()
        inner = rect.marginsRemoved(margins)
        y = inner.y()
        for row in self._rows(inner.width()):
            height = max(self._hint(item).height() for item, _ in row)
            x = inner.x()
            for item, width in row:
                if move:
                    item_height = height if item.expandingDirections() & Qt.Orientation.Vertical else None
                    h = item_height or min(height, max(self._hint(item).height(), item.minimumSize().height()))
                    item.setGeometry(QRect(QPoint(x, y + (height - h) // 2), QSize(width, h)))
                x += width + self.column_gap
            y += height + self.row_gap
        return max(0, y - self.row_gap - inner.y()) + margins.top() + margins.bottom()


class FlowBox(QWidget):
    """A widget holding a :class:`FlowLayout`; its minimum height follows its width."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, row_spacing: int = 4) -> None:
        super().__init__(parent)
        self.flow = FlowLayout(self, spacing, row_spacing)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # as tall as its rows

    def add(self, *widgets: QWidget) -> None:
        for widget in widgets:
            self.flow.addWidget(widget)
        self._fit_height()

    def rows(self) -> int:
        return self.flow.row_count(self.width())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def event(self, event) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # an item's hint changed (new text, new font)
            self._fit_height()
        return handled

    def _fit_height(self) -> None:
        height = self.flow.heightForWidth(max(1, self.width()))
        if height != self.minimumHeight():
            self.setMinimumHeight(height)

    def sizeHint(self) -> QSize:
        return QSize(self.flow.sizeHint().width(), max(self.minimumHeight(), self.flow.sizeHint().height()))


def group(*widgets: QWidget, spacing: int = 4) -> QWidget:
    """Widgets side by side that wrap as one (a label with its field, a row of buttons)."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(spacing)
    for widget in widgets:
        layout.addWidget(widget)
    return box


class WrapLabel(QLabel):
    """A word-wrapped label that asks for the height its text needs at its width.

    Layouts inside splitters and scroll areas ask a widget only for its minimum size, which
    for a wrapped label is one line: long texts were cut off or overlapped the next widget.
    ``min_lines`` keeps room for that many lines even when the text is shorter (no jumping).
    """

    def __init__(
        self, text: str = "", parent: QWidget | None = None, min_lines: int = 1, max_lines: int | None = None
    ) -> None:
        super().__init__(text, parent)
        self.min_lines, self.max_lines = min_lines, max_lines
        self.full_text = text
        self.tip_is_text = False  # the tooltip was set here, to the text cut short
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def set_lines(self, min_lines: int, max_lines: int | None) -> None:
        self.min_lines, self.max_lines = min_lines, max_lines
        self._fit()

    def _text_height(self, text: str, width: int) -> int:
        if self.textFormat() != Qt.TextFormat.PlainText and QtGui.Qt.mightBeRichText(text):
            text = QTextDocumentFragment.fromHtml(text).toPlainText()  # what shows: a link's address does not
        rect = QRect(0, 0, max(1, width), 100_000)
        return self.fontMetrics().boundingRect(rect, int(Qt.TextFlag.TextWordWrap), text).height()

    def lines_height(self, lines: int) -> int:
        """The height ``lines`` lines of this text take as drawn (for a page sharing out its room)."""
        return self._lines_height(lines)

    def _lines_height(self, lines: int) -> int:
        """The height of ``lines`` lines of this text as drawn: taller than lineSpacing with some
        fonts, and taller again with Chinese (its glyphs come from a fallback font)."""
        sample = "Xg中" if any(ord(c) >= 0x2E80 for c in self.full_text) else "Xg"
        return self._text_height("\n".join([sample] * lines), 1000) if lines > 0 else 0

    def _shown_text(self, width: int) -> str:
        """The text, cut short and ended with '…' if it needs more than ``max_lines``."""
        text = self.full_text
        if self.max_lines is None or not text:
            return text
        limit = self._lines_height(self.max_lines)
        if self._text_height(text, width) <= limit:
            return text
        low, high = 0, len(text)
        while low < high:  # the longest start that fits with the ellipsis (by character: Chinese has no spaces)
            mid = (low + high + 1) // 2
            if self._text_height(text[:mid].rstrip() + "…", width) <= limit:
                low = mid
            else:
                high = mid - 1
        return text[:low].rstrip() + "…"

    def needed_height(self, width: int) -> int:
        lines = self._lines_height(self.min_lines)
        shown = self.shown_text()
        return max(lines, self._text_height(shown, width) if shown else 0)

    def _fit(self) -> None:
        width = max(1, self.contentsRect().width())
        shown = self._shown_text(width)
        if shown != super().text():
            super().setText(shown)
        cut = shown != self.full_text
        if cut or self.tip_is_text:  # a text cut short is whole in the tooltip; another tooltip stays
            self.setToolTip(self.full_text if cut else "")
            self.tip_is_text = cut
        height = self.needed_height(width)
        if height != self.minimumHeight():
            self.setMinimumHeight(height)

    def text(self) -> str:
        """The whole text, also when the label shows it cut short."""
        return self.full_text

    def shown_text(self) -> str:
        return super().text()

    def setToolTip(self, tip: str) -> None:
        self.tip_is_text = False
        super().setToolTip(tip)

    def setText(self, text: str) -> None:
        self.full_text = text
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()
