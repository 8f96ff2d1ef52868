"""A lab still to come, for the tests of coming pages. None ships now (the last, the trace doctor
inside a lesson, is the ``trace-doctor`` lab), but the curriculum may again need a lab before it
is built, and a page must then say so instead of faking it."""

from __future__ import annotations

import dataclasses

from gpulab import lessons
from gpulab.lessons import Page, Text, views

COMING_ID = "hologram-lab"
COMING_WHAT = "a hologram of the GPU, still to come (a test's)"
PAGE_ID = "hologram"


def coming_page() -> Page:
    """A page whose lab is still to come, as a lesson file would write it."""
    return Page(PAGE_ID, Text("全息图", "Hologram"), Text("还在制作中。", "Still being built."), coming=COMING_ID)


def with_a_coming_page(monkeypatch, chapter: int = 3) -> Page:
    """The shipped chapters with :func:`coming_page` at the end of ``chapter``, for the window and the
    command line (they read ``lessons.chapters()`` and ``lessons.chapter(n)``); its id a known coming lab."""
    page = coming_page()
    monkeypatch.setitem(views.COMING_LABS, COMING_ID, COMING_WHAT)
    shipped = lessons.chapters()
    patched = tuple(dataclasses.replace(c, pages=(*c.pages, page)) if c.number == chapter else c for c in shipped)

    def one(number: int):
        found = next((c for c in patched if c.number == number), None)
        if found is None:
            raise KeyError(f"no chapter {number}")
        return found

    monkeypatch.setattr(lessons, "chapters", lambda: patched)
    monkeypatch.setattr(lessons, "chapter", one)
    return page
