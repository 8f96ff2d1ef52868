"""The lesson viewer: a lesson page's words beside its live lab, page by page, chapter by chapter.

Left (above, on a narrow screen): where we are, the page's title and text, what to try, the facts
with their sources, the big number with its badge, and the page's Run. Right: the lab, the
window's real panel in a compact layout (:mod:`ui.panels.lesson_lab`). The keys a presentation
clicker sends work on the whole window while this page is shown (:mod:`ui.panels.lesson_keys`):
PageDown/PageUp and the arrows turn pages, B or . blacks the screen, F5 starts and Esc ends the
presenter mode (the window full screen in the projector theme, :mod:`ui.presenter`), R runs the
page's preset and T its try-this change; S opens the speaker's notes (:mod:`ui.speaker`).
Ctrl+plus and Ctrl+minus (or the A buttons) scale the text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QFontInfo, QResizeEvent
from PySide6.QtWidgets import QApplication, QBoxLayout, QPushButton, QScrollArea, QVBoxLayout, QWidget

from gpulab import lessons
from ui import i18n
from ui.panels.base import Panel
from ui.panels.lesson_keys import BlackScreen, ClickerKeys
from ui.panels.lesson_lab import LabHost
from ui.panels.lesson_nav import LessonNav
from ui.panels.lesson_text import LessonText
from ui.services import Services
from ui.widgets.big_number import BigNumberView
from ui.widgets.flow_layout import FlowBox

if TYPE_CHECKING:
    from ui.speaker import SpeakerView

SCALES = (0.85, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0)  # the text's size, times the theme's (or the presenter's)
PRESENTER_LEAST_PX = 20  # body text in presenter mode is never smaller than this
PRESENTER_LINES = 36  # presenter mode: the body text is a 36th of the window's height (22 px at 768)
NARROW_PX = 640  # narrower than this, the text goes above the lab
TEXT_SHARE, LAB_SHARE = 2, 3  # side by side: the text's and the lab's stretch


class LessonPanel(Panel):
    """One lesson page at a time: ``open_page(chapter, page)``, ``next_page()``, ``previous_page()``."""

    presenter_requested = Signal(bool)  # the window goes into (or out of) presenter mode

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.chapters = lessons.chapters()  # the lesson files, read when the viewer is first opened
        self.chapter = self.chapters[0]
        self.page = self.chapter.pages[0]
        self.presenting = False
        self.scale_index = SCALES.index(1.0)
        self.numbers: dict[tuple[int, str], object] = {}  # (chapter, page id) -> BigNumber or a reason
        self.running: tuple[int, lessons.Page] | None = None  # the page whose preset is running
        self.speaker: SpeakerView | None = None  # the speaker's notes window, made on the first S
        self._make_widgets()
        self._build_layout()
        self.keys = ClickerKeys(self)
        self.black = BlackScreen(self)
        self.open_page(self.chapter.number, 1)

    def _make_widgets(self) -> None:
        self.nav = LessonNav(self.chapters)
        self.nav.chapter_chosen.connect(lambda number: self.open_page(number, 1))
        self.nav.previous_button.clicked.connect(self.previous_page)
        self.nav.next_button.clicked.connect(self.next_page)
        self.nav.smaller_button.clicked.connect(lambda: self.scale_text(-1))
        self.nav.larger_button.clicked.connect(lambda: self.scale_text(+1))
        self.nav.present_button.clicked.connect(lambda: self.presenter_requested.emit(not self.presenting))
        self.text = LessonText()
        self.number = BigNumberView()
        self.run_button = QPushButton()
        self.run_button.setObjectName("lessonRun")
        self.run_button.clicked.connect(lambda: self.run_page(change=False))
        self.try_button = QPushButton()
        self.try_button.clicked.connect(lambda: self.run_page(change=True))
        self.settings_button = QPushButton()  # the lab's form: folded away in presenter mode
        self.settings_button.setCheckable(True)
        self.settings_button.setChecked(True)
        self.settings_button.toggled.connect(self.show_settings)
        self.lab = LabHost(self.services, self.page_height)
        self.lab.result_ready.connect(self._result)
        self.lab.run_ended.connect(self._run_ended)

    def _build_layout(self) -> None:
        self.text_scroll = QScrollArea()
        self.text_scroll.setWidget(self.text)
        self.text_scroll.setWidgetResizable(True)
        self.text_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.text_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        words = QWidget()
        column = QVBoxLayout(words)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.text_scroll, 1)
        column.addWidget(self.number)
        buttons = FlowBox()  # side by side, or one above the other in a narrow column
        buttons.add(self.run_button, self.try_button, self.settings_button)
        column.addWidget(buttons)
        self.words = words
        self.body = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.body.addWidget(words, TEXT_SHARE)
        self.body.addWidget(self.lab, LAB_SHARE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.nav)
        layout.addLayout(self.body, 1)

    # ------------------------------------------------------------ pages

    def open_page(self, chapter: int, page: int | str = 1) -> None:
        """Show page ``page`` (1-based or its id) of chapter ``chapter``; KeyError for one that does not exist."""
        self.chapter = lessons.chapter(chapter)
        self.page = self.chapter.page(page)
        self.black.hide()
        self.lab.show_page(self.page)
        self.settings_button.setVisible(self.lab.has_settings())
        self._place_parts()
        if (self.chapter.number, self.page.id) not in self.numbers and self.page.recording:
            self.lab.replay(self.page)  # a page with a recording shows it at once, replayed
        self.retranslate()

    def page_index(self) -> int:
        """The page's 1-based number in its chapter."""
        return self.chapter.pages.index(self.page) + 1

    def next_page(self) -> None:
        index = self.page_index()
        if index < len(self.chapter.pages):
            self.open_page(self.chapter.number, index + 1)
        elif self.chapter is not self.chapters[-1]:
            self.open_page(self.chapters[self.chapters.index(self.chapter) + 1].number, 1)

    def previous_page(self) -> None:
        index = self.page_index()
        if index > 1:
            self.open_page(self.chapter.number, index - 1)
        elif self.chapter is not self.chapters[0]:
            before = self.chapters[self.chapters.index(self.chapter) - 1]
            self.open_page(before.number, len(before.pages))

    # ------------------------------------------------------------ running

    def run_page(self, change: bool = False) -> bool:
        """Run the page's preset (with its try-this change when ``change``) on the lab's own Run."""
        if not self.page.is_live or self.running is not None:
            return False
        page = self.page
        self.running = (self.chapter.number, page)
        if not self.lab.run(page, change):
            self.running = None
            return False
        self.numbers.pop((self.chapter.number, page.id), None)
        self._show_number()
        return True

    def _run_ended(self, state: str) -> None:
        if state != "done" and self.running is not None:
            chapter, page = self.running
            self.running = None
            if state == "failed":
                self.numbers[(chapter, page.id)] = self.tr("The run failed, so there is no number; "
                                                           "the message above says why.")  # fmt: skip
            self._show_number()

    def _result(self, result: object) -> None:
        chapter, page = self.running or (self.chapter.number, self.page)
        self.running = None
        try:
            self.numbers[(chapter, page.id)] = lessons.big_number(page, result)  # type: ignore[arg-type]
        except lessons.MissingNumber as exc:
            self.numbers[(chapter, page.id)] = self.tr("This run has no number to show: %1").replace("%1", str(exc))
        self._show_number()

    def _show_number(self) -> None:
        found = self.numbers.get((self.chapter.number, self.page.id))
        if isinstance(found, lessons.BigNumber):
            self.number.show_number(found)
        elif isinstance(found, str):
            self.number.show_text(found)
        elif not self.page.is_live:
            self.number.show_text(self.tr("No number on this page: its lab is still to come."))
        elif self.running is not None and self.running[1] is self.page:
            self.number.show_text(self.tr("Running… the number appears when the run ends."))
        else:
            self.number.show_text(self.tr("Press R (or Run this page) to measure this page's number."))
        self.run_button.setEnabled(self.page.is_live and self.running is None)
        self.try_button.setEnabled(self.run_button.isEnabled() and bool(self.page.try_this and
                                                                       self.page.try_this.change))  # fmt: skip

    # ------------------------------------------------------------ the speaker view

    def toggle_speaker(self) -> None:
        """S: the speaker's notes window opens (on another screen when there is one) or closes."""
        if self.speaker is not None and self.speaker.isVisible():
            self.speaker.hide()
            return
        if self.speaker is None:
            from ui.speaker import SpeakerView  # only for a talk

            self.speaker = SpeakerView()
        self._show_speaker_page()
        self.speaker.open_beside(self.window())

    def next_place(self) -> tuple[lessons.Chapter, lessons.Page] | None:
        """The page after this one (across chapters), None on the last."""
        index = self.page_index()
        if index < len(self.chapter.pages):
            return self.chapter, self.chapter.pages[index]
        if self.chapter is not self.chapters[-1]:
            after = self.chapters[self.chapters.index(self.chapter) + 1]
            return after, after.pages[0]
        return None

    def _show_speaker_page(self) -> None:
        if self.speaker is None:
            return
        lang = "zh" if i18n.current_language() == "zh" else "en"
        after = self.next_place()
        next_title = "" if after is None else after[1].title.get(lang)
        notes = self.page.notes.get(lang) if self.page.notes is not None else ""
        self.speaker.retranslate()
        self.speaker.show_page(self.text.where.text(), self.page.title.get(lang), notes, next_title)

    # ------------------------------------------------------------ presenting

    def set_presenting(self, on: bool) -> None:
        """The window entered (left) presenter mode."""
        self.presenting = on
        self.lab.set_whole_lines(on)  # a room sees no tooltips
        self.settings_button.setChecked(not on)  # the preset fills the form; the picture takes its room
        self.retranslate()

    def show_settings(self, shown: bool) -> None:
        """Show (or fold away) the lab's form beside its picture."""
        self.lab.show_settings(shown)
        self._place_parts()
        self.retranslate()

    def scale_text(self, step: int) -> None:
        """One step larger (+1) or smaller (-1) text, within SCALES."""
        self.scale_index = max(0, min(len(SCALES) - 1, self.scale_index + step))
        self._apply_scale()

    def body_px(self) -> int:
        """The body text's pixel size now: the theme's type (the presenter's, at least 20 px) times the scale."""
        theme_px = QFontInfo(QApplication.font()).pixelSize()
        base = self.window().height() // PRESENTER_LINES if self.presenting else theme_px
        px = round(base * SCALES[self.scale_index])
        return max(px, PRESENTER_LEAST_PX) if self.presenting else px

    def controls_px(self) -> int | None:
        """Presenter mode: the bar's and the page's buttons' type, grown with the window's height as
        the body text is (not with A+ and A-, which would wrap the bar); None out of it (the theme's)."""
        if not self.presenting:
            return None
        return max(QFontInfo(QApplication.font()).pixelSize(), self.window().height() // PRESENTER_LINES)

    def _apply_scale(self) -> None:
        px = self.body_px()
        self.text.scale_to(px)
        self.number.scale_to(px)
        self.nav.show_scale(SCALES[self.scale_index])
        controls = self.controls_px()
        # Each one's own: a button takes the application's type for buttons, not its parent's
        for widget in (*self.nav.findChildren(QWidget), self.run_button, self.try_button, self.settings_button):
            font = QFont()  # no size of its own: the theme's, as its parent's
            if controls is not None:
                font = QFont(widget.font())
                font.setPixelSize(controls)
            if font != widget.font() or controls is None:
                widget.setFont(font)

    # ------------------------------------------------------------ texts and sizes

    def retranslate(self) -> None:
        lang = "zh" if i18n.current_language() == "zh" else "en"
        where = (self.tr("Chapter %1, %4 · page %2 of %3").replace("%1", str(self.chapter.number))
                 .replace("%2", str(self.page_index())).replace("%3", str(len(self.chapter.pages)))
                 .replace("%4", self.chapter.title.get(lang)))  # fmt: skip
        sources = self.tr("Sources:") if self.presenting else self.tr("Source:")
        self.text.show_page(self.page, lang, where, self.tr("Try this:"), sources, self.presenting)
        self.nav.show_place(self.chapter, self.page_index(), lang, self.presenting)
        shown = self.settings_button.isChecked()
        if self.presenting:  # short, so the three fit on one row and leave the text column its height
            self.run_button.setText(self.tr("Run (R)"))
            self.try_button.setText(self.tr("Try this (T)"))
            self.settings_button.setText(self.tr("Hide settings") if shown else self.tr("Settings"))
        else:
            self.run_button.setText(self.tr("Run this page (R)"))
            self.try_button.setText(self.tr("Try the change (T)"))
            self.settings_button.setText(self.tr("Hide the lab's settings") if shown else self.tr("The lab's settings"))
        self.lab.retranslate()
        self._show_speaker_page()
        self.number.retranslate()
        self._show_number()
        self._apply_scale()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._apply_scale()
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_parts()
        self.black.cover()
        if self.presenting:
            self._apply_scale()  # the type follows the window's height

    def _place_parts(self) -> None:
        """Side by side; the text above the lab where the window is narrow or the lab's panel needs
        more than its share of the width (a wide form in large type)."""
        widest = self.lab.currentWidget().minimumSizeHint().width()
        width = self.shown_size().width()
        together = self.words.minimumSizeHint().width() + widest + 2 * self.body.spacing() + 8
        narrow = width < NARROW_PX or widest > width * LAB_SHARE // (TEXT_SHARE + LAB_SHARE) or together > width
        self.body.setDirection(QBoxLayout.Direction.TopToBottom if narrow else QBoxLayout.Direction.LeftToRight)
        self.body.setStretch(0, 1 if narrow else TEXT_SHARE)  # stacked: the lab's picture keeps the height
        self.body.setStretch(1, 3 if narrow else LAB_SHARE)

    def view_resized(self) -> None:
        self._place_parts()

    def pictures(self) -> list[QWidget]:
        return self.lab.pictures()

    def page_height(self) -> int:
        """The height the window shows of this page (the lab's picture gets half of it)."""
        return self.shown_size().height()

    def shutdown(self) -> None:
        self.keys.stop()
        if self.speaker is not None:
            self.speaker.close()
        self.lab.shutdown()
