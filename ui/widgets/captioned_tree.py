"""A lab's table beside its chart: a caption over a flat list (:class:`CaptionedTree`), and the
splitter that puts it beside the chart or under it (:class:`ChartAndTable`).

The roofline's verdicts and the precision lab's formats are both "one row per thing the chart
shows", read next to the chart on a wide screen and under it on a narrow one or in projector type.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHeaderView, QLabel, QSplitter, QTreeWidget, QVBoxLayout, QWidget


class CaptionedTree(QWidget):
    """A wrapping caption over a flat list of ``columns`` columns (no tree decorations)."""

    def __init__(self, columns: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(columns)
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.tree, 1)

    def rows(self) -> list[list[str]]:
        """The rows as shown (for tests and scripts)."""
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [[item.text(c) for c in range(self.columns)] for item in items if item is not None]


class ChartAndTable(QSplitter):
    """The chart and its table side by side where both keep room, the table under the chart when
    the splitter is narrower than ``least_chars`` characters of the current type.

    ``table_width()`` and ``table_height(total)`` say how much the table wants beside and under
    the chart; ``on_narrow`` runs after the table goes under (the panel shortens its notes)."""

    def __init__(self, chart: QWidget, table: QWidget, least_chars: int, table_width: Callable[[int], int],
                 table_height: Callable[[int], int], on_narrow: Callable[[], None]) -> None:  # fmt: skip
        super().__init__(Qt.Orientation.Horizontal)
        self.least_chars = least_chars
        self.table_width = table_width
        self.table_height = table_height
        self.on_narrow = on_narrow
        self.addWidget(chart)
        self.addWidget(table)

    @property
    def narrow(self) -> bool:
        return self.width() < self.least_chars * max(1, self.fontMetrics().averageCharWidth())

    def arrange(self) -> None:
        narrow = self.narrow
        self.setOrientation(Qt.Orientation.Vertical if narrow else Qt.Orientation.Horizontal)
        total = self.height() if narrow else self.width()
        wanted = self.table_height(total) if narrow else self.table_width(total)
        self.setSizes([max(total - wanted, 1), wanted])
        if narrow:
            self.on_narrow()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.arrange()
