"""Source lowering for C++ function templates, so that pycparser can parse the file.

pycparser reads C, so this pass rewrites what a template adds to a function, keeping every
line on its line and (outside one rare case) every column in its column:

* the header ``template <typename T, unsigned int blockSize>`` becomes ``typedef int T;``
  padded with spaces (pycparser must know ``T`` names a type to parse ``T* x``; the int is a
  placeholder, the compiler binds ``T`` to the real type per instantiation). A header with
  value parameters only becomes spaces: ``blockSize`` is an ordinary identifier to the
  parser and a compile-time constant to the compiler;
* a call with explicit template arguments, ``warpReduce<blockSize>(sdata, tid)``, loses its
  ``<...>`` (blanked), and the argument texts are kept in :class:`TemplateTable` under the
  line and column of the called name, where the compiler finds them again;
* an explicit instantiation declaration (``template __global__ void k<float>(float*, int);``)
  is blanked and recorded as a request to instantiate ``k<float>``;
* ``constexpr`` becomes ``const`` (a constexpr variable is a const one with a constant
  initializer, which the compiler requires anyway), and ``__align__(N)`` is blanked (as in
  ``extern __shared__ __align__(16) unsigned char smem[];``: the emulator's buffers are
  aligned at least that well, and a misaligned access still faults).

The compiler (:mod:`gpulab.simt.instantiate`) then compiles one copy of a template's
function per set of template arguments, asked for by a launch (``reduce<256>``), by a call
(explicit or deduced arguments) or by an explicit instantiation. Struct templates are lowered by
:mod:`gpulab.simt.struct_templates` (called from here). Templates of unions,
variables and aliases, specializations, variadic and template template parameters are
rejected here with an error naming them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from . import struct_templates
from .errors import CompileError
from .struct_templates import StructTemplateTable

_TOKEN = re.compile(r"""[A-Za-z_]\w*|\d[\w.]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'"""
                    r"""|\.\.\.|->|::|>>=|<<=|>>|<<|>=|<=|==|!=|&&|\|\||\+\+|--|\S""")
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")", "]", "}"}
_ATTRIBUTE_WORDS = {"__attribute__", "__align__", "__declspec", "__launch_bounds__"}


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class TemplateParam:
    """One template parameter: a type (``typename T``) or a value (``unsigned int blockSize``)."""

    name: str
    kind: str  # "type" or "value"
    type_text: str = ""  # value parameters: the parameter's type as written
    default: str | None = None  # the default argument's text


@dataclass(frozen=True)
class TemplateDef:
    """A function template found in the source."""

    name: str
    params: tuple[TemplateParam, ...]
    line: int  # line of the word 'template'
    position: tuple[int, int]  # line and column of the function's name (the parser's coord)
    header: str  # 'template <unsigned int blockSize>', for messages

    def signature(self) -> str:
        """``reduce<unsigned int blockSize>``: what a launch must give."""
        parts = [("typename " + p.name) if p.kind == "type" else f"{p.type_text} {p.name}"
                 for p in self.params]
        return f"{self.name}<{', '.join(parts)}>"


@dataclass
class TemplateTable:
    """What lowering learned: templates by the position of their name, the placeholder
    typedefs to skip, explicit call arguments by the position of the called name, and the
    explicit instantiations (name expression, line)."""

    definitions: dict[tuple[int, int], TemplateDef] = field(default_factory=dict)
    typedef_names: set[tuple[int, int]] = field(default_factory=set)
    call_args: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)
    instantiations: list[tuple[str, int]] = field(default_factory=list)
    structs: StructTemplateTable = field(default_factory=StructTemplateTable)  # struct templates

    @property
    def names(self) -> set[str]:
        return {d.name for d in self.definitions.values()}


