"""Source lowering for C++ struct templates (``template <typename T> struct Pair {...};``).

Part of the template pass of :mod:`gpulab.simt.templates`; lines keep their lines and, as far
as the text allows, their columns. For a struct template:

* the header becomes a placeholder typedef of its type parameters (as for a function
  template), so the struct body parses as an ordinary struct that :mod:`.structs` lowers; the
  compiler (:mod:`.struct_instances`) sets it aside and builds one struct per set of template
  arguments, named as C++ prints it (``Pair<float>``);
* every use ``Pair<float>`` (also ``Pair<T>`` inside another template) becomes a fresh
  identifier of the same width, declared as a placeholder type name; :class:`StructTemplateTable`
  keeps what it stood for, and the compiler instantiates it when it resolves the name (in the
  template context of the moment, so ``Packed128<ElementType>`` in a function template
  follows that template's arguments);
* ``X::m`` with ``X`` such a use, a ``typedef`` of one (``typedef Packed128<float> f128;``)
  or a template's type parameter (``T::size``) becomes one identifier, resolved by the
  compiler to a static member of the instance;
* in the struct body, ``static constexpr`` data members are blanked and kept as texts (the
  compiler evaluates them per instance: ``static constexpr int size = sizeof(int4) /
  sizeof(T);``), ``static`` before a member function is blanked and the function noted as
  static, and ``Name() = default;`` becomes an empty default constructor.

Partial specializations, forward declarations, base classes and member templates of a struct
template are refused with an error naming them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# The template pass of .templates (its _Lowering: src, table, edits, claimed, header_edit,
# items) and its TemplateParam; not imported, as that module imports this one.
Lowering = Any
Param = Any

_IDENT = re.compile(r"[A-Za-z_]\w*")
_ATTRIBUTES = ("alignas", "__align__", "__attribute__")
_SPECIFIERS = {"static", "constexpr", "inline", "__device__", "__host__", "__forceinline__"}


@dataclass(frozen=True)
class StaticMember:
    """``static constexpr TYPE NAME = INIT;`` in a struct template's body."""

    name: str
    type_text: str
    init: str
    line: int


@dataclass(frozen=True)
class StructTemplateDef:
    """A struct template found in the source."""

    name: str
    params: tuple[Param, ...]
    line: int
    position: tuple[int, int]
    header: str
    statics: tuple[StaticMember, ...] = ()
    static_methods: frozenset[str] = frozenset()

    def signature(self) -> str:
        parts = [("typename " + p.name) if p.kind == "type" else f"{p.type_text} {p.name}"
                 for p in self.params]
        return f"{self.name}<{', '.join(parts)}>"


@dataclass(frozen=True)
class TemplateUse:
    """``Pair<float>`` in the source: the template, its argument texts and the line."""

    name: str
    args: tuple[str, ...]
    line: int

    def text(self) -> str:
        return f"{self.name}<{', '.join(self.args)}>"


@dataclass
class StructTemplateTable:
    """What lowering learned about struct templates, for :mod:`.structs` and the compiler."""

    definitions: dict[str, StructTemplateDef] = field(default_factory=dict)
    uses: dict[str, TemplateUse] = field(default_factory=dict)  # fresh type name -> use
    aliases: set[str] = field(default_factory=set)  # typedef names of a use
    qualified: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # X::m -> (X, m, line)
    instantiations: list[TemplateUse] = field(default_factory=list)  # template struct Pair<float>;

    def type_names(self) -> set[str]:
        """Names that :mod:`.structs` must read as struct types (``T(args)``, ``T{args}``)."""
        return set(self.uses) | self.aliases


@dataclass
class PendingHeader:
    """A struct template's header, rewritten once its uses are known (their type names are
    declared in it)."""

    definition: StructTemplateDef
    header: tuple[int, int]  # text offsets of the header
    type_names: list[str]


def starts_struct(lw: Lowering, j: int) -> bool:
    """Does the declaration after a template header at token ``j`` define a struct?"""
    toks = lw.src.tokens
    while j < len(toks) and toks[j].text in _ATTRIBUTES \
            and j + 1 < len(toks) and toks[j + 1].text == "(":
        j = lw.src.matching(j + 1) + 1
        if j <= 0:
            return False
    return j < len(toks) and toks[j].text in ("struct", "class", "union")


