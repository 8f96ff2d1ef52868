"""Transition shim: Chinese for English sentences the engine still writes as plain strings.

The engine is moving to keyed messages (:mod:`gpulab.catalogue`): a converted call site emits
``msg(key, **args)`` and nothing here is involved. Until every call site is converted (matmul,
vector_add, gpulab.measure, gpulab.model and the emulated labs still write English), this module
finds the Chinese of such a sentence by matching it against the *English texts of the catalogue*
— the catalogue stays the one place holding the Chinese::

    >>> translate("Copies do not overlap with each other or with kernels.", "zh")
    '拷贝之间、拷贝与核函数之间都不重叠。'

A catalogue text's ``{name}`` fields match the variable parts (sizes, series, GPU names); each
part is itself translated when the catalogue knows it (a series name inside a crossover note).
A text no entry matches is returned unchanged, so a new English sentence shows in English
rather than not at all. Delete this module once no engine sentence is a plain string.
"""

from __future__ import annotations

import re
from functools import cache

from gpulab import catalogue

__all__ = ["templates", "translate", "translate_all", "translation_known"]

# What a field may match, where "anything, as little as possible" would be ambiguous.
_FIELD_PATTERNS = {
    "kind": "measured|modelled|emulated|replayed",
    "unit": "N|n",
    "size": r"\d+",
    "threads": r"\d+",
    "count": r"\d+",
    "number": r"[0-9][0-9.,]*",
    "percent": r"\d+%",
    "low": r"\d+",
    "high": r"\d+",
    "key": r"\S+",
}


# Catalogue areas whose texts the engine still writes as plain English sentences. Experiment
# and kernel texts are left out: the front end renders those by key, and a parameter label
# ("repeats") must not translate the parameter name inside an error message.
_SENTENCE_AREAS = ("device", "monitor", "series", "provenance", "note", "model", "axis", "variant", "param",
                   "progress")


def templates() -> list[tuple[str, str]]:
    """(English, Chinese) text pairs of the catalogue's sentences, in file order; fields are ``{name}`` in both."""
    return [(entry.en, entry.text("zh")) for key, entry in catalogue.entries().items()
            if key.split(".")[0] in _SENTENCE_AREAS]


_FIELD = re.compile(r"\{(\w+)\}")


def _regex(template: str) -> re.Pattern[str]:
    parts, fields, start = [], set(), 0
    for match in _FIELD.finditer(template):
        parts.append(re.escape(template[start : match.start()]))
        name = match.group(1)
        if name in fields:
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>{_FIELD_PATTERNS.get(name, '.+?')})")
            fields.add(name)
        start = match.end()
    parts.append(re.escape(template[start:]))
    return re.compile("".join(parts), re.DOTALL)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((_regex(en), zh) for en, zh in templates())


_VARIANT_AXIS = re.compile(r"variant \((?P<items>\d+ = .*)\)", re.DOTALL)
_VARIANT_ITEM = re.compile(r"(\d+) = (.+)")


def _variant_axis(text: str, lang: str) -> str | None:
    """'variant (0 = even/odd, 1 = warp-aligned)' -> '变体（0 = 奇偶，1 = 按 warp 对齐）'; None if not one."""
    found = _VARIANT_AXIS.fullmatch(text)
    if found is None:
        return None
    items = []
    for item in found.group("items").split(", "):
        parts = _VARIANT_ITEM.fullmatch(item)
        if parts is None:
            return None
        items.append(f"{parts.group(1)} = {translate(parts.group(2), lang)}")
    separator = catalogue.render("list.separator", lang)
    return catalogue.render(catalogue.msg("axis.variant", items=separator.join(items)), lang)


def _match(text: str) -> tuple[re.Match[str], str] | None:
    for pattern, zh in _compiled():
        found = pattern.fullmatch(text)
        if found is not None:
            return found, zh
    return None


def translate(text: str, lang: str) -> str:
    """``text`` in ``lang`` ('en' or 'zh'): unchanged in English or when no template matches."""
    if lang != "zh":
        return text
    axis = _variant_axis(text, lang)
    if axis is not None:
        return axis
    found = _match(text)
    if found is None:
        return text
    match, zh = found
    parts = {name: translate(value, lang) for name, value in match.groupdict().items()}
    return zh.format(**parts)


def translate_all(texts: tuple[str, ...] | list[str], lang: str) -> list[str]:
    """Each of ``texts`` in ``lang``."""
    return [translate(text, lang) for text in texts]


def translation_known(text: str) -> bool:
    """Whether a template matches ``text`` (so Chinese exists for it)."""
    return _match(text) is not None or _variant_axis(text, "zh") is not None
