"""How good is each model? Every modelled figure set against a published measurement.

A *row* (one ``[[row]]`` table of a file in ``resources/validation/``) names a configuration, the
model that prices it (an evaluator of :data:`gpulab.validation.evaluators.EVALUATORS`), the
published figure (a value, a range, or a bound such as ``">= 90"``), its source, and the relative
tolerance the project claims (the rows and their file format: :mod:`gpulab.published`). :func:`check`
runs the model on the row's configuration and says whether it lands within tolerance of the
published figure. A row with no ``published`` figure
says the model is *unvalidated* there, and why (its catalogue text).

Rows are data: a lab shows its own rows ("How good is this model?"), ``gpulab validate``
prints them all and exits non-zero when one is outside its tolerance, and the tests run every
row. The texts of a row live in the text catalogue: ``validation.row.<id>`` says what is
compared, in both languages, and ``validation.gap.<id>`` (optional) says where the model
departs from the published setting and which assumption causes the gap.

A *fitted* row checks that one set of constants reproduces every figure it was set from (the
model hangs together); an unfitted row is a prediction the published figure could refute. The
table, the lab and ``gpulab validate`` say which is which.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from gpulab.published import (
    Published,
    Row,
    Source,
    ValidationFormatError,
    builtin_rows,
    labs,
    load_rows,
    number_text,
    rows_for,
)

__all__ = [
    "Check",
    "Published",
    "Row",
    "Source",
    "Status",
    "ValidationFormatError",
    "check",
    "check_all",
    "labs",
    "load_rows",
    "rows_for",
]

Status = Literal["pass", "fail", "unvalidated", "error"]


@dataclass(frozen=True)
class Check:
    """A row run against its model: the model's figure, its relative error and the verdict."""

    row: Row
    model_value: float | None
    error: float | None
    status: Status
    problem: str = ""  # why the evaluator could not give a figure (status "error")

    @property
    def within(self) -> bool:
        return self.status in ("pass", "unvalidated")

    def to_json(self) -> dict[str, Any]:
        row = self.row
        published = row.published
        return {"id": row.id, "labs": list(row.labs), "model": row.model, "config": dict(row.config),
                "what": row.what.text, "unit": row.unit, "model_value": self.model_value,
                "published_low": published.low if published else None,
                "published_high": published.high if published else None,
                "published": published.text() if published else None, "error": self.error,
                "tolerance": row.tolerance, "status": self.status, "problem": self.problem,
                "source": row.source.title if row.source else None, "url": row.source.url if row.source else None,
                "locator": row.locator, "gap": row.gap.text if row.gap else None, "fitted": row.fitted,
                "bound": row.bound or None}  # fmt: skip


# ------------------------------------------------------------------ checking


def check(row: Row) -> Check:
    """Run ``row``'s model on its configuration and judge it against the published figure.

    An evaluator that cannot price the configuration (unknown model, missing or wrong config, a
    model that does not know the setting) gives status ``error`` with the reason; it never raises."""
    # Deferred: the evaluators import every lab they price (about 0.5 s); listing the rows (a lab's
    # page, the Help menu) needs none of them.
    from gpulab.validation.evaluators import EVALUATORS

    evaluator = EVALUATORS.get(row.model)
    if evaluator is None:
        return Check(row, None, None, "error", f"no evaluator {row.model!r} (known: {', '.join(sorted(EVALUATORS))})")
    try:
        value = float(evaluator(row.config))
    except Exception as exc:  # a bad configuration or a model that cannot price it: a verdict, never a crash
        return Check(row, None, None, "error", f"{row.model}: {type(exc).__name__}: {exc}")
    if not math.isfinite(value):
        return Check(row, None, None, "error", f"{row.model} gave {value}")
    claim = row.claim
    if claim is None:
        return Check(row, value, None, "unvalidated")
    error = claim.error(value)
    if not math.isfinite(error):  # a published 0 and a model that is not 0
        return Check(row, value, None, "fail")
    return Check(row, value, error, "pass" if abs(error) <= row.tolerance + 1e-12 else "fail")


def check_all(rows: Iterable[Row] | None = None, lab: str | None = None) -> list[Check]:
    """Every row checked (only ``lab``'s when given), in row order."""
    chosen = list(builtin_rows() if rows is None else rows)
    return [check(row) for row in chosen if lab is None or lab in row.labs]


@cache
def builtin_checks(lab: str | None = None) -> tuple[Check, ...]:
    """A lab's built-in rows (every lab's for None) checked once per process: the models and rows do not
    change while it runs."""
    return tuple(check_all(lab=lab))


def summary(checks: Iterable[Check]) -> dict[str, int]:
    """How many checks have each status, and (``fitted``) how many rows set the model's constants."""
    counts = {"pass": 0, "fail": 0, "unvalidated": 0, "error": 0, "fitted": 0}
    for item in checks:
        counts[item.status] += 1
        counts["fitted"] += item.row.fitted
    return counts


def value_text(value: float | None) -> str:
    """A model figure for a table (``–`` when there is none)."""
    return "–" if value is None else number_text(value)


def error_text(item: Check) -> str:
    """``+4%``, ``−12%``, ``0%`` (inside the published range), or ``–``."""
    if item.error is None:
        return "–"
    percent = item.error * 100
    if abs(percent) < 0.5:
        return "0%"
    return f"{'+' if percent > 0 else '−'}{abs(percent):.0f}%"
