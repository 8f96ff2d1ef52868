"""The compiler's side of the C++ lowering (:mod:`gpulab.simt.cxx`): auto, references, casts.

:class:`CxxMixin` is cooperative: every method it overrides calls ``super()``, so it composes
with other compiler mixins in any order before :class:`~gpulab.simt.compiler.Compiler`.

References are bound once, when declared or passed, to a *cell* that every use goes
through (:class:`~.refcells.RegCell`, :class:`~.refcells.MemCell` or
:class:`~.refcells.ValueCell`, see :mod:`.refcells`). The cell lives in a register slot of the
function that is not shown in the register trace. Another helper's lvalue kind becomes
bindable by giving it a ``reference_cell()`` method that returns an evaluator
``(frame, mask) -> cell`` (a struct field in memory is already a MemLV).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pycparser import c_ast, c_parser

from . import ctypes_ as ct
from .compiler import Compiler
from .compiletime import CompileTimeMixin
from .ctypes_ import CType
from .cxx import AUTO, CAST_FUNCTIONS, Lowered
from .errors import CompileError
from .fnptr import CallableMixin
from .machine import Mask
from .overloads import OverloadMixin
from .refcells import MemCell, RefLV, RegCell, ValueCell, is_ref, ref_to
from .structrefs import StructRefMixin
from .symbols import Function, Scope, Var
from .values import CExpr, Eval, Frame, LValue, MemLV, VarLV, constant

_CAST_KINDS = {v: k for k, v in CAST_FUNCTIONS.items()}


def _is_ref_node(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.PtrDecl) and "restrict" in (node.quals or [])


def _mentions(node: c_ast.Node | None, name: str) -> bool:
    if node is None:
        return False
    if isinstance(node, c_ast.IdentifierType):
        return name in node.names
    if isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.Typename)):
        return _mentions(node.type, name)
    return False


def _has_restrict(node: c_ast.Node | None) -> bool:
    while isinstance(node, (c_ast.Typename, c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.TypeDecl)):
        if _is_ref_node(node):
            return True
        node = node.type
    return False


def _points_to_const(node: c_ast.Node | None) -> bool:
    """``const T*`` (what it points to is const)."""
    if isinstance(node, c_ast.Typename):
        node = node.type
    return isinstance(node, c_ast.PtrDecl) and isinstance(node.type, c_ast.TypeDecl) \
        and "const" in (node.type.quals or [])


class CxxMixin:
    """auto, references, C++ casts, default arguments and brace initializers (see module doc)."""

    pre: Any
    filename: str
    current: Function | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cxx_auto: list[CType] = []  # deduced types of the auto declarations being compiled
        self._cxx_ready: dict[int, tuple[c_ast.Node, CExpr]] = {}  # node -> already compiled
        self._cxx_ref_ok = False  # a reference type is allowed at the top of the type resolved
        self._cxx_const_ptrs: set[str] = set()
        self._cxx_defaults: dict[tuple[str, int], c_ast.Node] = {}

    # ------------------------------------------------------------------ messages
    def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError:
        if isinstance(self.pre, Lowered):
            message, construct = self.pre.readable(message), self.pre.readable(construct)
        return super().error(node, message, construct)  # type: ignore[misc]

    # ------------------------------------------------------------------ types
    def resolve_type(self, node: c_ast.Node) -> CType:
        if isinstance(node, c_ast.IdentifierType) and AUTO in node.names:
            if not self._cxx_auto:
                raise self.error(node, "'auto' is supported only for a local variable with an "
                                 "initializer (not for parameters, return types or casts)", "auto")
            return self._cxx_auto[-1]
        allowed, self._cxx_ref_ok = self._cxx_ref_ok, False
        try:
            if _is_ref_node(node):
                if not allowed:
                    raise self.error(node, "a C++ reference type is allowed only for a parameter "
                                     "of a __device__ function or a local variable", "reference type")
                referent = self.resolve_type(node.type)
                if referent.is_array or referent is ct.VOID:
                    raise self.error(node, f"references to {referent} are not supported by the "
                                     "emulator", "reference type")
                const = isinstance(node.type, c_ast.TypeDecl) and "const" in (node.type.quals or [])
                return ref_to(referent, const)
            return super().resolve_type(node)  # type: ignore[misc]
        finally:
            self._cxx_ref_ok = allowed

    def register_var(self, name: str, ctype: CType) -> Var:
        if is_ref(ctype):  # holds a cell, not a value: kept out of the register trace
            return Var("reg", ctype, self.new_slot())  # type: ignore[attr-defined]
        return super().register_var(name, ctype)  # type: ignore[misc]

    def assign_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr:
        if is_ref(dst) and value.ctype == dst:
            return value
        return super().assign_convert(value, dst, node)  # type: ignore[misc]

    # ------------------------------------------------------------------ functions
    def declare_function(self, decl: c_ast.Decl, fdef: c_ast.FuncDef | None) -> None:
        fdecl = decl.type
        if _is_ref_node(fdecl.type):
            raise self.error(decl, f"{decl.name} returns a reference; the emulator supports "
                             "returning values only (return a value or take a pointer)",
                             "reference return type")
        is_kernel = decl.name in self.pre.global_functions
        for p in (fdecl.args.params if fdecl.args else []):
            if not isinstance(p, c_ast.Decl):
                continue
            if _mentions(p.type, AUTO):
                raise self.error(p, "'auto' parameters are not allowed; write the type",
                                 "auto parameter")
            if is_kernel and _is_ref_node(p.type):
                raise self.error(p, f"kernel parameter '{p.name}' is a reference: a __global__ "
                                 "function's arguments are copied from the host, so a reference "
                                 "would point into host memory; pass a value or a pointer",
                                 "kernel reference parameter")
        self._cxx_ref_ok = True
        try:
            super().declare_function(decl, fdef)  # type: ignore[misc]
        finally:
            self._cxx_ref_ok = False

    def compile_function(self, fdef: c_ast.FuncDef) -> None:
        self._cxx_const_ptrs = {n.name for n in _walk(fdef)
                                if isinstance(n, c_ast.Decl) and _points_to_const(n.type)}
        super().compile_function(fdef)  # type: ignore[misc]

    def default_argument_scope(self) -> Scope:
        """Where a default argument's names are looked up (file scope: no locals)."""
        return Scope()

    def device_call(self, fn: Function, arg_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                    scope: Scope) -> CExpr:
        arg_nodes = list(arg_nodes)
        for k in range(len(arg_nodes), len(fn.params)):
            default = self._cxx_default(fn.name, k)
            if default is None:
                break
            self._cxx_ready[id(default)] = (default, self.expr(default, self.default_argument_scope()))
            arg_nodes.append(default)
        for a, (_, ptype) in zip(arg_nodes, fn.params, strict=False):
            if is_ref(ptype):
                bound = self.cxx_bind(self.expr(a, scope), ptype, a, scope)
                self._cxx_ready[id(a)] = (a, CExpr(ptype, bound, False))
        return super().device_call(fn, arg_nodes, node, scope)  # type: ignore[misc]

    def _cxx_default(self, fn_name: str, index: int) -> c_ast.Node | None:
        defaults = getattr(self.pre, "defaults", {}).get(fn_name, {})
        if index not in defaults:
            return None
        key = (fn_name, index)
        if key not in self._cxx_defaults:
            self._cxx_defaults[key] = self._parse_default(defaults[index])
        return self._cxx_defaults[key]

    def _parse_default(self, d: Any) -> c_ast.Node:
        if d.line > 1:
            text = f'{self.pre.head}# {d.line - 1} "{self.filename}"\nint __cxx_default =\n' \
                   f'{" " * (d.column - 1)}{d.text};\n'
        else:
            text = f'{self.pre.head}# 1 "{self.filename}"\nint __cxx_default = {d.text};\n'
        try:
            return c_parser.CParser().parse(text, filename=self.filename).ext[-1].init
        except Exception:  # pycparser's ParseError and, on odd input, others
            raise CompileError(f"the default argument '{d.text}' is not an expression the emulator "
                               "understands", d.line, d.column, "default argument") from None

    # ------------------------------------------------------------------ declarations
    def visit_Decl(self, node: c_ast.Decl, scope: Scope) -> Any:
        if isinstance(node.type, c_ast.FuncDecl):
            return super().visit_Decl(node, scope)  # type: ignore[misc]
        ref, auto = _is_ref_node(node.type), _mentions(node.type, AUTO) or _mentions(
            getattr(node.type, "type", None), AUTO)
        if not ref and not auto:
            return super().visit_Decl(node, scope)  # type: ignore[misc]
        what = "reference" if ref else "auto"
        if node.init is None:
            raise self.error(node, f"{what} variable '{node.name}' needs an initializer",
                             f"{what} without initializer")
        if isinstance(node.init, c_ast.InitList):
            raise self.error(node, f"{what} variable '{node.name}' = {{...}}: write the value "
                             "without braces (auto x = {v} would be a std::initializer_list)",
                             f"{what} with = {{...}}")
        if "static" in (node.storage or []):
            raise self.error(node, f"__shared__ {what} variables are not supported",
                             f"__shared__ {what}")
        if ref:
            return self.reference_decl(node, scope, auto)
        init = self.scalar(node.init, scope)  # type: ignore[attr-defined]
        self._cxx_auto.append(self.deduce(node.type, init, node))
        self._cxx_ready[id(node.init)] = (node.init, init)
        try:
            return super().visit_Decl(node, scope)  # type: ignore[misc]
        finally:
            self._cxx_auto.pop()
            self._cxx_ready.pop(id(node.init), None)

    def deduce(self, type_node: c_ast.Node, init: CExpr, node: c_ast.Decl) -> CType:
        """What ``auto`` stands for, given the initializer (C++ template argument deduction)."""
        t = ct.BOOL if init.ctype is ct.TRUTH else init.ctype  # comparisons are bool in C++
        if isinstance(node.init, c_ast.Constant) and node.init.type == "char":
            t = ct.CHAR  # 'a' is a char in C++ (an int in C)
        while isinstance(type_node, c_ast.PtrDecl):
            if not t.is_pointer or t.pointee is None:
                raise self.error(node, f"auto* needs a pointer initializer, not {t}", "auto*")
            t = t.pointee
            type_node = type_node.type
        if isinstance(type_node, c_ast.ArrayDecl):
            raise self.error(node, "arrays of auto are not allowed", "auto array")
        return t

    def reference_decl(self, node: c_ast.Decl, scope: Scope, auto: bool) -> Any:
        target = self.expr(node.init, scope)
        if auto:
            self._cxx_auto.append(ct.BOOL if target.ctype is ct.TRUTH else target.ctype)
        self._cxx_ref_ok = True
        try:
            rtype = self.resolve_type(node.type)
        finally:
            self._cxx_ref_ok = False
            if auto:
                self._cxx_auto.pop()
        bind = self.cxx_bind(target, rtype, node.init, scope)
        self.check_new_name(node, scope)  # type: ignore[attr-defined]
        var = Var("reg", rtype, self.new_slot(), line=self.position(node)[0] or 0)  # type: ignore[attr-defined]
        var.const = rtype.name == "const ref"
        scope.names[node.name] = var
        slot, site = var.slot, self.site(node)  # type: ignore[attr-defined]

        def run(fr: Frame, m: Mask) -> Mask:
            fr.mc.step(m, site)
            fr.v[slot] = bind(fr, m)
            return m
        return run, False

    def cxx_bind(self, target: CExpr, rtype: CType, node: c_ast.Node, scope: Scope) -> Eval:
        """An evaluator giving the cell a reference of type ``rtype`` binds to ``target``."""
        referent = rtype.pointee
        assert referent is not None
        const = rtype.name == "const ref"
        lv = target.lv
        if lv is not None and target.ctype == referent:
            if not const and self._is_const_lvalue(node, scope):
                raise self.error(node, f"a non-const {referent}& cannot refer to a const object",
                                 "reference to const")
            hook = getattr(lv, "reference_cell", None)
            if hook is not None:
                return hook()
            if isinstance(lv, VarLV):
                slot = lv.slot
                return lambda fr, m: RegCell(fr, slot)
            if isinstance(lv, MemLV):
                addr = lv.addr.ev
                return lambda fr, m: MemCell(addr(fr, m))
        if not const:
            if lv is None:
                raise self.error(node, f"a non-const reference ({referent}&) must refer to a "
                                 "variable, an array element or *pointer, not to a computed value",
                                 "reference to a temporary")
            raise self.error(node, f"a {referent}& cannot refer to a {target.ctype} (the types "
                             "must match exactly)", "reference type mismatch")
        value = self.assign_convert(self.decayed(target), referent, node).ev
        return lambda fr, m: ValueCell(value(fr, m))

    @staticmethod
    def decayed(e: CExpr) -> CExpr:
        if e.ctype.is_array and e.ctype.pointee is not None:
            return CExpr(ct.pointer_to(e.ctype.pointee), e.ev, e.pure, e.const)
        return e

    def _is_const_lvalue(self, node: c_ast.Node, scope: Scope) -> bool:
        """Best effort: a const variable or reference, or an element of a ``const T*``."""
        if isinstance(node, c_ast.ID):
            var = scope.lookup(node.name)
            return var is not None and (var.const or var.ctype.name == "const ref")
        base = node.name if isinstance(node, c_ast.ArrayRef) else \
            node.expr if isinstance(node, c_ast.UnaryOp) and node.op == "*" else None
        return isinstance(base, c_ast.ID) and base.name in self._cxx_const_ptrs

    def initializer(self, node: c_ast.Decl, ctype: CType, scope: Scope) -> CExpr | None:
        init = node.init
        if isinstance(init, c_ast.InitList) and (ctype.is_scalar or ctype.is_pointer):
            if not init.exprs:  # T x{} / T x = {}: value-initialized, i.e. zero
                if ctype.is_pointer:
                    zero = np.int64(0)
                    return CExpr(ctype, lambda fr, m: zero, True, None)
                return constant(0, ctype)
            if len(init.exprs) > 1 or isinstance(init.exprs[0], c_ast.InitList):
                raise self.error(init, f"a {ctype} is initialized with one value in braces",
                                 "brace initializer")
            return self.assign_convert(self.expr(init.exprs[0], scope), ctype, init.exprs[0])
        return super().initializer(node, ctype, scope)  # type: ignore[misc]

    # ------------------------------------------------------------------ expressions
    def expr(self, node: c_ast.Node, scope: Scope) -> CExpr:
        ready = self._cxx_ready.pop(id(node), None)
        if ready is not None and ready[0] is node:
            return ready[1]
        return super().expr(node, scope)  # type: ignore[misc]

    def expr_ID(self, node: c_ast.ID, scope: Scope) -> CExpr:
        var = scope.lookup(node.name)
        if var is None or not is_ref(var.ctype):
            return super().expr_ID(node, scope)  # type: ignore[misc]
        referent = var.ctype.pointee
        assert referent is not None
        slot, site = var.slot, self.site(node)  # type: ignore[attr-defined]
        return CExpr(referent, lambda fr, m: fr.v[slot].get(fr, m, referent, site), False, None,
                     RefLV(slot, referent, site))

    def lvalue(self, node: c_ast.Node, scope: Scope) -> LValue:
        if isinstance(node, c_ast.ID):
            var = scope.lookup(node.name)
            if var is not None and var.ctype.name == "const ref":
                raise self.error(node, f"'{node.name}' is a const reference and cannot be "
                                 "assigned to", "assignment to const")
        return super().lvalue(node, scope)  # type: ignore[misc]

    def address_of(self, node: c_ast.UnaryOp, scope: Scope) -> CExpr:
        if isinstance(node.expr, c_ast.ID):
            var = scope.lookup(node.expr.name)
            if var is not None and is_ref(var.ctype):
                raise self.error(node, f"taking the address of reference '{node.expr.name}' is "
                                 "not supported by the emulator", "address of reference")
        return super().address_of(node, scope)  # type: ignore[misc]

    def expr_FuncCall(self, node: c_ast.FuncCall, scope: Scope) -> CExpr:
        if isinstance(node.name, c_ast.ID) and node.name.name in _CAST_KINDS:
            return self.cxx_cast(_CAST_KINDS[node.name.name], node, scope)
        return super().expr_FuncCall(node, scope)  # type: ignore[misc]

    def cxx_cast(self, kind: str, node: c_ast.FuncCall, scope: Scope) -> CExpr:
        cast = node.args.exprs[0] if node.args is not None and len(node.args.exprs) == 1 else None
        if not isinstance(cast, c_ast.Cast):
            raise self.error(node, f"{kind} takes one operand", kind)
        if _has_restrict(cast.to_type):
            raise self.error(node, f"{kind} to a reference type is not supported by the emulator",
                             f"{kind} to reference")
        target = self.resolve_type(cast.to_type)
        value = self.scalar(cast.expr, scope)  # type: ignore[attr-defined]
        self.check_cast(kind, target, value, cast, scope)
        self._cxx_ready[id(cast.expr)] = (cast.expr, value)
        return self.expr_Cast(cast, scope)  # type: ignore[attr-defined]

    def check_cast(self, kind: str, dst: CType, value: CExpr, cast: c_ast.Cast,
                   scope: Scope) -> None:
        """The C++ rules of static_cast, reinterpret_cast and const_cast (NVRTC's messages)."""
        src = value.ctype
        drops_const = _points_to_const_expr(cast.expr, self._cxx_const_ptrs) \
            and not _points_to_const(cast.to_type)

        def fail(why: str) -> CompileError:
            return self.error(cast, f"{kind}<{dst}> of a {src}: {why}", kind)
        if kind == "static_cast":
            if dst is ct.VOID or (not src.is_pointer and not dst.is_pointer):
                return
            if src.is_pointer and dst.is_pointer:
                if src.pointee != dst.pointee and ct.VOID not in (src.pointee, dst.pointee):
                    raise fail("unrelated pointer types (reinterpret_cast converts those)")
                if drops_const:
                    raise fail("static_cast cannot cast away const (const_cast does)")
                return
            if dst.is_pointer and value.const is not None and value.const == 0:
                return  # a null pointer constant
            raise fail("static_cast does not convert between pointers and integers")
        if kind == "reinterpret_cast":
            if src.is_pointer and dst.is_pointer:
                if drops_const:
                    raise fail("reinterpret_cast cannot cast away const (const_cast does)")
                return
            if src.is_pointer and dst.is_integer and dst.size < 8:
                raise fail("the integer type is too small for a pointer")
            if (src.is_pointer and dst.is_integer) or (src.is_integer and dst.is_pointer) \
                    or (src == dst and src.is_integer):
                return
            raise fail("reinterpret_cast converts pointers (use static_cast for numbers)")
        if not (src.is_pointer and dst.is_pointer):
            raise fail("const_cast works on pointers (and references) only")
        if src.pointee != dst.pointee:
            raise fail("const_cast can change only const, not the type pointed to")


def _points_to_const_expr(node: c_ast.Node, const_ptrs: set[str]) -> bool:
    return isinstance(node, c_ast.ID) and node.name in const_ptrs


def _walk(node: c_ast.Node):
    yield node
    for _, child in node.children():
        yield from _walk(child)



class CxxCompiler(CallableMixin, CompileTimeMixin, OverloadMixin, StructRefMixin, CxxMixin, Compiler):
    """The compiler with the C++ basics (what :func:`~.translate.compile_source` uses)."""
