"""The lab's own timelines: a saved gpulab result whose points keep their timeline in
``extra["ops"]`` (:mod:`gpulab.timeline`; the streams lab writes one per configuration).

Each point with a timeline becomes one "rank" of the trace, named after its series (a streams
configuration: one stream, pinned, pageable, default stream), so the doctor judges each
configuration on its own. Op kinds map onto the event model: ``kernel`` -> kernel, ``h2d`` and
``d2h`` -> copies (pageable when the point's configuration says so, else pinned: the lab's only
two cases), ``comm`` -> a collective; anything else is left out. These timelines hold no host
calls, so idle time cannot be attributed (it stays "other").
"""

from __future__ import annotations

from gpulab.catalogue import msg
from gpulab.results import Result, ResultFormatError, Series, load
from gpulab.timeline import ops_of
from gpulab.trace.model import KERNEL, MEMCPY, NCCL, Event, Trace, TraceError

_KINDS = {"kernel": KERNEL, "h2d": MEMCPY, "d2h": MEMCPY, "comm": NCCL}


def read(path: str, source: str) -> Trace:
    try:
        result = load(path)
    except ResultFormatError as exc:
        raise TraceError(msg("trace.error.result", source=source, detail=str(exc))) from None
    return from_result(result, source)


def from_result(result: Result, source: str = "<result>") -> Trace:
    """The timelines of a lab result as a trace (TraceError when none of its points has one)."""
    trace = Trace(source, "gpulab")
    rank = 0
    for series in result.series:
        for point in series.points:
            ops = ops_of(point.extra)
            if not ops:
                continue
            pageable = "pageable" in str(point.extra.get("configuration", ""))
            for op in ops:
                kind = _KINDS.get(op.kind)
                if kind is None:
                    continue
                direction = op.kind if kind == MEMCPY else ""
                memory = ("pageable" if pageable else "pinned") if kind == MEMCPY else ""
                trace.events.append(Event(rank, op.lane, kind, round(op.start_s * 1e9), round(op.duration_s * 1e9),
                                          op.name, 0, op.bytes, direction, memory))  # fmt: skip
            trace.rank_names[rank] = f"{series.name} ({result.experiment})"
            rank += 1
    if rank == 0:
        raise TraceError(msg("trace.error.no-timeline", source=source, experiment=result.experiment))
    trace.device = next((s.provenance.device for s in result.series if s.provenance.device), "")
    trace.provenance = weakest([_kind(s) for s in result.series if any(ops_of(p.extra) for p in s.points)])
    return trace


def _kind(series: Series) -> str:
    """What a series' numbers are: a replayed series keeps the kind it was saved with."""
    prov = series.provenance
    return str(prov.details.get("original_kind", "measured")) if prov.kind == "replayed" else prov.kind


def weakest(kinds: list[str]) -> str:
    """The kind a mix must be called by: any modelled time makes the whole trace modelled."""
    return next((k for k in ("modelled", "emulated") if k in kinds), "measured")
