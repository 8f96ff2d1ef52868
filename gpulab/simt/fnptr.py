"""Function pointers and function objects in the compiler: ``op_t f = sq; f(x)``, ``op(a, b)``.

:class:`CallableMixin` is a cooperative compiler mixin (every override calls ``super()``).

A function pointer (``float (*f)(float)``, a ``typedef`` or ``using`` alias of one, or a
template parameter deduced from a function name) is held per lane as a 64-bit number that
names a function of the program: the name of a function (or ``&name``) where a value is
expected becomes that number. A call through a pointer runs, for each distinct function the
active lanes point to, that function with those lanes -- one after the other, as a GPU's
indirect call serialises when the lanes of a warp disagree -- and a null pointer faults.
C++ converts a function pointer only to the very same signature; so does the emulator.

A function object is a struct with ``operator()`` (``struct Add { __device__ float
operator()(float a, float b) const {...} };``); ``op(a, b)`` on such an object calls its
operator, the object as ``this``. Functions taking references or structs, and kernels, are
not called through pointers here: each is refused by name where its address is taken. An
overloaded name where a function pointer is expected is the overload of the pointer's type.

A braced list as a call's argument or a returned value (``f({x, 1.0f})``, ``return {re, im};``,
lowered to ``__cxx_braced(...)`` by :mod:`.cxx`) takes the parameter's or the return type, as
C++'s copy-list initialization does; where the emulator cannot see that type (a builtin, a
template, an overload set) it is refused by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .coop_groups_run import fault
from .ctypes_ import CType
from .cxx import BRACED
from .errors import CompileError
from .machine import Mask, Site
from .symbols import Function, Scope, run_body
from .values import CExpr, Frame, constant, null_pointer

OVERLOADED = "overloaded function "  # the type of an overloaded name until a target type picks one

#: Function numbers start here, far from any data address, so a pointer mix-up cannot alias.
FUNCTION_BASE = 0x7F00_0000_0000


class CallableMixin:
    """Function pointer types, function addresses, indirect calls and function objects."""

    functions: dict[str, Function]

    if TYPE_CHECKING:  # what the mixin uses of the compiler
        current: Function | None

        def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError: ...
        def expr(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
        def scalar(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
        def site(self, node: c_ast.Node) -> Site: ...
        def operator_call(self, op: str, operands: list[CExpr], node: c_ast.Node) -> CExpr: ...
        def struct_initializer(self, init: c_ast.Node | None, ctype: CType, node: c_ast.Node,
                               scope: Scope, paren: bool) -> CExpr: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.function_numbers: dict[str, int] = {}
        self.numbered: list[Function] = []  # read at run time by every indirect call

    # ------------------------------------------------------------------ types
    def resolve_type(self, node: c_ast.Node) -> CType:
        if isinstance(node, c_ast.PtrDecl) and isinstance(node.type, c_ast.FuncDecl):
            fdecl = node.type
            ret = self.resolve_type(fdecl.type)
            params = []
            for p in (fdecl.args.params if fdecl.args else []):
                ptype = self.resolve_type(getattr(p, "type", p))
                if ptype is not ct.VOID:
                    params.append(ptype)
            return ct.function_pointer(ret, tuple(params))
        return super().resolve_type(node)  # type: ignore[misc]

    # ------------------------------------------------------------------ addresses
    def expr_ID(self, node: c_ast.ID, scope: Scope) -> CExpr:
        named = self.named_function(node, scope)
        return named if named is not None else super().expr_ID(node, scope)  # type: ignore[misc]

    def address_of(self, node: c_ast.UnaryOp, scope: Scope) -> CExpr:
        named = self.named_function(node.expr, scope) if isinstance(node.expr, c_ast.ID) else None
        return named if named is not None else super().address_of(node, scope)  # type: ignore[misc]

    def named_function(self, node: c_ast.ID, scope: Scope) -> CExpr | None:
        """The value of a function's name (a pointer to it); for an overloaded name, a value
        whose function the type it is converted to picks (as C++ picks), see assign_convert."""
        if scope.lookup(node.name) is not None:
            return None
        if node.name in self.functions:
            return self.function_address(self.functions[node.name], node)
        if node.name in getattr(self, "overload_sets", {}):
            return CExpr(CType(OVERLOADED + node.name), _unresolved, True)
        return None

    def overload_address(self, name: str, dst: CType, node: c_ast.Node) -> CExpr:
        sets = getattr(self, "overload_sets", {})
        for cand in sets.get(name, ()):
            fn = self.functions.get(cand.name) if not cand.is_template else None
            if fn is not None and dst.signature == (fn.ret, tuple(t for _, t in fn.params)):
                return self.function_address(fn, node)
        raise self.error(node, f"no overload of '{name}' has the type {dst}", "function pointer "
                         "to an overloaded function")

    def function_address(self, fn: Function, node: c_ast.Node) -> CExpr:
        """The value of the name ``fn`` where a value is expected: a pointer to it."""
        if fn.is_kernel:
            raise self.error(node, f"'{fn.name}' is a kernel; device code can neither call it nor "
                             "take its address (dynamic parallelism is not supported)",
                             "pointer to a kernel")
        for pname, ptype in fn.params:
            if ptype.is_struct or ptype.name == "ref":
                raise self.error(node, f"a pointer to '{fn.name}', whose parameter '{pname}' is a "
                                 f"{ptype}, is not supported by the emulator (only functions of "
                                 "scalars and pointers)", "function pointer to a struct function")
        if fn.ret.is_struct:
            raise self.error(node, f"a pointer to '{fn.name}', which returns a {fn.ret}, is not "
                             "supported by the emulator", "function pointer to a struct function")
        number = self.function_numbers.get(fn.name)
        if number is None:
            number = FUNCTION_BASE + len(self.numbered)
            self.function_numbers[fn.name] = number
            self.numbered.append(fn)
        value = np.int64(number)
        ctype = ct.function_pointer(fn.ret, tuple(t for _, t in fn.params))
        return CExpr(ctype, lambda fr, m: value, True)

    def assign_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr:
        if value.ctype.name.startswith(OVERLOADED):
            name = value.ctype.name[len(OVERLOADED):]
            if not dst.is_function_pointer:
                raise self.error(node, f"'{name}' names overloaded functions: which one is meant "
                                 "is picked by the function pointer type it is converted to",
                                 "overloaded function name")
            return self.overload_address(name, dst, node)
        if dst.is_function_pointer or value.ctype.is_function_pointer:
            if value.ctype == dst:
                return value
            if dst.is_function_pointer and _null_constant(value):  # nullptr, NULL, 0
                return CExpr(dst, lambda fr, m: np.int64(0), True)
            raise self.error(node, f"cannot convert {value.ctype} to {dst} (C++ converts a "
                             "function pointer only to the same signature)",
                             "function pointer conversion")
        return super().assign_convert(value, dst, node)  # type: ignore[misc]

    def binary(self, op: str, left: CExpr, right: CExpr, node: c_ast.Node) -> CExpr:
        if not (left.ctype.is_function_pointer or right.ctype.is_function_pointer) \
                or op in ("&&", "||"):
            return super().binary(op, left, right, node)  # type: ignore[misc]
        if op not in ("==", "!="):
            raise self.error(node, f"operator {op} on a function pointer (only == and != compare "
                             "them)", f"function pointer {op}")
        ftype = left.ctype if left.ctype.is_function_pointer else right.ctype
        lv = self.assign_convert(left, ftype, node).ev
        rv = self.assign_convert(right, ftype, node).ev
        same = op == "=="
        return CExpr(ct.TRUTH, lambda fr, m: (lv(fr, m) == rv(fr, m)) == same,
                     left.pure and right.pure)

    # ------------------------------------------------------------------ braced lists
    def braced(self, node: c_ast.Node, ctype: CType, scope: Scope) -> c_ast.Node:
        """``node`` itself, or, for a braced list (``__cxx_braced(...)``, see
        :func:`.cxx._braced_arguments`), its value as a ``ctype`` -- C++'s copy-list
        initialization of a parameter or a return value."""
        if not _is_braced(node):
            return node
        items = list(node.args.exprs) if node.args is not None else []
        if ctype.is_struct:
            init = c_ast.InitList(items, node.coord)
            return TypedValue(self.struct_initializer(init, ctype, node, scope, False), node.coord)
        if len(items) > 1:
            raise self.error(node, f"{{...}} with {len(items)} values for a {ctype} (one at most)",
                             "braced list")
        if not items:  # {} value-initializes: zero
            return TypedValue(self.assign_convert(constant(0, ct.INT), ctype, node), node.coord)
        return items[0]

    def expr_TypedValue(self, node: TypedValue, scope: Scope) -> CExpr:
        return node.value

    def visit_Return(self, node: c_ast.Return, scope: Scope) -> Any:
        fn = self.current
        if fn is not None and node.expr is not None and _is_braced(node.expr):
            node = c_ast.Return(self.braced(node.expr, fn.ret, scope), node.coord)
        return super().visit_Return(node, scope)  # type: ignore[misc]

    # ------------------------------------------------------------------ calls
    def expr_FuncCall(self, node: c_ast.FuncCall, scope: Scope) -> CExpr:
        if _is_braced(node):
            raise self.error(node, "a braced list {...} is supported as an argument of a "
                             "__device__ function that is neither a template nor overloaded, and as "
                             "a returned value; "
                             "here the emulator does not know its type (write the type: T{...})",
                             "braced list")
        args = list(node.args.exprs) if node.args is not None else []
        if isinstance(node.name, c_ast.ID) and any(_is_braced(a) for a in args) \
                and node.name.name in self.functions and scope.lookup(node.name.name) is None:
            fn = self.functions[node.name.name]
            if len(args) == len(fn.params):
                typed = [self.braced(a, p, scope) for a, (_, p) in zip(args, fn.params, strict=True)]
                node = c_ast.FuncCall(node.name, c_ast.ExprList(typed, node.coord), node.coord)
        callee = self.callee_value(node.name, scope)
        if callee is None:
            return super().expr_FuncCall(node, scope)  # type: ignore[misc]
        args = list(node.args.exprs) if node.args is not None else []
        if callee.ctype.is_struct:
            values = [self.scalar(a, scope) for a in args]
            return self.operator_call("()", [callee, *values], node)
        if not callee.ctype.is_function_pointer:
            raise self.error(node, f"a {callee.ctype} is called as if it were a function",
                             "call of a non-function")
        return self.indirect_call(callee, args, node, scope)

    def callee_value(self, name: c_ast.Node, scope: Scope) -> CExpr | None:
        """What a call calls when it is a value (a pointer or an object); None for a name
        the usual call path resolves (a function, a template, a builtin, ``obj.method``)."""
        if isinstance(name, c_ast.StructRef):
            return None
        if isinstance(name, c_ast.ID):
            var = scope.lookup(name.name)
            if var is None or (var.kind not in ("reg", "struct")):
                return None
            ctype = var.ctype
            if not (ctype.is_struct or ctype.is_function_pointer):
                if ctype.dtype is None and not ctype.is_pointer:
                    return None  # a reference or other special variable: the usual path says
                raise self.error(name, f"'{name.name}' is a {ctype}, not a function", "call of "
                                 "a non-function")
            return self.expr(name, scope)
        if isinstance(name, c_ast.UnaryOp) and name.op == "*":  # (*f)(x) is f(x)
            inner = self.expr(name.expr, scope)
            if inner.ctype.is_function_pointer:
                return inner
        return self.expr(name, scope)

    def indirect_call(self, callee: CExpr, arg_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                      scope: Scope) -> CExpr:
        assert callee.ctype.signature is not None
        ret, params = callee.ctype.signature
        if len(arg_nodes) != len(params):
            raise self.error(node, f"a call through a {callee.ctype} takes {len(params)} "
                             f"arguments, not {len(arg_nodes)}", "argument count")
        args = [self.assign_convert(self.scalar(a, scope), p, a).ev
                for a, p in zip(arg_nodes, params, strict=True)]
        target, table, site = callee.ev, self.numbered, self.site(node)

        def invoke(fr: Frame, m: Mask, number: int, values: list[Any]) -> Any:
            mc = fr.mc
            index = number - FUNCTION_BASE
            if not 0 <= index < len(table):
                what = "a null" if number == 0 else "an invalid"
                raise fault(mc, site, f"call through {what} function pointer", tuple(m.idx[:32]))
            fn = table[index]
            if fn.body is None:
                raise fault(mc, site, f"{fn.name} is declared but never defined")
            frame = Frame(mc, fn.nslots)
            for i, v in enumerate(values):
                frame.v[i] = v
            run_body(fn, frame, m, site)
            if ret is ct.VOID:
                return None
            if frame.retval is None:
                return ret.dtype.type(0) if ret.dtype is not None else np.int64(0)
            return frame.retval

        def call(fr: Frame, m: Mask) -> Any:
            numbers = target(fr, m)
            values = [a(fr, m) for a in args]
            if np.ndim(numbers) == 0:
                return invoke(fr, m, int(numbers), values)
            result = None
            for number in np.unique(numbers[m.idx]):  # lanes calling one function run together
                part = m.where(numbers == number)
                value = invoke(fr, part, int(number), values)
                if value is not None:
                    result = value if result is None else np.where(part.bits, value, result)
            return result
        return CExpr(ret, call, False)


def _unresolved(fr: Frame, m: Mask) -> Any:
    raise AssertionError("an overloaded function's name is converted before it runs")


class TypedValue(c_ast.Node):
    """An expression already compiled (a braced list given its type), in the tree."""

    __slots__ = ("__weakref__", "coord", "value")
    attr_names = ()

    def __init__(self, value: CExpr, coord: Any = None) -> None:
        self.value = value
        self.coord = coord

    def children(self) -> tuple:
        return ()


def _is_braced(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
        and node.name.name == BRACED


def _null_constant(value: CExpr) -> bool:
    """``0``, ``NULL`` or ``nullptr``: what converts to any pointer type."""
    if value.ctype.is_integer:
        return value.const is not None and int(value.const) == 0
    return value.ev is null_pointer
