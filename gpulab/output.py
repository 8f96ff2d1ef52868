"""Writing a command's result where the user asked, without ever losing it.

:func:`output_problem` checks a destination before a run starts, so a finished measurement is
not lost to a typo in its path; :func:`emit_json` writes the result and, when the write fails
after all, keeps it in a fallback file it names (or on standard output).
"""

from __future__ import annotations

import json
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["emit_json", "fallback_paths", "output_problem", "write_json"]


def _would_block(path: Path) -> bool:
    """Whether opening ``path`` would wait for another program (a FIFO, a socket): the probe must not.
    A device such as ``/dev/full`` opens at once; a write that fails there falls back to a named file."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def output_problem(destination: str) -> str | None:
    """Why a file cannot be written at ``destination`` (None if it can, or for '-'), checked
    before a run so that a finished result is not lost to a typo in its path.

    Probes by opening the file for appending (creating it only for the probe, then removing it):
    the one test that is right for read-only files, folders, ``/proc`` and running as root alike.
    No folder is ever created."""
    if destination == "-":
        return None
    path = Path(destination)
    if not destination.strip():
        return "the path is empty"
    if path.is_dir():
        return "is a folder, not a file"
    if _would_block(path):
        return "is a named pipe or a socket: opening it waits for another program (give a file)"
    parent = path.parent
    if not parent.exists():
        return f"the folder {str(parent)!r} does not exist"
    if not parent.is_dir():
        return f"{str(parent)!r} is not a folder"
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    if not existed:
        try:
            path.unlink()
        except OSError:
            pass
    return None


def fallback_paths(prefix: str = "gpulab-result", suffix: str = ".json") -> list[Path]:
    """Where a result goes when its own destination fails: the working folder, then the temp folder."""
    name = f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}{suffix}"
    return [Path.cwd() / name, Path(tempfile.gettempdir()) / name]


def emit_json(data: Any, destination: str, prog: str = "gpulab") -> int:
    """Write JSON to ``destination`` ('-' for stdout); if that fails, keep the result.

    A failed write (a full disk, ``/dev/full``, a file made read-only during the run) is said
    in one line, and the document goes to a fallback file that the line names, or, if no file
    can be written at all, to standard output. Returns 0 when written as asked, else 1."""
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if destination == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(destination, "w", encoding="utf-8") as handle:
            handle.write(text)
        return 0
    except OSError as exc:
        reason = exc.strerror or str(exc)
    for candidate in fallback_paths():
        try:
            with open(candidate, "x", encoding="utf-8") as handle:
                handle.write(text)
        except OSError:
            continue
        print(f"{prog}: could not write {destination} ({reason}); the result was saved to {candidate}",
              file=sys.stderr)
        return 1
    print(f"{prog}: could not write {destination} ({reason}); the result follows on standard output",
          file=sys.stderr)
    sys.stdout.write(text)
    return 1


def write_json(data: Any, destination: str) -> None:
    """Write JSON to a path, or to standard output for '-'."""
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    if destination == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(destination, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
