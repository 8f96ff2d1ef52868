"""Source lowering of C++ structs into the C that pycparser parses, every line kept on its line.

CUDA code writes small value types the C++ way::

    struct Complex {
        float re, im;
        __device__ Complex(float r, float i) : re(r), im(i) {}
        __device__ Complex operator+(const Complex& o) const { return Complex(re + o.re, im + o.im); }
        __device__ float norm() const { return re * re + im * im; }
    };

This pass rewrites such text so that pycparser can parse it, and records in a
:class:`StructTable` what the rewritten functions were; the compiler (:mod:`.aggregates`) then
gives them their C++ meaning:

- the struct is closed just before its first member function (at the end of the line above it,
  so no column moves), fields declared after that are moved into it, and ``struct Name``
  becomes a type name (``typedef struct Name Name;`` after the closing brace);
- each member function stays where it is, as a free function: a method keeps its name (the
  table knows it by position; the compiler adds the ``this`` parameter and makes the members
  visible), ``const`` after the parameters is blanked, an operator's name ``operator+`` becomes
  an identifier of the same length (``_o0______``), a constructor is renamed the same way and
  its member initialiser list becomes assignments at the start of its body, a conversion
  operator ``operator T *()`` becomes ``T * _v0___()`` (its target is its return type);
  ``operator[]`` is a member operator like the others (the compiler reads one that returns
  ``member[index]`` as that element, so it can be assigned);
- ``const T&`` parameters become by-value ``const T`` copies (the same meaning for a const
  reference unless the callee also writes the referenced object through another path; that
  aliasing case is not modelled), a ``T&`` parameter stays a reference (:mod:`.structrefs`),
  a ``T&`` return type becomes a by-value return;
- in function bodies ``Name(args)`` and ``Name{args}`` (a constructor call or a braced
  temporary) become the compound literal ``(Name){args}``, ``Name v(args);`` and
  ``Name v{args};`` become ``Name v={args};``, and ``*this`` becomes `` this``.

Anything else in a struct body (static members, virtual functions, destructors, default member
initialisers, nested definitions) is a named :class:`CompileError`; a struct template's static
members were lowered before this pass (:mod:`.struct_templates`), whose uses (``Pair<float>``)
are type names here too.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from .errors import CompileError
from .layout import vector_prelude
from .preprocess import Preprocessed

_TOKEN = re.compile(r"""(?P<ws>\s+)|(?P<id>[A-Za-z_]\w*)|(?P<num>\.?\d(?:[eEpP][-+]|[\w.])*)"""
                    r"""|(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
                    r"""|(?P<op>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|::|.)""")
_LINE_MARKER = re.compile(r'^# 1 ".*"\n', re.M)
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_COMPOUND_OPS = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}


@dataclass(frozen=True)
class MemberInfo:
    """What a lowered function was in the C++ source."""

    kind: str  # "method", "ctor", "operator" or "conversion" (``operator T*()``)
    owner: str | None  # the struct's type name (None for a free operator function)
    name: str  # method name, operator symbol (``+``, ``[]``) or the struct name for a ctor
    const: bool = False  # a const method (``this`` cannot be changed)
    this_ref: bool = False  # a free operator whose first parameter is a non-const reference
    explicit: bool = False  # an explicit constructor (not used for implicit conversions)
    defaults: tuple[str | None, ...] = ()  # default argument text per declared parameter


@dataclass
class StructTable:
    """What the lowering pass learned, for the compiler."""

    by_name: dict[str, MemberInfo] = field(default_factory=dict)  # renamed ctors and operators
    by_position: dict[tuple[int, int], MemberInfo] = field(default_factory=dict)  # methods
    paren_literals: set[tuple[int, int]] = field(default_factory=set)  # T(args) temporaries
    paren_decls: set[tuple[int, int]] = field(default_factory=set)  # T v(args); declarations
    struct_names: set[str] = field(default_factory=set)

    def lookup(self, name: str, line: int | None, col: int | None) -> MemberInfo | None:
        info = self.by_name.get(name)
        if info is None and line is not None and col is not None:
            info = self.by_position.get((line, col))
        return info


