"""Starting the app: run_gui's screenshot mode, and how language and theme are chosen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtGui import QImage

from ui import i18n, settings
from ui.app import PANEL_NAMES, choose_language, choose_theme, image_is_blank, run_gui


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_run_gui_saves_a_painted_1024_by_768_screenshot(qapp, tmp_path, lang):
    path = tmp_path / f"shot_{lang}.png"
    assert run_gui(panel="experiments", lang=lang, theme="projector", screenshot=str(path)) == 0
    image = QImage(str(path))
    assert (image.width(), image.height()) == (1024, 768)
    assert not image_is_blank(image)
    assert i18n.current_language() == lang


def test_a_screenshot_can_be_taken_at_1920_by_1080(qapp, tmp_path):
    path = tmp_path / "wide.png"
    assert run_gui(panel="cpu-vs-gpu", screenshot=str(path), screenshot_size=(1920, 1080)) == 0
    image = QImage(str(path))
    assert (image.width(), image.height()) == (1920, 1080) and not image_is_blank(image)


@pytest.mark.parametrize("text", ["1920", "10x10", "axb", "1920x99999"])
def test_a_bad_screenshot_size_is_a_usage_error_naming_the_option(text, capsys):
    from gpulab.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--screenshot", "unused.png", "--screenshot-size", text])
    assert stop.value.code == 2
    assert "--screenshot-size" in capsys.readouterr().err


def test_run_gui_refuses_an_unknown_panel_with_a_message(qapp, capsys):
    assert run_gui(panel="no-such-panel", screenshot="unused.png") == 2
    assert "no panel 'no-such-panel'" in capsys.readouterr().err


def test_a_blank_screenshot_is_refused_and_not_written(qapp, tmp_path, monkeypatch):
    from PySide6.QtGui import QPixmap

    from ui.main_window import MainWindow

    flat = QPixmap(64, 64)
    flat.fill()
    monkeypatch.setattr(MainWindow, "grab", lambda self: flat)
    assert run_gui(screenshot=str(tmp_path / "blank.png")) == 1
    assert not (tmp_path / "blank.png").exists()


def test_panel_names_come_from_the_panel_registry():
    from ui.panels import PANELS

    assert PANEL_NAMES == tuple(spec.name for spec in PANELS)
    assert PANEL_NAMES[:3] == ("welcome", "devices", "cpu-vs-gpu")  # a newcomer starts on the lesson's map


def test_the_language_is_the_flag_then_the_saved_choice_then_the_system_locale(qapp, monkeypatch):
    monkeypatch.setattr(i18n.QLocale, "system", lambda: QLocale("zh_CN"))
    assert choose_language(None) == "zh"
    settings.save_value(settings.LANGUAGE_KEY, "en")
    assert choose_language(None) == "en"
    assert choose_language("zh") == "zh"
    assert choose_language("zh_TW") == "zh"


def test_an_unknown_system_locale_falls_back_to_english(monkeypatch):
    monkeypatch.setattr(i18n.QLocale, "system", lambda: QLocale("de_DE"))
    assert i18n.system_language() == "en"


def test_the_theme_is_the_flag_then_the_saved_choice_then_light(qapp):
    assert choose_theme(None) == "light"
    settings.save_value(settings.THEME_KEY, "dark")
    assert choose_theme(None) == "dark"
    assert choose_theme("projector") == "projector"
    assert choose_theme("neon") == "dark"


def test_settings_are_written_to_the_temporary_location(tmp_path):
    settings.save_value(settings.PANEL_KEY, "devices")
    assert settings.open_settings().fileName().startswith(str(tmp_path))
    assert settings.saved_value(settings.PANEL_KEY) == "devices"


def test_a_flat_image_is_blank_and_a_drawn_one_is_not():
    image = QImage(50, 50, QImage.Format.Format_RGB32)
    image.fill(0xFFFFFF)
    assert image_is_blank(image)
    for x in range(0, 50, 2):
        image.setPixel(x, 10, 0x000000)
    assert not image_is_blank(image, min_std=1.0)


def test_command_line_choices_do_not_overwrite_the_saved_ones(qapp, tmp_path):
    settings.save_value(settings.THEME_KEY, "dark")
    settings.save_value(settings.LANGUAGE_KEY, "en")
    assert run_gui(lang="zh", theme="projector", screenshot=str(tmp_path / "shot.png")) == 0
    assert settings.saved_value(settings.THEME_KEY) == "dark"
    assert settings.saved_value(settings.LANGUAGE_KEY) == "en"


def test_a_screenshot_that_cannot_be_written_is_kept_in_a_named_fallback_file(qapp, tmp_path, monkeypatch,
                                                                               capsys):
    from PySide6.QtGui import QColor, QPainter

    from ui.app import _write_image

    image = QImage(64, 64, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.fillRect(0, 0, 32, 64, QColor("black"))
    painter.end()
    monkeypatch.chdir(tmp_path)
    code = _write_image(image, tmp_path / "gone" / "shot.png", True)
    err = capsys.readouterr().err
    assert code == 1
    assert not (tmp_path / "gone").exists()  # no folder is created
    saved = tmp_path / err.split("saved to ")[1].strip().rsplit("/", 1)[-1]
    assert saved.exists() and "could not write the screenshot" in err


def test_the_cycle_collector_runs_only_on_the_gui_thread_once_the_app_exists(qapp):
    import gc

    from ui.app import get_app

    get_app()
    assert not gc.isenabled()  # no automatic collection in whichever thread allocates
    import ui.app

    assert ui.app._collector is not None and ui.app._collector.timer.isActive()


FIRST_PAINT_CHILD = r"""
import sys, time
from PySide6.QtCore import QSettings
from ui.app import get_app, start_window
app = get_app()
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, sys.argv[1])
window = start_window(None, "en", "light", paint_first=True)
before = ("pyqtgraph" in sys.modules, len(window.panels))
window.show()
deadline = time.monotonic() + 60
while not (window.started and len(window.panels)) and time.monotonic() < deadline:
    app.processEvents()
after = ("pyqtgraph" in sys.modules, list(window.panels), window.current_panel() is window.panels["welcome"])
print(before, after)
"""


def test_the_window_paints_its_frame_before_it_loads_pyqtgraph_and_builds_the_first_page(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", FIRST_PAINT_CHILD, str(tmp_path)], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "(False, 0) (True, ['welcome'], True)"


def test_the_cycle_collector_runs_on_the_gui_threads_timer_not_on_its_own(qapp):
    import gc
    import weakref

    from ui.app import _GuiThreadCollector

    enabled = gc.isenabled()
    collector = _GuiThreadCollector(interval_ms=60_000)
    try:
        assert not gc.isenabled()

        class Node:
            pass

        first, second = Node(), Node()
        first.other, second.other = second, first  # a cycle only the collector can free
        alive = weakref.ref(first)
        del first, second
        kept = [Node() for _ in range(collector.thresholds[0] + 1)]  # live allocations make generation 0 due
        collector.collect()
        assert kept
        assert alive() is None
    finally:
        collector.timer.stop()
        if enabled:
            gc.enable()
