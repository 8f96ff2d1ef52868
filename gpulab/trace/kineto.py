"""PyTorch Profiler / Kineto traces: Chrome trace-event JSON, plain or gzip-compressed.

The file is parsed as a stream (ijson's C backend, 64 KiB at a time): each element of
``traceEvents`` is built, kept as an :class:`~gpulab.trace.model.Event` if it is GPU work, a
launch or synchronising runtime call, a profiler step or a data-loader range, and dropped
otherwise. Memory therefore grows with the kept events, never with the file (a Kineto file is
mostly Python frames and ATen operators, which are dropped). Timestamps are microseconds (the
Chrome format's unit, fractional in recent Kineto), kept as integer nanoseconds.

Which events mean what (``cat`` and ``args`` as Kineto writes them): ``kernel``, ``gpu_memcpy``,
``gpu_memset`` on ``args.stream`` of ``args.device``; ``cuda_runtime``/``cuda_driver`` calls with
``args.correlation`` (the kernel's ``args.correlation`` matches its launch); ``ProfilerStep#N``
and data-loader ranges as ``user_annotation`` or ``cpu_op``; the rank from ``distributedInfo``.
A trace a gpulab lab wrote says in ``gpulab.provenance`` what its times are (a modelled step's
are a model's, never called measured); any other file is a profiler's measurement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator
from typing import IO, Any

import ijson

from gpulab.catalogue import msg
from gpulab.lab.run import drain
from gpulab.trace import classify
from gpulab.trace.model import (
    CPU_LAUNCH,
    DATA_LOADING,
    KERNEL,
    MEMCPY,
    MEMSET,
    NCCL,
    STEP,
    SYNC,
    Event,
    Trace,
    TraceError,
)

PROVENANCES = ("measured", "modelled", "emulated")  # what a gpulab-written trace may say its times are
CHUNK_BYTES = 1 << 16  # each chunk's events are built as dicts before they are dropped: keep it small
GPU_CATEGORIES = {"kernel": KERNEL, "gpu_memcpy": MEMCPY, "gpu_memset": MEMSET,
                  "memcpy": MEMCPY, "memset": MEMSET}  # the last two: Kineto before 2021 # fmt: skip
RUNTIME_CATEGORIES = frozenset({"cuda_runtime", "cuda_driver", "runtime", "driver", "hip_runtime"})
HOST_RANGE_CATEGORIES = frozenset({"user_annotation", "cpu_op", "python_function", "cpu_instant_event"})
# "Memcpy HtoD (Pageable -> Device)": the direction, then where the host side lives.
_COPY_NAME = re.compile(r"Memcpy\s+(HtoD|DtoH|DtoD|PtoP|HtoH)\s*(?:\((\w+)\s*->\s*(\w+)\))?", re.IGNORECASE)
_DIRECTIONS = {"htod": "h2d", "dtoh": "d2h", "dtod": "d2d", "ptop": "p2p", "htoh": ""}


def copy_kind(name: str) -> tuple[str, str]:
    """(direction, host memory) of a Kineto copy's name; ``("", "")`` when the name does not say."""
    found = _COPY_NAME.search(name)
    if found is None:
        return "", ""
    direction = _DIRECTIONS[found.group(1).lower()]
    sides = {(found.group(2) or "").lower(), (found.group(3) or "").lower()}
    memory = "pageable" if "pageable" in sides else "pinned" if "pinned" in sides else ""
    return direction, memory


