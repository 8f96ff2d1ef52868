"""Compiler support for aggregates: structs, CUDA vector types, member functions and operators.

:class:`AggregateCompiler` is a mixin of :class:`~gpulab.simt.compiler.Compiler`; the compiler
calls into it at a few hooks (a struct type, a struct-typed declaration, parameter, member
access, assignment, return, call, operator). Struct values are tuples of leaf values
(:mod:`gpulab.simt.structmem`), so scalar code paths never see them and stay as fast as before.

Member functions reach the compiler as free functions written by :mod:`gpulab.simt.structs`;
:meth:`AggregateCompiler.adopt_member_functions` gives each its C++ meaning before the program
is compiled: a method or constructor gets a first parameter ``this`` (the object, by value), a
member operator too, and each is filed under its struct and name (an overload set). A call
``obj.f(args)`` passes the object as ``this`` and, for a non-const method, copies the final
``this`` back into the object (copy-in/copy-out: the same as C++'s ``this`` pointer unless the
method also reaches the object through another pointer, which is not modelled).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .builtins_ import BUILTINS
from .ctypes_ import CType
from .errors import CompileError, KernelFault
from .layout import VECTOR_TYPES, builtin_struct, numpy_dtype, struct_type
from .machine import Mask
from .regarrays import register_element, value_element
from .structmem import StructRegLV, leaf_range, memory_struct, register_struct, select, zero_value
from .structs import MemberInfo, StructTable
from .symbols import Function, Scope, Var, is_const_declarator, run_body
from .values import CExpr, Frame, LValue, MemLV, VarLV, truth

MAX_LOCAL_BYTES = 512 * 1024  # CUDA's limit of local memory per thread

if TYPE_CHECKING:
    from pycparser.c_ast import Node

    from .machine import Site
    from .registers import Visible

Value = Any


class AggregateCompiler:
    """Struct types and values for :class:`~gpulab.simt.compiler.Compiler` (a mixin)."""

    if TYPE_CHECKING:  # what the mixin uses of Compiler
        functions: dict[str, Function]
        current: Function | None
        stpl: Any  # struct_instances.StructInstances
        local_bytes: int

        def error(self, node: Node | None, message: str, construct: str = "") -> CompileError: ...
        def position(self, node: Node | None) -> tuple[int | None, int | None]: ...
        def site(self, node: Node) -> Site: ...
        def register_var(self, name: str, ctype: CType) -> Var: ...
        def visible_registers(self, scope: Scope) -> tuple[int, Visible]: ...
        def resolve_type(self, node: Node) -> CType: ...
        def unsupported(self, node: Node) -> CompileError: ...
        def expr(self, node: Node, scope: Scope) -> CExpr: ...
        def scalar(self, node: Node, scope: Scope) -> CExpr: ...
        def assign_convert(self, value: CExpr, dst: CType, node: Node) -> CExpr: ...
        def memory_ref(self, addr: CExpr, ctype: CType, node: Node) -> CExpr: ...

    def init_aggregates(self, table: StructTable | None) -> None:
        self.struct_table = table or StructTable()
        self.held_struct_bytes = 0  # struct variables' bytes, counted with thread-local arrays
        self.structs: dict[str, CType] = {}
        self.member_info: dict[str, MemberInfo] = {}  # function name -> what it was in C++
        self.overloads: dict[tuple[str, str, str], list[str]] = {}  # (kind, owner, name) -> functions
        self.trivial_default: set[str] = set()  # structs whose default constructor is empty
        self.default_args: dict[str, list[c_ast.Node | None]] = {}  # function -> per parameter
        self.subscript_accessors: dict[str, str] = {}  # operator[] returning member[index] -> member

    # ------------------------------------------------------------------ types
    def struct_type(self, node: c_ast.Struct, declname: str | None = None) -> CType:
        """The type a ``struct`` specifier names or defines."""
        builtin = builtin_struct(node.name or "")
        if builtin is not None:
            return builtin
        if node.decls is None:
            known = self.structs.get(node.name or "")
            if known is None:
                raise self.error(node, f"struct {node.name} is declared but never defined",
                                 "incomplete struct")
            return known
        if node.name and node.name in self.structs:
            raise self.error(node, f"struct {node.name} is defined twice", "struct redefinition")
        members: list[tuple[str, CType]] = []
        for d in node.decls:
            members.append((self.member_declaration(d, node, [n for n, _ in members]),
                            self.resolve_type(d.type)))
            if members[-1][1] is ct.VOID:
                raise self.error(d, "a struct member cannot have type void", "void member")
        tag = node.name or declname or "<anonymous>"
        t = struct_type(tag, members)
        if node.name:
            self.structs[node.name] = t
        return t

    def member_declaration(self, d: c_ast.Node, node: c_ast.Struct, seen: list[str]) -> str:
        if not isinstance(d, c_ast.Decl) or d.name is None:
            raise self.error(d, "anonymous members (unnamed nested structs or unions) are not "
                             "supported by the emulator", "anonymous struct member")
        if d.bitsize is not None:
            raise self.error(d, "bit-fields are not supported by the emulator", "bit-field")
        if isinstance(d.type, c_ast.FuncDecl):
            raise self.error(d, "function pointers are not supported by the emulator",
                             "function pointer member")
        if d.name in seen:
            raise self.error(d, f"struct {node.name or ''} has two members named '{d.name}'",
                             "duplicate member")
        return str(d.name)

    def memory_dtype(self, elem: CType) -> np.dtype | None:
        """numpy dtype of an element of a ``__shared__`` or local array (None: not storable)."""
        if elem.layout is not None:
            return numpy_dtype(elem)
        return elem.dtype

    def check_memory_struct(self, node: c_ast.Decl, elem: CType, space: str) -> None:
        """A struct with constructors in a ``__shared__`` variable or an array needs a default
        constructor. CUDA runs none for ``__shared__`` variables (NVCC warns that dynamic
        initialization is not supported), and neither does the emulator; for a thread-local
        array C++ would run it per element, which the emulator does only when it is empty."""
        ctors = self.overloads.get(("ctor", elem.name, elem.name), []) if elem.layout else []
        if not ctors:
            return
        if not any(self.callable_without_arguments(n) for n in ctors):
            raise self.error(node, f"struct {elem.name} has no default constructor, so it cannot "
                             f"be declared without arguments here", "no default constructor")
        if space == "local" and elem.name not in self.trivial_default:
            raise self.error(node, f"arrays of struct {elem.name} whose default constructor is "
                             "not empty are not supported by the emulator",
                             "constructor of an array element")

    def callable_without_arguments(self, name: str) -> bool:
        declared = len(self.functions[name].params) - 1  # less 'this'
        defaults = self.member_info[name].defaults
        return declared == 0 or (len(defaults) == declared and None not in defaults)

    # ------------------------------------------------------------------ member functions
    def adopt_member_functions(self, ast: c_ast.FileAST) -> None:
        """Rename the lowered member functions and give methods their ``this`` parameter."""
        for ext in ast.ext:
            decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
            if not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.FuncDecl):
                continue
            coord = decl.coord
            info = self.struct_table.lookup(decl.name, coord.line if coord else None,
                                            coord.column if coord else None)
            if info is None:
                continue
            declared = decl.type.args.params if decl.type.args else []
            if isinstance(ext, c_ast.FuncDef) and info.kind == "ctor" and not ext.body.block_items \
                    and (not declared or (len(info.defaults) == len(declared) and None not in info.defaults)):
                self.trivial_default.add(info.owner or "")  # an empty default constructor
            accessor = _accessed_member(ext, declared) if info.name == "[]" else None
            if info.owner is not None:
                self.add_this_parameter(decl, info)
            name = self.member_function_name(info, decl)
            decl.name = name
            if accessor is not None:
                self.subscript_accessors[name] = accessor
            self.member_info[name] = info
            if info.defaults:
                lead: list[c_ast.Node | None] = [None] if info.owner is not None else []
                self.default_args[name] = lead + [None if d is None else self.parse_default(d, decl)
                                                  for d in info.defaults]

    def parse_default(self, text: str, decl: c_ast.Decl) -> c_ast.Node:
        """A default argument's expression (evaluated at each call, as C++ does)."""
        from pycparser import c_parser
        try:
            ast = c_parser.CParser().parse(f"void f(void) {{ ({text}); }}")
        except Exception:
            raise self.error(decl, f"the default argument '{text}' is not supported by the "
                             "emulator", "default argument") from None
        node = ast.ext[0].body.block_items[0]
        for n in _walk(node):
            n.coord = decl.coord  # errors point at the function
        return node

    def member_function_name(self, info: MemberInfo, decl: c_ast.Decl) -> str:
        base = {"method": f"{info.owner}::{info.name}", "ctor": f"{info.owner}::{info.name}",
                "operator": f"{info.owner + '::' if info.owner else ''}operator{info.name}",
                "conversion": f"{info.owner}::operator {info.name}"}[info.kind]
        key = ("operator" if info.kind == "operator" else info.kind,
               "" if info.kind == "operator" else str(info.owner),
               "" if info.kind == "conversion" else info.name)
        names = self.overloads.setdefault(key, [])
        line = decl.coord.line if decl.coord else 0
        name = base if not names else f"{base}@{line}"
        while name in names:
            name += "'"
        names.append(name)
        return name

    def add_this_parameter(self, decl: c_ast.Decl, info: MemberInfo) -> None:
        quals = ["const"] if info.const else []
        this = c_ast.Decl("this", quals, [], [], [],
                          c_ast.TypeDecl("this", quals, None, c_ast.IdentifierType([info.owner]),
                                         coord=decl.coord),
                          None, None, coord=decl.coord)
        fdecl = decl.type
        if fdecl.args is None:
            fdecl.args = c_ast.ParamList([this], coord=decl.coord)
            return
        params = fdecl.args.params
        if len(params) == 1 and isinstance(params[0], c_ast.Typename) \
                and self.resolve_type(params[0].type) is ct.VOID:
            params.clear()
        params.insert(0, this)

    # ------------------------------------------------------------------ registers
    def struct_register(self, name: str, ctype: CType, scope: Scope, const: bool = False,
                        line: int = 0) -> Var:
        """A struct variable: one register (and register-trace entry, ``name.leaf``) per leaf."""
        assert ctype.layout is not None
        first = -1
        for leaf in ctype.layout.leaves:
            v = self.register_var(f"{name}.{leaf.path}", leaf.ctype)
            v.const = const
            scope.names[f"{name}.{leaf.path}"] = v  # shown by the register trace; not a C name
            first = v.slot if first < 0 else first
        var = Var("struct", ctype, first, const=const, line=line)
        scope.names[name] = var
        return var

    def check_held_struct(self, ctype: CType, node: Node | None, what: str) -> None:
        """A struct value a thread holds (a variable, a parameter, a temporary) takes one
        register per leaf: one over CUDA's 512 KiB of local memory per thread is refused at
        its line (a member array of 2**26 floats had run for minutes, then out of memory)."""
        if ctype.size > MAX_LOCAL_BYTES:
            raise self.error(node, f"{what} of type {ctype} takes {ctype.size:,} bytes, more than the "
                             f"{MAX_LOCAL_BYTES // 1024} KiB a thread may hold (CUDA's limit of local "
                             "memory per thread); keep it in global memory and use a pointer",
                             "struct size")

    def check_local_bytes(self, node: Node | None) -> None:
        """Thread-local arrays and struct variables together within CUDA's per-thread limit
        (counted over the whole program, as the emulator lays them out)."""
        if self.local_bytes + self.held_struct_bytes > MAX_LOCAL_BYTES:
            raise self.error(node, f"more than {MAX_LOCAL_BYTES // 1024} KiB of thread-local arrays "
                             "and struct variables (CUDA's limit per thread: a GPU refuses to "
                             "launch such a kernel)", "local memory size")

    def struct_param(self, name: str, ctype: CType, scope: Scope, const: bool,
                     node: Node | None = None) -> None:
        """A struct parameter; a method's ``this`` also makes the members visible by name."""
        self.check_held_struct(ctype, node, f"parameter '{name}'")
        var = self.struct_register(name, ctype, scope, const)
        fn = self.current
        if name != "this" or fn is None or fn.name not in self.member_info:
            return
        assert ctype.layout is not None
        for member in ctype.layout.members:
            first, _ = leaf_range(ctype.layout, member.name)
            if member.ctype.is_struct:
                scope.names[member.name] = Var("struct", member.ctype, var.slot + first, const=const)
            elif not member.ctype.is_array:
                scope.names[member.name] = scope.names[f"this.{member.name}"]

    def struct_variable(self, var: Var) -> CExpr:
        return register_struct(var.slot, var.ctype, var.const)

    def declare_struct(self, node: c_ast.Decl, ctype: CType, scope: Scope):
        """``T v;``, ``T v = expr;``, ``T v = {...};`` (also ``T v(args)``/``T v{args}``)."""
        coord = node.coord
        paren = coord is not None and (coord.line, coord.column) in self.struct_table.paren_decls
        init = self.struct_initializer(node.init, ctype, node, scope, paren)
        self.held_struct_bytes += ctype.size
        self.check_local_bytes(node)
        var = self.struct_register(node.name, ctype, scope, is_const_declarator(node.type),
                                   self.position(node)[0] or 0)
        start, end = var.slot, var.slot + len(ctype.layout.leaves)  # type: ignore[union-attr]
        site = self.site(node)
        scope_id, visible = self.visible_registers(scope)
        ev = init.ev
        if node.init is None and init.const is not None:  # no initializer: like a scalar, no step
            zero = init.const

            def run_plain(fr: Frame, m: Mask) -> Mask:
                fr.v[start:end] = zero
                return m
            return run_plain

        def run(fr: Frame, m: Mask) -> Mask:
            mc = fr.mc
            mc.step(m, site)
            fr.v[start:end] = ev(fr, m)
            if mc.registers is not None:
                mc.registers.record(mc, fr.register_shadow(), fr.v, m.bits, scope_id, visible)
            return m
        return run

    # ------------------------------------------------------------------ initializers
    def struct_initializer(self, init: c_ast.Node | None, ctype: CType, node: c_ast.Node,
                           scope: Scope, paren: bool) -> CExpr:
        """The value a struct starts with: default, copy, constructor or aggregate."""
        self.check_held_struct(ctype, node, "a struct value")
        has_ctor = bool(self.overloads.get(("ctor", ctype.name, ctype.name)))
        if init is None:
            if has_ctor:
                return self.construct(ctype, [], node)
            zero = zero_value(ctype)
            return CExpr(ctype, lambda fr, m: zero, True, zero)
        if not isinstance(init, c_ast.InitList):
            return self.assign_convert(self.scalar(init, scope), ctype, init)
        items = list(init.exprs)
        if len(items) == 1 and not isinstance(items[0], c_ast.InitList):
            only = self.scalar(items[0], scope)
            if only.ctype == ctype:
                return only  # T v(other), T v{other}: a copy
            if has_ctor:
                return self.construct(ctype, [only], node)
        if has_ctor:
            return self.construct(ctype, [self.scalar(e, scope) for e in items], node)
        if paren and items:
            raise self.error(node, f"struct {ctype} has no constructor; initialize it with "
                             "braces {...} (C++17 has no parenthesized aggregate initialization)",
                             "constructor call")
        return self.aggregate(init, ctype, scope)

    def aggregate(self, init: c_ast.InitList, ctype: CType, scope: Scope) -> CExpr:
        """C aggregate initialization: members in order, each from a braced list, a value of
        its own struct type or (brace elision) the next items; members left over are zero."""
        parts = self.aggregate_fill(list(init.exprs), ctype, scope)

        def run(fr: Frame, m: Mask) -> tuple:
            out: tuple = ()
            for part in parts:
                out += part(fr, m)
            return out
        return CExpr(ctype, run, False)

    def aggregate_fill(self, items: list, ctype: CType, scope: Scope) -> list[Callable]:
        """Leaf-tuple closures of a whole braced list ``items`` for ``ctype``."""
        parts: list[Callable] = []
        pos = 0
        for sub in _parts_of(ctype):
            more, pos = self.aggregate_parts(items, pos, sub, scope)
            parts += more
        if pos < len(items):
            raise self.error(items[pos], f"too many initializers for {ctype}", "struct initializer")
        return parts

    def aggregate_parts(self, items: list, pos: int, ctype: CType,
                        scope: Scope) -> tuple[list[Callable], int]:
        """Leaf-tuple closures for one member of type ``ctype`` from ``items[pos:]``."""
        item = items[pos] if pos < len(items) else None
        if isinstance(item, c_ast.NamedInitializer):
            raise self.unsupported(item)
        if ctype.layout is None and not ctype.is_array:
            if item is None:
                zero = (ctype.dtype.type(0) if ctype.dtype is not None else np.int64(0),)
                return [lambda fr, m: zero], pos
            if isinstance(item, c_ast.InitList):  # braces around a scalar
                if len(item.exprs) != 1:
                    raise self.error(item, "a scalar takes one initializer", "struct initializer")
                item = item.exprs[0]
            ev = self.assign_convert(self.scalar(item, scope), ctype, item).ev
            return [lambda fr, m: (ev(fr, m),)], pos + 1
        if isinstance(item, c_ast.InitList):
            return self.aggregate_fill(list(item.exprs), ctype, scope), pos + 1
        if item is not None and ctype.layout is not None:
            e = self.scalar(item, scope)
            if e.ctype == ctype:
                return [e.ev], pos + 1
        parts: list[Callable] = []
        for sub in _parts_of(ctype):  # brace elision: the members take the next items
            more, pos = self.aggregate_parts(items, pos, sub, scope)
            parts += more
        return parts, pos

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral, scope: Scope) -> CExpr:
        """``(T){...}`` — what the lowering makes of ``T(args)`` and ``T{args}``."""
        ctype = self.resolve_type(node.type)
        if ctype.layout is None:
            raise self.unsupported(node)
        coord = node.coord
        paren = coord is not None and (coord.line, coord.column) in self.struct_table.paren_literals
        return self.struct_initializer(node.init, ctype, node, scope, paren)

    # ------------------------------------------------------------------ members
    def member_access(self, node: c_ast.StructRef, scope: Scope) -> CExpr:
        """``s.f``, ``p->f``, ``this->f``."""
        name = node.field.name
        if node.type == "->" and not self.is_this(node.name, scope):
            ptr = self.scalar(node.name, scope)
            pointee = ptr.ctype.pointee
            if not ptr.ctype.is_pointer or pointee is None or pointee.layout is None:
                raise self.error(node, f"'->{name}' needs a pointer to a struct, not a {ptr.ctype}",
                                 "member access")
            base = memory_struct(ptr, pointee, self.site(node))
        else:
            base = self.expr(node.name, scope)
        lay = base.ctype.layout
        if lay is None:
            raise self.error(node, f"'.{name}' needs a struct, not a {base.ctype}", "member access")
        member = lay.member(name)
        static = self.stpl.static_member(base.ctype, name) if member is None else None
        if static is not None:
            return static  # obj.size: a static constexpr member of a struct template
        if member is None:
            raise self.error(node.field, f"struct {base.ctype} has no member named '{name}'",
                             f"member {name}")
        lv = base.lv
        if isinstance(lv, MemLV):  # in memory: the member's own address
            addr_ev, offset = lv.addr.ev, np.int64(member.offset)
            addr = CExpr(ct.pointer_to(member.ctype), lambda fr, m: addr_ev(fr, m) + offset,
                         lv.addr.pure)
            return self.memory_ref(addr, member.ctype, node)
        first, end = leaf_range(lay, name)
        if member.ctype.is_array:
            raise self.error(node, f"the array member '{name}' of a struct held in registers "
                             "cannot be used by the emulator (keep the struct in memory: an "
                             "array or a pointer)", "array member of a register struct")
        if isinstance(lv, StructRegLV) or (lv is None and base.pure and self.is_register(node.name, scope)):
            slot = (lv.slot if isinstance(lv, StructRegLV) else self.register_slot(node.name, scope)) + first
            if member.ctype.layout is not None:
                return register_struct(slot, member.ctype, lv is None)
            return CExpr(member.ctype, lambda fr, m: fr.v[slot], True, None,
                         VarLV(slot, member.ctype) if lv is not None else None)
        ev = base.ev
        if member.ctype.layout is not None:
            return CExpr(member.ctype, lambda fr, m: ev(fr, m)[first:end], base.pure)
        return CExpr(member.ctype, lambda fr, m: ev(fr, m)[first], base.pure)

    def array_member_element(self, node: c_ast.ArrayRef, scope: Scope) -> CExpr | None:
        """``s.arr[i]`` of a struct held in registers (None: not that; the usual path)."""
        ref = node.name
        if isinstance(ref, c_ast.ID):  # arr[i] in a member function: this->arr[i]
            this = scope.lookup("this") if scope.lookup(ref.name) is None else None
            if this is None or this.kind != "struct" or this.ctype.layout is None \
                    or this.ctype.layout.member(ref.name) is None:
                return None
            ref = c_ast.StructRef(c_ast.ID("this", coord=ref.coord), "->", ref, coord=ref.coord)
            node = c_ast.ArrayRef(ref, node.subscript, coord=node.coord)
        if not isinstance(ref, c_ast.StructRef) or (ref.type == "->" and not self.is_this(ref.name, scope)):
            return None
        base = self.expr(ref.name, scope)
        lay = base.ctype.layout
        member = lay.member(ref.field.name) if lay is not None else None
        lv = base.lv
        if lay is None or member is None or not member.ctype.is_array \
                or not (lv is None or isinstance(lv, StructRegLV)):
            return None  # in memory (its own path), or through a reference (refused there)
        elem = member.ctype.pointee
        assert elem is not None
        if elem.layout is not None or elem.is_array:
            raise self.error(node, f"the array member '{ref.field.name}' of a struct held in registers "
                             "holds structs or arrays; the emulator indexes arrays of scalars there "
                             "only (keep the struct in memory: an array or a pointer)",
                             "array member of a register struct")
        index = self.scalar(node.subscript, scope)
        if not index.ctype.is_integer:
            raise self.error(node.subscript, "subscripts need an integer", "subscript")
        first, _ = leaf_range(lay, ref.field.name)
        what = f"{base.ctype}::{ref.field.name}"
        iev, n, site = index.ev, member.ctype.length, self.site(node)
        if isinstance(lv, StructRegLV) or (lv is None and base.pure and self.is_register(ref.name, scope)):
            slot = (lv.slot if isinstance(lv, StructRegLV) else self.register_slot(ref.name, scope)) + first
            return register_element(slot, n, elem, iev, what, site, lv is not None)
        return value_element(base.ev, first, n, elem, iev, what, site)

    def subscript_operator(self, node: c_ast.ArrayRef, obj: CExpr, scope: Scope) -> CExpr:
        """``obj[i]`` through the struct's ``operator[]``. One that returns ``member[index]``
        (by reference, as ``T& operator[](int i) { return payload[i]; }`` does) is read as
        ``obj.member[i]``, which can also be assigned; any other is called for its value."""
        names = [n for n in self.overloads.get(("operator", "", "[]"), [])
                 if self.member_info[n].owner == obj.ctype.name]
        members = {self.subscript_accessors.get(n) for n in names}
        if names and len(members) == 1 and None not in members:
            member = c_ast.ID(members.pop(), coord=node.coord)
            return self.expr(c_ast.ArrayRef(c_ast.StructRef(node.name, ".", member, coord=node.coord),
                                            node.subscript, coord=node.coord), scope)
        return self.operator_call("[]", [obj, self.scalar(node.subscript, scope)], node)

    def is_this(self, node: c_ast.Node, scope: Scope) -> bool:
        if not isinstance(node, c_ast.ID) or node.name != "this":
            return False
        var = scope.lookup("this")
        return var is not None and var.kind == "struct"

    def is_register(self, node: c_ast.Node, scope: Scope) -> bool:
        """A const struct variable (its value has no lvalue, but its slots are known)."""
        return self.register_slot(node, scope) >= 0

    def register_slot(self, node: c_ast.Node, scope: Scope) -> int:
        if isinstance(node, c_ast.ID):
            var = scope.lookup(node.name)
            if var is not None and var.kind == "struct":
                return var.slot
        return -1

    # ------------------------------------------------------------------ conversions
    def struct_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr:
        """Assignment/initialization/argument conversion involving a struct."""
        if value.ctype == dst:
            return value
        if dst.layout is not None and value.ctype.layout is None:
            ctors = self.overloads.get(("ctor", dst.name, dst.name), [])
            usable = [n for n in ctors if not self.member_info[n].explicit]
            if usable:  # a converting constructor, if one takes this value
                try:
                    return self.construct(dst, [value], node, usable)
                except CompileError:
                    pass
        if value.ctype.layout is not None and dst.layout is None:
            converted = self.conversion_operator(value, dst, node)
            if converted is not None:
                return converted
        raise self.error(node, f"cannot convert {value.ctype} to {dst}", "conversion")

    def conversion_operator(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr | None:
        """``T* p = obj;`` through the struct's ``operator T*()`` (the non-const one first)."""
        names = self.overloads.get(("conversion", value.ctype.name, ""), [])
        fitting = [n for n in names if self.functions[n].ret == dst]
        if not fitting:
            return None
        fitting.sort(key=lambda n: self.member_info[n].const)
        return self.call_function(self.functions[fitting[0]], [value], node)

    # ------------------------------------------------------------------ calls
    def construct(self, ctype: CType, args: list[CExpr], node: c_ast.Node,
                  candidates: list[str] | None = None) -> CExpr:
        """A constructor call on a fresh (zero) object; the value is the constructed object."""
        self.check_held_struct(ctype, node, "a struct value")
        names = candidates if candidates is not None else \
            self.overloads.get(("ctor", ctype.name, ctype.name), [])
        zero = zero_value(ctype)
        this = CExpr(ctype, lambda fr, m: zero)
        full = [this, *args]  # resolve_overload appends default arguments
        fn = self.resolve_overload(names, full, node, f"constructor {ctype.name}")
        return self.call_function(fn, full, node, result="this")

    def resolve_overload(self, names: list[str], args: list[CExpr], node: c_ast.Node,
                         what: str) -> Function:
        """The function of an overload set the arguments select (exact matches win); its
        default arguments are appended to ``args``."""
        scored: list[tuple[int, str]] = []
        for name in names:
            params = self.functions[name].params
            defaults = self.default_args.get(name, [])
            needed = next((i for i, d in enumerate(defaults) if d is not None), len(params))
            if needed <= len(args) <= len(params):
                score = _match_score(params[:len(args)], args)
                if score is not None:
                    scored.append((score, name))
        if not scored:
            types = [str(_shown_type(a.ctype)) for a in args]
            if what.startswith("operator"):
                raise self.error(node, f"no {what} is defined for {' and '.join(types)}", what)
            raise self.error(node, f"no {what} takes ({', '.join(types)})", f"call to {what}")
        scored.sort()
        if len(scored) > 1 and scored[0][0] == scored[1][0]:
            scored = self.const_tie_break(scored, args[0] if args else None)
        if len(scored) > 1 and scored[0][0] == scored[1][0]:
            raise self.error(node, f"the call to {what} is ambiguous ({scored[0][1]} or "
                             f"{scored[1][1]})", f"ambiguous call to {what}")
        fn = self.functions[scored[0][1]]
        defaults = self.default_args.get(fn.name, [])
        args.extend(self.scalar(d, Scope()) for d in defaults[len(args):] if d is not None)
        return fn

    def const_tie_break(self, scored: list[tuple[int, str]], obj: CExpr | None) -> list[tuple[int, str]]:
        """``get()`` and ``get() const`` of one struct: C++ calls the const one on a const
        object (or a temporary the emulator cannot write back) and the other on the rest."""
        tied = [name for score, name in scored if score == scored[0][0]]
        infos = [self.member_info.get(name) for name in tied]
        if len(tied) != 2 or obj is None or any(i is None or i.kind != "method" for i in infos) \
                or infos[0].const == infos[1].const:  # type: ignore[union-attr]
            return scored
        want_const = obj.lv is None or getattr(obj.lv, "const", False)
        pick = tied[0] if infos[0].const == want_const else tied[1]  # type: ignore[union-attr]
        return [(scored[0][0], pick)]

    def call_function(self, fn: Function, args: list[CExpr], node: c_ast.Node,
                      result: str = "return", write_back: LValue | None = None) -> CExpr:
        """Call a function with struct parameters or result. ``result="this"`` gives the
        final value of the first parameter (a constructed object); ``write_back`` stores it
        into that lvalue (a non-const method's object), whose value is then the argument."""
        if len(args) != len(fn.params):
            raise self.error(node, f"{fn.name} takes {len(fn.params)} arguments, not {len(args)}",
                             "argument count")
        evs = [self.assign_convert(a, ptype, node).ev for a, (_, ptype) in zip(args, fn.params, strict=True)]
        spans = _parameter_spans(fn)
        site = self.site(node)
        this_end = spans[0][1] if spans else 0
        ret = fn.ret

        def call(fr: Frame, m: Mask) -> Value:
            mc = fr.mc
            if fn.body is None:
                raise KernelFault(f"{mc.kernel}: line {site.line}: {fn.name} is declared but "
                                  "never defined", mc.kernel, site.line)
            handle = write_back.prepare(fr, m) if write_back is not None else None
            callee = Frame(mc, fn.nslots)
            v = callee.v
            for k, (ev, (start, end)) in enumerate(zip(evs, spans, strict=True)):
                value = write_back.get(fr, m, handle) if k == 0 and write_back is not None \
                    else ev(fr, m)
                if end - start == 1 and not isinstance(value, tuple):
                    v[start] = value
                else:
                    v[start:end] = value
            run_body(fn, callee, m, site)
            if write_back is not None:
                write_back.set(fr, m, handle, tuple(v[0:this_end]))
            if result == "this":
                return tuple(v[0:this_end])
            if ret is ct.VOID:
                return None
            if callee.retval is None:
                return zero_value(ret) if ret.layout is not None else \
                    (ret.dtype.type(0) if ret.dtype is not None else np.int64(0))
            return callee.retval
        ctype = args[0].ctype if result == "this" else ret
        return CExpr(ctype, call, False)

    def struct_device_call(self, fn: Function, arg_nodes: list[c_ast.Node],
                           node: c_ast.FuncCall, scope: Scope) -> CExpr:
        """A call by name of a function with struct parameters or a struct result."""
        if fn.is_kernel:
            raise self.error(node, "kernels cannot be called from device code (dynamic "
                             "parallelism is not supported)", "kernel call")
        return self.call_function(fn, [self.scalar(a, scope) for a in arg_nodes], node)

    def method_call(self, node: c_ast.FuncCall, scope: Scope) -> CExpr:
        """``obj.f(args)`` / ``ptr->f(args)``: a member function of a struct."""
        ref = node.name
        assert isinstance(ref, c_ast.StructRef)
        if ref.type == "->" and not self.is_this(ref.name, scope):
            ptr = self.scalar(ref.name, scope)
            pointee = ptr.ctype.pointee
            if not ptr.ctype.is_pointer or pointee is None or pointee.layout is None:
                raise self.error(node, f"'->{ref.field.name}()' needs a pointer to a struct",
                                 "member function call")
            obj = memory_struct(ptr, pointee, self.site(ref))
        else:
            obj = self.expr(ref.name, scope)
        args = [self.scalar(a, scope) for a in (node.args.exprs if node.args else [])]
        return self.call_method(obj, ref.field.name, args, node)

    def call_method(self, obj: CExpr, name: str, args: list[CExpr], node: c_ast.Node) -> CExpr:
        if obj.ctype.layout is None:
            raise self.error(node, f"'.{name}()' needs a struct object, not a {obj.ctype}",
                             "member function call")
        names = self.overloads.get(("method", obj.ctype.name, name))
        if not names:
            member = obj.ctype.layout.member(name)
            what = "a data member, not a member function" if member is not None else "not a member"
            raise self.error(node, f"'{name}' is {what} of struct {obj.ctype}",
                             f"member function {name}")
        full = [obj, *args]  # resolve_overload appends default arguments
        fn = self.resolve_overload(names, full, node, f"{obj.ctype.name}::{name}")
        info = self.member_info[fn.name]
        write_back = None if info.const else obj.lv
        return self.call_function(fn, full, node, write_back=write_back)

    def implicit_method_call(self, node: c_ast.FuncCall, scope: Scope) -> CExpr | None:
        """``f(args)`` inside a member function calls the member ``f`` on ``this``."""
        fn = self.current
        info = self.member_info.get(fn.name) if fn is not None else None
        if info is None or info.owner is None or not isinstance(node.name, c_ast.ID) \
                or ("method", info.owner, node.name.name) not in self.overloads:
            return None
        var = scope.lookup("this")
        if var is None or var.kind != "struct":
            return None
        this = self.struct_variable(var)
        args = [self.scalar(a, scope) for a in (node.args.exprs if node.args else [])]
        return self.call_method(this, node.name.name, args, node)

    # ------------------------------------------------------------------ operators
    def operator_call(self, op: str, operands: list[CExpr], node: c_ast.Node) -> CExpr:
        """An operator with a struct operand: the overload its operand types select."""
        names = self.overloads.get(("operator", "", op), [])
        shown = " and ".join(str(_shown_type(o.ctype)) for o in operands)
        if not names:
            raise self.error(node, f"no operator{op} is defined for {shown}", f"operator{op}")
        fn = self.resolve_overload(names, operands, node, f"operator{op}")
        info = self.member_info[fn.name]
        modifies = (info.owner is not None and not info.const) or info.this_ref
        write_back = operands[0].lv if modifies else None
        return self.call_function(fn, operands, node, write_back=write_back)

    def struct_compound_assignment(self, node: c_ast.Assignment, lv: LValue,
                                   scope: Scope) -> CExpr:
        """``a op= b`` on a struct: its ``operator op=`` (C++ does not derive it from ``op``)."""
        target = self.expr(node.lvalue, scope)
        rhs = self.scalar(node.rvalue, scope)
        return self.operator_call(node.op, [CExpr(lv.ctype, target.ev, target.pure, None, lv), rhs],
                                  node)

    def struct_return(self, node: c_ast.Return, scope: Scope):
        fn = self.current
        assert fn is not None
        site = self.site(node)
        if node.expr is None:
            raise self.error(node, "this function must return a value", "missing return value")
        value = self.assign_convert(self.scalar(node.expr, scope), fn.ret, node.expr).ev

        def run(fr: Frame, m: Mask) -> Mask:
            fr.mc.step(m, site)
            v = value(fr, m)
            fr.retval = v if fr.retval is None else select(m.bits, v, fr.retval)
            fr.ret_bits = m.bits.copy() if fr.ret_bits is None else (fr.ret_bits | m.bits)
            return fr.mc.empty
        return run, True

    def struct_ternary(self, cond: CExpr, a: CExpr, b: CExpr, node: c_ast.Node) -> CExpr:
        if a.ctype != b.ctype:
            raise self.error(node, f"the branches of ?: have different types ({a.ctype} and "
                             f"{b.ctype})", "?: on structs")
        c, av, bv = truth(cond), a.ev, b.ev

        def run(fr: Frame, m: Mask) -> Value:
            cv = c(fr, m)
            if np.ndim(cv) == 0:
                return av(fr, m) if cv else bv(fr, m)
            mt, mf = m.where(cv), m.where_not(cv)
            x = av(fr, mt) if mt.count else None
            y = bv(fr, mf) if mf.count else None
            if x is None or y is None:
                return y if x is None else x
            return select(cv, x, y)
        return CExpr(a.ctype, run, False)


def _walk(node: c_ast.Node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


def _accessed_member(ext: c_ast.Node, params: list[c_ast.Node]) -> str | None:
    """``m`` when a member function's body is ``return m[p];`` (or ``this->m[p]``) with ``p``
    its one parameter: an ``operator[]`` that hands out a reference to an element."""
    body = ext.body.block_items if isinstance(ext, c_ast.FuncDef) else None
    if not body or len(body) != 1 or len(params) != 1 or not isinstance(body[0], c_ast.Return):
        return None
    ref = body[0].expr
    if not isinstance(ref, c_ast.ArrayRef) or not isinstance(ref.subscript, c_ast.ID) \
            or ref.subscript.name != getattr(params[0], "name", None):
        return None
    base = ref.name
    if isinstance(base, c_ast.StructRef) and isinstance(base.name, c_ast.ID) and base.name.name == "this":
        base = base.field
    return base.name if isinstance(base, c_ast.ID) else None


def _parts_of(ctype: CType) -> list[CType]:
    """Member types of a struct, element types of an array."""
    if ctype.layout is not None:
        return [m.ctype for m in ctype.layout.members]
    assert ctype.pointee is not None
    return [ctype.pointee] * ctype.length


def _parameter_spans(fn: Function) -> list[tuple[int, int]]:
    """Register slots [start, end) of each parameter (a struct takes one per leaf)."""
    spans, slot = [], 0
    for _, ptype in fn.params:
        n = len(ptype.layout.leaves) if ptype.layout is not None else 1
        spans.append((slot, slot + n))
        slot += n
    return spans


def _shown_type(t: CType) -> CType:
    return ct.as_value_type(t)


def _match_score(params: list[tuple[str, CType]], args: list[CExpr]) -> int | None:
    """0 for an exact match, more for each converted argument, None if not viable."""
    if len(params) != len(args):
        return None
    score = 0
    for (_, p), a in zip(params, args, strict=True):
        at = ct.as_value_type(a.ctype)
        if p.name in ("ref", "const ref") and p.pointee is not None:  # T&: binds to a T
            if p.name == "ref" and p.pointee != at:
                return None
            p = p.pointee
        if p.layout is not None or at.layout is not None:
            if p != at:
                return None
        elif p.is_pointer or at.is_pointer:
            if not (p.is_pointer and at.is_pointer):
                return None
            score += 0 if p == at else 1
        elif not (p.is_scalar and at.is_scalar):
            return None
        elif p != at:
            score += 1 if ct.promote(at) == p else 2
    return score


def needs_struct_call(fn: Function) -> bool:
    """Calls of this function pass or return structs (see ``call_function``)."""
    return fn.ret.layout is not None or any(p.layout is not None for _, p in fn.params)


# ---------------------------------------------------------------------- make_float4 & co
def _vector_maker(vtype: CType) -> Callable:
    assert vtype.layout is not None
    comps = [leaf.ctype for leaf in vtype.layout.leaves]

    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        name = node.name.name
        if len(args) != len(comps):
            raise comp.error(node, f"{name} takes {len(comps)} arguments, not {len(args)}",
                             f"call to {name}")
        evs = [comp.assign_convert(a, c, node).ev for a, c in zip(args, comps, strict=True)]
        return CExpr(vtype, lambda fr, m: tuple(e(fr, m) for e in evs),
                     all(a.pure for a in args))
    return handler


BUILTINS.update({f"make_{name}": _vector_maker(vtype) for name, vtype in VECTOR_TYPES.items()})