def lower_definition(lw: Lowering, k: int, close: int, params: list[Param],
                     pending: list[PendingHeader]) -> int:
    """``template <...> struct Name { ... };``: note it; the header is rewritten later."""
    src, toks = lw.src, lw.src.tokens
    j = close + 1
    while toks[j].text in _ATTRIBUTES:
        end = src.matching(j + 1)
        _blank(lw, j, end)  # alignment: the emulator's buffers are aligned at least as well
        j = end + 1
    keyword = toks[j]
    if _in_namespace(lw, k):
        raise src.error(toks[k], "struct templates inside a namespace are not supported by the "
                        "emulator (define it at file scope)", "struct template in a namespace")
    if keyword.text == "union":
        raise src.error(toks[k], "union templates are not supported by the emulator", "union template")
    if keyword.text == "class":
        _class_as_struct(lw, j)
    n = j + 1
    while n + 1 < len(toks) and toks[n].text in _ATTRIBUTES and toks[n + 1].text == "(":
        end = src.matching(n + 1)  # struct alignas(16) Name: blanked as above
        _blank(lw, n, end)
        n = end + 1
    name_tok = toks[n] if n < len(toks) else keyword
    if not _IDENT.fullmatch(name_tok.text):
        raise src.error(keyword, "a struct template needs a name", "class template")
    after = toks[n + 1].text if n + 1 < len(toks) else ""
    if after == "<":
        raise src.error(name_tok, f"partial specialization of struct template '{name_tok.text}' "
                        "is not supported by the emulator", "partial specialization")
    if after == ";":
        raise src.error(name_tok, f"struct template '{name_tok.text}' is declared without its "
                        "definition; the emulator needs the definition here", "class template declaration")
    if after == ":":
        raise src.error(name_tok, f"struct template '{name_tok.text}' has a base class; inheritance "
                        "is not supported by the emulator", "inheritance")
    if after != "{":
        raise src.error(name_tok, f"struct template '{name_tok.text}': expected '{{' after its name",
                        "class template")
    statics, static_methods = _body(lw, n + 1, name_tok.text)
    definition = StructTemplateDef(
        name_tok.text, tuple(params), src.where(toks[k].start)[0], src.where(name_tok.start),
        "template <" + src.text_between(k + 2, close - 1) + ">", tuple(statics),
        frozenset(static_methods))
    if definition.name in lw.table.structs.definitions:
        raise src.error(name_tok, f"struct template '{definition.name}' is defined twice",
                        "redefinition")
    lw.table.structs.definitions[definition.name] = definition
    pending.append(PendingHeader(definition, (toks[k].start, toks[close].end),
                                 [p.name for p in params if p.kind == "type"]))
    lw.claimed.update(range(k, close + 1))
    return close


def explicit_instantiation(lw: Lowering, k: int) -> int:
    """``template struct Pair<float>;``: blanked, and noted for the compiler to instantiate."""
    src, toks = lw.src, lw.src.tokens
    name = toks[k + 2] if k + 2 < len(toks) else toks[k]
    if name.text not in lw.table.structs.definitions or k + 3 >= len(toks) or toks[k + 3].text != "<":
        raise src.error(toks[k], f"explicit instantiation: '{name.text}' is not a struct template "
                        "defined above", "explicit instantiation")
    close = src.closing_angle(k + 3)
    if close < 0 or close + 1 >= len(toks) or toks[close + 1].text != ";":
        raise src.error(toks[k], "explicit instantiation: expected 'template struct Name<...>;'",
                        "explicit instantiation")
    args = tuple(src.text_between(a, b) for a, b in lw.items(k + 4, close - 1))
    lw.table.structs.instantiations.append(TemplateUse(name.text, args, src.where(toks[k].start)[0]))
    _blank(lw, k, close + 1)
    lw.claimed.update(range(k, close + 2))
    return close + 1


def _in_namespace(lw: Lowering, k: int) -> bool:
    """Is token ``k`` inside the braces of a ``namespace``?"""
    toks = lw.src.tokens
    stack: list[bool] = []  # per open brace: a namespace's?
    for j in range(k):
        t = toks[j].text
        if t == "{":
            stack.append(j > 0 and (toks[j - 1].text == "namespace" or (
                j > 1 and toks[j - 2].text == "namespace")))
        elif t == "}" and stack:
            stack.pop()
    return any(stack)


