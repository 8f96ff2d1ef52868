"""Compile a translation's source (``.ts``) to the binary Qt loads (``.qm``), once, into a cache.

Only the ``.ts`` sources are kept in the repository and in the wheel. The ``.qm`` is made by
Qt's ``lrelease``, which the PySide6 wheel (a dependency of gpulab) carries as
``PySide6/lrelease``, and is stored under the user's cache folder with the hash of its ``.ts`` in
its name: an edited ``.ts`` (a pulled commit, an upgraded gpulab) is compiled again on first
use, an unchanged one costs one hash of ~85 kB per language switch.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import platformdirs

LRELEASE_TIMEOUT_S = 60


class TranslationUnavailable(RuntimeError):
    """A ``.ts`` could not be compiled (no ``lrelease``, or it failed); the words say why."""


def lrelease_tool() -> str | None:
    """Qt's lrelease: the one inside the PySide6 wheel; else the one of the Qt that PySide6 runs on
    (a Linux distribution's or conda's Qt keeps it in its binaries folder); else one on PATH."""
    import PySide6
    from PySide6.QtCore import QLibraryInfo

    qt_bin = QLibraryInfo.path(QLibraryInfo.LibraryPath.BinariesPath)
    for folder in (Path(PySide6.__file__).resolve().parent, Path(qt_bin), Path(sys.executable).parent):
        for name in ("lrelease", "lrelease.exe", "pyside6-lrelease"):
            if (folder / name).is_file():
                return str(folder / name)
    names = ("pyside6-lrelease", "lrelease", "lrelease-qt6", "lrelease6")  # as distributions name it
    return next((found for found in map(shutil.which, names) if found), None)


def cache_dirs() -> list[Path]:
    """Where compiled translations may go, best first: the user's cache, else a temporary folder
    (a read-only home must not cost the user their language)."""
    user = Path(platformdirs.user_cache_dir("gpulab", appauthor=False)) / "i18n"
    # /tmp is shared between users on Unix; Windows' temporary folder is already per user.
    owner = os.getuid() if hasattr(os, "getuid") else "user"
    return [user, Path(tempfile.gettempdir()) / f"gpulab-i18n-{owner}"]


def compiled_path(ts_path: Path, folder: Path) -> Path:
    """The name the ``.qm`` of ``ts_path``'s current content has in ``folder``."""
    digest = hashlib.sha256(ts_path.read_bytes()).hexdigest()[:16]
    return folder / f"{ts_path.stem}-{digest}.qm"


def compiled(ts_path: Path, folders: list[Path] | None = None) -> Path:
    """The ``.qm`` of ``ts_path`` as it is now: taken from the cache, else compiled into it.
    Raises :class:`TranslationUnavailable` when no folder holds or accepts one."""
    problems = []
    for folder in folders if folders is not None else cache_dirs():
        target = compiled_path(ts_path, folder)
        if target.is_file():
            return target
        try:
            _compile_into(ts_path, target)
        except (OSError, subprocess.SubprocessError, TranslationUnavailable) as exc:
            problems.append(f"{folder}: {exc}")
            continue
        _remove_older(target)
        return target
    raise TranslationUnavailable(f"{ts_path.name} could not be compiled ({'; '.join(problems)})")


def _compile_into(ts_path: Path, target: Path) -> None:
    exe = lrelease_tool()
    if exe is None:
        raise TranslationUnavailable("Qt's lrelease was not found (it comes with PySide6)")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Written under a private name, then renamed: two gpulab processes (or test workers) starting
    # together never load a half-written file.
    handle, partial = tempfile.mkstemp(suffix=".part", dir=target.parent)
    os.close(handle)
    try:
        subprocess.run([exe, str(ts_path), "-qm", partial], check=True, capture_output=True,
                       timeout=LRELEASE_TIMEOUT_S)  # fmt: skip
        if os.path.getsize(partial) == 0:
            raise TranslationUnavailable(f"{exe} wrote nothing")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def _remove_older(current: Path) -> None:
    """Drop the same translation compiled from earlier sources, so the cache does not grow."""
    stem = current.stem.rsplit("-", 1)[0]
    for old in current.parent.glob(f"{stem}-*.qm"):
        if old != current:
            try:
                old.unlink()
            except OSError:  # another process may have it open (Windows) or removed it already
                pass