@dataclass
class _Tok:
    kind: str
    text: str
    start: int
    end: int


@dataclass
class _Function:
    """One member function of a struct body: token indices."""

    first: int  # first token of the member
    name: int  # the name token (``operator`` for operators)
    open_paren: int  # the ``(`` that starts the parameter list
    close_paren: int
    body_open: int
    body_close: int


class _Lowerer:
    def __init__(self, body: str, line_offset: int) -> None:
        self.text = body
        self.toks = [_Tok(m.lastgroup or "op", m.group(0), m.start(), m.end())
                     for m in _TOKEN.finditer(body) if m.lastgroup != "ws"]
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
        self.line_offset = line_offset
        self.edits: list[tuple[int, int, str]] = []
        self.table = StructTable()
        self.method_names: list[tuple[int, MemberInfo]] = []  # (text offset of name, info)
        self.paren_literal_offsets: list[int] = []
        self.paren_decl_offsets: list[int] = []
        self.counter = 0
        self.defaults: tuple[str | None, ...] = ()  # of the parameter list lowered last

    # ------------------------------------------------------------------ helpers
    def line_col(self, offset: int, text: str | None = None) -> tuple[int, int]:
        starts = self.line_starts if text is None else [0] + [m.end() for m in re.finditer("\n", text)]
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - starts[lo] + 1

    def error(self, k: int, message: str, construct: str) -> CompileError:
        line, col = self.line_col(self.toks[min(k, len(self.toks) - 1)].start)
        return CompileError(message, line, col, construct)

    def edit(self, start: int, end: int, replacement: str) -> None:
        self.edits.append((start, end, replacement))

    def blank(self, a: int, b: int) -> None:
        """Blank the text of tokens a..b (inclusive), keeping newlines."""
        start, end = self.toks[a].start, self.toks[b].end
        self.edit(start, end, re.sub(r"[^\n]", " ", self.text[start:end]))

    def match(self, k: int) -> int:
        """Index of the bracket closing the one at k."""
        want, depth = _OPENERS[self.toks[k].text], 0
        opener = self.toks[k].text
        for j in range(k, len(self.toks)):
            t = self.toks[j].text
            if t == opener:
                depth += 1
            elif t == want:
                depth -= 1
                if depth == 0:
                    return j
        raise self.error(k, f"'{opener}' is never closed", "unbalanced brackets")

    def tok(self, k: int) -> str:
        return self.toks[k].text if 0 <= k < len(self.toks) else ""

    def kind(self, k: int) -> str:
        return self.toks[k].kind if 0 <= k < len(self.toks) else ""

    # ------------------------------------------------------------------ file scope
    def run(self) -> None:
        k = 0
        while k < len(self.toks):
            t = self.tok(k)
            if t in ("struct", "class") and self.is_definition(k):
                k = self.struct_definition(k)
            elif t == "typedef" and self.tok(k + 1) in ("struct", "class") and self.is_definition(k + 1):
                k = self.struct_definition(k + 1, typedef=k)
            elif t == "operator":
                k = self.free_operator(k)
            elif t == "{" and self.opens_namespace(k):
                self.check_namespace_structs(k)
                k += 1  # a namespace's body is file scope too: its plain structs are named alike
            elif t == "{":
                k = self.function_body(k, None)
            else:
                k += 1

    def opens_namespace(self, k: int) -> bool:
        """Whether the ``{`` at k opens ``namespace a {``, ``namespace a::b {`` or ``namespace {``."""
        j = k - 1
        while j >= 0 and ((self.kind(j) == "id" and self.tok(j) != "namespace") or self.tok(j) == "::"):
            j -= 1
        return j >= 0 and self.tok(j) == "namespace"

    def check_namespace_structs(self, k: int) -> None:
        """A struct with member functions inside a namespace is refused by name (the namespace
        pass renames the struct after this one has filed its members under the plain name)."""
        for j in range(k + 1, self.match(k)):
            if self.tok(j) in ("struct", "class") and self.is_definition(j):
                close = self.match(j + 1 if self.tok(j + 1) == "{" else j + 2)
                if any(self.tok(i) == "(" for i in range(j, close)):
                    raise self.error(j, "a struct with member functions inside a namespace is not "
                                     "supported by the emulator; declare it outside the namespace",
                                     "struct with member functions in a namespace")

    def is_definition(self, k: int) -> bool:
        return self.tok(k + 1) == "{" or (self.kind(k + 1) == "id" and self.tok(k + 2) == "{")

    def struct_definition(self, k: int, typedef: int | None = None) -> int:
        named = self.tok(k + 1) != "{"
        name = self.tok(k + 1) if named else ""
        open_brace = k + 2 if named else k + 1
        close = self.match(open_brace)
        alias = ""
        after = close + 1
        if typedef is not None and self.kind(after) == "id":
            alias = self.tok(after)
            after += 1
        if self.tok(after) != ";":
            raise self.error(after, "a struct definition that also declares variables at file "
                             "scope (global variables are not supported by the emulator)",
                             "global variable")
        type_name = alias or name
        if not type_name:
            raise self.error(k, "an unnamed struct needs a typedef name", "unnamed struct")
        if self.tok(k) == "class":
            raise self.error(k, "'class' is not supported by the emulator (use struct)", "class")
        self.table.struct_names.add(type_name)  # the struct's own name is a type inside it
        fields, functions = self.members(open_brace, close, name or type_name, type_name)
        naming = "" if not name or alias == name else f" typedef struct {name} {name};"
        if not functions:
            if naming:
                self.edit(self.toks[after].end, self.toks[after].end, naming)
            return after + 1
        self.close_early(open_brace, close, after, fields, functions, alias, naming)
        return after + 1

    def close_early(self, open_brace: int, close: int, semi: int, fields: list[tuple[int, int]],
                    functions: list[_Function], alias: str, naming: str) -> None:
        """End the struct before its first member function; move later fields into it."""
        first = functions[0].first
        moved = [(a, b) for a, b in fields if a > first]
        text = " ".join(" ".join(self.text[self.toks[a].start:self.toks[b].end].split())
                        for a, b in moved)
        for a, b in moved:
            self.blank(a, b)
        closing = f"{' ' + text if text else ''} }} {alias};{naming}"
        start = self.toks[first].start
        line_start = self.text.rfind("\n", 0, start)
        if line_start > self.toks[open_brace].start:
            self.edit(line_start, line_start, closing)  # at the end of the line above
        else:  # the struct's first line: right after the token before the function
            end_before = self.toks[first - 1].end
            self.edit(end_before, end_before, closing)
        self.blank(close, semi - 1 if alias else close)
        self.blank(semi, semi)

    def members(self, open_brace: int, close: int, tag: str,
                type_name: str) -> tuple[list[tuple[int, int]], list[_Function]]:
        fields: list[tuple[int, int]] = []
        functions: list[_Function] = []
        k = open_brace + 1
        while k < close:
            t = self.tok(k)
            if t in ("public", "private", "protected") and self.tok(k + 1) == ":":
                self.blank(k, k + 1)
                k += 2
                continue
            if t == ";":
                k += 1
                continue
            end, fn = self.member_extent(k, close, tag)
            if fn is None:
                self.check_field(k, end, tag)
                fields.append((k, end))
            else:
                self.lower_member_function(fn, tag, type_name)
                functions.append(fn)
            k = end + 1
        return fields, functions

    def member_extent(self, k: int, close: int, tag: str) -> tuple[int, _Function | None]:
        """Last token of the member starting at k, and its parts if it is a function."""
        j = k
        paren = -1
        while j < close:
            t = self.tok(j)
            if t == ";":
                return j, None
            if (t in ("struct", "union", "class", "enum") and self.tok(j + 2) == "{") or (t == "{" and paren < 0):
                raise self.error(j, f"a definition nested inside struct {tag} (or a default "
                                 "member initializer) is not supported by the emulator",
                                 "nested definition in a struct")
            if t == "(":
                paren = j + 2 if self.tok(j - 1) == "operator" and self.tok(j + 1) == ")" else j
                close_paren = self.match(paren)
                j = close_paren + 1
                while j < close and self.tok(j) not in ("{", ";", ":", "="):
                    j += 1
                if self.tok(j) == "=":
                    raise self.error(j, "= default / = delete / pure virtual member functions "
                                     "are not supported by the emulator", "defaulted member function")
                if self.tok(j) != "{" and self.tok(j) != ":":
                    raise self.error(k, f"a member function of struct {tag} declared here and "
                                     "defined outside the struct is not supported by the "
                                     "emulator (define it inside the struct)",
                                     "member function defined outside its struct")
                body = self.init_list_end(j) if self.tok(j) == ":" else j
                body_close = self.match(body)
                name = self.function_name(k, paren)
                return body_close, _Function(k, name, paren, close_paren, body, body_close)
            j += 1
        raise self.error(k, f"a member of struct {tag} is missing its ';'", "struct member")

    def init_list_end(self, colon: int) -> int:
        """The ``{`` that starts a constructor body after its initializer list."""
        j = colon + 1
        while True:
            if self.toks[j].kind != "id":
                raise self.error(j, "a constructor's initializer list names members: "
                                 "member(value), ...", "constructor initializer list")
            if self.tok(j + 1) not in ("(", "{"):
                raise self.error(j + 1, "a constructor's initializer list names members: "
                                 "member(value), ...", "constructor initializer list")
            j = self.match(j + 1) + 1
            if self.tok(j) == ",":
                j += 1
                continue
            if self.tok(j) == "{":
                return j
            raise self.error(j, "a constructor's initializer list names members: "
                             "member(value), ...", "constructor initializer list")

    def function_name(self, first: int, paren: int) -> int:
        for j in range(first, paren):
            if self.tok(j) == "operator":
                return j
        return paren - 1

    def check_field(self, a: int, b: int, tag: str) -> None:
        for j in range(a, b + 1):
            t = self.tok(j)
            if t in ("static", "virtual", "mutable", "friend"):
                raise self.error(j, f"'{t}' members of structs are not supported by the emulator",
                                 f"{t} member")
            if t == "=":
                raise self.error(j, f"default member initializers (in struct {tag}) are not "
                                 "supported by the emulator; use a constructor",
                                 "default member initializer")
            if t == ":" :
                raise self.error(j, "bit-fields are not supported by the emulator", "bit-field")
            if t == tag and (self.tok(j + 1) == "*" or self.tok(j - 1) == "struct"):
                raise self.error(j, f"struct {tag} points to its own type (a linked structure); "
                                 "this is not supported by the emulator", "self-referential struct")

    # ------------------------------------------------------------------ member functions
    def lower_member_function(self, fn: _Function, tag: str, type_name: str) -> None:
        prefix = range(fn.first, fn.name)
        flags = {self.tok(j) for j in prefix}
        for bad in ("static", "virtual", "template"):
            if bad in flags:
                raise self.error(fn.first, f"{bad} member functions are not supported by the "
                                 "emulator", f"{bad} member function")
        friend = "friend" in flags
        explicit = "explicit" in flags
        for j in prefix:
            if self.tok(j) in ("friend", "explicit", "constexpr", "&"):
                self.blank(j, j)
        if self.tok(fn.name) == "~" or self.tok(fn.name - 1) == "~":
            raise self.error(fn.name, "destructors are not supported by the emulator", "destructor")
        const = self.post_qualifiers(fn)
        if self.tok(fn.name) == "operator":
            owner = None if friend else type_name
            self.lower_operator_name(fn.name, fn.open_paren, owner, const, fn)
        elif self.tok(fn.name) == tag or self.tok(fn.name) == type_name:
            if friend:
                raise self.error(fn.name, "a friend constructor?", "friend")
            self.lower_constructor(fn, tag, type_name, explicit)
        else:
            if friend:
                raise self.error(fn.name, "friend functions other than operators are not "
                                 "supported by the emulator", "friend function")
            self.params(fn.open_paren, fn.close_paren, allow_this_ref=False)
            info = MemberInfo("method", type_name, self.tok(fn.name), const, defaults=self.defaults)
            self.method_names.append((self.toks[fn.name].start, info))
        self.function_body(fn.body_open, type_name)

    def post_qualifiers(self, fn: _Function) -> bool:
        const = False
        j = fn.close_paren + 1
        while j < fn.body_open and self.tok(j) != ":":
            t = self.tok(j)
            if t == "const":
                const = True
            elif t not in ("noexcept", "override", "final"):
                raise self.error(j, f"'{t}' after a member function's parameters is not "
                                 "supported by the emulator", "member function qualifier")
            self.blank(j, j)
            j += 1
        return const

    def lower_operator_name(self, k: int, open_paren: int, owner: str | None, const: bool,
                            fn: _Function | None) -> None:
        symbol = "".join(self.tok(j) for j in range(k + 1, open_paren))
        if symbol and (symbol[0].isalpha() or symbol[0] == "_") and owner is not None and fn is not None:
            self.lower_conversion(k, open_paren, owner, const)
            return
        if not symbol or symbol[0].isalpha() or symbol[0] == "_":
            raise self.error(k, f"conversion operators (operator {symbol}) are only supported as "
                             "members of a struct", "conversion operator")
        if symbol in ("()", "[]") and owner is None:
            raise self.error(k, f"operator{symbol} must be a member function (C++)", f"operator{symbol}")
        if symbol in ("=", "new", "delete", "->", ",", "&&", "||"):
            raise self.error(k, f"operator{symbol} is not supported by the emulator",
                             f"operator{symbol}")
        close_paren = self.match(open_paren)
        this_ref = self.params(open_paren, close_paren,
                               allow_this_ref=owner is None and symbol in _COMPOUND_OPS)
        name = self.fresh("_o", self.toks[open_paren - 1].end - self.toks[k].start)
        self.edit(self.toks[k].start, self.toks[open_paren - 1].end, name)
        self.table.by_name[name] = MemberInfo("operator", owner, symbol, const, this_ref,
                                              defaults=self.defaults)

    def lower_conversion(self, k: int, open_paren: int, owner: str, const: bool) -> None:
        """``operator T*()`` becomes ``T* _v0___()`` in the same width (the target type is
        the function's return type); the compiler uses it for implicit conversions."""
        start, end = self.toks[k].start, self.toks[open_paren - 1].end
        target = " ".join(self.text[self.toks[k].end:end].split())
        self.params(open_paren, self.match(open_paren), allow_this_ref=False)
        name = self.fresh("_v", end - start - len(target) - 1)
        self.edit(start, end, f"{target} {name}")
        self.table.by_name[name] = MemberInfo("conversion", owner, target, const)

    def fresh(self, prefix: str, width: int) -> str:
        name = f"{prefix}{self.counter}"
        self.counter += 1
        return name + "_" * max(0, width - len(name))

    def params(self, open_paren: int, close_paren: int, allow_this_ref: bool) -> bool:
        """Lower ``const T&`` to ``const T``; True when the first parameter is a ``T&``
        that the caller copies back (a free compound-assignment operator)."""
        this_ref = False
        start = open_paren + 1
        index = 0
        depth = 0
        defaults: list[str | None] = []
        for j in range(open_paren + 1, close_paren + 1):
            t = self.tok(j)
            if t in ("(", "[", "{"):
                depth += 1
            elif t in (")", "]", "}") and j != close_paren:
                depth -= 1
            if (t == "," and depth == 0) or j == close_paren:
                if j > start or index > 0:
                    this_ref |= self.param(start, j - 1, index, allow_this_ref, defaults)
                start, index = j + 1, index + 1
        if any(d is not None for d in defaults):
            first = next(i for i, d in enumerate(defaults) if d is not None)
            if any(d is None for d in defaults[first:]):
                raise self.error(open_paren, "default arguments must be the last parameters",
                                 "default argument")
        self.defaults = tuple(defaults) if any(d is not None for d in defaults) else ()
        return this_ref

    def param(self, a: int, b: int, index: int, allow_this_ref: bool,
              defaults: list[str | None]) -> bool:
        words = [self.tok(j) for j in range(a, b + 1)]
        if "=" in words:  # a default argument: the compiler evaluates it at each call
            eq = a + words.index("=")
            defaults.append(self.text[self.toks[eq + 1].start:self.toks[b].end])
            self.blank(eq, b)
            b = eq - 1
            words = words[:eq - a]
        else:
            defaults.append(None)
        if "&" not in words and "&&" not in words:
            return False
        amp = a + (words.index("&") if "&" in words else words.index("&&"))
        if "const" in words:
            self.blank(amp, amp)
            return False
        if allow_this_ref and index == 0:
            self.blank(amp, amp)
            return True
        return False  # a T& parameter stays a reference (bound at each call, structrefs.py)

    def lower_constructor(self, fn: _Function, tag: str, type_name: str, explicit: bool) -> None:
        self.params(fn.open_paren, fn.close_paren, allow_this_ref=False)
        defaults = self.defaults
        name_tok = self.toks[fn.name]
        name = self.fresh("_c", len(name_tok.text))
        line_start = self.text.rfind("\n", 0, name_tok.start) + 1
        gap = name_tok.start - max(line_start, self.toks[fn.name - 1].end if fn.name > 0 else 0)
        if gap >= 5:  # 'void ' goes into the space left by __device__
            self.edit(name_tok.start - 5, name_tok.end, "void " + name)
        else:
            self.edit(name_tok.start, name_tok.end, "void " + name)
        self.table.by_name[name] = MemberInfo(
            "ctor", type_name, type_name, False, False, explicit, defaults)
        colon = fn.close_paren + 1
        while colon < fn.body_open and self.tok(colon) != ":":
            colon += 1
        if colon < fn.body_open:
            self.initializer_list(colon, fn.body_open, fn.body_close)

    def initializer_list(self, colon: int, body_open: int, body_close: int) -> None:
        """``: a(x), b{y} {body}`` becomes ``{ a=(x), b=(y);{body}}``."""
        self.edit(self.toks[colon].start, self.toks[colon].end, "{")
        j = colon + 1
        while j < body_open:
            member = self.toks[j]
            bracket = j + 1
            end = self.match(bracket)
            self.edit(member.end, self.toks[bracket].end, "=(")
            self.edit(self.toks[end].start, self.toks[end].end, ")")
            self.function_body_range(bracket + 1, end, None)
            j = end + 1
            if self.tok(j) == ",":
                j += 1
        self.edit(self.toks[body_open].start, self.toks[body_open].start, ";")
        self.edit(self.toks[body_close].end, self.toks[body_close].end, "}")

    # ------------------------------------------------------------------ free operators
    def free_operator(self, k: int) -> int:
        """``T operator*(T a, T b) {...}`` at file scope (or a declaration of one)."""
        open_paren = k + 3 if self.tok(k + 1) == "(" and self.tok(k + 2) == ")" else k + 1
        while open_paren < len(self.toks) and self.tok(open_paren) != "(":
            open_paren += 1
        j = k - 1
        while j >= 0 and self.tok(j) not in (";", "}", ")"):
            if self.tok(j) == "&":  # a reference return type is returned by value
                self.blank(j, j)
            j -= 1
        self.lower_operator_name(k, open_paren, None, False, None)
        return self.match(open_paren) + 1

    # ------------------------------------------------------------------ bodies
    def function_body(self, k: int, owner: str | None) -> int:
        end = self.match(k)
        self.function_body_range(k + 1, end, owner)
        return end + 1

    def function_body_range(self, a: int, b: int, owner: str | None) -> None:
        names = self.table.struct_names
        for j in range(a, b):
            t = self.toks[j]
            if t.text == "this" and self.tok(j - 1) == "*" and owner is not None:
                before = self.tok(j - 2)  # '*' is the unary dereference after these
                if before == "return" or (self.toks[j - 2].kind == "op" and before not in (")", "]")):
                    self.edit(self.toks[j - 1].start, self.toks[j - 1].end, " ")
            if t.kind != "id" or t.text not in names or self.tok(j - 1) in (".", "->", "struct"):
                continue
            nxt = self.tok(j + 1)
            if nxt in ("(", "{"):
                self.temporary(j)
            elif self.kind(j + 1) == "id" and self.tok(j + 2) in ("(", "{") \
                    and (self.tok(j + 2), self.tok(j + 3)) != ("(", ")"):
                self.direct_initialization(j + 1)

    def temporary(self, j: int) -> None:
        """``T(args)`` / ``T{args}`` → ``(T){args}``."""
        name, bracket = self.toks[j], self.toks[j + 1]
        end = self.toks[self.match(j + 1)]
        before = self.text[name.start - 1] if name.start > 0 else ""
        if before in " \t" and not self.overlaps(name.start - 1):
            self.edit(name.start - 1, name.end, f"({name.text})")
        else:
            self.edit(name.start, name.end, f"({name.text})")
        if bracket.text == "(":
            self.edit(bracket.start, bracket.end, "{")
            self.edit(end.start, end.end, "}")
            start = name.start - 1 if before in " \t" else name.start
            self.paren_literal_offsets.append(start)

    def direct_initialization(self, j: int) -> None:
        """``T v(args)`` / ``T v{args}`` → ``T v={args}``."""
        bracket = self.toks[j + 1]
        end = self.toks[self.match(j + 1)]
        self.edit(bracket.start, bracket.end, "={")
        if bracket.text == "(":
            self.edit(end.start, end.end, "}")
            self.paren_decl_offsets.append(self.toks[j].start)

    def overlaps(self, offset: int) -> bool:
        return any(s <= offset < e for s, e, _ in self.edits)

    # ------------------------------------------------------------------ output
    def result(self) -> tuple[str, StructTable]:
        edits = sorted(self.edits, key=lambda e: (e[0], e[1]))
        out: list[str] = []
        pos = 0
        shifts: list[tuple[int, int]] = []  # (original offset, cumulative delta after it)
        delta = 0
        for start, end, rep in edits:
            if start < pos:
                # two struct rewrites claim the same text: only malformed code does that
                # (``T T(a)``, a constructor call inside a declarator, ...), so name the place
                raise CompileError("syntax error: this use of a struct type cannot be read (a type "
                                   "name twice, or a constructor call where a name belongs?)",
                                   *self.line_col(start), "struct syntax")
            out.append(self.text[pos:start])
            out.append(rep)
            pos = end
            delta += len(rep) - (end - start)
            shifts.append((end, delta))
        out.append(self.text[pos:])
        text = "".join(out)

        def moved(offset: int) -> int:
            d = 0
            for end, dl in shifts:
                if end <= offset:
                    d = dl
                else:
                    break
            return offset + d

        def where(offset: int) -> tuple[int, int]:
            line, col = self.line_col(moved(offset), text)
            return line + self.line_offset, col

        for offset, info in self.method_names:
            self.table.by_position[where(offset)] = info
        self.table.paren_literals = {where(o) for o in self.paren_literal_offsets}
        self.table.paren_decls = {where(o) for o in self.paren_decl_offsets}
        return text, self.table


def lower_structs(pre: Preprocessed) -> tuple[Preprocessed, StructTable]:
    """Lower C++ structs in preprocessed text (see the module docstring)."""
    m = _LINE_MARKER.search(pre.text)
    if m is None:
        return pre, StructTable()
    head, body = pre.text[:m.start()], pre.text[m.end():]
    prelude = vector_prelude(body)
    if not re.search(r"\b(struct|operator|class)\b", body):
        if not prelude:
            return pre, StructTable()
        return dataclasses.replace(pre, text=f"{head}{prelude}\n{m.group(0)}{body}"), StructTable()
    lowerer = _Lowerer(body, 0)
    lowerer.table.struct_names.update(pre.templates.structs.type_names())  # Pair<float> & co
    lowerer.run()
    text, table = lowerer.result()
    return dataclasses.replace(pre, text=f"{head}{prelude}\n{m.group(0)}{text}"), table
