"""``switch`` statements, lane by lane: a mixin of the :class:`~gpulab.simt.compiler.Compiler`.

C's rules: the controlling expression has integer type and is promoted; every ``case`` label
is an integer constant expression converted to that promoted type (C++, which NVRTC compiles,
rejects a value the conversion would change: ``case -1`` in a switch on ``unsigned``); no
two labels have the same value; at most one ``default``, anywhere. Control enters at the
matching label (else at ``default``, else skips the body) and falls through the labels below
it until a ``break``; ``continue`` belongs to the enclosing loop.

Per lane: the switch is one multi-way branch. Each lane finds its entry label, then the body
runs once from top to bottom, each labelled part with the lanes that entered there plus those
that fell through from above; lanes that ``break`` wait, and all reconverge after the switch.
The emulator counts it as one branch per warp (``branches``), divergent when the warp's
active lanes enter at more than one place (no matching label and no default counts as one
place: after the switch). Its trace step is a ``"branch"`` step whose ``taken_mask`` holds
the lanes that enter at the warp's first entry point in source order, so it is neither 0 nor
the active mask exactly when the warp diverges.

Labels must be directly in the switch's braces (``case 2: { case 3: ... }``, as in Duff's
device, is rejected by name). Scalar variables declared in the switch's braces start as zero
at each entry: a lane that jumps over ``int y = 2;`` sees 0, where C++ leaves y undefined.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .machine import Mask
from .symbols import CompilerView, Scope, Stmt
from .values import Frame

SWITCH = "switch statement"
CASE = "case label"


def _body_items(node: c_ast.Switch) -> list[c_ast.Node]:
    """The switch body's statements (pycparser groups each label with the statements after it)."""
    body = node.stmt
    if isinstance(body, c_ast.Compound):
        return list(body.block_items or [])
    return [body]


def _sequence(stmts: list[Stmt]) -> Stmt:
    """Statements run one after another; lanes that jump (break, continue, return) drop out."""
    def run(fr: Frame, m: Mask) -> Mask:
        for s in stmts:
            m = s(fr, m)
            if m.count == 0:
                return m
        return m
    return run


def _contains(node: c_ast.Node, kind: type) -> bool:
    if isinstance(node, kind):
        return True
    return any(_contains(child, kind) for _, child in node.children())


class SwitchCompiler:
    """``visit_Switch`` and the label visitors; the :class:`Compiler` inherits them."""

    switch_depth = 0  # switches being compiled around the current statement (a ``break`` target)

    def visit_Switch(self, node: c_ast.Switch, scope: Scope) -> tuple[Stmt, bool]:
        return compile_switch(cast("CompilerView", self), node, scope)

    def visit_Case(self, node: c_ast.Node, scope: Scope) -> tuple[Stmt, bool]:
        raise _misplaced_label(cast("CompilerView", self), node, "case")

    def visit_Default(self, node: c_ast.Node, scope: Scope) -> tuple[Stmt, bool]:
        raise _misplaced_label(cast("CompilerView", self), node, "default")


def compile_switch(comp: CompilerView, node: c_ast.Switch, scope: Scope) -> tuple[Stmt, bool]:
    """The switch as one statement closure, and whether lanes may leave through it."""

    cond = comp.scalar(node.cond, scope)
    if not cond.ctype.is_integer:
        raise comp.error(node.cond, f"switch: the condition must have integer type, not {cond.ctype}", SWITCH)
    ctype = ct.promote(cond.ctype)
    cond_ev = comp.assign_convert(cond, ctype, node.cond).ev
    body = Scope(scope)
    comp.switch_depth += 1
    try:
        segments, labels, default = _segments(comp, node, body, ctype)
    finally:
        comp.switch_depth -= 1
    zeros = [(v.slot, v.ctype.dtype.type(0) if v.ctype.dtype is not None else np.int64(0))
             for v in body.names.values() if v.kind == "reg"]
    entry = _entry_finder(labels, default, len(segments), ctype)
    finish = _finisher(_contains(node.stmt, c_ast.Continue), _contains(node.stmt, c_ast.Return))
    site = comp.site(node.cond)
    nseg = len(segments)

    def run(fr: Frame, m: Mask) -> Mask:
        mc = fr.mc
        for slot, zero in zeros:
            fr.v[slot] = zero
        target = entry(cond_ev(fr, m))
        if not isinstance(target, np.ndarray) or m.count == 0:
            start = int(target) if not isinstance(target, np.ndarray) else nseg
        else:
            active_targets = target[m.idx]
            first = int(active_targets[0])
            start = first if np.all(active_targets == first) else -1
        if start >= 0:  # every warp enters at one place: no divergence
            mc.branch(m, True, site)
            active = m
            for seg in segments[start:]:
                active = seg(fr, active)
                if active.count == 0:
                    break
            return finish(fr, m)
        assert isinstance(target, np.ndarray)
        mc.branch(m, _first_entry_lanes(m, target, nseg), site)
        active = mc.empty
        for k, seg in enumerate(segments):
            entering = m.bits & (target == k)
            if entering.any():
                active = active.union(Mask(entering))
            if active.count:
                active = seg(fr, active)
        return finish(fr, m)
    return run, finish is not _no_jumps


