"""The lesson track in the window: the welcome page, the lesson viewer, the clicker's keys, presenter mode.

Driven as a teacher drives it: a click on Start, key presses on the real widgets (PageDown from a
clicker, R to run the page's preset), the A buttons; the page's preset runs through the lab panel's
own Run and the big number is read from what the panel shows.
"""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from gpulab import lessons
from tests.ui.walk import open_panel, switch_language
from ui import settings
from ui.theme import current_theme

RUN_TIMEOUT_MS = 30_000
Key = Qt.Key


def open_viewer(qtbot, window, chapter: int = 0, page: int | str = 1):
    viewer = open_panel(qtbot, window, "lesson")
    viewer.open_page(chapter, page)
    return viewer


def place(viewer) -> tuple[int, int]:
    return viewer.chapter.number, viewer.page_index()


def test_the_welcome_pages_start_button_opens_chapter_0_page_1(qtbot, window):
    welcome = open_panel(qtbot, window, "welcome")
    assert len(welcome.chapter_buttons) == len(lessons.chapters())
    qtbot.mouseClick(welcome.start_button, Qt.MouseButton.LeftButton)
    viewer = window.current_panel()
    assert viewer is window.panels["lesson"] and place(viewer) == (0, 1)
    assert viewer.text.title.text() == lessons.chapter(0).pages[0].title.get("en")


def test_a_chapter_button_on_the_welcome_page_opens_the_same_pages_as_the_sidebars_viewer(qtbot, window):
    welcome = open_panel(qtbot, window, "welcome")
    qtbot.mouseClick(welcome.chapter_buttons[3], Qt.MouseButton.LeftButton)
    assert window.current_panel() is window.panels["lesson"] and place(window.panels["lesson"]) == (3, 1)
    assert open_panel(qtbot, window, "lesson") is window.panels["lesson"]  # one viewer, from either door


def test_the_welcome_page_names_the_device_in_one_line_and_the_labs_by_chapter(qtbot, window):
    welcome = open_panel(qtbot, window, "welcome")
    assert "CPU only" in welcome.device_line.text() and "every number says which" in welcome.device_line.text()
    assert "Latency and warps" in welcome.lab_lines[0].text() and "Roofline" in welcome.lab_lines[1].text()
    assert welcome.lab_lines[3].text().endswith("Squeeze a training step · Trace doctor")  # none to come now


def test_a_newcomer_starts_on_the_welcome_page_and_a_returning_user_where_they_left(qtbot):
    from ui.app import start_window

    first = start_window()
    qtbot.addWidget(first)
    assert first.current_panel() is first.panels["welcome"]
    first.close()
    settings.save_value(settings.PANEL_KEY, "roofline")
    again = start_window()
    qtbot.addWidget(again)
    assert again.current_panel() is again.panels["roofline"] and "welcome" not in again.panels
    again.close()


def test_clicker_keys_turn_pages_and_cross_into_the_next_chapter(qtbot, window):
    viewer = open_viewer(qtbot, window, 0, 1)
    qtbot.keyClick(viewer, Key.Key_PageDown)
    assert place(viewer) == (0, 2)
    qtbot.keyClick(viewer, Key.Key_Right)
    qtbot.keyClick(viewer, Key.Key_PageDown)  # past the chapter's last page: the next chapter
    assert place(viewer) == (1, 1)
    qtbot.keyClick(viewer, Key.Key_PageUp)
    assert place(viewer) == (0, 3)
    qtbot.keyClick(viewer, Key.Key_Left)
    assert place(viewer) == (0, 2)


def test_pagedown_turns_the_page_even_when_the_chapter_list_has_the_focus(qtbot, window):
    viewer = open_viewer(qtbot, window, 2, 1)
    combo = viewer.nav.chapter_combo
    combo.setFocus()
    qtbot.keyClick(combo, Key.Key_PageDown)
    assert place(viewer) == (2, 2) and combo.currentData() == 2


def test_a_letter_typed_in_the_labs_form_stays_in_the_field(qtbot, window):
    viewer = open_viewer(qtbot, window, 2, "divergence")
    field = next(e for e in viewer.lab.current_panel().editors.values() if isinstance(e, QLineEdit))
    field.setFocus()
    qtbot.keyClick(field, Key.Key_R)
    assert "r" in field.text() and viewer.running is None


