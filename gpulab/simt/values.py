"""Compiled-expression building blocks shared by the compiler and the builtins.

A compiled expression is a :class:`CExpr`: its static C type plus a closure
``ev(frame, mask)`` returning a numpy value over all lanes (an array of length
``nlanes``) or a numpy scalar when the value is the same for every lane. Values of
inactive lanes are unspecified and never observed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ctypes_ import BOOL, TRUTH, CType, convert
from .machine import Machine, Mask, Site
from .registers import Shadow

Value = Any  # np.ndarray | np.generic
Eval = Callable[["Frame", Mask], Value]


class Frame:
    """Registers of one (vectorized) function activation."""

    __slots__ = ("cont", "is_kernel", "mc", "ret_bits", "retval", "shadow", "v")

    def __init__(self, mc: Machine, nslots: int, is_kernel: bool = False) -> None:
        self.mc = mc
        self.v: list[Value] = [None] * nslots
        self.cont: list[np.ndarray | None] = []
        self.retval: Value = None
        self.ret_bits: np.ndarray | None = None
        self.is_kernel = is_kernel
        self.shadow: Shadow | None = None

    def register_shadow(self) -> Shadow:
        """Traced lanes' register values of this activation (created when first needed)."""
        if self.shadow is None:
            self.shadow = Shadow()
        return self.shadow


class LValue:
    """Something assignable: ``prepare`` evaluates the address part once."""

    ctype: CType

    def prepare(self, fr: Frame, m: Mask) -> Value:
        return None

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        raise NotImplementedError

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        raise NotImplementedError


class VarLV(LValue):
    """A scalar local variable (register)."""

    def __init__(self, slot: int, ctype: CType) -> None:
        self.slot = slot
        self.ctype = ctype

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        return fr.v[self.slot]

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        store_register(fr, self.slot, m, value)


class MemLV(LValue):
    """A memory location given by a pointer-valued expression."""

    def __init__(self, addr: CExpr, ctype: CType, site: Site) -> None:
        self.addr = addr
        self.ctype = ctype
        self.site = site

    def prepare(self, fr: Frame, m: Mask) -> Value:
        return self.addr.ev(fr, m)

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        return fr.mc.load(handle, m, self.ctype, self.site)

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        fr.mc.store(handle, value, m, self.ctype, self.site)


@dataclass
class CExpr:
    """A compiled expression."""

    ctype: CType
    ev: Eval
    pure: bool = True
    const: Value = None
    lv: LValue | None = None


def store_register(fr: Frame, slot: int, m: Mask, value: Value) -> None:
    """Masked register write: inactive lanes keep their old value.

    When every live lane is active the value is stored whole: lanes that have exited the
    kernel are never read again, so their slots need not be kept.
    """
    if m.count == fr.mc.live_count:
        fr.v[slot] = value
    elif m.count:
        old = fr.v[slot]
        fr.v[slot] = np.where(m.bits, value, old)


_ZERO = np.int64(0)


def null_pointer(fr: Frame, m: Mask) -> Value:
    """The value of ``NULL`` and ``nullptr`` (recognised by identity where C++ converts a null
    pointer constant to any pointer type, as to a function pointer)."""
    return _ZERO


def converter(src: CType, dst: CType) -> Callable[[Value], Value] | None:
    """A function converting values of ``src`` to ``dst``, or None when nothing to do."""
    if dst.is_pointer or dst.is_array or src.is_pointer or src.is_array:
        return None
    if src.dtype == dst.dtype:
        return None
    return lambda v: convert(v, src, dst)


def converted(e: CExpr, dst: CType) -> CExpr:
    """``e`` converted to ``dst`` (folded when constant)."""
    if (e.ctype.is_pointer or e.ctype.is_array) and dst.is_scalar:
        raise TypeError(f"a pointer ({e.ctype}) is used where a {dst} value is needed")
    if not e.ctype.is_scalar and not e.ctype.is_pointer and not e.ctype.is_array:
        raise TypeError(f"a {e.ctype} value is used where a {dst} value is needed")
    f = converter(e.ctype, dst)
    if f is None:
        return e if e.ctype == dst or not dst.is_scalar else CExpr(dst, e.ev, e.pure, e.const,
                                                                   None)
    if e.const is not None:
        c = f(e.const)
        return CExpr(dst, lambda fr, m: c, True, c)
    inner = e.ev
    key = object()

    def convert_memoized(fr: Frame, m: Mask) -> Value:
        # the same register array is often converted again and again (an int index
        # widened for several pointer additions); arrays are never changed in place
        value = inner(fr, m)
        if type(value) is not np.ndarray:
            return f(value)
        memo = fr.mc.memo
        hit = memo.get(key)
        if hit is not None and hit[0] is value:
            return hit[1]
        out = f(value)
        memo[key] = (value, out)
        return out
    return CExpr(dst, convert_memoized, e.pure)


def truth(e: CExpr) -> Eval:
    """Closure giving the C truth value of ``e`` as numpy bool."""
    inner = e.ev
    if e.ctype in (TRUTH, BOOL):
        return inner
    if e.ctype.is_pointer:
        return lambda fr, m: inner(fr, m) != 0
    zero = e.ctype.dtype.type(0) if e.ctype.dtype is not None else 0
    return lambda fr, m: inner(fr, m) != zero


def constant(value: Any, ctype: CType) -> CExpr:
    """A compile-time constant of ``ctype``."""
    assert ctype.dtype is not None
    c = np.asarray(value).astype(ctype.dtype)[()] if not isinstance(value, np.generic) \
        else value.astype(ctype.dtype)
    return CExpr(ctype, lambda fr, m: c, True, c)
