"""Compile a device ``printf`` call (formatting and the log are in :mod:`gpulab.simt.printf`).

The format must be a string literal; it is parsed at compile time and every conversion is
checked against its argument's C type, because a mismatch is undefined behaviour in C (a GPU
prints garbage): ``%d`` takes an ``int``-sized integer (``char``, ``short``, ``bool`` and
``unsigned`` too, as C's default promotions and same-size reinterpretation give), ``%ld``
``%lld`` ``%lu`` ``%llu`` ``%zu`` a 64-bit integer, ``%f %e %g`` a ``float`` (promoted to
``double`` as for any variadic argument) or a ``double``, ``%p`` a pointer and ``%s`` a
string literal (the emulator has no strings in memory). A ``*`` width or precision takes an
``int`` argument. Extra arguments are evaluated and ignored, as in C; too few is a compile
error. ``printf`` returns the number of arguments after the format, as CUDA's does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .ctypes_ import CType
from .machine import Mask
from .printf import (
    FLOAT_CONVERSIONS,
    MAX_PRINTF_ARGS,
    Conversion,
    FormatError,
    PrintfRecord,
    format_value,
    parse_format,
)
from .values import CExpr, Frame, converted

PRINTF = "printf"
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\",
            "'": "'", '"': '"', "?": "?"}
_LONG = ("l", "ll", "j", "z", "t")


def string_literal(comp: Any, node: c_ast.Node, what: str) -> str | None:
    """The text of a narrow string literal node (C escapes decoded), None for anything else."""
    if not (isinstance(node, c_ast.Constant) and node.type == "string"):
        return None
    text = node.value
    if not text.startswith('"'):
        raise comp.error(node, f"printf: the {what} must be a plain \"...\" string (not a wide or "
                         "prefixed one)", PRINTF)
    return _unescape(text[1:-1])


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 == len(body):
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            j = i + 2
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(body[i + 2:j] or "0", 16) & 0xFF))
            i = j
        elif nxt in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1:j], 8) & 0xFF))
            i = j
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)


def _integer_type(c: Conversion) -> CType:
    """The C type a conversion reads its integer as (``h``/``hh`` narrow it, as C says)."""
    signed = c.conv in "dic"
    if c.length in _LONG:
        return ct.LLONG if signed else ct.ULLONG
    if c.length == "h":
        return ct.SHORT if signed else ct.USHORT
    if c.length == "hh":
        return ct.CHAR if signed else ct.UCHAR
    return ct.INT if signed else ct.UINT


class _Arguments:
    """The call's arguments after the format, taken one by one by the conversions."""

    def __init__(self, comp: Any, node: c_ast.FuncCall, nodes: list[c_ast.Node], scope: Any) -> None:
        self.comp, self.node, self.nodes, self.scope = comp, node, nodes, scope
        self.used = 0

    def take(self, c: Conversion) -> tuple[c_ast.Node, int]:
        if self.used >= len(self.nodes):
            raise self.comp.error(self.node, f"printf: the format has more conversions than arguments "
                                  f"('{c.text}' has none; {len(self.nodes)} given)", PRINTF)
        self.used += 1
        return self.nodes[self.used - 1], self.used

    def star(self, c: Conversion) -> Any:
        """A ``*`` width or precision: an int argument."""
        node, index = self.take(c)
        e = self.comp.scalar(node, self.scope)
        if not e.ctype.is_integer or ct.promote(e.ctype).size != 4:
            raise self.comp.error(node, f"printf: the * in '{c.text}' takes an int, but argument {index} "
                                  f"is {e.ctype}", PRINTF)
        return converted(e, ct.INT).ev

    def value(self, c: Conversion) -> Any:
        """The conversion's own argument: a closure, or the text of a %s literal."""
        node, index = self.take(c)
        comp = self.comp
        if c.conv == "s":
            text = string_literal(comp, node, "%s argument")
            if text is None:
                raise comp.error(node, f"printf: '{c.text}' prints string literals only in the emulator "
                                 f"(argument {index} is not one)", PRINTF)
            return text
        e = comp.scalar(node, self.scope)
        if c.conv == "p":
            if not e.ctype.is_pointer:
                raise comp.error(node, f"printf: '{c.text}' takes a pointer, but argument {index} is "
                                 f"{e.ctype}", PRINTF)
            return e.ev
        if c.conv in FLOAT_CONVERSIONS:
            if not e.ctype.is_float:
                raise comp.error(node, f"printf: '{c.text}' takes a float or double, but argument {index} "
                                 f"is {e.ctype} (cast it: (double)x)", PRINTF)
            return converted(e, ct.DOUBLE).ev  # a float is promoted to double, exactly
        return self.integer(c, e, node, index)

    def integer(self, c: Conversion, e: CExpr, node: c_ast.Node, index: int) -> Any:
        if not e.ctype.is_integer:
            raise self.comp.error(node, f"printf: '{c.text}' takes an integer, but argument {index} is "
                                  f"{e.ctype}" + (" (use %f)" if e.ctype.is_float else ""), PRINTF)
        size = ct.promote(e.ctype).size
        want = 8 if c.length in _LONG else 4
        if size != want:
            hint = f"use %ll{c.conv}" if size == 8 else f"cast it: (long long)x, or drop the '{c.length}'"
            kind = "a 64-bit integer" if want == 8 else "an int-sized integer"
            raise self.comp.error(node, f"printf: '{c.text}' takes {kind}, but argument {index} is "
                                  f"{e.ctype} ({hint})", PRINTF)
        return converted(e, _integer_type(c)).ev


