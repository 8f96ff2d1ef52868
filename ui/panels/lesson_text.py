"""A lesson page's words: its title, its text, what to try, and its facts with their sources.

Every text is written out in the page's language (a lesson file holds Chinese and English side
by side); sources are shown under their facts, not in tooltips, so a projector shows them too.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from gpulab.lessons import Page

TITLE_SCALE = 1.35  # the page title, times the body text


def _wrapping(name: str = "") -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    label.setOpenExternalLinks(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # wrap at the column's width
    if name:
        label.setObjectName(name)
    return label


class LessonText(QWidget):
    """``show_page(page, lang, where)``; ``scale_to(px)`` sets the body text's pixel size."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.where = QLabel()  # "Chapter 2 · page 3 of 4"
        self.where.setWordWrap(True)
        self.where.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title = _wrapping("lessonTitle")
        self.text = _wrapping("lessonText")
        self.try_this = _wrapping("lessonTry")
        self.facts = _wrapping("lessonFacts")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        for widget in (self.where, self.title, self.text, self.try_this, self.facts):
            column.addWidget(widget)
        column.addStretch(1)

    def scale_to(self, body_px: int) -> None:
        sizes = ((self.where, round(0.8 * body_px), False), (self.title, round(TITLE_SCALE * body_px), True),
                 (self.text, body_px, False), (self.try_this, body_px, False),
                 (self.facts, round(0.85 * body_px), False))
        for label, px, bold in sizes:
            font = label.font()
            font.setPixelSize(max(1, px))
            font.setBold(bold)
            label.setFont(font)

    def show_page(self, page: Page, lang: str, where: str, try_heading: str, sources_heading: str) -> None:
        self.where.setText(where)
        self.title.setText(html.escape(page.title.get(lang)))
        self.text.setText(html.escape(page.text.get(lang)))
        if page.try_this is not None:
            self.try_this.setText(f"<b>{html.escape(try_heading)}</b> {html.escape(page.try_this.text.get(lang))}")
        self.try_this.setVisible(page.try_this is not None)
        self.facts.setText(self._facts_html(page, lang, sources_heading))
        self.facts.setVisible(bool(page.facts))

    @staticmethod
    def _facts_html(page: Page, lang: str, heading: str) -> str:
        items = []
        for fact in page.facts:
            source = html.escape(fact.source.cite)
            if fact.source.url:
                source = f'<a href="{html.escape(fact.source.url)}">{source}</a>'
            items.append(f"<li>{html.escape(fact.text.get(lang))}<br/><i>{heading} {source}</i></li>")
        return f"<ul style='margin-left:0px; -qt-list-indent:1'>{''.join(items)}</ul>" if items else ""
