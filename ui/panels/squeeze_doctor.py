"""The squeeze page's trace doctor: what each configuration's step shows the doctor, and what each
switch takes away (no Qt: the page runs :func:`diagnose_result` on a worker thread).

Each configuration's step is written as the Chrome trace the lab exports (one profiler step) and
read back from memory by the doctor's Kineto reader, so the page judges exactly what "Export
trace…" writes. A ladder rung is compared with the rung above it (the switch it adds), a switch
alone with the baseline. The doctor sits above the labs, so this comparison lives here and not in
the lab's engine.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from gpulab.catalogue import Message, msg
from gpulab.experiments import squeeze
from gpulab.results import Result, Series
from gpulab.trace import FINDING_KEYS, diagnose
from gpulab.trace.kineto import read


@dataclass(frozen=True)
class Change:
    """One configuration against the one it builds on: the doctor's finding keys on each side."""

    key: str
    label: Message
    before: tuple[str, ...] | None  # None for the baseline: nothing to compare with
    after: tuple[str, ...]
    ladder: bool = True  # a rung of the ladder (else a switch alone, against the baseline)

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(k for k in FINDING_KEYS if self.before is not None and k in self.before and k not in self.after)

    @property
    def appeared(self) -> tuple[str, ...]:
        return tuple(k for k in FINDING_KEYS if self.before is not None and k in self.after and k not in self.before)

    def message(self) -> Message:
        config = self.label
        if self.before is None:
            if not self.after:
                return msg("squeeze.doctor.clean", config=config)
            return msg("squeeze.doctor.baseline", config=config, findings=names(self.after))
        if not self.removed:
            said = msg("squeeze.doctor.nothing", config=config)
        else:
            said = msg("squeeze.doctor.removed", config=config, findings=names(self.removed))
        if self.appeared:
            return msg("squeeze.doctor.with-new", said=said, new=msg("squeeze.doctor.appeared",
                                                                     findings=names(self.appeared)))  # fmt: skip
        return said


def names(keys: tuple[str, ...]) -> list[Message]:
    """The findings' short names, from the catalogue."""
    return [msg(f"squeeze.finding.{key}") for key in keys]


def step_findings(series: Series) -> tuple[str, ...]:
    """The doctor's finding keys for one configuration's step, in the vocabulary's order."""
    point = series.points[0]
    document = squeeze.single_step_document(list(point.extra["trace"]), float(point.extra["seconds"]), series.key,
                                            series.provenance.device)  # fmt: skip
    trace = read(io.BytesIO(json.dumps(document).encode()), f"<{series.key}>", b"{")
    found = {finding.key for finding in diagnose(trace, step=1).findings}
    return tuple(key for key in FINDING_KEYS if key in found)


def diagnose_result(result: Result) -> list[Change]:
    """Every configuration of ``result`` (in its order) against the one it builds on."""
    steps = [s for s in result.series if s.points and s.points[0].extra.get("trace")]
    found = {s.key: step_findings(s) for s in steps}
    changes: list[Change] = []
    previous_rung: str | None = None
    for series in steps:
        extra = series.points[0].extra
        if extra.get("ladder"):
            before = found[previous_rung] if previous_rung is not None else None
            previous_rung = series.key
        else:
            before = found.get("baseline", ())
        label = series.label if series.label is not None else msg("squeeze.config.baseline")
        changes.append(Change(series.key, label, before, found[series.key], bool(extra.get("ladder"))))
    return changes
