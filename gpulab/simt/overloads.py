"""C++ function overloading and ``auto`` return types in the compiler (a mixin and a launch helper).

Overloads. Functions of one name with different parameter types (``__device__ float twice(float)``
and ``__device__ int twice(int)``), function templates of one name (``pick(T)`` and
``pick(T, T)``), a template beside an ordinary function, and overloaded ``__global__`` kernels
form an *overload set*. Once a name has two signatures, each of its ordinary functions is
renamed by its parameter types (``twice(float)``, ``twice(int)``: what messages, traces and
:attr:`Program.functions <gpulab.simt.symbols.Program.functions>` show); a name with one
function keeps its plain name and costs nothing here. A call of an overloaded name picks, as
C++ does for the cases kernels use: viable candidates take the number of arguments and can
convert each; per argument an exact match beats a promotion (``short``/``char``/``bool`` to
``int``, ``float`` to ``double``), which beats a conversion; the best candidate is no worse for
any argument and better for one, and on a tie an ordinary function beats a template. No viable
candidate or no single best is a :class:`CompileError` listing the candidates, as nvcc's "no
instance of overloaded function" and "more than one instance of overloaded function". Templates
that tie are ordered by how specialized their parameters are (``f(T*)`` before ``f(T)``, a
concrete type before either), a simplification of C++'s partial ordering.
``extern "C"`` functions cannot be overloaded (C linkage has one symbol per name; NVRTC refuses).

A launch of an overloaded kernel by its plain name (``simt.launch(src, "k", ...)``) picks the
overload from the arguments (:func:`select_kernel`): an array binds a pointer to its dtype, a
numpy scalar a parameter of its dtype, a Python ``bool``/``int``/``float`` a parameter of that
kind; a launch that matches none or several is refused by name. CuPy has no such choice: its
``RawModule(name_expressions=...)`` hands NVRTC a name expression, and for an overloaded kernel
that is a cast NVRTC can resolve, ``(void(*)(const float*, float*))k`` (or its ``static_cast``
spelling), which a launch accepts too. ``k(const float*, float*)`` is no name expression
(NVRTC rejects it) and is refused.

``auto`` return types. ``__device__ auto twice(float v) { return 2.0f * v; }`` gets the type
its return statements deduce (all must deduce the same type; none: ``void``); a trailing
return type (``auto f(float v) -> float``) is the type written. The body is compiled where the
function is defined; an instance of an ``auto`` template is compiled at its first call, so
the caller knows the type. Using an ``auto`` function before its type is known (a call
before its definition, a recursive call before its first return) is an error, as in C++.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pycparser import c_ast, c_generator

from . import ctypes_ as ct
from .ctypes_ import CType
from .cxx import AUTO
from .errors import CompileError, SimtError
from .instantiate import Binding, Template, Templates, _call_args, _pattern
from .preprocess import blank_comments
from .refcells import is_ref
from .symbols import Function, Scope
from .templates import TemplateDef, split_name_expression
from .values import CExpr

if TYPE_CHECKING:
    from .symbols import Program

_EXTERN_C = re.compile(r'\bextern\s+"C"')
_NAME_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")
_SIGNATURE_NAME = re.compile(r"\s*[A-Za-z_]\w*\s*\(")  # 'k(const float*, float*)'
EXACT, PROMOTION, CONVERSION = 0, 1, 2


@dataclass
class Candidate:
    """One member of an overload set: an ordinary function (by its name in ``functions``) or a
    function template (by its key in ``Templates.templates``)."""

    name: str
    is_template: bool


# ---------------------------------------------------------------------- ranking
def conversion_rank(arg: CType, param: CType) -> int | None:
    """How argument type ``arg`` converts to parameter type ``param``: EXACT, PROMOTION,
    CONVERSION, or None when it cannot (C++'s implicit conversion sequences, simplified)."""
    a = ct.BOOL if arg is ct.TRUTH else arg  # a comparison is a bool in C++
    if is_ref(param) and param.pointee is not None:
        if param.name == "ref":  # T& binds a T only
            return EXACT if a == param.pointee else None
        param = param.pointee
    if param == a:
        return EXACT
    if param.name.startswith("cg::") or a.name.startswith("cg::"):  # cooperative groups, as CUDA's
        tiles = all(t.name.startswith("cg::thread_block_tile<") for t in (a, param))  # headers convert them
        to_group = param.name == "cg::thread_group" and a.name.startswith("cg::") and a.name != "cg::dim3"
        return CONVERSION if tiles or to_group else None
    if param.layout is not None or a.layout is not None:
        return None
    if param.is_pointer or a.is_pointer:
        if not (param.is_pointer and a.is_pointer):
            return None
        if param == a:
            return EXACT
        return CONVERSION if param.pointee is ct.VOID else None
    if not (param.is_scalar and a.is_scalar):
        return None
    if param == a:
        return EXACT
    if (a.is_integer and a.rank < ct.INT.rank and param == ct.INT) or (a == ct.FLOAT and param == ct.DOUBLE):
        return PROMOTION
    return CONVERSION


@dataclass
class Viable:
    """A candidate a call can use: its conversion ranks per argument, whether it is a template
    (and how specialized each of its parameters is), and what the call then runs."""

    ranks: list[int]
    specificity: list[int] | None  # None: an ordinary function
    choice: Any


def _dominates(a: list[int], b: list[int], smaller: bool) -> bool:
    pairs = list(zip(a, b, strict=True))
    if smaller:
        return all(x <= y for x, y in pairs) and a != b
    return all(x >= y for x, y in pairs) and a != b


def _better(one: Viable, other: Viable) -> bool:
    """``one`` is better than ``other`` ([over.match.best]): better conversions; else an ordinary
    function over a template; else the more specialized template (``f(T*)`` over ``f(T)``, a
    partial ordering by the pointer depth around each type parameter, a concrete type deepest)."""
    if _dominates(one.ranks, other.ranks, smaller=True):
        return True
    if one.ranks != other.ranks:
        return False
    if one.specificity is None or other.specificity is None:
        return one.specificity is None and other.specificity is not None
    return _dominates(one.specificity, other.specificity, smaller=False)


def best_of(viable: list[Viable]) -> list[Any]:
    """The best viable candidate's choice as a one-element list, or the tied best ones (ambiguous)."""
    for k, cand in enumerate(viable):
        if all(_better(cand, other) for j, other in enumerate(viable) if j != k):
            return [cand.choice]
    return [c.choice for c in viable if not any(_better(o, c) for o in viable if o is not c)]


def _specificity(template: Template) -> list[int]:
    """Per function parameter: the pointer depth around its type parameter (``T`` 0, ``T*`` 1),
    or a large number for a parameter of a concrete type."""
    type_params = {p.name for p in template.definition.params if p.kind == "type"}
    depths = []
    for p in _params(template.decl):
        found = _pattern(p.type, type_params) if isinstance(p, c_ast.Decl) else None
        depths.append(100 if found is None else found[1])
    return depths


def _type_key(node: c_ast.Node | None) -> Any:
    """A parameter type's shape, without its name (to match a declaration with its definition)."""
    if isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl)):
        return type(node).__name__, tuple(node.quals or ()), _type_key(node.type)
    if isinstance(node, c_ast.ArrayDecl):
        return "array", _type_key(node.type)
    if isinstance(node, c_ast.IdentifierType):
        return tuple(node.names)
    if isinstance(node, c_ast.Struct):
        return "struct", node.name
    return type(node).__name__


