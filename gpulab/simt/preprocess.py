"""Turn a CUDA C kernel file into plain C that pycparser parses, keeping positions.

Comments become spaces, ``#define`` macros (object-like and function-like, with ``#``,
``##`` and ``...``) are expanded, ``#if``/``#elif``/``#else`` select lines, ``#include``
files are joined onto their ``#include`` line (:mod:`gpulab.simt.includes`), ``#pragma``
lines are dropped (``#pragma once`` is honoured), and the CUDA-only words and
``__attribute__((...))``-style hints are blanked with spaces of equal length so that every
line and (outside macro expansions) every column stays where it was in the original file.
``__shared__`` becomes ``static`` (the compiler reads a ``static`` local as a shared-memory
array). The names of ``__global__`` and
``__device__`` functions are recorded. Columns inside a macro expansion map back to the
start of the macro name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from . import coop_groups
from .cexpr import ConstExprError, evaluate
from .ctypes_ import TYPEDEF_PRELUDE
from .errors import CompileError
from .includes import BUILTIN_HEADERS, Includer, Inclusion, Spans, anchor_site, normalize_newlines, relocate
from .machine import Site
from .templates import TemplateTable, lower_templates

_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(r"""[A-Za-z_]\w*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\d[\w.]*|\s+|.""")
_BLANKED = ("__device__", "__host__", "__forceinline__", "__inline__", "__noinline__",
            "__restrict__", "__restrict", "inline", "__global__")
_QUALIFIER = re.compile(r"\b(" + "|".join(_BLANKED) + r")\b")
_ATTRIBUTE = re.compile(r"\b(?:__attribute__|__launch_bounds__|__align__|__declspec|_Pragma)\s*\(")
_EXTERN_C = re.compile(r'\bextern\s+"C(?:\+\+)?"')
_FUNC_KIND = re.compile(r"\b(__global__|__device__)\b[^;{()]*?\b([A-Za-z_]\w*)\s*\(")


@dataclass
class Macro:
    """A ``#define``: ``params`` is None for object-like macros."""

    name: str
    body: str
    params: list[str] | None = None
    variadic: bool = False  # the last parameter is ``...`` (named ``__VA_ARGS__`` in params)


@dataclass
class Preprocessed:
    """Plain-C text for pycparser plus what was learned on the way."""

    text: str
    global_functions: set[str] = field(default_factory=set)
    device_functions: set[str] = field(default_factory=set)
    expansions: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    cg_names: dict[str, coop_groups.CgName] = field(default_factory=dict)  # lowered cooperative-groups names
    includes: dict[int, Inclusion] = field(default_factory=dict)  # main-file line -> header text
    included_files: tuple[tuple[str, int, int], ...] = ()  # (path, mtime_ns, size) read

    def relocate(self, exc: CompileError) -> CompileError:
        """An error inside an included file, reworded to name that file and its line."""
        return relocate(self.includes, exc) if self.includes else exc

    def anchor(self, site: Site) -> Site:
        """A step inside an included file, placed on its ``#include`` line of the main file."""
        return anchor_site(self.includes, site) if self.includes else site
    templates: TemplateTable = field(default_factory=TemplateTable)
    constant_names: set[str] = field(default_factory=set)  # declared __constant__ (file scope)

    def original_column(self, line: int, column: int) -> int:
        """Map a 1-based column of the expanded text back to the original source."""
        delta = 0
        for exp_start, exp_end, orig_start, orig_end in self.expansions.get(line, []):
            if column - 1 < exp_start:
                break
            if column - 1 < exp_end:
                return orig_start + 1
            delta = orig_end - exp_end
        return column + delta


