"""The ``gpulab`` command: opens the lab, or runs headless subcommands.

``gpulab`` alone opens the desktop lab (``--panel``, ``--lang``, ``--theme``, ``--screenshot``).
Headless: ``gpulab info``, ``gpulab list``, ``gpulab run NAME``, ``gpulab emulate``,
``gpulab bench``. The engine never imports Qt or the front end: the window is opened through
the ``gpulab.frontend`` entry point (:mod:`gpulab.frontend`), only when it is asked for.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpulab import __version__, frontend

# Modules that add subcommands: each has register(subparsers) and sets args.func.
COMMAND_MODULES = (
    "gpulab.commands.info",
    "gpulab.commands.experiments",
    "gpulab.commands.bench",
    "gpulab.commands.collectives",
    "gpulab.commands.validate",
    "gpulab.simt.cli",
)

HEADLESS_HINT = (
    "headless commands: 'gpulab info', 'gpulab list', 'gpulab run NAME --json -', "
    "'gpulab emulate ...', 'gpulab bench ...', 'gpulab validate'"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpulab",
        description="A GPU teaching and sanity-check lab. With no command, opens the lab window.",
    )
    parser.add_argument("--version", action="version", version=f"gpulab {__version__}")
    gui = parser.add_argument_group("lab window")
    gui.add_argument("--panel", help="panel to open first")
    gui.add_argument("--lang", choices=("zh", "en"), help="language of the window")
    gui.add_argument("--theme", choices=("light", "dark", "projector"), help="colour theme")
    gui.add_argument("--screenshot", metavar="PATH",
                     help="open the window, save a PNG of it once painted, and exit")
    gui.add_argument("--screenshot-size", metavar="WxH", type=window_size, default=(1024, 768),
                     help="window size for --screenshot (default 1024x768)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        if args.screenshot:
            problem = output_problem(args.screenshot)
            if problem:
                print(f"gpulab: --screenshot {args.screenshot}: {problem}", file=sys.stderr)
                return 2
        return open_lab(args)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("gpulab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def has_display() -> bool:
    """Whether a window can be shown (or Qt was told to draw offscreen)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_lab(args: argparse.Namespace) -> int:
    """Open the desktop lab (or take a screenshot of it)."""
    if args.screenshot and not has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if not has_display():
        print(f"gpulab: no display found (DISPLAY and WAYLAND_DISPLAY are unset); {HEADLESS_HINT}",
              file=sys.stderr)
        return 2
    run_gui = frontend.find(frontend.FRONTEND_GROUP, frontend.DESKTOP)
    if run_gui is None:
        print(f"gpulab: the desktop front end is not installed (pip install -e .); {HEADLESS_HINT}", file=sys.stderr)
        return 2
    # run_gui checks the panel name against the panel registry and says which exist.
    return int(run_gui(panel=args.panel, lang=args.lang, theme=args.theme, screenshot=args.screenshot,
                       screenshot_size=args.screenshot_size))


def window_size(text: str) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080); argparse turns a ValueError into a usage error naming the option."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or not (200 <= int(width) <= 8192 and
                                                                        200 <= int(height) <= 8192):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT from 200x200 to 8192x8192, got {text!r}")
    return int(width), int(height)


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


if __name__ == "__main__":
    sys.exit(main())
