"""References to structs and CUDA vector types (``float3 &a``, ``const float4 &b``, ``Complex &c``).

A reference is bound once, when it is declared or passed, to a *cell* (see
:mod:`gpulab.simt.refcells`); this module adds the cells for struct referents:

- :class:`StructRegCell`: a struct held in registers of one activation (its leaves'
  consecutive slots). Reads see the slots' current values; writes are masked register writes,
  so a callee writing ``a.x`` through ``float3 &a`` changes the caller's variable exactly for
  the active lanes.
- :class:`StructMemCell`: a struct in memory at per-lane addresses. Every use is a real load
  or store (a ``float4`` one 16-byte access, as on the GPU), so a write through another
  reference or a pointer before a read through a ``const T&`` is seen, as C++ requires.
- :class:`StructValueCell`: a ``const T&`` bound to a temporary (``make_float3(...)``).

A member of a struct reached through a reference (``a.x``, ``r.pos.y``) is a
:class:`MemberLV`: the member of the cell, found at compile time as leaf indices and a byte
offset, so no cell is built on a plain read. Binding a reference to such a member
(``float &y = r.y``, or passing ``r.pos`` on) gives the member's own cell.

Member functions may take non-const ``T&`` parameters; a call binds them here as for a free
function (``const T&`` parameters of member functions stay by-value copies, see
:mod:`gpulab.simt.structs`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from pycparser import c_ast

from .ctypes_ import CType
from .errors import CompileError
from .machine import Mask, Site
from .refcells import MemCell, RefLV, RegCell, is_ref
from .structmem import StructRegLV, leaf_range, load_struct, store_struct
from .symbols import Function, Scope
from .values import CExpr, Eval, Frame, LValue, MemLV, store_register

Value = Any


class StructRegCell:
    """A struct in registers of one activation: slots [slot, end)."""

    __slots__ = ("end", "frame", "slot")

    def __init__(self, frame: Frame, slot: int, end: int) -> None:
        self.frame = frame
        self.slot = slot
        self.end = end

    def get(self, fr: Frame, m: Mask, ctype: CType, site: Site) -> Value:
        return tuple(self.frame.v[self.slot:self.end])

    def set(self, fr: Frame, m: Mask, ctype: CType, site: Site, value: Value) -> None:
        for i, v in enumerate(value):
            store_register(self.frame, self.slot + i, m, v)

    def get_part(self, fr: Frame, m: Mask, part: Part) -> Value:
        if part.leaf:
            return self.frame.v[self.slot + part.first]
        return tuple(self.frame.v[self.slot + part.first:self.slot + part.end])

    def set_part(self, fr: Frame, m: Mask, part: Part, value: Value) -> None:
        if part.leaf:
            store_register(self.frame, self.slot + part.first, m, value)
            return
        for i, v in enumerate(value):
            store_register(self.frame, self.slot + part.first + i, m, v)

    def part(self, part: Part) -> Any:
        if part.leaf:
            return RegCell(self.frame, self.slot + part.first)
        return StructRegCell(self.frame, self.slot + part.first, self.slot + part.end)


class StructMemCell:
    """A struct in memory at per-lane byte addresses."""

    __slots__ = ("addr",)

    def __init__(self, addr: Value) -> None:
        self.addr = addr

    def get(self, fr: Frame, m: Mask, ctype: CType, site: Site) -> Value:
        return load_struct(fr.mc, self.addr, m, ctype, site)

    def set(self, fr: Frame, m: Mask, ctype: CType, site: Site, value: Value) -> None:
        store_struct(fr.mc, self.addr, value, m, ctype, site)

    def get_part(self, fr: Frame, m: Mask, part: Part) -> Value:
        if part.leaf:
            return fr.mc.load(self.addr + part.offset, m, part.ctype, part.site)
        return load_struct(fr.mc, self.addr + part.offset, m, part.ctype, part.site)

    def set_part(self, fr: Frame, m: Mask, part: Part, value: Value) -> None:
        if part.leaf:
            fr.mc.store(self.addr + part.offset, value, m, part.ctype, part.site)
        else:
            store_struct(fr.mc, self.addr + part.offset, value, m, part.ctype, part.site)

    def part(self, part: Part) -> Any:
        if part.leaf:
            return MemCell(self.addr + part.offset)
        return StructMemCell(self.addr + part.offset)


class StructValueCell:
    """A ``const T&`` of a struct bound to a temporary: the value it was initialized with."""

    __slots__ = ("value",)

    def __init__(self, value: tuple) -> None:
        self.value = value

    def get(self, fr: Frame, m: Mask, ctype: CType, site: Site) -> Value:
        return self.value

    def set(self, fr: Frame, m: Mask, ctype: CType, site: Site, value: Value) -> None:
        raise AssertionError("a const reference is never assigned (checked when compiling)")

    def get_part(self, fr: Frame, m: Mask, part: Part) -> Value:
        return self.value[part.first] if part.leaf else self.value[part.first:part.end]

    def set_part(self, fr: Frame, m: Mask, part: Part, value: Value) -> None:
        raise AssertionError("a const reference is never assigned (checked when compiling)")

    def part(self, part: Part) -> Any:
        return StructValueCell(self.get_part(None, None, part))  # type: ignore[arg-type]


class Part:
    """A member of a struct type: leaf indices [first, end), byte offset, type."""

    __slots__ = ("ctype", "end", "first", "leaf", "offset", "site")

    def __init__(self, first: int, end: int, offset: int, ctype: CType, site: Site) -> None:
        self.first, self.end, self.offset = first, end, np.int64(offset)
        self.ctype, self.site = ctype, site
        self.leaf = ctype.layout is None


class MemberLV(LValue):
    """A member of a struct reached through a reference: a part of the reference's cell."""

    def __init__(self, cell: Eval, part: Part, const: bool) -> None:
        self.cell = cell
        self.part = part
        self.ctype = part.ctype
        self.const = const  # reached through a const reference: not assignable

    def prepare(self, fr: Frame, m: Mask) -> Value:
        return self.cell(fr, m)

    def get(self, fr: Frame, m: Mask, handle: Value) -> Value:
        return handle.get_part(fr, m, self.part)

    def set(self, fr: Frame, m: Mask, handle: Value, value: Value) -> None:
        handle.set_part(fr, m, self.part, value)

    def reference_cell(self) -> Eval:
        cell, part = self.cell, self.part
        return lambda fr, m: cell(fr, m).part(part)


