"""The one door from the engine to a front end: Python entry points.

The engine never imports the Qt front end (``ui``), not even inside a function. What the
command line offers from the front end — opening the lab window (``gpulab``) and the window's
benchmark (``gpulab bench ui``) — is declared by the front end's package metadata in
``pyproject.toml``::

    [project.entry-points."gpulab.frontend"]
    desktop = "ui.app:run_gui"

    [project.entry-points."gpulab.bench"]
    ui = "ui.bench:main"

and found here by group and name. A build without the front end simply has no such entry, and
the command says so instead of failing on an import.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

FRONTEND_GROUP = "gpulab.frontend"  # name "desktop": run_gui(panel, lang, theme, screenshot) -> exit code
BENCH_GROUP = "gpulab.bench"  # name -> main(argv) -> exit code
DESKTOP = "desktop"


def find(group: str, name: str) -> Callable[..., Any] | None:
    """The object entry point ``name`` of ``group`` names, loaded; None when nothing declares it."""
    for entry in entry_points(group=group):
        if entry.name == name:
            return entry.load()
    return None


def names(group: str) -> list[str]:
    """Every entry point name declared in ``group`` (without loading any of them)."""
    return sorted({entry.name for entry in entry_points(group=group)})
