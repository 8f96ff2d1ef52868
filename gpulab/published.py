"""The published measurements the models are set against: the rows of ``resources/validation/``.

A *row* (one ``[[row]]`` table of a validation file) names a configuration, the model that prices
it, the published figure (a value, a range, or a bound such as ``">= 90"``), its source, and the
relative tolerance the project claims. This module reads and checks the files; pricing a row
through a lab's model and judging it is :mod:`gpulab.validation`'s (which sits above the labs). A
lab reads its own rows from here, below it: the roofline names the published rates of kernels
like its own.

File format::

    [sources.llama3-paper]
    title = "Llama Team, AI @ Meta, The Llama 3 Herd of Models (arXiv:2407.21783, 2024)"
    url = "https://arxiv.org/abs/2407.21783"

    [[row]]
    id = "llama3-405b-tflops-16k"
    labs = ["cluster-scaling"]            # experiment ids whose page shows the row
    model = "plan-tflops-per-gpu"         # an evaluator
    config = { gpus = 16384, dp = 128, tp = 8, pp = 16 }
    unit = "TFLOPS"
    published = 400                       # or [380, 430], ">= 90", "<= 80"
    tolerance = 0.15                      # |model - nearest published| / published
    source = "llama3-paper"
    locator = "Table 4"                   # where in the source (a table, a comment, a section)
    fitted = false                        # true: the model's own constants were set from this figure
    bound = "upper"                       # optional: the model claims only a bound on the measured figure

A ``published = ">= 90"`` is a published figure that is itself a bound ("more than 90% effective
training time"). ``bound = "upper"`` is a claim of the model's instead: its figure is at or above the
measured one (a roofline's ideal-reuse point, a GPU model that ignores host overheads), and
``bound = "lower"`` at or below it; such a row passes when the bound holds (within its tolerance).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

from gpulab.catalogue import Message, has, msg, plain
from gpulab.paths import resource_path

__all__ = [
    "Published",
    "Row",
    "Source",
    "ValidationFormatError",
    "builtin_rows",
    "labs",
    "load_file",
    "load_rows",
    "number_text",
    "rows_for",
]

VALIDATION_DIR = ("validation",)
ROW_FIELDS = frozenset(
    {"id", "labs", "model", "config", "unit", "published", "tolerance", "source", "locator", "what", "fitted", "bound"}
)


class ValidationFormatError(ValueError):
    """A validation file is malformed; the message names the file and the row."""


@dataclass(frozen=True)
class Source:
    """A publication a row cites: its key in ``[sources]``, title and address."""

    key: str
    title: str
    url: str = ""


@dataclass(frozen=True)
class Published:
    """A published figure: a value (``low == high``), a range, or a bound (one side ``None``)."""

    low: float | None
    high: float | None

    def error(self, value: float) -> float:
        """Relative distance of ``value`` from the published figure: 0 inside the range, else
        ``(value - nearest end) / nearest end``."""
        if self.low is not None and value < self.low:
            return (value - self.low) / abs(self.low) if self.low else -math.inf
        if self.high is not None and value > self.high:
            return (value - self.high) / abs(self.high) if self.high else math.inf
        return 0.0

    def text(self, digits: int = 3) -> str:
        """``400``, ``360–370``, ``≥ 90``, ``≤ 80``."""
        if self.low is not None and self.high is not None:
            if self.low == self.high:
                return number_text(self.low, digits)
            return f"{number_text(self.low, digits)}–{number_text(self.high, digits)}"
        if self.low is not None:
            return f"≥ {number_text(self.low, digits)}"
        return f"≤ {number_text(self.high or 0.0, digits)}"


def number_text(value: float, digits: int = 3) -> str:
    """A figure as a table shows it: three significant digits, no exponent for everyday sizes."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if 1e-3 <= abs(value) < 1e6:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
        return f"{round(value, decimals):.{decimals}f}"
    return f"{value:.{digits}g}"


@dataclass(frozen=True)
class Row:
    """One comparison of a model with a published figure (see the module docstring)."""

    id: str
    labs: tuple[str, ...]
    model: str
    config: Mapping[str, Any] = field(hash=False)
    unit: str
    published: Published | None
    tolerance: float
    source: Source | None
    locator: str = ""
    file: str = ""
    what_text: str = ""  # a row of the user's own, outside the catalogue, may say in plain words what it compares
    fitted: bool = False  # the model's constants were set from this published figure (a consistency check)
    bound: str = ""  # "upper" / "lower": the model claims only to bound the measured figure from that side

    @property
    def claim(self) -> Published | None:
        """What the model's figure must meet: the published figure, or the side of it a bound row claims."""
        if self.published is None or not self.bound:
            return self.published
        if self.bound == "upper":
            return Published(self.published.low, None)
        return Published(None, self.published.high)

    @property
    def what(self) -> Message:
        """What is compared, as the catalogue words it (a row the catalogue does not know: its own words, or its id)."""
        key = f"validation.row.{self.id}"
        return msg(key) if has(key) else plain(self.what_text or self.id)

    @property
    def gap(self) -> Message | None:
        """Where the model departs from the published setting, when the catalogue says so."""
        key = f"validation.gap.{self.id}"
        return msg(key) if has(key) else None


# ------------------------------------------------------------------ reading the files


def _fail(where: str, problem: str) -> ValidationFormatError:
    return ValidationFormatError(f"{where}: {problem}")