def test_f5_starts_presenter_mode_and_esc_ends_it(qtbot, window):
    viewer = open_viewer(qtbot, window, 1, 1)
    qtbot.keyClick(viewer, Key.Key_F5)
    assert window.presenter.on and viewer.presenting
    assert current_theme().name == "projector" and window.isFullScreen()
    assert window.sidebar.isHidden() and window.statusBar().isHidden() and window.menuBar().isHidden()
    assert viewer.body_px() >= 20 and viewer.text.text.fontInfo().pixelSize() >= 20
    assert viewer.nav.present_button.text() == "End presenting (Esc)"
    qtbot.keyClick(viewer, Key.Key_Escape)
    assert not window.presenter.on and current_theme().name == "light" and not window.isFullScreen()
    assert window.sidebar.isVisible() and window.statusBar().isVisible()
    assert settings.saved_value(settings.THEME_KEY) is None  # a show is not the everyday theme


@pytest.mark.parametrize("key", [Key.Key_B, Key.Key_Period])
def test_b_or_the_full_stop_blacks_the_screen_and_any_key_brings_the_page_back(qtbot, window, key):
    viewer = open_viewer(qtbot, window, 2, 1)
    qtbot.keyClick(viewer, key)
    assert viewer.black.isVisible() and viewer.black.geometry() == window.rect()
    qtbot.keyClick(viewer, Key.Key_PageDown)  # the first key only brings the page back
    assert not viewer.black.isVisible() and place(viewer) == (2, 1)


