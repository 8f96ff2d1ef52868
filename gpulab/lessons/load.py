"""Reading lesson files: ``resources/lessons/<n>-<slug>.toml``, one chapter each.

A file, Chinese before English in every text::

    chapter = 2
    slug = "bottlenecks"
    title = { zh = "四大瓶颈", en = "The four bottlenecks" }
    summary = { zh = "...", en = "..." }

    [[page]]
    id = "divergence"
    lab = "divergence"                      # a registered lab (gpulab list)
    panel = "experiments"                   # optional: the lab's own page, else the generic one
    view = "main"                           # optional: the panel's first view
    preset = ["n=256", "kways=2,4"]         # as gpulab run NAME --set takes them
    recording = ""                          # optional: recordings/<file>.json, replayed
    notes = { zh = "...", en = "..." }      # optional: the speaker's notes (the speaker view only)
    title = { zh = "...", en = "..." }
    text = { zh = "...", en = "..." }
    try = { zh = "...", en = "...", change = ["kways=2,8"] }
    number = { label = "branch-efficiency", unit = "%", pick = { series = ["branch-efficiency"], at = 0 } }
    [[page.fact]]
    zh = "..."
    en = "..."
    source = "NVIDIA, CUDA C++ Programming Guide, SIMT Architecture"
    url = "https://..."

A page whose lab is still to come writes ``coming = "<id>"`` (an id of :data:`.views.COMING_LABS`) and no
lab, preset or number.
Unknown keys are errors (a typo must not silently drop a field). Every error is a
:class:`LessonFormatError` naming the file, the page and the field.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from gpulab.lessons.model import (
    LESSON_LANGUAGES,
    STATS,
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
from gpulab.paths import resource_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

LESSONS_DIR = ("lessons",)
RECORDINGS_DIR = ("lessons", "recordings")

_CHAPTER_KEYS = {"chapter", "slug", "title", "summary", "page"}
_PAGE_KEYS = {"id", "lab", "panel", "view", "preset", "recording", "title", "text", "try", "number", "fact", "coming",
              "notes"}
_NUMBER_KEYS = {"label", "pick", "per", "scale", "unit", "digits"}
_PICK_KEYS = {"series", "field", "at", "stat"}


def lessons_dir() -> Path:
    """The folder of the shipped lesson files."""
    return resource_path(*LESSONS_DIR)


def recordings_dir() -> Path:
    """The folder of the shipped recorded results (a page's ``recording`` is relative to it)."""
    return resource_path(*RECORDINGS_DIR)


def lesson_files(folder: Path | None = None) -> list[Path]:
    """The chapter files of ``folder`` (the shipped lessons by default), in chapter order."""
    return sorted((folder or lessons_dir()).glob("*.toml"))


@cache
def chapters() -> tuple[Chapter, ...]:
    """Every shipped chapter, in order (read once). Not validated against the labs: see
    :func:`gpulab.lessons.validate.validate_all`."""
    return load_all(None)


def load_all(folder: Path | None) -> tuple[Chapter, ...]:
    """The chapters of ``folder``; LessonFormatError for a bad file or two files of one number."""
    found = [load_chapter(path) for path in lesson_files(folder)]
    seen: dict[int, str] = {}
    for chapter in found:
        if chapter.number in seen:
            raise LessonFormatError(chapter.file, f"chapter {chapter.number} is also {seen[chapter.number]}")
        seen[chapter.number] = chapter.file
    return tuple(sorted(found, key=lambda c: c.number))


def chapter(number: int) -> Chapter:
    """Shipped chapter ``number``; KeyError names the chapters there are."""
    for found in chapters():
        if found.number == number:
            return found
    raise KeyError(f"no chapter {number} (chapters: {', '.join(str(c.number) for c in chapters())})")


def load_chapter(path: Path) -> Chapter:
    """Parse one chapter file (its syntax and shape; the labs are checked by the validator)."""
    name = path.name
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise LessonFormatError(name, f"not valid TOML: {exc}") from None
    except OSError as exc:
        raise LessonFormatError(name, f"cannot be read: {exc.strerror or exc}") from None
    return parse_chapter(data, name)


def parse_chapter(data: Mapping[str, Any], file: str) -> Chapter:
    """A :class:`Chapter` from a file's parsed TOML; ``file`` names it in errors."""
    _no_unknown(data, _CHAPTER_KEYS, file)
    number = _required(data, "chapter", int, file)
    pages_data = _required(data, "page", list, file)
    pages = tuple(_page(item, file, i) for i, item in enumerate(pages_data, 1))
    ids = [page.id for page in pages]
    doubled = sorted({i for i in ids if ids.count(i) > 1})
    if doubled:
        raise LessonFormatError(file, f"two pages have the id {doubled[0]!r}")
    if not pages:
        raise LessonFormatError(file, "page: a chapter needs at least one page")
    return Chapter(number, _required(data, "slug", str, file), _text(data, "title", file),
                   _text(data, "summary", file), pages, file)  # fmt: skip


def _page(data: Any, file: str, index: int) -> Page:
    where = f"{file}: page {index}"
    if not isinstance(data, Mapping):
        raise LessonFormatError(where, "must be a table")
    page_id = _required(data, "id", str, where)
    where = f'{file}: page "{page_id}"'
    _no_unknown(data, _PAGE_KEYS, where)
    try_data = data.get("try")
    return Page(
        id=page_id,
        title=_text(data, "title", where),
        text=_text(data, "text", where),
        lab=_optional(data, "lab", str, "", where),
        panel=_optional(data, "panel", str, "", where),
        view=_optional(data, "view", str, "", where),
        preset=_assignments(data, "preset", where),
        try_this=_try(try_data, where) if try_data is not None else None,
        number=_number(data["number"], where) if "number" in data else None,
        facts=tuple(_fact(item, f"{where}: fact {i}") for i, item in enumerate(_optional(data, "fact", list, [],
                                                                                          where), 1)),
        recording=_optional(data, "recording", str, "", where),
        coming=_optional(data, "coming", str, "", where),
        notes=_text(data, "notes", where) if "notes" in data else None,
    )


def _try(data: Any, where: str) -> TryThis:
    where = f"{where}: try"
    if not isinstance(data, Mapping):
        raise LessonFormatError(where, "must be a table with zh, en and change")
    _no_unknown(data, {*LESSON_LANGUAGES, "change"}, where)
    return TryThis(_texts(data, where), _assignments(data, "change", where.rsplit(": ", 1)[0], "try.change"))


def _number(data: Any, where: str) -> NumberSpec:
    where = f"{where}: number"
    if not isinstance(data, Mapping):
        raise LessonFormatError(where, "must be a table")
    _no_unknown(data, _NUMBER_KEYS, where)
    scale = _optional(data, "scale", (int, float), 1.0, where)
    digits = _optional(data, "digits", int, 1, where)
    if not 0 <= digits <= 6:
        raise LessonFormatError(f"{where}.digits", f"must be 0 to 6, got {digits}")
    per = data.get("per")
    return NumberSpec(
        label=_required(data, "label", str, where),
        pick=_pick(data.get("pick"), f"{where}.pick"),
        per=_pick(per, f"{where}.per") if per is not None else None,
        scale=float(scale),
        unit=_optional(data, "unit", str, "", where),
        digits=digits,
    )


def _pick(data: Any, where: str) -> Pick:
    if not isinstance(data, Mapping):
        raise LessonFormatError(where, "must be a table with series (and field, at or stat)")
    _no_unknown(data, _PICK_KEYS, where)
    series = data.get("series")
    if isinstance(series, str):
        series = [series]
    if not isinstance(series, list) or not series or not all(isinstance(s, str) and s for s in series):
        raise LessonFormatError(f"{where}.series", "must be a series key or a list of them")
    at = _optional(data, "at", (int, float), None, where)
    stat = _optional(data, "stat", str, "max", where)
    if stat not in STATS:
        raise LessonFormatError(f"{where}.stat", f"must be one of {', '.join(STATS)}, got {stat!r}")
    return Pick(tuple(series), _optional(data, "field", str, "y", where), float(at) if at is not None else None, stat)


def _fact(data: Any, where: str) -> Fact:
    if not isinstance(data, Mapping):
        raise LessonFormatError(where, "must be a table with zh, en and source")
    _no_unknown(data, {*LESSON_LANGUAGES, "source", "url"}, where)
    source = _required(data, "source", str, where).strip()
    if not source:
        raise LessonFormatError(f"{where}.source", "a fact needs its source")
    return Fact(_texts(data, where), Source(source, _optional(data, "url", str, "", where)))


# ---------------------------------------------------------------- small readers


def _text(data: Mapping[str, Any], key: str, where: str) -> Text:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise LessonFormatError(f"{where}: {key}", "missing: a table with zh and en")
    _no_unknown(value, set(LESSON_LANGUAGES), f"{where}: {key}")
    return _texts(value, f"{where}: {key}")


def _texts(data: Mapping[str, Any], where: str) -> Text:
    """zh and en of a table; each must be a non-empty string (a lesson is whole in both languages)."""
    for lang in LESSON_LANGUAGES:
        value = data.get(lang)
        if not isinstance(value, str) or not value.strip():
            raise LessonFormatError(f"{where}.{lang}", "missing or empty: every text needs zh and en")
    return Text(data["zh"].strip(), data["en"].strip())


def _assignments(data: Mapping[str, Any], key: str, where: str, name: str = "") -> tuple[str, ...]:
    value = data.get(key, [])
    field_name = name or key
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LessonFormatError(f"{where}: {field_name}", 'must be a list of "field=value" texts')
    for item in value:
        if "=" not in item:
            raise LessonFormatError(f"{where}: {field_name}", f'{item!r} is not "field=value"')
    return tuple(item.strip() for item in value)


def _required(data: Mapping[str, Any], key: str, kind: Any, where: str) -> Any:
    if key not in data:
        raise LessonFormatError(f"{where}: {key}", "missing")
    return _typed(data[key], key, kind, where)


def _optional(data: Mapping[str, Any], key: str, kind: Any, default: Any, where: str) -> Any:
    return _typed(data[key], key, kind, where) if key in data else default


def _typed(value: Any, key: str, kind: Any, where: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in kind) if isinstance(kind, tuple) else kind.__name__
        raise LessonFormatError(f"{where}: {key}", f"must be {names}, got {type(value).__name__}")
    return value


def _no_unknown(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise LessonFormatError(where, f"unknown field {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
