"""An element of an array member of a struct held in registers: ``r.payload[k]``.

A struct variable keeps one register slot per leaf, so ``payload[4]`` is four slots. Indexing
it with a value known only at run time (``for (int k = 0; k < size; ++k) r.payload[k] = v;``)
reads, per lane, the slot its index selects, and writes only that slot of each active lane,
as a GPU does with a local array it keeps in registers (or spills to local memory). An index
outside the array is a fault, named with the line, the member and the index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ctypes_ import CType
from .errors import KernelFault
from .machine import Mask, Site
from .values import CExpr, Eval, Frame, LValue, store_register

Value = Any


def _checked(fr: Frame, m: Mask, index: Value, n: int, what: str, site: Site) -> Value:
    """The index (a scalar or per lane), after checking the active lanes' values."""
    if np.ndim(index) == 0:
        bad = not 0 <= int(index) < n
        shown = int(index)
    else:
        active = index[m.bits]
        outside = (active < 0) | (active >= n)
        bad = bool(outside.any())
        shown = int(active[outside][0]) if bad else 0
    if bad:
        mc = fr.mc
        raise KernelFault(f"{mc.kernel}: line {site.line}: index {shown} is outside {what} (it has "
                          f"{n} elements)", mc.kernel, site.line)
    return index


def _pick(values: list[Value], index: Value) -> Value:
    if np.ndim(index) == 0:
        return values[int(index)]
    return np.choose(np.clip(index, 0, len(values) - 1), np.broadcast_arrays(*values))


class RegisterElementLV(LValue):
    """``r.payload[k]`` of a struct variable: slots ``slot .. slot+n-1``, ``k`` per lane."""

    def __init__(self, slot: int, n: int, ctype: CType, index: Eval, what: str, site: Site) -> None:
        self.slot, self.n, self.ctype = slot, n, ctype
        self.index, self.what, self.site = index, what, site

    def prepare(self, fr: Frame, m: Mask) -> Value:
        return _checked(fr, m, self.index(fr, m), self.n, self.what, self.site)

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        return _pick(fr.v[self.slot:self.slot + self.n], handle)

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        if np.ndim(handle) == 0:
            store_register(fr, self.slot + int(handle), m, value)
            return
        for j in np.unique(handle[m.bits]):
            store_register(fr, self.slot + int(j), m.where(handle == j), value)


def register_element(slot: int, n: int, ctype: CType, index: Eval, what: str, site: Site,
                     assignable: bool) -> CExpr:
    """An element of the array member in slots ``slot .. slot+n-1`` (of a struct variable)."""
    lv = RegisterElementLV(slot, n, ctype, index, what, site)

    def load(fr: Frame, m: Mask) -> Value:
        return lv.get(fr, m, lv.prepare(fr, m))
    return CExpr(ctype, load, False, None, lv if assignable else None)


def value_element(leaves: Eval, first: int, n: int, ctype: CType, index: Eval, what: str,
                  site: Site) -> CExpr:
    """An element of the array member of a struct value (a call's result, a temporary)."""

    def load(fr: Frame, m: Mask) -> Value:
        k = _checked(fr, m, index(fr, m), n, what, site)
        return _pick(list(leaves(fr, m)[first:first + n]), k)
    return CExpr(ctype, load, False)