def test_the_text_size_follows_the_a_buttons_and_ctrl_plus_minus(qtbot, window):
    viewer = open_viewer(qtbot, window, 2, 1)
    before = viewer.text.text.fontInfo().pixelSize()
    qtbot.mouseClick(viewer.nav.larger_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(viewer.nav.larger_button, Qt.MouseButton.LeftButton)
    assert viewer.text.text.fontInfo().pixelSize() > before and viewer.nav.scale_label.text() == "130%"
    qtbot.keyClick(viewer, Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert viewer.nav.scale_label.text() == "115%"


FAST_PAGES = [(2, "divergence"), (3, "coalescing"), (4, "ring-and-tree"), (4, "parallelism"), (2, "pcie"),
              (3, "streams"), (4, "topology")]  # fmt: skip


@pytest.mark.parametrize(("chapter", "page"), FAST_PAGES)
def test_r_runs_the_pages_preset_on_the_labs_own_run_and_the_big_number_appears(qtbot, window, chapter, page):
    viewer = open_viewer(qtbot, window, chapter, page)
    assert viewer.number.number is None and "Press R" in viewer.number.message.text()
    qtbot.keyClick(viewer, Key.Key_R)
    panel = viewer.lab.current_panel()
    assert panel.job is not None, "R started no run"
    qtbot.waitUntil(lambda: viewer.number.number is not None, timeout=RUN_TIMEOUT_MS)
    number = viewer.number.number
    assert number.kind in ("measured", "emulated", "modelled") and viewer.number.badge.text()
    assert viewer.number.value.text() == number.text() and viewer.number.value.isVisible()
    assert panel.last_result.experiment == lessons.chapter(chapter).page(page).lab
    # The preset is what the panel ran: its form shows it (a field the form leaves out rides hidden).
    assert panel.last_result.params == dataclasses.asdict(lessons.page_params(viewer.page)) or chapter == 4


def test_t_runs_the_try_this_change_with_the_change_in_the_form(qtbot, window):
    viewer = open_viewer(qtbot, window, 2, "divergence")
    qtbot.keyClick(viewer, Key.Key_T)
    panel = viewer.lab.current_panel()
    qtbot.waitUntil(lambda: viewer.number.number is not None, timeout=RUN_TIMEOUT_MS)
    assert panel.editors["kways"].text().replace(" ", "") == "2,4,8"
    assert tuple(panel.last_result.params["kways"]) == (2, 4, 8)


def test_a_coming_page_says_its_lab_is_still_to_come_and_runs_nothing(qtbot, window, monkeypatch):
    from tests.gpulab.lessons.coming import COMING_WHAT, with_a_coming_page

    page = with_a_coming_page(monkeypatch)
    viewer = open_viewer(qtbot, window, 3, page.id)
    assert viewer.lab.currentWidget() is viewer.lab.coming
    assert "still to come" in viewer.lab.coming.text() and COMING_WHAT in viewer.lab.coming.text()
    assert not viewer.run_button.isEnabled() and "still to come" in viewer.number.message.text()
    qtbot.keyClick(viewer, Key.Key_R)
    assert viewer.running is None and window.services.runner.is_idle()
    switch_language(window, "zh")
    assert "尚未" in viewer.lab.coming.text() or "还没" in viewer.lab.coming.text()
    switch_language(window, "en")


def test_a_missing_number_is_said_never_shown_as_zero(qtbot, window):
    viewer = open_viewer(qtbot, window, 2, "divergence")
    result = lessons.run_page(viewer.page)
    empty = dataclasses.replace(result, series=())
    viewer.running = (2, viewer.page)
    viewer.lab.result_ready.emit(empty)
    assert viewer.number.number is None and viewer.number.value.isHidden()
    assert "no number to show" in viewer.number.message.text() and "branch-efficiency" in viewer.number.message.text()


@pytest.fixture
def recorded_chapter(tmp_path, monkeypatch):
    """Chapter 2 with its divergence page recorded (a real run saved in the test's own folder)."""
    monkeypatch.setattr("gpulab.lessons.run.recordings_dir", lambda: tmp_path)
    chapter = lessons.chapter(2)
    page = chapter.page("divergence")
    lessons.run_page(page).save(tmp_path / "divergence.json")
    pages = tuple(dataclasses.replace(p, recording="divergence.json") if p is page else p for p in chapter.pages)
    recorded = dataclasses.replace(chapter, pages=pages)
    every = tuple(recorded if c.number == 2 else c for c in lessons.chapters())
    monkeypatch.setattr(lessons, "chapters", lambda: every)
    monkeypatch.setattr(lessons, "chapter", lambda n: next(c for c in every if c.number == n))
    return recorded


def test_a_page_with_a_recording_shows_it_replayed_with_its_machine_and_date(qtbot, window, recorded_chapter):
    viewer = open_viewer(qtbot, window, 2, "divergence")
    number = viewer.number.number
    assert number is not None and number.replayed and number.value == pytest.approx(50.0)
    assert viewer.number.badge.text() == "REPLAYED"
    assert number.machine in viewer.number.details.text() and number.date[:10] in viewer.number.details.text()
    assert viewer.lab.current_panel().provenance == "replayed"


def test_gpulab_lesson_opens_the_page_in_presenter_mode_for_a_screenshot(qapp, tmp_path):
    from gpulab.cli import parse
    from ui.app import run_gui

    args = parse(["--lesson", "2", "--page", "3", "--presenter", "--lang", "zh"])
    assert (args.lesson, args.page, args.presenter, args.command) == (2, "3", True, None)
    assert run_gui(lesson=2, page="3", presenter=True, lang="zh", screenshot=str(tmp_path / "p.png")) == 0
    assert (tmp_path / "p.png").stat().st_size > 0
    assert run_gui(lesson=2, page="99", screenshot=str(tmp_path / "bad.png")) == 2
    assert not (tmp_path / "bad.png").exists()


def test_s_opens_the_speaker_view_with_the_pages_notes_the_next_title_and_a_clock(qtbot, window):
    from ui.speaker import clock_text

    viewer = open_viewer(qtbot, window, 2, "divergence")
    qtbot.keyClick(viewer, Key.Key_F5)
    qtbot.keyClick(viewer, Key.Key_S)
    speaker = viewer.speaker
    assert speaker is not None and speaker.isVisible() and speaker.isWindow()
    page = lessons.chapter(2).page("divergence")
    assert speaker.notes.text() == page.notes.en
    assert speaker.next_title.text() == "Next: " + lessons.chapter(2).page("pcie").title.en
    speaker.started -= 125  # the talk began two minutes and five seconds ago
    speaker.tick()
    assert speaker.clock.text() == "02:05" and clock_text(3725) == "1:02:05"
    # The clicker's PageDown turns the page from the speaker's window too, and the notes follow.
    qtbot.keyClick(speaker, Key.Key_PageDown)
    assert place(viewer) == (2, 3) and speaker.notes.text() == lessons.chapter(2).page("pcie").notes.en
    qtbot.mouseClick(speaker.restart_button, Qt.MouseButton.LeftButton)
    assert speaker.clock.text() == "00:00"
    switch_language(window, "zh")
    assert speaker.notes.text() == lessons.chapter(2).page("pcie").notes.zh
    switch_language(window, "en")
    qtbot.keyClick(viewer, Key.Key_S)
    assert not speaker.isVisible()
    qtbot.keyClick(viewer, Key.Key_Escape)


def test_the_last_pages_speaker_view_says_it_is_the_last(qtbot, window):
    last = lessons.chapters()[-1]
    viewer = open_viewer(qtbot, window, last.number, len(last.pages))
    qtbot.keyClick(viewer, Key.Key_S)
    assert viewer.speaker.next_title.text() == "This is the last page."
    qtbot.keyClick(viewer, Key.Key_S)


def test_presenter_mode_folds_the_labs_settings_away_and_the_button_brings_them_back(qtbot, window):
    from ui.panels.lesson_lab import settings_of

    viewer = open_viewer(qtbot, window, 4, "parallelism")
    form = settings_of(viewer.lab.current_panel())
    assert form.isVisible()
    qtbot.keyClick(viewer, Key.Key_F5)
    assert not form.isVisible() and viewer.settings_button.isVisible()
    qtbot.keyClick(viewer, Key.Key_R)  # the page's Run still runs the folded form
    qtbot.waitUntil(lambda: viewer.number.number is not None, timeout=RUN_TIMEOUT_MS)
    qtbot.mouseClick(viewer.settings_button, Qt.MouseButton.LeftButton)
    assert form.isVisible() and viewer.settings_button.text() == "Hide settings"  # presenter mode's short words
    qtbot.keyClick(viewer, Key.Key_Escape)
    assert form.isVisible()


def test_presenter_mode_folds_cpu_vs_gpus_form_and_the_series_stay_beside_the_plot(qtbot, window):
    viewer = open_viewer(qtbot, window, 0, "matmul")
    panel = viewer.lab.current_panel()
    assert panel.choices.isVisible()
    wide = panel.controls_scroll.width()
    qtbot.keyClick(viewer, Key.Key_F5)
    assert not panel.choices.isVisible() and not panel.run_controls.isVisible() and viewer.settings_button.isVisible()
    assert panel.controls_scroll.width() < wide  # the plot gets the room
    qtbot.keyClick(viewer, Key.Key_R)  # the page's Run runs the folded form's preset
    qtbot.waitUntil(lambda: viewer.number.number is not None, timeout=RUN_TIMEOUT_MS)
    assert panel.legend_box.isVisible() and len(panel.legend_box.badges()) == 3  # the series and their badges stay
    qtbot.mouseClick(viewer.settings_button, Qt.MouseButton.LeftButton)
    assert panel.choices.isVisible() and panel.run_controls.isVisible()
    qtbot.keyClick(viewer, Key.Key_Escape)


def test_presenter_mode_numbers_the_sources_and_grows_the_bars_type_with_the_window(qtbot, window):
    """In presenter mode each fact ends with its source's number and one Sources paragraph lists
    them (a source cited twice once); the bar's buttons grow with the window as the text does."""
    window.presenter.full_screen = False
    window.resize(1920, 1080)
    viewer = window.open_lesson(4, 6)  # two facts from one paper, at two sections of it
    button_px = viewer.nav.next_button.fontInfo().pixelSize()
    assert "Source:" in viewer.text.facts.text() and viewer.text.sources.isHidden()
    qtbot.keyClick(viewer, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: viewer.presenting)
    facts, sources = viewer.text.facts.text(), viewer.text.sources.text()
    assert "[1]</li>" in facts and "[2]</li>" in facts and "Source:" not in facts
    assert sources.startswith("<i>Sources: [1]") and "[2]" in sources and "§3.3.4, Table 5" in sources
    assert viewer.text.where.isHidden()  # the bar says the chapter and the page
    assert viewer.nav.next_button.fontInfo().pixelSize() == window.height() // 36 > button_px
    assert viewer.run_button.fontInfo().pixelSize() == window.height() // 36
    qtbot.keyClick(viewer, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not viewer.presenting)
    assert viewer.nav.next_button.fontInfo().pixelSize() == button_px and viewer.text.sources.isHidden()
