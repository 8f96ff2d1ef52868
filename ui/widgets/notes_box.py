"""A box of notes shown a whole number of lines at a time: never a line cut mid-glyph.

Every line of the box has one fixed height, that of the tallest line its text can make: Chinese
glyphs come from a fallback font whose lines are taller than the Latin font's, so
``fontMetrics().lineSpacing()`` under-measures a Chinese line and a box sized from it cut its
last line in half. The box is at most ``lines`` such lines tall (fewer if the text is shorter),
scrolls a line per step, and a dragged scroll bar comes to rest on the edge of a line.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent, QTextBlockFormat, QTextCursor, QTextLayout
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

LATIN = "Ág|(y)"  # accents, ascenders and descenders: the least height a line is given


def lines_for(host: QWidget, least: int = 4, height: int | None = None) -> int:
    """How many lines of notes a panel of ``host``'s type, ``height`` tall (its own height by
    default), shows: ``least``, up to 8 on a tall screen (an eighth of the height in lines)."""
    return max(least, min(8, (host.height() if height is None else height) // (8 * host.fontMetrics().height())))


class NotesBox(QTextBrowser):
    """Plain-text notes, selectable, ``lines`` whole lines tall at most; ``setText`` / ``text``."""

    def __init__(self, lines: int = 4, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines = lines
        self._text = ""
        self._line = 0  # the height of every line, measured from the text
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().setDocumentMargin(0)  # the lines start at the top edge, so whole lines fill it
        self.verticalScrollBar().valueChanged.connect(self._snap)

    def line_height(self) -> int:
        """The height every line is given."""
        return self._line

    def _measure_line(self, text: str) -> int:
        """The height of one line holding every character of ``text`` (and tall Latin ones): the
        fonts it falls back to for some characters make it taller than the font's own line."""
        layout = QTextLayout(LATIN + text.replace("\n", " "), self.font())
        layout.beginLayout()
        line = layout.createLine()
        line.setLineWidth(1e9)
        layout.endLayout()
        return math.ceil(line.height())

    def setText(self, text: str) -> None:
        self._text = text
        self._line = self._measure_line(text)
        self.setPlainText(text)
        cursor = QTextCursor(self.document())
        cursor.select(QTextCursor.SelectionType.Document)
        block = QTextBlockFormat()
        block.setLineHeight(self._line, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
        cursor.mergeBlockFormat(block)
        self._fit()

    def text(self) -> str:
        return self._text

    def set_lines(self, lines: int) -> None:
        """Show at most ``lines`` lines."""
        if lines != self.lines:
            self.lines = lines
            self._fit()

    def line_count(self) -> int:
        """Lines the text takes at the box's present width."""
        document = self.document()
        document.documentLayout().documentSize()  # lays the text out at the current width
        count, block = 0, document.begin()
        while block.isValid():
            count += block.layout().lineCount()
            block = block.next()
        return count

    def _fit(self) -> None:
        line = self._line or self._measure_line("")
        shown = max(1, min(self.lines, self.line_count()))
        self.setFixedHeight(shown * line + 2 * self.frameWidth())
        # The range as the new height gives it (a hidden box would keep the range of its old height
        # until the next resize): every position then shows whole lines, the last one included.
        bar, document_height = self.verticalScrollBar(), round(self.document().size().height())
        bar.setRange(0, max(0, document_height - shown * line))
        bar.setPageStep(shown * line)
        bar.setSingleStep(line)

    def _snap(self, value: int) -> None:
        """A scroll position between two lines moves to the nearer line edge."""
        line = max(1, self._line)
        snapped = min(round(value / line) * line, self.verticalScrollBar().maximum())
        if snapped != value:
            self.verticalScrollBar().setValue(snapped)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit()  # another width wraps into another number of lines

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.setText(self._text)  # the line height belongs to the font
