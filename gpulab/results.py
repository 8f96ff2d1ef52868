"""Results with provenance, and their JSON form (schema ``gpulab.result/2``; ``/1`` is still read).

Every series carries a :class:`Provenance`: ``measured`` (timed on real hardware in this run),
``emulated`` (executed exactly by the SIMT emulator; no time is claimed), ``modelled``
(computed from a spec sheet and a stated formula) or ``replayed`` (a saved report opened
elsewhere). A point's ``spread`` is the interquartile range of its repeats, in y's units,
or ``None`` when there was a single sample.

Texts are keyed messages (:mod:`gpulab.catalogue`). A result note is a :class:`Note`: its
English as a string, carrying the message it came from; the ``/2`` document stores each
note as ``{"key", "args", "text"}`` so a report re-renders in the viewer's language and
still reads where the key is unknown. A ``/1`` note is plain English: it loads as a note
whose message has no key, shown as it is in every language. A series has a stable ``key``
beside its display ``name`` (and optionally the ``label`` message the name was rendered from).
Its axis labels are English strings; given as a :class:`Note` they also keep their message,
stored beside them as ``x_label_message`` / ``y_label_message`` (absent in older files).
"""

from __future__ import annotations

import json
import math
import platform
import socket
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gpulab.catalogue import Message, Note, from_json, msg, plain, render, to_json

SCHEMA = "gpulab.result/2"
READABLE_SCHEMAS = ("gpulab.result/1", SCHEMA)
PROVENANCE_KINDS = ("measured", "emulated", "modelled", "replayed")
SERIES_ROLES = ("cpu", "gpu", "model", "emulated")
"""What a series stands for, so a front end groups and styles it without reading its name."""


class ResultFormatError(ValueError):
    """A result document is malformed or is not a gpulab result.

    Raised with a keyed message, ``result.error.at`` (where: the file and the JSON path) around a
    ``result.problem.*`` (what), kept in :attr:`message` so a front end says it in the reader's
    language; ``str(exc)`` is the English."""

    def __init__(self, message: Message | str) -> None:
        self.message = message if isinstance(message, Message) else plain(str(message))
        super().__init__(render(self.message))


def _problem(location: str, problem: Message) -> ResultFormatError:
    return ResultFormatError(msg("result.error.at", location=location, problem=problem))


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(value or {}))


@dataclass(frozen=True)
class Provenance:
    """Where a series' numbers come from."""

    kind: str
    device: str
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in PROVENANCE_KINDS:
            raise ValueError(
                f"provenance kind must be one of {', '.join(PROVENANCE_KINDS)}, got {self.kind!r}"
            )
        object.__setattr__(self, "details", _frozen_mapping(self.details))


@dataclass(frozen=True)
class Point:
    """One point of a series; ``extra`` holds per-point facts (repeats, raw samples, ...)."""

    x: float
    y: float
    spread: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", _frozen_mapping(self.extra))


@dataclass(frozen=True)
class Series:
    """A named curve with units and one provenance for all its points.

    ``role`` (one of :data:`SERIES_ROLES`) says what the curve stands for: a CPU, a GPU, a
    model of a GPU, or the emulator. Left empty it is derived from the provenance (and, for
    a measured series, from a name starting with "CPU"), as for files written before roles.

    ``name`` is the display name in English; ``key`` a stable id that does not change with
    the wording or the language (the name when not given); ``label`` the message the name
    was rendered from, so a front end can show it in another language (None: show ``name``).
    """

    name: str
    provenance: Provenance
    x_label: str
    x_unit: str
    y_label: str
    y_unit: str
    points: tuple[Point, ...] = ()
    role: str = ""
    key: str = ""
    label: Message | None = None

    def __post_init__(self) -> None:
        if not self.role:
            object.__setattr__(self, "role", derived_role(self.name, self.provenance))
        if self.role not in SERIES_ROLES:
            raise ValueError(f"series role must be one of {', '.join(SERIES_ROLES)}, got {self.role!r}")
        if not self.key:
            object.__setattr__(self, "key", self.name)

    def with_point(self, point: Point) -> Series:
        """A copy with one more point."""
        return replace(self, points=(*self.points, point))