def parse_published(value: Any, where: str) -> Published | None:
    """A row's ``published``: a number, ``[low, high]``, ``">= x"`` / ``"<= x"``, or absent (None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise _fail(where, f"published must be a number, [low, high] or '>= x' / '<= x', got {value!r}")
    if isinstance(value, (int, float)):
        return Published(float(value), float(value))
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        low, high = sorted(float(v) for v in value)
        return Published(low, high)
    if isinstance(value, str):
        text = value.replace(" ", "")
        for prefix, side in ((">=", "low"), ("<=", "high"), ("≥", "low"), ("≤", "high")):
            if text.startswith(prefix):
                try:
                    bound = float(text[len(prefix):])
                except ValueError:
                    break
                return Published(bound, None) if side == "low" else Published(None, bound)
    raise _fail(where, f"published must be a number, [low, high] or '>= x' / '<= x', got {value!r}")


def _sources(table: Any, where: str) -> dict[str, Source]:
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise _fail(where, "[sources] must be a table of sources")
    found = {}
    for key, entry in table.items():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("title"), str) or not entry["title"]:
            raise _fail(where, f"source {key!r} needs a title")
        found[key] = Source(key, entry["title"], str(entry.get("url", "")))
    return found


def _row(data: Any, where: str, sources: Mapping[str, Source]) -> Row:
    if not isinstance(data, Mapping):
        raise _fail(where, "a [[row]] must be a table")
    unknown = set(data) - ROW_FIELDS
    if unknown:
        raise _fail(where, f"unknown field(s) {', '.join(sorted(unknown))}; a row has {', '.join(sorted(ROW_FIELDS))}")
    row_id = data.get("id")
    if not isinstance(row_id, str) or not row_id or not all(c.isalnum() or c == "-" for c in row_id):
        raise _fail(where, f"id must be words joined by '-', got {row_id!r}")
    where = f"{where} ({row_id})"
    if not isinstance(data.get("what", ""), str):
        raise _fail(where, "what must be a text")
    if not isinstance(data.get("fitted", False), bool):
        raise _fail(where, f"fitted must be true or false, got {data['fitted']!r}")
    if data.get("bound", "") not in ("", "upper", "lower"):
        raise _fail(where, f"bound must be 'upper' or 'lower', got {data['bound']!r}")
    labs = data.get("labs")
    if not isinstance(labs, list) or not labs or not all(isinstance(lab, str) for lab in labs):
        raise _fail(where, "labs must be a list of experiment ids")
    if not isinstance(data.get("model"), str) or not data["model"]:
        raise _fail(where, "model must be a text")
    if not isinstance(data.get("unit"), str):  # "" for a pure number (a ratio, a relative error)
        raise _fail(where, "unit must be a text (empty for a pure number)")
    config = data.get("config", {})
    if not isinstance(config, Mapping):
        raise _fail(where, "config must be a table")
    published = parse_published(data.get("published"), where)
    tolerance = data.get("tolerance", 0.0 if published is None else None)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 10:
        raise _fail(where, f"tolerance must be a relative error from 0 to 10 (0.15 = 15%), got {tolerance!r}")
    source_key = data.get("source")
    if published is not None and source_key is None:
        raise _fail(where, "a published figure needs its source")
    if source_key is not None and source_key not in sources:
        raise _fail(where, f"source {source_key!r} is not in this file's [sources]")
    if data.get("bound") and (published is None or None in (published.low, published.high)):
        raise _fail(where, "a bound row needs a published value or range to bound, not a bound itself")
    return Row(row_id, tuple(labs), data["model"], dict(config), data["unit"], published, float(tolerance),
               sources.get(source_key) if source_key else None, str(data.get("locator", "")),
               what_text=str(data.get("what", "")), fitted=bool(data.get("fitted", False)),
               bound=str(data.get("bound", "")))  # fmt: skip


def load_file(path: Path) -> list[Row]:
    """The rows of one validation file; ValidationFormatError names the file and row when malformed."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise _fail(str(path), f"cannot be read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise _fail(str(path), f"is not valid TOML: {exc}") from exc
    sources = _sources(data.get("sources"), str(path))
    rows = data.get("row", [])
    if not isinstance(rows, list):
        raise _fail(str(path), "rows must be [[row]] tables")
    return [dataclasses.replace(_row(row, f"{path.name}: row {i + 1}", sources), file=path.name)
            for i, row in enumerate(rows)]  # fmt: skip


def load_rows(folder: Path | str | None = None) -> list[Row]:
    """Every row of every ``*.toml`` in ``folder`` (default ``resources/validation``), in file then row
    order; ValidationFormatError for a malformed file or an id used twice."""
    folder = Path(folder) if folder is not None else resource_path(*VALIDATION_DIR)
    if not folder.is_dir():
        raise _fail(str(folder), "is not a folder of validation files")
    rows: list[Row] = []
    for path in sorted(folder.glob("*.toml")):
        rows += load_file(path)
    seen: dict[str, str] = {}
    for row in rows:
        if row.id in seen:
            raise _fail(row.file, f"row id {row.id!r} is used in {seen[row.id]} too")
        seen[row.id] = row.file
    return rows


@cache
def builtin_rows() -> tuple[Row, ...]:
    """The rows of ``resources/validation``, read once per process."""
    return tuple(load_rows())


def rows_for(lab: str, rows: Iterable[Row] | None = None) -> list[Row]:
    """The rows a lab shows (its experiment id in ``labs``)."""
    return [row for row in (builtin_rows() if rows is None else rows) if lab in row.labs]


def labs(rows: Iterable[Row] | None = None) -> list[str]:
    """Every lab some row names, in first-seen order."""
    return list(dict.fromkeys(lab for row in (builtin_rows() if rows is None else rows) for lab in row.labs))
