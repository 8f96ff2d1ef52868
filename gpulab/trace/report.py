"""A diagnosis as words (the CLI's text, in English or Chinese) and as a gpulab result.

The result (:func:`to_result`, schema ``gpulab.result/2``) is what ``gpulab trace --json``
writes and the GUI opens as replayed. Scripts read ``params.summary``:

    {"overall": {compute_share, communication_share, memory_share, idle_share, ...},
     "ranks": {"0": {... the same per rank ...}},
     "rank_names": {"0": "rank 0"}, "rank_files": {"0": "rank0.json"}  (several files read as one),
     "findings": [{"key", "rank", "step", "lab", "evidence", "events", "message", "advice"}],
     "steps": {"0": [{"step": N, "compute_share": ..., ...}]}}

and one series (``gpu-busy``, provenance ``measured``: the numbers were measured by the profiler
that wrote the file, whose name, format and size are in the provenance's details; ``modelled``
for a modelled lab run's timeline) with a point
per rank: x the rank, y its busy share in per cent, the shares in ``extra``. The findings are
also the result's notes, so a viewer shows them in its own language.
"""

from __future__ import annotations

import os
from typing import Any

from gpulab.catalogue import Message, msg, render
from gpulab.results import Point, Provenance, Result, Series
from gpulab.trace.analysis import Breakdown
from gpulab.trace.doctor import Diagnosis

EXPERIMENT = "trace"


def summary(diagnosis: Diagnosis) -> dict[str, Any]:
    """The machine-readable summary (see the module's docstring)."""
    return {
        "overall": diagnosis.overall.figures(),
        "ranks": {str(rank): part.figures() for rank, part in diagnosis.ranks.items()},
        "rank_names": {str(rank): diagnosis.trace.rank_name(rank) for rank in diagnosis.ranks},
        "rank_files": {str(rank): diagnosis.trace.rank_files[rank] for rank in diagnosis.ranks
                       if rank in diagnosis.trace.rank_files},  # several files read as one: which file is which
        "findings": [found.to_json() for found in diagnosis.findings],
        "steps": {str(rank): [{"step": s.number, "start_ns": s.start_ns, "end_ns": s.end_ns,
                               **{k: round(v, 6) for k, v in part.shares().items()}} for s, part in parts]
                  for rank, parts in diagnosis.per_step.items()},
    }  # fmt: skip


def to_result(diagnosis: Diagnosis) -> Result:
    trace = diagnosis.trace
    try:
        size: int | None = sum(os.path.getsize(file) for file in trace.files)
    except OSError:
        size = None
    names = ", ".join(os.path.basename(file) for file in trace.files)
    provenance = Provenance(trace.provenance, trace.device or trace.format,
                            {"source": "trace", "file": names, "format": trace.format, "bytes": size})  # fmt: skip
    points = tuple(Point(x=rank, y=round(100 * (1 - part.shares()["idle_share"]), 4),
                         extra={**part.figures(), "rank_name": trace.rank_name(rank)})
                   for rank, part in diagnosis.ranks.items())  # fmt: skip
    series = Series("GPU busy", provenance, "rank", "", "GPU busy", "%", points, role="gpu", key="gpu-busy",
                    label=msg("trace.series.busy"))  # fmt: skip
    params = {"file": trace.source, "files": trace.files, "format": trace.format, "step": diagnosis.step,
              "summary": summary(diagnosis)}
    return Result(EXPERIMENT, params, (series,), notes=tuple(f.message for f in diagnosis.findings))


def _percent(share: float) -> str:
    return f"{share:.1%}"


def _shares_line(name: str, part: Breakdown, lang: str) -> str:
    shares = part.shares()
    return render(msg("trace.text.shares", who=name, compute=_percent(shares["compute_share"]),
                      comm=_percent(shares["communication_share"]), memory=_percent(shares["memory_share"]),
                      idle=_percent(shares["idle_share"]), ms=f"{part.window_ns / 1e6:.2f}"), lang)  # fmt: skip


def _idle_line(part: Breakdown, lang: str) -> str:
    causes = {cause: _percent(part.share(ns)) for cause, ns in part.idle_by_cause.items()}
    return render(msg("trace.text.idle", launch=causes["cpu_launch"], sync=causes["sync"], data=causes["data"],
                      other=causes["other"]), lang)  # fmt: skip


def _overlap_line(part: Breakdown, lang: str) -> str | None:
    lines = []
    if part.comm_total_ns:
        lines.append(msg("trace.text.comm-overlap", percent=_percent(part.comm_overlapped_ns / part.comm_total_ns)))
    if part.host_copy_ns:
        lines.append(msg("trace.text.copy-overlap", percent=_percent(part.host_copy_overlapped_ns / part.host_copy_ns)))
    if part.kernels:
        lines.append(msg("trace.text.kernels", kernels=part.kernels, percent=_percent(part.tiny_kernels / part.kernels),
                         gaps=len(part.gaps), syncs=part.sync_calls, pageable=part.pageable_copies))  # fmt: skip
    return "\n".join("  " + render(line, lang) for line in lines) if lines else None


def _evidence_text(evidence: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in evidence.items() if not isinstance(v, (list, dict)))


def text(diagnosis: Diagnosis, lang: str = "en") -> str:
    """What the CLI prints: the file, the shares overall and per rank, then each finding with its
    evidence and the lab to open."""
    trace = diagnosis.trace
    out = [render(msg("trace.text.header", file=trace.source, format=trace.format, ranks=len(diagnosis.ranks),
                      steps=len({s.number for s in trace.steps()})), lang)]  # fmt: skip
    if diagnosis.step is not None:
        out.append(render(msg("trace.text.step", step=diagnosis.step), lang))
    out.append(_shares_line(render(msg("trace.text.overall"), lang), diagnosis.overall, lang))
    out.append("  " + _idle_line(diagnosis.overall, lang))
    for rank, part in diagnosis.ranks.items():
        where = f" ({os.path.basename(trace.rank_files[rank])})" if rank in trace.rank_files else ""
        out.append(_shares_line(trace.rank_name(rank) + where, part, lang))
        if part.has_host_calls:
            out.append("  " + _idle_line(part, lang))
        extra = _overlap_line(part, lang)
        if extra:
            out.append(extra)
    if not diagnosis.findings:
        out.append(render(msg("trace.text.no-findings"), lang))
    for found in diagnosis.findings:
        where = trace.rank_name(found.rank)
        out.append(f"[{found.key}] {where}: {render(found.message, lang)}")
        out.append("  " + render(msg("trace.text.evidence", evidence=_evidence_text(found.evidence)), lang))
        for event in found.events[:3]:
            out.append(f"    - {event['name']} ({event['lane']}, {int(event['dur_ns']) / 1000:.1f} us)")  # type: ignore[call-overload]
        out.append("  " + render(found.advice, lang))
        out.append("  " + render(msg("trace.text.lab", lab=found.lab, title=_lab_title(found.lab)), lang))
    return "\n".join(out)


def _lab_title(lab: str) -> Message:
    return msg(f"experiment.{lab}.title")