def _params(decl: c_ast.Decl) -> list[c_ast.Node]:
    params = list(decl.type.args.params) if decl.type.args else []
    if len(params) == 1 and isinstance(params[0], c_ast.Typename) and _type_key(params[0].type) == \
            ("TypeDecl", (), ("void",)):
        return []
    return params


def _param_keys(decl: c_ast.Decl, quals: bool) -> tuple[Any, ...]:
    """Parameter types' shapes as overloading sees them: a parameter's own top-level const
    ignored, ``T a[]`` as ``T* a``; with ``quals=False`` every const ignored."""
    keys = []
    for p in _params(decl):
        node = p.type if isinstance(p, (c_ast.Decl, c_ast.Typename)) else p
        inner = node.type if isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)) else node
        key = ("ptr" if isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)) else "value", _type_key(inner))
        keys.append(key if quals else _without_quals(key))
    return tuple(keys)


def _without_quals(key: Any) -> Any:
    if isinstance(key, tuple) and len(key) == 3 and key[0] in ("TypeDecl", "PtrDecl"):
        return key[0], (), _without_quals(key[2])
    if isinstance(key, tuple):
        return tuple(_without_quals(k) for k in key)
    return key


def _param_text(p: c_ast.Node) -> str:
    if isinstance(p, c_ast.Decl):
        shown = c_generator.CGenerator().visit(c_ast.Typename(None, p.quals, None, p.type))
        return re.sub(r"\*\s*restrict\b", "&", " ".join(shown.split()))
    return type(p).__name__


