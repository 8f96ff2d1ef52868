"""``#include`` for the emulator's preprocessor: finding files, and keeping positions right.

An included file is preprocessed with the macros of the file that includes it, and its
lines are then joined, with spaces, onto the ``#include`` line itself (C treats a newline
as a space once comments and directives are gone). So every line of the main file stays
on its own line in the text pycparser reads, and every position pycparser, the compiler
or a trace records inside an included file lands on the ``#include`` line of the main
file: the warp visualizer then highlights that directive, never an unrelated main-file
line that happens to share the header's line number. A table of :class:`Segment` keeps
which header line each stretch of the joined line came from, so a compile error inside a
header is reworded to name the header, its line and column (:func:`relocate`).

Quoted names (``#include "util.cuh"``) are searched in the folder of the including
header (not for the main file, whose folder may be unknown), then in the include
directories in order. Angle-bracket names of the CUDA and C headers whose contents the
emulator has built in are accepted and ignored; any other system header is a
CompileError that names it. A header is read only from inside the include directories (the
caller passes the kernel's folder among them): a name whose real path leads elsewhere (an
absolute path, ``..``, a symbolic link out) is refused naming that rule, and anything that is
not a regular file (a FIFO, a device) is refused before it is opened.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from stat import S_ISREG

from .errors import CompileError
from .machine import Site

# Headers whose contents are built into the emulator (types, math, atomics, intrinsics,
# launch variables, printf, limits); including them changes nothing.
BUILTIN_HEADERS = frozenset({
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h",
    "device_functions.h", "cooperative_groups.h", "cooperative_groups/reduce.h",
    "cstdio", "stdio.h", "cstdint", "stdint.h", "cstddef", "stddef.h", "math.h", "cmath",
    "climits", "limits.h", "cfloat", "float.h", "cassert", "assert.h",
})
# Headers people include whose contents the emulator does not have: a reason says why.
REFUSED_HEADERS = {
    "cuda_fp16.h": "half precision (__half, __half2) is not supported by the emulator",
    "cuda_bf16.h": "bfloat16 (__nv_bfloat16) is not supported by the emulator",
}
MAX_INCLUDE_DEPTH = 32
CYCLE = "#include cycle"
MAX_HEADER_BYTES = 1 << 20

Spans = list[tuple[int, int, int, int]]


@dataclass
class Segment:
    """One line of an included file, at ``start:end`` of the joined ``#include`` line."""

    start: int
    end: int
    file: str
    line: int
    spans: Spans
    parents: tuple[tuple[str, int], ...] = ()  # (file, line) of the #include lines between

    def column(self, offset: int) -> int:
        """The 1-based column in the header line of a 0-based offset in the joined line."""
        col = offset - self.start + 1
        delta = 0
        for exp_start, exp_end, orig_start, orig_end in self.spans:
            if col - 1 < exp_start:
                break
            if col - 1 < exp_end:
                return orig_start + 1
            delta = orig_end - exp_end
        return col + delta


@dataclass
class Inclusion:
    """What one ``#include`` line brought in: the joined text and where it came from."""

    file: str
    column: int  # 1-based columns of the directive in the including file
    end_column: int
    text: str = ""
    segments: list[Segment] = field(default_factory=list)

    def segment_at(self, column: int) -> Segment | None:
        """The innermost header line holding the 1-based ``column`` of the joined line."""
        found = None
        for seg in self.segments:
            if seg.start <= column - 1 <= seg.end and (found is None or len(seg.parents) >= len(found.parents)):
                found = seg
        return found


def where_in(seg: Segment, column: int | None) -> str:
    """``in "a.cuh" line 3: in "b.cuh" line 7, column 5: `` for a header position."""
    outer = "".join(f'in "{f}" line {n}: ' for f, n in seg.parents)
    at = f", column {seg.column(column - 1)}" if column else ""
    return f'{outer}in "{seg.file}" line {seg.line}{at}: '


def relocate(includes: dict[int, Inclusion], exc: CompileError) -> CompileError:
    """Reword an error that points into the joined text of an ``#include`` line so that it
    names the header and its line; the error's own line becomes the ``#include`` line."""
    inc = includes.get(exc.line) if exc.line is not None else None
    if inc is None or "file" in exc.details:
        return exc
    seg = inc.segment_at(exc.column) if exc.column else None
    where = where_in(seg, exc.column) if seg is not None else f'in "{inc.file}": '
    err = CompileError(where + exc.detail, exc.line, inc.column, exc.construct)
    err.details = {**err.details, "file": seg.file if seg else inc.file,
                   "file_line": seg.line if seg else None,
                   "file_column": seg.column(exc.column - 1) if seg and exc.column else None}
    return err


