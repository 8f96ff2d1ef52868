"""The main window: every panel paints, themes and languages switch, choices persist."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from ui import i18n, settings
from ui.app import image_is_blank
from ui.panels import PANELS
from ui.theme import THEME_NAMES, current_theme


def _grab_is_blank(widget) -> bool:
    return image_is_blank(widget.grab().toImage())


@pytest.mark.parametrize("name", [spec.name for spec in PANELS])
def test_every_registered_panel_opens_and_paints_something(window, name):
    window.show_panel(name)
    assert window.current_panel() is window.panels[name]
    assert not _grab_is_blank(window.current_panel())
    assert not _grab_is_blank(window)


def test_at_start_up_only_the_panel_on_screen_is_built(window):
    first = PANELS[0].name
    assert list(window.panels) == [first] and list(window.pages) == [first]
    assert window.stack.count() == 1 and window.current_panel() is window.panels[first]


def test_a_click_in_the_sidebar_builds_the_panel_it_opens(qtbot, window):
    from tests.ui.walk import open_panel

    assert "precision" not in window.panels
    panel = open_panel(qtbot, window, "precision")
    assert "precision" in window.panels and window.current_panel() is panel
    assert list(window.panels) == [PANELS[0].name, "precision"] and window.stack.count() == 2
    assert not _grab_is_blank(panel)


def test_a_panel_built_after_a_language_and_theme_switch_comes_up_in_both(qtbot, window):
    from tests.ui.walk import open_panel, switch_language

    built = window.panels[PANELS[0].name]
    window.theme_actions["dark"].trigger()
    switch_language(window, "zh")
    run_button = open_panel(qtbot, window, "experiments").run_button
    assert run_button.text() == "运行"
    assert window.panels["experiments"].plot.backgroundBrush().color().lightness() < 80
    switch_language(window, "en")
    assert run_button.text() == "Run"  # the panel built in Chinese is retranslated with the rest
    assert built is window.panels[PANELS[0].name]  # switching rebuilt nothing


def test_a_pyqtgraph_plot_paints_a_visible_image(fake_experiment, window, qtbot):
    window.show_panel("experiments")
    panel = window.current_panel()
    job = panel.run_experiment()
    qtbot.waitUntil(lambda: job.is_over, timeout=5000)
    image = panel.plot.grab().toImage()
    assert image.width() > 100 and image.height() > 100
    assert not image_is_blank(image)


def test_the_status_bar_names_the_missing_gpu_in_plain_words(window):
    assert window.device_label.text() == "CPU only — no NVIDIA driver"
    assert "test report" in window.device_label.toolTip()


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_the_window_fits_a_1024_by_768_screen_in_every_theme(window, theme):
    window.set_theme(theme)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 768, hint


@pytest.mark.parametrize("theme", THEME_NAMES)
@pytest.mark.parametrize("name", ["devices", "experiments"])
def test_the_first_panels_need_no_scrolling_at_1024_by_768(window, theme, name):
    window.set_theme(theme)
    window.resize(1024, 768)
    window.show_panel(name)
    QApplication.processEvents()
    room = window.stack.currentWidget().viewport().size()
    needed = window.panels[name].minimumSizeHint()
    assert needed.width() <= room.width() and needed.height() <= room.height(), (needed, room)


def test_switching_to_the_dark_theme_darkens_the_window_and_the_plots(window):
    window.set_theme("dark")
    window_colour = QApplication.instance().palette().color(QPalette.ColorRole.Window)
    plot = window.panels["experiments"].plot
    assert window_colour.lightness() < 80
    assert plot.backgroundBrush().color().lightness() < 80
    assert window.theme_actions["dark"].isChecked()


def test_the_projector_theme_uses_large_type_and_thick_lines(fake_experiment, window, qtbot):
    window.set_theme("projector")
    assert QApplication.instance().font().pointSize() >= 16
    window.show_panel("experiments")
    job = window.current_panel().run_experiment()
    qtbot.waitUntil(lambda: job.is_over, timeout=5000)
    curves = window.current_panel().plot.getPlotItem().listDataItems()
    assert curves and all(curve.opts["pen"].width() >= 3 for curve in curves)
    assert current_theme().line_width >= 3


def test_switching_the_language_retranslates_the_open_window(window):
    run_button = window.panels["experiments"].run_button
    assert run_button.text() == "Run"
    window.set_language("zh")
    assert run_button.text() == "运行"
    assert window.sidebar.panel_item("devices").text() == "设备"
    assert window.view_menu.title() == "视图(&V)"
    assert window.device_label.text() == "仅 CPU — 没有 NVIDIA 驱动"
    window.set_language("en")
    assert run_button.text() == "Run"
    assert window.sidebar.panel_item("devices").text() == "Devices"


def test_the_badge_follows_the_panel_on_screen(fake_experiment, window, qtbot):
    window.show_panel("experiments")
    assert window.badge.kind == ""
    job = window.current_panel().run_experiment()
    qtbot.waitUntil(lambda: job.is_over, timeout=5000)
    assert window.badge.kind == "emulated"
    window.show_panel("devices")
    assert window.badge.kind == "measured"


def test_theme_language_and_panel_choices_survive_a_restart(window, qtbot):
    from ui.app import start_window

    window.set_theme("dark")
    window.set_language("zh")
    window.show_panel("experiments")
    assert settings.saved_value(settings.THEME_KEY) == "dark"
    i18n.set_language("en")
    restarted = start_window()
    qtbot.addWidget(restarted)
    assert current_theme().name == "dark"
    assert i18n.current_language() == "zh"
    assert restarted.current_panel() is restarted.panels["experiments"]
    assert restarted.panels["experiments"].run_button.text() == "运行"


def test_a_missing_chinese_font_is_reported_in_plain_words(window, monkeypatch):
    monkeypatch.setattr(i18n, "has_cjk_font", lambda: False)
    window.set_language("zh")
    assert window.message_bar.isVisible()
    assert "No Chinese font" in window.message_bar.text_label.text()
    assert "fonts-noto-cjk" in window.services.notifier.history[-1][1]


def test_the_cjk_font_check_asks_the_font_database_for_simplified_chinese(monkeypatch):
    from PySide6.QtGui import QFontDatabase

    asked = []
    monkeypatch.setattr(QFontDatabase, "families", lambda system=None: asked.append(system) or [])
    assert i18n.has_cjk_font() is False
    assert i18n.font_warning("zh") == i18n.NO_CJK_FONT_MESSAGE
    assert i18n.font_warning("en") is None
    assert asked[0] == QFontDatabase.WritingSystem.SimplifiedChinese


def test_about_lists_the_versions_of_qt_pyside_pyqtgraph_numpy_cupy_and_cuda(window):
    import PySide6
    from PySide6.QtWidgets import QLabel

    dialog = window.show_about()
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    for name in (
        "Qt:",
        "PySide6:",
        "pyqtgraph:",
        "numpy:",
        "CuPy:",
        "CUDA runtime:",
        "CUDA driver:",
        "Python:",
        "gpulab:",
    ):
        assert name in texts, name
    assert PySide6.__version__ in texts
    assert pg.__version__ in texts
    dialog.close()


def test_job_errors_show_in_the_message_area_and_the_window_stays_usable(fake_experiment, window, qtbot):
    window.show_panel("experiments")
    panel = window.current_panel()
    panel.editors["fail_at"].setText("2")
    job = panel.run_experiment()
    qtbot.waitUntil(lambda: job.is_over, timeout=5000)
    assert window.message_bar.isVisible()
    assert "fake failure at step 2" in window.message_bar.text_label.text()
    assert panel.run_button.isEnabled()
    panel.editors["fail_at"].setText("-1")
    again = panel.run_experiment()
    qtbot.waitUntil(lambda: again.is_over, timeout=5000)
    assert again.state == "done"


def test_closing_the_window_stops_running_jobs(fake_experiment, window, qtbot):
    window.show_panel("experiments")
    panel = window.current_panel()
    panel.editors["steps"].setText("1000")
    panel.editors["delay_s"].setText("0.01")
    job = panel.run_experiment()
    qtbot.waitUntil(lambda: job.state == "running", timeout=5000)
    window.close()
    assert job.state == "cancelled"


def test_notes_pass_through_the_status_bar_and_leave_the_message_area_alone(window):
    window.services.notifier.info("Saved the report.")
    assert window.note_label.text() == "Saved the report."
    assert window.message_bar.isHidden()


def test_qt_standard_buttons_are_translated_too(window):
    from PySide6.QtWidgets import QPushButton

    window.set_language("zh")
    dialog = window.show_about()
    assert "关闭" in [button.text() for button in dialog.findChildren(QPushButton)]
    dialog.close()


def test_the_gui_thread_keeps_running_while_a_job_computes(window, qtbot):
    import threading
    import time

    from PySide6.QtCore import QTimer

    from gpulab.experiments import Progress

    ran: dict[str, float | int] = {}

    def busy(ctx):
        ran["thread"] = threading.get_ident()
        ran["start"] = time.monotonic()
        deadline = ran["start"] + 1.0
        while time.monotonic() < deadline:  # pure-Python work, no yield for a second
            sum(range(1000))
        ran["end"] = time.monotonic()
        yield Progress(1.0, "done")
        return None

    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(10)
    job = window.services.runner.submit("busy", "cpu", busy)
    qtbot.waitUntil(lambda: job.is_over, timeout=10_000)
    timer.stop()
    # the job ran on another thread, and the GUI thread handled its timer while the job worked
    # (counts, not durations: the machine may be busy, but a frozen GUI thread ticks zero times)
    assert ran["thread"] != threading.get_ident()
    during = [t for t in ticks if ran["start"] < t < ran["end"]]
    assert len(during) >= 2, (len(during), len(ticks))


@pytest.mark.parametrize("theme", THEME_NAMES)
def test_every_style_sheet_placeholder_is_filled_in(window, theme):
    import re

    window.set_theme(theme)
    sheet = re.sub(r"/\*.*?\*/", "", QApplication.instance().styleSheet(), flags=re.S)
    assert "QLabel#gpuBanner" in sheet
    assert "@" not in sheet


def test_closing_the_window_asks_every_built_panel_to_shut_down(window, monkeypatch):
    window.show_panel("experiments")
    stopped = []
    for name, panel in window.panels.items():
        monkeypatch.setattr(panel, "shutdown", lambda name=name: stopped.append(name))
    window.close()
    assert stopped == list(window.panels) == [PANELS[0].name, "experiments"]


# ------------------------------------------------------------ File → Open result…


def _saved_result(tmp_path):
    from gpulab.catalogue import msg
    from gpulab.results import Point, Provenance, Result, Series

    measured = Series("CPU (numpy)", Provenance("measured", "a CPU"), "elements", "", "bandwidth", "GB/s",
                      points=(Point(1024, 8.0), Point(1 << 16, 50.0)), role="cpu", key="cpu")  # fmt: skip
    model = Series("H100 (model)", Provenance("modelled", "H100"), "elements", "", "bandwidth", "GB/s",
                   points=(Point(1024, 2.0), Point(1 << 16, 150.0)), role="model", key="model",
                   label=msg("series.model", gpu="H100"))  # fmt: skip
    path = tmp_path / "saved.json"
    Result("vector-add", {"sizes": [1024, 65536]}, (measured, model), ("a saved note",)).save(path)
    return path


def test_file_open_result_shows_a_saved_result_as_replayed_in_the_run_experiment_panel(window, tmp_path):
    path = _saved_result(tmp_path)
    window.ask_result_path = lambda: str(path)
    window.open_action.trigger()  # File → Open result…
    panel = window.current_panel()
    assert panel is window.panels["experiments"]
    assert panel.experiment_combo.currentData() == "vector-add"
    assert set(panel.plot.curves) == {"CPU (numpy)", "H100 (model)"}
    assert set(panel.plot.kinds.values()) == {"replayed"}
    assert panel.provenance == "replayed" and window.badge.kind == "replayed"
    assert "a saved note" in panel.notes.toPlainText()
    assert window.message_bar.isHidden()


def test_a_malformed_result_file_is_one_clear_error_in_the_window(window, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "gpulab.result/2", "series": 3}', encoding="utf-8")
    window.ask_result_path = lambda: str(path)
    window.open_action.trigger()
    assert window.message_bar.isVisible()
    text = window.message_bar.text_label.text()
    assert text.startswith("Could not open the result:") and "broken.json" in text and "Traceback" not in text


def test_cancelling_the_open_dialog_opens_nothing(window):
    window.ask_result_path = lambda: ""
    before = window.current_panel()
    window.open_action.trigger()
    assert window.current_panel() is before and window.message_bar.isHidden()


@pytest.mark.parametrize("projector_window", ["en", "zh"], indirect=True)
def test_on_a_1024_by_768_projector_no_panel_page_scrolls_sideways(qtbot, projector_window):
    """A page wider than the screen hides its right edge behind a scroll bar a teacher must drag."""
    from tests.ui.walk import open_panel

    wide = {}
    for name in [spec.name for spec in PANELS]:
        open_panel(qtbot, projector_window, name)  # from the sidebar, as a person does (it builds the page)
        page = projector_window.pages[name]
        qtbot.waitUntil(page.widget().isVisible)
        # The range is 0 until the page is laid out (a slow machine can only miss an overflow
        # here, never invent one): give the layout its moment, then read it.
        qtbot.wait(100)
        if page.horizontalScrollBar().maximum() > 0:
            wide[name] = page.widget().minimumSizeHint().width() - page.viewport().width()
    assert wide == {}, wide  # panel -> pixels too wide