def shown_type(t: CType) -> str:
    """A type as C++ writes it (``float&``, ``const int&``, ``bool`` for a comparison)."""
    if is_ref(t) and t.pointee is not None:
        return f"{'const ' if t.name == 'const ref' else ''}{shown_type(t.pointee)}&"
    return str(ct.BOOL if t is ct.TRUTH else t)


def shown_types(types: Sequence[CType]) -> str:
    return ", ".join(shown_type(t) for t in types)


# ---------------------------------------------------------------------- templates
class OverloadedTemplates(Templates):
    """:class:`~.instantiate.Templates` that keeps function templates of one name side by side."""

    def __init__(self, compiler: Any, sets: dict[str, list[Candidate]]) -> None:
        super().__init__(compiler)
        self.sets = sets  # the compiler's overload sets
        self.same_name: dict[str, list[str]] = {}  # a template's name -> keys of its overloads

    def add_template(self, definition: TemplateDef, decl: c_ast.Decl, fdef: c_ast.FuncDef | None) -> None:
        name = definition.name
        keys = self.same_name.get(name, [name] if name in self.templates else [])
        shape = (definition.header, tuple(_type_key(p.type) for p in _params(decl)))
        for key in keys:
            known = self.templates[key]
            if (known.definition.header, tuple(_type_key(p.type) for p in _params(known.decl))) == shape:
                if known.fdef is not None and fdef is not None:
                    raise self.c.error(decl, f"template '{name}' is defined twice (first on line "
                                       f"{known.definition.line})", "redefinition")
                if fdef is not None:
                    self.templates[key] = Template(definition, decl, fdef, known.is_kernel)
                return
        if not keys:
            return super().add_template(definition, decl, fdef)
        key = f"{name}#{len(keys)}"
        self.same_name[name] = [*keys, key]
        self.templates[key] = Template(definition, decl, fdef, name in self.c.pre.global_functions)
        self.sets.setdefault(name, [Candidate(k, True) for k in keys])
        self.sets[name].append(Candidate(key, True))

    def instantiate_named(self, text: str, where: Any) -> None:
        parsed = split_name_expression(text)
        name = parsed[0] if parsed is not None else ""
        keys = self.same_name.get(name, ())
        if len(keys) > 1:
            shown = "; ".join(f"{self.templates[k].definition.header} {name}("
                              f"{', '.join(_param_text(p) for p in _params(self.templates[k].decl))})"
                              for k in keys)
            raise self.where_error(where, f"'{text}' names more than one template kernel ({shown}); NVRTC "
                                   "cannot pick one from a name expression either", "ambiguous name expression")
        super().instantiate_named(text, where)

    def check_template_names(self) -> None:
        """A template and an ordinary function of one name: one overload set."""
        for key, template in self.templates.items():
            name = template.definition.name
            plain = name in self.c.functions
            if not plain and name not in self.sets:
                continue
            members = self.sets.setdefault(name, [])
            if not any(c.name == key and c.is_template for c in members):
                members.append(Candidate(key, True))
            if plain and not any(c.name == name and not c.is_template for c in members):
                members.insert(0, Candidate(name, False))

    def instance_name(self, template: Template, bound: list[Binding]) -> str:
        name = super().instance_name(template, bound)
        if len(self.same_name.get(template.definition.name, ())) < 2:
            return name
        with self.template_context(bound):
            types = [self.c.resolve_type(p.type) for p in _params(template.decl)]
        return f"{name}({shown_types(types)})"

    def bindings_for(self, template: Template, explicit_texts: Sequence[str], types: list[CType],
                     node: c_ast.FuncCall, scope: Scope) -> tuple[list[Binding], list[CType]]:
        """The template arguments of a call with arguments of ``types`` and the parameter types
        they give; CompileError when the template is not viable."""
        explicit = self.explicit_bindings(template, explicit_texts, node, scope)
        deduced = self.deduce_from_types(template, [b[0] for b in explicit], types, node)
        bound = self.complete_bindings(template, explicit, deduced, node)
        with self.template_context(bound):
            params = [self.c.resolve_type(p.type) for p in _params(template.decl)]
        return bound, params


