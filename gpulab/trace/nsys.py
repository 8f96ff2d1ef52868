"""Nsight Systems traces, as ``nsys export --type sqlite`` writes them.

Tables read (each only if the export has it: nsys creates tables lazily):
``CUPTI_ACTIVITY_KIND_KERNEL`` (start, end, deviceId, streamId, correlationId, shortName and
demangledName as ids into ``StringIds``), ``CUPTI_ACTIVITY_KIND_MEMCPY`` (… bytes, copyKind,
srcKind, dstKind), ``CUPTI_ACTIVITY_KIND_MEMSET`` (… bytes), ``CUPTI_ACTIVITY_KIND_RUNTIME``
(start, end, globalTid, correlationId, nameId), ``NVTX_EVENTS`` (start, end, text or textId,
globalTid) for ``ProfilerStep#N`` and data-loader ranges, and ``TARGET_INFO_GPU`` (id, name) for
the device's name. Times are nanoseconds already. Copy kinds and host memory kinds are read from
the export's own ``ENUM_CUDA_MEMCPY_OPER`` / ``ENUM_CUDA_MEM_KIND`` label tables when present,
else from CUPTI's enums (CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP;
CUpti_ActivityMemoryKind: 1 pageable, 2 pinned). Each GPU (``deviceId``) is a rank. Rows are
read through a cursor, one at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Generator, Iterator, Mapping
from typing import Any

from gpulab.catalogue import msg
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

CUPTI_COPY_KINDS = {1: "h2d", 2: "d2h", 8: "d2d", 10: "p2p"}
CUPTI_MEMORY_KINDS = {1: "pageable", 2: "pinned"}
GPU_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")


ROWS_PER_PAUSE = 1 << 15  # rows read between two pauses of :func:`reading` (a cancel waits no longer)
STAGES = 5  # kernels, copies, memsets, runtime calls, NVTX ranges: the fraction :func:`reading` reports


def reading(path: str, source: str) -> Generator[float, None, Trace]:
    """The trace in an exported Nsight Systems database (read-only), pausing every
    :data:`ROWS_PER_PAUSE` rows with the fraction of the tables read so far, so whoever drives it
    can report progress or stop (the database is closed then)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise TraceError(msg("trace.error.sqlite", source=source, detail=str(exc))) from None
    try:
        return (yield from _read(db, source))
    except sqlite3.Error as exc:
        raise TraceError(msg("trace.error.sqlite", source=source, detail=str(exc))) from None
    finally:
        db.close()


def _tables(db: sqlite3.Connection) -> dict[str, set[str]]:
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
    return {name: {row[1] for row in db.execute(f'PRAGMA table_info("{name}")')} for name in names}


def _collect(events: list[Event], found: Iterator[Event], stage: int) -> Generator[float, None, None]:
    """Append ``found`` to ``events``, pausing every ROWS_PER_PAUSE with the fraction of stage ``stage``."""
    for count, event in enumerate(found, 1):
        events.append(event)
        if count % ROWS_PER_PAUSE == 0:
            yield stage / STAGES
    yield (stage + 1) / STAGES


def _read(db: sqlite3.Connection, source: str) -> Generator[float, None, Trace]:
    tables = _tables(db)
    if not any(table in tables for table in GPU_TABLES):
        raise TraceError(msg("trace.error.not-nsys", source=source))
    for table in (*GPU_TABLES, "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"):
        if table in tables and not {"start", "end"} <= tables[table]:
            raise TraceError(msg("trace.error.columns", source=source, table=table, columns="start, end"))
    trace = Trace(source, "nsys")
    strings = _strings(db, tables)
    copy_kinds = _labels(db, tables, "ENUM_CUDA_MEMCPY_OPER", CUPTI_COPY_KINDS, _copy_label)
    memory_kinds = _labels(db, tables, "ENUM_CUDA_MEM_KIND", CUPTI_MEMORY_KINDS, _memory_label)
    devices = _devices(db, tables)
    events = trace.events
    yield from _collect(events, _kernels(db, tables, strings), 0)
    yield from _collect(events, _copies(db, tables, copy_kinds, memory_kinds), 1)
    yield from _collect(events, _memsets(db, tables), 2)
    gpu_ranks = sorted({e.rank for e in events})
    host_rank = gpu_ranks[0] if gpu_ranks else 0  # host calls carry no device: a single-GPU export's host
    yield from _collect(events, _runtime(db, tables, strings, host_rank), 3)
    yield from _collect(events, _ranges(db, tables, strings, host_rank), 4)
    for rank in gpu_ranks:
        trace.rank_names[rank] = f"GPU {rank}" + (f" ({devices[rank]})" if rank in devices else "")
    trace.device = ", ".join(sorted(set(devices.values())))
    return trace


def _strings(db: sqlite3.Connection, tables: dict[str, set[str]]) -> dict[int, str]:
    if "StringIds" not in tables:
        return {}
    return {int(i): str(v) for i, v in db.execute("SELECT id, value FROM StringIds")}


def _copy_label(label: str) -> str:
    text = label.lower().replace(" ", "").replace("-", "")
    for spelled, direction in (("htod", "h2d"), ("hosttodevice", "h2d"), ("dtoh", "d2h"), ("devicetohost", "d2h"),
                               ("dtod", "d2d"), ("devicetodevice", "d2d"), ("ptop", "p2p"), ("peertopeer", "p2p")):
        if spelled in text:
            return direction
    return ""


def _memory_label(label: str) -> str:
    text = label.lower()
    return "pageable" if "pageable" in text else "pinned" if "pinned" in text else ""


