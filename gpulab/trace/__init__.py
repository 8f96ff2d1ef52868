"""The trace doctor's engine (no Qt): read a profiler trace, say where the GPU's time went and why.

    trace = read_trace("rank0.json.gz")        # Kineto JSON (.gz), nsys SQLite, a gpulab result
    trace = read_traces(["rank0.json", "rank1.json"])   # one run's files, a rank each
    trace = yield from reading_traces(paths)   # the same in a run's generator: progress, stops between chunks
    diagnosis = diagnose(trace, step=None)     # shares, idle causes, overlap, findings
    to_result(diagnosis).save("out.json")      # what ``gpulab trace --json`` writes
    timeline_ops(trace, rank=0, window_ns=step_window(trace, 5))   # lanes for the timeline widget

Formats: :mod:`gpulab.trace.kineto`, :mod:`gpulab.trace.nsys`, :mod:`gpulab.trace.labtimeline`;
the measures: :mod:`gpulab.trace.analysis`; the findings: :mod:`gpulab.trace.findings`;
thresholds and name patterns: ``resources/trace/thresholds.toml``.
"""

from gpulab.trace.analysis import Breakdown
from gpulab.trace.classify import FINDING_KEYS, lab_of
from gpulab.trace.doctor import Diagnosis, diagnose, for_step
from gpulab.trace.findings import Finding
from gpulab.trace.lanes import step_window, timeline_ops
from gpulab.trace.model import Event, Step, Trace, TraceError
from gpulab.trace.read import read_trace, read_traces, reading_trace, reading_traces
from gpulab.trace.report import summary, text, to_result

__all__ = [
    "FINDING_KEYS",
    "Breakdown",
    "Diagnosis",
    "Event",
    "Finding",
    "Step",
    "Trace",
    "TraceError",
    "diagnose",
    "for_step",
    "lab_of",
    "read_trace",
    "read_traces",
    "reading_trace",
    "reading_traces",
    "step_window",
    "summary",
    "text",
    "timeline_ops",
    "to_result",
]
