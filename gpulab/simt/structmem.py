"""Struct values in registers and in memory.

In registers a struct value is a tuple with one numpy value per leaf (see
:mod:`gpulab.simt.layout`); a struct variable owns one register slot per leaf, consecutive,
so masked writes are per leaf and copies share the (never modified in place) arrays. In memory
a whole-struct load or store is one access per chunk of the layout: a ``float4`` is one 16-byte
access per lane (aligned to 16, counted as one request whose lanes each touch 16 bytes, and
traced with itemsize 16), a ``struct {float re, im;}`` two 4-byte accesses, exactly like the
instructions a GPU runs for them. These functions use the machine's own address resolution,
fault reporting and metrics (its ``_resolve``/``_count``/``_element_index``), so a misaligned or
out-of-bounds struct access faults like a scalar one, naming the buffer and the address.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ctypes_ import CType, StructLayout
from .machine import Machine, Mask, Site
from .values import CExpr, Frame, LValue, MemLV, store_register

Value = Any


def zero_value(ctype: CType) -> tuple:
    """The all-zero value of a struct type (one numpy scalar per leaf)."""
    assert ctype.layout is not None
    return tuple(leaf.memory_dtype.type(0) for leaf in ctype.layout.leaves)


def _lanes_and_addresses(mc: Machine, addr: Value, m: Mask, offset: int) -> tuple[np.ndarray, np.ndarray]:
    a = mc._lane_addresses(addr, m)
    return m.idx, (a + offset if offset else a)


def load_struct(mc: Machine, addr: Value, m: Mask, ctype: CType, site: Site) -> tuple:
    """Per-lane load of a whole struct at byte addresses ``addr`` for the active lanes."""
    lay = ctype.layout
    assert lay is not None
    leaves = lay.leaves
    full = m.count == mc.nlanes
    out: list[Value] = [None] * len(leaves)
    if m.count == 0:
        return tuple(np.zeros(mc.nlanes, dtype=leaf.memory_dtype) for leaf in leaves)
    for chunk in lay.chunks:
        lanes, a = _lanes_and_addresses(mc, addr, m, chunk.offset)
        for region, sel in mc._resolve(a, lanes, chunk.size, "load from", site):
            whole = len(sel) == len(a)
            la, aa = (lanes, a) if whole else (lanes[sel], a[sel])
            mc._count(region, "load", la, aa, chunk.size, site)
            for i in chunk.leaves:
                leaf = leaves[i]
                dtype = leaf.memory_dtype
                e = mc._element_index(region, aa + (leaf.offset - chunk.offset), la, dtype)
                vals = region.flat_view(dtype)[e]
                if full and whole:
                    out[i] = vals
                    continue
                if out[i] is None:
                    out[i] = np.zeros(mc.nlanes, dtype=dtype)
                out[i][la] = vals
    return tuple(out)


def store_struct(mc: Machine, addr: Value, value: tuple, m: Mask, ctype: CType, site: Site) -> None:
    """Per-lane store of a whole struct; when lanes collide the highest lane id wins."""
    lay = ctype.layout
    assert lay is not None
    if m.count == 0:
        return
    leaves = lay.leaves
    for chunk in lay.chunks:
        lanes, a = _lanes_and_addresses(mc, addr, m, chunk.offset)
        for region, sel in mc._resolve(a, lanes, chunk.size, "store to", site):
            la, aa = (lanes, a) if len(sel) == len(a) else (lanes[sel], a[sel])
            mc._count(region, "store", la, aa, chunk.size, site)
            for i in chunk.leaves:
                leaf = leaves[i]
                dtype = leaf.memory_dtype
                e = mc._element_index(region, aa + (leaf.offset - chunk.offset), la, dtype)
                v = value[i]
                region.flat_view(dtype)[e] = (v if len(la) == mc.nlanes else v[la]) \
                    if isinstance(v, np.ndarray) and v.ndim else v


class StructRegLV(LValue):
    """A struct held in registers: ``count`` consecutive slots from ``slot``."""

    def __init__(self, slot: int, ctype: CType) -> None:
        assert ctype.layout is not None
        self.slot = slot
        self.count = len(ctype.layout.leaves)
        self.ctype = ctype

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        return tuple(fr.v[self.slot:self.slot + self.count])

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        for i, v in enumerate(value):
            store_register(fr, self.slot + i, m, v)


class StructMemLV(MemLV):
    """A struct in memory at a pointer-valued address (``&`` of it works as for scalars)."""

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        return load_struct(fr.mc, handle, m, self.ctype, self.site)

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        store_struct(fr.mc, handle, value, m, self.ctype, self.site)


def register_struct(slot: int, ctype: CType, const: bool = False) -> CExpr:
    """The struct variable whose leaves are the slots from ``slot`` (no lvalue when const)."""
    lv = StructRegLV(slot, ctype)
    end = slot + lv.count
    return CExpr(ctype, lambda fr, m: tuple(fr.v[slot:end]), True, None, None if const else lv)


def memory_struct(addr: CExpr, ctype: CType, site: Site) -> CExpr:
    """The struct in memory at ``addr`` (a pointer-valued expression)."""
    lv = StructMemLV(addr, ctype, site)
    ev = addr.ev

    def load(fr: Frame, m: Mask) -> Value:
        return load_struct(fr.mc, ev(fr, m), m, ctype, site)
    return CExpr(ctype, load, False, None, lv)


def select(cond: Value, a: tuple, b: tuple) -> tuple:
    """Per-lane choice between two struct values."""
    return tuple(np.where(cond, x, y) for x, y in zip(a, b, strict=True))


def leaf_range(lay: StructLayout, member: str) -> tuple[int, int]:
    """Indices [first, end) of the leaves of one member."""
    first = next(i for i, leaf in enumerate(lay.leaves)
                 if leaf.path == member or leaf.path.startswith(member + ".")
                 or leaf.path.startswith(member + "["))
    end = first
    while end < len(lay.leaves) and (lay.leaves[end].path == member
                                     or lay.leaves[end].path.startswith((member + ".", member + "["))):
        end += 1
    return first, end