def _class_as_struct(lw: Lowering, j: int) -> None:
    """``class`` (5 letters) becomes ``struct``, in the blank before it when there is one (else
    the rest of that line moves one column)."""
    tok = lw.src.tokens[j]
    before = tok.start > 0 and lw.src.text[tok.start - 1] in " \t"
    lw.edits.append((tok.start - 1 if before else tok.start, tok.end, "struct"))


def _blank(lw: Lowering, a: int, b: int) -> None:
    toks = lw.src.tokens
    start, end = toks[a].start, toks[b].end
    lw.edits.append((start, end, re.sub(r"[^\n]", " ", lw.src.text[start:end])))


def _body(lw: Lowering, open_brace: int, name: str) -> tuple[list[StaticMember], set[str]]:
    """Static members and ``= default`` constructors of the body at ``open_brace``."""
    src, toks = lw.src, lw.src.tokens
    close = src.matching(open_brace)
    statics: list[StaticMember] = []
    static_methods: set[str] = set()
    j = open_brace + 1
    while j < close:
        end, paren = _member_end(lw, j, close)
        words = [t.text for t in toks[j:end + 1]]
        if "template" in words[:1]:
            raise src.error(toks[j], f"member templates (in struct template '{name}') are not "
                            "supported by the emulator", "member template")
        if "static" in words and paren < 0:
            statics.append(_static_data(lw, j, end, name))
        elif "static" in words and j + words.index("static") < paren:
            static_at = j + words.index("static")
            _blank(lw, static_at, static_at)
            static_methods.add(toks[paren - 1].text)
        elif paren >= 0 and toks[paren - 1].text == name and toks[paren + 1].text == ")" \
                and words[-3:] == ["=", "default", ";"]:  # Name() = default; (others stay refused)
            eq = end - 2
            start, stop = toks[eq].start, toks[end].end
            lw.edits.append((start, stop, "{}" + " " * (stop - start - 2)))
        j = end + 1
    return statics, static_methods


def _member_end(lw: Lowering, j: int, close: int) -> tuple[int, int]:
    """Last token of the member starting at ``j`` and its parameter list's '(' (or -1)."""
    toks = lw.src.tokens
    paren = -1
    k = j
    while k < close:
        t = toks[k].text
        if t == ";":
            return k, paren
        if t in (":",) and k == j + 1 and toks[j].text in ("public", "private", "protected"):
            return k, -1
        if t == "(" and paren < 0 and toks[k - 1].text not in ("alignas", "__align__", "sizeof"):
            paren = k
            k = lw.src.matching(k)
        elif t in ("(", "["):
            k = lw.src.matching(k)
        elif t == "{":
            end = lw.src.matching(k)
            if end + 1 < close and toks[end + 1].text == ";":
                end += 1
            return end, paren
        k += 1
    return close - 1, paren


def _static_data(lw: Lowering, a: int, b: int, name: str) -> StaticMember:
    src, toks = lw.src, lw.src.tokens
    words = [t.text for t in toks[a:b + 1]]
    line = src.where(toks[a].start)[0]
    if "=" not in words:
        raise src.error(toks[a], f"static data member of struct template '{name}' without an "
                        "initializer in the struct: the emulator supports 'static constexpr TYPE "
                        "NAME = VALUE;'", "static data member")
    eq = words.index("=")
    decl = [w for w in words[:eq] if w not in _SPECIFIERS]
    if "[" in decl or len(decl) < 2 or not _IDENT.fullmatch(decl[-1]):
        raise src.error(toks[a], f"this static member of struct template '{name}' is not supported "
                        "by the emulator (only 'static constexpr TYPE NAME = VALUE;')", "static data member")
    if "constexpr" not in words[:eq] and "const" not in decl:
        raise src.error(toks[a], f"static data member '{decl[-1]}' of struct template '{name}' is "
                        "not const: mutable static members are not supported by the emulator",
                        "static data member")
    type_words = [w for w in decl[:-1] if w != "const"]
    _blank(lw, a, b)
    return StaticMember(decl[-1], " ".join(type_words), src.text_between(a + eq + 1, b - 1), line)


# ---------------------------------------------------------------------------- uses


