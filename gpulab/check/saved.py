"""A saved check report (``gpulab check --json``) opened again, or why it cannot be.

The file is read within a result's limits (:func:`gpulab.results.read_text`); what is wrong with
it is said as a saved result's is, a :class:`~gpulab.results.ResultFormatError` whose keyed message
names the file and the problem (not JSON at line 3, not a check report, row 2 lacks its verdict),
so a front end says it in the reader's language and shows nothing half-read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpulab.catalogue import Message, msg
from gpulab.results import ResultFormatError, read_text

from .model import SCHEMA, CheckReport, Row


def _problem(path: str | Path, problem: Message) -> ResultFormatError:
    return ResultFormatError(msg("result.error.at", location=str(path), problem=problem))


def is_report(path: str | Path) -> bool:
    """Whether ``path`` holds JSON that says it is a check report (a file that cannot be read, or
    is no JSON, is not one: opening it as a result then says what is wrong with it)."""
    try:
        data = json.loads(read_text(path))
    except (ResultFormatError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("schema") == SCHEMA


def read_report(path: str | Path) -> CheckReport:
    """The report in ``path``; ResultFormatError naming the file and what is wrong with it."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise _problem(path, msg("result.problem.not-json", line=exc.lineno, column=exc.colno,
                                 detail=exc.msg)) from None
    except RecursionError:
        raise _problem(path, msg("result.problem.nested")) from None
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema != SCHEMA:
        raise _problem(path, msg("check.saved.not-report", schema=str(schema), expected=SCHEMA))
    rows = data.get("rows", [])
    if not isinstance(rows, list):
        raise _problem(path, msg("check.saved.bad-field", field="rows", detail=type(rows).__name__))
    for number, row in enumerate(rows, 1):
        _check_row(path, number, row)
    try:
        return CheckReport.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _problem(path, msg("check.saved.bad-field", field="report", detail=_detail(exc))) from None


def _check_row(path: str | Path, number: int, row: Any) -> None:
    """Row ``number`` (from 1) reads as a Row, else the problem names it and what it lacks."""
    try:
        if not isinstance(row, dict):
            raise TypeError(f"a {type(row).__name__}, not an object")
        Row.from_json(row)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _problem(path, msg("check.saved.bad-row", row=number, detail=_detail(exc))) from None


def _detail(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}" if exc.args else "a field is missing"
    return (str(exc) or type(exc).__name__)[:200]
