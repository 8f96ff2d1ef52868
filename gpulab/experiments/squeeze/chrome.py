"""A step as a Chrome trace, shaped like the PyTorch profiler's (Kineto) JSON.

Every event is a complete event (``"ph": "X"``) in microseconds: host calls (``cuda_runtime``) and
ranges (``user_annotation``: ``ProfilerStep#N``, ``enumerate(DataLoader)...``) on the host's
process and threads, kernels (``kernel``) and copies (``gpu_memcpy``) on the GPU's process with
their stream as the thread and in ``args.stream``, tied to their launch by ``args.correlation``.
The trace doctor (:func:`gpulab.trace.read_trace`) reads it as it reads a real Kineto file, and
Perfetto or chrome://tracing open it.

Several configurations go into one file as consecutive profiler steps (``ProfilerStep#1`` for
the first configuration, and so on), each with a ``user_annotation`` naming its configuration,
so ``gpulab trace FILE --step N`` judges configuration N alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gpulab.experiments.squeeze.step import TraceEvent

HOST_PID, DEVICE = 1, 0
GAP_BETWEEN_STEPS_US = 50.0  # the configurations' steps are laid out one after another, this far apart


def _tid(lane: str) -> int:
    """A thread or stream lane's number: "stream 7" -> 7; the host's threads are 1 (main) and 2 (loader)."""
    word, _space, number = lane.partition(" ")
    if word == "stream":
        return int(number)
    return 1 if number == "main" else 2


def event_json(event: TraceEvent, offset_us: float, correlation_base: int) -> dict[str, Any]:
    """One event as Kineto writes it, ``offset_us`` later and its correlation id shifted."""
    args = dict(event.args)
    if "correlation" in args:
        args["correlation"] = int(args["correlation"]) + correlation_base
    on_gpu = event.cat in ("kernel", "gpu_memcpy")
    if on_gpu:
        args.update(device=DEVICE, stream=_tid(event.lane))
    return {"ph": "X", "cat": event.cat, "name": event.name, "pid": DEVICE if on_gpu else HOST_PID,
            "tid": _tid(event.lane), "ts": round(offset_us + event.start_s * 1e6, 3),
            "dur": round(event.dur_s * 1e6, 3), "args": args}  # fmt: skip


def _renumbered(name: str, number: int) -> str:
    return f"ProfilerStep#{number}" if name.startswith("ProfilerStep#") else name


def steps_trace(steps: Sequence[tuple[str, Sequence[Mapping[str, Any]], float]], device: str,
                provenance: str = "measured") -> dict[str, Any]:  # fmt: skip
    """The trace document of ``steps``: (configuration name, its events as stored, step seconds) each,
    one profiler step per configuration, in order. ``provenance`` (what the times are: a modelled
    step's are a model's) goes in a ``gpulab`` field, which the trace doctor reads and other viewers ignore."""
    events: list[dict[str, Any]] = []
    offset_us, correlation_base = 0.0, 0
    for number, (name, stored, step_s) in enumerate(steps, start=1):
        step_events = [stored_event(item) for item in stored]
        for event in step_events:
            item = event_json(event, offset_us, correlation_base)
            item["name"] = _renumbered(item["name"], number)
            events.append(item)
        events.append({"ph": "X", "cat": "user_annotation", "name": f"configuration: {name}", "pid": HOST_PID,
                       "tid": 1, "ts": round(offset_us, 3), "dur": round(step_s * 1e6, 3), "args": {}})  # fmt: skip
        correlation_base += 1 + max((int(e.args.get("correlation", 0)) for e in step_events), default=0)
        offset_us += step_s * 1e6 + GAP_BETWEEN_STEPS_US
    return {"schemaVersion": 1, "deviceProperties": [{"id": DEVICE, "name": device}],
            "distributedInfo": {"rank": 0, "world_size": 1}, "displayTimeUnit": "ms",
            "gpulab": {"provenance": provenance}, "traceEvents": sorted(events, key=lambda e: e["ts"])}  # fmt: skip


def stored(events: Iterable[TraceEvent]) -> list[dict[str, Any]]:
    """Events in the compact form a result point keeps (``extra['trace']``)."""
    return [{"name": e.name, "cat": e.cat, "lane": e.lane, "start_s": e.start_s, "dur_s": e.dur_s, "args": e.args}
            for e in events]  # fmt: skip


def stored_event(item: Mapping[str, Any]) -> TraceEvent:
    return TraceEvent(str(item["name"]), str(item["cat"]), str(item["lane"]), float(item["start_s"]),
                      float(item["dur_s"]), dict(item.get("args") or {}))  # fmt: skip


def write(document: Mapping[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(document) + "\n", encoding="utf-8")