# ---------------------------------------------------------------------- the compiler mixin
class OverloadMixin:
    """Overload sets and ``auto`` return types for the compiler (see the module docstring)."""

    if TYPE_CHECKING:
        pre: Any
        functions: dict[str, Function]
        defined: dict[str, int]
        current: Function | None
        tpl: Templates
        _cxx_ready: dict[int, tuple[c_ast.Node, CExpr]]
        _cxx_auto: list[CType]

        def error(self, node: c_ast.Node | None, message: str, construct: str = "") -> CompileError: ...
        def position(self, node: c_ast.Node | None) -> tuple[int | None, int | None]: ...
        def scalar(self, node: c_ast.Node, scope: Scope) -> CExpr: ...
        def resolve_type(self, node: c_ast.Node) -> CType: ...
        def implicit_method_call(self, node: c_ast.FuncCall, scope: Scope) -> CExpr | None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.overload_sets: dict[str, list[Candidate]] = {}  # a C++ name -> its overloads
        self.tpl = OverloadedTemplates(self, self.overload_sets)
        self._decls: dict[str, list[c_ast.Decl]] = {}  # function name -> its declarations so far
        self._extern_c_lines: set[int] | None = None
        self._auto_functions: dict[str, c_ast.FuncDef | None] = {}  # return type still to deduce
        self._auto_lines: dict[str, tuple[CType, int]] = {}  # function -> (deduced type, line)

    # .................................................................. declarations
    def declare_function(self, decl: c_ast.Decl, fdef: c_ast.FuncDef | None) -> None:
        name = decl.name
        auto = _returns_auto(decl)
        if name not in self.functions and name not in self.overload_sets:
            self._declare(decl, fdef, auto)
            self._decls.setdefault(name, []).append(decl)
            return
        params, ret = self._signature(decl, auto)
        members = self.overload_sets.get(name) or [Candidate(name, False)]
        for cand in members:
            fn = self.functions.get(cand.name) if not cand.is_template else None
            if fn is not None and [t for _, t in fn.params] == params:
                self.check_same_function(decl, self._decls.get(cand.name, [decl])[0], fn, ret)
                decl.name = cand.name
                self._declare(decl, fdef, auto)
                self._decls.setdefault(cand.name, []).append(decl)
                return
        self.check_not_extern_c(name, decl)
        if name in getattr(self.pre, "defaults", {}):
            raise self.error(decl, f"default arguments of overloaded function '{name}' are not supported "
                             "by the emulator (write the overloads without them)", "overload with defaults")
        if name in self.functions:
            self._rename_first(name)
        internal = f"{name}({shown_types(params)})"
        if name in self.pre.global_functions:
            self.pre.global_functions.add(internal)
        decl.name = internal
        self._declare(decl, fdef, auto)
        self._decls.setdefault(internal, []).append(decl)
        self.overload_sets.setdefault(name, []).append(Candidate(internal, False))

    def _declare(self, decl: c_ast.Decl, fdef: c_ast.FuncDef | None, auto: bool) -> None:
        if not auto:
            super().declare_function(decl, fdef)  # type: ignore[misc]
            return
        if decl.name in self.pre.global_functions:
            raise self.error(decl, f"__global__ function '{decl.name}' has an 'auto' return type; a "
                             "kernel returns void", "auto kernel")
        trailing = self._trailing_type(decl)
        self._cxx_auto.append(trailing or ct.VOID)
        try:
            super().declare_function(decl, fdef)  # type: ignore[misc]
        finally:
            self._cxx_auto.pop()
        if trailing is None and (fdef is not None or decl.name not in self._auto_functions):
            self._auto_functions[decl.name] = fdef

    def check_same_function(self, decl: c_ast.Decl, first: c_ast.Decl, fn: Function, ret: CType | None) -> None:
        """``decl`` has the parameter types of ``first``: it must declare the same function."""
        name = _base_name(fn.name)
        if ret is not None and name not in self._auto_functions and fn.name not in self._auto_functions \
                and ret != fn.ret:
            raise self.error(decl, f"'{name}' is declared with return type {fn.ret} (line "
                             f"{self.position(first)[0]}) and {ret} here: functions that differ only in "
                             "their return type cannot be overloaded", "overload by return type")
        if _param_keys(decl, quals=False) == _param_keys(first, quals=False) and \
                _param_keys(decl, quals=True) != _param_keys(first, quals=True):
            raise self.error(decl, f"overloads of '{name}' that differ only in const (line "
                             f"{self.position(first)[0]} and here) are one function to the emulator, "
                             "which does not track const; give them different names",
                             "overload by const")

    def _signature(self, decl: c_ast.Decl, auto: bool) -> tuple[list[CType], CType | None]:
        """The parameter types of ``decl`` and its return type (None: to be deduced), declared
        under a scratch name and taken back."""
        name, scratch = decl.name, f"{decl.name}@scratch"
        kernel = name in self.pre.global_functions
        if kernel:
            self.pre.global_functions.add(scratch)
        decl.name = scratch
        try:
            self._declare(decl, None, auto)
        finally:
            decl.name = name
            self.pre.global_functions.discard(scratch)
        deduced = self._auto_functions.pop(scratch, 0) != 0
        fn = self.functions.pop(scratch)
        return [t for _, t in fn.params], None if deduced else fn.ret

    def _rename_first(self, name: str) -> None:
        """The name's first function, now one of several, is renamed by its parameter types."""
        fn = self.functions.pop(name)
        fn.name = f"{name}({shown_types([t for _, t in fn.params])})"
        self.check_not_extern_c(name, self._decls[name][0])
        self.functions[fn.name] = fn
        if name in self.pre.global_functions:
            self.pre.global_functions.add(fn.name)
        decls = self._decls.pop(name, [])
        for decl in decls:
            decl.name = fn.name
        self._decls[fn.name] = decls
        if name in self.defined:
            self.defined[fn.name] = self.defined.pop(name)
        if name in self._auto_functions:
            self._auto_functions[fn.name] = self._auto_functions.pop(name)
        self.overload_sets.setdefault(name, []).insert(0, Candidate(fn.name, False))

    def check_not_extern_c(self, name: str, decl: c_ast.Decl) -> None:
        line = self.position(decl)[0] or 0
        in_main_file = decl.coord is None or decl.coord.file in (None, "", getattr(self, "filename", None))
        if in_main_file and line in self.extern_c_lines():
            raise self.error(decl, f"more than one instance of overloaded function '{name}' has \"C\" "
                             "linkage: an extern \"C\" function cannot be overloaded (C linkage gives "
                             "one symbol per name); drop extern \"C\" or rename one of them",
                             "overloaded extern \"C\" function")

    def extern_c_lines(self) -> set[int]:
        """Lines of the source whose function declarations have C linkage."""
        if self._extern_c_lines is None:
            self._extern_c_lines = _extern_c_lines("\n".join(self.pre.lines))
        return self._extern_c_lines

    def _trailing_type(self, decl: c_ast.Decl) -> CType | None:
        text = getattr(self.pre, "trailing_returns", {}).get(self.position(decl)[0] or 0, {}).get(
            _base_name(decl.name))
        if text is None:
            return None
        ctype = self.tpl.type_from_text(text)
        if ctype is None:
            raise self.error(decl, f"the trailing return type '{text}' is not a type the emulator "
                             "knows", "trailing return type")
        return ctype

    # .................................................................. auto return types
    def compile_function(self, fdef: c_ast.FuncDef) -> None:
        name = fdef.decl.name
        if name not in self._auto_functions:
            super().compile_function(fdef)  # type: ignore[misc]
            return
        fn = self.functions[name]
        if fn.body is not None:
            return  # compiled early, at a call
        self._auto_lines.pop(name, None)
        super().compile_function(fdef)  # type: ignore[misc]
        self._auto_functions.pop(name, None)
        deduced = self._auto_lines.pop(name, None)
        fn.ret = deduced[0] if deduced is not None else ct.VOID

    def visit_Return(self, node: c_ast.Return, scope: Scope) -> Any:
        fn = self.current
        if fn is None or fn.name not in self._auto_functions:
            return super().visit_Return(node, scope)  # type: ignore[misc]
        line = self.position(node)[0] or 0
        if node.expr is None:
            ctype = ct.VOID
        else:
            value = self.scalar(node.expr, scope)
            self._cxx_ready[id(node.expr)] = (node.expr, value)
            ctype = ct.BOOL if value.ctype is ct.TRUTH else value.ctype
            if isinstance(node.expr, c_ast.Constant) and node.expr.type == "char":
                ctype = ct.CHAR  # 'a' is a char in C++
        known = self._auto_lines.get(fn.name)
        if known is not None and known[0] != ctype:
            self._cxx_ready.pop(id(node.expr), None)
            raise self.error(node, f"'{_base_name(fn.name)}' has an 'auto' return type deduced as "
                             f"{known[0]} on line {known[1]} but as {ctype} here; every return must "
                             "deduce the same type (cast one, or write the return type)",
                             "conflicting auto return types")
        self._auto_lines.setdefault(fn.name, (ctype, line))
        fn.ret = ctype
        try:
            return super().visit_Return(node, scope)  # type: ignore[misc]
        finally:
            self._cxx_ready.pop(id(node.expr), None)

    def device_call(self, fn: Function, arg_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                    scope: Scope) -> CExpr:
        if fn.name in self._auto_functions and fn.name not in self._auto_lines:  # not deduced yet
            self._deduce_now(fn, node)
        return super().device_call(fn, arg_nodes, node, scope)  # type: ignore[misc]

    def _deduce_now(self, fn: Function, node: c_ast.Node) -> None:
        """Compile an ``auto`` template instance's body now, so that its caller knows its type."""
        pending = next((p for p in self.tpl.pending if p[0].decl.name == fn.name), None)
        if pending is None:
            raise self.error(node, f"function '{_base_name(fn.name)}' with an 'auto' return type "
                             "cannot be used before its return type is deduced (define it before "
                             "the call; a recursive call needs a written return type)",
                             "auto return type used before deduction")
        self.tpl.pending.remove(pending)
        with self._nested_function(), self.tpl.template_context(pending[1]):
            self.compile_function(pending[0])

    @contextmanager
    def _nested_function(self) -> Iterator[None]:
        """Save the per-function state of the compiler around a nested compile_function."""
        names = ("current", "nslots", "loop_depth", "local_scope", "_cxx_const_ptrs", "switch_depth")
        saved = {n: getattr(self, n) for n in names if hasattr(self, n)}
        try:
            yield
        finally:
            for n, v in saved.items():
                setattr(self, n, v)

    # .................................................................. calls
    def expr_FuncCall(self, node: c_ast.FuncCall, scope: Scope) -> CExpr:
        if isinstance(node.name, c_ast.ID) and node.name.name in self.overload_sets \
                and scope.lookup(node.name.name) is None:
            member = self.implicit_method_call(node, scope)  # inside a method, its struct's f hides ::f
            return member if member is not None else self.overloaded_call(node, node.name.name, scope)
        return super().expr_FuncCall(node, scope)  # type: ignore[misc]

    def overloaded_call(self, node: c_ast.FuncCall, name: str, scope: Scope) -> CExpr:
        arg_nodes = list(node.args.exprs) if node.args is not None else []
        args = [self.scalar(a, scope) for a in arg_nodes]
        types = [ct.CHAR if isinstance(n, c_ast.Constant) and n.type == "char" else a.ctype  # 'a' is a char in C++
                 for n, a in zip(arg_nodes, args, strict=True)]
        explicit = _call_args(self.pre.templates.call_args, node.name)
        viable: list[Viable] = []
        for cand in self.overload_sets[name]:
            found = self._viable(cand, explicit, types, node, scope)
            if found is not None:
                viable.append(found)
        best = best_of(viable)
        if len(best) != 1:
            self._no_single_best(node, name, types, best)
        choice = best[0]
        try:
            for a, e in zip(arg_nodes, args, strict=True):
                self._cxx_ready[id(a)] = (a, e)
            if isinstance(choice, Function):
                return self.device_call(choice, arg_nodes, node, scope)
            template, bound = choice
            return self.device_call(self.tpl.instantiate(template, bound, node), arg_nodes, node, scope)
        finally:
            for a in arg_nodes:
                self._cxx_ready.pop(id(a), None)

    def _viable(self, cand: Candidate, explicit: tuple[str, ...], types: list[CType],
                node: c_ast.FuncCall, scope: Scope) -> Viable | None:
        choice: Any
        if not cand.is_template:
            fn = self.functions[cand.name]
            if explicit or fn.is_kernel:
                return None
            params, choice = [t for _, t in fn.params], fn
        else:
            template = self.tpl.templates[cand.name]
            if len(_params(template.decl)) != len(types) or template.is_kernel:
                return None
            try:
                bound, params = self.tpl.bindings_for(template, explicit, types, node, scope)  # type: ignore[attr-defined]
            except CompileError:
                return None
            choice = (template, bound)
        if len(params) != len(types):
            return None
        ranks = [conversion_rank(a, p) for a, p in zip(types, params, strict=True)]
        if any(r is None for r in ranks):
            return None
        specificity = _specificity(self.tpl.templates[cand.name]) if cand.is_template else None
        return Viable([r for r in ranks if r is not None], specificity, choice)

    def _no_single_best(self, node: c_ast.FuncCall, name: str, types: list[CType], best: list[Any]) -> None:
        shown = f"({shown_types(types)})"
        if best:
            listed = "; ".join(self._shown(c) for c in best)
            raise self.error(node, f"more than one instance of overloaded function '{name}' matches "
                             f"the argument list {shown}: {listed}", f"ambiguous call to {name}")
        listed = "; ".join(self._shown(c) for c in self.overload_sets[name])
        raise self.error(node, f"no instance of overloaded function '{name}' matches the argument "
                         f"list {shown}; the candidates are: {listed}", f"no matching {name}")

    def _shown(self, cand: Any) -> str:
        if isinstance(cand, Candidate) and not cand.is_template:
            cand = self.functions[cand.name]
        if isinstance(cand, Function):
            base = _base_name(cand.name)
            return f"{base}({shown_types([t for _, t in cand.params])})"
        template = self.tpl.templates[cand.name] if isinstance(cand, Candidate) else cand[0]
        params = ", ".join(_param_text(p) for p in _params(template.decl))
        return f"{template.definition.header} {template.definition.name}({params})"

    # .................................................................. the program
    def compile(self, ast: c_ast.FileAST) -> Program:
        program = super().compile(ast)  # type: ignore[misc]
        program.overloads = {name: [c.name for c in members if not c.is_template]
                             for name, members in self.overload_sets.items()}
        return program


