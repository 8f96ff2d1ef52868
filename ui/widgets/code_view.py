"""The kernel's CUDA C: editable, syntax-highlighted, with the current step's line marked and
errors written in plain words right under the line they are about.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QRect, QRegularExpression, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTextEdit, QWidget

from ui.theme import Theme, current_theme

KEYWORDS = (
    "if else for while do return break continue switch case default goto sizeof struct typedef "
    "const volatile static extern inline unsigned signed void char short int long float double bool "
    "auto true false __restrict__ size_t"
).split()
CUDA_WORDS = (
    "__global__ __device__ __host__ __shared__ __constant__ __forceinline__ __syncthreads "
    "__syncwarp __shfl_sync __shfl_down_sync __shfl_up_sync __shfl_xor_sync __ballot_sync "
    "__any_sync __all_sync atomicAdd atomicSub atomicMax atomicMin atomicExch atomicCAS "
    "threadIdx blockIdx blockDim gridDim warpSize"
).split()

# Colours per theme lightness: (keyword, cuda word, number, string, comment, preprocessor).
LIGHT_SYNTAX = ("#0033b3", "#8b008b", "#1750eb", "#067d17", "#6b6b6b", "#9e5400")
DARK_SYNTAX = ("#7aa6ff", "#f0a3d0", "#8ad4ff", "#9fd68f", "#9a9a9a", "#e6b062")


def _format(colour: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(colour))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


def is_dark(theme: Theme) -> bool:
    return QColor(theme.base).lightness() < 128


ALIGN_COLUMNS = 12  # leading blanks beyond this are alignment (a parameter list), not nesting
ALIGN_SHARE = 0.1  # ... drawn this wide in wrapped lines: the text then starts on the line's first row


class CudaHighlighter(QSyntaxHighlighter):
    """Keywords, CUDA built-ins, numbers, strings, comments (also multi-line) and #directives;
    with ``squeeze`` (wrapped lines) the alignment blanks of deeply indented lines narrower."""

    def __init__(self, document: QTextDocument, theme: Theme) -> None:
        super().__init__(document)
        self.squeeze, self.blank_width = False, 0.0
        self.squeeze_format = QTextCharFormat()
        self.set_theme(theme)

    def set_squeeze(self, squeeze: bool, blank_width: float) -> None:
        """Draw blanks past ``ALIGN_COLUMNS`` at ``ALIGN_SHARE`` of ``blank_width``, or as they are.
        The text is unchanged (columns, edits and the emulator see every blank)."""
        if (squeeze, blank_width) == (self.squeeze, self.blank_width):
            return  # nothing to redo (a rehighlight lays every line out again)
        self.squeeze, self.blank_width = squeeze, blank_width
        self.squeeze_format = QTextCharFormat()
        self.squeeze_format.setFontLetterSpacingType(QFont.SpacingType.AbsoluteSpacing)
        self.squeeze_format.setFontLetterSpacing(-blank_width * (1 - ALIGN_SHARE))
        self.rehighlight()

    def set_theme(self, theme: Theme) -> None:
        keyword, cuda, number, string, comment, directive = DARK_SYNTAX if is_dark(theme) else LIGHT_SYNTAX
        words = lambda ws: QRegularExpression(r"\b(" + "|".join(map(re.escape, ws)) + r")\b")  # noqa: E731
        self.rules = [
            (words(KEYWORDS), _format(keyword, bold=True)),
            (words(CUDA_WORDS), _format(cuda, bold=True)),
            (QRegularExpression(r"\b(0[xX][0-9a-fA-F]+|\d+\.?\d*([eE][-+]?\d+)?[fFuUlL]*)\b"), _format(number)),
            (QRegularExpression(r'"([^"\\]|\\.)*"'), _format(string)),
            (QRegularExpression(r"^\s*#.*$"), _format(directive)),
            (QRegularExpression(r"//[^\n]*"), _format(comment, italic=True)),
        ]
        self.comment_format = _format(comment, italic=True)
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        for pattern, fmt in self.rules:
            it = pattern.globalMatch(text)
            while it.hasNext():
                match = it.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), fmt)
        self._block_comments(text)
        blanks = len(text) - len(text.lstrip(" "))
        if self.squeeze and blanks > ALIGN_COLUMNS and text.strip():
            self.setFormat(ALIGN_COLUMNS, blanks - ALIGN_COLUMNS, self.squeeze_format)

    def _block_comments(self, text: str) -> None:
        self.setCurrentBlockState(0)
        start = 0 if self.previousBlockState() == 1 else text.find("/*")
        while start >= 0:
            end = text.find("*/", start + (0 if self.previousBlockState() == 1 and start == 0 else 2))
            if end < 0:
                self.setCurrentBlockState(1)
                self.setFormat(start, len(text) - start, self.comment_format)
                return
            self.setFormat(start, end + 2 - start, self.comment_format)
            start = text.find("/*", end + 2)


class LineNumbers(QWidget):
    """The gutter: line numbers, with the current step's line and error lines marked."""

    def __init__(self, editor: CodeView) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event) -> None:
        self.editor.paint_gutter(self, event.rect())


