"""What a sanity check says: a verdict, the measured value, what was expected and why, what to do.

A check's answer is one or more :class:`Row`\\ s. Every row carries its verdict
(:class:`Verdict`), a plain reason and, unless it passed, the next action, both keyed catalogue
messages (English and Chinese); the measured value with its unit; the threshold it was held to
and the source of that threshold (a key into ``resources/check/thresholds.toml``, where each
number sits beside its citation). A :class:`CheckReport` gathers the rows of one run with the
machine, the versions and the date, and decides the exit code: 1 when anything failed, else 0.
Nothing here imports Qt; a front end renders the messages in its language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpulab.catalogue import Message, from_json, has, msg, render, to_json

SCHEMA = "gpulab.check/1"


class Verdict(str, Enum):
    """A check's verdict. ``skip`` says a check could not be run here, and why; never a pass."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


# The order a summary counts and a table sorts by (the worst first when sorting descending).
SEVERITY = {Verdict.SKIP: 0, Verdict.PASS: 1, Verdict.WARN: 2, Verdict.FAIL: 3}


@dataclass(frozen=True)
class Row:
    """One check's answer for one device (``cpu``, ``gpu0``, ...) on one host."""

    check: str  # the check's id, e.g. "cpu.blas" (its title is the catalogue's check.<id>.title)
    verdict: Verdict
    reason: Message
    action: Message | None = None
    value: float | None = None
    unit: str = ""
    threshold: float | None = None  # the value held against (``comparison`` says how)
    comparison: str = ""  # ">=" (at least), "<=" (at most) or "" (no number compared)
    source: str = ""  # key of the threshold's entry (and citation) in thresholds.toml
    device: str = "cpu"
    host: str = ""
    rank: int | None = None  # the MPI rank that checked it, in fleet mode
    facts: Mapping[str, Any] = field(default_factory=dict)  # what else was sampled (clocks, ...)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"check": self.check, "verdict": self.verdict.value,
                                "reason": to_json(self.reason), "device": self.device, "host": self.host}
        if self.action is not None:
            data["action"] = to_json(self.action)
        for name in ("value", "unit", "threshold", "comparison", "source", "rank"):
            value = getattr(self, name)
            if value not in (None, ""):
                data[name] = value
        if self.facts:
            data["facts"] = dict(self.facts)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Row:
        return cls(str(data["check"]), Verdict(data["verdict"]), from_json(data["reason"]),
                   from_json(data["action"]) if "action" in data else None,
                   _number(data.get("value")), str(data.get("unit", "")), _number(data.get("threshold")),
                   str(data.get("comparison", "")), str(data.get("source", "")),
                   str(data.get("device", "cpu")), str(data.get("host", "")),
                   int(data["rank"]) if data.get("rank") is not None else None,
                   dict(data.get("facts", {})))

    def title(self, lang: str = "en") -> str:
        """The check's title (its id when the catalogue has none: a report from a newer gpulab), with
        the data type of a check measured per type ("GPU matrix multiply ... · FP16")."""
        key = f"check.{self.check}.title"
        title = render(msg(key), lang) if has(key) else self.check
        dtype = self.facts.get("dtype")
        return f"{title} · {str(dtype).upper()}" if dtype else title

    def value_text(self, lang: str = "en") -> str:
        """``158 GFLOP/s (>= 99.7)``: the measured value against its threshold ('' without one),
        a unit that is a word ("errors") in ``lang``."""
        if self.value is None:
            return ""
        text = f"{self.value:.4g} {unit_text(self.unit, lang)}".strip()
        if self.threshold is not None:
            text += f" ({self.comparison} {self.threshold:.4g})"
        return text

    def text(self, lang: str = "en") -> str:
        """The row as one line of plain text (for logs and terminals without a table)."""
        parts = [f"[{self.verdict.value.upper()}]", self.check, f"({self.device})", render(self.reason, lang)]
        if self.action is not None:
            parts.append("→ " + render(self.action, lang))
        return " ".join(parts)


def unit_text(unit: str, lang: str = "en") -> str:
    """A unit as a reader of ``lang`` writes it: a word ("errors", "PCIe gen") from the catalogue's
    ``check.unit.<unit>``; a symbol (GB/s, °C, µs) as it is, the same in every language."""
    key = "check.unit." + unit.lower().replace(" ", "-").replace("/", "-per-")
    return render(msg(key), lang) if unit and has(key) else unit


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass
class CheckReport:
    """The rows of one run, and where and when it ran."""

    rows: list[Row]
    mode: str  # "quick" or "full"
    machine: Mapping[str, Any] = field(default_factory=dict)
    versions: Mapping[str, Any] = field(default_factory=dict)
    started: str = ""
    seconds: float = 0.0
    require_gpu: bool = False

    def counts(self) -> dict[Verdict, int]:
        counted = {verdict: 0 for verdict in Verdict}
        for row in self.rows:
            counted[row.verdict] += 1
        return counted

    def summary(self) -> Message:
        """One sentence: how many checks, how long, how many of each verdict, the exit code."""
        counts = self.counts()
        return msg("check.html.summary", checks=len(self.rows), passed=counts[Verdict.PASS],
                   warned=counts[Verdict.WARN], failed=counts[Verdict.FAIL], skipped=counts[Verdict.SKIP],
                   seconds=f"{self.seconds:.1f}", code=self.exit_code())

    @property
    def failed(self) -> bool:
        return any(row.verdict is Verdict.FAIL for row in self.rows)

    def exit_code(self) -> int:
        """0 when nothing failed, 1 when anything did (2, a usage error, is the CLI's)."""
        return 1 if self.failed else 0

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "mode": self.mode, "started": self.started, "seconds": self.seconds,
                "require_gpu": self.require_gpu, "machine": dict(self.machine),
                "versions": dict(self.versions), "rows": [row.to_json() for row in self.rows],
                "summary": {verdict.value: n for verdict, n in self.counts().items()},
                "exit_code": self.exit_code()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckReport:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a gpulab check report (schema {data.get('schema')!r}, expected {SCHEMA})")
        return cls([Row.from_json(r) for r in data.get("rows", [])], str(data.get("mode", "")),
                   dict(data.get("machine", {})), dict(data.get("versions", {})),
                   str(data.get("started", "")), float(data.get("seconds", 0.0)),
                   bool(data.get("require_gpu", False)))


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The most severe of ``verdicts`` (skip when there are none)."""
    return max(verdicts, key=SEVERITY.__getitem__, default=Verdict.SKIP)
