"""Function templates in the compiler: one compiled copy per set of template arguments.

:mod:`gpulab.simt.templates` has lowered the source so that pycparser parsed each template
as an ordinary function (its type parameters as placeholder typedefs). Here the compiler
sets those functions aside and compiles a copy, named as CuPy's name expressions name it
(``reduce<256>``, ``k<float>``), whenever one is asked for:

* by the launch (``simt.launch(src, "reduce<256>", ...)``, ``--kernel 'k<float>'``), passed
  to :func:`gpulab.simt.translate.compile_source` as a request (part of its cache key);
* by an explicit instantiation in the source (``template __global__ void k<float>(float*);``);
* by a call, with explicit arguments (``warpReduce<blockSize>(sdata, tid)``), arguments
  deduced from the call's argument types (``maxof(x, y)`` with float x, y), or both.

While a copy is compiled, a type parameter is a typedef of its argument and a value
parameter a compile-time constant in the scope around the function, so it works in array
sizes, expressions and further template arguments. Default template arguments are
evaluated with the earlier parameters bound. Arguments are checked as C++ does: the right
kind (type or value), a value that fits its parameter's type (no narrowing), no
conflicting deductions.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from pycparser import c_ast, c_parser

from . import ctypes_ as ct
from .ctypes_ import TYPEDEF_PRELUDE, CType
from .errors import CompileError
from .symbols import CompilerView, Function, Scope, Var
from .templates import TemplateDef, TemplateParam, split_name_expression
from .values import CExpr, constant

MAX_INSTANCES = 256  # a template that instantiates itself without end stops here
_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*")
_PRELUDE_NAMES = set(re.findall(r"(\w+);", TYPEDEF_PRELUDE))

# (parameter name, type, value): value is None for a type parameter
Binding: TypeAlias = tuple[str, CType, Any]
Where: TypeAlias = "c_ast.Node | int | None"  # a node, or a line, or nowhere (a launch's name expression)


@dataclass
class Template:
    """A function template set aside by the compiler."""

    definition: TemplateDef
    decl: c_ast.Decl
    fdef: c_ast.FuncDef | None
    is_kernel: bool


def _coord(node: c_ast.Node) -> tuple[int, int]:
    coord = node.coord
    return (coord.line, coord.column) if coord is not None else (0, 0)


def _definition_of(definitions: dict[tuple[int, int], TemplateDef], decl: c_ast.Decl) -> TemplateDef | None:
    """The template recorded for function ``decl``: at its name's position (or of its name on its
    line, where a lowering moved the name), or, in a namespace
    (whose lowering lengthens names before it on the line, ``T`` -> ``gemm__T``), the one of
    that name on its line."""
    found = definitions.get(_coord(decl))
    if found is None and decl.name:  # a C++ lowering before the name moved it (auto -> __cxx_auto)
        found = next((d for (at, _column), d in definitions.items()
                      if at == _coord(decl)[0] and d.name == decl.name), None)  # fmt: skip
    if found is None and decl.name and "__" in decl.name:
        line = _coord(decl)[0]
        found = next((d for (at, _column), d in definitions.items()
                      if at == line and decl.name.endswith("__" + d.name)), None)  # fmt: skip
    return found


def _call_args(table: dict[tuple[int, int], tuple[str, ...]], name: c_ast.ID) -> tuple[str, ...]:
    """The explicit template arguments written at call ``name``. A qualified call (``gemm::f<4>``)
    was lowered to one identifier of the same length (``gemm__f``) starting where its namespace
    did; its arguments were recorded at the last part's column."""
    line, column = _coord(name)
    found = table.get((line, column))
    if found is None and "__" in name.name:
        tail = name.name.rsplit("__", 1)[1]
        found = table.get((line, column + len(name.name) - len(tail)))
    return found or ()


def shown_argument(binding: Binding) -> str:
    """How a template argument appears in an instance's name."""
    _, ctype, value = binding
    if value is None:
        return str(ctype)
    if ctype.dtype is not None and ctype.dtype.kind == "b":
        return "true" if value else "false"
    return str(int(value))


