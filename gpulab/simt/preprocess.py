"""Turn a CUDA C kernel file into plain C that pycparser parses, keeping positions.

Comments become spaces, ``#define`` macros (object-like and function-like) are expanded,
``#pragma`` lines are dropped, and the CUDA-only words are blanked with spaces of equal
length so that every line and (outside macro expansions) every column stays where it
was in the original file. ``__shared__`` becomes ``static`` (the compiler reads a
``static`` local as a shared-memory array). The names of ``__global__`` and
``__device__`` functions are recorded. Columns inside a macro expansion map back to the
start of the macro name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .cexpr import ConstExprError, evaluate
from .ctypes_ import TYPEDEF_PRELUDE
from .errors import CompileError

_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(r"""[A-Za-z_]\w*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\d[\w.]*|\s+|.""")
_BLANKED = ("__device__", "__host__", "__forceinline__", "__inline__", "__noinline__",
            "__restrict__", "__restrict", "inline", "__global__")
_QUALIFIER = re.compile(r"\b(" + "|".join(_BLANKED) + r")\b")
_LAUNCH_BOUNDS = re.compile(r"\b__launch_bounds__\s*\([^()]*\)")
_EXTERN_C = re.compile(r'\bextern\s+"C(?:\+\+)?"')
_FUNC_KIND = re.compile(r"\b(__global__|__device__)\b[^;{()]*?\b([A-Za-z_]\w*)\s*\(")


@dataclass
class Macro:
    """A ``#define``: ``params`` is None for object-like macros."""

    name: str
    body: str
    params: list[str] | None = None


@dataclass
class Preprocessed:
    """Plain-C text for pycparser plus what was learned on the way."""

    text: str
    global_functions: set[str] = field(default_factory=set)
    device_functions: set[str] = field(default_factory=set)
    expansions: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

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
    if m.group(2) is not None:
        params = [p.strip() for p in m.group(3).split(",") if p.strip()]
        if any(not _IDENT.fullmatch(p) for p in params):
            raise CompileError("variadic or malformed macro parameters are not supported",
                               lineno, 1, "#define")
    return Macro(m.group(1), m.group(4).strip(), params)


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


def _substitute(body: str, params: list[str], args: list[str]) -> str:
    table = dict(zip(params, args, strict=True))
    return _IDENT.sub(lambda m: table.get(m.group(0), m.group(0)), body)


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
                if args == [""] and not macro.params:
                    args = []
                if len(args) != len(macro.params):
                    raise CompileError(f"macro {tok} expects {len(macro.params)} arguments",
                                       lineno, m.start() + 1, "macro call")
                args = [self.expand(a, lineno, disabled) for a in args]
                replacement = _substitute(macro.body, macro.params, args)
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


def _run_directives(lines: list[str]) -> tuple[list[str], list[dict[str, Macro]]]:
    """Handle directives; return lines (directives blanked) and the macro table per line."""
    macros: dict[str, Macro] = {}
    active_stack: list[bool] = []
    out: list[str] = []
    snapshots: list[dict[str, Macro]] = []
    for lineno, line in enumerate(lines, start=1):
        d = _directive(line)
        active = all(active_stack)
        if d is None:
            out.append(line if active else "")
            snapshots.append(dict(macros))
            continue
        name, rest = d
        out.append("")
        snapshots.append(dict(macros))
        if name in ("ifdef", "ifndef"):
            defined = rest.split()[0] in macros if rest.split() else False
            active_stack.append(defined if name == "ifdef" else not defined)
        elif name == "if":
            active_stack.append(_condition(rest, macros, lineno) if active else False)
        elif name == "else":
            if not active_stack:
                raise CompileError("#else without #if", lineno, 1, "#else")
            active_stack[-1] = not active_stack[-1]
        elif name == "endif":
            if not active_stack:
                raise CompileError("#endif without #if", lineno, 1, "#endif")
            active_stack.pop()
        elif not active or name == "pragma" or name == "":
            continue
        elif name == "define":
            macro = _parse_define(rest, lineno)
            macros[macro.name] = macro
        elif name == "undef":
            macros.pop(rest.strip(), None)
        else:
            raise CompileError(f"#{name} directives are not supported by the emulator",
                               lineno, line.index("#") + 1, f"#{name}")
    if active_stack:
        raise CompileError("#if without #endif", len(lines), 1, "#if")
    return out, snapshots


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


def _strip_cuda_words(text: str, result: Preprocessed) -> str:
    text = _LAUNCH_BOUNDS.sub(_blank, text)
    for m in _FUNC_KIND.finditer(text):
        kind = result.global_functions if m.group(1) == "__global__" else result.device_functions
        kind.add(m.group(2))
    if re.search(r"\bextern\s+__shared__\b", text):
        line = text.count("\n", 0, re.search(r"\bextern\s+__shared__", text).start()) + 1  # type: ignore[union-attr]
        raise CompileError("dynamic shared memory (extern __shared__) is not supported",
                           line, None, "extern __shared__")
    for word in ("__constant__", "template", "class", "__managed__"):
        m2 = re.search(rf"\b{word}\b", text)
        if m2:
            line = text.count("\n", 0, m2.start()) + 1
            col = m2.start() - text.rfind("\n", 0, m2.start())
            raise CompileError(f"'{word}' is not supported by the emulator", line, col, word)
    text = _blank_extern_c(text)
    text = _QUALIFIER.sub(_blank, text)
    return re.sub(r"\b__shared__\b", "static    ", text)


def preprocess(source: str, filename: str = "kernel.cu") -> Preprocessed:
    """Preprocess CUDA C ``source``; raise CompileError for unsupported directives."""
    source = source.replace("\r\n", "\n")
    lines = _join_continuations(blank_comments(source).split("\n"))
    lines, snapshots = _run_directives(lines)
    result = Preprocessed(text="")
    expanded: list[str] = []
    for lineno, line in enumerate(lines, start=1):
        spans: list[tuple[int, int, int, int]] = []
        macros = snapshots[lineno - 1]
        expanded.append(_Expander(macros).expand(line, lineno, spans=spans) if macros else line)
        if spans:
            result.expansions[lineno] = spans
    body = _strip_cuda_words("\n".join(expanded), result)
    result.lines = source.split("\n")
    result.text = f'{TYPEDEF_PRELUDE}\n# 1 "{filename}"\n{body}\n'
    return result
