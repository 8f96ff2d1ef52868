"""Opening a trace file: which format it is (from its first bytes, not its name), then its reader.

Formats: Kineto / Chrome trace JSON (``.json``, ``.json.gz``: gzip is recognised by its magic
bytes), an Nsight Systems SQLite export, a saved gpulab result with timelines. Anything else, an
unreadable file, a truncated gzip or malformed JSON raises :class:`TraceError` with one line that
names the file and the problem.

:func:`reading_traces` is the same reading as a run's generator: it yields
:class:`~gpulab.lab.run.Progress` (the fraction of the files' bytes read) every
:data:`REPORT_BYTES` or so, so a front end shows how far it got and may stop it there;
:func:`read_trace` and :func:`read_traces` drive it to its end.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import IO

from gpulab.catalogue import msg
from gpulab.lab.run import Progress, drain
from gpulab.trace import kineto, labtimeline, nsys
from gpulab.trace.model import Trace, TraceError

GZIP_MAGIC = b"\x1f\x8b"
SQLITE_MAGIC = b"SQLite format 3\x00"
PEEK_BYTES = 4096
RESULT_MARK = b'"gpulab.result/'
REPORT_BYTES = 1 << 18  # a progress report (and a chance to stop) every 256 KiB of a file read

Reading = Generator[Progress, None, Trace]
Report = Callable[[float], Progress]  # the fraction of one file read -> the report for the whole reading


def read_trace(path: str | Path, rank: int | None = None) -> Trace:
    """The trace in ``path``; ``rank`` overrides a Kineto file's own rank."""
    return drain(reading_trace(path, rank))


def read_traces(paths: Sequence[str | Path]) -> Trace:
    """Several files of one run as one trace (see :func:`reading_traces`). One file is just :func:`read_trace`."""
    return drain(reading_traces(paths))


def reading_trace(path: str | Path, rank: int | None = None) -> Reading:
    """:func:`read_trace`, yielding its progress (the fraction of the file read)."""
    name = Path(path).name
    return _reading_one(Path(path), rank, lambda fraction: Progress(fraction, msg("trace.progress.reading",
                                                                                  file=name)))  # fmt: skip


def _reading_one(path: Path, rank: int | None, report: Report) -> Reading:
    source = str(path)
    if path.suffix in (".nsys-rep", ".qdrep"):
        raise TraceError(msg("trace.error.nsys-rep", source=source))
    try:
        if not path.is_file():
            raise TraceError(msg("trace.error.not-a-file", source=source))
        with open(path, "rb") as raw:
            head = raw.read(len(SQLITE_MAGIC))
        size = max(os.path.getsize(path), 1)
    except OSError as exc:
        raise TraceError(msg("trace.error.unreadable", source=source, reason=exc.strerror or str(exc))) from None
    if head.startswith(SQLITE_MAGIC):
        steps = nsys.reading(str(path), source)
        while True:
            try:
                fraction = next(steps)
            except StopIteration as done:
                return done.value
            yield report(fraction)
    try:
        with open(path, "rb") as raw:
            handle: IO[bytes] = gzip.GzipFile(fileobj=raw) if head.startswith(GZIP_MAGIC) else raw  # type: ignore[assignment]
            return (yield from _reading_json(handle, raw, size, source, path, rank, report))
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise TraceError(msg("trace.error.gzip", source=source, detail=str(exc) or type(exc).__name__)) from None
    except OSError as exc:
        raise TraceError(msg("trace.error.unreadable", source=source, reason=exc.strerror or str(exc))) from None


