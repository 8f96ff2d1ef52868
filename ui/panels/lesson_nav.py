"""The lesson viewer's top line: the chapter list, previous and next page, the text size, Present."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPushButton,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)

from gpulab.lessons import Chapter
from ui.widgets.flow_layout import FlowBox, group


class ChapterCombo(QComboBox):
    """The chapter list: the full titles when it opens, "Chapter 4" when closed (a title in large
    type would take the line's width, or be cut; the page's own heading says the chapter's title)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.short = ""

    def shown_text(self) -> str:
        """What the closed list shows."""
        return self.short or self.currentText()

    def showPopup(self) -> None:
        view = self.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 8)  # whole titles
        super().showPopup()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.shown_text()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)


class LessonNav(QWidget):
    """Emits ``chapter_chosen(number)``; its buttons are connected by the viewer."""

    chapter_chosen = Signal(int)

    def __init__(self, chapters: Sequence[Chapter], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chapters = tuple(chapters)
        self.chapter_combo = ChapterCombo()
        self.chapter_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.chapter_combo.setMinimumContentsLength(10)  # "Chapter 4"
        for chapter in self.chapters:
            self.chapter_combo.addItem("", chapter.number)
        self.chapter_combo.activated.connect(lambda index: self.chapter_chosen.emit(self.chapter_combo.itemData(index)))
        self.previous_button = QPushButton()
        self.page_label = QLabel()
        self.next_button = QPushButton()
        self.smaller_button = QPushButton()
        self.scale_label = QLabel()
        self.larger_button = QPushButton()
        self.present_button = QPushButton()
        # One line where it fits, wrapping in groups where it does not (large type in a narrow window).
        self.flow = FlowBox()
        self.flow.add(self.chapter_combo, group(self.previous_button, self.page_label, self.next_button),
                      group(self.smaller_button, self.scale_label, self.larger_button), self.present_button)
        row = QVBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.flow)

    def show_place(self, chapter: Chapter, page: int, lang: str, presenting: bool) -> None:
        """The chapter list in ``lang`` with ``chapter`` chosen, "2 / 4", and the buttons' words."""
        for index, each in enumerate(self.chapters):
            self.chapter_combo.setItemText(index, f"{each.number}. {each.title.get(lang)}")
        self.chapter_combo.setCurrentIndex(self.chapters.index(chapter))
        self.chapter_combo.short = self.tr("Chapter %1").replace("%1", str(chapter.number))
        self.chapter_combo.updateGeometry()
        self.page_label.setText(f"{page} / {len(chapter.pages)}")
        self.previous_button.setText(self.tr("◀ Back"))
        self.next_button.setText(self.tr("Next ▶"))
        self.previous_button.setEnabled(page > 1 or chapter is not self.chapters[0])
        self.next_button.setEnabled(page < len(chapter.pages) or chapter is not self.chapters[-1])
        self.smaller_button.setText(self.tr("A−"))
        self.larger_button.setText(self.tr("A+"))
        self.present_button.setText(self.tr("End presenting (Esc)") if presenting else self.tr("Present (F5)"))

    def show_scale(self, scale: float) -> None:
        self.scale_label.setText(f"{round(scale * 100)}%")