def anchor_site(includes: dict[int, Inclusion], site: Site) -> Site:
    """A step inside an included file is shown on its ``#include`` directive."""
    inc = includes.get(site.line)
    return site if inc is None else Site(site.line, inc.column, inc.end_column)


# lower(text, file name, line) -> (expanded lines, macro spans per line, inclusions per line)
Lower = Callable[[str], tuple[list[str], dict[int, Spans], dict[int, Inclusion]]]


class Includer:
    """Resolves and reads ``#include`` files for one preprocessing run."""

    def __init__(self, filename: str, include_dirs: Sequence[str]) -> None:
        self.dirs = [os.fspath(d) for d in include_dirs]
        self.roots = [os.path.realpath(d) for d in self.dirs]  # the only folders headers come from
        self.stack: list[tuple[str, str]] = [("", filename)]  # (real path, shown name)
        self.once: set[str] = set()
        self.read: list[tuple[str, int, int]] = []  # (path, mtime_ns, size) for the cache

    def pragma_once(self) -> None:
        path = self.stack[-1][0]
        if path:
            self.once.add(path)

    def include(self, rest: str, lineno: int, line: str, lower: Lower,
                expand: Callable[[str], str]) -> Inclusion:
        """Handle ``#include`` with ``rest`` after the word; ``lower`` preprocesses the
        header's text with the current macros; ``expand`` expands a macro-named header."""
        column = line.index("#") + 1
        end_column = len(line.rstrip()) + 1
        spelled = rest.strip()
        if spelled[:1] not in ('"', "<"):
            spelled = expand(spelled).strip()
        name, quoted = self._name(spelled, lineno, column)
        found = self._find(name, quoted, lineno, column)
        if found is None:
            if name in BUILTIN_HEADERS:
                return Inclusion(name, column, end_column)
            raise self._missing(name, quoted, lineno, column)
        if found in self.once:
            return Inclusion(name, column, end_column)
        if len(self.stack) > MAX_INCLUDE_DEPTH:
            raise self._cycle(found, name, lineno, column)
        return self._lower_header(found, name, column, end_column, lineno, lower)

    def _name(self, spelled: str, lineno: int, column: int) -> tuple[str, bool]:
        if len(spelled) >= 2 and spelled[0] == '"' and spelled.endswith('"'):
            return spelled[1:-1], True
        if len(spelled) >= 2 and spelled[0] == "<" and spelled.endswith(">"):
            return spelled[1:-1].strip(), False
        raise CompileError(f'#include expects "FILE" or <FILE>, got {spelled!r}', lineno, column,
                           "#include")

    def _find(self, name: str, quoted: bool, lineno: int, column: int) -> str | None:
        """The real path of the header, or None where it is in no folder searched. A name
        that leads out of the include folders (an absolute path, ``..``, a link) is refused
        before anything is opened: the emulator may run kernels it did not write."""
        if not quoted and (name in BUILTIN_HEADERS or name in REFUSED_HEADERS):
            return None
        places = [name] if os.path.isabs(name) else [os.path.join(f, name) for f in self._folders(quoted)]
        for path in places:
            if not os.path.lexists(path):
                continue
            real = os.path.realpath(path)
            if not any(_inside(real, root) for root in self.roots):
                raise self._outside(name, quoted, real, lineno, column)
            return real
        return None

    def _outside(self, name: str, quoted: bool, real: str, lineno: int, column: int) -> CompileError:
        spelled = f'"{name}"' if quoted else f"<{name}>"
        folders = ", ".join(self.dirs) if self.dirs else "none given"
        err = CompileError(f"#include {spelled}: {real} is outside the folders the emulator reads "
                           "headers from (the kernel's folder and the include directories: "
                           f"{folders}); headers elsewhere are refused", lineno, column,
                           "include outside the include folders")
        err.details = {**err.details, "file": name}
        return err

    def _folders(self, quoted: bool) -> list[str]:
        here = os.path.dirname(self.stack[-1][0]) if quoted and self.stack[-1][0] else None
        return ([here] if here else []) + self.dirs

    def _missing(self, name: str, quoted: bool, lineno: int, column: int) -> CompileError:
        spelled = f'"{name}"' if quoted else f"<{name}>"
        folders = self._folders(quoted)
        searched = ", ".join(folders) if folders else "no folders (no include directories given)"
        if name in REFUSED_HEADERS:
            message = f"#include {spelled}: {REFUSED_HEADERS[name]}"
        elif not quoted:
            known = ", ".join(sorted(BUILTIN_HEADERS))
            found = f"; not found in {searched}" if folders else ""
            message = (f"#include {spelled}: not a header the emulator has built in (it accepts "
                       f"{known}){found}")
        else:
            message = f"#include {spelled}: file not found (searched: {searched})"
        err = CompileError(message, lineno, column, "#include")
        err.details = {**err.details, "file": name}
        return err

    def _cycle(self, path: str, name: str, lineno: int, column: int) -> CompileError:
        """The first loop on the include stack, e.g. ``a.cuh -> b.cuh -> a.cuh``."""
        paths = [p for p, _ in self.stack] + [path]
        first = next(i for i, p in enumerate(paths) if p in paths[i + 1:])
        again = paths.index(paths[first], first + 1)
        loop = [shown for _, shown in [*self.stack, (path, name)][first:again + 1]]
        err = CompileError(f"#include cycle: {' -> '.join(loop)} (files included more than "
                           f"{MAX_INCLUDE_DEPTH} deep; an include guard or #pragma once stops "
                           "the loop)", lineno, column, CYCLE)
        err.details = {**err.details, "file": name}
        return err

    def _lower_header(self, path: str, name: str, column: int, end_column: int, lineno: int,
                      lower: Lower) -> Inclusion:
        text = self._read(path, name, lineno, column)
        self.stack.append((path, name))
        try:
            lines, spans, inner = lower(text)
        except CompileError as exc:
            if exc.construct == CYCLE:  # said once, from the #include line of this file
                err = CompileError(exc.detail, lineno, column, CYCLE)
                err.details = {**err.details, "file": name}
                raise err from None
            raise _wrap(exc, name, lineno, column) from None
        finally:
            self.stack.pop()
        return _join(Inclusion(name, column, end_column), lines, spans, inner)

    def _read(self, path: str, name: str, lineno: int, column: int) -> str:
        try:
            stat = os.stat(path)
            if not S_ISREG(stat.st_mode):  # a FIFO or a device would block the read or never end
                raise CompileError(f'#include "{name}": {path} is not a regular file', lineno,
                                   column, "#include")
            if stat.st_size > MAX_HEADER_BYTES:
                raise CompileError(f'#include "{name}": the file is too big for a header '
                                   f"({stat.st_size} bytes)", lineno, column, "#include")
            # O_NONBLOCK: a file swapped for a FIFO after the check still cannot block
            with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), encoding="utf-8") as handle:
                text = handle.read(MAX_HEADER_BYTES + 1)
            if len(text) > MAX_HEADER_BYTES:
                raise CompileError(f'#include "{name}": the file is too big for a header (over '
                                   f"{MAX_HEADER_BYTES} bytes)", lineno, column, "#include")
        except (OSError, UnicodeDecodeError) as exc:
            raise CompileError(f'#include "{name}": cannot read {path} ({exc})', lineno, column,
                               "#include") from None
        self.read.append((path, stat.st_mtime_ns, stat.st_size))
        return normalize_newlines(text)