@dataclass(frozen=True)
class Result:
    """The outcome of one experiment run. Each of ``notes`` is a :class:`~gpulab.catalogue.Note`."""

    experiment: str
    params: Mapping[str, Any]
    series: tuple[Series, ...]
    # Given as messages, notes or English strings; always a tuple of Note once built.
    notes: tuple[Note | Message | str, ...] = ()
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())
    host: Mapping[str, Any] = field(default_factory=lambda: host_summary())
    # Set when the run was cut short (a signal, a rank that died): why, when, where and after which
    # point; the series hold the points measured before. None for a run that ended as planned.
    partial: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _frozen_mapping(self.params))
        object.__setattr__(self, "host", _frozen_mapping(self.host))
        if self.partial is not None:
            object.__setattr__(self, "partial", _frozen_mapping(self.partial))
        object.__setattr__(self, "series", tuple(self.series))
        object.__setattr__(self, "notes", as_notes(self.notes))

    def get_series(self, name: str) -> Series | None:
        """The series whose key or name is ``name``, or None."""
        return next((s for s in self.series if name in (s.key, s.name)), None)

    def as_replayed(self) -> Result:
        """This result as opened on another machine: every series becomes ``replayed``.

        The original provenance kind stays in ``details['original_kind']``.
        """
        series = tuple(replace(s, provenance=_replayed(s.provenance)) for s in self.series)
        return replace(self, series=series)

    def to_json_dict(self) -> dict[str, Any]:
        """The ``gpulab.result/2`` document as plain Python data (``partial`` only when the run was cut short)."""
        document: dict[str, Any] = {
            "schema": SCHEMA,
            "experiment": self.experiment,
            "params": _plain(self.params),
            "created": self.created,
            "host": _plain(self.host),
            "series": [_series_to_dict(s) for s in self.series],
            "notes": [to_json(note) for note in self.notes],
        }
        if self.partial is not None:
            document["partial"] = _plain(self.partial)
        return document

    def to_json(self, indent: int | None = 2) -> str:
        """The JSON text of :meth:`to_json_dict`."""
        return json.dumps(self.to_json_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    def save(self, path: str | Path) -> None:
        """Write the JSON document to ``path``."""
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")


def derived_role(name: str, provenance: Provenance) -> str:
    """The role of a series that does not state one: from its provenance kind (the original
    kind of a replayed one); a measured series is a CPU's when its name starts with "CPU"."""
    kind = provenance.details.get("original_kind", "measured") if provenance.kind == "replayed" else provenance.kind
    if kind == "modelled":
        return "model"
    if kind == "emulated":
        return "emulated"
    return "cpu" if name.startswith("CPU") else "gpu"


def as_notes(notes: Iterable[Note | Message | str]) -> tuple[Note, ...]:
    """Notes from messages, notes or plain English strings (kept as keyless messages)."""
    return tuple(note if isinstance(note, Note) else Note(note) for note in notes)


def _replayed(prov: Provenance) -> Provenance:
    if prov.kind == "replayed":
        return prov
    return Provenance("replayed", prov.device, {**prov.details, "original_kind": prov.kind})


def host_summary() -> dict[str, Any]:
    """A small description of the machine a result was made on."""
    import numpy

    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
    }


def _plain(value: Any) -> Any:
    """Convert mapping proxies, tuples and numpy scalars to JSON-ready Python data."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _series_to_dict(s: Series) -> dict[str, Any]:
    return {
        "name": s.name,
        "role": s.role,
        "key": s.key,
        "label": to_json(s.label) if s.label is not None else None,
        "provenance": {
            "kind": s.provenance.kind,
            "device": s.provenance.device,
            "details": _plain(s.provenance.details),
        },
        "x_label": str(s.x_label),
        "x_label_message": _label_message(s.x_label),
        "x_unit": s.x_unit,
        "y_label": str(s.y_label),
        "y_label_message": _label_message(s.y_label),
        "y_unit": s.y_unit,
        "points": [
            {"x": _plain(p.x), "y": _plain(p.y), "spread": _plain(p.spread), "extra": _plain(p.extra)}
            for p in s.points
        ],
    }


def _label_message(label: str) -> dict[str, Any] | None:
    """An axis label's message in JSON form, when it is a keyed :class:`Note`."""
    return to_json(label) if isinstance(label, Note) and label.message.key else None


