"""``gpulab validate``: every modelled figure against its published measurement.

Prints one line per validation row (model, published, error, tolerance, verdict, source) and
exits 1 when a row is outside its tolerance or its model could not price it, 0 otherwise;
2 for bad input (an unknown lab, a malformed rows folder, an unwritable ``--json`` path).
"""

from __future__ import annotations

import argparse
import sys

from gpulab import validation
from gpulab.catalogue import render

VERDICTS = {"pass": "ok", "fail": "OUTSIDE", "unvalidated": "unvalidated", "error": "ERROR"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("validate", help="set every modelled figure against its published measurement")
    parser.add_argument("--lab", help="only the rows one lab shows (an experiment id, e.g. cluster-scaling)")
    parser.add_argument("--json", metavar="PATH", help="write the checks as JSON (- for stdout)")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the row texts")
    parser.add_argument("--rows", metavar="DIR", help="read rows from DIR instead of resources/validation")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpulab.output import emit_json, output_problem

    if args.json and (problem := output_problem(args.json)):
        print(f"gpulab validate: --json {args.json}: {problem}", file=sys.stderr)
        return 2
    try:
        rows = validation.load_rows(args.rows)
    except validation.ValidationFormatError as exc:
        print(f"gpulab validate: {exc}", file=sys.stderr)
        return 2
    known = validation.labs(rows)
    if args.lab is not None and args.lab not in known:
        print(f"gpulab validate: no rows for lab {args.lab!r} (labs with rows: {', '.join(known)})", file=sys.stderr)
        return 2
    checks = validation.check_all(rows, args.lab)
    if args.json:
        status = emit_json({"schema": "gpulab.validation/1", "checks": [c.to_json() for c in checks],
                            "summary": validation.summary(checks)}, args.json, "gpulab validate")  # fmt: skip
        if status:
            return status
    if args.json != "-":
        print(format_checks(checks, args.lang))
    return 0 if all(c.within for c in checks) else 1


def format_checks(checks: list[validation.Check], lang: str = "en") -> str:
    """A plain-text table: one block per row, then the totals."""
    lines = []
    for item in checks:
        row = item.row
        fitted = " (fitted: the model's constants were set from this figure)" if row.fitted else ""
        lines.append(f"{VERDICTS[item.status]:<11} {row.id}  [{', '.join(row.labs)}]{fitted}")
        lines.append(f"            {render(row.what, lang)}")
        unit = f" {row.unit}" if row.unit else ""
        model = f"model {validation.value_text(item.model_value)}{unit}"
        if row.published is None:
            lines.append(f"            {model}, nothing published to compare with")
        else:
            claim = {"upper": " (the model claims an upper bound)", "lower": " (the model claims a lower bound)"}
            lines.append(f"            {model}, published {row.published.text()}{unit}{claim.get(row.bound, '')}, "
                         f"error {validation.error_text(item)} (tolerance ±{row.tolerance * 100:.0f}%)")  # fmt: skip
        if item.problem:
            lines.append(f"            {item.problem}")
        if row.source:
            lines.append(f"            source: {row.source.title}{', ' + row.locator if row.locator else ''}")
    counts = validation.summary(checks)
    lines.append(f"{len(checks)} rows: {counts['pass']} within tolerance, {counts['fail']} outside, "
                 f"{counts['error']} not priced, {counts['unvalidated']} unvalidated; "
                 f"{counts['fitted']} of them set the model's constants")  # fmt: skip
    return "\n".join(lines)
