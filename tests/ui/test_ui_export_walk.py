"""Every page's Export, clicked as a teacher clicks it before a lecture: open the page from the
sidebar, run it (its walk from the walkthrough), then, in each theme, each size (a 1024x768
projector, a 1920x1080 screen) and each language picked from the View menu, the page's layout is
checked (nothing scrolled away, Run and Export on screen, the picture at least half the page) and
each format is chosen from the Export menu; each file is reopened the way its reader would open it.

Only the file dialog is stubbed (the button's ``ask_path``): the menu entry, the page's export, the
composition and the writing are the real ones.
"""

from __future__ import annotations

import csv
import os
from datetime import datetime
from pathlib import Path
from xml.etree import ElementTree

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from gpulab.results import replay
from tests.ui.test_ui_walkthrough import walk_of
from tests.ui.walk import click_tab, layout_problems, open_panel, switch_language, switch_theme
from ui.panels import PANELS, panel_names
from ui.widgets.export import FORMATS, PICTURES

EXPORTING = [p.name for p in PANELS if p.lab or p.name in ("cpu-vs-gpu", "experiments", "trace")]  # with a picture
KEEP = os.environ.get("GPULAB_EXPORT_KEEP")  # a folder to copy the exports into, to look at them


def distinct_colours(image: QImage, step: int = 7) -> int:
    """How many colours a sample of the image's pixels has (a blank picture has one)."""
    seen = set()
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            seen.add(image.pixel(x, y))
    return len(seen)


