"""Compile a pycparser AST of the CUDA C subset into a tree of Python closures.

The compiler is a visitor in pycparser's style: ``visit_If``, ``visit_For``, ... build,
once per kernel source, closures that run a statement for all lanes of a launch at once
under an execution mask. A statement closure has the signature ``run(frame, mask) ->
mask`` and returns the mask of lanes that carry on after it (lanes that executed
``break``, ``continue`` or ``return`` drop out); constructs reconverge at their end.
Expression closures are described in :mod:`gpulab.simt.values`.
What the compiler shares with its helpers (:class:`~.symbols.Var`, :class:`~.symbols.Scope`,
:class:`~.symbols.Function`, ...) is in :mod:`gpulab.simt.symbols`; :func:`~.translate.compile_source`
runs the whole way from source text.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .aggregates import AggregateCompiler, needs_struct_call
from .builtins_ import BUILTINS, POLYNOMIAL_FUNCTIONS
from .compile_printf import compile_printf
from .compile_switch import SwitchCompiler
from .coop_groups import CoopGroups, is_group
from .ctypes_ import CType
from .errors import CompileError, KernelFault
from .filescope import FileScope
from .fused import fma32, fma64
from .instantiate import Templates
from .machine import CONSTANT_BASE, CONSTANT_BYTES, LOCAL_BASE, SHARED_BASE, Mask, Site
from .preprocess import Preprocessed
from .registers import RegisterTable, Visible
from .struct_instances import StructInstances
from .structmem import memory_struct
from .structs import StructTable
from .symbols import Function, MemoryDecl, Program, Scope, Stmt, Var, is_const_declarator, run_body
from .values import CExpr, Frame, LValue, MemLV, VarLV, constant, converted, null_pointer, truth
from .work import FLOP_OPERATORS, FlopCounting

_PRELUDE_TYPEDEFS = {"bool", "size_t", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
                     "uint32_t", "int64_t", "uint64_t", "uint", "ushort", "ulong"}
_DIM_BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


def _int_div(a: Any, b: Any) -> Any:
    r = np.fmod(a, b)
    return (a - r) // b


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_,
    "|": operator.or_, "^": operator.xor,
}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}
_UNSUPPORTED = {
    "Goto": "goto statements", "Label": "labels", "Switch": "switch statements",
    "Case": "case labels", "Default": "default labels", "Struct": "structs",
    "Union": "unions", "Enum": "enums", "CompoundLiteral": "compound literals",
    "InitList": "initializer lists", "Typedef": "typedefs inside functions",
    "Pragma": "pragmas", "NamedInitializer": "designated initializers",
    "StaticAssert": "static assertions", "Alignas": "alignas", "EllipsisParam": "variadic functions",
    "FuncDecl": "function pointers",
}


class Compiler(AggregateCompiler, CoopGroups, SwitchCompiler, FlopCounting):
    """Compiles one preprocessed source; use :func:`~.translate.compile_source`."""

    def __init__(self, pre: Preprocessed, filename: str, structs: StructTable | None = None,
                 requests: tuple[str, ...] = ()) -> None:
        self.pre: Preprocessed = pre
        self.filename = filename
        self.functions: dict[str, Function] = {}
        self.memory: list[MemoryDecl] = []
        self.shared_bytes = 0
        self.local_bytes = 0
        self.constant_bytes = 0
        self.typedefs: dict[str, CType] = {}
        self.nslots = 0
        self.current: Function | None = None
        self.register_vars: list[tuple[str, CType]] = []
        self.scope_ids: dict[tuple[int, ...], int] = {}
        self.loop_depth = 0
        self.defined: dict[str, int] = {}  # function name -> line of its definition
        self.init_aggregates(structs)
        self.requests = requests  # template instances the launch asks for ("reduce<256>")
        self.file_scope = Scope()  # file-scope constants
        self.const_scope = self.file_scope  # ... and template arguments while instantiating
        self.local_scope: Scope | None = None  # the block a declaration's array sizes are read in
        self.files = FileScope(self)  # file-scope constants, extern __shared__
        self.tpl = Templates(self)  # function templates and their instances
        self.stpl = StructInstances(self)  # struct templates and their instances
        self.shared_by_function: dict[str, int] = {}  # static __shared__ bytes each function declares
        self.fused_lines: list[int] = []  # where an fma is: contracted products and fmaf/fma calls
        self.library_lines: list[int] = []  # where a math function of CUDA's (its own fmas) is called

    # ------------------------------------------------------------------ helpers
    def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError:
        line, col = self.position(node)
        return CompileError(message, line, col, construct or message)

    def position(self, node: c_ast.Node | None) -> tuple[int | None, int | None]:
        coord = getattr(node, "coord", None)
        if coord is None or coord.line is None:
            return None, None
        col = coord.column or 1
        return coord.line, self.pre.original_column(coord.line, col)

    def site(self, node: c_ast.Node) -> Site:
        line, col = self.position(node)
        if line is None:
            return Site(0, 0, 0)
        end = col or 1
        for child in _walk(node):
            cl, cc = self.position(child)
            if cl == line and cc is not None:
                width = len(getattr(child, "name", "") or getattr(child, "value", "") or "x") \
                    if isinstance(child, (c_ast.ID, c_ast.Constant)) else 1
                end = max(end, cc + width)
        return self.pre.anchor(Site(line, col or 1, end))

    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def register_var(self, name: str, ctype: CType) -> Var:
        """A new register variable (a slot, and an id for the register trace)."""
        self.register_vars.append((name, ctype))
        return Var("reg", ctype, self.new_slot(), var_id=len(self.register_vars) - 1)

    def visible_registers(self, scope: Scope) -> tuple[int, Visible]:
        """(scope id, (variable id, slot) pairs) of the register variables in scope."""
        seen: dict[str, Var] = {}
        s: Scope | None = scope
        while s is not None:
            for name, var in s.names.items():
                if name not in seen:
                    seen[name] = var
            s = s.parent
        pairs = tuple(sorted((v.var_id, v.slot) for v in seen.values() if v.kind == "reg" and v.var_id >= 0))
        ids = tuple(p[0] for p in pairs)
        return self.scope_ids.setdefault(ids, len(self.scope_ids)), pairs

    def register_table(self) -> RegisterTable:
        kinds = tuple("p" if t.is_pointer or t.dtype is None else t.dtype.kind for _, t in self.register_vars)
        sizes = tuple(8 if t.is_pointer or t.dtype is None else t.dtype.itemsize for _, t in self.register_vars)
        scopes = tuple(sorted(self.scope_ids, key=self.scope_ids.__getitem__))
        return RegisterTable(tuple(n for n, _ in self.register_vars),
                             tuple(str(t) for _, t in self.register_vars), kinds, sizes, scopes)

    # ------------------------------------------------------------------ types
    def resolve_type(self, node: c_ast.Node) -> CType:
        if isinstance(node, c_ast.TypeDecl):
            if isinstance(node.type, c_ast.Struct):
                return self.struct_type(node.type, node.declname)
            return self.resolve_type(node.type)
        if isinstance(node, c_ast.Typename):
            return self.resolve_type(node.type)
        if isinstance(node, c_ast.IdentifierType):
            names = node.names
            if len(names) == 1 and names[0] in self.typedefs:
                return self.typedefs[names[0]]
            if len(names) == 1 and names[0] in self.stpl.names:
                return self.stpl.resolve(names[0], node)  # Pair<float>
            if len(names) == 1 and names[0] in self.__dict__.get("cg_deferred", ()):
                return self.cg_deferred_type(node, names[0])  # thread_block_tile<TILE>
            t = ct.type_from_specifiers(names)
            if t is None:
                raise self.error(node, f"type '{' '.join(names)}' is not supported by the "
                                 "emulator", f"type {' '.join(names)}")
            return t
        if isinstance(node, c_ast.PtrDecl):
            return ct.pointer_to(self.resolve_type(node.type))
        if isinstance(node, c_ast.ArrayDecl):
            if node.dim is None:
                raise self.error(node, "arrays need a constant size", "unsized array")
            dim = self.expr(node.dim, self.local_scope or self.const_scope)
            if dim.const is None or not dim.ctype.is_integer or int(dim.const) <= 0:
                raise self.error(node.dim, "array sizes must be positive integer constants",
                                 "non-constant array size")
            return ct.array_of(self.resolve_type(node.type), int(dim.const))
        name = type(node).__name__
        raise self.error(node, f"{_UNSUPPORTED.get(name, name)} are not supported by the "
                         "emulator", _UNSUPPORTED.get(name, name))

    # ------------------------------------------------------------------ top level
    def compile(self, ast: c_ast.FileAST) -> Program:
        defs = []
        self.adopt_member_functions(ast)
        for ext in self.tpl.collect(self.stpl.collect(ast.ext)):
            if isinstance(ext, c_ast.Typedef) and self.cg_typedef(ext):
                continue  # a cooperative-groups type name (coop_groups.typedef_prelude)
            if isinstance(ext, c_ast.Typedef):
                if ext.name not in _PRELUDE_TYPEDEFS or ext.coord is None \
                        or ext.coord.line > 1 or ext.name in self.typedefs:
                    self.typedefs[ext.name] = self.resolve_type(ext.type)
                else:
                    self.typedefs[ext.name] = ct.type_from_specifiers([ext.name]) or ct.INT
            elif isinstance(ext, c_ast.FuncDef):
                self.check_function_definition(ext)
                self.declare_function(ext.decl, ext)
                defs.append(ext)
            elif isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl):
                self.declare_function(ext, None)
            elif isinstance(ext, c_ast.Decl) and ext.name is None and isinstance(ext.type, c_ast.Struct):
                self.struct_type(ext.type)  # a struct definition, not a variable
            elif isinstance(ext, c_ast.Decl) and ext.name is None and isinstance(ext.type, c_ast.Enum):
                self.resolve_type(ext.type)  # an enum definition: its enumerators become constants
            elif isinstance(ext, c_ast.StaticAssert):
                self.static_assertion(ext, self.const_scope)
            elif isinstance(ext, c_ast.Decl):
                self.files.declaration(ext)
            else:
                raise self.error(ext, f"{type(ext).__name__} at file scope is not supported",
                                 type(ext).__name__)
        self.tpl.instantiate_requests(self.requests)
        self.stpl.instantiate_explicit()  # template struct Pair<float>;
        for fdef in defs:
            self.compile_function(fdef)
        self.tpl.compile_instances()
        return Program(self.functions, self.memory, self.pre, self.shared_bytes,
                       self.local_bytes, self.register_table(),
                       {**self.structs, **{n: t for n, t in self.typedefs.items() if t.is_struct}},
                       self.tpl.definitions(), self.tpl.aliases, self.files.dynamic_shared,
                       self.files.dynamic_elements, tuple(sorted(set(self.fused_lines))),
                       tuple(sorted(set(self.library_lines))))

    def static_assertion(self, node: c_ast.StaticAssert, scope: Scope) -> None:
        """C's compiler has none; :class:`~.compiletime.CompileTimeMixin` checks them."""
        raise self.unsupported(node)

    def check_function_definition(self, fdef: c_ast.FuncDef) -> None:
        """C reads ``name { ... }`` (a name, then a block) as a function definition without
        a parameter list; it is a syntax error, most often a missing ';' after the name."""
        if isinstance(fdef.decl.type, c_ast.FuncDecl):
            return
        name = fdef.decl.name or "the declaration"
        raise self.error(fdef.decl, f"syntax error: a block {{ ... }} follows '{name}', which is "
                         "not a function (a function needs its parameter list, as in "
                         f"'void {name}()'); is a ';' missing after it?", "syntax")

    def declare_function(self, decl: c_ast.Decl, fdef: c_ast.FuncDef | None) -> None:
        fdecl = decl.type
        ret = self.resolve_type(fdecl.type)
        params: list[tuple[str, CType]] = []
        for p in (fdecl.args.params if fdecl.args else []):
            if isinstance(p, c_ast.ID):
                raise self.error(p, "parameters need types (K&R-style parameter lists are not "
                                 "supported)", "K&R parameter list")
            if isinstance(p, c_ast.EllipsisParam):
                raise self.error(p, "variadic functions are not supported", "variadic function")
            if isinstance(p.type, c_ast.ArrayDecl):  # float a[] is float* a
                ptype = ct.pointer_to(self.resolve_type(p.type.type))
            else:
                ptype = self.resolve_type(p.type)
            if ptype is ct.VOID:
                continue
            params.append((p.name or f"arg{len(params)}", ptype))
        is_kernel = decl.name in self.pre.global_functions
        if is_kernel and ret is not ct.VOID:
            raise self.error(decl, "a __global__ function must return void", "non-void kernel")
        if fdef is not None:
            if decl.name in self.defined:
                kind = "kernel" if is_kernel else "function"
                raise self.error(decl, f"{kind} '{decl.name}' is defined twice (first on line "
                                 f"{self.defined[decl.name]})", "redefinition")
            self.defined[decl.name] = self.position(decl)[0] or 0
        if decl.name not in self.functions or fdef is not None:
            self.functions[decl.name] = Function(decl.name, params, ret, is_kernel,
                                                 self.site(decl))

    def compile_function(self, fdef: c_ast.FuncDef) -> None:
        fn = self.functions[fdef.decl.name]
        self.current = fn
        self.nslots = 0
        self.loop_depth = 0
        scope = Scope(self.const_scope)
        const_params = {p.name for p in (fdef.decl.type.args.params if fdef.decl.type.args else [])
                        if isinstance(p, c_ast.Decl) and is_const_declarator(p.type)}
        for name, ptype in fn.params:
            if ptype.is_struct:
                self.struct_param(name, ptype, scope, name in const_params, fdef.decl)
                continue
            scope.names[name] = self.register_var(name, ptype)
            scope.names[name].const = name in const_params
        body, _ = self.visit(fdef.body, scope)
        fn.body = body
        fn.nslots = self.nslots
        self.current = None

    # ------------------------------------------------------------------ statements
    def visit(self, node: c_ast.Node, scope: Scope) -> tuple[Stmt, bool]:
        """Compile a statement; return (closure, may_jump)."""
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            return method(node, scope)
        if isinstance(node, (c_ast.Assignment, c_ast.FuncCall, c_ast.UnaryOp, c_ast.BinaryOp,
                             c_ast.TernaryOp, c_ast.ExprList, c_ast.Cast, c_ast.ID,
                             c_ast.Constant, c_ast.ArrayRef, c_ast.StructRef)):
            return self.expression_statement(node, scope), False
        raise self.unsupported(node)

    def unsupported(self, node: c_ast.Node) -> CompileError:
        name = type(node).__name__
        what = _UNSUPPORTED.get(name, f"'{name}' constructs")
        return self.error(node, f"{what} are not supported by the emulator", what)

    def expression_statement(self, node: c_ast.Node, scope: Scope) -> Stmt:
        e = self.expr(node, scope)
        site = self.site(node)
        kind = "stmt"
        if (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
                and node.name.name == "__syncthreads") or self.cg_is_block_sync(node):
            kind = "barrier"
        ev = e.ev
        scope_id, visible = self.visible_registers(scope)

        def run(fr: Frame, m: Mask) -> Mask:
            mc = fr.mc
            mc.step(m, site, kind)
            ev(fr, m)
            if mc.registers is not None:
                mc.registers.record(mc, fr.register_shadow(), fr.v, m.bits, scope_id, visible)
            return m
        return run

    def visit_EmptyStatement(self, node: c_ast.Node, scope: Scope) -> tuple[Stmt, bool]:
        return (lambda fr, m: m), False

    def visit_Compound(self, node: c_ast.Compound, scope: Scope) -> tuple[Stmt, bool]:
        inner = Scope(scope)
        compiled = [self.visit(item, inner) for item in (node.block_items or [])]
        stmts = [s for s, _ in compiled]
        jumps = any(j for _, j in compiled)
        if not jumps:
            def run_plain(fr: Frame, m: Mask) -> Mask:
                for s in stmts:
                    s(fr, m)
                return m
            return run_plain, False

        def run(fr: Frame, m: Mask) -> Mask:
            for s in stmts:
                m = s(fr, m)
                if m.count == 0:
                    return m
            return m
        return run, True

    def visit_DeclList(self, node: c_ast.DeclList, scope: Scope) -> tuple[Stmt, bool]:
        stmts = [self.visit(d, scope)[0] for d in node.decls]

        def run(fr: Frame, m: Mask) -> Mask:
            for s in stmts:
                s(fr, m)
            return m
        return run, False

    def visit_Decl(self, node: c_ast.Decl, scope: Scope) -> tuple[Stmt, bool]:
        if isinstance(node.type, c_ast.FuncDecl):
            raise self.error(node, "nested function declarations are not supported",
                             "nested function declaration")
        if "extern" in (node.storage or []):
            return self.files.extern_decl(node, scope), False
        self.local_scope = scope  # array sizes may name const locals declared before
        try:
            ctype = self.resolve_type(node.type)
        finally:
            self.local_scope = None
        if is_group(ctype):
            return self.cg_declare(node, ctype, scope), False
        if ctype is ct.VOID:
            raise self.error(node, "variables cannot have type void", "void variable")
        self.check_new_name(node, scope)
        if "static" in (node.storage or []):
            self.check_static_local(node)
            return self.declare_memory(node, ctype, scope, "shared"), False
        if ctype.is_array:
            return self.declare_memory(node, ctype, scope, "local"), False
        if ctype.is_struct:
            return self.declare_struct(node, ctype, scope), False
        init = self.initializer(node, ctype, scope)
        var = self.register_var(node.name, ctype)
        slot = var.slot
        scope.names[node.name] = var
        var.const = is_const_declarator(node.type)
        if var.const and init is not None and init.const is not None and ctype.is_integer:
            var.value = init.const
        var.line = self.position(node)[0] or 0
        site = self.site(node)
        scope_id, visible = self.visible_registers(scope)
        if init is None:
            zero = np.int64(0) if ctype.is_pointer or ctype.dtype is None else ctype.dtype.type(0)

            def run_plain(fr: Frame, m: Mask) -> Mask:
                fr.v[slot] = zero
                return m
            return run_plain, False
        ev = init.ev

        def run(fr: Frame, m: Mask) -> Mask:
            mc = fr.mc
            mc.step(m, site)
            fr.v[slot] = ev(fr, m)
            if mc.registers is not None:
                mc.registers.record(mc, fr.register_shadow(), fr.v, m.bits, scope_id, visible)
            return m
        return run, False

    def check_new_name(self, node: c_ast.Decl, scope: Scope) -> None:
        """C forbids declaring a name twice in one scope (an inner block may shadow it)."""
        previous = scope.names.get(node.name)
        if previous is not None:
            where = f" (first on line {previous.line})" if previous.line else " (as a parameter)"
            raise self.error(node, f"'{node.name}' is already declared in this scope{where}",
                             "redeclaration")

    def initializer(self, node: c_ast.Decl, ctype: CType, scope: Scope) -> CExpr | None:
        if node.init is None:
            return None
        if isinstance(node.init, c_ast.InitList):
            raise self.unsupported(node.init)
        return self.assign_convert(self.expr(node.init, scope), ctype, node.init)

    def check_static_local(self, node: c_ast.Decl) -> None:
        """The preprocessor writes ``__shared__`` as ``static``: a ``static`` the source spelled
        itself (one variable for the whole program) is outside the subset."""
        line = node.coord.line if node.coord is not None else 0
        text = self.pre.lines[line - 1] if 0 < line <= len(self.pre.lines) else ""
        if re.search(r"\bstatic\b", text) and "__shared__" not in text:
            raise self.error(node, f"static local variable '{node.name}' (one variable shared by every "
                             "thread of the program) is not supported by the emulator; use __shared__ "
                             "memory or a kernel argument", "static local variable")

    def constant_memory(self, node: c_ast.Decl) -> None:
        """A ``__constant__`` variable or array at file scope: data in constant memory, read by
        every thread, its initial values from the initializer (zeros without one), filled by the
        host before a launch (``launch(..., constants={name: values})``, the emulator's
        ``cudaMemcpyToSymbol``)."""
        ctype = self.resolve_type(node.type)
        elem, count = ctype, 1
        while elem.is_array:
            count *= elem.length
            elem = elem.pointee  # type: ignore[assignment]
        if elem.dtype is None:
            raise self.error(node, f"__constant__ '{node.name}' of type {elem} is not supported (numbers only)",
                             "__constant__ type")  # fmt: skip
        offset = self.constant_bytes
        self.constant_bytes = _align(offset + count * elem.dtype.itemsize, 16)
        if self.constant_bytes > CONSTANT_BYTES:
            raise self.error(node, "more than 64 KiB of __constant__ memory", "__constant__ size")
        init = None
        if node.init is not None:
            leaves = node.init.exprs if isinstance(node.init, c_ast.InitList) else [node.init]
            if len(leaves) > count:
                raise self.error(node.init, f"too many initializers for '{node.name}' ({count} elements)",
                                 "__constant__ initializer")  # fmt: skip
            init = np.zeros(count, elem.dtype)
            for index, leaf in enumerate(leaves):
                value = self.assign_convert(self.scalar(leaf, self.file_scope), elem, leaf)
                if value.const is None:
                    raise self.error(leaf, f"__constant__ '{node.name}': the initializer is not a "
                                     "compile-time constant", "__constant__ initializer")
                init[index] = value.const
        self.memory.append(MemoryDecl(node.name, "constant", offset, elem.dtype, count, "", init))
        self.file_scope.names[node.name] = Var("array" if ctype.is_array else "mem", ctype,
                                               address=CONSTANT_BASE + offset, line=self.position(node)[0] or 0)

    def declare_memory(self, node: c_ast.Decl, ctype: CType, scope: Scope, space: str) -> Stmt:
        if node.init is not None and (space == "shared" or not ctype.is_array):
            raise self.error(node, f"{space} memory cannot have an initializer",
                             f"{space} initializer")
        elem = ctype
        count = 1
        while elem.is_array:
            count *= elem.length
            elem = elem.pointee  # type: ignore[assignment]
        dtype = self.memory_dtype(elem)
        if dtype is None:
            raise self.error(node, f"{space} arrays of pointers are not supported",
                             f"{space} pointer array")
        self.check_memory_struct(node, elem, space)
        if elem.is_struct and node.init is not None:
            raise self.error(node, "initialized arrays of structs are not supported by the emulator",
                             "struct array initializer")
        nbytes = count * dtype.itemsize
        if space == "shared":
            offset = self.shared_bytes
            self.shared_bytes = _align(offset + nbytes, 16)
            owner = self.current.name if self.current is not None else ""
            self.shared_by_function[owner] = self.shared_by_function.get(owner, 0) + _align(nbytes, 16)
            if self.shared_by_function[owner] > 48 * 1024:  # per function: each template instance has its own
                raise self.error(node, "more than 48 KiB of static shared memory",
                                 "shared memory size")
        else:
            offset = self.local_bytes
            self.local_bytes = _align(offset + nbytes, 16)
            self.check_local_bytes(node)
        self.memory.append(MemoryDecl(node.name, space, offset, dtype, count,
                                      self.current.name if self.current is not None else ""))
        base = (SHARED_BASE if space == "shared" else LOCAL_BASE) + offset
        scope.names[node.name] = Var("array" if ctype.is_array else "mem", ctype, address=base,
                                     line=self.position(node)[0] or 0)
        if node.init is not None:
            return self.local_array_initializer(node, ctype, elem, base, scope)
        return lambda fr, m: m

    def init_leaves(self, init: c_ast.Node, ctype: CType) -> list[c_ast.Node | None]:
        """Initializer expression per element of ``ctype`` (None = zero), C brace rules
        for fully braced nested lists and for flat lists."""
        total = ctype.size // max(1, _element_type(ctype).size)
        if not isinstance(init, c_ast.InitList):
            raise self.error(init, "arrays are initialized with a {...} list", "array initializer")
        leaves: list[c_ast.Node | None] = []
        sub = ctype.pointee
        if sub is not None and sub.is_array and all(isinstance(e, c_ast.InitList)
                                                     for e in init.exprs):
            if len(init.exprs) > ctype.length:
                raise self.error(init, "too many initializers", "array initializer")
            for e in init.exprs:
                leaves += self.init_leaves(e, sub)
        else:
            leaves = list(_flatten_init(init))
            if len(leaves) > total:
                raise self.error(init, f"too many initializers for {total} elements",
                                 "array initializer")
        return leaves + [None] * (total - len(leaves))

    def local_array_initializer(self, node: c_ast.Decl, ctype: CType, elem: CType, base: int,
                                scope: Scope) -> Stmt:
        """``float w[3] = {a, b, c};``: every execution stores all elements (rest zero)."""
        assert elem.dtype is not None
        zero = elem.dtype.type(0)
        values = [self.assign_convert(self.scalar(e, scope), elem, e).ev if e is not None
                  else (lambda fr, m: zero) for e in self.init_leaves(node.init, ctype)]
        addresses = [np.int64(base + i * elem.size) for i in range(len(values))]
        site = self.site(node)

        def run(fr: Frame, m: Mask) -> Mask:
            fr.mc.step(m, site)
            for value, address in zip(values, addresses, strict=True):
                fr.mc.store(address, value(fr, m), m, elem, site)
            return m
        return run

    def visit_If(self, node: c_ast.If, scope: Scope) -> tuple[Stmt, bool]:
        cond = truth(self.scalar(node.cond, scope))
        then, j1 = self.visit(node.iftrue, Scope(scope))
        els, j2 = self.visit(node.iffalse, Scope(scope)) if node.iffalse is not None \
            else (None, False)
        jumps = j1 or j2
        site = self.site(node.cond)

        def run(fr: Frame, m: Mask) -> Mask:
            c = cond(fr, m)
            fr.mc.branch(m, c, site)
            if np.ndim(c) == 0:
                if c:
                    return then(fr, m)
                return els(fr, m) if els is not None else m
            mt, mf = m.where(c), m.where_not(c)
            out_t = then(fr, mt) if mt.count else mt
            out_f = els(fr, mf) if els is not None and mf.count else mf
            return out_t.union(out_f) if jumps else m
        return run, jumps

    def visit_For(self, node: c_ast.For, scope: Scope) -> tuple[Stmt, bool]:
        inner = Scope(scope)
        init = self.visit(node.init, inner)[0] if node.init is not None else None
        return self.loop(node, node.cond, node.stmt, node.next, inner, init, False)

    def visit_While(self, node: c_ast.While, scope: Scope) -> tuple[Stmt, bool]:
        return self.loop(node, node.cond, node.stmt, None, Scope(scope), None, False)

    def visit_DoWhile(self, node: c_ast.DoWhile, scope: Scope) -> tuple[Stmt, bool]:
        return self.loop(node, node.cond, node.stmt, None, Scope(scope), None, True)

    def loop(self, node: c_ast.Node, cond_node: c_ast.Node | None, body_node: c_ast.Node,
             next_node: c_ast.Node | None, scope: Scope, init: Stmt | None,
             do_while: bool) -> tuple[Stmt, bool]:
        cond = truth(self.scalar(cond_node, scope)) if cond_node is not None else None
        self.loop_depth += 1
        try:
            body, _ = self.visit(body_node, Scope(scope))
        finally:
            self.loop_depth -= 1
        step = self.expression_statement(next_node, scope) if next_node is not None else None
        returns = _contains(body_node, c_ast.Return)
        site = self.site(cond_node) if cond_node is not None else self.site(node)

        def run(fr: Frame, m: Mask) -> Mask:
            mc = fr.mc
            if init is not None:
                init(fr, m)
            fr.cont.append(None)
            active, iterations, first = m, 0, True
            while True:
                if cond is not None and not (do_while and first):
                    c = cond(fr, active)
                    mc.branch(active, c, site)
                    active = active.where(c)
                first = False
                if active.count == 0:
                    break
                active = body(fr, active)
                resumed = fr.cont[-1]
                if resumed is not None:
                    active = Mask(active.bits | resumed)
                    fr.cont[-1] = None
                if active.count == 0:
                    break
                if step is not None:
                    step(fr, active)
                iterations += 1
                mc.loop_iteration(iterations, site)
            fr.cont.pop()
            if returns and fr.ret_bits is not None:
                return m.where_not(fr.ret_bits)
            return m
        return run, returns

    def visit_Break(self, node: c_ast.Break, scope: Scope) -> tuple[Stmt, bool]:
        if self.loop_depth == 0 and self.switch_depth == 0:
            raise self.error(node, "'break' is not inside a loop or switch", "break outside a loop")
        site = self.site(node)

        def run(fr: Frame, m: Mask) -> Mask:
            fr.mc.step(m, site)
            return fr.mc.empty
        return run, True

    def visit_Continue(self, node: c_ast.Continue, scope: Scope) -> tuple[Stmt, bool]:
        if self.loop_depth == 0:
            raise self.error(node, "'continue' is not inside a loop", "continue outside a loop")
        site = self.site(node)

        def run(fr: Frame, m: Mask) -> Mask:
            fr.mc.step(m, site)
            prev = fr.cont[-1]
            fr.cont[-1] = m.bits if prev is None else (prev | m.bits)
            return fr.mc.empty
        return run, True

    def visit_Return(self, node: c_ast.Return, scope: Scope) -> tuple[Stmt, bool]:
        fn = self.current
        assert fn is not None
        if fn.ret.is_struct:
            return self.struct_return(node, scope)
        site = self.site(node)
        value = None
        if node.expr is not None:
            if fn.ret is ct.VOID:
                raise self.error(node, "a void function cannot return a value", "return value")
            value = self.assign_convert(self.expr(node.expr, scope), fn.ret, node.expr).ev
        elif fn.ret is not ct.VOID:
            raise self.error(node, "this function must return a value", "missing return value")

        def run(fr: Frame, m: Mask) -> Mask:
            fr.mc.step(m, site)
            if value is not None:
                v = value(fr, m)
                fr.retval = v if fr.retval is None else np.where(m.bits, v, fr.retval)
            fr.ret_bits = m.bits.copy() if fr.ret_bits is None else (fr.ret_bits | m.bits)
            if fr.is_kernel:
                fr.mc.exit_lanes(m.bits)
            return fr.mc.empty
        return run, True

    # ------------------------------------------------------------------ expressions
    def expr(self, node: c_ast.Node, scope: Scope) -> CExpr:
        """Compile an expression node."""
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node)
        try:
            return method(node, scope)
        except TypeError as exc:
            raise self.error(node, str(exc), "type mismatch") from None

    def scalar(self, node: c_ast.Node, scope: Scope) -> CExpr:
        """An rvalue: arrays decay to pointers."""
        e = self.expr(node, scope)
        if e.ctype.is_array:
            return CExpr(ct.pointer_to(e.ctype.pointee), e.ev, e.pure, e.const)  # type: ignore[arg-type]
        if e.ctype is ct.VOID:
            raise self.error(node, "a void value is used", "void value")
        return e

    def expr_Constant(self, node: c_ast.Constant, scope: Scope) -> CExpr:
        text = node.value
        try:
            if node.type == "string":
                raise self.error(node, "string literals are not supported", "string literal")
            if node.type == "char":
                return constant(ct.parse_char_literal(text), ct.INT)
            if node.type in ("float", "double", "long double") or (
                    not text.lower().startswith("0x") and re.search(r"[.eE]", text)):
                value, ctype = ct.parse_float_literal(text)
                return constant(value, ctype)
            ivalue, ctype = ct.parse_int_literal(text)
            return constant(ivalue, ctype)
        except (ValueError, KeyError) as exc:
            raise self.error(node, f"cannot read the constant {text}", "constant") from exc

    def expr_ID(self, node: c_ast.ID, scope: Scope) -> CExpr:
        var = scope.lookup(node.name)
        if var is None:
            if node.name in self.stpl.qualified:
                return self.stpl.static_value(node)  # f128::size
            return self.builtin_name(node)
        if var.kind == "reg":
            slot = var.slot
            if var.value is not None:  # a const local with a constant initializer is a
                return constant(var.value, var.ctype)  # constant expression, as in C++
            return CExpr(var.ctype, lambda fr, m: fr.v[slot], True, None,
                         VarLV(slot, var.ctype))
        if var.kind == "struct":
            return self.struct_variable(var)
        if var.kind == "const":
            return constant(var.value, var.ctype)
        address = np.int64(var.address)
        if var.kind == "array":
            return CExpr(var.ctype, lambda fr, m: address, True, None)
        addr = CExpr(ct.pointer_to(var.ctype), lambda fr, m: address)
        return self.memory_ref(addr, var.ctype, node)

    def builtin_name(self, node: c_ast.ID) -> CExpr:
        name = node.name
        if name == "warpSize":
            return constant(32, ct.INT)
        if name in ("true", "false"):
            return constant(name == "true", ct.BOOL)
        if name in ("NULL", "nullptr"):
            return CExpr(ct.pointer_to(ct.VOID), null_pointer, True, None)
        if name in ENVIRONMENT_NAMES:
            return constant(*ENVIRONMENT_NAMES[name])
        if name in _DIM_BUILTINS:
            raise self.error(node, f"use {name}.x, {name}.y or {name}.z", name)
        raise self.error(node, f"'{name}' is not declared", f"undeclared name {name}")

    def memory_ref(self, addr: CExpr, ctype: CType, node: c_ast.Node) -> CExpr:
        """An lvalue in memory; arrays (rows of 2-D arrays) stay addresses."""
        if ctype.is_array:
            return CExpr(ctype, addr.ev, addr.pure, None)
        if ctype.is_struct:
            return memory_struct(addr, ctype, self.site(node))
        if ctype.dtype is None:
            raise self.error(node, f"cannot access memory of type {ctype}", "void access")
        lv = MemLV(addr, ctype, self.site(node))
        ev = addr.ev

        def load(fr: Frame, m: Mask) -> Any:
            return fr.mc.load(ev(fr, m), m, ctype, lv.site)
        return CExpr(ctype, load, False, None, lv)

    def expr_StructRef(self, node: c_ast.StructRef, scope: Scope) -> CExpr:
        base = node.name
        if node.type == "." and isinstance(base, c_ast.ID) and base.name in _DIM_BUILTINS \
                and scope.lookup(base.name) is None:
            axis = "xyz".find(node.field.name)
            if axis < 0:
                raise self.error(node.field, f"{base.name} has fields x, y and z",
                                 f"{base.name}.{node.field.name}")
            return self.dim_builtin(base.name, axis)
        if isinstance(base, c_ast.FuncCall) and is_group(self.expr(base, scope).ctype):
            return self.cg_member(node, scope)  # block.thread_index().x
        return self.member_access(node, scope)

    def dim_builtin(self, name: str, axis: int) -> CExpr:
        if name == "threadIdx":
            return CExpr(ct.UINT, lambda fr, m: fr.mc.thread_index(axis))
        if name == "blockIdx":
            return CExpr(ct.UINT, lambda fr, m: fr.mc.block_index(axis))
        if name == "blockDim":
            return CExpr(ct.UINT, lambda fr, m: np.uint32(fr.mc.block[axis]))
        return CExpr(ct.UINT, lambda fr, m: np.uint32(fr.mc.grid[axis]))

    def expr_ArrayRef(self, node: c_ast.ArrayRef, scope: Scope) -> CExpr:
        if isinstance(node.name, (c_ast.StructRef, c_ast.ID)):
            element = self.array_member_element(node, scope)  # r.payload[k] in registers
            if element is not None:
                return element
        base = self.scalar(node.name, scope)
        if base.ctype.layout is not None:
            return self.subscript_operator(node, base, scope)  # obj[i]: its operator[]
        index = self.scalar(node.subscript, scope)
        if not base.ctype.is_pointer and index.ctype.is_pointer:
            base, index = index, base
        if not base.ctype.is_pointer or not index.ctype.is_integer:
            raise self.error(node, "subscripts need a pointer or array and an integer",
                             "subscript")
        return self.memory_ref(self.pointer_add(base, index, node, 1), base.ctype.pointee,  # type: ignore[arg-type]
                               node)

    def pointer_add(self, ptr: CExpr, offset: CExpr, node: c_ast.Node, sign: int) -> CExpr:
        pointee = ptr.ctype.pointee
        assert pointee is not None
        size = pointee.size
        if size == 0:
            raise self.error(node, "arithmetic on void pointers is not supported", "void*")
        scale = np.int64(size * sign)
        off = converted(offset, ct.LLONG).ev
        pev = ptr.ev
        result_type = ct.pointer_to(pointee)
        return CExpr(result_type, lambda fr, m: _scaled_add(pev(fr, m), off(fr, m), scale),
                     ptr.pure and offset.pure)

    def expr_UnaryOp(self, node: c_ast.UnaryOp, scope: Scope) -> CExpr:
        op = node.op
        if op == "sizeof":
            return self.sizeof(node.expr, scope)
        if op in ("++", "--", "p++", "p--"):
            return self.increment(node, scope)
        if op == "&":
            return self.address_of(node, scope)
        if op == "*":
            ptr = self.scalar(node.expr, scope)
            if not ptr.ctype.is_pointer:
                raise self.error(node, "only pointers can be dereferenced", "dereference")
            return self.memory_ref(ptr, ptr.ctype.pointee, node)  # type: ignore[arg-type]
        operand = self.scalar(node.expr, scope)
        if operand.ctype.is_struct:
            return self.operator_call(op, [operand], node)
        if op == "!":
            t = truth(operand)
            return self.fold(CExpr(ct.TRUTH, lambda fr, m: np.logical_not(t(fr, m)),
                                   operand.pure), [operand])
        if not operand.ctype.is_scalar:
            raise self.error(node, f"operator {op} needs an arithmetic operand", f"unary {op}")
        e = converted(operand, ct.promote(operand.ctype))
        ev = e.ev
        if op == "-":
            return self.fold(CExpr(e.ctype, lambda fr, m: -ev(fr, m), e.pure), [e])
        if op == "+":
            return e
        if op == "~":
            if not e.ctype.is_integer:
                raise self.error(node, "~ needs an integer operand", "~ on float")
            return self.fold(CExpr(e.ctype, lambda fr, m: np.invert(ev(fr, m)), e.pure), [e])
        raise self.error(node, f"operator {op} is not supported", f"unary {op}")

    def fold(self, e: CExpr, operands: list[CExpr]) -> CExpr:
        """Evaluate at compile time when every operand is a constant."""
        if all(o.const is not None for o in operands) and e.pure:
            with np.errstate(all="ignore"):
                value = e.ev(None, None)  # type: ignore[arg-type]
            if isinstance(value, np.ndarray):
                value = value[()]
            return CExpr(e.ctype, lambda fr, m: value, True, value)
        return e

    def sizeof(self, target: c_ast.Node, scope: Scope) -> CExpr:
        if isinstance(target, c_ast.Typename):
            size = self.resolve_type(target).size
        else:
            size = self.expr(target, scope).ctype.size
        return constant(size, ct.ULLONG)

    def address_of(self, node: c_ast.UnaryOp, scope: Scope) -> CExpr:
        target = self.expr(node.expr, scope)
        if target.ctype.is_array:
            return CExpr(ct.pointer_to(target.ctype), target.ev, target.pure)
        if isinstance(target.lv, MemLV):
            addr = target.lv.addr
            return CExpr(ct.pointer_to(target.ctype), addr.ev, addr.pure)
        raise self.error(node, "the address of a local variable cannot be taken (only of "
                         "memory: arrays, pointers, shared variables)", "address of register")

    def lvalue(self, node: c_ast.Node, scope: Scope) -> LValue:
        if isinstance(node, c_ast.ID):
            var = scope.lookup(node.name)
            if var is not None and var.const:
                raise self.error(node, f"'{node.name}' is declared const and cannot be assigned to",
                                 "assignment to const")
        target = self.expr(node, scope)
        if target.lv is None:
            raise self.error(node, "this expression cannot be assigned to", "assignment target")
        return target.lv

    def assign_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr:
        """Implicit conversion as in assignment/initialization/argument passing."""
        if is_group(dst) or is_group(value.ctype):
            return self.cg_convert(value, dst, node)
        if dst.is_struct or value.ctype.is_struct:
            return self.struct_convert(value, dst, node)
        if value.ctype.is_array:
            value = CExpr(ct.pointer_to(value.ctype.pointee), value.ev, value.pure)  # type: ignore[arg-type]
        if dst.is_pointer:
            if not value.ctype.is_pointer and not (value.const is not None and value.const == 0):
                raise self.error(node, f"cannot assign {value.ctype} to {dst}", "pointer assignment")
            if not value.ctype.is_pointer:
                zero = np.int64(0)
                return CExpr(dst, lambda fr, m: zero, True, None)
            return value
        if value.ctype.is_pointer or not value.ctype.is_scalar:
            raise self.error(node, f"cannot convert {value.ctype} to {dst}", "conversion")
        return converted(value, dst)

    def expr_Assignment(self, node: c_ast.Assignment, scope: Scope) -> CExpr:
        lv = self.lvalue(node.lvalue, scope)
        if lv.ctype.is_struct and node.op != "=":
            return self.struct_compound_assignment(node, lv, scope)
        if node.op == "=":
            rhs = self.assign_convert(self.scalar(node.rvalue, scope), lv.ctype, node.rvalue).ev

            def assign(fr: Frame, m: Mask) -> Any:
                handle = lv.prepare(fr, m)
                value = rhs(fr, m)
                lv.set(fr, m, handle, value)
                return value
            return CExpr(lv.ctype, assign, False)
        update = self.compound_update(node, lv, scope)

        def assign_op(fr: Frame, m: Mask) -> Any:
            handle = lv.prepare(fr, m)
            value = update(fr, m, lv.get(fr, m, handle))
            lv.set(fr, m, handle, value)
            return value
        return CExpr(lv.ctype, assign_op, False)

    def compound_update(self, node: c_ast.Assignment, lv: LValue, scope: Scope) -> Callable:
        """Closure (frame, mask, old) -> new value for ``x op= y``."""
        op = node.op[:-1]
        slot = self.new_slot()
        old = CExpr(lv.ctype, lambda fr, m: fr.v[slot])
        if op == "+":
            combined = self.fused_update(old, node.rvalue, node, scope)  # sum += a * b: one fma
        else:
            combined = self.binary(op, old, self.scalar(node.rvalue, scope), node)
        new = self.assign_convert(combined, lv.ctype, node).ev

        def update(fr: Frame, m: Mask, old_value: Any) -> Any:
            fr.v[slot] = old_value
            return new(fr, m)
        return update

    def increment(self, node: c_ast.UnaryOp, scope: Scope) -> CExpr:
        lv = self.lvalue(node.expr, scope)
        postfix = node.op.startswith("p")
        if lv.ctype.is_pointer:
            delta = np.int64(lv.ctype.pointee.size)  # type: ignore[union-attr]
        elif lv.ctype.dtype is not None and lv.ctype.dtype.kind != "b":
            delta = lv.ctype.dtype.type(1)
        else:
            raise self.error(node, "++/-- need an arithmetic or pointer operand", "++ on bool")
        apply = operator.sub if "-" in node.op else operator.add

        def run(fr: Frame, m: Mask) -> Any:
            handle = lv.prepare(fr, m)
            old = lv.get(fr, m, handle)
            new = apply(old, delta)
            lv.set(fr, m, handle, new)
            return old if postfix else new
        return CExpr(lv.ctype, run, False)

    def expr_BinaryOp(self, node: c_ast.BinaryOp, scope: Scope) -> CExpr:
        if node.op in ("+", "-") and self.fmad:
            return self.sum_contracted(node, scope)
        left = self.scalar(node.left, scope)
        right = self.scalar(node.right, scope)
        return self.binary(node.op, left, right, node)

    # nvcc's default -fmad=true: a float product added to a value of its type is one fused
    # multiply-add, rounded once. As NVRTC's PTX shows (gpulab.simt.contraction compares them):
    # the left product first, else the right; a product minus a non-zero constant too (the
    # compiler adds the negated constant); not a subtraction of a variable, nor a product with a
    # negated factor or a negated addend (the compiler turns -a*b + c and a*b + -c into
    # subtractions first). Products kept in a variable or passed into a function are not
    # followed (the compiler does where it inlines, or where the variable is used once).
    fmad = True

    def sum_contracted(self, node: c_ast.BinaryOp, scope: Scope) -> CExpr:
        """``left + right`` (or ``left - constant``), fused where nvcc would contract it."""
        left, right = _Term(self, node.left, scope), _Term(self, node.right, scope)
        if node.op == "-":
            subtrahend = right.value()
            if subtrahend.const is not None and subtrahend.ctype.is_scalar and subtrahend.const != 0:
                fused = left.fused_with(self.negated(subtrahend, node), node)
                if fused is not None:
                    return fused
            return self.binary("-", left.value(), subtrahend, node)
        for product, other in ((left, right), (right, left)):
            fused = product.fused_with(other.value(), node) if not other.negated_variable() else None
            if fused is not None:
                return fused
        return self.binary("+", left.value(), right.value(), node)

    def negated(self, e: CExpr, node: c_ast.Node) -> CExpr:
        """``-e`` for a compile-time constant ``e``."""
        return self.binary("-", constant(0, e.ctype), e, node)

    def fused_update(self, old: CExpr, rhs_node: c_ast.Node, node: c_ast.Node, scope: Scope) -> CExpr:
        """``old + rhs`` for ``x += rhs``: fused when ``rhs`` is a product of ``x``'s type."""
        term = _Term(self, rhs_node, scope)
        fused = term.fused_with(old, node) if self.fmad else None
        return fused if fused is not None else self.binary("+", old, term.value(), node)

    def fma_expr(self, x: CExpr, y: CExpr, z: CExpr, ctype: CType, node: c_ast.Node) -> CExpr:
        """``x * y + z`` in ``ctype`` (float or double), rounded once; 2 FLOP a lane."""
        self.fused_lines.append(self.site(node).line)
        xv, yv, zv = (converted(e, ctype).ev for e in (x, y, z))
        f = fma32 if ctype.size == 4 else fma64
        pure = x.pure and y.pure and z.pure
        result = self.fold(CExpr(ctype, lambda fr, m: f(xv(fr, m), yv(fr, m), zv(fr, m)), pure), [x, y, z])
        return self.flop_counted(result, ctype, 2)

    def binary(self, op: str, left: CExpr, right: CExpr, node: c_ast.Node) -> CExpr:
        if left.ctype.is_struct or right.ctype.is_struct:
            return self.operator_call(op, [left, right], node)
        if op in ("&&", "||"):
            return self.logical(op, left, right)
        if left.ctype.is_pointer or right.ctype.is_pointer:
            return self.pointer_binary(op, left, right, node)
        if not (left.ctype.is_scalar and right.ctype.is_scalar):
            raise self.error(node, f"operator {op} needs arithmetic operands", f"binary {op}")
        if op in ("<<", ">>"):
            return self.shift(op, left, right, node)
        common = ct.common_type(left.ctype, right.ctype)
        lv, rv = converted(left, common).ev, converted(right, common).ev
        pure = left.pure and right.pure
        if op in _COMPARE:
            f = _COMPARE[op]
            return self.fold(CExpr(ct.TRUTH, lambda fr, m: f(lv(fr, m), rv(fr, m)), pure),
                             [left, right])
        if op in ("&", "|", "^") and common.is_float:
            raise self.error(node, f"operator {op} needs integer operands", f"{op} on float")
        f = self.arith_function(op, common, node)
        if op in ("/", "%") and common.is_integer and right.const is None:
            return self.checked_division(op, common, f, lv, rv, node)
        result = self.fold(CExpr(common, lambda fr, m: f(lv(fr, m), rv(fr, m)), pure), [left, right])
        return self.flop_counted(result, common) if op in FLOP_OPERATORS else result

    def checked_division(self, op: str, common: CType, f: Callable, lv: Callable, rv: Callable,
                         node: c_ast.Node) -> CExpr:
        """Integer ``/`` or ``%`` by a divisor that may be zero: a lane dividing by zero stops
        the launch with a fault naming the line and the lanes. PTX leaves the result
        unspecified (a GPU gives -1 or garbage, never a trap), so a silent 0 would hide a bug
        the real kernel has. Not pure: ``d ? n / d : 0`` and ``d && n / d`` then divide only
        in the lanes their guard lets through, as C evaluates them."""
        site = self.site(node)
        word = "division" if op == "/" else "remainder (%)"

        def run(fr: Frame, m: Mask) -> Any:
            divisor = rv(fr, m)
            fr.mc.check_divisor(divisor, m, site, word)
            return f(lv(fr, m), divisor)
        return CExpr(common, run, False)

    def arith_function(self, op: str, common: CType, node: c_ast.Node) -> Callable:
        if op in _ARITH:
            return _ARITH[op]
        if op == "/":
            if common.is_float:
                return operator.truediv
            return _int_div if common.signed else operator.floordiv
        if op == "%":
            if common.is_float:
                raise self.error(node, "% needs integer operands (use fmodf)", "% on float")
            return np.fmod if common.signed else operator.mod
        raise self.error(node, f"operator {op} is not supported", f"binary {op}")

    def shift(self, op: str, left: CExpr, right: CExpr, node: c_ast.Node) -> CExpr:
        lt = ct.promote(left.ctype)
        if not lt.is_integer or not right.ctype.is_integer:
            raise self.error(node, f"operator {op} needs integer operands", f"{op} on float")
        lv = converted(left, lt).ev
        rv = converted(right, lt).ev
        f = np.left_shift if op == "<<" else np.right_shift
        return self.fold(CExpr(lt, lambda fr, m: f(lv(fr, m), rv(fr, m)),
                               left.pure and right.pure), [left, right])

    def pointer_binary(self, op: str, left: CExpr, right: CExpr, node: c_ast.Node) -> CExpr:
        pure = left.pure and right.pure
        if op == "+" and left.ctype.is_pointer and right.ctype.is_integer:
            return self.pointer_add(left, right, node, 1)
        if op == "+" and right.ctype.is_pointer and left.ctype.is_integer:
            return self.pointer_add(right, left, node, 1)
        if op == "-" and left.ctype.is_pointer and right.ctype.is_integer:
            return self.pointer_add(left, right, node, -1)
        lv, rv = left.ev, right.ev
        if op == "-" and left.ctype.is_pointer and right.ctype.is_pointer:
            size = np.int64(max(1, left.ctype.pointee.size))  # type: ignore[union-attr]
            return CExpr(ct.LLONG, lambda fr, m: (lv(fr, m) - rv(fr, m)) // size, pure)
        if op in _COMPARE:
            f = _COMPARE[op]
            return CExpr(ct.TRUTH, lambda fr, m: f(lv(fr, m), rv(fr, m)), pure)
        raise self.error(node, f"operator {op} is not defined on pointers", f"pointer {op}")

    def logical(self, op: str, left: CExpr, right: CExpr) -> CExpr:
        lt, rt = truth(left), truth(right)
        is_and = op == "&&"
        if right.pure:
            f = np.logical_and if is_and else np.logical_or
            return self.fold(CExpr(ct.TRUTH, lambda fr, m: f(lt(fr, m), rt(fr, m)), left.pure),
                             [left, right])

        def short_circuit(fr: Frame, m: Mask) -> Any:
            lval = lt(fr, m)
            rest = m.where(lval) if is_and else m.where_not(lval)
            if rest.count == 0:
                return lval
            rval = rt(fr, rest)
            return np.logical_and(lval, rval) if is_and else np.logical_or(lval, rval)
        return CExpr(ct.TRUTH, short_circuit, False)

    def expr_TernaryOp(self, node: c_ast.TernaryOp, scope: Scope) -> CExpr:
        cond = self.scalar(node.cond, scope)
        a = self.scalar(node.iftrue, scope)
        b = self.scalar(node.iffalse, scope)
        if a.ctype.is_struct or b.ctype.is_struct:
            return self.struct_ternary(cond, a, b, node)
        if a.ctype.is_function_pointer or b.ctype.is_function_pointer:
            rtype = a.ctype if a.ctype.is_function_pointer else b.ctype
            av, bv = self.assign_convert(a, rtype, node).ev, self.assign_convert(b, rtype, node).ev
        elif a.ctype.is_pointer or b.ctype.is_pointer:
            rtype = a.ctype if a.ctype.is_pointer else b.ctype
            av, bv = a.ev, b.ev
        else:
            rtype = ct.common_type(a.ctype, b.ctype)
            av, bv = converted(a, rtype).ev, converted(b, rtype).ev
        c = truth(cond)
        if a.pure and b.pure:
            return self.fold(CExpr(rtype, lambda fr, m: _select(c(fr, m), av(fr, m), bv(fr, m)),
                                   cond.pure), [cond, a, b])

        def run(fr: Frame, m: Mask) -> Any:
            cv = c(fr, m)
            if np.ndim(cv) == 0:
                return av(fr, m) if cv else bv(fr, m)
            mt, mf = m.where(cv), m.where_not(cv)
            x = av(fr, mt) if mt.count else None
            y = bv(fr, mf) if mf.count else None
            if x is None or y is None:
                return y if x is None else x
            return np.where(cv, x, y)
        return CExpr(rtype, run, False)

    def expr_Cast(self, node: c_ast.Cast, scope: Scope) -> CExpr:
        target = self.resolve_type(node.to_type)
        value = self.scalar(node.expr, scope)
        if target is ct.VOID:
            return CExpr(ct.VOID, value.ev, value.pure)
        if target.is_pointer:
            if not value.ctype.is_pointer:
                raise self.error(node, "casting integers to pointers is not supported",
                                 "integer to pointer cast")
            return CExpr(target, value.ev, value.pure)
        if value.ctype.is_pointer:
            raise self.error(node, "casting pointers to integers is not supported",
                             "pointer to integer cast")
        return converted(value, target)

    def expr_ExprList(self, node: c_ast.ExprList, scope: Scope) -> CExpr:
        parts = [self.expr(e, scope) for e in node.exprs]
        evs = [p.ev for p in parts]

        def run(fr: Frame, m: Mask) -> Any:
            value = None
            for ev in evs:
                value = ev(fr, m)
            return value
        return CExpr(parts[-1].ctype, run, all(p.pure for p in parts))

    def expr_FuncCall(self, node: c_ast.FuncCall, scope: Scope) -> CExpr:
        if isinstance(node.name, c_ast.StructRef):  # obj.f(...): a group's or a struct's member
            if node.name.type == "." and is_group(self.expr(node.name.name, scope).ctype):
                return self.cg_method_call(node, scope)
            return self.method_call(node, scope)
        if not isinstance(node.name, c_ast.ID):
            raise self.error(node, "calls through function pointers are not supported",
                             "function pointer call")
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        member = self.implicit_method_call(node, scope)
        if member is not None:
            return member
        if name in self.tpl.templates:
            return self.tpl.call(node, name, args, scope)
        if name in self.stpl.qualified:
            return self.stpl.static_call(node, scope)  # Packed128<float>::zeros()
        if name in self.functions:
            return self.device_call(self.functions[name], args, node, scope)
        if name in self.pre.cg_names:
            return self.cg_function(node, scope)
        if name == "printf":  # takes string literals, which no other call does
            return compile_printf(self, node, scope)
        handler = BUILTINS.get(name)
        if handler is None:
            raise self.error(node, f"the function '{name}' is not supported by the emulator",
                             f"call to {name}")
        result = handler(self, node, [self.scalar(a, scope) for a in args])
        if name in _FMA_BUILTINS and result.const is None:
            self.fused_lines.append(self.site(node).line)
        elif name in POLYNOMIAL_FUNCTIONS:
            self.library_lines.append(self.site(node).line)
        return self.flop_counted_builtin(name, result)

    def device_call(self, fn: Function, arg_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                    scope: Scope) -> CExpr:
        if fn.is_kernel:
            raise self.error(node, "kernels cannot be called from device code (dynamic "
                             "parallelism is not supported)", "kernel call")
        if needs_struct_call(fn):
            return self.struct_device_call(fn, arg_nodes, node, scope)
        if len(arg_nodes) != len(fn.params):
            raise self.error(node, f"{fn.name} takes {len(fn.params)} arguments, "
                             f"not {len(arg_nodes)}", "argument count")
        args = [self.assign_convert(self.scalar(a, scope), ptype, a).ev
                for a, (_, ptype) in zip(arg_nodes, fn.params, strict=True)]
        site = self.site(node)

        def call(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            if fn.body is None:
                raise KernelFault(f"{mc.kernel}: line {site.line}: {fn.name} is declared but "
                                  "never defined", mc.kernel, site.line)
            callee = Frame(mc, fn.nslots)
            for i, a in enumerate(args):
                callee.v[i] = a(fr, m)
            run_body(fn, callee, m, site)
            if fn.ret is ct.VOID:
                return None
            if callee.retval is None:
                return fn.ret.dtype.type(0) if fn.ret.dtype is not None else np.int64(0)
            return callee.retval
        return CExpr(fn.ret, call, False)


def _element_type(ctype: CType) -> CType:
    while ctype.is_array and ctype.pointee is not None:
        ctype = ctype.pointee
    return ctype


def _flatten_init(init: c_ast.Node) -> list[c_ast.Node]:
    if isinstance(init, c_ast.InitList):
        return [leaf for e in init.exprs for leaf in _flatten_init(e)]
    return [init]


def _scaled_add(base: Any, offset: Any, scale: np.int64) -> Any:
    """base + offset * scale with a single temporary (fresh pages are costly)."""
    scaled = offset * scale
    if isinstance(scaled, np.ndarray):
        scaled += base
        return scaled
    return base + scaled


def _select(c: Any, a: Any, b: Any) -> Any:
    if np.ndim(c) == 0:
        return a if c else b
    return np.where(c, a, b)


def _walk(node: c_ast.Node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


def _contains(node: c_ast.Node | None, kind: type) -> bool:
    return node is not None and any(isinstance(n, kind) for n in _walk(node))


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


# Names every .cu file sees under nvcc: <climits>/<cfloat>, the compiler's own __FLT_MAX__ & co.,
# and the M_ constants of the math.h nvcc pulls in (NVRTC has none of the last two).
_F32, _F64 = np.finfo(np.float32), np.finfo(np.float64)
ENVIRONMENT_NAMES: dict[str, tuple[Any, CType]] = {
    "INT_MAX": (2**31 - 1, ct.INT), "INT_MIN": (-(2**31), ct.INT), "UINT_MAX": (2**32 - 1, ct.UINT),
    "SHRT_MAX": (2**15 - 1, ct.INT), "SHRT_MIN": (-(2**15), ct.INT), "CHAR_BIT": (8, ct.INT),
    "LLONG_MAX": (2**63 - 1, ct.LLONG), "LLONG_MIN": (-(2**63), ct.LLONG), "ULLONG_MAX": (2**64 - 1, ct.ULLONG),
    "FLT_MAX": (_F32.max, ct.FLOAT), "FLT_MIN": (_F32.tiny, ct.FLOAT), "FLT_EPSILON": (_F32.eps, ct.FLOAT),
    "DBL_MAX": (_F64.max, ct.DOUBLE), "DBL_MIN": (_F64.tiny, ct.DOUBLE), "DBL_EPSILON": (_F64.eps, ct.DOUBLE),
    "__FLT_MAX__": (_F32.max, ct.FLOAT), "__FLT_MIN__": (_F32.tiny, ct.FLOAT),
    "__FLT_EPSILON__": (_F32.eps, ct.FLOAT), "__DBL_MAX__": (_F64.max, ct.DOUBLE),
    "__DBL_MIN__": (_F64.tiny, ct.DOUBLE), "__DBL_EPSILON__": (_F64.eps, ct.DOUBLE),
    "__INT_MAX__": (2**31 - 1, ct.INT), "INFINITY": (np.inf, ct.FLOAT), "NAN": (np.nan, ct.FLOAT),
    "HUGE_VALF": (np.inf, ct.FLOAT), "HUGE_VAL": (np.inf, ct.DOUBLE),
    "M_E": (np.e, ct.DOUBLE), "M_LOG2E": (np.log2(np.e), ct.DOUBLE), "M_LOG10E": (np.log10(np.e), ct.DOUBLE),
    "M_LN2": (np.log(2.0), ct.DOUBLE), "M_LN10": (np.log(10.0), ct.DOUBLE), "M_PI": (np.pi, ct.DOUBLE),
    "M_PI_2": (np.pi / 2, ct.DOUBLE), "M_PI_4": (np.pi / 4, ct.DOUBLE), "M_1_PI": (1 / np.pi, ct.DOUBLE),
    "M_2_PI": (2 / np.pi, ct.DOUBLE), "M_2_SQRTPI": (2 / np.sqrt(np.pi), ct.DOUBLE),
    "M_SQRT2": (np.sqrt(2.0), ct.DOUBLE), "M_SQRT1_2": (np.sqrt(0.5), ct.DOUBLE),
}  # fmt: skip
_FMA_BUILTINS = frozenset({"fmaf", "fma", *(f"__fmaf_{mode}" for mode in ("rn", "rz", "ru", "rd"))})


class _Term:
    """One side of a ``+``: a product whose factors are compiled apart (so it can be fused), or
    any other expression."""

    def __init__(self, comp: Compiler, node: c_ast.Node, scope: Scope) -> None:
        self.comp, self.node = comp, node
        self.factors: tuple[CExpr, CExpr] | None = None
        self._value: CExpr | None = None
        if isinstance(node, c_ast.BinaryOp) and node.op == "*":
            negated = any(isinstance(f, c_ast.UnaryOp) and f.op == "-" for f in (node.left, node.right))
            x, y = comp.scalar(node.left, scope), comp.scalar(node.right, scope)
            if x.ctype.is_scalar and y.ctype.is_scalar and not negated and 1 not in (x.const, y.const):
                self.factors = (x, y)  # a factor of 1 is folded away by the compiler: no product left
            else:
                self._value = comp.binary("*", x, y, node)
        else:
            self._value = comp.scalar(node, scope)

    def negated_variable(self) -> bool:
        """Whether this is ``-x`` of a value not known at compile time (the compiler subtracts x)."""
        return isinstance(self.node, c_ast.UnaryOp) and self.node.op == "-" and self.value().const is None

    def value(self) -> CExpr:
        if self._value is None:
            assert self.factors is not None
            self._value = self.comp.binary("*", *self.factors, self.node)
        return self._value

    def fused_with(self, addend: CExpr, node: c_ast.Node) -> CExpr | None:
        """``product + addend`` as one fma, when this is a float product and the sum is of its type."""
        if self.factors is None or not addend.ctype.is_scalar:
            return None
        x, y = self.factors
        ctype = ct.common_type(x.ctype, y.ctype)
        if not ctype.is_float or ct.common_type(ctype, addend.ctype) != ctype or ctype.size not in (4, 8):
            return None
        if x.const is not None and y.const is not None:
            return None  # folded at compile time: no multiply is left to fuse
        return self.comp.fma_expr(x, y, addend, ctype, node)