class CodeView(QPlainTextEdit):
    """Editable CUDA C with a current-line marker and inline error notes."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = current_theme()
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._fit_font(self.theme)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.highlighter = CudaHighlighter(self.document(), self.theme)
        self.gutter = LineNumbers(self)
        self.current_line: int | None = None
        self.current_columns: tuple[int, int] | None = None
        self.error_line: int | None = None
        self.error_text = ""
        self.error_note = QLabel(self.viewport())
        self.error_note.setObjectName("codeErrorNote")
        self.error_note.setWordWrap(True)
        self.error_note.hide()
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.textChanged.connect(self._text_changed)
        self._loading = False
        self._text = ""  # the text as last set or edited
        self._update_gutter_width()
        self.restyle(self.theme)

    # ............................................................ content
    def set_source(self, source: str) -> None:
        """Replace the text (not an edit: ``edited`` is not emitted)."""
        self._loading = True
        self.setPlainText(source)
        self._text = source
        self._loading = False
        self.clear_error()
        self.set_current(None)

    def source(self) -> str:
        return self.toPlainText()

    def set_wrapping(self, wrap: bool) -> None:
        """Wrap long lines at the view's width (a narrow view in large type): the current line is
        then read whole, from its start, with no sideways scrolling; else they run on sideways."""
        mode = QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap
        self.highlighter.set_squeeze(wrap, self.fontMetrics().horizontalAdvance(" "))
        if mode != self.lineWrapMode():
            self.setLineWrapMode(mode)
            self.horizontalScrollBar().setValue(0)
            if self.current_line is not None:
                self.set_current(self.current_line, self.current_columns)

    def _text_changed(self) -> None:
        # a rehighlight (new theme, wrapping on or off) also signals textChanged: only a change of
        # the text itself is an edit
        text = self.toPlainText()
        if not self._loading and text != self._text:
            self._text = text
            self.clear_error()
            self.edited.emit()

    # ............................................................ markers
    def set_current(self, line: int | None, columns: tuple[int, int] | None = None) -> None:
        """Mark 1-based ``line`` (and the 1-based column span of the step) as executing now."""
        self.current_line, self.current_columns = line, columns
        self._apply_selections()
        if line is not None:
            self._scroll_to_line(line)
            if columns:
                self._scroll_to_columns(line, columns)
        self.gutter.update()

    def show_error(self, line: int | None, text: str) -> None:
        """Mark ``line`` (1-based, None if unknown) and write ``text`` under it."""
        self.error_line, self.error_text = line, text
        self.error_note.setText(text)
        self.error_note.show()
        self._apply_selections()
        self._place_error_note()  # sized first: the scroll leaves room for it under the line
        if line is not None:
            self._scroll_for_note(line)
        self._place_error_note()
        self.gutter.update()

    def clear_error(self) -> None:
        self.error_line, self.error_text = None, ""
        self.error_note.hide()
        self._apply_selections()
        self.gutter.update()

    def _line_selection(self, line: int, colour: QColor) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        selection.format.setBackground(colour)
        selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        cursor = QTextCursor(self.document().findBlockByNumber(line - 1))
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor  # the whole line: every row of it when it wraps
        return selection

    def _span_selection(self, line: int, columns: tuple[int, int], colour: QColor) -> QTextEdit.ExtraSelection:
        block = self.document().findBlockByNumber(line - 1)
        last = max(0, block.length() - 1)  # columns past the line's end (stale source) are clipped
        start = min(max(0, columns[0] - 1), last)
        end = min(max(start + 1, columns[1] - 1), last)
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + start)
        cursor.setPosition(block.position() + end, QTextCursor.MoveMode.KeepAnchor)
        selection = QTextEdit.ExtraSelection()
        selection.format.setBackground(colour)
        selection.cursor = cursor
        return selection

    def _apply_selections(self) -> None:
        selections = []
        lines = self.document().blockCount()
        if self.current_line is not None and 1 <= self.current_line <= lines:
            selections.append(self._line_selection(self.current_line, self.current_colour))
            if self.current_columns and self.current_columns[1] > self.current_columns[0]:
                selections.append(self._span_selection(self.current_line, self.current_columns, self.span_colour))
        if self.error_line is not None and 1 <= self.error_line <= lines:
            selections.append(self._line_selection(self.error_line, self.error_colour))
        self.setExtraSelections(selections)

    def highlighted_lines(self) -> list[int]:
        """1-based lines with a full-width marker (current step first, then an error)."""
        return [
            s.cursor.blockNumber() + 1
            for s in self.extraSelections()
            if s.format.property(QTextFormat.Property.FullWidthSelection)
        ]

    def _scroll_to_line(self, line: int) -> None:
        block = self.document().findBlockByNumber(line - 1)
        if not block.isValid():
            return
        first = self.verticalScrollBar().value()  # in rows: a wrapped line takes more than one
        visible = max(1, self.viewport().height() // max(1, self.fontMetrics().lineSpacing()))
        top, rows = block.firstLineNumber(), max(1, block.lineCount())
        if not (first <= top and top + rows <= first + visible - 2):
            self.verticalScrollBar().setValue(max(0, top - visible // 3))

    def _scroll_for_note(self, line: int) -> None:
        """Show ``line`` with its note below it (a line or two above for context), moving
        the view only when they are not both in view already."""
        spacing = max(1, self.fontMetrics().lineSpacing())
        visible = max(1, self.viewport().height() // spacing)
        note_lines = -(-self.error_note.height() // spacing)
        block = self.document().findBlockByNumber(line - 1)
        top = block.firstLineNumber() if block.isValid() else line - 1  # in rows (wrapped lines)
        end = top + max(1, block.lineCount() if block.isValid() else 1)
        first = self.verticalScrollBar().value()
        if first <= top and end + note_lines <= first + visible:
            return
        above = max(0, min(2, visible - note_lines - (end - top)))
        self.verticalScrollBar().setValue(max(0, top - above))

    def _scroll_to_columns(self, line: int, columns: tuple[int, int]) -> None:
        """Scroll sideways so the step's span starts in view (a narrow view in large type cuts long lines)."""
        block = self.document().findBlockByNumber(line - 1)
        if not block.isValid():
            return
        bar = self.horizontalScrollBar()
        if self.lineWrapMode() != QPlainTextEdit.LineWrapMode.NoWrap:
            bar.setValue(0)  # wrapped: every line is read from its start
            return
        last = max(0, block.length() - 1)
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + min(max(0, columns[0] - 1), last))
        start = self.cursorRect(cursor).left() + bar.value()
        width, margin = self.viewport().width(), 2 * self.fontMetrics().horizontalAdvance("M")
        if start + 4 * margin <= width:
            bar.setValue(0)  # the line from its start, indentation and all
        elif not bar.value() <= start <= bar.value() + width - 4 * margin:
            bar.setValue(max(0, start - margin))

    def span_visible(self) -> bool:
        """Whether the start of the current step's span is inside the view (for tests)."""
        if not self.current_line or not self.current_columns:
            return True
        block = self.document().findBlockByNumber(self.current_line - 1)
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + min(max(0, self.current_columns[0] - 1), max(0, block.length() - 1)))
        x = self.cursorRect(cursor).left()
        return 0 <= x < self.viewport().width()

    # ............................................................ gutter and note geometry
    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def _update_gutter_width(self) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())
        self._place_error_note()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.current_line is not None:  # the room changed (and wrapped lines with it)
            self._scroll_to_line(self.current_line)
            if self.current_columns:
                self._scroll_to_columns(self.current_line, self.current_columns)
        rect = self.contentsRect()
        self.gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(), rect.height()))
        self._place_error_note()

    def _place_error_note(self) -> None:
        if not self.error_note.isVisible():
            return
        width = max(120, self.viewport().width() - 8)
        self.error_note.setFixedWidth(width)
        self.error_note.adjustSize()
        y = 4
        if self.error_line is not None:
            block = self.document().findBlockByNumber(self.error_line - 1)
            if block.isValid():
                geometry = self.blockBoundingGeometry(block).translated(self.contentOffset())
                y = int(geometry.bottom()) + 1
                if geometry.bottom() < 0 or geometry.top() > self.viewport().height():
                    y = 4  # the line is scrolled away: the note stays in view at the top
                # else below its line, never over it (in a short view it runs past the bottom edge)
        self.error_note.move(4, max(0, y))

    def paint_gutter(self, gutter: QWidget, rect: QRect) -> None:
        painter = QPainter(gutter)
        painter.fillRect(rect, self.gutter_colour)
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        while block.isValid() and top <= rect.bottom():
            number = block.blockNumber() + 1
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= rect.top():
                colour = self.muted_colour
                if number == self.error_line:
                    painter.fillRect(0, top, gutter.width(), bottom - top, self.error_colour)
                    colour = self.text_colour
                elif number == self.current_line:
                    painter.fillRect(0, top, gutter.width(), bottom - top, self.current_colour)
                    colour = self.text_colour
                painter.setPen(colour)
                painter.drawText(0, top, gutter.width() - 6, height, Qt.AlignmentFlag.AlignRight, str(number))
            block = block.next()
            top = bottom
        painter.end()

    # ............................................................ looks
    def _fit_font(self, theme: Theme) -> None:
        """The theme's type size (the projector's large type when it is chosen at run time too)."""
        font = self.font()
        if font.pointSize() != max(9, theme.font_pt):
            font.setPointSize(max(9, theme.font_pt))
            self.setFont(font)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))

    def restyle(self, theme: Theme) -> None:
        self.theme = theme
        # After the theme's change has reached every widget: a font set while the application's
        # palette or font is still being handed out has crashed Qt.
        QTimer.singleShot(0, self, lambda: self._fit_font(self.theme))
        dark = is_dark(theme)
        self.current_colour = QColor("#3d5a80" if dark else "#cfe3ff")
        self.span_colour = QColor("#58719a" if dark else "#9cc3ff")
        self.error_colour = QColor("#6b2b2b" if dark else "#ffd6d6")
        self.gutter_colour = QColor(theme.window)
        self.muted_colour = QColor(theme.muted)
        self.text_colour = QColor(theme.text)
        self.highlighter.set_theme(theme)
        note_bg, note_fg = ("#7a1f1f", "#ffffff") if dark else ("#fff0f0", "#8b0000")
        self.error_note.setStyleSheet(
            f"QLabel#codeErrorNote {{ background: {note_bg}; color: {note_fg}; border: 1px solid #b00020;"
            " border-radius: 4px; padding: 3px 6px; }"
        )
        self._apply_selections()
        self.gutter.update()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._update_gutter_width()
        super().changeEvent(event)
