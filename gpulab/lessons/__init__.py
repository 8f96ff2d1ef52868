"""The lesson track's engine (no Qt): chapters of projector pages, each beside one live lab.

Lessons are data, ``resources/lessons/<n>-<slug>.toml``, one file per chapter, Chinese and
English side by side (:mod:`.load` describes the format). A page has a short text, the lab to
run with its preset (``field=value`` as ``gpulab run`` takes them), the panel and view to show,
a "try this" prompt with the change to make, its facts with their sources, and the big number
the room should remember, read from the run (:mod:`.number`). A page whose lab is still to come
says so (``coming``) and runs nothing.

For a front end::

    from gpulab import lessons

    for chapter in lessons.chapters():            # validated once by the tests; see validate_all
        chapter.number, chapter.title.get("zh"), len(chapter.pages)
    page = lessons.chapter(2).page("divergence")   # or .page(3): 1-based
    page.text.get(lang); page.try_this.text.get(lang); page.facts[0].source.cite
    lessons.panel_of(page), lessons.view_of(page)  # "experiments", "main": see lessons.views
    lessons.view_tab(page)                         # the View (tab index, English tab title)
    gen = lessons.page_run(page, ctx)              # the lab's generator: submit it as a job
    result = lessons.recorded_result(page)         # or replay the recording (None without one)
    number = lessons.big_number(page, result)      # BigNumber: value, unit, label (a Message),
    number.text(), render(number.label, lang)      # kind (badge), machine and date if replayed

``page.is_live`` is False for a coming page (``page.coming`` names the lab, ``lessons.COMING_LABS``
says what it is). :func:`big_number` raises :class:`MissingNumber` when a run lacks the number
(say it, do not show a zero); :func:`load_chapter` and :func:`validate_chapter` raise
:class:`LessonFormatError` naming the file, the page and the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpulab.lessons.load import chapter, chapters, lesson_files, lessons_dir, load_all, load_chapter, recordings_dir
from gpulab.lessons.model import (
    LESSON_LANGUAGES,
    Chapter,
    Fact,
    LessonFormatError,
    NumberSpec,
    Page,
    Pick,
    Source,
    Text,
    TryThis,
)

if TYPE_CHECKING:
    from gpulab.lessons.number import BigNumber, MissingNumber, big_number
    from gpulab.lessons.run import page_run, recorded_result, run_page
    from gpulab.lessons.validate import (
        NUMBER_LABEL_PREFIX,
        page_params,
        panel_of,
        validate_all,
        validate_chapter,
        validate_page,
        view_of,
    )
    from gpulab.lessons.views import COMING_LABS, PANEL_VIEWS, View

# Read on first use: the numbers, the runs and the checks of a preset import the results and every
# lab (about 30 ms), which the welcome page, listing the chapters at start-up, does not need.
_LAZY = {
    "number": ("BigNumber", "MissingNumber", "big_number"),
    "run": ("page_run", "recorded_result", "run_page"),
    "validate": ("NUMBER_LABEL_PREFIX", "page_params", "panel_of", "validate_all", "validate_chapter",
                 "validate_page", "view_of"),
    "views": ("COMING_LABS", "PANEL_VIEWS", "View", "view"),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # once
    return value


def view_tab(page: Page) -> View | None:
    """The :class:`View` (tab index and English title) the page shows; None for a coming page."""
    from gpulab.lessons.validate import panel_of
    from gpulab.lessons.views import view

    return view(panel_of(page), page.view) if page.is_live else None


__all__ = [
    "COMING_LABS",
    "LESSON_LANGUAGES",
    "NUMBER_LABEL_PREFIX",
    "PANEL_VIEWS",
    "BigNumber",
    "Chapter",
    "Fact",
    "LessonFormatError",
    "MissingNumber",
    "NumberSpec",
    "Page",
    "Pick",
    "Source",
    "Text",
    "TryThis",
    "View",
    "big_number",
    "chapter",
    "chapters",
    "lesson_files",
    "lessons_dir",
    "load_all",
    "load_chapter",
    "page_params",
    "page_run",
    "panel_of",
    "recorded_result",
    "recordings_dir",
    "run_page",
    "validate_all",
    "validate_chapter",
    "validate_page",
    "view_of",
    "view_tab",
]
