"""The main window: panel sidebar, stacked panels, status bar with device and provenance."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpulab.lab import declare
from ui import i18n, settings
from ui.device_text import device_summary
from ui.notify import INFO
from ui.panels import PANELS, Panel, panel_names, sections
from ui.presenter import Presenter
from ui.services import Services
from ui.theme import THEME_NAMES, apply_theme, current_theme, prepare_plots, theme_title
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.message_bar import MessageBar
from ui.widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from gpulab.devices import DeviceReport
    from gpulab.results import Result
    from ui.about import AboutDialog
    from ui.widgets.validation_view import ValidationDialog

STATUS_MESSAGE_MS = 8000
SIDEBAR_SHARE = 0.16  # the sidebar takes at most this much of the window's width (titles wrap)


class Panels(Mapping[str, Panel]):
    """The window's panels by name, each built when first asked for.

    ``panels[name]`` builds a registered panel the first time (start-up builds only the one on
    screen: sixteen at once took seconds); iteration, ``len`` and ``in`` see the panels built so
    far, so closing the window or reading panels never builds one by accident.
    """

    def __init__(self, build: Callable[[str], Panel]) -> None:
        self._build = build
        self._built: dict[str, Panel] = {}
        self._known = frozenset(panel_names())

    def __getitem__(self, name: str) -> Panel:
        if name not in self._built:
            if name not in self._known:
                raise KeyError(name)
            self._built[name] = self._build(name)
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._built))

    def __len__(self) -> int:
        return len(self._built)

    def __contains__(self, name: object) -> bool:
        return name in self._built

    def known(self, name: str) -> bool:
        """Whether ``name`` is a registered panel, built or not."""
        return name in self._known


class MainWindow(QMainWindow):
    """Shows one panel at a time; owns the services and shuts their workers down on close."""

    def __init__(self, services: Services | None = None, panel: str | None = None, paint_first: bool = False) -> None:
        """``paint_first``: show the window's frame, sidebar and menus at once and build the first
        panel and probe the devices right after its first paint (the lab's own start); otherwise
        all of it now (tests, screenshots of a given page)."""
        super().__init__()
        self.services = services or Services.create()
        self.panels = Panels(self._build_panel)
        self.about_dialog: AboutDialog | None = None
        self.presenter = Presenter(self)
        self._save_panel_choice = False  # see below: set once the start-up panel is shown
        self._make_central()
        self._make_status_bar()
        self._make_menus()
        self._connect_services()
        self.retranslate()
        self.started = False  # the first panel is shown and the devices are being probed
        self.after_start: list[Callable[[], None]] = []  # what the command line asked for once it is (a lesson page)
        self._start_panel = panel or settings.saved_value(settings.PANEL_KEY) or PANELS[0].name
        if paint_first:
            self.installEventFilter(self)  # eventFilter starts the rest after the first paint
        else:
            self._start()
        self.resize(1024, 740)

    def _start(self) -> None:
        """The first panel and the device probe. A panel named on the command line is for this run;
        only a click in the sidebar is saved."""
        if self.started:
            return
        self.started = True
        self.show_panel(self._start_panel)
        chosen = self.sidebar.current_name()
        if chosen and (chosen not in self.pages or self.stack.currentWidget() is not self.pages[chosen]):
            # the row was current already (the list chose it on focus), so selecting it emitted nothing
            self._panel_chosen(chosen)
        self._save_panel_choice = True
        if self.services.devices.report is None:
            self.services.devices.refresh()
        for step in self.after_start:
            step()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self and event.type() == QEvent.Type.Paint and not self.started:
            self.removeEventFilter(self)
            QTimer.singleShot(0, self._start)  # after this paint reaches the screen
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------ building

    def _make_central(self) -> None:
        self.sidebar = Sidebar()
        self.stack = QStackedWidget()
        self.pages: dict[str, QScrollArea] = {}  # the built panels' pages, as self.panels builds them
        self.sidebar.set_sections(sections())
        self.sidebar.panel_chosen.connect(self._panel_chosen)
        self.message_bar = MessageBar()
        right = QVBoxLayout()
        right.addWidget(self.message_bar)
        right.addWidget(self.stack, 1)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.sidebar)
        layout.addLayout(right, 1)
        self.setCentralWidget(central)

    def _make_status_bar(self) -> None:
        self.note_label = QLabel()  # our own label: QStatusBar.showMessage would cover widgets
        self.note_timer = QTimer(self)
        self.note_timer.setSingleShot(True)
        self.note_timer.timeout.connect(self.note_label.clear)
        self.device_label = QLabel()
        self.badge = ProvenanceBadge()
        self.badge_caption = QLabel()
        bar = self.statusBar()
        bar.addWidget(self.device_label)
        bar.addWidget(self.note_label, 1)
        bar.addPermanentWidget(self.badge_caption)
        bar.addPermanentWidget(self.badge)

    def _make_menus(self) -> None:
        self.file_menu = self.menuBar().addMenu("")
        self.open_action = self.file_menu.addAction("", lambda: self.open_result())
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.file_menu.addSeparator()
        self.quit_action = self.file_menu.addAction("", self.close)
        self.view_menu = self.menuBar().addMenu("")
        self.theme_menu = self.view_menu.addMenu("")
        self.theme_actions = self._choice_actions(self.theme_menu, THEME_NAMES, self.set_theme)
        self.language_menu = self.view_menu.addMenu("")
        self.language_actions = self._choice_actions(self.language_menu, tuple(i18n.LANGUAGES), self.set_language)
        for code, action in self.language_actions.items():
            action.setText(i18n.LANGUAGE_NAMES[code])
        self.view_menu.addSeparator()
        self.sidebar_action = self.view_menu.addAction("")
        self.sidebar_action.setCheckable(True)
        self.sidebar_action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.sidebar_action.triggered.connect(self.set_sidebar_hidden)
        self._show_sidebar(settings.saved_value(settings.SIDEBAR_KEY) != "hidden")
        self.help_menu = self.menuBar().addMenu("")
        self.validation_action = self.help_menu.addAction("", self.show_validation)
        self.about_action = self.help_menu.addAction("", self.show_about)

    def _choice_actions(self, menu: QMenu, keys: tuple[str, ...], choose) -> dict[str, QAction]:
        group = QActionGroup(self)
        group.setExclusive(True)
        actions = {}
        for key in keys:
            action = menu.addAction(key)
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, key=key: choose(key))
            group.addAction(action)
            actions[key] = action
        return actions

    def _connect_services(self) -> None:
        self.services.notifier.message.connect(self.show_message)
        self.services.notifier.dismissed.connect(self.message_bar.hide)
        self.services.devices.report_changed.connect(self._show_device)
        self.services.navigator.kernel_requested.connect(self.open_kernel)
        self.services.navigator.lab_requested.connect(self.open_lab)
        self.services.navigator.lesson_requested.connect(self.open_lesson)
        self.services.navigator.sm_view_requested.connect(self.open_sm_view)

    # ------------------------------------------------------------ texts

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("gpulab — where a GPU's time goes"))
        self.file_menu.setTitle(self.tr("&File"))
        self.open_action.setText(self.tr("&Open result…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.view_menu.setTitle(self.tr("&View"))
        self.theme_menu.setTitle(self.tr("&Theme"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.sidebar_action.setText(self.tr("&Hide sidebar"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.validation_action.setText(self.tr("How good are the &models?"))
        self.about_action.setText(self.tr("&About gpulab"))
        self.badge_caption.setText(self.tr("Numbers shown:"))
        for name, action in self.theme_actions.items():
            action.setText(theme_title(name))
        self.sidebar.retitle({key: heading for key, heading, _ in sections()}, {s.name: s.title() for s in PANELS})
        self._show_device(self.services.devices.report)
        self._fit_sidebar()
        self._check_choices()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() == QEvent.Type.FontChange:
            self._fit_sidebar()
        super().changeEvent(event)

    def _fit_sidebar(self) -> None:
        self.sidebar.fit(max(120, round(SIDEBAR_SHARE * self.width())))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_sidebar()

    def set_sidebar_hidden(self, hidden: bool) -> None:
        """View → Hide sidebar: the panel gets the whole width (a small screen in large type);
        remembered for the next start."""
        self._show_sidebar(not hidden)
        settings.save_value(settings.SIDEBAR_KEY, "hidden" if hidden else "shown")

    def _show_sidebar(self, shown: bool) -> None:
        self.sidebar.setVisible(shown)
        self.sidebar_action.setChecked(not shown)

    def _check_choices(self) -> None:
        self.theme_actions[current_theme().name].setChecked(True)
        self.language_actions[i18n.current_language()].setChecked(True)

    # ------------------------------------------------------------ panels

    def _build_panel(self, name: str) -> Panel:
        """Panel ``name`` and its page in the stack, built now, in the current language and theme."""
        prepare_plots()  # the first page loads pyqtgraph, after the window's first paint
        panel = next(spec for spec in PANELS if spec.name == name).factory(self.services)
        panel.provenance_changed.connect(self._panel_provenance)
        if hasattr(panel, "presenter_requested"):  # the lesson viewer starts and ends the show
            panel.presenter_requested.connect(self.presenter.set_on)
            self.presenter.changed.connect(panel.set_presenting)
        self.pages[name] = _scrollable(panel)
        self.stack.addWidget(self.pages[name])
        return panel

    def show_panel(self, name: str) -> None:
        """Bring panel ``name`` to the front, building it if it is new (unknown names show the first panel)."""
        if not self.sidebar.select(name if self.panels.known(name) else PANELS[0].name):
            self.sidebar.select(PANELS[0].name)

    def open_kernel(self, entry: str, preset: str = "") -> None:
        """The warp visualizer, showing kernel ``entry`` (a lab asked for it: a roofline point, a case)."""
        if not self.panels.known("warp"):
            return
        self.show_panel("warp")
        self.panels["warp"].choose_kernel(entry, preset or None)  # type: ignore[attr-defined]

    def open_lab(self, lab: str) -> None:
        """Lab ``lab``'s page (a trace finding's "Open the lab"); Run experiment with the lab chosen
        when it has no page of its own; an unknown name changes nothing."""
        lab = declare.aliases().get(lab, lab)
        if lab not in declare.registry():
            return
        target = _panel_for_lab(lab)
        self.show_panel(target)
        panel = self.panels[target]
        if target == "experiments":
            combo = panel.experiment_combo  # type: ignore[attr-defined]
            combo.setCurrentIndex(max(0, combo.findData(lab)))

    def open_lesson(self, chapter: int, page: int | str = 1) -> Panel:
        """The lesson viewer at page ``page`` of chapter ``chapter`` (KeyError for a page that does not exist)."""
        self.show_panel("lesson")
        viewer = self.panels["lesson"]
        viewer.open_page(chapter, page)  # type: ignore[attr-defined]
        return viewer

    def open_sm_view(self, entry: str) -> None:
        """The latency page's SM view, animating kernel ``entry`` (the warp visualizer asked for it)."""
        if not self.panels.known("latency"):
            return
        self.show_panel("latency")
        self.panels["latency"].choose_kernel(entry)  # type: ignore[attr-defined]

    def current_panel(self) -> Panel:
        page = cast(QScrollArea, self.stack.currentWidget())  # every page is a panel's scroll area
        return cast(Panel, page.widget())

    def _panel_chosen(self, name: str) -> None:
        if not self.started:
            return  # the list took focus before the first paint and chose its first row: _start decides
        panel = self.panels[name]  # built on its first choice
        self.stack.setCurrentWidget(self.pages[name])
        self.badge.set_kind(panel.provenance)
        if self._save_panel_choice:
            settings.save_value(settings.PANEL_KEY, name)

    def _panel_provenance(self, kind: str) -> None:
        if self.sender() is self.current_panel():
            self.badge.set_kind(kind)

    # ------------------------------------------------------------ status

    def _show_device(self, report: DeviceReport | None) -> None:
        self.device_label.setText(device_summary(report))
        if report is not None:
            self.device_label.setToolTip(i18n.device_reason(report.cuda))

    def show_message(self, level: str, text: str) -> None:
        """Notes pass through the status bar; warnings and errors stay until dismissed."""
        if level != INFO:
            self.message_bar.show_message(level, text)
            return
        self.note_label.setText(text)
        self.note_timer.start(STATUS_MESSAGE_MS)

    # ------------------------------------------------------------ choices

    def set_theme(self, name: str) -> None:
        apply_theme(name)
        settings.save_value(settings.THEME_KEY, current_theme().name)
        self.theme_choice_changed()

    def theme_choice_changed(self) -> None:
        """The theme changed (a menu choice, the presenter): the menu's tick and the sidebar follow."""
        self._check_choices()
        self._fit_sidebar()

    def set_language(self, code: str) -> None:
        if not i18n.set_language(code) and code != i18n.DEFAULT_LANGUAGE:
            text = self.tr("The translation for %1 could not be loaded; showing English.")
            self.services.notifier.warning(text.replace("%1", code))
        settings.save_value(settings.LANGUAGE_KEY, i18n.current_language())
        self._check_choices()
        self.warn_about_fonts()

    def warn_about_fonts(self) -> None:
        warning = i18n.font_warning(i18n.current_language())
        if warning:
            self.services.notifier.warning(warning)

    def ask_keep_partial(self, folder: Path) -> str:
        """Closing while a lab runs: "keep" its points so far (in ``folder``), "discard" them, or
        "cancel" the closing. Tests replace it."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("A run is still going"),
                          self.tr("A lab is still running. Keep the points it has measured so far? They are saved "
                                  "as a partial result in %1.").replace("%1", str(folder)),
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)  # fmt: skip
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        choice = box.exec()
        return {QMessageBox.StandardButton.Save: "keep", QMessageBox.StandardButton.Discard: "discard"}.get(
            QMessageBox.StandardButton(choice), "cancel")

    def ask_result_path(self) -> str:
        """The file a person picks in the Open dialog ('' when they cancel); tests replace it."""
        path, _filter = QFileDialog.getOpenFileName(
            self, self.tr("Open a saved result"), "", self.tr("gpulab results (*.json);;All files (*)"))  # fmt: skip
        return path

    def open_result(self, path: str | None = None) -> Result | None:
        """File → Open result…: a saved result, marked replayed, in its lab's panel (else Run experiment),
        a check report on the Check page; a file that is not a readable result is one plain error in
        the window."""
        path = path or self.ask_result_path()
        if not path:
            return None
        from gpulab.check.saved import is_report  # a `gpulab check --json` report opens on the Check page

        if is_report(path) and self.panels.known("check"):
            self.show_panel("check")
            self.panels["check"].open_report(path)  # type: ignore[attr-defined]
            return None
        from gpulab.results import ResultFormatError, replay  # the results module loads with the first result

        try:
            result = replay(path)
        except ResultFormatError as exc:
            self.services.notifier.error(self.tr("Could not open the result: %1").replace(
                "%1", i18n.engine_message(exc.message)))
            return None
        if result.experiment == "trace" and self.panels.known("trace"):  # a `gpulab trace --json` diagnosis
            self.show_panel("trace")
            self.panels["trace"].show_result(result, path)  # type: ignore[attr-defined]
            self.services.notifier.info(self._opened_text(path, result))
            return result
        # A lab with its own panel shows its own results there; any other in Run experiment.
        target = _panel_for_lab(declare.aliases().get(result.experiment, result.experiment))  # old names go there too
        self.show_panel(target)
        panel = self.panels[target]
        panel.show_result(result)  # type: ignore[attr-defined]
        if hasattr(panel, "show_params"):
            panel.show_params(result.params)
        self.services.notifier.info(self._opened_text(path, result))
        return result

    def _opened_text(self, path: str, result: Result) -> str:
        """Where and when a replayed result was made: the machine and time it saved, so a file
        measured here minutes ago is not called 'made elsewhere'."""
        host = str(result.host.get("hostname") or self.tr("an unknown machine"))
        when = _local_time(result.created)
        return (self.tr("Opened %1: replayed, made on %2 at %3 (shown as saved, not run again)")
                .replace("%1", path).replace("%2", host).replace("%3", when))  # fmt: skip

    def show_validation(self) -> ValidationDialog:
        """Every lab's validation rows in one table (each lab's page shows its own)."""
        from ui.widgets.validation_view import ValidationDialog  # opened from the Help menu: not before the first paint

        dialog = ValidationDialog(None, lambda: self.tr("every lab"), self.services.runner, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.validation_dialog = dialog
        return dialog

    def show_about(self) -> AboutDialog:
        from ui.about import AboutDialog  # reads every library's version: only when asked

        self.about_dialog = AboutDialog(self.services.devices.report, self)
        self.about_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.about_dialog.open()
        return self.about_dialog

    def closeEvent(self, event: QCloseEvent) -> None:
        running = [panel for panel in self.panels.values() if getattr(panel, "partial_result", None)
                   and panel.partial_result() is not None]  # type: ignore[attr-defined]  # fmt: skip
        if running:
            answer = self.ask_keep_partial(partial_folder())
            if answer == "cancel":
                event.ignore()
                return
            if answer == "keep":
                keep_partial(running, partial_folder())
        for panel in self.panels.values():
            panel.shutdown()
        self.services.runner.shutdown()
        super().closeEvent(event)


def partial_folder() -> Path:
    """Where the window keeps the partial results of runs it was closed in the middle of."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("gpulab", appauthor=False)) / "partial"


