"""The ``gpulab`` command: opens the lab, or runs headless subcommands.

``gpulab`` alone opens the desktop lab (``--panel``, ``--lang``, ``--theme``, ``--screenshot``;
``--lesson N [--page P] [--presenter]`` opens the lesson viewer there).
Headless: ``gpulab info``, ``gpulab list``, ``gpulab run NAME``, ``gpulab emulate``,
``gpulab bench``. The engine never imports Qt or the front end: the window is opened through
the ``gpulab.frontend`` entry point (:mod:`gpulab.frontend`), only when it is asked for.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from gpulab import __version__, frontend
from gpulab.output import output_problem

# Modules that add subcommands: each has register(subparsers) and sets args.func.
COMMAND_MODULES = (
    "gpulab.commands.info",
    "gpulab.commands.experiments",
    "gpulab.commands.bench",
    "gpulab.commands.collectives",
    "gpulab.commands.validate",
    "gpulab.commands.check",
    "gpulab.commands.lesson",
    "gpulab.commands.trace",
    "gpulab.commands.occupancy",
    "gpulab.simt.cli",
)

DESCRIPTION = "A GPU teaching and sanity-check lab. With no command, opens the lab window."
HEADLESS_HINT = (
    "headless commands: 'gpulab info', 'gpulab list', 'gpulab run NAME --json -', "
    "'gpulab emulate ...', 'gpulab bench ...', 'gpulab validate', 'gpulab check', 'gpulab lesson', "
    "'gpulab trace FILE', 'gpulab occupancy ARCH'"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpulab", description=DESCRIPTION)
    _window_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _window_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"gpulab {__version__}")
    gui = parser.add_argument_group("lab window")
    gui.add_argument("--panel", help="panel to open first")
    gui.add_argument("--lang", choices=("zh", "en"), help="language of the window")
    gui.add_argument("--theme", choices=("light", "dark", "projector"), help="colour theme")
    gui.add_argument("--lesson", metavar="N", type=int, help="open the lesson viewer at chapter N (0-5)")
    gui.add_argument("--page", metavar="P", help="with --lesson: the page, 1-based or its id")
    gui.add_argument("--presenter", action="store_true",
                     help="presenter mode: full screen, projector theme, clicker keys (F5/Esc, PageDown/PageUp, B)")
    gui.add_argument("--screenshot", metavar="PATH",
                     help="open the window, save a PNG of it once painted, and exit")
    gui.add_argument("--screenshot-size", metavar="WxH", type=window_size, default=(1024, 768),
                     help="window size for --screenshot (default 1024x768)")


class _NotTheWindow(Exception):
    """Something the window's options do not cover: the whole parser decides."""


class _WindowParser(argparse.ArgumentParser):
    """The lab window's options alone; it raises instead of printing a usage error."""

    def error(self, message: str) -> NoReturn:
        raise _NotTheWindow(message)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments. Opening the window (no command) is parsed without importing the subcommand
    modules (some import the emulator: a third of a second before the window could show); a
    command, ``--help`` or a mistake goes to the whole parser, with its messages."""
    window_only = _WindowParser(prog="gpulab", add_help=False)
    _window_options(window_only)
    try:
        args, rest = window_only.parse_known_args(argv)
    except _NotTheWindow:
        rest = ["(a mistake)"]
    if rest:
        return build_parser().parse_args(argv)
    args.command = None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
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
    lesson = {"lesson": args.lesson, "page": args.page, "presenter": True} if args.presenter else (
        {"lesson": args.lesson, "page": args.page} if args.lesson is not None or args.page else {})
    return int(run_gui(panel=args.panel, lang=args.lang, theme=args.theme, screenshot=args.screenshot,
                       screenshot_size=args.screenshot_size, **lesson))


def window_size(text: str) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080); argparse turns a ValueError into a usage error naming the option."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or not (200 <= int(width) <= 8192 and
                                                                        200 <= int(height) <= 8192):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT from 200x200 to 8192x8192, got {text!r}")
    return int(width), int(height)


if __name__ == "__main__":
    sys.exit(main())
