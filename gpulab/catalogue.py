"""The text catalogue: every sentence the engine writes, as a keyed message with English and Chinese.

The engine never writes a user-facing sentence directly. It builds a :class:`Message` — a
stable key plus arguments — with :func:`msg`, and whoever shows it calls :func:`render` in
the reader's language::

    >>> note = msg("note.crossover.faster", gpu=msg("series.gpu-cublas"), kind=msg("provenance.measured"),
    ...            cpu=msg("series.cpu-numpy-1-thread"), unit="N", size=256)
    >>> render(note)
    'Crossover: GPU cuBLAS (cupy.matmul) (measured) is faster than CPU numpy (1 thread) from N=256 up.'
    >>> render(note, "zh")
    '交叉点：从 N=256 起，GPU cuBLAS（cupy.matmul）（实测）比 CPU numpy（1 个线程）快。'

The English and Chinese of every key live in one data file, ``resources/texts/catalogue.toml``
(one ``[key]`` table with ``en`` and ``zh`` strings; ``{name}`` fields are ``str.format``
fields). An argument that is itself a Message is rendered in the same language; a list or
tuple argument is rendered item by item and joined with the language's list separator. A
missing ``zh`` falls back to ``en``. Results keep each note's key, arguments *and* rendered
English (:mod:`gpulab.results`), so a saved report reads anywhere and re-renders in the
viewer's language.

An unknown key is a bug: with :func:`set_strict` on (the test suite turns it on) rendering
raises KeyError; in the app it renders the key itself (or the English a result stored with
it), so a stale report or a typo never crashes a panel.

Adding a text
-------------
1. Pick a key under the area it belongs to (``note.<lab>.<what>``, ``series.<id>``,
   ``experiment.<name>.param.<field>.label``, ``kernel.<entry>.title`` ...). Keys are
   permanent once a result carries them: reword the text, never the key.
2. Add ``[the.key]`` with ``en = "..."`` and ``zh = "..."`` to ``resources/texts/catalogue.toml``,
   both using the same ``{fields}``.
3. Emit it from the engine as ``msg("the.key", field=value)``; a front end calls ``render``.
   ``tests/gpulab/test_catalogue.py`` checks that both languages are present with the same
   fields and that every ``msg("...")`` key written in ``gpulab/`` exists.
"""

from __future__ import annotations

import json
import os
import string
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from gpulab.paths import resource_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

__all__ = [
    "LANGUAGES",
    "Entry",
    "Message",
    "Note",
    "entries",
    "from_json",
    "has",
    "keys",
    "msg",
    "plain",
    "render",
    "set_strict",
    "to_json",
]

LANGUAGES = ("en", "zh")
CATALOGUE_FILE = ("texts", "catalogue.toml")
_TEXT_FIELDS = frozenset(LANGUAGES)


class CatalogueFormatError(ValueError):
    """The catalogue file is malformed (a table mixes texts and sub-keys, a text is not a string)."""


@dataclass(frozen=True)
class Entry:
    """One key's texts; ``zh`` is empty when there is no Chinese yet (English is shown)."""

    en: str
    zh: str = ""

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" and self.zh else self.en


class _FrozenArgs(dict[str, Any]):
    """A message's arguments: a dict that refuses changes (unlike a mapping proxy it can be
    copied, pickled and walked by ``dataclasses.asdict``)."""

    def _refuse(self, *_args: Any, **_kwargs: Any) -> None:
        raise TypeError("a message's arguments cannot be changed")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_FrozenArgs, (dict(self),))  # rebuilt whole: pickling item by item would be refused


@dataclass(frozen=True, eq=True)
class Message:
    """A sentence to show: a catalogue ``key`` and the ``args`` for its ``{fields}``.

    A message with an empty key is *plain*: it holds an English text that no key describes
    (a note from a ``gpulab.result/1`` file, a third-party sentence); it renders as that text
    in every language. ``fallback`` is the English a saved result stored beside the key, shown
    when this gpulab does not know the key (a report from a newer version).
    """

    key: str
    args: Mapping[str, Any] = field(default_factory=dict)
    fallback: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _FrozenArgs(self.args))

    def __hash__(self) -> int:
        # Arguments may be unhashable (lists); equal messages still share key and argument names.
        return hash((self.key, tuple(sorted(self.args))))

    @property
    def text(self) -> str:
        """The English text."""
        return render(self, "en")

    def __str__(self) -> str:
        return self.text