def keep_partial(panels: list[Panel], folder: Path) -> list[Path]:
    """Each running panel's points so far saved in ``folder`` as a partial result (said on stderr:
    the window is closing); a file that cannot be written is said too, and the closing goes on."""
    kept = []
    for panel in panels:
        result = panel.partial_result()  # type: ignore[attr-defined]
        if result is None:
            continue
        path = folder / f"{result.experiment}-{time.strftime('%Y%m%d-%H%M%S')}-partial.json"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            result.save(path)
        except OSError as exc:
            print(f"gpulab: the partial result of {result.experiment} could not be kept ({exc})", file=sys.stderr)
            continue
        print(f"gpulab: the window was closed mid-run; the points of {result.experiment} measured so far "
              f"were kept in {path}", file=sys.stderr)  # fmt: skip
        kept.append(path)
    return kept


def _panel_for_lab(lab: str) -> str:
    """The panel that shows lab ``lab``'s results: its own page, else Run experiment (found in the
    registry, so no panel is built to ask it)."""
    own = [spec.name for spec in PANELS if spec.lab == lab]
    return own[0] if own else "experiments"


def _local_time(created: str) -> str:
    """An ISO time stamp as this computer's local date and time to the minute (the stamp itself
    when it cannot be read)."""
    try:
        return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return created


class _PageScroll(QScrollArea):
    """The scroll area of a page: tells its panel when the window's view of it changes size (a
    panel held at its minimum is not resized then, and would keep sizes measured on a larger view)."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        panel = self.widget()
        if isinstance(panel, Panel):
            panel.view_resized()


def _scrollable(panel: Panel) -> QScrollArea:
    """A panel wider or taller than the screen scrolls instead of growing the window."""
    scroll = _PageScroll()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(panel)
    return scroll
