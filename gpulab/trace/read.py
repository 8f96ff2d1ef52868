"""Opening a trace file: which format it is (from its first bytes, not its name), then its reader.

Formats: Kineto / Chrome trace JSON (``.json``, ``.json.gz``: gzip is recognised by its magic
bytes), an Nsight Systems SQLite export, a saved gpulab result with timelines. Anything else, an
unreadable file, a truncated gzip or malformed JSON raises :class:`TraceError` with one line that
names the file and the problem.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import IO

from gpulab.catalogue import msg
from gpulab.trace import kineto, labtimeline, nsys
from gpulab.trace.model import Trace, TraceError

GZIP_MAGIC = b"\x1f\x8b"
SQLITE_MAGIC = b"SQLite format 3\x00"
PEEK_BYTES = 4096
RESULT_MARK = b'"gpulab.result/'


def read_trace(path: str | Path, rank: int | None = None) -> Trace:
    """The trace in ``path``; ``rank`` overrides a Kineto file's own rank (for several files of one run)."""
    path = Path(path)
    source = str(path)
    if path.suffix in (".nsys-rep", ".qdrep"):
        raise TraceError(msg("trace.error.nsys-rep", source=source))
    try:
        if not path.is_file():
            raise TraceError(msg("trace.error.not-a-file", source=source))
        with open(path, "rb") as raw:
            head = raw.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise TraceError(msg("trace.error.unreadable", source=source, reason=exc.strerror or str(exc))) from None
    if head.startswith(SQLITE_MAGIC):
        return nsys.read(str(path), source)
    try:
        with open(path, "rb") as raw:
            handle: IO[bytes] = gzip.GzipFile(fileobj=raw) if head.startswith(GZIP_MAGIC) else raw  # type: ignore[assignment]
            return _read_json(handle, source, path, rank)
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise TraceError(msg("trace.error.gzip", source=source, detail=str(exc) or type(exc).__name__)) from None
    except OSError as exc:
        raise TraceError(msg("trace.error.unreadable", source=source, reason=exc.strerror or str(exc))) from None


def _read_json(handle: IO[bytes], source: str, path: Path, rank: int | None) -> Trace:
    peek = handle.peek(PEEK_BYTES)[:PEEK_BYTES] if hasattr(handle, "peek") else b""
    first = peek.lstrip()[:1]
    if first not in (b"{", b"["):
        what = "empty" if not peek.strip() else repr(peek.lstrip()[:16])[2:-1]
        raise TraceError(msg("trace.error.unknown-format", source=source, start=what))
    if first == b"{" and RESULT_MARK in peek:  # a gpulab result names its schema first
        return labtimeline.read(str(path), source)
    return kineto.read(handle, source, first, rank)


def read_traces(paths: list[str | Path]) -> Trace:
    """Several files of one run as one trace, a rank each (a file's own rank, or its position when
    two files claim the same rank). One file is just :func:`read_trace`."""
    if len(paths) == 1:
        return read_trace(paths[0])
    merged = Trace(", ".join(str(p) for p in paths), "")
    formats = []
    for index, path in enumerate(paths):
        part = read_trace(path)
        formats.append(part.format)
        clash = set(part.ranks) & set(merged.ranks)
        if clash:
            part = read_trace(path, rank=index) if part.format == "kineto" else part
            if set(part.ranks) & set(merged.ranks):
                taken = ", ".join(map(str, sorted(clash)))
                raise TraceError(msg("trace.error.same-rank", source=str(path), ranks=taken))
        merged.events.extend(part.events)
        merged.rank_names.update(part.rank_names)
        merged.device = merged.device or part.device
        merged.provenance = labtimeline.weakest([merged.provenance, part.provenance])
    merged.format = "+".join(dict.fromkeys(formats))
    return merged