class Note(str):
    """A result note: its English text *as a string*, carrying the :class:`Message` it was rendered from.

    Being a ``str`` keeps every reader of ``Result.notes`` working (joining, ``in``,
    ``startswith``); :attr:`message` lets a front end render it in another language.
    Notes compare and de-duplicate by their English text.
    """

    message: Message

    def __new__(cls, message: Message | str, english: str | None = None) -> Note:
        message = message if isinstance(message, Message) else plain(message)
        note = super().__new__(cls, english if english is not None else render(message, "en"))
        note.message = message
        return note

    def __reduce__(self) -> tuple[Any, ...]:
        return (Note, (self.message, str(self)))

    @property
    def text(self) -> str:
        """The English text."""
        return str.__str__(self)


def msg(key: str, /, **args: Any) -> Message:
    """A keyed message; ``args`` fill the ``{fields}`` of the key's texts."""
    return Message(key, args)


def plain(text: str) -> Message:
    """A message with no key: ``text`` shown as it is in every language."""
    return Message("", {"text": text})


# ------------------------------------------------------------------ the catalogue file


def _flatten(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Entry]]:
    """Dotted keys of the nested TOML tables: a table holding ``en`` is one entry."""
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if not isinstance(value, Mapping):
            raise CatalogueFormatError(f"{key}: expected a table with en and zh, got {type(value).__name__}")
        if "en" in value:
            yield key, _entry(key, value)
        else:
            yield from _flatten(value, key)


def _entry(key: str, table: Mapping[str, Any]) -> Entry:
    extra = set(table) - _TEXT_FIELDS
    if extra:  # a table that is both a text and a parent of other keys would be ambiguous
        raise CatalogueFormatError(f"{key}: unexpected {', '.join(sorted(extra))} beside en/zh")
    texts = {lang: table.get(lang, "") for lang in LANGUAGES}
    if not all(isinstance(text, str) for text in texts.values()):
        raise CatalogueFormatError(f"{key}: en and zh must be strings")
    return Entry(texts["en"], texts["zh"])


def load_catalogue(path: Any = None) -> dict[str, Entry]:
    """Parse a catalogue file (``resources/texts/catalogue.toml`` by default) into entries by key."""
    path = path or resource_path(*CATALOGUE_FILE)
    with open(path, "rb") as handle:
        return dict(_flatten(tomllib.load(handle)))


@cache
def entries() -> dict[str, Entry]:
    """Every entry of the shipped catalogue by key (read once).

    Parsing the TOML takes about 80 ms, before the window's first paint, so the parsed entries
    are kept as JSON in the user's cache under the file's size and modification time: an edited
    catalogue (a pull, a new lab) is parsed again, and a cache that cannot be read or written is
    ignored."""
    path = resource_path(*CATALOGUE_FILE)
    stat = path.stat()
    cached = _cache_path(f"{stat.st_size}-{stat.st_mtime_ns}")  # changes with every edit, checkout or install
    found = _read_cached(cached) if cached is not None else None
    if found is not None:
        return found
    parsed = load_catalogue(path)
    if cached is not None:
        _write_cached(cached, parsed)
    return parsed


def _cache_path(digest: str) -> Path | None:
    try:
        from platformdirs import user_cache_dir  # only for the shipped catalogue's cache
    except ImportError:
        return None
    return Path(user_cache_dir("gpulab")) / f"catalogue-{digest}.json"


def _read_cached(path: Path) -> dict[str, Entry] | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {key: Entry(en, zh) for key, (en, zh) in raw.items()}
    except (OSError, ValueError, TypeError):
        return None  # absent, half-written by another process, or from an older layout: parse again