def lower_uses(lw: Lowering, pending: list[PendingHeader]) -> None:
    """Rewrite ``Name<args>`` and ``X::m`` (see the module docstring); write the headers."""
    table = lw.table.structs
    if not table.definitions:
        return
    src, toks = lw.src, lw.src.tokens
    fresh: dict[tuple[str, int], str] = {}
    by_template: dict[str, list[str]] = {name: [] for name in table.definitions}
    use_at: dict[int, tuple[int, str]] = {}  # a use's last token -> (its first, fresh name)
    k = 0
    while k < len(toks) - 1:
        tok = toks[k]
        if tok.text not in table.definitions or toks[k + 1].text != "<" or k in lw.claimed \
                or (k > 0 and toks[k - 1].text in (".", "->", "struct")):
            k += 1
            continue
        close = src.closing_angle(k + 1)
        if close < 0:
            k += 1
            continue
        if "\n" in src.text[tok.start:toks[close].end]:
            raise src.error(tok, f"write '{tok.text}<...>' on one line (the emulator keeps lines "
                            "and columns)", "template arguments")
        nested = next((t.text for t in toks[k + 2:close] if t.text in table.definitions), None)
        if nested is not None or toks[close].text == ">>":
            raise src.error(tok, f"a struct template instance as a template argument of '{tok.text}' "
                            f"is not supported by the emulator; name it first (typedef "
                            f"{nested or '...'}<...> Name;) and pass the name", "nested template argument")
        args = tuple(src.text_between(a, b) for a, b in lw.items(k + 2, close - 1))
        use = TemplateUse(tok.text, args, src.where(tok.start)[0])
        width = toks[close].end - tok.start
        name = fresh.get((use.text(), width))
        if name is None:
            name = _fresh_name("_St", len(table.uses), width)
            fresh[(use.text(), width)] = name
            table.uses[name] = use
            by_template[use.name].append(name)
        lw.edits.append((tok.start, toks[close].end, name))
        lw.claimed.update(range(k, close + 1))
        use_at[close] = (k, name)
        k = close + 1
    _aliases(lw, use_at)
    _qualified(lw, use_at)
    for p in pending:
        lw.header_edit(p.header[0], p.header[1], p.type_names + by_template[p.definition.name])


def _fresh_name(prefix: str, n: int, width: int) -> str:
    name = f"{prefix}{n}"
    return name + "_" * max(0, width - len(name))


def _aliases(lw: Lowering, use_at: dict[int, tuple[int, str]]) -> None:
    """``typedef Pair<float> PairF;``: PairF names a struct type too."""
    toks = lw.src.tokens
    for close, (first, _name) in use_at.items():
        if first > 0 and toks[first - 1].text == "typedef" and close + 2 < len(toks) \
                and _IDENT.fullmatch(toks[close + 1].text) and toks[close + 2].text == ";":
            lw.table.structs.aliases.add(toks[close + 1].text)


def _qualified(lw: Lowering, use_at: dict[int, tuple[int, str]]) -> None:
    """``f128::size``, ``Pair<float>::make(...)``, ``T::size``: one identifier each."""
    table = lw.table.structs
    src, toks = lw.src, lw.src.tokens
    params = {p.name for d in table.definitions.values() for p in d.params if p.kind == "type"}
    params |= {p.name for d in lw.table.definitions.values() for p in d.params if p.kind == "type"}
    qualifiers = table.aliases | params
    k = 0
    while k < len(toks) - 2:
        if toks[k + 1].text != "::" or not _IDENT.fullmatch(toks[k + 2].text) \
                or (k > 0 and toks[k - 1].text in ("::", ".", "->")):
            k += 1
            continue
        if k in use_at:
            qualifier, start = use_at[k][1], toks[use_at[k][0]].start
        elif toks[k].text in qualifiers and k not in lw.claimed:
            qualifier, start = toks[k].text, toks[k].start
        else:
            k += 1
            continue
        end = toks[k + 2].end
        name = _fresh_name("_Sq", len(table.qualified), end - start)
        table.qualified[name] = (qualifier, toks[k + 2].text, src.where(start)[0])
        lw.edits = [e for e in lw.edits if not (e[0] >= start and e[1] <= end)]
        lw.edits.append((start, end, name))
        k += 3


def rename_call_args(lw: Lowering) -> None:
    """``lanes_of<Packed<double> >()``: the recorded argument text names the use's type name."""
    uses = lw.table.structs.uses
    if not uses:
        return
    names = {use.text(): name for name, use in uses.items()}
    pattern = re.compile("|".join(re.escape(t) for t in sorted(names, key=len, reverse=True)))
    table = lw.table.call_args
    for at, args in table.items():
        table[at] = tuple(pattern.sub(lambda m: names[m.group(0)], a) for a in args)