def _base_name(name: str) -> str:
    """``twice`` of ``twice(float)``, ``pick`` of ``pick<float>``."""
    return re.split(r"[(<]", name, maxsplit=1)[0]


def _returns_auto(decl: c_ast.Decl) -> bool:
    node = decl.type.type if isinstance(decl.type, c_ast.FuncDecl) else None
    while isinstance(node, (c_ast.PtrDecl, c_ast.TypeDecl)):
        node = node.type
    return isinstance(node, c_ast.IdentifierType) and AUTO in node.names


def _extern_c_lines(text: str) -> set[int]:
    """Lines holding a declaration with C linkage: inside ``extern "C" { ... }`` or the
    function named after a lone ``extern "C"``."""
    text = blank_comments(text)
    lines: set[int] = set()
    for m in _EXTERN_C.finditer(text):
        k = m.end()
        while k < len(text) and text[k].isspace():
            k += 1
        if k < len(text) and text[k] == "{":
            depth, j = 0, k
            for j in range(k, len(text)):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    break
            lines.update(range(text.count("\n", 0, k) + 1, text.count("\n", 0, j) + 2))
        else:
            call = _NAME_CALL.search(text, k)
            if call is not None:
                lines.add(text.count("\n", 0, call.start()) + 1)
    return lines