def _labels(db: sqlite3.Connection, tables: dict[str, set[str]], table: str, fallback: dict[int, str],
            meaning: Any) -> dict[int, str]:  # fmt: skip
    """An export's enum table (id -> our word), else CUPTI's values."""
    columns = tables.get(table, set())
    column = "label" if "label" in columns else "name" if "name" in columns else None
    if column is None or "id" not in columns:
        return fallback
    return {int(i): meaning(str(text)) for i, text in db.execute(f'SELECT id, "{column}" FROM "{table}"')}


def _devices(db: sqlite3.Connection, tables: dict[str, set[str]]) -> dict[int, str]:
    columns = tables.get("TARGET_INFO_GPU", set())
    if not {"id", "name"} <= columns:
        return {}
    return {int(i): str(n) for i, n in db.execute("SELECT id, name FROM TARGET_INFO_GPU")}


def _column(columns: set[str], *choices: str) -> str:
    return next((f'"{c}"' for c in choices if c in columns), "0")


def _rows(db: sqlite3.Connection, tables: dict[str, set[str]], table: str, wanted: Mapping[str, tuple[str, ...]]
          ) -> Iterator[tuple[Any, ...]]:  # fmt: skip
    columns = tables.get(table)
    if columns is None:
        return
    picked = ", ".join(_column(columns, *choices) for choices in wanted.values())
    yield from db.execute(f'SELECT "start", "end", {picked} FROM "{table}"')


def _kernels(db: sqlite3.Connection, tables: dict[str, set[str]], strings: dict[int, str]) -> Iterator[Event]:
    wanted = {"device": ("deviceId",), "stream": ("streamId",), "corr": ("correlationId",),
              "name": ("demangledName", "shortName", "name")}  # fmt: skip
    for start, end, device, stream, corr, name_id in _rows(db, tables, "CUPTI_ACTIVITY_KIND_KERNEL", wanted):
        name = strings.get(int(name_id or 0), f"kernel {name_id}")
        kind = NCCL if classify.is_communication(name) else KERNEL
        yield Event(int(device), f"stream {stream}", kind, int(start), int(end) - int(start), name, int(corr or 0))


def _copies(db: sqlite3.Connection, tables: dict[str, set[str]], copy_kinds: dict[int, str],
            memory_kinds: dict[int, str]) -> Iterator[Event]:  # fmt: skip
    wanted = {"device": ("deviceId",), "stream": ("streamId",), "corr": ("correlationId",), "bytes": ("bytes",),
              "kind": ("copyKind",), "src": ("srcKind",), "dst": ("dstKind",)}  # fmt: skip
    for start, end, device, stream, corr, nbytes, kind, src, dst in _rows(db, tables, "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                                           wanted):  # fmt: skip
        direction = copy_kinds.get(int(kind or 0), "")
        sides = {memory_kinds.get(int(src or 0), ""), memory_kinds.get(int(dst or 0), "")}
        memory = "pageable" if "pageable" in sides else "pinned" if "pinned" in sides else ""
        name = f"Memcpy {direction.upper() or '?'}" + (f" ({memory})" if memory else "")
        yield Event(int(device), f"stream {stream}", MEMCPY, int(start), int(end) - int(start), name, int(corr or 0),
                    int(nbytes or 0), direction, memory)  # fmt: skip


def _memsets(db: sqlite3.Connection, tables: dict[str, set[str]]) -> Iterator[Event]:
    wanted = {"device": ("deviceId",), "stream": ("streamId",), "corr": ("correlationId",), "bytes": ("bytes",)}
    for start, end, device, stream, corr, nbytes in _rows(db, tables, "CUPTI_ACTIVITY_KIND_MEMSET", wanted):
        yield Event(int(device), f"stream {stream}", MEMSET, int(start), int(end) - int(start), "Memset",
                    int(corr or 0), int(nbytes or 0))  # fmt: skip


def _runtime(db: sqlite3.Connection, tables: dict[str, set[str]], strings: dict[int, str],
             rank: int) -> Iterator[Event]:  # fmt: skip
    wanted = {"tid": ("globalTid",), "corr": ("correlationId",), "name": ("nameId",)}
    for start, end, tid, corr, name_id in _rows(db, tables, "CUPTI_ACTIVITY_KIND_RUNTIME", wanted):
        name = classify.call_name(strings.get(int(name_id or 0), ""))
        kind = SYNC if classify.is_sync_call(name) else CPU_LAUNCH if classify.is_launch_call(name) else None
        if kind is not None:
            yield Event(rank, f"thread {tid}", kind, int(start), int(end) - int(start), name, int(corr or 0))


def _ranges(db: sqlite3.Connection, tables: dict[str, set[str]], strings: dict[int, str],
            rank: int) -> Iterator[Event]:  # fmt: skip
    columns = tables.get("NVTX_EVENTS")
    if columns is None:
        return
    text = '"text"' if "text" in columns else "NULL"
    text_id = '"textId"' if "textId" in columns else "NULL"
    tid = '"globalTid"' if "globalTid" in columns else "0"
    query = f'SELECT "start", "end", {text}, {text_id}, {tid} FROM NVTX_EVENTS WHERE "end" > "start"'
    for start, end, label, label_id, thread in db.execute(query):
        name = str(label) if label is not None else strings.get(int(label_id or 0), "")
        number = classify.step_number(name)
        if number is not None:
            yield Event(rank, "steps", STEP, int(start), int(end) - int(start), name, number=number)
        elif classify.is_data_loading(name):
            yield Event(rank, f"thread {thread}", DATA_LOADING, int(start), int(end) - int(start), name)