def blank_comments(source: str) -> str:
    """Replace comments by spaces of the same length, keeping newlines."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(source[i:j + 1])
            i = j + 1
        elif source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            if j < 0:
                raise CompileError("unterminated comment", source.count("\n", 0, i) + 1, 1,
                                   "comment")
            chunk = source[i:j + 2]
            out.append(re.sub(r"[^\n]", " ", chunk))
            i = j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _join_continuations(lines: list[str]) -> list[str]:
    """Join backslash-continued directive lines; keep the line count with empty lines."""
    out: list[str] = []
    pending = ""
    held = 0
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            held += 1
            continue
        out.append(pending + line)
        out.extend([""] * held)
        pending, held = "", 0
    if pending:
        out.append(pending)
        out.extend([""] * (held - 1))
    return out


def _parse_define(rest: str, lineno: int) -> Macro:
    m = re.match(r"([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$", rest)
    if not m:
        raise CompileError("malformed #define", lineno, 1, "#define")
    params = None
    variadic = False
    if m.group(2) is not None:
        params = [p.strip() for p in m.group(3).split(",") if p.strip()]
        if params and params[-1] == "...":
            params[-1], variadic = "__VA_ARGS__", True
        if any(not _IDENT.fullmatch(p) for p in params) or len(set(params)) != len(params):
            raise CompileError("malformed macro parameters (named variadic parameters such as "
                               "'args...' are not supported)", lineno, 1, "#define")
    return Macro(m.group(1), m.group(4).strip(), params, variadic)


def _split_args(text: str, start: int, lineno: int) -> tuple[list[str], int]:
    """Split ``(a, f(b, c))`` starting at the ``(`` at ``start``; return args and end."""
    depth = 0
    args: list[str] = []
    cur: list[str] = []
    for i in range(start, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
            if depth == 1:
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i + 1
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    raise CompileError("a macro call must end on the line it starts on", lineno, start + 1,
                       "macro call")


def _substitute(body: str, params: list[str], args: list[str], raw: list[str] | None = None) -> str:
    """The body with parameters replaced: by the expanded argument, by the argument as written
    next to ``##`` (pasted), and by a string literal after ``#`` (stringized)."""
    if "#" not in body:
        table = dict(zip(params, args, strict=True))
        return _IDENT.sub(lambda m: table.get(m.group(0), m.group(0)), body)
    expanded = dict(zip(params, args, strict=True))
    written = dict(zip(params, raw if raw is not None else args, strict=True))
    toks = [m.group(0) for m in _TOKEN.finditer(body)]
    pasted = _paste_operands(toks)
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok == "#" and i + 1 < len(toks) and toks[i + 1] == "#":
            out.append("##")
            i += 2
            continue
        if tok == "#":
            j = _next_solid(toks, i + 1)
            if j < len(toks) and toks[j] in written:
                out.append(_stringize(written[toks[j]]))
                i = j + 1
                continue
        out.append((written if i in pasted else expanded).get(tok, tok))
        i += 1
    text = "".join(out)
    if "##" not in body:
        return text
    return _paste(text, "__VA_ARGS__" in expanded and not expanded["__VA_ARGS__"].strip())


def _next_solid(toks: list[str], i: int) -> int:
    while i < len(toks) and toks[i].isspace():
        i += 1
    return i


def _paste_operands(toks: list[str]) -> set[int]:
    """Indices of the tokens on either side of a ``##``."""
    marks: set[int] = set()
    for i in range(len(toks) - 1):
        if toks[i] == "#" and toks[i + 1] == "#":
            k = i - 1
            while k >= 0 and toks[k].isspace():
                k -= 1
            marks.update({k, _next_solid(toks, i + 2)})
    return marks


def _paste(text: str, empty_va_args: bool) -> str:
    """Join the tokens around each ``##``; ``, ## __VA_ARGS__`` with no variadic arguments
    drops the comma (the GNU extension printf-style macros rely on)."""
    if empty_va_args:
        text = re.sub(r",\s*##\s*$|,\s*##(?=\s*[),])", "", text)
    return re.sub(r"\s*##\s*", "", text)


def _stringize(arg: str) -> str:
    """``#x``: the argument as written, as a C string literal (spaces collapsed)."""
    parts = []
    for m in _TOKEN.finditer(arg.strip()):
        tok = m.group(0)
        if tok.isspace():
            parts.append(" ")
        elif tok[0] in "\"'":
            parts.append(tok.replace("\\", "\\\\").replace('"', '\\"'))
        else:
            parts.append(tok)
    return '"' + "".join(parts) + '"'


def _bind_macro_args(macro: Macro, args: list[str], lineno: int, column: int) -> list[str]:
    """The call's arguments, one per parameter (variadic extras joined into ``__VA_ARGS__``)."""
    params = macro.params or []
    if args == [""] and (not params or params == ["__VA_ARGS__"]):
        args = [] if not params else [""]
    if macro.variadic and len(args) >= len(params) - 1:
        fixed = len(params) - 1
        return [*args[:fixed], ", ".join(args[fixed:])]
    if len(args) != len(params):
        at_least = "at least " if macro.variadic else ""
        raise CompileError(f"macro {macro.name} expects {at_least}{len(params) - macro.variadic} "
                           f"arguments, got {len(args)}", lineno, column, "macro call")
    return args


# How much one line may grow by macro expansion: enough for any real kernel, and a clear
# error instead of an exponential blow-up (30 levels of '#define A1 A0 A0').
MAX_EXPANSIONS = 20_000
MAX_EXPANDED_CHARS = 1_000_000


class _Expander:
    def __init__(self, macros: dict[str, Macro]) -> None:
        self.macros = macros
        self.expansions = 0
        self.chars = 0

    def _spend(self, name: str, replacement: str, lineno: int, column: int) -> None:
        self.expansions += 1
        self.chars += len(replacement)
        if self.expansions > MAX_EXPANSIONS or self.chars > MAX_EXPANDED_CHARS:
            raise CompileError(f"macro expansion of {name} grows too large (over {MAX_EXPANSIONS} "
                               f"expansions or {MAX_EXPANDED_CHARS} characters on one line); "
                               "is a macro defined in terms of itself twice over?",
                               lineno, column, "macro expansion")

    def expand(self, text: str, lineno: int, disabled: frozenset[str] = frozenset(),
               spans: list[tuple[int, int, int, int]] | None = None) -> str:
        out: list[str] = []
        pos = 0
        for m in _TOKEN.finditer(text):
            if m.start() < pos:
                continue
            tok = m.group(0)
            macro = self.macros.get(tok)
            if macro is None or tok in disabled:
                out.append(tok)
                pos = m.end()
                continue
            end = m.end()
            replacement = macro.body
            if macro.params is not None:
                k = end
                while k < len(text) and text[k] in " \t":
                    k += 1
                if k >= len(text) or text[k] != "(":
                    out.append(tok)
                    pos = end
                    continue
                args, end = _split_args(text, k, lineno)
                args = _bind_macro_args(macro, args, lineno, m.start() + 1)
                expanded = [self.expand(a, lineno, disabled) for a in args]
                replacement = _substitute(macro.body, macro.params, expanded, args)
            self._spend(tok, replacement, lineno, m.start() + 1)
            replacement = self.expand(replacement, lineno, disabled | {tok})
            exp_start = sum(len(s) for s in out)
            out.append(replacement)
            if spans is not None:
                spans.append((exp_start, exp_start + len(replacement), m.start(), end))
            pos = end
        return "".join(out)


def _directive(line: str) -> tuple[str, str] | None:
    m = re.match(r"\s*#\s*(\w*)\s*(.*)$", line)
    return (m.group(1), m.group(2)) if m else None


_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))")
_PP_TOKEN = re.compile(r"""'(?:\\.|[^'\\])*'|\d[\w.]*|[A-Za-z_]\w*""")


