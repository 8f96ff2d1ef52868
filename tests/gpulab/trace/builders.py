"""Hand-built traces in the real formats: a Kineto/Chrome trace-event document (the fields PyTorch
Profiler writes: cat, ph "X", ts/dur in microseconds, args.stream/device/correlation/bytes) and
an nsys SQLite export (the tables and columns ``nsys export --type sqlite`` creates)."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any


class Kineto:
    """A Kineto trace being written: each call adds one event; times in microseconds."""

    def __init__(self, rank: int | None = 0) -> None:
        self.events: list[dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "ts": 0, "args": {"name": "python"}},
            {"ph": "X", "cat": "python_function", "name": "train.py(10): main", "pid": 100, "tid": 100, "ts": 0,
             "dur": 1}]  # fmt: skip
        self.rank = rank
        self.correlation = 1000

    def _next(self) -> int:
        self.correlation += 1
        return self.correlation

    def kernel(self, name: str, ts: float, dur: float, stream: int = 7, launch_at: float | None = None,
               launch_dur: float = 4.0) -> None:  # fmt: skip
        corr = self._next()
        self.events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                            "args": {"device": 0, "stream": stream, "correlation": corr, "External id": corr}})
        launch = launch_at if launch_at is not None else ts - launch_dur - 2
        self.runtime("cudaLaunchKernel", launch, launch_dur, corr)

    def copy(self, direction: str, memory: str, ts: float, dur: float, nbytes: int, stream: int = 7,
             launch_at: float | None = None) -> None:  # fmt: skip
        corr = self._next()
        host = "Pageable" if memory == "pageable" else "Pinned"
        name = {"h2d": f"Memcpy HtoD ({host} -> Device)", "d2h": f"Memcpy DtoH (Device -> {host})",
                "d2d": "Memcpy DtoD (Device -> Device)"}[direction]  # fmt: skip
        self.events.append({"ph": "X", "cat": "gpu_memcpy", "name": name, "pid": 0, "tid": stream, "ts": ts,
                            "dur": dur, "args": {"device": 0, "stream": stream, "correlation": corr,
                                                 "bytes": nbytes}})  # fmt: skip
        self.runtime("cudaMemcpyAsync", launch_at if launch_at is not None else ts - 6, 4.0, corr)

    def runtime(self, name: str, ts: float, dur: float, corr: int = 0) -> None:
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 100, "tid": 100, "ts": ts,
                            "dur": dur, "args": {"correlation": corr, "cbid": 211}})  # fmt: skip

    def annotation(self, name: str, ts: float, dur: float) -> None:
        self.events.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 100, "tid": 100, "ts": ts,
                            "dur": dur, "args": {}})  # fmt: skip

    def cpu_op(self, name: str, ts: float, dur: float) -> None:
        self.events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 100, "tid": 100, "ts": ts, "dur": dur,
                            "args": {"External id": 1}})  # fmt: skip

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}],
                               "traceEvents": self.events}  # fmt: skip
        if self.rank is not None:
            doc["distributedInfo"] = {"backend": "nccl", "rank": self.rank, "world_size": 2}
        return doc

    def write(self, path: Path, compress: bool = False) -> Path:
        data = json.dumps(self.document()).encode()
        path.write_bytes(gzip.compress(data) if compress else data)
        return path


def busy_kernels(trace: Kineto, start: float = 0.0, count: int = 20, dur: float = 100.0, gap: float = 1.0,
                 name: str = "ampere_sgemm_128x64_nn", stream: int = 7) -> float:  # fmt: skip
    """Back-to-back long kernels launched well ahead (a healthy GPU); returns the end time."""
    t = start
    for _ in range(count):
        trace.kernel(name, t, dur, stream=stream, launch_at=max(t - 50.0, 0.0))
        t += dur + gap
    return t


def write_large_trace(path: Path, events: int, rank: int = 0) -> Path:
    """A trace of ``events`` events written piece by piece, nine in ten of them CPU operators (as in
    a real Kineto file) and one in ten a kernel with its launch."""
    with open(path, "w", encoding="utf-8") as out:
        out.write(f'{{"schemaVersion": 1, "distributedInfo": {{"rank": {rank}}}, "traceEvents": [')
        for i in range(events):
            t = i * 2.0
            if i % 10 == 0:
                item = {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": t,
                        "dur": 1.5, "args": {"device": 0, "stream": 7, "correlation": i, "grid": [128, 1, 1]}}
            else:
                item = {"ph": "X", "cat": "cpu_op", "name": f"aten::linear_{i % 50}", "pid": 1, "tid": 1, "ts": t,
                        "dur": 1.0, "args": {"External id": i, "Input Dims": [[64, 1024], [1024, 1024]],
                                             "Input type": ["float", "float"], "Sequence number": i}}
            out.write(("," if i else "") + json.dumps(item))
        out.write("]}")
    return path


NSYS_SCHEMA = """
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, busLocation TEXT, totalMemory INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT NOT NULL, label TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, gridX INTEGER, blockX INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
    domainId INTEGER);
"""


class Nsys:
    """An nsys SQLite export being written (times in ns, names through StringIds)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)
        self.db.executescript(NSYS_SCHEMA)
        self.db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", [
            (0, "CUDA_MEMCPY_OPER_UNKNOWN", "Unknown"), (1, "CUDA_MEMCPY_OPER_HTOD", "Host-to-Device"),
            (2, "CUDA_MEMCPY_OPER_DTOH", "Device-to-Host"), (8, "CUDA_MEMCPY_OPER_DTOD", "Device-to-Device")])
        self.db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)", [
            (0, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"), (1, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"),
            (2, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"), (3, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device")])
        self.db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', '0000:01:00.0', 0)")
        self.strings: dict[str, int] = {}
        self.correlation = 1

    def string(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.strings) + 1
            self.db.execute("INSERT INTO StringIds VALUES (?, ?)", (self.strings[text], text))
        return self.strings[text]

    def kernel(self, name: str, start: int, dur: int, stream: int = 7, launch_at: int | None = None) -> None:
        self.correlation += 1
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, 1, ?, ?, 1, 128)",
                        (start, start + dur, stream, self.correlation, self.string(name), self.string(name[:20])))
        launch = launch_at if launch_at is not None else start - 6000
        self.runtime("cudaLaunchKernel_v7000", launch, 4000, self.correlation)

    def copy(self, kind: int, src: int, dst: int, start: int, dur: int, nbytes: int, stream: int = 7) -> None:
        self.correlation += 1
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, ?, ?, 1, ?, ?, ?, ?)",
                        (start, start + dur, stream, self.correlation, nbytes, kind, src, dst))
        self.runtime("cudaMemcpyAsync_v3020", start - 6000, 4000, self.correlation)

    def runtime(self, name: str, start: int, dur: int, corr: int = 0) -> None:
        self.db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, 77, ?, ?, 0)",
                        (start, start + dur, corr, self.string(name)))

    def range(self, text: str, start: int, dur: int) -> None:
        self.db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, 0, 0, 0, ?, 77, 77, NULL, 0)",
                        (start, start + dur, text))

    def close(self) -> None:
        self.db.commit()
        self.db.close()
