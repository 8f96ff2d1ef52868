"""Exceptions raised by the SIMT emulator.

Every error carries structured fields besides its English message, so a front end can word
it in its own language without reading the English: ``kind`` (what went wrong, a short
stable word), ``line`` (1-based source line, or None) and ``details`` (a dict of the
values the message names, English ``detail`` text included). Kinds:

========================= ==========================================================
``compile``               the source is not valid C or is outside the subset (``detail``)
``step-budget``           the launch ran out of warp-steps (``budget``, ``loop_line``)
``loop-budget``           one loop ran too many iterations (``iterations``)
``time-budget``           the launch ran past its time limit (``seconds``, ``loop_line``)
``memory``                an out-of-bounds or misaligned access (``buffer``, ``address``)
``divergent-barrier``     ``__syncthreads()`` reached by only some live threads of a block
``division-by-zero``      an integer ``/`` or ``%`` by zero in some lanes (``lanes``)
``fault``                 any other kernel fault (``detail``)
``cancelled``             the launch was cancelled
``error``                 a bad launch or argument (``detail``)
========================= ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class SimtError(Exception):
    """Base class of every error the emulator raises on purpose."""

    kind: str = "error"
    line: int | None = None
    details: Mapping[str, Any] = {}

    def __init__(self, message: str = "", *, kind: str | None = None, line: int | None = None,
                 details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        if line is not None:
            self.line = line
        self.details = {"detail": message, **(details or {})}


class CompileError(SimtError):
    """The kernel source is outside the emulator's CUDA C subset or is not valid C.

    Attributes ``line`` and ``column`` (1-based, in the original source) and
    ``construct`` (what was rejected) locate the problem.
    """

    kind = "compile"

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 construct: str = "") -> None:
        self.line = line
        self.column = column
        self.construct = construct
        self.detail = message
        where = ""
        if line is not None:
            where = f"line {line}, column {column}: " if column else f"line {line}: "
        Exception.__init__(self, where + message)
        self.details = {"detail": message, "column": column, "construct": construct}


class KernelFault(SimtError):
    """A running kernel did something a GPU would trap on or that has no defined result.

    Out-of-bounds accesses carry ``kernel``, ``line``, ``buffer``, ``lanes`` (global lane
    ids, i.e. linear launch thread slots) and ``address``; other faults set what applies.
    ``details["detail"]`` is the English message without its ``kernel: line N:`` prefix.
    """

    kind = "fault"

    def __init__(self, message: str, kernel: str = "", line: int | None = None,
                 buffer: str | None = None, lanes: tuple[int, ...] = (),
                 address: int | None = None, *, kind: str | None = None,
                 details: Mapping[str, Any] | None = None) -> None:
        self.kernel = kernel
        self.line = line
        self.buffer = buffer
        self.lanes = lanes
        self.address = address
        Exception.__init__(self, message)
        if kind is not None:
            self.kind = kind
        detail = message
        for prefix in (f"{kernel}: line {line}: ", f"{kernel}: "):
            if kernel and detail.startswith(prefix):
                detail = detail[len(prefix):]
                break
        self.details = {"detail": detail, "buffer": buffer, "address": address, **(details or {})}


class Cancelled(SimtError):
    """The launch was cancelled through its ``cancel`` event."""

    kind = "cancelled"