def normalize_newlines(text: str) -> str:
    """The text without a leading UTF-8 byte order mark, with Windows (CR LF) and classic Mac
    (CR alone) line ends read as LF, as editors and NVCC read them."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _inside(path: str, folder: str) -> bool:
    """Whether the real path ``path`` is in the real folder ``folder`` or below it."""
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def _wrap(exc: CompileError, name: str, lineno: int, column: int) -> CompileError:
    """An error found while preprocessing a header, restated at its ``#include`` line."""
    at = f", column {exc.column}" if exc.column and "file" not in exc.details else ""
    where = f'in "{name}" line {exc.line}{at}: ' if exc.line is not None else f'in "{name}": '
    err = CompileError(where + exc.detail, lineno, column, exc.construct)
    inner = dict(exc.details)
    err.details = {**err.details, "file": inner.get("file", name),
                   "file_line": inner.get("file_line", exc.line),
                   "file_column": inner.get("file_column", exc.column)}
    return err


def _join(inc: Inclusion, lines: list[str], spans: dict[int, Spans],
          inner: dict[int, Inclusion]) -> Inclusion:
    """Join a header's preprocessed lines onto one line, recording each line's segment."""
    parts: list[str] = []
    offset = 0
    for lineno, text in enumerate(lines, start=1):
        inc.segments.append(Segment(offset, offset + len(text), inc.file, lineno,
                                    spans.get(lineno, [])))
        nested = inner.get(lineno)
        if nested is not None:
            base = offset + len(text)
            for seg in nested.segments:
                inc.segments.append(Segment(seg.start + base, seg.end + base, seg.file, seg.line,
                                            seg.spans, ((inc.file, lineno), *seg.parents)))
            text += nested.text
        parts.append(text)
        offset += len(text) + 1
    inc.text = " ".join(parts)
    return inc