# ---------------------------------------------------------------------- trailing return types
_AUTO_FUNCTION = re.compile(rf"\b{AUTO}\b[^;{{}}()=]*?\b([A-Za-z_]\w*)\s*\(")
_TRAILING = re.compile(r"\s*->\s*([^;{}]+?)\s*(?=[;{])")
_LINE_DIRECTIVE = re.compile(r'^#\s*(\d+)\s+"', re.M)


def lower_trailing_returns(pre: Any) -> Any:
    """``auto f(float v) -> float {`` -> ``auto f(float v)          {``; the type's text is kept
    in ``pre.trailing_returns`` (source line -> function name -> text) for the compiler."""
    text = pre.text
    if "->" not in text or AUTO not in text:
        return pre
    table: dict[int, dict[str, str]] = {}
    out, pos = [], 0
    for m in _AUTO_FUNCTION.finditer(text):
        close = _closing_paren(text, m.end() - 1)
        trailing = _TRAILING.match(text, close + 1) if close > 0 else None
        if trailing is None or close + 1 < pos:
            continue
        table.setdefault(_source_line(text, m.start(1)), {})[m.group(1)] = " ".join(trailing.group(1).split())
        out += [text[pos:close + 1], re.sub(r"[^\n]", " ", text[close + 1:trailing.end()])]
        pos = trailing.end()
    if not table:
        return pre
    pre.text = "".join(out) + text[pos:]
    setattr(pre, "trailing_returns", table)  # noqa: B010
    return pre


