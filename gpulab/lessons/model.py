"""What a lesson is made of: chapters of pages, each page a short text beside one live lab.

Everything here is plain frozen data, read from ``resources/lessons/*.toml`` by
:mod:`gpulab.lessons.load` and checked against the lab registry by :mod:`gpulab.lessons.validate`.
A lesson's own sentences are :class:`Text` (Chinese and English side by side, both required);
the few words every page shares (the big number's label, "coming soon") are catalogue messages.
"""

from __future__ import annotations

from dataclasses import dataclass

LESSON_LANGUAGES = ("zh", "en")
"""Every text of a lesson exists in both, Chinese first (the main audience)."""


class LessonFormatError(ValueError):
    """A lesson file is malformed or names something that does not exist.

    ``str(exc)`` says where (the file, the page's id, the field) and what is wrong, e.g.
    ``2-bottlenecks.toml: page "pcie": preset: no field 'sizez' in lab transfer``."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class Text:
    """One lesson sentence (or a few) in both languages."""

    zh: str
    en: str

    def get(self, lang: str = "zh") -> str:
        """The text in ``lang`` ("zh" or "en"; anything else reads English)."""
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Source:
    """Where a fact comes from: a citation a reader can look up, and a link when there is one."""

    cite: str
    url: str = ""


@dataclass(frozen=True)
class Fact:
    """A figure or claim the page states, with its source (a page never states one without)."""

    text: Text
    source: Source


@dataclass(frozen=True)
class TryThis:
    """What the room should try next: the prompt (the change and what to watch), and the change
    itself as ``field=value`` assignments over the page's preset (empty when the change is not a
    parameter, e.g. "switch to the Race tab")."""

    text: Text
    change: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pick:
    """Which number of a run's :class:`~gpulab.results.Result` to take.

    ``series``: candidate series keys, the first the run has wins (so a measured GPU series can
    come before the modelled one a machine without a GPU shows). ``field``: ``y`` (default),
    ``x``, or a key of the points' ``extra``. ``at``: take the point whose x is this; otherwise
    ``stat`` over all points: ``max``, ``min``, ``first``, ``last`` or ``mean``."""

    series: tuple[str, ...]
    field: str = "y"
    at: float | None = None
    stat: str = "max"


STATS = ("max", "min", "first", "last", "mean")


@dataclass(frozen=True)
class NumberSpec:
    """The one big number of a page: ``pick`` from the run, divided by ``per`` when given (a
    ratio, "times faster"), times ``scale``. ``label`` is a catalogue key under ``lesson.number.``
    that says what the number is; ``unit`` is shown beside it ("" takes the series' y unit, or
    "×" for a ratio); ``digits`` is how many decimals to show."""

    label: str
    pick: Pick
    per: Pick | None = None
    scale: float = 1.0
    unit: str = ""
    digits: int = 1


@dataclass(frozen=True)
class Page:
    """One projector page.

    A live page names a registered ``lab`` (``gpulab run NAME``), the ``panel`` that shows it in
    the window and which ``view`` of that panel (:mod:`gpulab.lessons.views`), its ``preset`` as
    ``field=value`` assignments (exactly as ``gpulab run NAME --set`` takes them), a ``try_this``
    and the ``number`` to read from the run. ``recording`` (optional) names a result file under
    ``resources/lessons/recordings/`` to replay instead of running, on a machine that cannot.

    ``notes`` (optional) are for the speaker's screen only, never the room's.

    A page whose lab is still to come has ``lab == ""`` and ``coming`` set to that lab's id
    (:data:`gpulab.lessons.views.COMING_LABS`); it has text and facts, and says so."""

    id: str
    title: Text
    text: Text
    lab: str = ""
    panel: str = ""
    view: str = ""
    preset: tuple[str, ...] = ()
    try_this: TryThis | None = None
    number: NumberSpec | None = None
    facts: tuple[Fact, ...] = ()
    recording: str = ""
    coming: str = ""
    notes: Text | None = None  # the speaker's notes: what to say, what to point at, the number to expect

    @property
    def is_live(self) -> bool:
        """Whether the page has a lab to run (not one still to come)."""
        return bool(self.lab)


@dataclass(frozen=True)
class Chapter:
    """One chapter of the curriculum (``number`` 0 to 5), from one file."""

    number: int
    slug: str
    title: Text
    summary: Text
    pages: tuple[Page, ...]
    file: str = ""

    def page(self, page_id_or_index: str | int) -> Page:
        """A page by its id, or by its 1-based number; KeyError says which exist."""
        if isinstance(page_id_or_index, int) or page_id_or_index.isdigit():
            index = int(page_id_or_index)
            if 1 <= index <= len(self.pages):
                return self.pages[index - 1]
        for page in self.pages:
            if page.id == page_id_or_index:
                return page
        known = ", ".join(f"{i}={p.id}" for i, p in enumerate(self.pages, 1))
        raise KeyError(f"chapter {self.number} has no page {page_id_or_index!r} (pages: {known})")