def _const_ref_root(lv: LValue | None) -> bool:
    return isinstance(lv, MemberLV) and lv.const


class StructRefMixin:
    """References to struct-typed objects for the compiler (a mixin before ``CxxMixin``)."""

    if TYPE_CHECKING:  # what the mixin uses of the compiler
        _cxx_ready: dict[int, tuple[c_ast.Node, CExpr]]

        def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError: ...
        def expr(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
        def site(self, node: c_ast.Node) -> Site: ...
        def assign_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr: ...
        def _is_const_lvalue(self, node: c_ast.Node, scope: Scope) -> bool: ...

    # ------------------------------------------------------------------ binding
    def cxx_bind(self, target: CExpr, rtype: CType, node: c_ast.Node, scope: Scope) -> Eval:
        referent = rtype.pointee
        assert referent is not None
        if referent.layout is None:
            if not rtype.name.startswith("const") and _const_ref_root(target.lv) \
                    and target.ctype == referent:
                raise self._const_member_error(node)
            return super().cxx_bind(target, rtype, node, scope)  # type: ignore[misc]
        return self.struct_bind(target, rtype, node, scope)

    def struct_bind(self, target: CExpr, rtype: CType, node: c_ast.Node, scope: Scope) -> Eval:
        """The cell a reference to a struct binds to (see the module docstring)."""
        referent = rtype.pointee
        assert referent is not None
        const = rtype.name == "const ref"
        lv = target.lv
        if target.ctype == referent and (lv is not None or const):
            if not const and (_const_ref_root(lv) or self._is_const_lvalue(node, scope)):
                raise self.error(node, f"a non-const {referent}& cannot refer to a const object",
                                 "reference to const")
            if isinstance(lv, (RefLV, MemberLV)):
                return lv.reference_cell()
            if isinstance(lv, StructRegLV):
                slot, end = lv.slot, lv.slot + lv.count
                return lambda fr, m: StructRegCell(fr, slot, end)
            if isinstance(lv, MemLV):
                addr = lv.addr.ev
                return lambda fr, m: StructMemCell(addr(fr, m))
        if not const:
            if lv is None and target.ctype == referent and isinstance(node, c_ast.ID):
                raise self.error(node, f"a non-const {referent}& cannot refer to the const "
                                 f"object '{node.name}'", "reference to const")
            return super().cxx_bind(target, rtype, node, scope)  # type: ignore[misc]  # its errors
        value = self.assign_convert(target, referent, node).ev
        return lambda fr, m: StructValueCell(value(fr, m))

    def _const_member_error(self, node: c_ast.Node) -> CompileError:
        return self.error(node, "this member is reached through a const reference and cannot be "
                          "changed", "assignment to const")

    # ------------------------------------------------------------------ members
    def member_access(self, node: c_ast.StructRef, scope: Scope) -> CExpr:
        if node.type != ".":
            return super().member_access(node, scope)  # type: ignore[misc]
        base = self.expr(node.name, scope)
        if base.ctype.layout is not None and isinstance(base.lv, (RefLV, MemberLV)):
            return self.member_through_reference(node, base, scope)
        self._cxx_ready[id(node.name)] = (node.name, base)  # compiled once
        return super().member_access(node, scope)  # type: ignore[misc]

    def member_through_reference(self, node: c_ast.StructRef, base: CExpr, scope: Scope) -> CExpr:
        lay = base.ctype.layout
        assert lay is not None
        name = node.field.name
        member = lay.member(name)
        if member is None:
            raise self.error(node.field, f"struct {base.ctype} has no member named '{name}'",
                             f"member {name}")
        if member.ctype.is_array:
            raise self.error(node, f"the array member '{name}' of a struct reached through a "
                             "reference cannot be used by the emulator (use a pointer to the "
                             "struct)", "array member through a reference")
        lv = base.lv
        assert isinstance(lv, (RefLV, MemberLV))
        cell = lv.reference_cell()  # a reference's own cell, or the cell of a member
        const = scope_const_ref(node.name, scope) if isinstance(lv, RefLV) else lv.const
        first, end = leaf_range(lay, name)
        part = Part(first, end, member.offset, member.ctype, self.site(node))

        def read(fr: Frame, m: Mask) -> Value:
            return cell(fr, m).get_part(fr, m, part)
        return CExpr(member.ctype, read, False, None, MemberLV(cell, part, const))

    def lvalue(self, node: c_ast.Node, scope: Scope) -> LValue:
        lv = super().lvalue(node, scope)  # type: ignore[misc]
        if _const_ref_root(lv):
            raise self._const_member_error(node)
        return lv

    # ------------------------------------------------------------------ member function calls
    def call_function(self, fn: Function, args: list[CExpr], node: c_ast.Node,
                      result: str = "return", write_back: LValue | None = None) -> CExpr:
        """Member functions and operators: bind their ``T&`` parameters to the arguments."""
        if any(is_ref(p) for _, p in fn.params) and len(args) == len(fn.params):
            args = [CExpr(p, self.cxx_bind(a, p, node, Scope()), False)
                    if is_ref(p) and a.ctype != p else a
                    for a, (_, p) in zip(args, fn.params, strict=True)]
        return super().call_function(fn, args, node, result, write_back)  # type: ignore[misc]


def scope_const_ref(node: c_ast.Node, scope: Scope) -> bool:
    """The reference named by ``node`` is a ``const T&``."""
    if isinstance(node, c_ast.ID):
        var = scope.lookup(node.name)
        return var is not None and var.ctype.name == "const ref"
    return False
