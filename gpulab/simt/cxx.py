"""C++ basics of CUDA C++, lowered to the C that pycparser parses (lines kept, columns mapped).

:func:`lower` runs after :func:`gpulab.simt.preprocess.preprocess` and before pycparser. It
works on tokens and rewrites only what C lacks; the compiler mixin in
:mod:`gpulab.simt.cxx_compile` gives the rewritten forms their C++ meaning:

================================  ==================================================
CUDA C++                          lowered C (compiled by the mixin)
================================  ==================================================
``auto x = e;`` ``auto* p``       ``__cxx_auto x = e;`` (a reserved typedef; the type
                                  is the initializer's C++ type)
``float &x``, ``const T& y``      ``float *restrict x`` (``restrict`` marks a
                                  reference: CUDA C++ has no ``restrict`` keyword)
``static_cast<T>(e)``             ``__cxx_static_cast((T)(e))``, likewise
                                  ``reinterpret_cast`` and ``const_cast``
``float(i)``, ``int{3}``          ``((float)(i))``, ``((int)(3))``
``float x{1.0f}``, ``int a{}``    ``float x={1.0f}``, ``int a={}``
``f(float a, float b = 2.0f)``    the ``= 2.0f`` is blanked and kept in
                                  :attr:`Lowered.defaults`
``namespace foo { ... }``         members renamed ``foo__bar``; ``foo::bar``,
                                  ``using namespace foo;``, ``using foo::bar;``,
                                  ``namespace f = foo;`` and ``::bar`` resolve to them
================================  ==================================================

Constructs outside the subset are named in a :class:`CompileError` with their line
(:data:`REJECTED`, a table of token patterns), never left to a bare "syntax error".

Namespaces from elsewhere (API for library namespaces such as cooperative groups)
--------------------------------------------------------------------------------------
A module that implements a library namespace registers its names once, at import::

    from gpulab.simt import cxx
    cxx.register_namespace(
        "cooperative_groups",
        members={"this_thread_block": "__cg_this_thread_block",
                 "thread_block": "__cg_thread_block"},
        types={"thread_block"},                       # names that are types
        rejected={"this_grid": "grid-wide synchronisation is not supported"})

Then ``cooperative_groups::this_thread_block()``, ``cg::this_thread_block()`` after
``namespace cg = cooperative_groups;``, and plain ``this_thread_block()`` after ``using
namespace cooperative_groups;`` all become the C identifier ``__cg_this_thread_block``
(what follows it, such as ``<32>`` or ``(block)``, is left as written). A member in
``types`` is treated as a type name (so ``cg::thread_block& b`` is a reference
parameter); a member in ``rejected`` gives a CompileError with that message; any other
name in a registered namespace is a CompileError "'x' is not a member of namespace ...".
The registry is :data:`NAMESPACES`; C identifiers should start with ``__`` (reserved).
User namespaces in the kernel source are lowered the same way, with members renamed
``outer__inner__name``; kernels (``__global__``) keep their plain name, as ``extern "C"``
gives them. ``std::`` names are a CompileError: device code has no standard library
without its headers (NVRTC rejects ``std::min`` too; ``::min`` and ``min`` work).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields

from .errors import CompileError
from .preprocess import Preprocessed

AUTO = "__cxx_auto"
CAST_FUNCTIONS = {"static_cast": "__cxx_static_cast", "reinterpret_cast": "__cxx_reinterpret_cast",
                  "const_cast": "__cxx_const_cast"}
PRELUDE = f"typedef int {AUTO};"

_TOKEN = re.compile(r"""(?P<id>[A-Za-z_]\w*)|(?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)"""
                    r"""|(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
                    r"""|(?P<op>::|->\*?|\.\.\.|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^!=]=|\S)""")
_BUILTIN_TYPES = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
                  "bool", "_Bool", "auto", AUTO}
_KEYWORDS = {"if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case",
             "default", "goto", "sizeof", "struct", "class", "union", "enum", "namespace", "using",
             "typedef", "static", "extern", "const", "volatile", "template", "typename", "try",
             "operator", "this", "new", "delete", "true", "false", "nullptr", "public",
             "private", "protected", "noexcept", "override", "final", "constexpr", "inline",
             "register", "auto", "throw", "catch", "virtual", "friend", "mutable", "explicit"}