class _Source:
    """The text with its tokens and a line/column lookup."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def error(self, tok: Token, message: str, construct: str) -> CompileError:
        line, col = self.where(tok.start)
        return CompileError(message, line, col, construct)

    def text_between(self, first: int, last: int) -> str:
        """Source text of tokens ``first..last`` inclusive, whitespace squeezed."""
        if last < first:
            return ""
        return " ".join(self.text[self.tokens[first].start:self.tokens[last].end].split())

    def matching(self, k: int) -> int:
        """Index of the bracket closing the one at ``k`` (or -1)."""
        closer = _OPENERS[self.tokens[k].text]
        depth = 0
        for j in range(k, len(self.tokens)):
            t = self.tokens[j].text
            if t in _OPENERS:
                depth += 1
            elif t in _CLOSERS:
                depth -= 1
                if depth == 0:
                    return j if t == closer else -1
        return -1

    def closing_angle(self, k: int) -> int:
        """Index of the '>' closing the '<' at ``k``, counting '>>' twice and skipping
        brackets; -1 when a ';', '{' or '}' comes first (then it was a comparison)."""
        depth = 0
        j = k
        while j < len(self.tokens):
            t = self.tokens[j].text
            if t in ("(", "["):
                j = self.matching(j)
                if j < 0:
                    return -1
            elif t == "<":
                depth += 1
            elif t in (">", ">>"):
                depth -= len(t)
                if depth <= 0:
                    return j if depth == 0 else -1
            elif t in (";", "{", "}"):
                return -1
            j += 1
        return -1


def split_top_level(src: _Source, first: int, last: int) -> list[tuple[int, int]]:
    """Token ranges of the comma-separated items between ``first`` and ``last`` inclusive."""
    items: list[tuple[int, int]] = []
    start = first
    j = first
    depth = 0
    while j <= last:
        t = src.tokens[j].text
        if t in ("(", "[", "<"):
            depth += 1
        elif t in (")", "]", ">"):
            depth -= 1
        elif t == ">>":
            depth -= 2
        elif t == "," and depth == 0:
            items.append((start, j - 1))
            start = j + 1
        j += 1
    if start <= last or items:
        items.append((start, last))
    return items


# ---------------------------------------------------------------------------- lowering


class _Lowering:
    def __init__(self, text: str) -> None:
        self.src = _Source(text)
        self.table = TemplateTable()
        self.edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
        self.claimed: set[int] = set()  # token indexes inside a template header or instantiation
        self.struct_pending: list[struct_templates.PendingHeader] = []  # struct templates' headers

    def run(self) -> str:
        toks = self.src.tokens
        k = 0
        while k < len(toks):
            if toks[k].text == "template":
                k = self.template(k)
            k += 1
        struct_templates.lower_uses(self, self.struct_pending)
        self.calls()
        struct_templates.rename_call_args(self)
        for k, tok in enumerate(toks):
            if tok.text == "constexpr" and k not in self.claimed:
                self.edits.append((tok.start, tok.end, "const    "))
            elif tok.text == "__align__" and k + 1 < len(toks) and toks[k + 1].text == "(":
                close = self.src.matching(k + 1)
                if close > 0:
                    end = toks[close].end
                    self.edits.append((tok.start, end, re.sub(r"[^\n]", " ", self.src.text[tok.start:end])))
        return self.apply()

    # .......................................................................... templates
    def template(self, k: int) -> int:
        toks = self.src.tokens
        if k + 1 >= len(toks) or toks[k + 1].text != "<":
            return self.explicit_instantiation(k)
        close = self.src.closing_angle(k + 1)
        if close < 0:
            raise self.src.error(toks[k], "template: the parameter list '<...>' is not closed",
                                 "template")
        if close == k + 2:
            raise self.src.error(toks[k], "template specializations ('template <>') are not "
                                 "supported by the emulator", "template specialization")
        params = self.parameters(k + 2, close - 1)
        if struct_templates.starts_struct(self, close + 1):
            return struct_templates.lower_definition(self, k, close, params, self.struct_pending)
        name_at = self.function_name(k, close + 1)
        tok = toks[name_at]
        header = "template <" + self.src.text_between(k + 2, close - 1) + ">"
        self.table.definitions[self.src.where(tok.start)] = TemplateDef(
            tok.text, tuple(params), self.src.where(toks[k].start)[0], self.src.where(tok.start),
            header)
        self.header_edit(toks[k].start, toks[close].end, [p.name for p in params if p.kind == "type"])
        self.claimed.update(range(k, close + 1))
        return close

    def items(self, first: int, last: int) -> list[tuple[int, int]]:
        """Token ranges of the comma-separated items from ``first`` to ``last``."""
        return split_top_level(self.src, first, last) if last >= first else []

    def parameters(self, first: int, last: int) -> list[TemplateParam]:
        params = []
        for a, b in split_top_level(self.src, first, last):
            params.append(self.parameter(a, b))
        names = [p.name for p in params]
        for p in params:
            if names.count(p.name) > 1:
                raise self.src.error(self.src.tokens[first], f"template parameter '{p.name}' is "
                                     "declared twice", "template parameter")
        return params

    def parameter(self, a: int, b: int) -> TemplateParam:
        toks = self.src.tokens
        if a > b:
            raise self.src.error(toks[max(0, a - 1)], "template: an empty template parameter",
                                 "template parameter")
        words = [t.text for t in toks[a:b + 1]]
        if "..." in words:
            raise self.src.error(toks[a], "variadic templates ('...') are not supported by the "
                                 "emulator", "variadic template")
        if words[0] == "template":
            raise self.src.error(toks[a], "template template parameters are not supported by "
                                 "the emulator", "template template parameter")
        eq = words.index("=") if "=" in words else len(words)
        default = self.src.text_between(a + eq + 1, b) if eq < len(words) else None
        if eq < len(words) and not default:
            raise self.src.error(toks[a], "template: a default argument is missing after '='",
                                 "template parameter")
        decl = words[:eq]
        if "(" in decl and "*" in decl:
            raise self.src.error(toks[a], f"a function pointer as a template parameter "
                                 f"('{' '.join(words)}') is not supported by the emulator; pass "
                                 "the function as an argument (a function pointer parameter) or "
                                 "take 'typename F' and pass it as f", "function pointer template parameter")
        if len(decl) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", decl[-1]):
            raise self.src.error(toks[a], f"template parameter '{' '.join(words)}' needs a kind "
                                 "and a name ('typename T' or 'int N')", "template parameter")
        if decl[0] in ("typename", "class"):
            if len(decl) != 2:
                raise self.src.error(toks[a], f"template parameter '{' '.join(decl)}' is not "
                                     "supported", "template parameter")
            return TemplateParam(decl[1], "type", "", default)
        return TemplateParam(decl[-1], "value", " ".join(decl[:-1]), default)

    def function_name(self, k: int, first: int) -> int:
        """Index of the templated function's name: the identifier before the first '(' of
        the declaration after the header; anything else is a template the emulator lacks."""
        toks = self.src.tokens
        j = first
        while j < len(toks):
            t = toks[j].text
            if t in ("struct", "class", "union"):
                raise self.src.error(toks[k], f"{t} templates are not supported by the emulator "
                                     "(only function templates)", "class template")
            if t == "using":
                raise self.src.error(toks[k], "alias templates ('template ... using') are not "
                                     "supported by the emulator", "alias template")
            if t in _ATTRIBUTE_WORDS and j + 1 < len(toks) and toks[j + 1].text == "(":
                j = self.src.matching(j + 1) + 1
                if j <= 0:
                    break
                continue
            if t in (";", "=", "{"):
                raise self.src.error(toks[k], "variable templates are not supported by the "
                                     "emulator (only function templates)", "variable template")
            if t == "(":
                prev = toks[j - 1]
                if prev.text == ">":
                    raise self.src.error(toks[k], "template specializations are not supported by "
                                         "the emulator", "template specialization")
                if j - 1 < first or not re.fullmatch(r"[A-Za-z_]\w*", prev.text) \
                        or prev.text == "operator":
                    raise self.src.error(toks[k], "this kind of template is not supported by the "
                                         "emulator (only function templates)", "template")
                return j - 1
            j += 1
        raise self.src.error(toks[k], "template: no function follows the template header",
                             "template")

    def header_edit(self, start: int, end: int, type_names: list[str]) -> None:
        """The header becomes a placeholder typedef of its type parameters (or blanks)."""
        blank = re.sub(r"[^\n]", " ", self.src.text[start:end])
        if not type_names:
            self.edits.append((start, end, blank))
            return
        typedef = "typedef int " + ",".join(type_names) + ";"
        room = blank.find("\n")
        room = len(blank) if room < 0 else room
        replacement = typedef + blank[len(typedef):] if len(typedef) <= room else typedef + blank[room:]
        self.edits.append((start, end, replacement))
        line, col = self.src.where(start)
        offset = len("typedef int ")
        for name in type_names:
            self.table.typedef_names.add((line, col + offset))
            offset += len(name) + 1

    def explicit_instantiation(self, k: int) -> int:
        """``template __global__ void k<float>(float*, int);``: blank it, note ``k<float>``."""
        toks = self.src.tokens
        if k + 1 < len(toks) and toks[k + 1].text in ("struct", "class"):
            return struct_templates.explicit_instantiation(self, k)  # template struct Pair<float>;
        start = toks[k - 1].start if k > 0 and toks[k - 1].text == "extern" else toks[k].start
        j = k + 1
        request = None
        while j < len(toks) and toks[j].text not in (";", "{"):
            if toks[j].text == "<" and request is None and re.fullmatch(r"[A-Za-z_]\w*", toks[j - 1].text):
                close = self.src.closing_angle(j)
                if close > 0:
                    request = f"{toks[j - 1].text}<{self.src.text_between(j + 1, close - 1)}>"
                    j = close
            j += 1
        if j >= len(toks) or toks[j].text != ";" or request is None:
            raise self.src.error(toks[k], "template: expected 'template <...>' or an explicit "
                                 "instantiation like 'template __global__ void k<float>(float*);'",
                                 "template")
        self.table.instantiations.append((request, self.src.where(toks[k].start)[0]))
        self.edits.append((start, toks[j].end, re.sub(r"[^\n]", " ", self.src.text[start:toks[j].end])))
        self.claimed.update(range(k, j + 1))
        return j

    # .......................................................................... calls
    def calls(self) -> None:
        """``name<args>(`` for a template ``name``: blank ``<args>``, keep the argument texts."""
        names = self.table.names
        toks = self.src.tokens
        for k in range(len(toks) - 1):
            if toks[k].text not in names or toks[k + 1].text != "<" or k in self.claimed:
                continue
            close = self.src.closing_angle(k + 1)
            if close < 0:
                continue
            if close + 1 >= len(toks) or toks[close + 1].text != "(":
                raise self.src.error(toks[k], f"'{toks[k].text}<...>' must be called (a pointer to "
                                     "a template's instance is not supported by the emulator)",
                                     "template function name")
            args = tuple(self.src.text_between(a, b)
                         for a, b in split_top_level(self.src, k + 2, close - 1)) if close > k + 2 else ()
            self.table.call_args[self.src.where(toks[k].start)] = args
            start, end = toks[k + 1].start, toks[close].end
            self.edits.append((start, end, re.sub(r"[^\n]", " ", self.src.text[start:end])))

    def apply(self) -> str:
        text = self.src.text
        out: list[str] = []
        pos = 0
        for start, end, replacement in sorted(self.edits):
            if start < pos:
                continue
            out.append(text[pos:start])
            out.append(replacement)
            pos = end
        out.append(text[pos:])
        return "".join(out)


def lower_templates(text: str) -> tuple[str, TemplateTable]:
    """Rewrite function templates in preprocessed ``text`` (see the module docstring)."""
    if "template" not in text and "constexpr" not in text and "__align__" not in text:
        return text, TemplateTable()
    lowering = _Lowering(text)
    return lowering.run(), lowering.table


_REQUEST = re.compile(r"\s*([A-Za-z_]\w*)\s*<(.*)>\s*$", re.S)


def split_name_expression(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``"reduce<256>"`` -> ``("reduce", ("256",))``; None when ``text`` has no ``<...>``."""
    m = _REQUEST.match(text)
    if m is None:
        return None
    inner = m.group(2).strip()
    if not inner:
        return m.group(1), ()
    src = _Source(inner)
    if not src.tokens:
        return m.group(1), ()
    items = split_top_level(src, 0, len(src.tokens) - 1)
    return m.group(1), tuple(src.text_between(a, b) for a, b in items)
