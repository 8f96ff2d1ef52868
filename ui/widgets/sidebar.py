"""The panel list on the left: panels grouped under section headings.

Headings (Basics, Inside a GPU, Memory, ...) are disabled rows, so a click on one or the arrow
keys never land there; each panel row carries the panel's registry name, which is
what the window and the settings use.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

NAME_ROLE = Qt.ItemDataRole.UserRole
HEADING_ROLE = Qt.ItemDataRole.UserRole + 1
WRAP = int(Qt.TextFlag.TextWordWrap)

# One section: (section key, heading text, [(panel name, panel title), ...]).
Section = tuple[str, str, Sequence[tuple[str, str]]]


class Sidebar(QListWidget):
    """Emits ``panel_chosen(name)`` when the current panel row changes."""

    panel_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setWordWrap(True)  # a title wider than a narrow list takes the row's second line
        self.currentItemChanged.connect(self._current_changed)

    def set_sections(self, sections: Sequence[Section]) -> None:
        """Fill the list; sections with no panel are left out (they have nothing to open)."""
        current = self.current_name()
        self.blockSignals(True)
        self.clear()
        for key, heading, panels in sections:
            if not panels:
                continue
            self.addItem(_heading_item(key, heading))
            for name, title in panels:
                item = QListWidgetItem(title)
                item.setData(NAME_ROLE, name)
                self.addItem(item)
        self.blockSignals(False)
        if current:
            self.select(current)
        self.fit()

    def retitle(self, headings: dict[str, str], titles: dict[str, str]) -> None:
        """New texts for headings (by section key) and panels (by name), e.g. after a language switch."""
        for row in range(self.count()):
            item = self.item(row)
            heading = item.data(HEADING_ROLE)
            name = item.data(NAME_ROLE)
            if heading in headings:
                item.setText(headings[heading])
            elif name in titles:
                item.setText(titles[name])
        self.fit()

    def panel_item(self, name: str) -> QListWidgetItem | None:
        return next((self.item(r) for r in range(self.count()) if self.item(r).data(NAME_ROLE) == name), None)

    def heading_items(self) -> list[QListWidgetItem]:
        return [self.item(r) for r in range(self.count()) if self.item(r).data(HEADING_ROLE)]

    def current_name(self) -> str | None:
        item = self.currentItem()
        return item.data(NAME_ROLE) if item is not None else None

    def select(self, name: str) -> bool:
        """Make panel ``name`` the current row; False when no row has that name."""
        item = self.panel_item(name)
        if item is None:
            return False
        self.setCurrentItem(item)
        return True

    def fit(self, max_width: int = 280) -> None:
        """Rows two lines tall and the list as wide as its longest title, in the current type size;
        no wider than ``max_width`` (a small window in large type), long titles then wrap onto the
        row's second line (never narrower than a title's longest word)."""
        metrics = self.fontMetrics()
        texts = [self.item(row).text() for row in range(self.count())]
        width = max((metrics.horizontalAdvance(t) for t in texts), default=0) + 48
        word = max((metrics.horizontalAdvance(w) for t in texts for w in t.split()), default=0) + 40
        wraps = width > max_width
        list_width = min(max(max(word, max_width) if wraps else width, 120), 280)
        for row in range(self.count()):
            item = self.item(row)
            heading = bool(item.data(HEADING_ROLE))
            text_height = metrics.boundingRect(QRect(0, 0, list_width - 40, 10_000), WRAP, item.text()).height()
            row_height = max(2 * metrics.height(), text_height + metrics.height() // 2)  # a wrapped title whole
            item.setSizeHint(QSize(0, round(row_height * (1.1 if heading else 1.0))))
        self.setFixedWidth(list_width)

    def _current_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is not None and current.data(NAME_ROLE):
            self.panel_chosen.emit(current.data(NAME_ROLE))


def _heading_item(key: str, text: str) -> QListWidgetItem:
    """A section heading: bold and never current. Disabled, so clicks and arrow keys pass over it;
    the style sheet draws disabled sidebar rows in the full text colour (legible on a projector)."""
    item = QListWidgetItem(text)
    item.setFlags(Qt.ItemFlag.NoItemFlags)
    item.setData(HEADING_ROLE, key)
    font = item.font()
    font.setBold(True)
    item.setFont(font)
    item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
    return item