def compile_printf(comp: Any, node: c_ast.FuncCall, scope: Any) -> CExpr:
    """``printf(format, ...)``: each active lane adds a record to the launch's printf log."""
    nodes = list(node.args.exprs) if node.args is not None else []
    if not nodes:
        raise comp.error(node, "printf needs a format string", PRINTF)
    fmt = string_literal(comp, nodes[0], "format")
    if fmt is None:
        raise comp.error(nodes[0], "printf: the format must be a string literal in the emulator", PRINTF)
    if len(nodes) - 1 > MAX_PRINTF_ARGS:
        raise comp.error(node, f"printf: {len(nodes) - 1} arguments after the format; CUDA takes at most "
                         f"{MAX_PRINTF_ARGS}", PRINTF)
    try:
        parts = parse_format(fmt)
    except FormatError as exc:
        raise comp.error(nodes[0], f"printf: {exc}", PRINTF) from None
    args = _Arguments(comp, node, nodes[1:], scope)
    plan: list[Any] = []
    for part in parts:
        if isinstance(part, str):
            plan.append(part)
            continue
        width = args.star(part) if part.width == -1 else part.width
        precision = args.star(part) if part.precision == -1 else part.precision
        plan.append((part, width, precision, args.value(part)))
    extra = [comp.scalar(n, scope).ev for n in nodes[1 + args.used:]
             if not (isinstance(n, c_ast.Constant) and n.type == "string")]
    return CExpr(ct.INT, _printer(plan, extra, np.int32(len(nodes) - 1), comp.site(node).line), False)


def _printer(plan: list[Any], extra: list[Any], returned: np.int32, line: int) -> Any:
    """The runtime closure: evaluate the arguments for all lanes, then format lane by lane."""
    def run(fr: Frame, m: Mask) -> Any:
        mc = fr.mc
        lanes = m.idx
        columns = [_evaluated(piece, fr, m, lanes) for piece in plan]
        for ev in extra:
            ev(fr, m)
        log = mc.printf
        for k, lane in enumerate(lanes.tolist()):
            text = "".join(_render(piece, column, k) for piece, column in zip(plan, columns, strict=True))
            block, thread = divmod(lane, mc.lanes_per_block)
            log.add(PrintfRecord(mc.block_coords(block), mc.thread_coords(thread), lane >> 5, lane & 31, line,
                                 text))
        return returned
    return run


def _column(value: Any, lanes: np.ndarray) -> Any:
    """Per active lane, as Python numbers (a scalar stays one value)."""
    if isinstance(value, np.ndarray) and value.ndim:
        return value[lanes].tolist()
    return value.item() if isinstance(value, np.generic) else value


def _evaluated(piece: Any, fr: Frame, m: Mask, lanes: np.ndarray) -> Any:
    if isinstance(piece, str):
        return None
    return tuple(_column(x(fr, m), lanes) if callable(x) else x for x in piece[1:])


def _render(piece: Any, column: Any, k: int) -> str:
    if isinstance(piece, str):
        return piece
    width, precision, value = (x[k] if isinstance(x, list) else x for x in column)
    return format_value(piece[0], value, width, precision)
