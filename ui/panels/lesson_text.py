"""A lesson page's words: its title, its text, what to try, and its facts with their sources.

Every text is written out in the page's language (a lesson file holds Chinese and English side
by side); sources are shown under their facts, not in tooltips, so a projector shows them too.
In presenter mode (``compact``) the facts take less of a 1024x768 screen: each sentence ends with
its source's number, and one smaller "Sources" paragraph under them gives the numbered citations
(a source cited twice once); the chapter line goes, for the bar above says the chapter and page.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from gpulab.lessons import Fact, Page

TITLE_SCALE = 1.35  # the page title, times the body text
FACTS_SCALE = 0.85  # the facts, times the body text
SOURCES_SCALE = 0.75  # presenter mode's numbered citations, times the body text: to be found, not read aloud


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
        self.sources = _wrapping("lessonSources")  # presenter mode: the facts' numbered citations
        self.compact = False
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        for widget in (self.where, self.title, self.text, self.try_this, self.facts, self.sources):
            column.addWidget(widget)
        column.addStretch(1)

    def scale_to(self, body_px: int) -> None:
        sizes = ((self.where, round(0.8 * body_px), False), (self.title, round(TITLE_SCALE * body_px), True),
                 (self.text, body_px, False), (self.try_this, body_px, False),
                 (self.facts, round(FACTS_SCALE * body_px), False), (self.sources, round(SOURCES_SCALE * body_px),
                                                                     False))  # fmt: skip
        for label, px, bold in sizes:
            font = label.font()
            font.setPixelSize(max(1, px))
            font.setBold(bold)
            label.setFont(font)

    def show_page(self, page: Page, lang: str, where: str, try_heading: str, sources_heading: str,
                  compact: bool = False) -> None:  # fmt: skip
        """``sources_heading``: "Source:" under each fact, or (``compact``) "Sources:" before the list."""
        self.compact = compact
        self.where.setText(where)
        self.where.setVisible(not compact)
        self.title.setText(html.escape(page.title.get(lang)))
        self.text.setText(html.escape(page.text.get(lang)))
        if page.try_this is not None:
            self.try_this.setText(f"<b>{html.escape(try_heading)}</b> {html.escape(page.try_this.text.get(lang))}")
        self.try_this.setVisible(page.try_this is not None)
        if compact:
            facts, sources = self._compact_html(page, lang, sources_heading)
        else:
            facts, sources = self._facts_html(page, lang, sources_heading), ""
        self.facts.setText(facts)
        self.facts.setVisible(bool(page.facts))
        self.sources.setText(sources)
        self.sources.setVisible(bool(sources))

    @staticmethod
    def _source_html(fact: Fact) -> str:
        source = html.escape(fact.source.cite)
        return f'<a href="{html.escape(fact.source.url)}">{source}</a>' if fact.source.url else source

    @staticmethod
    def _facts_html(page: Page, lang: str, heading: str) -> str:
        items = [f"<li>{html.escape(fact.text.get(lang))}<br/><i>{heading} {LessonText._source_html(fact)}</i></li>"
                 for fact in page.facts]  # fmt: skip
        return f"<ul style='margin-left:0px; -qt-list-indent:1'>{''.join(items)}</ul>" if items else ""

    @staticmethod
    def _compact_html(page: Page, lang: str, heading: str) -> tuple[str, str]:
        """The facts, each ending in its source's number ([1]), and the numbered sources."""
        numbers: dict[tuple[str, str], int] = {}
        cited = []
        items = []
        for fact in page.facts:
            key = (fact.source.cite, fact.source.url)
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                cited.append(f"[{numbers[key]}] {LessonText._source_html(fact)}")
            items.append(f"<li>{html.escape(fact.text.get(lang))} [{numbers[key]}]</li>")
        if not items:
            return "", ""
        facts = f"<ul style='margin-left:0px; -qt-list-indent:1'>{''.join(items)}</ul>"
        return facts, f"<i>{html.escape(heading)} {'; '.join(cited)}</i>"