def reopen_svg(path: Path) -> QImage:
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid(), f"{path.name} is not a drawing Qt can read"
    size = renderer.defaultSize()
    assert size.width() > 100 and size.height() > 100
    image = QImage(size.boundedTo(QSize(1200, 1200)), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    return image


def svg_words(path: Path) -> str:
    """Every word the drawing writes (a wrapped title is written a line at a time)."""
    return " ".join(element.text or "" for element in ElementTree.parse(path).getroot().iter())


def check_reopens(path: Path, fmt: str, panel) -> None:
    """The file is there, not empty, and reads back as what it claims to be."""
    assert path.exists() and path.stat().st_size > 0, f"{path.name} is missing or empty"
    if fmt == "png":
        image = QImage(str(path))
        assert not image.isNull(), f"{path.name} is not an image"
        assert distinct_colours(image) > 20, f"{path.name} is blank"
    elif fmt == "svg":
        assert distinct_colours(reopen_svg(path)) > 20, f"{path.name} draws nothing"
        words = svg_words(path)
        title = panel.export_title() if hasattr(panel, "export_title") else panel.heading.text()  # the lab's
        assert all(word in words for word in title.split()), "the drawing lost its title"
    elif fmt == "csv":
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
        assert rows and all(row["provenance"] for row in rows)
    else:
        reopened = replay(path)
        assert reopened.experiment == panel.last_result.experiment
        assert [s.name for s in reopened.series] == [s.name for s in panel.last_result.series]


def export_all(panel, folder: Path, language: str) -> list[Path]:
    """Each entry of the Export menu in turn, the dialog answered with a file in ``folder``."""
    button = panel.export_button
    assert button.isVisible() and button.isEnabled(), "Export is not offered after the run"
    if hasattr(panel, "export_view"):
        assert panel.export_view().isVisible(), "the picture would show a view that is not on screen"
    written = []
    for fmt, action in zip(FORMATS, button.menu().actions(), strict=True):
        path = folder / f"{language}.{fmt}"
        button.ask_path = lambda _fmt, p=path: str(p)
        action.trigger()
        check_reopens(path, fmt, panel)
        written.append(path)
    return written


def no_leftovers(folder: Path) -> list[str]:
    """Temporary files an export left behind (they start with a dot)."""
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def settled_problems(qtbot, window, panel) -> list[str]:
    """The page's layout problems once it has settled: on a loaded machine a deferred layout step
    (a splitter's share, a refit) can land after the first quiet moment, and a person sees the
    page after it. A problem that lasts the whole bound is a real one."""
    found: list[str] = []

    def clean() -> bool:
        found[:] = layout_problems(window, panel)
        return not found

    try:
        qtbot.waitUntil(clean, timeout=5000)
    except qtbot.TimeoutError:
        pass
    return found


SIZES = ((1024, 768), (1920, 1080))
THEMES = ("light", "projector")


@pytest.mark.parametrize("name", [p.name for p in PANELS])
def test_each_page_fits_and_exports_every_format_in_both_themes_sizes_and_languages(qtbot, window, name, tmp_path):
    panel = open_panel(qtbot, window, name)
    exports = name in EXPORTING
    if exports:
        assert not panel.export_button.isEnabled(), "Export is offered before there is anything to export"
    walk_of(name)(qtbot, window, panel)
    problems = []
    for theme in THEMES:
        switch_theme(window, theme)
        for width, height in SIZES:
            window.resize(width, height)
            qtbot.waitUntil(lambda w=width, h=height: (window.width(), window.height()) == (w, h))
            for language in ("en", "zh"):
                switch_language(window, language)
                where = f"{theme} {width}x{height} {language}"
                problems += [f"{where}: {problem}" for problem in settled_problems(qtbot, window, panel)]
                if not exports:
                    continue
                written = export_all(panel, tmp_path, f"{theme}-{width}-{language}")
                errors = [text for level, text in window.services.notifier.history if level == "error"]
                assert not errors, f"{where}: {errors}"
                if KEEP:
                    for path in written:
                        (Path(KEEP) / f"{name}-{path.name}").write_bytes(path.read_bytes())
    assert not problems, "\n".join(problems)
    assert not no_leftovers(tmp_path)
    switch_language(window, "en")


def test_every_page_with_a_lab_has_an_export_button():
    assert set(EXPORTING) <= set(panel_names())
    assert all(p.name in EXPORTING for p in PANELS if p.lab)


# --------------------------------------------------------------- what a failed export leaves


def shown_saxpy(qtbot, device_reports):
    from tests.ui.test_ui_lab_panel import _lab, _result_with_peaks

    panel = _lab(qtbot, device_reports.no_gpu)
    panel.show_result(_result_with_peaks())
    return panel


def choose_format(panel, fmt: str, path: Path) -> None:
    panel.export_button.ask_path = lambda _fmt: str(path)
    panel.export_button.menu().actions()[FORMATS.index(fmt)].trigger()


def errors_of(panel) -> list[str]:
    return [text for level, text in panel.services.notifier.history if level == "error"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_into_a_missing_folder_says_so_in_chinese_and_writes_nothing(qtbot, device_reports, tmp_path, fmt):
    from ui import i18n

    i18n.set_language("zh")
    panel = shown_saxpy(qtbot, device_reports)
    choose_format(panel, fmt, tmp_path / "gone" / f"out.{fmt}")
    assert len(errors_of(panel)) == 1 and "无法保存" in errors_of(panel)[0]
    assert list(tmp_path.iterdir()) == []
    assert panel.isVisible() and panel.export_button.isEnabled()  # the page lives on; Export can be tried again


@pytest.mark.parametrize("fmt", PICTURES)
def test_a_picture_that_cannot_be_written_keeps_the_file_already_there(
    qtbot, device_reports, tmp_path, monkeypatch, fmt
):
    panel = shown_saxpy(qtbot, device_reports)
    target = tmp_path / f"slide.{fmt}"
    target.write_bytes(b"last week's picture")

    def broken(*_args, **_kwargs):
        raise RuntimeError("the painter gave up half-way")

    monkeypatch.setattr("ui.widgets.export._paint", broken)
    choose_format(panel, fmt, target)
    assert "the painter gave up half-way" in errors_of(panel)[0]
    assert target.read_bytes() == b"last week's picture"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary file left beside it


def test_an_exported_drawing_names_each_series_its_kind_the_machine_and_the_date(qtbot, device_reports, tmp_path):
    panel = shown_saxpy(qtbot, device_reports)
    choose_format(panel, "svg", tmp_path / "out.svg")
    words = svg_words(tmp_path / "out.svg")
    result = panel.last_result
    assert panel.heading.text() in words
    assert "GPU (CUDA kernel)" in words and "MEASURED" in words
    assert result.host["hostname"] in words and "Test H100" in words
    assert datetime.fromisoformat(result.created).astimezone().strftime("%Y-%m-%d") in words


# --------------------------------------------------------------- the view the user sees


@pytest.mark.parametrize(
    ("name", "tabs_of", "shown_of"),
    [
        ("cluster-scaling", lambda p: p.explorer.tabs, lambda p: p.explorer.scaling_plot),
        ("allreduce-steps", lambda p: p.tabs, lambda p: p.plot),
        ("transfer", lambda p: p.tabs, lambda p: p.bars),
    ],
)
def test_the_picture_follows_the_tab_the_user_clicked(qtbot, window, tmp_path, name, tabs_of, shown_of):
    panel = open_panel(qtbot, window, name)
    walk_of(name)(qtbot, window, panel)
    first = panel.export_view()
    click_tab(qtbot, tabs_of(panel), 1)
    assert panel.export_view() is not first
    assert shown_of(panel) is panel.export_view() or panel.export_view().isAncestorOf(shown_of(panel))
    export_all(panel, tmp_path, "en")
    words = svg_words(tmp_path / "en.svg")
    assert all(word in words for word in tabs_of(panel).tabText(1).split())  # the tab's name heads the picture