def _segments(comp: CompilerView, node: c_ast.Switch, body: Scope,
              ctype: ct.CType) -> tuple[list[Stmt], dict[int, int], int]:
    """The body cut at its labels: (segment closures, case value -> segment, default segment).

    A segment is a label and the statements up to the next label; statements before the
    first label form an unlabelled segment nobody enters (their declarations count)."""
    segments: list[Stmt] = []
    labels: dict[int, int] = {}
    label_lines: dict[int, int] = {}
    default, default_line = -1, 0
    pending: list[Stmt] = []  # statements before the first label: nobody enters them
    for item in _body_items(node):
        if not isinstance(item, (c_ast.Case, c_ast.Default)):
            pending.append(comp.visit(item, body)[0])
            continue
        if pending:
            segments.append(_sequence(pending))
            pending = []
        line = comp.position(item)[0] or 0
        if isinstance(item, c_ast.Default):
            if default >= 0:
                raise comp.error(item, f"switch: a second 'default' label (the first is on line "
                                 f"{default_line})", CASE)
            default, default_line = len(segments), line
        else:
            value = _case_value(comp, item, body, ctype)
            if value in labels:
                raise comp.error(item, f"switch: duplicate case value {value} (first on line "
                                 f"{label_lines[value]})", CASE)
            labels[value], label_lines[value] = len(segments), line
        segments.append(_sequence([comp.visit(s, body)[0] for s in (item.stmts or [])]))
    if pending:
        segments.append(_sequence(pending))
    return segments, labels, default


def _case_value(comp: CompilerView, item: c_ast.Case, scope: Scope, ctype: ct.CType) -> int:
    """The label's value, converted to the promoted condition type as C++ allows."""
    value = comp.expr(item.expr, scope)
    if value.const is None or not value.ctype.is_integer:
        what = "a floating constant" if value.ctype.is_float else "not an integer constant expression"
        raise comp.error(item.expr, f"switch: a case label must be an integer constant ({what})", CASE)
    number = int(value.const)
    assert ctype.dtype is not None
    info = np.iinfo(ctype.dtype)
    if not info.min <= number <= info.max:
        raise comp.error(item.expr, f"switch: case value {number} does not fit the condition's type "
                         f"{ctype} (C++ rejects this narrowing)", CASE)
    return number


def _misplaced_label(comp: CompilerView, node: c_ast.Node, word: str) -> Exception:
    if comp.switch_depth:
        return comp.error(node, f"switch: a '{word}' label inside a nested block of the switch (as in "
                          "Duff's device) is not supported by the emulator; put the labels directly in "
                          "the switch's braces", CASE)
    return comp.error(node, f"a '{word}' label is not inside a switch statement", CASE)


def _entry_finder(labels: dict[int, int], default: int, nseg: int,
                  ctype: ct.CType) -> Callable[[Any], np.ndarray | int]:
    """Per lane: the segment a condition value enters at (``nseg``: past the switch)."""
    fallback = default if default >= 0 else nseg
    if not labels:
        return lambda v: fallback
    keys = np.array(sorted(labels), dtype=ctype.dtype)
    targets = np.array([labels[int(k)] for k in keys], dtype=np.int64)
    last = len(keys) - 1

    def entry(v: Any) -> np.ndarray | int:
        if np.ndim(v) == 0:
            return labels.get(int(v), fallback)
        pos = np.minimum(np.searchsorted(keys, v), last)
        return np.where(keys[pos] == v, targets[pos], fallback)
    return entry


def _first_entry_lanes(m: Mask, target: np.ndarray, nseg: int) -> np.ndarray:
    """Per lane: does it enter at its warp's first entry point (in source order)."""
    first = np.where(m.bits, target, nseg + 1).reshape(-1, 32).min(axis=1)
    return m.bits & (target == np.repeat(first, 32))


def _no_jumps(fr: Frame, m: Mask) -> Mask:
    return m


def _finisher(has_continue: bool, has_return: bool) -> Callable[[Frame, Mask], Mask]:
    """The lanes that carry on after the switch: all that came in, but those that left the
    enclosing loop's iteration (``continue``) or the function (``return``)."""
    if not has_continue and not has_return:
        return _no_jumps

    def finish(fr: Frame, m: Mask) -> Mask:
        bits = m.bits
        if has_continue and fr.cont and fr.cont[-1] is not None:
            bits = bits & ~fr.cont[-1]
        if has_return and fr.ret_bits is not None:
            bits = bits & ~fr.ret_bits
        return m if bits is m.bits else Mask(bits)
    return finish