def _write_cached(path: Path, parsed: Mapping[str, Entry]) -> None:
    """Write the cache beside its old versions, which go (a temporary name, then a rename, so a
    process starting meanwhile never reads half a file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({k: [e.en, e.zh] for k, e in parsed.items()}, ensure_ascii=False),
                             encoding="utf-8")  # fmt: skip
        os.replace(temporary, path)
        for old in path.parent.glob("catalogue-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass  # no cache this time; the next start parses the TOML again


def keys() -> list[str]:
    """All catalogue keys, sorted."""
    return sorted(entries())


def has(key: str) -> bool:
    """Whether the catalogue knows ``key``."""
    return key in entries()


# ------------------------------------------------------------------ rendering

_strict = False


def set_strict(strict: bool) -> bool:
    """Make unknown keys and missing arguments raise KeyError (tests) or not (the app); returns the old mode."""
    global _strict
    old, _strict = _strict, strict
    return old


class _KeepMissing(dict[str, Any]):
    """Format arguments that leave an unfilled ``{field}`` visible instead of raising."""

    def __missing__(self, name: str) -> str:
        return "{" + name + "}"


def _argument(value: Any, lang: str) -> Any:
    """An argument ready for ``str.format``: messages and lists of them rendered in ``lang``."""
    if isinstance(value, Note):
        return render(value.message, lang)
    if isinstance(value, Message):
        return render(value, lang)
    if isinstance(value, (list, tuple)):
        separator = render("list.separator", lang) if has("list.separator") else ", "
        return separator.join(str(_argument(item, lang)) for item in value)
    return value


def _unknown(message: Message) -> str:
    if _strict:
        raise KeyError(f"no text {message.key!r} in the catalogue")
    return message.fallback or message.key


def render(message: Message | str, lang: str = "en") -> str:
    """``message`` (or a bare key) as text in ``lang`` ('en' or 'zh'; Chinese falls back to English)."""
    if isinstance(message, str):
        message = message.message if isinstance(message, Note) else Message(message)
    if not message.key:
        return str(message.args.get("text", ""))
    entry = entries().get(message.key)
    if entry is None:
        return _unknown(message)
    args = {name: _argument(value, lang) for name, value in message.args.items()}
    template = entry.text(lang)
    if lang == "zh" and entry.zh:
        return _format_zh(template, args)
    if _strict:
        return template.format(**args)
    return template.format_map(_KeepMissing(args))


def _is_han(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


def _join_zh(left: str, right: str) -> str:
    """Two pieces of Chinese text where a field's value meets the template around it: no space
    between two Chinese characters, one between a Chinese character and a Latin letter or digit
    ("必须是 {rule}" with "不小于 1 的整数" reads 必须是不小于 1 的整数; "之间的{what}" with
    "32 的倍数" reads 之间的 32 的倍数), anything else as written."""
    bare_left, bare_right = left.rstrip(" "), right.lstrip(" ")
    if not bare_left or not bare_right:
        return left + right
    last, first = bare_left[-1], bare_right[0]
    if _is_han(last) and _is_han(first):
        return bare_left + bare_right
    latin_last, latin_first = last.isascii() and last.isalnum(), first.isascii() and first.isalnum()
    if (_is_han(last) and latin_first) or (latin_last and _is_han(first)):
        return f"{bare_left} {bare_right}"
    return left + right


def _format_zh(template: str, args: dict[str, Any]) -> str:
    """``template.format(**args)``, spacing each field's value against the Chinese around it
    (:func:`_join_zh`); a missing field stays ``{name}`` unless the catalogue is strict."""
    formatter = string.Formatter()
    out, after_field = "", False
    for literal, name, spec, conversion in formatter.parse(template):
        out = _join_zh(out, literal) if after_field else out + literal
        after_field = name is not None
        if name is None:
            continue
        if name.split(".")[0].split("[")[0] not in args and not _strict:
            value = "{" + name + "}"
        else:
            found, _key = formatter.get_field(name, (), args)
            value = formatter.format_field(formatter.convert_field(found, conversion), spec or "")
        out = _join_zh(out, value)
    return out


def fields(text: str) -> set[str]:
    """The ``{field}`` names a catalogue text uses."""
    return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name}


# ------------------------------------------------------------------ JSON form


def to_json(message: Message | str) -> dict[str, Any]:
    """``{"key", "args", "text"}``: key and arguments to re-render, and the English as a fallback."""
    if isinstance(message, str):
        message = message.message if isinstance(message, Note) else plain(message)
    return {"key": message.key, "args": {k: _arg_to_json(v) for k, v in message.args.items()}, "text": render(message)}


def _arg_to_json(value: Any) -> Any:
    if isinstance(value, Note):
        return _arg_to_json(value.message)
    if isinstance(value, Message):
        return {"key": value.key, "args": {k: _arg_to_json(v) for k, v in value.args.items()}}
    if isinstance(value, (list, tuple)):
        return [_arg_to_json(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # a numpy scalar
        return value.item()
    return value


def from_json(data: Mapping[str, Any]) -> Message:
    """The Message of :func:`to_json`'s output; its stored English becomes the fallback."""
    args = {k: _arg_from_json(v) for k, v in dict(data.get("args") or {}).items()}
    return Message(str(data.get("key", "")), args, fallback=str(data.get("text", "")))


def _arg_from_json(value: Any) -> Any:
    if isinstance(value, Mapping) and "key" in value:
        return from_json(value)
    if isinstance(value, list):
        return [_arg_from_json(v) for v in value]
    return value
