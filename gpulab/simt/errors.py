"""Exceptions raised by the SIMT emulator."""

from __future__ import annotations


class SimtError(Exception):
    """Base class of every error the emulator raises on purpose."""


class CompileError(SimtError):
    """The kernel source is outside the emulator's CUDA C subset or is not valid C.

    Attributes ``line`` and ``column`` (1-based, in the original source) and
    ``construct`` (what was rejected) locate the problem.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 construct: str = "") -> None:
        self.line = line
        self.column = column
        self.construct = construct
        self.detail = message
        where = ""
        if line is not None:
            where = f"line {line}, column {column}: " if column else f"line {line}: "
        super().__init__(where + message)


class KernelFault(SimtError):
    """A running kernel did something a GPU would trap on or that has no defined result.

    Out-of-bounds accesses carry ``kernel``, ``line``, ``buffer``, ``lanes`` (global lane
    ids, i.e. linear launch thread slots) and ``address``; other faults set what applies.
    """

    def __init__(self, message: str, kernel: str = "", line: int | None = None,
                 buffer: str | None = None, lanes: tuple[int, ...] = (),
                 address: int | None = None) -> None:
        self.kernel = kernel
        self.line = line
        self.buffer = buffer
        self.lanes = lanes
        self.address = address
        super().__init__(message)


class Cancelled(SimtError):
    """The launch was cancelled through its ``cancel`` event."""