def _reading_json(handle: IO[bytes], raw: IO[bytes], size: int, source: str, path: Path, rank: int | None,
                  report: Report) -> Reading:  # fmt: skip
    peek = handle.peek(PEEK_BYTES)[:PEEK_BYTES] if hasattr(handle, "peek") else b""
    first = peek.lstrip()[:1]
    if first not in (b"{", b"["):
        what = "empty" if not peek.strip() else repr(peek.lstrip()[:16])[2:-1]
        raise TraceError(msg("trace.error.unknown-format", source=source, start=what))
    if first == b"{" and RESULT_MARK in peek:  # a gpulab result names its schema first
        return labtimeline.read(str(path), source)
    steps, reported = kineto.reading(handle, source, first, rank), 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        where = raw.tell()  # bytes of the file itself (of a gzip file: compressed bytes) read so far
        if where - reported >= REPORT_BYTES:
            reported = where
            yield report(min(where / size, 1.0))


def reading_traces(paths: Sequence[str | Path]) -> Reading:
    """Several files of one run as one trace, a rank each, read one after the other (all or
    nothing: the first file that cannot be read raises its own one-line error). A Kineto file
    keeps the rank its ``distributedInfo`` states; one that states none, or a rank another file
    already stated, takes its place in ``paths`` (or the lowest rank still free). Other formats
    keep their ranks (an nsys export's GPUs, a lab's configurations) unless another file holds
    them: then they move to free ranks, named after their file. Progress is the fraction of all
    the files' bytes."""
    files = [Path(p) for p in paths]
    sizes = [_size(p) for p in files]
    total, before = max(sum(sizes), 1), 0
    parts = []
    for path, size in zip(files, sizes, strict=True):
        name = path.name

        def report(fraction: float, done: int = before, size: int = size, name: str = name) -> Progress:
            return Progress((done + fraction * size) / total, msg("trace.progress.reading", file=name))

        parts.append((yield from _reading_one(path, None, report)))
        before += size
    return parts[0] if len(parts) == 1 else merge(parts)


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # its reader says why it cannot be read


def merge(parts: Sequence[Trace]) -> Trace:
    """Traces read from several files as one, a rank each (the rules: :func:`reading_traces`)."""
    ranks: dict[int, dict[int, int]] = {index: {} for index in range(len(parts))}  # file -> its rank -> merged rank
    taken: set[int] = set()
    for index, part in enumerate(parts):  # first the ranks the files state, the first file to state one wins
        if part.stated_ranks:
            for rank in part.ranks:
                if rank not in taken:
                    ranks[index][rank] = rank
                    taken.add(rank)
    for index, part in enumerate(parts):  # then the rest: a Kineto file's place in the list, or the lowest free
        for rank in part.ranks:
            if rank not in ranks[index]:
                wanted = index if part.format == "kineto" and index not in taken else _lowest_free(taken)
                ranks[index][rank] = wanted
                taken.add(wanted)
    merged = Trace(", ".join(p.source for p in parts), "+".join(dict.fromkeys(p.format for p in parts)))
    for index, part in enumerate(parts):
        _renumber(part, ranks[index])
        merged.events.extend(part.events)
        for old, new in ranks[index].items():
            merged.rank_names[new] = _rank_name(part, old, new)
            merged.rank_files[new] = part.source
    merged.device = ", ".join(dict.fromkeys(p.device for p in parts if p.device))
    merged.provenance = labtimeline.weakest([p.provenance for p in parts])
    return merged


def _lowest_free(taken: set[int]) -> int:
    return next(rank for rank in range(len(taken) + 1) if rank not in taken)


def _renumber(part: Trace, ranks: dict[int, int]) -> None:
    if any(old != new for old, new in ranks.items()):
        for event in part.events:
            event.rank = ranks.get(event.rank, event.rank)


def _rank_name(part: Trace, old: int, new: int) -> str:
    """A Kineto rank is just ``rank N``; another format's rank that had to move keeps its own name
    after its file's (two nsys exports' ``GPU 0`` s: ``a.sqlite: GPU 0 (…)``, ``b.sqlite: GPU 0 (…)``)."""
    if part.format == "kineto":
        return f"rank {new}"
    name = part.rank_name(old)
    return name if old == new else f"{Path(part.source).name}: {name}"