def _pattern(node: c_ast.Node, type_params: set[str]) -> tuple[str, int] | None:
    """``T`` -> (T, 0), ``T*``/``T[]`` -> (T, 1): a function parameter type that deduces T."""
    depth = 0
    while isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        depth += 1
        node = node.type
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        names = node.type.names
        if len(names) == 1 and names[0] in type_params:
            return names[0], depth
    return None


class Templates:
    """Template instantiation, a part of one :class:`gpulab.simt.compiler.Compiler`."""

    def __init__(self, compiler: CompilerView) -> None:
        self.c = compiler
        self.templates: dict[str, Template] = {}
        self.instances: dict[tuple[Any, ...], Function] = {}
        self.pending: list[tuple[c_ast.FuncDef, list[Binding]]] = []
        self.aliases: dict[str, str] = {}  # a requested name -> the instance's name

    def definitions(self) -> dict[str, TemplateDef]:
        return {name: t.definition for name, t in self.templates.items()}

    # ------------------------------------------------------------------ collecting
    def collect(self, exts: Sequence[c_ast.Node]) -> list[c_ast.Node]:
        """Set the templates' functions and placeholder typedefs aside; return the rest."""
        table = self.c.pre.templates
        if not table.definitions:
            return list(exts)
        kept = []
        placeholders = {ext.name for ext in exts
                        if isinstance(ext, c_ast.Typedef) and _coord(ext) in table.typedef_names}  # fmt: skip
        for ext in exts:
            if isinstance(ext, c_ast.Typedef) and _coord(ext) in table.typedef_names:
                continue
            decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
            definition = _definition_of(table.definitions, decl) \
                if isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.FuncDecl) else None
            if definition is not None and decl.name.endswith("__" + definition.name):
                # Declared in a namespace: lowering renamed it (gemm::f -> gemm__f) after the
                # template was recorded, and its calls the same way; a type parameter's
                # placeholder typedef was renamed too (gemm__T), and so were its uses.
                prefix = decl.name[: -len(definition.name)]
                params = tuple(dataclasses.replace(p, name=prefix + p.name)
                               if p.kind == "type" and prefix + p.name in placeholders else p
                               for p in definition.params)  # fmt: skip
                definition = dataclasses.replace(definition, name=decl.name, params=params)
            if definition is None or definition.name != decl.name:
                kept.append(ext)
                continue
            self.add_template(definition, decl, ext if isinstance(ext, c_ast.FuncDef) else None)
        return kept

    def add_template(self, definition: TemplateDef, decl: c_ast.Decl,
                     fdef: c_ast.FuncDef | None) -> None:
        known = self.templates.get(definition.name)
        if known is not None and known.fdef is not None and fdef is not None:
            raise self.c.error(decl, f"template '{definition.name}' is defined twice (first on line "
                             f"{known.definition.line})", "redefinition")
        if known is not None and fdef is None:
            return  # a declaration after the definition adds nothing
        is_kernel = definition.name in self.c.pre.global_functions
        self.templates[definition.name] = Template(definition, decl, fdef, is_kernel)

    def check_template_names(self) -> None:
        """A template and an ordinary function of one name would be an overload set."""
        for name, template in self.templates.items():
            if name in self.c.functions:
                raise self.c.error(template.decl, f"'{name}' is both a template and an ordinary "
                                 "function (overloading is not supported by the emulator)",
                                 "function overloading")

    # ------------------------------------------------------------------ requests
    def instantiate_requests(self, requests: Sequence[str]) -> None:
        """Explicit instantiations in the source, then the launch's name expressions."""
        self.check_template_names()
        for text, line in self.c.pre.templates.instantiations:
            self.instantiate_named(text, line)
        for text in requests:
            self.instantiate_named(text, None)

    def instantiate_named(self, text: str, where: Where) -> None:
        parsed = split_name_expression(text)
        if parsed is None:
            return  # a plain kernel name: the launch looks it up
        name, args = parsed
        template = self.templates.get(name)
        if template is None:
            hint = f" (launch it as '{name}')" if name in self.c.functions else ""
            raise self.where_error(where, f"'{name}' is not a template{hint}", "template arguments")
        if not template.is_kernel and where is None:
            raise self.where_error(where, f"'{name}' is a __device__ template; only __global__ "
                                   "functions can be launched", "template arguments")
        explicit = self.explicit_bindings(template, args, where)
        fn = self.instantiate(template, self.complete_bindings(template, explicit, {}, where), where)
        if text != fn.name:
            self.aliases[text] = fn.name

    def compile_instances(self) -> None:
        """Compile the bodies of the instances asked for so far (which may ask for more)."""
        while self.pending:
            fdef, bound = self.pending.pop(0)
            with self.template_context(bound):
                self.c.compile_function(fdef)

    # ------------------------------------------------------------------ calls
    def call(self, node: c_ast.FuncCall, name: str,
                      arg_nodes: list[c_ast.Node], scope: Any) -> CExpr:
        """A call of a template function: explicit arguments, then deduced ones."""
        template = self.templates[name]
        explicit_texts = _call_args(self.c.pre.templates.call_args, node.name)
        explicit = self.explicit_bindings(template, explicit_texts, node, scope)
        deduced = self.deduce(template, [b[0] for b in explicit], arg_nodes, node, scope)
        bound = self.complete_bindings(template, explicit, deduced, node)
        fn = self.instantiate(template, bound, node)
        return self.c.device_call(fn, arg_nodes, node, scope)

    def deduce(self, template: Template, explicit: list[str], arg_nodes: list[c_ast.Node],
               node: c_ast.Node, scope: Any) -> dict[str, CType]:
        """Type parameters from the types of the call's arguments (``T``, ``T*``, ``T[]``)."""
        params = template.decl.type.args.params if template.decl.type.args else []
        types = [self.c.scalar(arg, scope).ctype if isinstance(param, c_ast.Decl) else ct.VOID
                 for param, arg in zip(params, arg_nodes, strict=False)]
        return self.deduce_from_types(template, explicit, types, node)

    def deduce_from_types(self, template: Template, explicit: list[str], types: list[CType],
                          node: c_ast.Node) -> dict[str, CType]:
        """Type parameters from the call's argument types (the arguments already compiled)."""
        params = template.decl.type.args.params if template.decl.type.args else []
        type_params = {p.name for p in template.definition.params if p.kind == "type"} - set(explicit)
        deduced: dict[str, CType] = {}
        for index, (param, ctype) in enumerate(zip(params, types, strict=False)):
            pattern = _pattern(param.type, type_params) if isinstance(param, c_ast.Decl) else None
            if pattern is None:
                continue
            name, depth = pattern
            for _ in range(depth):
                if not ctype.is_pointer or ctype.pointee is None:
                    raise self.c.error(node, f"{template.definition.name}: cannot deduce {name} "
                                     f"from argument {index + 1} ({ctype}): a pointer is needed",
                                     "template argument deduction")
                ctype = ctype.pointee
            ctype = ct.BOOL if ctype is ct.TRUTH else ctype
            if name in deduced and deduced[name] != ctype:
                raise self.c.error(node, f"{template.definition.name}: template argument deduction "
                                 f"failed: {name} is {deduced[name]} from one argument but {ctype} "
                                 f"from argument {index + 1}", "template argument deduction")
            deduced[name] = ctype
        return deduced

    # ------------------------------------------------------------------ arguments
    def explicit_bindings(self, template: Template, texts: Sequence[str],
                          where: Where, scope: Scope | None = None) -> list[Binding]:
        """The explicit template arguments; a value argument may name a constant of ``scope``
        (``constexpr int n = 4; scale<n>(x)``), else of the template's scope."""
        params = template.definition.params
        if len(texts) > len(params):
            raise self.where_error(where, f"{template.definition.signature()} takes {len(params)} "
                                   f"template argument{'s' if len(params) != 1 else ''}, got "
                                   f"{len(texts)}", "template arguments")
        return [self.template_argument(template, p, text, where, scope)
                for p, text in zip(params, texts, strict=False)]

    def complete_bindings(self, template: Template, explicit: list[Binding],
                          deduced: dict[str, CType], where: Where) -> list[Binding]:
        """Explicit arguments, then deduced ones, then defaults (in the template's scope)."""
        bound = list(explicit)
        for p in template.definition.params[len(explicit):]:
            if p.kind == "type" and p.name in deduced:
                bound.append((p.name, deduced[p.name], None))
            elif p.default is not None:
                with self.template_context(bound):
                    bound.append(self.template_argument(template, p, p.default, where))
            else:
                missing = [q for q in template.definition.params[len(bound):]
                           if q.default is None and q.name not in deduced]
                raise self.where_error(where, missing_arguments_text(template.definition, missing),
                                       "template arguments")
        return bound

    def template_argument(self, template: Template, p: TemplateParam, text: str,
                          where: Where, scope: Scope | None = None) -> Binding:
        what = f"template argument '{text}' for {p.name} of {template.definition.name}"
        if p.kind == "type":
            ctype = self.type_from_text(text)
            if ctype is None:
                raise self.where_error(where, f"{what}: {p.name} is a type parameter (typename "
                                       f"{p.name}), and '{text}' is not a type", "template arguments")
            return p.name, ctype, None
        ptype = self.type_from_text(p.type_text)
        if ptype is None or not ptype.is_integer:
            raise self.where_error(where, f"template parameter '{p.type_text} {p.name}' of "
                                   f"{template.definition.name}: only integer and bool value "
                                   "parameters are supported", "template parameter")
        value = self.value_from_text(text, what, where, scope)
        return p.name, ptype, self.fitting_value(value, ptype, what, where)

    def fitting_value(self, value: CExpr, ptype: CType, what: str, where: Where) -> Any:
        """A value parameter's argument, converted without narrowing as C++ requires."""
        if value.ctype.is_float or not value.ctype.is_scalar:
            raise self.where_error(where, f"{what}: a {value.ctype} value cannot be the argument "
                                   f"of a {ptype} parameter", "template arguments")
        number = int(value.const)
        assert ptype.dtype is not None
        if ptype.dtype.kind == "b":
            ok = number in (0, 1)
        else:
            info = np.iinfo(ptype.dtype)
            ok = int(info.min) <= number <= int(info.max)
        if not ok:
            raise self.where_error(where, f"{what}: {number} does not fit {ptype} (a narrowing "
                                   "conversion, which C++ forbids here)", "template arguments")
        return ptype.dtype.type(number)

    def value_from_text(self, text: str, what: str, where: Where, scope: Scope | None = None) -> CExpr:

        if _INT_LITERAL.fullmatch(text):
            return constant(*ct.parse_int_literal(text))
        node = self.parse_fragment(f"int __simt_argument = ({text});")
        if node is None:
            kind = "a type" if self.type_from_text(text) is not None else "not an expression"
            raise self.where_error(where, f"{what}: a value is needed, and '{text}' is {kind}",
                                   "template arguments")
        try:
            value = self.c.expr(node.init, scope or self.c.const_scope)
        except CompileError as exc:
            raise self.where_error(where, f"{what}: {exc.detail}", "template arguments") from None
        if value.const is None:
            raise self.where_error(where, f"{what}: '{text}' is not a constant expression (a template "
                                   "argument must be a compile-time constant: a literal, a template "
                                   "parameter, or a const/constexpr variable with a constant initializer)",
                                   "template arguments")
        return value

    def type_from_text(self, text: str) -> CType | None:
        """The C type a text names (``float``, ``unsigned int``, ``T*``), or None."""
        node = self.parse_fragment(f"typedef {text} __simt_argument;")
        if not isinstance(node, c_ast.Typedef):
            return None
        try:
            return self.c.resolve_type(node.type)
        except CompileError:
            return None

    def parse_fragment(self, fragment: str) -> Any:
        """The last declaration of ``fragment`` parsed with the known typedef names, or None."""
        names = "".join(f"typedef int {n};" for n in self.c.typedefs if n not in _PRELUDE_NAMES)
        names += "".join(f"typedef int {n};" for n in self.c.stpl.names)  # Pair<float> as a name
        try:
            ast = c_parser.CParser().parse(f"{TYPEDEF_PRELUDE}{names}\n{fragment}\n")
        except Exception:
            return None
        return ast.ext[-1] if ast.ext else None

    # ------------------------------------------------------------------ instances
    def instantiate(self, template: Template, bound: list[Binding], where: Where) -> Function:
        """The instance of ``template`` for ``bound``, declared now, compiled later."""
        key = (template.definition.name, template.definition.position, *((n, t, v) for n, t, v in bound))
        fn = self.instances.get(key)
        if fn is not None:
            return fn
        name = self.instance_name(template, bound)
        if template.fdef is None:
            raise self.where_error(where, f"template '{template.definition.name}' is declared but "
                                   f"never defined (needed for {name})", "template definition")
        if len(self.instances) >= MAX_INSTANCES:
            raise self.where_error(where, f"more than {MAX_INSTANCES} template instances (does "
                                   f"{template.definition.name} instantiate itself without end?)",
                                   "template instantiation depth")
        decl = copy.copy(template.decl)
        decl.name = name
        fdef = copy.copy(template.fdef)
        fdef.decl = decl
        if template.is_kernel:
            self.c.pre.global_functions.add(name)
        with self.template_context(bound):
            self.c.declare_function(decl, fdef)
        fn = self.c.functions[name]
        self.instances[key] = fn
        self.pending.append((fdef, bound))
        return fn

    def instance_name(self, template: Template, bound: list[Binding]) -> str:
        """What an instance is called (``reduce<256>``), as CuPy's name expressions name it."""
        return f"{template.definition.name}<{', '.join(shown_argument(b) for b in bound)}>"

    @contextmanager
    def template_context(self, bound: list[Binding]) -> Iterator[None]:
        """Type parameters as typedefs, value parameters as constants around the function."""

        saved = self.c.typedefs, self.c.const_scope
        typedefs = dict(self.c.typedefs)
        scope = Scope(self.c.file_scope)
        for name, ctype, value in bound:
            if value is None:
                typedefs[name] = ctype
            else:
                scope.names[name] = Var("const", ctype, const=True, value=value)
        self.c.typedefs, self.c.const_scope = typedefs, scope
        try:
            yield
        finally:
            self.c.typedefs, self.c.const_scope = saved

    def where_error(self, where: Where, message: str, construct: str) -> CompileError:
        if isinstance(where, c_ast.Node):
            return self.c.error(where, message, construct)
        return CompileError(message, where, None, construct)


def missing_arguments_text(definition: TemplateDef, missing: Sequence[TemplateParam]) -> str:
    """What a launch or call without (enough) template arguments is told."""
    names = ", ".join((f"typename {p.name}" if p.kind == "type" else f"{p.type_text} {p.name}")
                      for p in missing)
    example = ", ".join("float" if p.kind == "type" else ("true" if p.type_text == "bool" else "256")
                        for p in definition.params if p.default is None)
    return (f"'{definition.name}' is a template ({definition.header}): "
            f"give its template argument{'s' if len(missing) != 1 else ''} {names}, e.g. "
            f"'{definition.name}<{example}>'")


def template_launch_error(program: Any, name: str) -> CompileError | None:
    """The error for launching a template kernel by its bare name (None if not a template)."""
    definition = getattr(program, "templates", {}).get(name)
    if definition is None:
        return None
    required = [p for p in definition.params if p.default is None]
    return CompileError(missing_arguments_text(definition, required or definition.params),
                        definition.line, None, "template arguments")
