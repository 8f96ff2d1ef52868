"""Checking lesson pages against what really exists: the lab registry, each lab's Params (through
the same :func:`~gpulab.lab.base.params_from_strings` that ``gpulab run NAME --set`` uses), the
panels' views, the catalogue's number labels and the recorded results.
"""

from __future__ import annotations

from typing import Any

from gpulab import catalogue, experiments
from gpulab.lab import declare
from gpulab.lab.base import ExperimentError
from gpulab.lessons import views
from gpulab.lessons.load import chapters, recordings_dir
from gpulab.lessons.model import Chapter, LessonFormatError, Page
from gpulab.results import ResultFormatError, load

NUMBER_LABEL_PREFIX = "lesson.number."


def assignments(items: tuple[str, ...]) -> dict[str, str]:
    """``("sizes=64,256", ...)`` as ``{"sizes": "64,256"}``; a later field wins (a try-this change over the preset)."""
    return {key.strip(): value.strip() for key, _sep, value in (item.partition("=") for item in items)}


def page_params(page: Page, change: bool = False) -> Any:
    """The Params of the page's lab built from its preset (and its try-this change when ``change``),
    exactly as ``gpulab run LAB --set ...`` builds them; ParamError says what is wrong."""
    module = experiments.get(page.lab)
    items = page.preset + (page.try_this.change if change and page.try_this is not None else ())
    return experiments.params_from_strings(module.Params, assignments(items))


def panel_of(page: Page) -> str:
    """The panel the page shows: the one it names, else its lab's (:func:`views.default_panel`)."""
    return page.panel or (views.default_panel(page.lab) if page.lab else "")


def view_of(page: Page) -> str:
    """The view the page shows: the one it names, else its panel's first."""
    found = views.view(panel_of(page), page.view)
    return found.name if found is not None else page.view


def validate_page(page: Page, file: str) -> None:
    """Raise LessonFormatError (file, page, field) for the first thing on ``page`` that does not exist."""
    where = f'{file}: page "{page.id}"'
    if page.is_live:
        _check_live(page, where)
    else:
        _check_coming(page, where)


def _check_live(page: Page, where: str) -> None:
    if page.coming:
        raise LessonFormatError(f"{where}: coming", "a page with a lab is not coming: drop one of lab and coming")
    if page.lab not in declare.registry():
        raise LessonFormatError(f"{where}: lab", f"no lab {page.lab!r} (labs: {', '.join(declare.registry())})")
    panel = panel_of(page)
    if panel not in views.panels_for(page.lab):
        raise LessonFormatError(f"{where}: panel", f"{panel!r} does not show lab {page.lab!r} "
                                                   f"(panels that do: {', '.join(views.panels_for(page.lab))})")
    if views.view(panel, page.view) is None:
        names = ", ".join(v.name for v in views.views(panel)) or "none known"
        raise LessonFormatError(f"{where}: view", f"panel {panel!r} has no view {page.view!r} (views: {names})")
    _check_params(page, where)
    if page.number is None:
        raise LessonFormatError(f"{where}: number", "missing: a live page shows one big number from its run")
    if page.try_this is None:
        raise LessonFormatError(f"{where}: try", "missing: a live page asks the room to try one change")
    if not catalogue.has(NUMBER_LABEL_PREFIX + page.number.label):
        raise LessonFormatError(f"{where}: number.label", f"no catalogue text {NUMBER_LABEL_PREFIX}{page.number.label}")
    if page.recording:
        _check_recording(page, where)


def _check_params(page: Page, where: str) -> None:
    for change, name in ((False, "preset"), (True, "try.change")):
        try:
            page_params(page, change)
        except ExperimentError as exc:  # ParamError is one
            raise LessonFormatError(f"{where}: {name}", f"lab {page.lab}: {exc}") from None


def _check_recording(page: Page, where: str) -> None:
    path = recordings_dir() / page.recording
    try:
        result = load(path)
    except ResultFormatError as exc:
        raise LessonFormatError(f"{where}: recording", str(exc)) from None
    if experiments.canonical(result.experiment) != page.lab:
        raise LessonFormatError(f"{where}: recording", f"{page.recording} is a run of {result.experiment!r}, "
                                                       f"not of {page.lab!r}")


def _check_coming(page: Page, where: str) -> None:
    if page.coming not in views.COMING_LABS:
        raise LessonFormatError(f"{where}: coming", f"a page without a lab says which lab is coming, one of "
                                                    f"{', '.join(views.COMING_LABS)}; got {page.coming!r}")
    if page.coming in declare.registry():
        raise LessonFormatError(f"{where}: coming", f"lab {page.coming!r} exists now: give the page its lab")
    for name, value in (("panel", page.panel), ("view", page.view), ("preset", page.preset),
                        ("number", page.number), ("recording", page.recording)):  # fmt: skip
        if value:
            raise LessonFormatError(f"{where}: {name}", "a page whose lab is coming has nothing to run: drop it")
    if page.try_this is not None and page.try_this.change:
        raise LessonFormatError(f"{where}: try.change", "a page whose lab is coming has no parameters to change")


def validate_chapter(chapter: Chapter) -> None:
    """Check every page of ``chapter``; LessonFormatError for the first problem."""
    for page in chapter.pages:
        validate_page(page, chapter.file)


def validate_all(found: tuple[Chapter, ...] | None = None) -> tuple[Chapter, ...]:
    """Check every chapter (the shipped ones by default) and return them."""
    found = chapters() if found is None else found
    for chapter in found:
        validate_chapter(chapter)
    return found
