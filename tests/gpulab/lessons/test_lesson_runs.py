"""Running a page: its preset through the lab's own run, the big number read from that run (never
typed in), a clear error when the run lacks it, a recorded result replayed with its machine and date,
and ``gpulab lesson`` printing a page and its number."""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest

from gpulab import lessons
from gpulab.catalogue import render
from gpulab.cli import main
from gpulab.lessons import LessonFormatError, MissingNumber
from gpulab.results import Point, Result
from tests.gpulab.lessons.coming import COMING_WHAT, coming_page, with_a_coming_page

LIVE = [(c, p) for c in lessons.chapters() for p in c.pages if p.is_live]
NO_MPI = importlib.util.find_spec("mpi4py") is None


@pytest.mark.parametrize(("chapter", "page"), LIVE, ids=[f"{c.number}-{p.id}" for c, p in LIVE])
def test_every_live_pages_preset_runs_here_and_gives_its_big_number(chapter, page):
    """Every preset is small: the slowest (precision, fusion) take a few seconds on a laptop CPU."""
    if page.lab == "collectives" and NO_MPI:
        pytest.skip("the collectives lab's CPU ranks need mpi4py (pip install -e '.[mpi]')")
    result = lessons.run_page(page)
    number = lessons.big_number(page, result)
    assert number.value == number.value and number.value > 0  # a real number, not NaN, not an empty ratio
    assert number.kind in ("measured", "emulated", "modelled")
    assert render(number.label, "zh") != render(number.label, "en")
    assert number.unit == page.number.unit or (not page.number.unit and number.unit)


def _divergence_page():
    return lessons.chapter(2).page("divergence")


def _scaled(result: Result, key: str, factor: float) -> Result:
    series = tuple(dataclasses.replace(s, points=tuple(dataclasses.replace(p, y=p.y * factor) for p in s.points))
                   if s.key == key else s for s in result.series)  # fmt: skip
    return dataclasses.replace(result, series=series)


def test_the_big_number_is_read_from_the_run_and_follows_it():
    page = _divergence_page()
    result = lessons.run_page(page)
    number = lessons.big_number(page, result)
    assert number.value == pytest.approx(50.0)  # even/odd lanes: half the branches agree, exactly
    assert (number.unit, number.kind, number.text()) == ("%", "emulated", "50")
    assert number.label.key == "lesson.number.branch-efficiency"
    assert lessons.big_number(page, _scaled(result, "branch-efficiency", 0.5)).value == pytest.approx(25.0)


def test_a_ratio_divides_two_picks_and_takes_the_weaker_provenance():
    page = lessons.chapter(0).page("small-job")
    result = lessons.run_page(page)
    number = lessons.big_number(page, result)
    cpu = next(p for p in result.get_series("cpu-numpy").points if p.x == 1024)
    gpu = next(p for p in result.get_series("model").points if p.x == 1024)
    assert number.value == pytest.approx(cpu.y / gpu.y)
    assert number.kind == "modelled" and number.unit == "×"  # measured CPU over a modelled GPU is a model's number
    assert number.per_device == result.get_series("model").provenance.device


def test_a_run_without_the_series_or_point_is_a_clear_error_naming_what_it_has():
    page = _divergence_page()
    result = lessons.run_page(page)
    no_series = dataclasses.replace(result, series=tuple(s for s in result.series if s.key != "branch-efficiency"))
    with pytest.raises(MissingNumber, match=r'page "divergence": number.pick: .*no series branch-efficiency '
                                            r"\(it has warp-execution-efficiency"):  # fmt: skip
        lessons.big_number(page, no_series)
    moved = _shifted_x(result, "branch-efficiency")
    with pytest.raises(MissingNumber, match=r"no point at x=0 \(its x: 1, 2"):
        lessons.big_number(page, moved)
    with pytest.raises(MissingNumber, match="lab is still to come"):
        lessons.big_number(coming_page(), result)


def _shifted_x(result: Result, key: str) -> Result:
    def shift(points: tuple[Point, ...]) -> tuple[Point, ...]:
        return tuple(dataclasses.replace(p, x=p.x + 1) for p in points)

    series = tuple(dataclasses.replace(s, points=shift(s.points)) if s.key == key else s for s in result.series)
    return dataclasses.replace(result, series=series)