_CV = {"const", "volatile"}
# Tokens after which a '(' or '[' starts an expression rather than a declarator.
_EXPRESSION_BEFORE = {"(", ",", "=", "+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=",
                      "&&", "||", "!", "~", "?", ":", "[", "return", "&", "|", "^", "<<", ">>",
                      "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


@dataclass(frozen=True)
class Namespace:
    """A library namespace: member name -> the C identifier it lowers to."""

    members: dict[str, str]
    types: frozenset[str] = frozenset()
    rejected: dict[str, str] = field(default_factory=dict)


#: Registered library namespaces (see the module docstring).
NAMESPACES: dict[str, Namespace] = {}


def register_namespace(name: str, members: dict[str, str], types: Iterable[str] = (),
                       rejected: dict[str, str] | None = None) -> None:
    """Make ``name::member`` lower to ``members[member]`` (see the module docstring)."""
    NAMESPACES[name] = Namespace(dict(members), frozenset(types), dict(rejected or {}))


@dataclass
class DefaultArgument:
    """A default argument's lowered text and where it stood."""

    text: str
    line: int
    column: int


@dataclass
class Lowered(Preprocessed):
    """Preprocessed text after the C++ lowering, with the lowering's own column map."""

    spans: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    defaults: dict[str, dict[int, DefaultArgument]] = field(default_factory=dict)
    qualified: dict[str, str] = field(default_factory=dict)  # C identifier -> a::b
    head: str = ""  # the prelude text before the source's first line

    def original_column(self, line: int, column: int) -> int:
        """Lowered column -> preprocessed column -> original source column."""
        return Preprocessed.original_column(self, line, _map_column(self.spans.get(line, []), column))

    def readable(self, text: str) -> str:
        """``text`` with lowered identifiers shown as the source wrote them."""
        if not self.qualified:
            return text
        return re.sub(r"\b(?:" + "|".join(map(re.escape, self.qualified)) + r")\b",
                      lambda m: self.qualified[m.group(0)], text)


def _map_column(spans: list[tuple[int, int, int, int]], column: int) -> int:
    delta = 0
    for new_start, new_end, old_start, old_end in spans:
        if column - 1 < new_start:
            break
        if column - 1 < new_end:
            return old_start + 1
        delta = old_end - new_end
    return column + delta


# ---------------------------------------------------------------------- tokens
@dataclass
class Tok:
    """A source token; passes edit ``text`` and the insertions around it."""

    kind: str  # id, num, str, op
    orig: str
    start: int  # offset in the body text
    line: int
    column: int  # 1-based
    text: str = ""
    before: str = ""
    after: str = ""
    pad: bool = False  # a removed token that keeps its width as spaces

    def __post_init__(self) -> None:
        self.text = self.orig

    def blank(self) -> None:
        self.text, self.before, self.after, self.pad = "", "", "", True


def _tokenize(body: str) -> list[Tok]:
    toks: list[Tok] = []
    line, line_start = 1, 0
    pos = 0
    for m in _TOKEN.finditer(body):
        newlines = body.count("\n", pos, m.start())
        if newlines:
            line += newlines
            line_start = body.rfind("\n", 0, m.start()) + 1
        pos = m.start()
        kind = m.lastgroup or "op"
        toks.append(Tok(kind, m.group(0), m.start(), line, m.start() - line_start + 1))
    return toks


def _fail(tok: Tok, message: str, construct: str) -> CompileError:
    return CompileError(message, tok.line, tok.column, construct)


class _Source:
    """The token list of the kernel body and helpers the passes share."""

    def __init__(self, body: str, head: str) -> None:
        self.body = body
        self.toks = _tokenize(body)
        self.types = set(_BUILTIN_TYPES) | _typedef_names(head)

    def live(self) -> list[Tok]:
        return [t for t in self.toks if t.text != ""]

    def render(self) -> tuple[str, dict[int, list[tuple[int, int, int, int]]]]:
        out: list[str] = []
        spans: dict[int, list[tuple[int, int, int, int]]] = {}
        pos = 0
        col_shift: dict[int, int] = {}
        for t in self.toks:
            out.append(self.body[pos:t.start])
            rendered = " " * len(t.orig) if t.pad and not t.text else t.before + t.text + t.after
            shift = col_shift.get(t.line, 0)
            if rendered != t.orig:
                new_start = t.column - 1 + shift
                if len(rendered) != len(t.orig):
                    spans.setdefault(t.line, []).append(
                        (new_start, new_start + len(rendered), t.column - 1, t.column - 1 + len(t.orig)))
                col_shift[t.line] = shift + len(rendered) - len(t.orig)
            out.append(rendered)
            pos = t.start + len(t.orig)
        out.append(self.body[pos:])
        return "".join(out), spans


def _typedef_names(text: str) -> set[str]:
    return set(re.findall(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*;", text))


class _Unbalanced(Exception):
    """Brackets do not match: the lowering stops and leaves the text to the parser's message."""


def _match(toks: list[Tok], i: int, open_: str, close: str) -> int:
    """Index of the token closing the bracket at ``i``."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    raise _Unbalanced


def _prev(toks: list[Tok], i: int) -> str:
    return toks[i - 1].text if i > 0 else ";"


def _next(toks: list[Tok], i: int) -> str:
    return toks[i + 1].text if i + 1 < len(toks) else ""


_BRACKET_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


# ---------------------------------------------------------------------- named rejections
@dataclass(frozen=True)
class Rejected:
    """A construct outside the subset: ``match(tokens, i)`` says it starts at token i, which
    is one of the ``triggers``."""

    construct: str
    message: str
    match: Callable[[list[Tok], int], bool]
    triggers: tuple[str, ...]


def _word(w: str) -> Callable[[list[Tok], int], bool]:
    return lambda toks, i: toks[i].text == w


def _is_lambda(toks: list[Tok], i: int) -> bool:
    if toks[i].text != "[" or _prev(toks, i) not in _EXPRESSION_BEFORE | {";", "{", "}"}:
        return False
    if _prev(toks, i) == "[":  # [[attribute]]
        return False
    try:
        close = _match(toks, i, "[", "]")
    except _Unbalanced:
        return False
    return _next(toks, close) in ("(", "{", "mutable", "->")


def _is_inheritance(toks: list[Tok], i: int) -> bool:
    return (toks[i].text in ("class", "struct") and i + 2 < len(toks)
            and toks[i + 1].kind == "id" and toks[i + 2].text == ":")


def _is_variadic_template(toks: list[Tok], i: int) -> bool:
    return toks[i].text in ("typename", "class", "sizeof") and _next(toks, i) == "..."


def _is_operator_new(toks: list[Tok], i: int) -> bool:
    return toks[i].text == "operator" and _next(toks, i) in ("new", "delete")


def _is_multiword_cast(toks: list[Tok], i: int) -> bool:
    return (toks[i].text in ("signed", "unsigned", "long", "short") and i + 2 < len(toks)
            and toks[i + 1].text in ("int", "char", "long", "short", "double")
            and toks[i + 2].text == "(" and _prev(toks, i) in _EXPRESSION_BEFORE)


def _is_range_for(toks: list[Tok], i: int) -> bool:
    """``for (T x : range)``: a ':' at the top level of the parentheses, before any ';'."""
    if _next(toks, i) != "(":
        return False
    depth = 0
    for t in toks[i + 1:]:
        depth += _BRACKET_DEPTH.get(t.text, 0)
        if depth <= 0 or t.text == ";" or t.text == "?":
            return False
        if t.text == ":" and depth == 1:
            return True
    return False


def _is_enum_class(toks: list[Tok], i: int) -> bool:
    return toks[i].text == "enum" and _next(toks, i) in ("class", "struct")


def _is_structured_binding(toks: list[Tok], i: int) -> bool:
    """``auto [a, b] = p;`` (also ``auto& [a, b]``, ``const auto [..]``)."""
    j = i + 1
    while j < len(toks) and toks[j].text in ("&", "&&"):
        j += 1
    return j < len(toks) and toks[j].text == "["


def _has_init_statement(toks: list[Tok], i: int) -> bool:
    """``if (int i = f(); i < n)`` / ``switch (init; x)``: a ';' inside the parentheses."""
    if _next(toks, i) != "(" or _prev(toks, i) == "#":
        return False
    depth = 0
    for t in toks[i + 1:]:
        depth += _BRACKET_DEPTH.get(t.text, 0)
        if depth <= 0:
            return False
        if t.text == ";" and depth == 1:
            return True
    return False


def _is_dependent_name(toks: list[Tok], i: int) -> bool:
    """``typename T::value_type`` (a member type of a template parameter)."""
    return i + 2 < len(toks) and toks[i + 1].kind == "id" and toks[i + 2].text == "::"


def _is_array_reference(toks: list[Tok], i: int) -> bool:
    """``const float (&a)[4]``: a reference to an array."""
    return (_prev(toks, i) == "(" and i + 3 < len(toks) and toks[i + 1].kind == "id"
            and toks[i + 2].text == ")" and toks[i + 3].text == "[")


def _is_user_literal(toks: list[Tok], i: int) -> bool:
    """``1.0_f``, ``16_KiB``: a number with a user-defined suffix (the tokenizer keeps it whole)."""
    return toks[i].kind == "num" and "_" in toks[i].orig


#: Constructs rejected by name, checked in this order at every token.
REJECTED: tuple[Rejected, ...] = (
    Rejected("C++ lambda", "C++ lambdas are not supported by the emulator; write a __device__ "
             "function", _is_lambda, ("[",)),
    Rejected("operator new", "a class's own operator new/delete is not supported by the emulator",
             _is_operator_new, ("operator",)),
    Rejected("new", "'new' (device-side heap allocation) is not supported by the emulator; use "
             "arrays passed to the kernel or __shared__ arrays", _word("new"), ("new",)),
    Rejected("delete", "'delete' (device-side heap) is not supported by the emulator",
             _word("delete"), ("delete",)),
    Rejected("try", "C++ exceptions (try/catch) are not supported in CUDA device code", _word("try"), ("try",)),
    Rejected("catch", "C++ exceptions (try/catch) are not supported in CUDA device code",
             _word("catch"), ("catch",)),
    Rejected("throw", "C++ exceptions (throw) are not supported in CUDA device code", _word("throw"), ("throw",)),
    Rejected("virtual", "virtual functions are not supported by the emulator", _word("virtual"), ("virtual",)),
    Rejected("class inheritance", "class inheritance (class X : Base) is not supported by the "
             "emulator", _is_inheritance, ("class", "struct")),
    Rejected("typeid", "typeid (run-time type information) is not supported in device code",
             _word("typeid"), ("typeid",)),
    Rejected("dynamic_cast", "dynamic_cast (run-time type information) is not supported in "
             "device code; use static_cast", _word("dynamic_cast"), ("dynamic_cast",)),
    Rejected("variadic template", "variadic templates (typename... / sizeof...) are not "
             "supported by the emulator", _is_variadic_template, ("typename", "class", "sizeof")),
    Rejected("decltype", "decltype is not supported by the emulator; write the type or use auto",
             _word("decltype"), ("decltype",)),
    Rejected("range-based for", "range-based for loops (for (x : range)) are not supported by "
             "the emulator; write for (int i = 0; i < n; ++i)", _is_range_for, ("for",)),
    Rejected("enum class", "scoped enums (enum class) are not supported by the emulator",
             _is_enum_class, ("enum",)),
    Rejected("structured binding", "structured bindings (auto [a, b] = ...) are not supported by "
             "the emulator; read the members one by one", _is_structured_binding, ("auto",)),
    Rejected("if with an initializer", "an if or switch with an initializer (if (init; cond)) is "
             "not supported by the emulator; declare the variable before it", _has_init_statement,
             ("if", "switch")),
    Rejected("dependent type name", "dependent type names (typename T::type) are not supported by "
             "the emulator; write the type", _is_dependent_name, ("typename",)),
    Rejected("reference to an array", "a reference to an array (T (&a)[N]) is not supported by "
             "the emulator; pass a pointer", _is_array_reference, ("&",)),
    Rejected("texture object", "texture objects (cudaTextureObject_t, tex1Dfetch, tex2D) are not "
             "supported by the emulator; read the array through a pointer",
             lambda toks, i: toks[i].text != "texture" or _next(toks, i) == "<",
             ("cudaTextureObject_t", "tex1Dfetch", "tex1D", "tex2D", "tex3D", "texture")),
    Rejected("surface object", "surface objects (cudaSurfaceObject_t, surf2Dwrite) are not "
             "supported by the emulator; write the array through a pointer",
             lambda toks, i: True, ("cudaSurfaceObject_t", "surf1Dwrite", "surf2Dwrite", "surf2Dread",
                                    "surf1Dread")),
    Rejected("dynamic parallelism", "a kernel launch inside a kernel (dynamic parallelism, "
             "<<<...>>>) is not supported by the emulator", lambda toks, i: _next(toks, i) == "<",
             ("<<",)),
    Rejected("inline assembly", "inline PTX assembly (asm) is not supported by the emulator; use "
             "the intrinsic functions (e.g. __lane_id() as threadIdx.x % 32)",
             lambda toks, i: _next(toks, i) in ("(", "volatile"), ("asm", "__asm__")),
    Rejected("half precision", "half-precision types (__half, half, __nv_bfloat16) are not "
             "supported by the emulator; use float", lambda toks, i: True,
             ("__half", "__half2", "__nv_bfloat16", "__nv_bfloat162")),
    Rejected("union", "unions are not supported by the emulator; use a struct, or "
             "__float_as_int/__int_as_float to reinterpret bits", _word("union"), ("union",)),
    Rejected("restrict", "'restrict' is a C keyword, not CUDA C++; write __restrict__",
             _word("restrict"), ("restrict",)),
    Rejected("functional cast", "a functional cast needs a one-word type name (write "
             "static_cast<unsigned int>(x) or unsigned(x))", _is_multiword_cast,
             ("signed", "unsigned", "long", "short")),
)


_TRIGGERED: dict[str, list[Rejected]] = {}
for _rule in REJECTED:
    for _trigger in _rule.triggers:
        _TRIGGERED.setdefault(_trigger, []).append(_rule)


def _reject_named(toks: list[Tok]) -> None:
    for i, tok in enumerate(toks):
        if tok.kind == "num" and _is_user_literal(toks, i):
            raise _fail(tok, f"user-defined literals ({tok.orig}) are not supported by the "
                        "emulator", "user-defined literal")
        for rule in _TRIGGERED.get(tok.text, ()):
            if rule.match(toks, i):
                raise _fail(tok, rule.message, rule.construct)


# ---------------------------------------------------------------------- namespaces
@dataclass
class _Scope:
    """A brace block: namespaces opened and using-directives made inside it."""

    namespace: str | None  # the namespace this block is the body of
    using: list[str] = field(default_factory=list)  # namespaces made visible
    names: dict[str, str] = field(default_factory=dict)  # using-declarations


class _Namespaces:
    """Resolve namespace blocks, aliases, using and qualified names (one pass)."""

    def __init__(self, src: _Source, kernels: set[str]) -> None:
        self.src = src
        self.kernels = kernels
        self.members: dict[str, dict[str, str]] = {}  # user namespace path -> name -> C id
        self.types: dict[str, set[str]] = {}
        self.aliases: dict[str, str] = {}
        self.qualified: dict[str, str] = {}
        self.rejected: dict[str, dict[str, str]] = {}

    # first pass: what each user namespace declares
    def collect(self) -> None:
        toks = self.src.toks
        stack: list[str | None] = []
        path: list[str] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.text == "namespace" and not self._is_alias(toks, i) and _prev(toks, i) != "using":
                names, brace = self._header(toks, i)
                stack.append("::".join(names) if names else None)
                if names:
                    path.extend(names)
                i = brace + 1
                continue
            if t.text == "}" and stack:
                opened = stack.pop()
                if opened:
                    del path[-len(opened.split("::")):]
                i += 1
                continue
            if path:  # always advance: a declaration may stop at the token it starts on
                i = max(self._declaration(toks, i, "::".join(path)), i + 1)
            else:
                i = self._skip_declaration(toks, i)
        for ns, table in self.members.items():
            for member, c_name in table.items():
                self.qualified[c_name] = f"{ns}::{member}"

    def _is_alias(self, toks: list[Tok], i: int) -> bool:
        return i + 2 < len(toks) and toks[i + 1].kind == "id" and toks[i + 2].text == "="

    def _header(self, toks: list[Tok], i: int) -> tuple[list[str], int]:
        """``namespace a::b {`` -> (['a', 'b'], index of '{')."""
        names: list[str] = []
        j = i + 1
        if j < len(toks) and toks[j].text == "inline":
            raise _fail(toks[j], "inline namespaces are not supported by the emulator",
                        "inline namespace")
        while j < len(toks) and toks[j].text != "{":
            if toks[j].kind == "id":
                names.append(toks[j].text)
            elif toks[j].text != "::":
                raise _fail(toks[i], "malformed namespace declaration (expected 'namespace "
                            "name {')", "namespace")
            j += 1
        if j >= len(toks):
            raise _fail(toks[i], "namespace without a '{' body", "namespace")
        return names, j

    def _skip_declaration(self, toks: list[Tok], i: int) -> int:
        """Skip one file-scope item that is not in a namespace (bodies included)."""
        t = toks[i]
        if t.text == "{":
            return _match(toks, i, "{", "}") + 1
        return i + 1

    def _declaration(self, toks: list[Tok], i: int, ns: str) -> int:
        """Record the names one namespace-scope declaration declares; return the next index."""
        names = self.members.setdefault(ns, {})
        types = self.types.setdefault(ns, set())
        last: Tok | None = None
        j = i
        is_type_decl = toks[j].text in ("struct", "class", "union", "enum", "typedef", "using")
        declared = self._type_name(toks, i)
        if declared is not None:
            names.setdefault(declared, f"{ns.replace('::', '__')}__{declared}")
            types.add(declared)
        while j < len(toks):
            t = toks[j]
            if t.text in ("namespace", "}"):
                return j
            if t.kind == "id" and t.text not in _KEYWORDS and t.text not in self.src.types \
                    and _prev(toks, j) not in ("::", ".", "->"):
                last = t
            if t.text in ("(", "=", ";", ",", "[", "{") and last is not None:
                if last.text not in self.kernels:
                    names.setdefault(last.text, f"{ns.replace('::', '__')}__{last.text}")
                    if is_type_decl:
                        types.add(last.text)
                last = None
            if t.text == "(":
                j = _match(toks, j, "(", ")") + 1
                continue
            if t.text == "[":
                j = _match(toks, j, "[", "]") + 1
                continue
            if t.text == "=":
                j = self._skip_initializer(toks, j)
                continue
            if t.text == "{":
                end = _match(toks, j, "{", "}")
                if _next(toks, end) == ";" or is_type_decl:
                    j = end + 1
                    continue
                return end + 1  # a function body ends the declaration
            if t.text == ";":
                return j + 1
            j += 1
        return j

    def _type_name(self, toks: list[Tok], i: int) -> str | None:
        """The name a ``struct X`` / ``typedef ... X;`` / ``using X =`` declaration declares."""
        if toks[i].text in ("struct", "class", "union", "enum") and _next(toks, i) not in ("", "{"):
            return toks[i + 1].text
        if toks[i].text == "using" and i + 2 < len(toks) and toks[i + 2].text == "=":
            return toks[i + 1].text
        if toks[i].text == "typedef":
            j = i
            while j < len(toks) and toks[j].text != ";":
                # typedef struct { float x; } R; names R: the braces' own ';' end no typedef
                j = _match(toks, j, "{", "}") + 1 if toks[j].text == "{" else j + 1
            return toks[j - 1].text if j < len(toks) and toks[j - 1].kind == "id" else None
        return None

    def _skip_initializer(self, toks: list[Tok], j: int) -> int:
        depth = 0
        while j < len(toks):
            text = toks[j].text
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}"):
                if depth == 0:
                    return j
                depth -= 1
            elif text in (",", ";") and depth == 0:
                return j
            j += 1
        return j

    # second pass: rewrite
    def rewrite(self) -> None:
        toks = self.src.toks
        scopes: list[_Scope] = [_Scope(None)]
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.text == "namespace":
                i = self._namespace_statement(toks, i, scopes)
                continue
            if t.text == "using":
                i = self._using(toks, i, scopes)
                continue
            if t.text == "{":
                scopes.append(_Scope(None))
            elif t.text == "}":
                if len(scopes) == 1:
                    raise _Unbalanced
                closing = scopes.pop()
                if closing.namespace is not None:
                    t.blank()
            elif t.text == "::":
                i = max(self._qualified(toks, i, scopes), i + 1)
                continue
            elif t.kind == "id" and _prev(toks, i) not in (".", "->", "::") \
                    and (_next(toks, i) != "::" or t.text in _KEYWORDS):
                found = self._lookup(t, scopes)
                if found is not None:
                    t.text = found
            i += 1

    def _namespace_statement(self, toks: list[Tok], i: int, scopes: list[_Scope]) -> int:
        if self._is_alias(toks, i):
            end = i + 3
            parts: list[str] = []
            while end < len(toks) and toks[end].text != ";":
                if toks[end].kind == "id":
                    parts.append(toks[end].text)
                end += 1
            target = self._canonical(parts, toks[i], scopes)
            self.aliases[toks[i + 1].text] = target
            self._blank(toks, i, end + 1)
            return end + 1
        names, brace = self._header(toks, i)
        outer = [s.namespace for s in scopes if s.namespace]
        parts = ([outer[-1]] if outer else []) + (["::".join(names)] if names else [])
        self._blank(toks, i, brace + 1)
        # "" marks an anonymous namespace at file scope: a namespace body without members
        scopes.append(_Scope("::".join(parts) if names else (outer[-1] if outer else "")))
        return brace + 1

    def _using(self, toks: list[Tok], i: int, scopes: list[_Scope]) -> int:
        end = i
        while end < len(toks) and toks[end].text != ";":
            end += 1
        words = [t.text for t in toks[i + 1:end] if t.kind == "id"]
        if _next(toks, i) == "namespace" and words[1:] == ["std"]:
            pass  # NVRTC knows namespace std but none of its members: nothing becomes visible
        elif _next(toks, i) == "namespace":
            ns = self._canonical(words[1:], toks[i], scopes)
            scopes[-1].using.append(ns)
        elif i + 2 < len(toks) and toks[i + 2].text == "=":
            return self._alias_declaration(toks, i, end)
        else:
            ns = self._canonical(words[:-1], toks[i], scopes)
            c_name = self._member(ns, words[-1], toks[i])
            scopes[-1].names[words[-1]] = c_name
        self._blank(toks, i, end + 1)
        return end + 1

    def _alias_declaration(self, toks: list[Tok], i: int, end: int) -> int:
        """``using T = float;`` -> ``typedef float T;``; ``using op_t = float (*)(float);`` ->
        ``typedef float (*op_t)(float);`` (a function pointer type)."""
        name = toks[i + 1]
        self.src.types.add(name.text)
        toks[i].text = "typedef"
        name.text = ""
        toks[i + 2].text = ""
        for j in range(i + 3, end - 2):  # float (*)(float): the name goes inside, (*op_t)
            if (toks[j].text, toks[j + 1].text, toks[j + 2].text) == ("(", "*", ")"):
                toks[j + 2].before = name.orig
                return i + 3
        toks[end].before = " " + name.orig
        return i + 3

    def _canonical(self, parts: list[str], where: Tok, scopes: list[_Scope] | None = None) -> str:
        if not parts:
            raise _fail(where, "a namespace name is missing", "namespace")
        if parts[0] == "std":
            raise _fail(where, "namespace std (the C++ standard library) is not available in "
                        "device code", "std::")
        first = self._relative(parts[0], scopes or []) or parts[0]
        full = "::".join([first, *parts[1:]])
        if full not in self.members and full not in NAMESPACES:
            raise _fail(where, f"namespace '{'::'.join(parts)}' is not declared",
                        f"namespace {'::'.join(parts)}")
        return full

    def _known(self, full: str) -> bool:
        return full in self.members or full in NAMESPACES \
            or any(f.startswith(full + "::") for f in self.members)

    def _relative(self, first: str, scopes: list[_Scope]) -> str | None:
        """The namespace a leading name means here: an alias, a namespace nested in an
        enclosing or used one, or a file-scope namespace."""
        if first in self.aliases:
            return self.aliases[first]
        for scope in reversed(scopes):
            enclosing = scope.namespace.split("::") if scope.namespace else []
            for k in range(len(enclosing), 0, -1):
                candidate = "::".join([*enclosing[:k], first])
                if self._known(candidate):
                    return candidate
            for ns in scope.using:
                if self._known(f"{ns}::{first}"):
                    return f"{ns}::{first}"
        return first if self._known(first) else None

    def _member(self, ns: str, name: str, where: Tok) -> str:
        library = NAMESPACES.get(ns)
        if library is not None:
            if name in library.rejected:
                raise _fail(where, f"{ns}::{name}: {library.rejected[name]}", f"{ns}::{name}")
            if name in library.members:
                c_name = library.members[name]
                self.qualified.setdefault(c_name, f"{ns}::{name}")
                if name in library.types:
                    self.src.types.add(c_name)
                return c_name
        elif name in self.members.get(ns, {}):
            c_name = self.members[ns][name]
            if name in self.types.get(ns, set()):
                self.src.types.add(c_name)
            return c_name
        raise _fail(where, f"'{name}' is not a member of namespace '{ns}'", f"{ns}::{name}")

    def _lookup(self, tok: Tok, scopes: list[_Scope]) -> str | None:
        name = tok.text
        for scope in reversed(scopes):
            if name in scope.names:
                return scope.names[name]
            if scope.namespace and name in self.members.get(scope.namespace, {}):
                return self._member(scope.namespace, name, tok)
            for ns in scope.using:
                if self._has(ns, name):
                    return self._member(ns, name, tok)
        return None

    def _has(self, ns: str, name: str) -> bool:
        library = NAMESPACES.get(ns)
        if library is not None:
            return name in library.members or name in library.rejected
        return name in self.members.get(ns, {})

    def _qualified(self, toks: list[Tok], i: int, scopes: list[_Scope]) -> int:
        """``::name`` or ``a::b::name`` at token ``i`` (the first '::')."""
        if _prev(toks, i) == ">":
            return i + 1  # Template<T>::member: left as written
        start = i - 1 if i > 0 and toks[i - 1].kind == "id" and toks[i - 1].text not in _KEYWORDS else i
        if start == i:  # ::name, the global namespace
            toks[i].text = ""
            return i + 1
        parts = [toks[start].text]
        j = i
        while j + 1 < len(toks) and toks[j].text == "::" and toks[j + 1].kind == "id":
            parts.append(toks[j + 1].text)
            j += 2
        if parts[0] == "std":
            name = "::".join(parts)
            raise _fail(toks[start], f"{name}: the C++ standard library is not available in "
                        "device code (use the CUDA functions: min, max, sqrtf, ...)", name)
        if self._relative(parts[0], scopes) is None:
            if parts[0] in self.src.types or _prev(toks, start) == ">":
                return j  # Class::member: a struct's business, left as written
            raise _fail(toks[start], f"'{parts[0]}::{parts[1] if len(parts) > 1 else ''}': "
                        f"'{parts[0]}' is not a namespace the emulator knows",
                        f"qualified name {parts[0]}::")
        ns = self._canonical(parts[:-1], toks[start], scopes)
        c_name = self._member(ns, parts[-1], toks[start])
        toks[start].text = c_name
        for k in range(i, j):
            toks[k].text = ""
        return j

    def _blank(self, toks: list[Tok], a: int, b: int) -> None:
        for k in range(a, min(b, len(toks))):
            toks[k].blank()


# ---------------------------------------------------------------------- casts and types
def _keyword_casts(src: _Source) -> None:
    """``static_cast<T>(e)`` -> ``__cxx_static_cast((T)(e))``."""
    toks = src.live()
    for i, t in enumerate(toks):
        if t.text not in CAST_FUNCTIONS:
            continue
        if _next(toks, i) != "<":
            raise _fail(t, f"{t.text} needs a type in <...>", t.text)
        close = _angle_close(toks, i + 1)
        if _next(toks, close) != "(":
            raise _fail(t, f"{t.text}<...> needs its operand in parentheses", t.text)
        end = _match(toks, close + 1, "(", ")")
        if end == close + 2:
            raise _fail(t, f"{t.text} needs an operand", t.text)
        t.text = CAST_FUNCTIONS[t.orig] + "("
        toks[i + 1].text = "("
        toks[close].text = ")"
        toks[end].after += ")"


def _angle_close(toks: list[Tok], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        text = toks[j].text
        if text == "<":
            depth += 1
        elif text == ">":
            depth -= 1
            if depth == 0:
                return j
        elif text in (";", "{", ")"):
            break
    raise _fail(toks[i], "'<' of a cast is never closed by '>' (write '> >' for nested templates)",
                "cast")


def _functional_casts(src: _Source, scalar_types: set[str]) -> None:
    """``float(x)`` -> ``((float)(x))``, ``int{x}`` -> ``((int)(x))``, ``int()`` -> ``((int)(0))``."""
    toks = src.live()
    for i, t in enumerate(toks):
        if t.text not in scalar_types or _next(toks, i) not in ("(", "{") \
                or (_prev(toks, i) not in _EXPRESSION_BEFORE and not _in_initializer_brace(toks, i)):
            continue
        opener = toks[i + 1]
        closer = toks[_match(toks, i + 1, opener.text, "}" if opener.text == "{" else ")")]
        if _has_top_level_comma(toks, i + 1, toks.index(closer)):
            raise _fail(t, f"{t.text}(a, b): a functional cast takes one value", "functional cast")
        t.before = "((" + t.before
        t.after += ")"
        opener.text = "("
        if toks[i + 2] is closer:
            opener.text = "(0"
        closer.text = "))"


def _in_initializer_brace(toks: list[Tok], i: int) -> bool:
    """Whether token ``i`` opens an initializer list's first value (``P c{int(x)}``, ``= {``),
    not a block's first statement (``) {``, ``; {``, ``else {``)."""
    if _prev(toks, i) != "{" or i < 2:
        return False
    before = toks[i - 2]
    return (before.kind == "id" and before.text not in _KEYWORDS) or before.text in ("]", "=", ",", "(", ">", "{")


def _has_top_level_comma(toks: list[Tok], open_: int, close: int) -> bool:
    depth = 0
    for t in toks[open_ + 1:close]:
        depth += _BRACKET_DEPTH.get(t.text, 0)
        if t.text == "," and depth == 0:
            return True
    return False


def _is_type_end(toks: list[Tok], i: int, types: set[str]) -> bool:
    """Whether the tokens up to ``i`` end a type (``float``, ``const T *``, ``X<3>``)."""
    j = i
    while j >= 0 and toks[j].text in ("*", "const", "volatile"):
        j -= 1
    if j < 0:
        return False
    if toks[j].text == ">":  # a template-id (thread_block_tile<32>& t), not a comparison
        k = _match_back(toks, j, "<", ">")
        return k > 0 and toks[k].text == "<" and toks[k - 1].kind == "id"
    return toks[j].text in types


def _references(src: _Source) -> None:
    """``T &x`` -> ``T *restrict x``; ``T &&x`` is rejected (rvalue reference)."""
    toks = src.live()
    for i, t in enumerate(toks):
        if t.text not in ("&", "&&") or not _is_type_end(toks, i - 1, src.types):
            continue
        after = toks[i + 1] if i + 1 < len(toks) else None
        if after is None or not (after.kind == "id" or after.text in (")", ",", ">", "(", "...")):
            continue
        if t.text == "&&":
            raise _fail(t, "rvalue references (T&&) are not supported by the emulator",
                        "rvalue reference")
        t.text = "*restrict "


def _auto(src: _Source) -> None:
    """``auto`` -> the reserved typedef; ``auto x{e}`` -> ``auto x= e`` (C++17 deduction)."""
    toks = src.live()
    for i, t in enumerate(toks):
        if t.text != "auto":
            continue
        t.text = AUTO
        j = i + 1
        while j < len(toks) and toks[j].text in ("*", "&", "*restrict ", "const", "volatile"):
            j += 1
        if j + 1 < len(toks) and toks[j].kind == "id" and toks[j + 1].text == "{":
            close = _match(toks, j + 1, "{", "}")
            if close == j + 2 or _has_top_level_comma(toks, j + 1, close):
                raise _fail(t, "auto x{...} needs exactly one value in the braces",
                            "auto with braces")
            toks[j + 1].text = "="
            toks[close].text = ""


_DECL_KEYWORDS = {"struct", "class", "union", "enum", "namespace", "return", "else", "do",
                  "case", "goto", "operator", "typename", "template"}


def _brace_initializers(src: _Source) -> None:
    """``T x{...}`` / ``T a[n]{...}`` -> ``T x={...}`` (list-initialization)."""
    toks = src.live()
    depth = 0
    for i, t in enumerate(toks):
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth -= 1
        if t.text != "{" or i == 0:
            continue
        prev = toks[i - 1]
        if prev.text == "]":
            k = _match_back(toks, i - 1, "[", "]")
            while k > 0 and toks[k - 1].text == "]":
                k = _match_back(toks, k - 1, "[", "]")
            if k > 0 and toks[k - 1].kind == "id" and _is_declarator(toks, k - 1, src.types, depth):
                t.before = "=" + t.before
            continue
        if prev.kind == "id" and prev.text not in _KEYWORDS and prev.text not in src.types \
                and _is_declarator(toks, i - 1, src.types, depth):
            t.before = "=" + t.before


def _enum_type_names(src: _Source) -> None:
    """``enum Mode {...};`` -> ``enum Mode {...}; typedef enum Mode Mode;`` (C++ names the type
    ``Mode``, C ``enum Mode``)."""
    toks = src.live()
    for i, t in enumerate(toks):
        if t.text != "enum" or i + 2 >= len(toks) or toks[i + 1].kind != "id" or toks[i + 2].text != "{":
            continue
        close = _match(toks, i + 2, "{", "}")
        if close + 1 < len(toks) and toks[close + 1].text == ";":
            name = toks[i + 1].text
            toks[close + 1].after += f" typedef enum {name} {name};"


BRACED = "__cxx_braced"  # f({x, 1.0f}) -> f(__cxx_braced(x, 1.0f)): typed by the parameter


def _braced_arguments(src: _Source) -> None:
    """A braced list as a call's argument or after ``return`` becomes ``__cxx_braced(...)``:
    its type is the parameter's (or the return type), which only the compiler knows."""
    toks = src.live()
    opens: list[int] = []
    for i, t in enumerate(toks):
        if t.text in ("(", "[", "{"):
            opens.append(i)
        elif t.text in (")", "]", "}") and opens:
            opens.pop()
        if t.text != "{" or i == 0:
            continue
        prev = toks[i - 1].text
        inner = opens[-2] if len(opens) > 1 else -1
        in_call = inner > 0 and toks[inner].text == "(" and prev in ("(", ",") \
            and ((toks[inner - 1].kind == "id" and toks[inner - 1].text not in _KEYWORDS)
                 or toks[inner - 1].text == ">")
        if not (in_call or prev == "return"):
            continue
        close = _match(toks, i, "{", "}")
        t.text = BRACED + "("
        toks[close].text = ")"


def _match_back(toks: list[Tok], i: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(i, -1, -1):
        if toks[j].text == close:
            depth += 1
        elif toks[j].text == open_:
            depth -= 1
            if depth == 0:
                return j
    return 0


def _is_declarator(toks: list[Tok], i: int, types: set[str], depth: int) -> bool:
    """Whether the identifier at ``i`` is being declared (``T x``, ``T *x``, ``T a, x``)."""
    before = _prev(toks, i)
    if before in _DECL_KEYWORDS:
        return False
    if before in ("*", "*restrict ", "&", "const", "volatile", ">") or before in types:
        return True
    if i > 0 and toks[i - 1].kind == "id" and toks[i - 1].text not in _KEYWORDS:
        return True  # two identifiers in a row: a user type and the declared name
    if before == "," and depth == 0:
        j = i - 1
        while j > 0 and toks[j - 1].text not in (";", "{", "}"):
            j -= 1
        return toks[j].text in types or (toks[j].kind == "id" and toks[j].text not in _KEYWORDS)
    return False


# ---------------------------------------------------------------------- default arguments
def _default_arguments(src: _Source, lowered: Lowered) -> None:
    """Blank ``= value`` in parameter lists; keep the value text for the call sites."""
    toks = src.live()
    brace = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.text == "{":
            brace += 1
        elif t.text == "}":
            brace -= 1
        elif t.kind == "id" and brace == 0 and _next(toks, i) == "(" \
                and t.text not in _KEYWORDS and _prev(toks, i) not in _EXPRESSION_BEFORE - {"*", "&", ">"}:
            close = _match(toks, i + 1, "(", ")")
            _parameter_defaults(toks, i, close, lowered)
            i = close + 1
            continue
        i += 1


def _parameter_defaults(toks: list[Tok], name: int, close: int, lowered: Lowered) -> None:
    index, depth = 0, 0
    j = name + 2
    while j < close:
        text = toks[j].text
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif text == "," and depth == 0:
            index += 1
        elif text == "=" and depth == 0:
            end = j + 1
            while end < close and not (toks[end].text == "," and _depth(toks, j + 1, end) == 0):
                end += 1
            _record_default(toks, name, index, j, end, lowered)
            j = end
            continue
        j += 1
    table = lowered.defaults.get(toks[name].text, {})
    missing = [k for k in range(min(table, default=index + 1), index + 1) if k not in table]
    if missing:
        raise _fail(toks[name], f"parameter {missing[0] + 1} of {toks[name].text} needs a default "
                    "argument: every parameter after one with a default needs one too",
                    "default argument")


def _depth(toks: list[Tok], a: int, b: int) -> int:
    depth = 0
    for t in toks[a:b]:
        depth += _BRACKET_DEPTH.get(t.text, 0)
    return depth


def _record_default(toks: list[Tok], name: int, index: int, eq: int, end: int,
                    lowered: Lowered) -> None:
    value = toks[eq + 1:end]
    if not value:
        raise _fail(toks[eq], "a default argument needs a value", "default argument")
    text = "".join((" " if k else "") + t.before + t.text + t.after for k, t in enumerate(value))
    table = lowered.defaults.setdefault(toks[name].text, {})
    if index in table:
        raise _fail(toks[eq], f"the default argument of parameter {index + 1} of "
                    f"{toks[name].text} is given twice (give it in one declaration only)",
                    "default argument")
    table[index] = DefaultArgument(text, value[0].line, value[0].column)
    for t in toks[eq:end]:
        t.blank()


# ---------------------------------------------------------------------- entry point
_SCALAR_TYPEDEF = re.compile(r"\btypedef\s+((?:(?:unsigned|signed|long|short|int|char|float|double|"
                             r"bool|_Bool)\s+)+)([A-Za-z_]\w*)\s*;")


def _scalar_type_names(text: str) -> set[str]:
    names = {"char", "short", "int", "long", "float", "double", "signed", "unsigned", "bool"}
    return names | {m.group(2) for m in _SCALAR_TYPEDEF.finditer(text)}


def _split_head(text: str) -> tuple[str, str]:
    m = re.search(r'^# 1 "[^"\n]*"\n', text, re.M)
    if m is None:
        return "", text
    return text[:m.end()], text[m.end():]


def reject_unsupported(pre: Preprocessed) -> None:
    """Name the first construct of :data:`REJECTED` in ``pre`` (a CompileError), before any
    other lowering pass can misread it."""
    _reject_named(_tokenize(_split_head(pre.text)[1]))


def lower(pre: Preprocessed) -> Lowered:
    """Lower the C++ of a preprocessed source to pycparser's C (see the module docstring)."""
    head, body = _split_head(pre.text)
    lowered = Lowered(**{f.name: getattr(pre, f.name) for f in fields(Preprocessed)})
    src = _Source(body, head)
    _reject_named(src.toks)
    src.types |= {t.orig for k, t in enumerate(src.toks)
                  if k and src.toks[k - 1].orig in ("struct", "class", "union", "enum", "typename")
                  and t.kind == "id"}
    src.types |= _typedef_names(body)
    namespaces = _Namespaces(src, pre.global_functions)
    try:
        namespaces.collect()
        namespaces.rewrite()
        _keyword_casts(src)
        _functional_casts(src, _scalar_type_names(head + body))
        _references(src)
        _auto(src)
        _brace_initializers(src)
        _braced_arguments(src)
        _enum_type_names(src)
        for t in src.toks:  # C11's spelling, which pycparser reads as a StaticAssert node
            if t.text == "static_assert":
                t.text = "_Static_assert"
        _default_arguments(src, lowered)
    except _Unbalanced:  # the parser names what is missing better than a token pass can
        lowered.defaults = {}
        src = _Source(body, head)
    text, spans = src.render()
    head = head.replace("\n# 1 ", f" {PRELUDE}\n# 1 ", 1) if head else ""
    lowered.text = head + text
    lowered.spans = spans
    lowered.head = head[:head.rfind("# 1 ")] if head else PRELUDE + "\n"
    lowered.qualified = {k: v for k, v in namespaces.qualified.items() if k != v}
    return lowered