# ---------------------------------------------------------------- loading


# Limits of a result document: far above any real report (a few hundred KB), far below what
# would stall the lab or fill its memory.
MAX_RESULT_BYTES = 32 * 1024 * 1024
MAX_NUMBER_CHARS = 400


class _BadNumber(ValueError):
    """A number in the document that no result could hold (too many digits, inf, NaN)."""

    def __init__(self, problem: Message) -> None:
        self.problem = problem
        super().__init__(render(problem))


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_CHARS:
        raise _BadNumber(msg("result.problem.long-integer", digits=len(text.lstrip("-")), limit=MAX_NUMBER_CHARS))
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _BadNumber(msg("result.problem.long-number", chars=len(text)))
    value = float(text)
    if math.isinf(value):
        raise _BadNumber(msg("result.problem.huge-number", text=text[:40]))
    return value


def _parse_constant(text: str) -> float:
    raise _BadNumber(msg("result.problem.not-a-number", text=text))


def _repair_strings(value: Any) -> Any:
    """Lone surrogates (``"\\ud800"``) become U+FFFD, so a loaded result can be saved again."""
    if isinstance(value, str):
        if value.isascii() or not _has_surrogate(value):
            return value
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
    if isinstance(value, list):
        return [_repair_strings(item) for item in value]
    if isinstance(value, dict):
        return {_repair_strings(k): _repair_strings(v) for k, v in value.items()}
    return value


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def loads(text: str, source: str = "<string>") -> Result:
    """Parse a ``gpulab.result/2`` (or ``/1``) JSON document; raise ResultFormatError naming the problem."""
    if len(text) > MAX_RESULT_BYTES:
        raise _problem(source, msg("result.problem.too-big", size=f"{len(text) / 2**20:.0f} MB",
                                   limit=MAX_RESULT_BYTES // 2**20))  # fmt: skip
    try:
        data = _repair_strings(json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                                          parse_constant=_parse_constant))
        return from_json_dict(data, source)
    except json.JSONDecodeError as exc:
        raise _problem(source, msg("result.problem.not-json", line=exc.lineno, column=exc.colno,
                                   detail=exc.msg)) from None  # fmt: skip
    except _BadNumber as exc:
        raise _problem(source, exc.problem) from None
    except RecursionError:
        raise _problem(source, msg("result.problem.nested")) from None


def load(path: str | Path) -> Result:
    """Read a result file; raise ResultFormatError naming the file and the problem."""
    return loads(read_text(path), str(path))


def read_text(path: str | Path) -> str:
    """A saved file's text (a result, a check report), read within a result's size limit; raise
    ResultFormatError naming the file and the problem."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():  # a pipe, a device or a folder: reading it could wait forever
            raise _problem(str(path), msg("result.problem.not-a-file"))
        with open(path, "rb") as handle:
            raw = handle.read(MAX_RESULT_BYTES + 1)
    except OSError as exc:
        raise _problem(str(path), msg("result.problem.unreadable", reason=exc.strerror or str(exc))) from None
    if len(raw) > MAX_RESULT_BYTES:
        try:
            size = f"{path.stat().st_size / 2**20:.0f} MB"
        except OSError:
            size = "?"
        raise _problem(str(path), msg("result.problem.too-big", size=size, limit=MAX_RESULT_BYTES // 2**20))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _problem(str(path), msg("result.problem.not-text")) from None


def replay(path: str | Path) -> Result:
    """A saved result opened again: :func:`load` (which keeps the file's own provenance, so a
    round trip is exact), every series then marked ``replayed`` (its original kind kept in
    ``details['original_kind']``): numbers from a file were not measured, emulated or modelled here."""
    return load(path).as_replayed()


def from_json_dict(data: Any, source: str = "<data>") -> Result:
    """Build a Result from parsed JSON data, validating every field."""
    doc = _Reader(source)
    data = _clean_strings(data)
    doc.expect_type("", data, dict, "object")
    schema = data.get("schema")
    if schema not in READABLE_SCHEMAS:
        if isinstance(schema, str) and schema.startswith("gpulab.result/"):
            readable = " and ".join(READABLE_SCHEMAS)
            doc.fail("schema", msg("result.problem.schema-version", schema=repr(schema), readable=readable))
        doc.fail("schema", msg("result.problem.not-result", expected=repr(SCHEMA), schema=repr(schema)))
    series_data = doc.field(data, "", "series", list, "list")
    notes_data = doc.field(data, "", "notes", list, "list")
    notes = tuple(doc.note(note, f"notes[{i}]", schema) for i, note in enumerate(notes_data))
    partial = doc.field(data, "", "partial", dict, "object") if data.get("partial") is not None else None
    return Result(
        experiment=doc.field(data, "", "experiment", str, "string"),
        params=doc.field(data, "", "params", dict, "object"),
        created=doc.field(data, "", "created", str, "string"),
        host=doc.field(data, "", "host", dict, "object"),
        series=tuple(doc.series(s, f"series[{i}]") for i, s in enumerate(series_data)),
        notes=notes,
        partial=partial,
    )


# The largest integer a double holds (a file's integer beyond it overflows every rate made from it).
FLOAT_MAX_INT = int(sys.float_info.max)

# A point's extra facts the CLI and the window write with number formats ("{:.0f}% of peak"): by
# name, and by the unit suffix the labs give every measured quantity.
NUMBER_EXTRAS = frozenset({"seconds", "seconds_iqr", "repeats", "speedup", "n", "machine_busy", "remeasured"})
NUMBER_EXTRA_SUFFIXES = ("_seconds", "_gb_s", "_gflop_s", "_bytes", "_us")


def is_number_extra(key: str) -> bool:
    """Whether a point's ``extra[key]`` must be a finite number for a front end to show it."""
    return key in NUMBER_EXTRAS or key.startswith("percent_of_") or key.endswith(NUMBER_EXTRA_SUFFIXES)


# Control characters (and the bidirectional overrides) in a file's text could clear a terminal,
# retitle it, or start a fake "note:" line when printed: every string a file brings is cleaned.
_CONTROL = {c: " " for c in (*range(0x00, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def clean_text(text: str) -> str:
    """``text`` with every control character (tab and newline too) written as a space."""
    return text.translate(_CONTROL)


def _clean_strings(data: Any) -> Any:
    """A parsed JSON document with every string in it (keys too) passed through :func:`clean_text`."""
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, list):
        return [_clean_strings(item) for item in data]
    if isinstance(data, dict):
        return {clean_text(key) if isinstance(key, str) else key: _clean_strings(value) for key, value in data.items()}
    return data


class _Reader:
    """Validation helpers that name the file and the JSON path of each problem."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: Message) -> None:
        raise _problem(f"{self.source}: {where}" if where else self.source, problem)

    def expect_type(self, where: str, value: Any, kind: type | tuple[type, ...], name: str) -> None:
        ok = isinstance(value, kind) and not (kind in (int, float, (int, float)) and isinstance(value, bool))
        if not ok:
            self.fail(where or "document", msg("result.problem.type", what=msg(f"result.type.{name}"),
                                               got=type(value).__name__))  # fmt: skip

    def field(self, obj: dict[str, Any], where: str, key: str, kind: Any, name: str) -> Any:
        path = f"{where}.{key}" if where else key
        if key not in obj:
            self.fail(path, msg("result.problem.missing"))
        self.expect_type(path, obj[key], kind, name)
        return obj[key]

    def number(self, obj: dict[str, Any], where: str, key: str, optional: bool = False) -> Any:
        path = f"{where}.{key}"
        if optional and obj.get(key) is None:
            return None
        value = self.field(obj, where, key, (int, float), "number")
        if (isinstance(value, int) and abs(value) > FLOAT_MAX_INT) or not math.isfinite(value):
            self.fail(path, msg("result.problem.not-finite"))  # an integer no double holds is not finite either
        return value

    def note(self, data: Any, where: str, schema: str) -> Note:
        """A ``/1`` note is a plain English string; a ``/2`` note is ``{"key", "args", "text"}``."""
        if schema == "gpulab.result/1":
            self.expect_type(where, data, str, "string")
            return Note(data)
        return Note(self.message(data, where), data["text"])

    def message(self, data: Any, where: str) -> Message:
        self.expect_type(where, data, dict, "object")
        self.field(data, where, "key", str, "string")
        self.field(data, where, "args", dict, "object")
        self.field(data, where, "text", str, "string")
        return from_json(data)

    def series(self, data: Any, where: str) -> Series:
        self.expect_type(where, data, dict, "object")
        prov = self.field(data, where, "provenance", dict, "object")
        kind = self.field(prov, f"{where}.provenance", "kind", str, "string")
        if kind not in PROVENANCE_KINDS:
            self.fail(f"{where}.provenance.kind", msg("result.problem.one-of", names=", ".join(PROVENANCE_KINDS),
                                                      got=repr(kind)))  # fmt: skip
        provenance = Provenance(
            kind=kind,
            device=self.field(prov, f"{where}.provenance", "device", str, "string"),
            details=self.field(prov, f"{where}.provenance", "details", dict, "object"),
        )
        points = self.field(data, where, "points", list, "list")
        role = self.field(data, where, "role", str, "string") if "role" in data else ""  # older files have none
        if role and role not in SERIES_ROLES:
            self.fail(f"{where}.role", msg("result.problem.one-of", names=", ".join(SERIES_ROLES), got=repr(role)))
        name = self.field(data, where, "name", str, "string")
        label = data.get("label")
        return Series(
            name=name,
            key=self.field(data, where, "key", str, "string") if "key" in data else name,
            label=self.message(label, f"{where}.label") if label is not None else None,
            provenance=provenance,
            x_label=self.axis_label(data, where, "x_label"),
            x_unit=self.field(data, where, "x_unit", str, "string"),
            y_label=self.axis_label(data, where, "y_label"),
            y_unit=self.field(data, where, "y_unit", str, "string"),
            points=tuple(self.point(p, f"{where}.points[{i}]") for i, p in enumerate(points)),
            role=role,
        )

    def axis_label(self, data: dict[str, Any], where: str, key: str) -> str:
        """An axis label: its English, as a :class:`Note` carrying its message when one was stored."""
        text = self.field(data, where, key, str, "string")
        message = data.get(f"{key}_message")
        return Note(self.message(message, f"{where}.{key}_message"), text) if message is not None else text

    def point(self, data: Any, where: str) -> Point:
        self.expect_type(where, data, dict, "object")
        extra = self.field(data, where, "extra", dict, "object")
        for key in extra:
            if is_number_extra(key) and extra[key] is not None:  # the front ends format these as numbers
                self.number(extra, f"{where}.extra", key)
        return Point(
            x=self.number(data, where, "x"),
            y=self.number(data, where, "y"),
            spread=self.number(data, where, "spread", optional=True),
            extra=extra,
        )


# Notes about this machine's devices rather than the lab's lesson ("No GPU series: CuPy is not
# installed"): read after the lab's own notes, which are what the page teaches.
DEVICE_NOTE_KEYS = frozenset({"note.no-gpu", "note.no-measured-gpu", "note.no-modelled-gpu"})


def reading_order(notes: Iterable[Note | Message | str]) -> list[Note]:
    """``notes`` as a reader should meet them: each lab's own lesson before the notes about this
    machine's missing GPU, otherwise in the order the lab gave them (its headline stays first)."""
    read = list(as_notes(notes))
    device = [note for note in read if note.message.key in DEVICE_NOTE_KEYS]
    return [note for note in read if note.message.key not in DEVICE_NOTE_KEYS] + device


def merge_notes(*groups: Iterable[Note | Message | str]) -> tuple[Note, ...]:
    """Concatenate note groups (notes, messages or English strings), dropping duplicates but keeping order.

    Two notes are the same when their English is: the same sentence from two sources is shown once.
    """
    seen: dict[str, Note] = {}
    for note in as_notes(note for group in groups for note in group):
        seen.setdefault(note.text, note)
    return tuple(seen.values())