class _Reader:
    """Turns trace-event dicts into events, with the file's string names interned (a trace names
    the same kernel thousands of times)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.rank = 0
        self.names: dict[str, str] = {}
        self.pending: list[Event] = []

    def state_rank(self, value: Any) -> None:
        """``distributedInfo.rank``: the file says which rank it is (else it is rank 0 by guess)."""
        self.rank = _int(value)
        self.trace.stated_ranks = True

    def name(self, text: Any) -> str:
        text = str(text)
        return self.names.setdefault(text, text)

    def add(self, item: Any) -> None:
        if not isinstance(item, dict) or item.get("ph") != "X":
            return
        category = str(item.get("cat") or "").lower()
        name = item.get("name")
        found = item.get("args")
        args: dict[str, Any] = found if isinstance(found, dict) else {}
        if name is None or "ts" not in item:
            return
        kind = GPU_CATEGORIES.get(category)
        if kind is not None:
            self.gpu(kind, self.name(name), item, args)
        elif category in RUNTIME_CATEGORIES:
            self.runtime(self.name(name), item, args)
        elif category in HOST_RANGE_CATEGORIES:
            self.host_range(str(name), item)

    def times(self, item: dict[str, Any]) -> tuple[int, int]:
        try:
            start_us, dur_us = float(item["ts"]), float(item.get("dur") or 0.0)
        except (TypeError, ValueError):
            raise TraceError(msg("trace.error.field", source=self.trace.source, field="ts/dur",
                                 value=repr(item.get("ts"))[:40])) from None  # fmt: skip
        return round(start_us * 1000), round(dur_us * 1000)

    def gpu(self, kind: str, name: str, item: dict[str, Any], args: dict[str, Any]) -> None:
        start, dur = self.times(item)
        lane = self.name(f"stream {args.get('stream', item.get('tid', '?'))}")
        if kind == KERNEL and classify.is_communication(name):
            kind = NCCL
        direction, memory = copy_kind(name) if kind == MEMCPY else ("", "")
        self.pending.append(Event(-1, lane, kind, start, dur, name, _int(args.get("correlation")),
                                  _int(args.get("bytes")), direction, memory))  # fmt: skip

    def runtime(self, name: str, item: dict[str, Any], args: dict[str, Any]) -> None:
        if classify.is_sync_call(name):
            kind = SYNC
        elif classify.is_launch_call(name):
            kind = CPU_LAUNCH
        else:
            return
        start, dur = self.times(item)
        self.pending.append(Event(-1, self.name(f"thread {item.get('tid', '?')}"), kind, start, dur, name,
                                  _int(args.get("correlation"))))  # fmt: skip

    def host_range(self, name: str, item: dict[str, Any]) -> None:
        number = classify.step_number(name)
        if number is not None:
            start, dur = self.times(item)
            self.pending.append(Event(-1, "steps", STEP, start, dur, self.name(name), number=number))
        elif classify.is_data_loading(name):
            start, dur = self.times(item)
            self.pending.append(Event(-1, self.name(f"thread {item.get('tid', '?')}"), DATA_LOADING, start, dur,
                                      self.name(name)))  # fmt: skip

    def finish(self) -> None:
        for event in self.pending:  # the rank is known only once distributedInfo has been read
            event.rank = self.rank
        self.trace.events.extend(self.pending)
        self.trace.rank_names.setdefault(self.rank, f"rank {self.rank}")


def _int(value: Any) -> int:
    try:
        return int(value) if value is not None else 0
    except (TypeError, ValueError):
        return 0


def read(handle: IO[bytes], source: str, first: bytes, rank: int | None = None) -> Trace:
    """:func:`reading` driven to its end, in one go (a trace held in memory, a script)."""
    return drain(reading(handle, source, first, rank))


def reading(handle: IO[bytes], source: str, first: bytes, rank: int | None = None) -> Generator[None, None, Trace]:
    """A Kineto trace from an open binary stream whose first non-blank byte is ``first``
    (``{`` for the usual object with ``traceEvents``, ``[`` for the bare event array); ``rank``
    overrides the file's own. It pauses (a bare ``yield``) after each chunk of the file, so
    whoever drives it can report progress or stop between chunks."""
    trace = Trace(source, "kineto", stated_ranks=False)
    reader = _Reader(trace)
    seen = {"events": 0}
    prefixes: dict[str, Callable[[Any], None]]
    if first == b"[":
        prefixes = {"item": reader.add}
    else:
        prefixes = {"traceEvents.item": reader.add, "distributedInfo.rank": reader.state_rank,
                    "deviceProperties.item.name": lambda value: setattr(trace, "device", trace.device or str(value)),
                    "gpulab.provenance": lambda value: setattr(
                        trace, "provenance", str(value) if value in PROVENANCES else trace.provenance)}  # fmt: skip
    sinks = {prefix: ijson.sendable_list() for prefix in prefixes}
    coroutines = [ijson.items_coro(sinks[prefix], prefix, use_float=True) for prefix in prefixes]
    try:
        for chunk in _chunks(handle):
            for coroutine in coroutines:
                coroutine.send(chunk)
            for prefix, sink in sinks.items():
                for value in sink:
                    if prefix.endswith("item") and prefix != "deviceProperties.item.name":
                        seen["events"] += 1
                    prefixes[prefix](value)
                del sink[:]
            yield
        for coroutine in coroutines:
            coroutine.close()
    except ijson.JSONError as exc:
        raise TraceError(msg("trace.error.json", source=source, detail=str(exc).splitlines()[0][:120])) from None
    for prefix, sink in sinks.items():  # what the last close() completed
        for value in sink:
            prefixes[prefix](value)
    if first != b"[" and seen["events"] == 0 and not reader.pending:
        raise TraceError(msg("trace.error.no-events", source=source))
    if rank is not None:
        reader.rank = rank
        trace.stated_ranks = True
    reader.finish()
    return trace


def _chunks(handle: IO[bytes]) -> Iterator[bytes]:
    while chunk := handle.read(CHUNK_BYTES):
        yield chunk
