"""More CUDA builtins: ``atomicInc``/``atomicDec``, ``clock``/``clock64`` and ``__nanosleep``.

``atomicInc(p, val)`` stores ``old >= val ? 0 : old + 1`` and ``atomicDec(p, val)`` stores
``(old == 0 || old > val) ? val : old - 1``, both on ``unsigned int`` only (CUDA has no other
overload) and both returning ``old``. Lanes hitting one address are serialised in the same
order as the other atomics: increasing global lane id (lanes in order within a warp, warps in
increasing global warp id).

``clock()`` and ``clock64()`` read the emulator's warp-step counter, not a cycle counter: the
number of warp-level steps the launch has executed so far (``LaunchResult.steps`` counts the
same), as if the whole launch ran on one SM that issues one warp-instruction per cycle. Every
lane of one call reads the same value; it never decreases, so ``clock64() - start`` is the
number of warp-steps (of all warps) that ran in between. ``clock()`` returns ``clock_t``
(``long``, 64-bit), ``clock64()`` ``long long``. ``__nanosleep(ns)`` does nothing (an emulated
launch claims no time).

The handlers go into :data:`MORE_BUILTINS`, which :mod:`.builtins_` merges into its table;
:func:`check_arity`, which both use, lives here so that this module needs nothing of that one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .machine import Mask
from .values import CExpr, Frame, converted

Handler = Callable[[Any, c_ast.FuncCall, list[CExpr]], CExpr]
MORE_BUILTINS: dict[str, Handler] = {}


def check_arity(comp: Any, node: c_ast.FuncCall, args: list[CExpr], lo: int, hi: int | None = None) -> None:
    """A compile error unless the call passes ``lo`` (to ``hi``) arguments."""
    hi = lo if hi is None else hi
    if not lo <= len(args) <= hi:
        name = node.name.name
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise comp.error(node, f"{name} takes {want} arguments, not {len(args)}", f"call to {name}")


# ---------------------------------------------------------------------- wrapping counters
def _inc(old: np.ndarray, val: np.ndarray) -> np.ndarray:
    return np.where(old >= val, np.uint32(0), old + np.uint32(1)).astype(np.uint32)


def _dec(old: np.ndarray, val: np.ndarray) -> np.ndarray:
    return np.where((old == 0) | (old > val), val, old - np.uint32(1)).astype(np.uint32)


_STEP = {"inc": _inc, "dec": _dec}


def _run_of_one_address(op: str, cur: int, vals: np.ndarray) -> tuple[np.ndarray, int]:
    """Old values seen by lanes applying ``op`` one after another at one address, and the final value.

    With one ``val`` for all lanes (the usual case) the counter walks the ring 0..val, so the
    old values have a closed form; otherwise the lanes are applied one by one."""
    n = len(vals)
    val = int(vals[0])
    if not np.all(vals == vals[0]):
        olds = np.empty(n, dtype=np.uint32)
        x = np.uint32(cur)
        step = _STEP[op]
        for i in range(n):
            olds[i] = x
            x = step(np.array(x, dtype=np.uint32), vals[i])[()]
        return olds, int(x)
    ring = val + 1
    steps = np.arange(n + 1, dtype=np.int64)
    sign = 1 if op == "inc" else -1
    if cur <= val:
        walk = (cur + sign * steps) % ring
    else:  # out of the ring: the first lane brings it to 0 (inc) or val (dec)
        walk = np.concatenate([[cur], (sign * (steps[1:] - 1) + (0 if op == "inc" else val)) % ring])
    return walk[:-1].astype(np.uint32), int(walk[-1])


def wrap_apply(op: str, flat: np.ndarray, e: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """``atomicInc``/``atomicDec`` for lanes (in lane order) at element indices ``e``; old values."""
    order = np.argsort(e, kind="stable")
    es = e[order]
    starts = np.flatnonzero(np.concatenate([[True], es[1:] != es[:-1]]))
    ends = np.concatenate([starts[1:], [len(es)]])
    if len(starts) == len(es):  # every lane at its own address
        old = flat[e]
        flat[e] = _STEP[op](old, vals)
        return old
    old = np.empty(len(vals), dtype=np.uint32)
    for s, t in zip(starts.tolist(), ends.tolist(), strict=True):
        sel = order[s:t]
        index = int(es[s])
        old[sel], final = _run_of_one_address(op, int(flat[index]), vals[sel])
        flat[index] = final
    return old


def _wrapping_atomic(op: str) -> Any:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        name = node.name.name
        check_arity(comp, node, args, 2)
        ptr = args[0]
        if not ptr.ctype.is_pointer or ptr.ctype.pointee is None or ptr.ctype.pointee.dtype != ct.UINT.dtype:
            raise comp.error(node, f"{name} takes an unsigned int* (CUDA has no other overload), not "
                             f"{ptr.ctype}", f"{name} target")
        value = converted(args[1], ct.UINT).ev
        pev = ptr.ev
        site = comp.site(node)

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            out = np.zeros(mc.nlanes, dtype=np.uint32)
            if m.count == 0:
                return out
            addr = pev(fr, m)
            vals = np.broadcast_to(value(fr, m), (mc.nlanes,))
            for region, lanes, e in mc.resolve_for_atomic(addr, m, ct.UINT, site):
                out[lanes] = wrap_apply(op, region.flat_view(np.dtype(np.uint32)), e, vals[lanes])
            return out
        return CExpr(ct.UINT, run, False)
    return handler


MORE_BUILTINS["atomicInc"] = _wrapping_atomic("inc")
MORE_BUILTINS["atomicDec"] = _wrapping_atomic("dec")


# ---------------------------------------------------------------------- clocks
def _clock(ctype: ct.CType) -> Any:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, 0)
        make = ctype.dtype.type  # type: ignore[union-attr]
        return CExpr(ctype, lambda fr, m: make(fr.mc.counters.inst), False)
    return handler


MORE_BUILTINS["clock"] = _clock(ct.LLONG)  # clock_t is long: 64-bit, as in CUDA on Linux
MORE_BUILTINS["clock64"] = _clock(ct.LLONG)


def _nanosleep(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    check_arity(comp, node, args, 1)
    converted(args[0], ct.UINT)  # type check: an arithmetic argument
    return CExpr(ct.VOID, lambda fr, m: None, False)


MORE_BUILTINS["__nanosleep"] = _nanosleep