def _closing_paren(text: str, k: int) -> int:
    depth = 0
    for j in range(k, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j
    return -1


def _source_line(text: str, pos: int) -> int:
    """The line the parser gives offset ``pos`` (after the last ``# N "file"`` before it)."""
    line_start = text.rfind("\n", 0, pos) + 1
    directives = list(_LINE_DIRECTIVE.finditer(text, 0, line_start))
    directive = directives[-1] if directives else None
    if directive is None:
        return text.count("\n", 0, pos) + 1
    after = text.find("\n", directive.start()) + 1
    return int(directive.group(1)) + text.count("\n", after, pos)


# ---------------------------------------------------------------------- launching
def _accepts(ptype: CType, value: Any) -> bool:
    """Whether a launch argument binds parameter ``ptype`` without a conversion."""
    from .layout import numpy_dtype
    if ptype.is_pointer:
        if value is None:
            return True
        pointee = ptype.pointee
        if not isinstance(value, np.ndarray) or pointee is None:
            return False
        want = numpy_dtype(pointee) if pointee.layout is not None else pointee.dtype
        return want is not None and value.dtype == want
    if ptype.layout is not None:
        return getattr(value, "dtype", None) == numpy_dtype(ptype)
    if ptype.dtype is None or (isinstance(value, np.ndarray) and value.ndim > 0):
        return False
    if isinstance(value, (np.generic, np.ndarray)):
        return bool(value.dtype == ptype.dtype)
    if isinstance(value, bool):
        return ptype.dtype.kind == "b"
    if isinstance(value, int):
        return ptype.dtype.kind in "iu"
    if isinstance(value, float):
        return ptype.dtype.kind == "f"
    return False


_CAST_NAME = re.compile(r"\s*\(\s*void\s*\(\s*\*\s*\)\s*\((?P<params>[^()]*)\)\s*\)\s*&?\s*"
                        r"(?P<name>[A-Za-z_]\w*)\s*$")
_STATIC_CAST_NAME = re.compile(r"\s*static_cast\s*<\s*void\s*\(\s*\*\s*\)\s*\((?P<params>[^()]*)\)\s*>\s*"
                               r"\(\s*&?\s*(?P<name>[A-Za-z_]\w*)\s*\)\s*$")


def _type_named(program: Program, text: str) -> CType | None:
    """``const float*``, ``unsigned int``, ``Particle*``: the C type a parameter text names."""
    depth = text.count("*")
    words = [w for w in re.findall(r"[A-Za-z_]\w*", text)
             if w not in ("const", "volatile", "restrict", "__restrict__", "struct")]
    ctype = ct.type_from_specifiers(words) if words else None
    if ctype is None and len(words) == 1:
        ctype = program.structs.get(words[0])
    for _ in range(depth):
        ctype = ct.pointer_to(ctype) if ctype is not None else None
    return ctype


def _cast_kernel(program: Program, name: str, params_text: str, expression: str) -> str:
    """The kernel a cast name expression selects by its parameter types."""
    texts = [t for t in params_text.split(",") if t.strip() not in ("", "void")]
    types = [_type_named(program, t) for t in texts]
    candidates = getattr(program, "overloads", {}).get(name) or [name]
    for candidate in candidates:
        fn = program.functions.get(candidate)
        if fn is not None and fn.is_kernel and [t for _, t in fn.params] == types:
            return candidate
    kernels = " and ".join(c for c in candidates if c in program.functions) or "none"
    raise SimtError(f"the name expression {expression!r} names no kernel of the source (kernels named "
                    f"{name!r}: {kernels})")


def _shown_argument(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return f"{value.dtype.name} array"
    if isinstance(value, (np.generic, np.ndarray)):
        return value.dtype.name
    return type(value).__name__


def select_kernel(program: Program, name: str, args: Sequence[Any]) -> str:
    """The kernel a launch of ``name`` with ``args`` runs: ``name`` itself, or, when ``name`` is
    an overloaded kernel, the one overload the argument types select (else a SimtError), or
    the one a cast name expression names (``(void(*)(const float*, float*))k``, which NVRTC
    resolves for CuPy's ``RawModule(name_expressions=...)``)."""
    cast = _CAST_NAME.match(name) or _STATIC_CAST_NAME.match(name)
    if cast is not None:
        return _cast_kernel(program, cast.group("name"), cast.group("params"), name)
    if _SIGNATURE_NAME.match(name):
        raise SimtError(f"{name!r}: a kernel is launched by its name ('{_base_name(name).strip()}'); CuPy's "
                        "name expressions have no 'k(types)' form (NVRTC rejects it), so an overloaded "
                        "kernel is picked by the launch's argument types")
    overloads = [n for n in getattr(program, "overloads", {}).get(name.strip(), [])
                 if program.functions[n].is_kernel]
    if not overloads:
        return name
    fits = [n for n in overloads if len(program.functions[n].params) == len(args)
            and all(_accepts(t, v) for (_, t), v in zip(program.functions[n].params, args, strict=True))]
    if len(fits) == 1:
        return fits[0]
    shown = ", ".join(_shown_argument(v) for v in args)
    if fits:
        raise SimtError(f"the launch of overloaded kernel {name!r} with ({shown}) matches more than one "
                        f"overload: {' and '.join(fits)}; pass numpy scalars (np.int32(...), "
                        "np.float32(...)) to choose")
    raise SimtError(f"no overload of kernel {name!r} takes ({shown}); the overloads are "
                    f"{' and '.join(overloads)} (an array binds a pointer to its dtype, a numpy scalar "
                    "a parameter of its dtype)")
