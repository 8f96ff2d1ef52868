"""The lab beside a lesson page: the window's real lab panel, in a compact layout.

A page names a panel and a view (:mod:`gpulab.lessons.views`); the host builds that panel the way
the sidebar does (``panel_spec(name).factory(services)``), once per panel, hides what the lesson
says itself (the heading, the description, Export), opens the page's view (its tab), and puts the
page's preset in the panel's own form: the fields the form shows are filled as a person would
type them, the ones it leaves out ride along in ``form.hidden_values``. Running is a click on
the panel's own Run button, so a lesson runs exactly what the panel would (its device, its
badge, its live points). When the run ends the host passes on the panel's result.

The host knows panels and views; which lab runs what is the panel's business.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QStackedWidget, QWidget

from gpulab import lessons
from gpulab.lessons.validate import assignments
from gpulab.results import Result
from ui.panels import panel_spec
from ui.panels.base import Panel
from ui.services import Services

translate = QCoreApplication.translate

LESSON_CONTROLS_SHARE = 0.36  # of the lab's width, at most, for its form and Run
HIDDEN_IN_A_LESSON = ("description", "export_button", "monitor", "validation_button")
WHOLE_IN_A_LESSON = ("table_title", "published_line")  # cluster scaling's planner lines
LESSON_NOTE_LINES = 1  # the lab's notes beside a lesson: the page's text and big number say what matters


def coming_title(lab: str) -> str:
    """What a lab still to come will be (in English, as :data:`gpulab.lessons.views.COMING_LABS` says:
    none is coming now, and a new one gets its words in the window's language here)."""
    return lessons.COMING_LABS.get(lab, lab)


def _trace_lab(panel: Panel) -> Panel:
    from ui.panels.lesson_trace import TraceLessonLab  # only for a lesson page that shows it

    return TraceLessonLab(panel)  # type: ignore[arg-type]


LESSON_ADAPTERS: dict[str, Callable[[Panel], Panel]] = {"trace": _trace_lab}
"""Pages a lesson shows that are no lab's page (no form, no lab Run): each wrapped in an adapter
that takes the page's preset and runs it on the page's own controls."""


def settings_of(panel: QWidget) -> QWidget | None:
    """The panel's form column (its fields and its own Run: the left part of its splitter), which
    presenter mode folds away: the page's preset fills it and the page's Run runs it, and at
    1024x768 in large type it would take the picture's width. None for a panel without one."""
    splitter = getattr(panel, "splitter", None)
    return splitter.widget(0) if isinstance(splitter, QSplitter) and splitter.count() > 1 else None


def tabs_of(panel: QWidget) -> Any:
    """The panel's tab widget (cluster scaling: its explorer's), or None."""
    tabs = getattr(panel, "tabs", None)
    if tabs is None and hasattr(panel, "explorer"):
        tabs = getattr(panel.explorer, "tabs", None)
    return tabs


class LabHost(QStackedWidget):
    """``show_page(page)``, ``run(page, change)``, ``replay(page)``; ``result_ready(Result)`` after each."""

    result_ready = Signal(object)  # the panel's Result once a run (or a replay) is shown
    run_ended = Signal(str)  # "done", "failed" or "cancelled"

    def __init__(self, services: Services, page_height: Callable[[], int], parent: QWidget | None = None) -> None:
        """``page_height``: the lesson page's height on screen, of which the lab's picture gets half."""
        super().__init__(parent)
        self.services = services
        self.page_height = page_height
        self.panels: dict[str, Panel] = {}
        self.coming = QLabel()
        self.coming.setObjectName("lessonComing")
        self.coming.setWordWrap(True)
        self.coming.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.addWidget(self.coming)
        self.page: lessons.Page | None = None
        self.settings_shown = True  # the lab's form beside its picture (presenter mode folds it away)
        self.whole_lines = False  # every lab line whole (presenter mode), see set_whole_lines

    # ------------------------------------------------------------ panels

    def panel_for(self, name: str) -> Panel:
        """The lab panel ``name``, built on first use, in its compact layout."""
        if name not in self.panels:
            panel = panel_spec(name).factory(self.services)
            compact(panel)
            if name in LESSON_ADAPTERS:  # a page without a lab's form and Run gets them from its adapter
                panel = LESSON_ADAPTERS[name](panel)
            if hasattr(panel, "page_height"):  # half of the lesson's page, not of the lab's part of it
                panel.page_height = self.page_height  # type: ignore[method-assign]
            controls = getattr(panel, "run_controls", None)
            ended = getattr(panel, "run_ended", None) or (controls.ended if controls is not None else None)
            if ended is not None:
                ended.connect(lambda state, p=panel: self._ended(p, state))
            self.panels[name] = panel
            self.addWidget(panel)
            self._whole_lines(panel)
        return self.panels[name]

    def setCurrentWidget(self, widget: QWidget) -> None:
        """Only the page shown counts for the host's size (a stack is as large as its largest page)."""
        for index in range(self.count()):
            page = self.widget(index)
            policy = QSizePolicy.Policy.Preferred if page is widget else QSizePolicy.Policy.Ignored
            page.setSizePolicy(policy, policy)
        super().setCurrentWidget(widget)
        self._show_settings()
        self.updateGeometry()

    def has_settings(self) -> bool:
        """Whether the page's lab has a form to fold away."""
        panel = self.current_panel()
        return panel is not None and (settings_of(panel) is not None or bool(getattr(panel, "folded_settings", list)()))

    def show_settings(self, shown: bool) -> None:
        """Show (or fold away) the lab's form beside its picture, on this page and the next ones."""
        self.settings_shown = shown
        self._show_settings()
        self.updateGeometry()

    def set_whole_lines(self, whole: bool) -> None:
        """Presenter mode: the labs that cut lines short (the rest in a tooltip) show them whole, for
        a room sees no tooltips; out of it they cut them again to give their pictures the room."""
        self.whole_lines = whole
        for panel in self.panels.values():
            self._whole_lines(panel)

    def _whole_lines(self, panel: Panel) -> None:
        if hasattr(panel, "whole_lines") and panel.whole_lines != self.whole_lines:
            panel.whole_lines = self.whole_lines
            panel.fit_to_view()  # type: ignore[attr-defined]

    def _show_settings(self) -> None:
        panel = self.current_panel()
        settings = settings_of(panel) if panel is not None else None
        if settings is not None:
            settings.setVisible(self.settings_shown)
        for widget in getattr(panel, "folded_settings", list)():  # a lab's own settings beside its picture
            widget.setVisible(self.settings_shown)
        getattr(panel, "settings_folded", lambda: None)()  # a lab that sizes its column to what is shown

    def current_panel(self) -> Panel | None:
        widget = self.currentWidget()
        return widget if isinstance(widget, Panel) else None

    def pictures(self) -> list[QWidget]:
        """The lab's pictures (what gets half the page), none for a coming page."""
        panel = self.current_panel()
        return list(panel.pictures()) if panel is not None and hasattr(panel, "pictures") else []

    # ------------------------------------------------------------ pages

    def show_page(self, page: lessons.Page) -> Panel | None:
        """The page's panel at its view with its preset in the form; the coming note for a coming page."""
        self.page = page
        if not page.is_live:
            self.coming.setText(self.coming_text(page))
            self.setCurrentWidget(self.coming)
            return None
        panel = self.panel_for(lessons.panel_of(page))
        self.setCurrentWidget(panel)
        if getattr(panel, "job", None) is None:
            self.fill(panel, page, change=False)
        view = lessons.view_tab(page)
        tabs = tabs_of(panel)
        if view is not None and tabs is not None and view.index < tabs.count():
            tabs.setCurrentIndex(view.index)
        return panel

    def coming_text(self, page: lessons.Page) -> str:
        return translate("LessonLab", "The lab for this page is still to come: %1.").replace(
            "%1", coming_title(page.coming))

    def retranslate(self) -> None:
        if self.page is not None and not self.page.is_live:
            self.coming.setText(self.coming_text(self.page))

    def fill(self, panel: Panel, page: lessons.Page, change: bool) -> Any:
        """Put the page's preset (and its try-this change when ``change``) in the panel's form; the Params."""
        params = lessons.page_params(page, change)
        if hasattr(panel, "take_preset"):  # an adapted page (the Trace doctor): it reads them when it runs
            panel.take_preset(params)
            return params
        form = getattr(panel, "form", None)
        if form is None:  # CPU vs GPU: its lists hold its sweeps, the run takes the Params
            panel.choices.show_experiment_of(params)  # type: ignore[attr-defined]
            return params
        combo = panel.experiment_combo  # type: ignore[attr-defined]
        if combo.currentData() != page.lab:  # the generic run page: choose the page's lab
            combo.setCurrentIndex(max(0, combo.findData(page.lab)))
        items = page.preset + (page.try_this.change if change and page.try_this is not None else ())
        form.hidden_values = assignments(items)
        form.show_values({f.name: getattr(params, f.name) for f in dataclasses.fields(params)})
        devices = panel.device_combo  # type: ignore[attr-defined]
        if devices.count() > 1 and devices.currentIndex() == 0:
            devices.setCurrentIndex(1)  # this machine's first GPU, where it has one
        return params

    def run(self, page: lessons.Page, change: bool = False) -> bool:
        """Fill the page's preset and press the panel's Run; False when it cannot start (it runs)."""
        panel = self.current_panel()
        if panel is None or not page.is_live or getattr(panel, "job", None) is not None:
            return False
        params = self.fill(panel, page, change)
        if hasattr(panel, "run_preset"):
            panel.run_preset(params)
        elif hasattr(panel, "run_sweep"):
            panel.run_sweep(params)  # its Run sweep reads its lists; the Params carry the preset's sizes
        else:
            panel.run_button.click()  # type: ignore[attr-defined]
        return getattr(panel, "job", None) is not None

    def replay(self, page: lessons.Page) -> Result | None:
        """The page's recorded result shown in its panel (marked replayed); None without one."""
        panel = self.current_panel()
        result = lessons.recorded_result(page) if page.is_live else None
        if panel is None or result is None:
            return None
        panel.show_result(result)  # type: ignore[attr-defined]
        if hasattr(panel, "show_params"):
            panel.show_params(result.params)
        self.result_ready.emit(result)
        return result

    def _ended(self, panel: Panel, state: str) -> None:
        if panel is not self.current_panel():
            return
        self.run_ended.emit(state)
        result = getattr(panel, "last_result", None)
        if state == "done" and result is not None:
            self.result_ready.emit(result)

    def shutdown(self) -> None:
        for panel in self.panels.values():
            panel.shutdown()


def compact(panel: Panel) -> None:
    """Hide what a lesson page says itself (the panel's heading row, description, Export, monitor),
    and give the picture more of the lab's width than on its own page: beside a lesson's text the
    lab has about three fifths of the window."""
    if panel.layout() is not None:
        panel.layout().setContentsMargins(0, 0, 0, 0)  # the lesson's page has its own margins
    if hasattr(panel, "MOST_NOTE_LINES"):  # the lab's notes scroll in one line: the picture keeps the height
        panel.MOST_NOTE_LINES = LESSON_NOTE_LINES  # type: ignore[attr-defined]
    if hasattr(panel, "CONTROLS_SHARE"):
        panel.CONTROLS_SHARE = LESSON_CONTROLS_SHARE  # type: ignore[attr-defined]
        panel.FORM_SHARE = LESSON_CONTROLS_SHARE  # type: ignore[attr-defined]
    heading = getattr(panel, "heading", None)
    if heading is not None:
        row = heading.parentWidget()
        (row if row is not None and row is not panel else heading).hide()
    explorer = getattr(panel, "explorer", None)
    for name in WHOLE_IN_A_LESSON:  # the planner's lines, whole: its table scrolls under them
        line = getattr(explorer, name, None)
        if hasattr(line, "set_lines"):
            line.set_lines(1, None)
    for name in HIDDEN_IN_A_LESSON:
        widget = getattr(panel, name, None)
        if isinstance(widget, QWidget):
            widget.hide()
