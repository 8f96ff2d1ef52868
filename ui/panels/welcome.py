"""The first page: the map of the lesson, a start button, the labs by chapter, the device in one line.

The lesson's story in three parts (one GPU's bottlenecks, squeezing one GPU, ten thousand GPUs),
each chapter a button that opens it in the lesson viewer (the same pages as the sidebar's
Lesson viewer shows), under it the labs its pages run. The lesson files are read when this page
is built, after the window's first paint; no lab is imported (a lab is named by its catalogue title).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from gpulab import catalogue, lessons
from ui import i18n
from ui.device_text import device_summary
from ui.panels.base import Panel
from ui.services import Services

translate = QCoreApplication.translate

LABS_SCALE = 0.85  # the labs' lines, times the type

# The map: each part of the story and the chapters it holds.
PARTS: tuple[tuple[str, tuple[int, ...]], ...] = (("one-gpu", (0, 1, 2)), ("squeeze", (3,)), ("many-gpus", (4, 5)))


def part_title(key: str) -> str:
    return {
        "one-gpu": translate("WelcomePanel", "1 · One GPU's bottlenecks"),
        "squeeze": translate("WelcomePanel", "2 · Squeezing it"),
        "many-gpus": translate("WelcomePanel", "3 · Ten thousand GPUs"),
    }[key]


def lab_title(page: lessons.Page) -> str:
    """A page's lab by its catalogue title (no lab module imported); a coming lab says so."""
    if not page.is_live:
        return translate("WelcomePanel", "(to come)")
    for key in (f"experiment.{page.lab}.page", f"experiment.{page.lab}.title"):  # the sidebar's short title first
        if catalogue.has(key):
            return i18n.engine_message(catalogue.msg(key))
    return page.lab


class WrapButton(QPushButton):
    """A push button whose words wrap (a chapter's title in large type is wider than a column)."""

    def __init__(self) -> None:
        super().__init__()
        self.label = _wrapping()
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        inner = QVBoxLayout(self)
        inner.setContentsMargins(8, 6, 8, 6)
        inner.addWidget(self.label)
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def setText(self, text: str) -> None:
        self.label.setText(text)

    def text(self) -> str:
        return self.label.text()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.layout().heightForWidth(width)

    def sizeHint(self) -> QSize:
        return self.layout().sizeHint()

    def minimumSizeHint(self) -> QSize:
        return self.layout().minimumSize()


def _wrapping() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


class WelcomePanel(Panel):
    """The map and the way in: ``start_button`` opens chapter 0, page 1; each chapter button its chapter."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.chapters = {chapter.number: chapter for chapter in lessons.chapters()}
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.heading.setWordWrap(True)
        self.intro = _wrapping()
        self.start_button = QPushButton()
        self.start_button.clicked.connect(lambda: self.services.navigator.open_lesson(0, 1))
        self.device_line = _wrapping()
        self.part_titles: dict[str, QLabel] = {}
        self.chapter_buttons: dict[int, WrapButton] = {}
        self.lab_lines: dict[int, QLabel] = {}
        self._build_layout()
        services.devices.report_changed.connect(lambda _report: self._show_device())
        self.retranslate()
        self.changeEvent(QEvent(QEvent.Type.FontChange))

    def _build_layout(self) -> None:
        # The map as rows: each part's title, then its chapters, each with the labs its pages run.
        grid = QGridLayout()
        row = 0
        for key, numbers in PARTS:
            self.part_titles[key] = _wrapping()
            self.part_titles[key].setObjectName("panelHeading")
            grid.addWidget(self.part_titles[key], row, 0, Qt.AlignmentFlag.AlignTop)
            for number in numbers:
                if number not in self.chapters:
                    continue
                button = WrapButton()
                button.clicked.connect(lambda _checked=False, n=number: self.services.navigator.open_lesson(n, 1))
                self.chapter_buttons[number] = button
                self.lab_lines[number] = _wrapping()
                grid.addWidget(button, row, 1, Qt.AlignmentFlag.AlignTop)
                grid.addWidget(self.lab_lines[number], row, 2, Qt.AlignmentFlag.AlignTop)
                row += 1
        for column, stretch in enumerate((2, 3, 5)):
            grid.setColumnStretch(column, stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.start_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addLayout(grid)
        layout.addStretch(1)
        layout.addWidget(self.device_line)

    def retranslate(self) -> None:
        lang = "zh" if i18n.current_language() == "zh" else "en"
        self.heading.setText(self.tr("Where does a GPU's time go?"))
        self.intro.setText(self.tr("A lesson in three parts, each page beside a live lab: first the bottlenecks of "
                                   "one GPU, then how to squeeze it, then ten thousand GPUs working as one."))
        self.start_button.setText(self.tr("Start the lesson ▶"))
        for key, label in self.part_titles.items():
            label.setText(part_title(key))
        for number, button in self.chapter_buttons.items():
            chapter = self.chapters[number]
            button.setText(f"{number}. {chapter.title.get(lang)}")
            labs = dict.fromkeys(lab_title(page) for page in chapter.pages)
            self.lab_lines[number].setText(self.tr("Labs: %1").replace("%1", " · ".join(labs)))
        self._show_device()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # the labs' lines a size smaller than the type
            for line in self.lab_lines.values():
                font = QFont(self.font())
                font.setPointSizeF(self.font().pointSizeF() * LABS_SCALE)
                line.setFont(font)

    def _show_device(self) -> None:
        text = device_summary(self.services.devices.report)
        self.device_line.setText(self.tr("The labs run here on: %1 (the emulator and the models stand in for a "
                                         "missing GPU; every number says which)").replace("%1", text))
