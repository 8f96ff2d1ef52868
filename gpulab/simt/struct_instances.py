"""Struct templates in the compiler: one struct per set of template arguments.

:mod:`gpulab.simt.struct_templates` has lowered each use ``Pair<float>`` to a placeholder type
name and kept the template's struct as an ordinary one (its type parameters as placeholder
typedefs), whose member functions :mod:`.structs` wrote as free functions. Here the compiler
sets the template's struct and member functions aside (:meth:`StructInstances.collect`) and,
when it resolves a use, builds the instance (:meth:`StructInstances.resolve`):

* the arguments are read and checked as a function template's are (:mod:`.instantiate`:
  kinds, number, narrowing, defaults), in the template context of the moment;
* the instance is the template's struct named as C++ prints it (``Pair<float>``), its member
  types resolved with the parameters bound; its ``static constexpr`` members are evaluated
  in order (``size = sizeof(int4) / sizeof(T)`` may size a member array);
* each member function is declared for the instance (``Pair<float>::sum``) and compiled
  later in the instance's context: the parameters, the static members, and the struct's own
  name meaning the instance (C++'s injected class name);
* ``X::m`` reads a static member (a constant) or calls a static member function (on a
  zero object of the instance, which such a function cannot look at).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pycparser import c_ast

from .ctypes_ import CType
from .instantiate import Binding, Template, shown_argument
from .layout import VECTOR_TYPES
from .struct_templates import StructTemplateDef
from .structmem import zero_value
from .structs import MemberInfo
from .values import CExpr, constant


@dataclass
class _StructTemplate:
    definition: StructTemplateDef
    struct: c_ast.Decl | None = None  # the struct's definition (placeholder types)
    members: list[tuple[c_ast.Decl, c_ast.FuncDef | None, MemberInfo]] = field(default_factory=list)


def _coord(node: c_ast.Node) -> tuple[int, int]:
    coord = node.coord
    return (coord.line, coord.column) if coord is not None else (0, 0)


class StructInstances:
    """Struct template instantiation, a part of one :class:`gpulab.simt.compiler.Compiler`."""

    def __init__(self, compiler: Any) -> None:
        self.c = compiler
        self.table = compiler.pre.templates.structs
        self.templates: dict[str, _StructTemplate] = {}
        self.instances: dict[tuple[Any, ...], CType] = {}
        self.of_instance: dict[str, tuple[_StructTemplate, list[Binding]]] = {}  # name -> template, context
        self.building: set[tuple[Any, ...]] = set()
        self.names: set[str] = set(self.table.uses) | set(self.table.definitions)  # resolve() knows these
        self.qualified: dict[str, tuple[str, str, int]] = self.table.qualified

    # ------------------------------------------------------------------ collecting
    def collect(self, exts: Sequence[c_ast.Node]) -> list[c_ast.Node]:
        """Set the struct templates (struct and member functions) and their placeholder
        typedefs aside; return the rest."""
        if not self.table.definitions:
            return list(exts)
        self.templates = {name: _StructTemplate(d) for name, d in self.table.definitions.items()}
        placeholders = {p.name for d in self.table.definitions.values() for p in d.params} | set(self.table.uses)
        positions = self.c.pre.templates.typedef_names
        kept = []
        for ext in exts:
            if isinstance(ext, c_ast.Typedef) and (ext.name in self.templates or (
                    ext.name in placeholders and _coord(ext) in positions)):
                continue
            if isinstance(ext, c_ast.Decl) and ext.name is None and isinstance(ext.type, c_ast.Struct) \
                    and ext.type.name in self.templates and ext.type.decls is not None:
                self.templates[ext.type.name].struct = ext
                continue
            decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
            info = self.c.member_info.get(decl.name) if isinstance(decl, c_ast.Decl) else None
            if info is not None and info.owner in self.templates:
                fdef = ext if isinstance(ext, c_ast.FuncDef) else None
                self.templates[info.owner].members.append((decl, fdef, info))
                continue
            kept.append(ext)
        self.forget_generic_members()
        return kept

    def forget_generic_members(self) -> None:
        """The template's own member functions are no overloads of anything."""
        overloads = self.c.overloads
        for key in list(overloads):
            if key[1] in self.templates:
                del overloads[key]
            elif key[0] == "operator":
                overloads[key] = [n for n in overloads[key]
                                  if self.c.member_info[n].owner not in self.templates]

    # ------------------------------------------------------------------ instances
    def instantiate_explicit(self) -> None:
        """``template struct Pair<float>;`` in the source: the instance and its members."""
        for use in self.table.instantiations:
            self.instance(use.name, use.args, use.line)

    def resolve(self, name: str, node: c_ast.Node) -> CType:
        """The struct a placeholder type name stands for (instantiated on first use)."""
        if name in self.templates:
            d = self.templates[name].definition
            raise self.c.error(node, f"'{name}' is a struct template ({d.header}): give its template "
                               f"arguments, e.g. '{name}<{', '.join(_example(d))}>'", "template arguments")
        use = self.table.uses[name]
        where = node if node.coord is not None else use.line
        return self.instance(use.name, use.args, where)

    def instance(self, name: str, args: Sequence[str], where: Any) -> CType:
        template = self.templates[name]
        if template.struct is None:
            raise self.c.tpl.where_error(where, f"struct template '{name}' has no definition",
                                         "class template")
        self.c.typedefs.update({w: VECTOR_TYPES[w] for w in re.findall(r"\w+", " ".join(args))
                                if w in VECTOR_TYPES and w not in self.c.typedefs})  # Pair<float2>
        shim = Template(template.definition, template.struct, None, False)  # type: ignore[arg-type]
        explicit = self.c.tpl.explicit_bindings(shim, args, where)
        bound = self.c.tpl.complete_bindings(shim, explicit, {}, where)
        key = (name, *bound)
        known = self.instances.get(key)
        if known is not None:
            return known
        shown = f"{name}<{', '.join(shown_argument(b) for b in bound)}>"
        if key in self.building:
            raise self.c.tpl.where_error(where, f"struct {shown} contains itself", "incomplete struct")
        self.building.add(key)
        statics = self.static_members(template, bound, shown, where)
        node = copy.copy(template.struct.type)
        node.name = shown
        with self.context(bound + statics):
            ctype = self.c.struct_type(node)
        self.instances[key] = ctype
        full = [*bound, (name, ctype, None), *statics]
        self.of_instance[shown] = (template, full)
        self.member_functions(template, shown, full)
        self.building.discard(key)
        return ctype

    def static_members(self, template: _StructTemplate, bound: list[Binding], shown: str,
                       where: Any) -> list[Binding]:
        """``static constexpr`` members, each evaluated with the earlier ones known."""
        statics: list[Binding] = []
        for s in template.definition.statics:
            with self.context(bound + statics):
                self.c.typedefs.update({w: VECTOR_TYPES[w] for w in re.findall(r"\w+", s.init)
                                        if w in VECTOR_TYPES and w not in self.c.typedefs})  # sizeof(int4)
                ptype = self.c.tpl.type_from_text(s.type_text)
                if ptype is None or ptype.dtype is None:
                    raise self.c.tpl.where_error(s.line, f"static member '{s.name}' of {shown}: type "
                                                 f"'{s.type_text}' is not supported (a scalar is "
                                                 "needed)", "static data member")
                value = self.c.tpl.value_from_text(s.init, f"static member '{s.name}' of {shown}", s.line)
            statics.append((s.name, ptype, ptype.dtype.type(value.const)))
        return statics

    def member_functions(self, template: _StructTemplate, shown: str, full: list[Binding]) -> None:
        """Declare the instance's member functions now; their bodies are compiled later."""
        c = self.c
        for decl, fdef, info in template.members:
            static = info.kind == "method" and info.name in template.definition.static_methods
            new = dataclasses.replace(info, owner=shown, const=info.const or static,
                                      name=shown if info.kind == "ctor" else info.name)
            d = copy.copy(decl)
            d.name = c.member_function_name(new, d)
            c.member_info[d.name] = new
            if decl.name in c.subscript_accessors:
                c.subscript_accessors[d.name] = c.subscript_accessors[decl.name]
            if decl.name in c.default_args:
                c.default_args[d.name] = c.default_args[decl.name]
            if info.kind == "ctor" and template.definition.name in c.trivial_default:
                c.trivial_default.add(shown)
            f = None
            if fdef is not None:
                f = copy.copy(fdef)
                f.decl = d
            with self.context(full):
                c.declare_function(d, f)
            if f is not None:
                c.tpl.pending.append((f, full))

    @contextmanager
    def context(self, bound: list[Binding]) -> Iterator[None]:
        saved = self.c.local_scope
        self.c.local_scope = None
        try:
            with self.c.tpl.template_context(bound):
                yield
        finally:
            self.c.local_scope = saved

    # ------------------------------------------------------------------ X::m
    def qualifier(self, qname: str, node: c_ast.Node) -> tuple[CType, str, _StructTemplate, list[Binding]]:
        text, member, _line = self.qualified[qname]
        ctype = self.c.resolve_type(c_ast.IdentifierType([text], coord=node.coord))
        found = self.of_instance.get(ctype.name)
        if found is None:
            raise self.c.error(node, f"'{_shown(self.table, text)}::{member}': {ctype} is not an "
                               "instance of a struct template (the emulator knows static members "
                               "of struct templates only)", "static member")
        return ctype, member, found[0], found[1]

    def static_member(self, ctype: CType, member: str) -> CExpr | None:
        """The value of ``ctype``'s static constexpr ``member`` (None: it has none)."""
        found = self.of_instance.get(ctype.name)
        if found is None or not any(s.name == member for s in found[0].definition.statics):
            return None
        return next(constant(value, mtype) for name, mtype, value in found[1]
                    if name == member and value is not None)

    def static_value(self, node: c_ast.ID) -> CExpr:
        """``f128::size``: a static constexpr member's value."""
        ctype, member, _template, _full = self.qualifier(node.name, node)
        static = self.static_member(ctype, member)
        if static is not None:
            return static
        if ("method", ctype.name, member) in self.c.overloads:
            raise self.c.error(node, f"'{ctype}::{member}' is a member function: call it",
                               "static member")
        raise self.c.error(node, f"'{member}' is not a static member of {ctype}", f"member {member}")

    def static_call(self, node: c_ast.FuncCall, scope: Any) -> CExpr:
        """``Packed128<float>::zeros()``: a static member function."""
        ctype, member, template, _full = self.qualifier(node.name.name, node.name)
        if ("method", ctype.name, member) not in self.c.overloads:
            raise self.c.error(node, f"{ctype} has no member function '{member}'", f"member {member}")
        if member not in template.definition.static_methods:
            raise self.c.error(node, f"'{ctype}::{member}' is not a static member function: call it "
                               "on an object", "static member function")
        zero = zero_value(ctype)
        nobody = CExpr(ctype, lambda fr, m: zero, True)
        args = [self.c.scalar(a, scope) for a in (node.args.exprs if node.args else [])]
        return self.c.call_method(nobody, member, args, node)


def _example(d: StructTemplateDef) -> list[str]:
    return ["float" if p.kind == "type" else "4" for p in d.params if p.default is None]


def _shown(table: Any, text: str) -> str:
    use = table.uses.get(text)
    return use.text() if use is not None else text

