"""C++ references at run time: the cells a reference is bound to, and the use of one.

A reference is bound once, when declared or passed, to a *cell* that every use goes through:
:class:`RegCell` (a register of some activation: writes are masked register writes, so two
references to one variable alias exactly as in C++), :class:`MemCell` (per-lane addresses:
reads and writes are ordinary loads and stores, traced and counted at the use) or
:class:`ValueCell` (a ``const T&`` bound to a temporary). The cell lives in a register slot
of the function (:class:`RefLV` reads it). :mod:`.cxx_compile` binds references to these cells
and :mod:`.structrefs` adds the cells of struct referents.
"""

from __future__ import annotations

from typing import Any

from .ctypes_ import CType
from .machine import Mask, Site
from .values import Eval, Frame, LValue, store_register


def ref_to(referent: CType, const: bool) -> CType:
    """The type ``referent&`` (``const referent&`` when ``const``)."""
    return CType("const ref" if const else "ref", pointee=referent)


def is_ref(t: CType) -> bool:
    return t.name in ("ref", "const ref")


class RegCell:
    """A reference to a register variable of one activation."""

    __slots__ = ("frame", "slot")

    def __init__(self, frame: Frame, slot: int) -> None:
        self.frame = frame
        self.slot = slot

    def get(self, fr: Frame, m: Mask, ctype: CType, site: Site) -> Any:
        return self.frame.v[self.slot]

    def set(self, fr: Frame, m: Mask, ctype: CType, site: Site, value: Any) -> None:
        store_register(self.frame, self.slot, m, value)


class MemCell:
    """A reference to memory (per-lane addresses)."""

    __slots__ = ("addr",)

    def __init__(self, addr: Any) -> None:
        self.addr = addr

    def get(self, fr: Frame, m: Mask, ctype: CType, site: Site) -> Any:
        return fr.mc.load(self.addr, m, ctype, site)

    def set(self, fr: Frame, m: Mask, ctype: CType, site: Site, value: Any) -> None:
        fr.mc.store(self.addr, value, m, ctype, site)


class ValueCell:
    """A ``const T&`` bound to a temporary: the value it was initialized with."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def get(self, fr: Frame, m: Mask, ctype: CType, site: Site) -> Any:
        return self.value

    def set(self, fr: Frame, m: Mask, ctype: CType, site: Site, value: Any) -> None:
        raise AssertionError("a const reference is never assigned (checked when compiling)")


class RefLV(LValue):
    """A use of a reference: reads and writes go through the cell in ``slot``."""

    def __init__(self, slot: int, ctype: CType, site: Site) -> None:
        self.slot = slot
        self.ctype = ctype
        self.site = site

    def prepare(self, fr: Frame, m: Mask) -> Any:
        return fr.v[self.slot]

    def get(self, fr: Frame, m: Mask, handle: Any) -> Any:
        return handle.get(fr, m, self.ctype, self.site)

    def set(self, fr: Frame, m: Mask, handle: Any, value: Any) -> None:
        handle.set(fr, m, self.ctype, self.site, value)

    def reference_cell(self) -> Eval:
        slot = self.slot
        return lambda fr, m: fr.v[slot]