def _condition(expr: str, macros: dict[str, Macro], lineno: int) -> bool:
    """An ``#if`` condition, evaluated as C does (:mod:`gpulab.simt.cexpr`): ``defined``
    first, then macros expanded, then every identifier left is 0."""
    expr = _DEFINED.sub(lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0", expr)
    expr = _Expander(macros).expand(expr, lineno)
    expr = _PP_TOKEN.sub(lambda m: "0" if _IDENT.fullmatch(m.group(0)) else m.group(0), expr)
    try:
        return bool(evaluate(expr))
    except ConstExprError as exc:
        raise CompileError(f"cannot evaluate #if condition: {exc}", lineno, 1, "#if") from None


# Bounds on what one compile reads, far above any real kernel (the largest in the corpus is
# 2 KiB with 6 directives and 192-character lines), so that a hostile or generated file is
# refused at its line in a moment instead of running for minutes or filling memory.
MAX_SOURCE_CHARS = 1 << 20  # the kernel file's text
MAX_TOTAL_CHARS = 4 << 20  # the kernel and every header it includes, together
MAX_LINE_CHARS = 1 << 16  # one line (backslash continuations joined) of any file
MAX_IF_DEPTH = 256  # #if/#ifdef/#ifndef inside each other
MAX_DIRECTIVES = 20_000  # directive lines in the kernel and its headers, together


class _Budget:
    """What one preprocessing run has read so far, against the bounds above."""

    def __init__(self) -> None:
        self.directives = 0
        self.chars = 0

    def take_text(self, text: str, what: str, line: int | None) -> None:
        """Count a file's text; the kernel itself may hold at most MAX_SOURCE_CHARS."""
        if line is None and len(text) > MAX_SOURCE_CHARS:
            raise CompileError(f"the source is too big for the emulator ({len(text):,} characters; "
                               f"the limit is {MAX_SOURCE_CHARS:,})", None, None, "source size")
        self.chars += len(text)
        if self.chars > MAX_TOTAL_CHARS:
            raise CompileError(f"{what} brings the text read to {self.chars:,} characters, over the "
                               f"emulator's limit of {MAX_TOTAL_CHARS:,} for a kernel and its "
                               "headers together", line, 1 if line else None, "source size")

    def take_directive(self, lineno: int, column: int) -> None:
        self.directives += 1
        if self.directives > MAX_DIRECTIVES:
            raise CompileError(f"more than {MAX_DIRECTIVES:,} preprocessor directives (the kernel "
                               "and its headers together); the emulator stops here", lineno, column,
                               "directive count")


def check_line_lengths(lines: list[str]) -> None:
    """Refuse a line longer than MAX_LINE_CHARS before any pass reads it (parsing a line of
    megabytes takes minutes)."""
    for lineno, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_CHARS:
            raise CompileError(f"line {lineno} is {len(line):,} characters long; the emulator reads "
                               f"lines of up to {MAX_LINE_CHARS:,}", lineno, 1, "line length")


class _Conditions:
    """The ``#if``/``#elif``/``#else``/``#endif`` nesting: per level, whether its current
    branch is kept, whether an earlier branch was taken, and whether ``#else`` was seen."""

    def __init__(self) -> None:
        self.levels: list[list[bool]] = []  # [live, taken, after_else]
        self.active = True

    def open(self, keep: bool, lineno: int) -> None:
        if len(self.levels) >= MAX_IF_DEPTH:
            raise CompileError(f"#if nested more than {MAX_IF_DEPTH} deep", lineno, 1, "#if depth")
        live = self.active and keep
        self.levels.append([live, live or not self.active, False])
        self.active = live

    def branch(self, name: str, lineno: int, keep: Callable[[], bool]) -> None:
        """``#elif`` (``keep`` evaluates its condition, only when needed) or ``#else``."""
        if not self.levels:
            raise CompileError(f"#{name} without #if", lineno, 1, f"#{name}")
        level = self.levels[-1]
        if level[2]:
            raise CompileError(f"#{name} after #else", lineno, 1, f"#{name}")
        level[0] = not level[1] and (name == "else" or keep())
        level[1] = level[1] or level[0]
        level[2] = name == "else"
        self.active = all(lv[0] for lv in self.levels)

    def close(self, lineno: int) -> None:
        if not self.levels:
            raise CompileError("#endif without #if", lineno, 1, "#endif")
        self.levels.pop()
        self.active = all(lv[0] for lv in self.levels)


def _run_directives(lines: list[str], macros: dict[str, Macro] | None = None,
                    includer: _IncludeHook | None = None,
                    ) -> tuple[list[str], dict[int, Spans], dict[int, Inclusion]]:
    """Handle directives and expand macros; return lines (directives blanked), the macro
    expansion spans per line and what each ``#include`` line brought in (``macros`` is
    shared with included files).

    Each line is expanded as it is reached, with the macros defined above it: a copy of the
    macro table per line had made 20,000 ``#define`` lines take 5 GiB."""
    macros = {} if macros is None else macros
    budget = includer.budget if includer is not None else _Budget()
    conds = _Conditions()
    out: list[str] = []
    expansions: dict[int, Spans] = {}
    inserted: dict[int, Inclusion] = {}
    for lineno, line in enumerate(lines, start=1):
        d = _directive(line)
        active = conds.active
        if d is None:
            out.append(_expand_line(line, lineno, macros, expansions) if active else "")
            continue
        budget.take_directive(lineno, line.index("#") + 1)
        name, rest = d
        out.append("")
        if name in ("ifdef", "ifndef"):
            defined = rest.split()[0] in macros if rest.split() else False
            conds.open(defined if name == "ifdef" else not defined, lineno)
        elif name == "if":
            conds.open(_condition(rest, macros, lineno) if active else False, lineno)
        elif name in ("elif", "else"):
            conds.branch(name, lineno, partial(_condition, rest, macros, lineno))
        elif name == "endif":
            conds.close(lineno)
        elif not active or name == "":
            continue
        elif name == "pragma":
            if rest.split()[:1] == ["once"] and includer is not None:
                includer.pragma_once()
        elif name == "define":
            macro = _parse_define(rest, lineno)
            macros[macro.name] = macro
        elif name == "undef":
            macros.pop(rest.strip(), None)
        elif name == "include" and includer is not None:
            inserted[lineno] = includer.include(rest, lineno, line, macros)
        elif name == "error":
            raise CompileError(f"#error {rest.strip()}", lineno, line.index("#") + 1, "#error")
        else:
            raise CompileError(f"#{name} directives are not supported by the emulator",
                               lineno, line.index("#") + 1, f"#{name}")
    if conds.levels:
        raise CompileError("#if without #endif", len(lines), 1, "#if")
    return out, expansions, inserted


def _expand_line(line: str, lineno: int, macros: dict[str, Macro],
                 expansions: dict[int, Spans]) -> str:
    if not macros:
        return line
    spans: Spans = []
    line = _Expander(macros).expand(line, lineno, spans=spans)
    if spans:
        expansions[lineno] = spans
    return line


class _IncludeHook:
    """Connects ``#include`` lines to the :class:`Includer`, preprocessing each header with
    the macros of the file that includes it (a header's #defines stay defined after it)."""

    def __init__(self, includer: Includer) -> None:
        self.includer = includer
        self.budget = _Budget()

    def pragma_once(self) -> None:
        self.includer.pragma_once()

    def include(self, rest: str, lineno: int, line: str, macros: dict[str, Macro]) -> Inclusion:
        def lower(text: str) -> tuple[list[str], dict[int, Spans], dict[int, Inclusion]]:
            self.budget.take_text(text, f"line {lineno}'s #include", lineno)
            return _lower_file(text, macros, self)
        return self.includer.include(rest, lineno, line, lower,
                                     lambda name: _Expander(macros).expand(name, lineno))


def _lower_file(source: str, macros: dict[str, Macro], hook: _IncludeHook | None,
                ) -> tuple[list[str], dict[int, Spans], dict[int, Inclusion]]:
    """Comments, directives and macros of one file: its expanded lines (one per source
    line), the macro expansion spans per line, and the inclusions per ``#include`` line."""
    lines = _join_continuations(blank_comments(source).split("\n"))
    check_line_lengths(lines)
    return _run_directives(lines, macros, hook)


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _blank_extern_c(text: str) -> str:
    """Blank ``extern "C"`` and, for the block form, its braces."""
    while True:
        m = _EXTERN_C.search(text)
        if not m:
            return text
        text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
        k = m.end()
        while k < len(text) and text[k].isspace():
            k += 1
        if k < len(text) and text[k] == "{":
            depth = 0
            for j in range(k, len(text)):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    text = text[:k] + " " + text[k + 1:j] + " " + text[j + 1:]
                    break


def _blank_attributes(text: str) -> str:
    """Blank ``__attribute__((...))``, ``__launch_bounds__(...)``, ``__align__(n)``,
    ``__declspec(...)`` and ``_Pragma(...)`` with their balanced parentheses (newlines
    kept): hints to the compiler that change no result the emulator computes."""
    while m := _ATTRIBUTE.search(text):
        depth = 0
        for j in range(m.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
        else:
            line = text.count("\n", 0, m.start()) + 1
            raise CompileError(f"{m.group(0).rstrip('( ')}: unbalanced parentheses", line,
                               m.start() - text.rfind("\n", 0, m.start()), m.group(0).rstrip("( "))
        text = text[:m.start()] + re.sub(r"[^\n]", " ", text[m.start():j + 1]) + text[j + 1:]
    return text


# C++ words that change nothing the emulator computes, blanked (kept on their lines and columns):
# [[likely]]-style attributes, noexcept, alignas on a variable (the emulator's buffers are aligned
# at least as well; on a struct it changes the layout and stays for the struct lowering), and the
# constexpr of `if constexpr` (the condition is a constant; the compiler folds it either way).
_NO_EFFECT = re.compile(r"\[\[\s*[A-Za-z_][\w:]*(?:\s*\([^()\n]*\))?(?:\s*,\s*[A-Za-z_][\w:]*"
                        r"(?:\s*\([^()\n]*\))?)*\s*\]\]"
                        r"|\bnoexcept\b(?:\s*\([^()\n]*\))?"
                        r"|(?<!struct )(?<!class )\balignas\s*\([^()\n]*\)"
                        r"|(?<=\bif)(\s+)constexpr\b")


def _blank_no_effect(text: str) -> str:
    return _NO_EFFECT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _strip_cuda_words(text: str, result: Preprocessed) -> str:
    text = _blank_attributes(text)
    if "[[" in text or "noexcept" in text or "alignas" in text or "constexpr" in text:
        text = _blank_no_effect(text)
    for m in _FUNC_KIND.finditer(text):
        kind = result.global_functions if m.group(1) == "__global__" else result.device_functions
        kind.add(m.group(2))
    text, result.templates = lower_templates(text)  # template headers and calls, constexpr
    # __constant__ data: a file-scope "static const" of the same width, its name remembered
    # (the compiler maps it to constant memory, which the launch fills: cudaMemcpyToSymbol).
    result.constant_names.update(m.group(1) for m in _CONSTANT_DECL.finditer(text))
    text = re.sub(r"\b__constant__\b", "static const", text)
    for word in ("template", "class", "__managed__"):
        m2 = re.search(rf"\b{word}\b", text)
        if m2:
            line = text.count("\n", 0, m2.start()) + 1
            col = m2.start() - text.rfind("\n", 0, m2.start())
            raise CompileError(f"'{word}' is not supported by the emulator", line, col, word)
    text = _blank_extern_c(text)
    text = _QUALIFIER.sub(_blank, text)
    return re.sub(r"\b__shared__\b", "static    ", text)


_CONSTANT_DECL = re.compile(r"\b__constant__\b[^;=\[{(]*?\b([A-Za-z_]\w*)\s*(?=[\[=;])")
_INCLUDE_NAME = re.compile(r"^[ \t]*#[ \t]*include\b[ \t]*(<[^>\n]*>|\"[^\"\n]*\"|[^\n]*)", re.M)


_PRELUDE_PARTS = [(part.split()[-1], part + ";") for part in TYPEDEF_PRELUDE.split(";") if part.strip()]
_WORD = re.compile(r"[A-Za-z_]\w*")


def _prelude_for(body: str) -> str:
    """The prelude's typedefs of the names ``body`` uses: pycparser parses every token of the
    prelude at every compile, and most kernels use none of ``int8_t``...``ulong``."""
    words = set(_WORD.findall(body))
    return "".join(text for name, text in _PRELUDE_PARTS if name in words)


def reads_files(source: str) -> bool:
    """Whether ``source`` may include a file (anything but the built-in system headers)."""
    if "include" not in source:
        return False
    for m in _INCLUDE_NAME.finditer(normalize_newlines(source)):
        spelled = m.group(1).strip()
        if spelled[:1] not in ("<", '"') or spelled[1:-1].strip() not in BUILTIN_HEADERS:
            return True
    return False


def preprocess(source: str, filename: str = "kernel.cu",
               include_dirs: Sequence[str] = ()) -> Preprocessed:
    """Preprocess CUDA C ``source``; raise CompileError for unsupported directives.

    ``#include "name"`` is searched in ``include_dirs`` (see :mod:`gpulab.simt.includes`);
    an included file's text is joined onto its ``#include`` line, so every line of
    ``source`` keeps its number."""
    source = normalize_newlines(source)
    hook = _IncludeHook(Includer(filename, include_dirs))
    hook.budget.take_text(source, "the source", None)
    included, cg_headers = coop_groups.take_includes(source)
    includer = hook.includer
    expanded, expansions, inserted = _lower_file(included, {}, hook)
    result = Preprocessed(text="", expansions=expansions, includes=inserted)
    for lineno, inclusion in inserted.items():
        expanded[lineno - 1] += inclusion.text
    result.included_files = tuple(includer.read)
    try:
        body = _strip_cuda_words(coop_groups.lower("\n".join(expanded), result, cg_headers),
                                 result)
    except CompileError as exc:
        raise result.relocate(exc) from None
    result.lines = source.split("\n")
    result.text = f'{_prelude_for(body)}{coop_groups.typedef_prelude(result)}\n# 1 "{filename}"\n{body}\n'
    return result