@pytest.fixture
def recordings(tmp_path, monkeypatch):
    """A recordings folder of the test's own: a real run of the divergence page's preset saved there."""
    monkeypatch.setattr("gpulab.lessons.run.recordings_dir", lambda: tmp_path)
    monkeypatch.setattr("gpulab.lessons.validate.recordings_dir", lambda: tmp_path)
    result = lessons.run_page(_divergence_page())
    result.save(tmp_path / "divergence.json")
    return result


def test_a_recorded_result_is_replayed_with_its_machine_and_date(recordings):
    page = dataclasses.replace(_divergence_page(), recording="divergence.json")
    lessons.validate_page(page, "2-bottlenecks.toml")
    replayed = lessons.run_page(page, recorded=True)
    assert {s.provenance.kind for s in replayed.series} == {"replayed"}
    number = lessons.big_number(page, replayed)
    assert number.replayed and number.kind == "replayed" and number.original_kind == "emulated"
    assert number.machine == recordings.host["hostname"] and number.date == recordings.created
    assert number.value == pytest.approx(50.0)
    live = lessons.run_page(page)  # without recorded=True the page runs live
    assert {s.provenance.kind for s in live.series} == {"emulated"}


def test_a_recording_of_another_lab_or_a_missing_file_is_refused(recordings, tmp_path):
    launch = dataclasses.replace(lessons.chapter(2).page("launch"), recording="divergence.json")
    with pytest.raises(LessonFormatError, match=r'page "launch": recording: divergence.json is a run of '
                                                r"'divergence', not of 'launch'"):  # fmt: skip
        lessons.validate_page(launch, "2-bottlenecks.toml")
    missing = dataclasses.replace(_divergence_page(), recording="nowhere.json")
    with pytest.raises(LessonFormatError, match=r'page "divergence": recording: .*nowhere.json'):
        lessons.validate_page(missing, "2-bottlenecks.toml")


def test_no_recording_is_shipped_that_was_not_measured():
    """Recordings ship only when truly measured; none is shipped yet, and no page names one."""
    folder = lessons.recordings_dir()
    assert not folder.exists() or not list(folder.glob("*.json"))
    assert not [p.id for _c, p in LIVE if p.recording]


def test_the_cli_lists_the_chapters_in_chinese_and_english(capsys):
    assert main(["lesson"]) == 0
    zh = capsys.readouterr().out
    assert "第 0 章" in zh and "第 5 章" in zh and "[divergence]" in zh
    assert main(["lesson", "3", "--lang", "en"]) == 0
    en = capsys.readouterr().out
    assert en.startswith("Chapter 3: Squeezing one GPU")
    assert "[trace-doctor] Measure first, then change  — trace-doctor" in en


def test_the_cli_lists_a_coming_page_by_what_its_lab_will_be(capsys, monkeypatch):
    page = with_a_coming_page(monkeypatch)
    assert main(["lesson", "3", "--lang", "en"]) == 0
    assert f"[{page.id}] Hologram  — ({COMING_WHAT})" in capsys.readouterr().out


def test_the_cli_prints_a_page_and_the_big_number_of_its_run(capsys):
    assert main(["lesson", "2", "--page", "divergence", "--lang", "en", "--run"]) == 0
    out = capsys.readouterr().out
    assert "Page 2 of 4: One stove, different recipes: warp divergence" in out
    assert "Lab: divergence (page experiments, view main)" in out
    assert "Preset: n=256 kways=2,4 gpu_n=65536 repeats=3" in out
    assert "The change: kways=2,4,8" in out
    assert "source: NVIDIA, CUDA C++ Programming Guide, SIMT Architecture" in out
    assert "Big number to remember: 50 % (branch efficiency" in out
    assert "from this run: emulated on SIMT emulator" in out


def test_the_cli_shows_a_coming_page_without_running_it(capsys, monkeypatch):
    page = with_a_coming_page(monkeypatch)
    assert main(["lesson", "3", "--page", page.id, "--run"]) == 0
    out = capsys.readouterr().out
    assert f"实验尚未完成：{COMING_WHAT}" in out and "要记住的数字" not in out


def test_the_cli_names_a_page_that_does_not_exist(capsys):
    assert main(["lesson", "2", "--page", "99"]) == 2
    assert "chapter 2 has no page '99'" in capsys.readouterr().err
