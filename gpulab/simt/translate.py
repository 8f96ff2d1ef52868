"""Source text to a compiled program: preprocess, parse, compile (:func:`compile_source`).

The steps before the compiler proper (:mod:`.preprocess`, the C++ lowerings of :mod:`.structs`
and :mod:`.cxx`, pycparser) and the readable syntax errors of the last; the compiler used is
:class:`~.cxx_compile.CxxCompiler`, the C compiler of :mod:`.compiler` with the C++ basics.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from pycparser import c_ast, c_parser

from . import cxx
from .cxx_compile import CxxCompiler
from .errors import CompileError
from .overloads import lower_trailing_returns
from .preprocess import Preprocessed, preprocess, reads_files
from .structs import lower_structs
from .symbols import Program

_PARSE_ERROR = re.compile(r":(\d+):(\d+): (.*)$", re.S)
_SUBSET = "(the emulator accepts a C subset of CUDA)"
_ENDS_EXPRESSION = {"ID", "TYPEID", "INT_CONST_DEC", "INT_CONST_OCT", "INT_CONST_HEX", "INT_CONST_BIN",
                    "INT_CONST_CHAR", "FLOAT_CONST", "HEX_FLOAT_CONST", "CHAR_CONST", "RPAREN", "RBRACKET",
                    "PLUSPLUS", "MINUSMINUS"}


def _next_token_position(parser: c_parser.CParser) -> tuple[int, int, str] | None:
    """Where a coordinate-less pycparser 3 error happened (private API, best effort)."""
    peek = getattr(parser, "_peek", None)
    try:
        tok = peek() if peek is not None else None
        return (int(tok.lineno), int(tok.column), str(tok.value)) if tok is not None else None
    except Exception:
        return None


def _tokens(text: str, filename: str) -> list[Any]:
    """pycparser's tokens of the preprocessed text (empty if it does not even lex)."""
    from pycparser.c_lexer import CLexer

    def ignore(message: str, line: int, column: int) -> None:
        return None

    lexer = CLexer(ignore)
    lexer.input(text, filename)
    tokens = []
    try:
        while (tok := lexer.token()) is not None:
            tokens.append(tok)
    except Exception:
        return tokens
    return tokens


def _after(pre: Preprocessed, tok: Any) -> tuple[int, int]:
    """Line and original column just after a token."""
    return int(tok.lineno), pre.original_column(int(tok.lineno), int(tok.column) + len(str(tok.value)))


def _end_of_input_error(pre: Preprocessed, filename: str) -> CompileError:
    tokens = [t for t in _tokens(pre.text, filename) if t.lineno >= 1]
    message = "syntax error: the source ends in the middle of a construct (is a '}' or ';' missing?)"
    if not tokens:
        return CompileError(message, None, None, "syntax")
    line, col = _after(pre, tokens[-1])
    return CompileError(message, line, col, "syntax")


def _missing_semicolon_error(pre: Preprocessed, filename: str, line: int, col: int,
                             detail: str) -> CompileError | None:
    """A "before: X" error on the first token of a line after an expression usually means
    the previous line lacks its ';': point at the end of that line, as a C compiler does."""
    if not detail.startswith("before:"):
        return None
    tokens = _tokens(pre.text, filename)
    at = next((k for k, t in enumerate(tokens) if (t.lineno, t.column) == (line, col)), None)
    if not at:
        return None
    prev = tokens[at - 1]
    if prev.lineno >= line or prev.type not in _ENDS_EXPRESSION:
        return None
    end_line, end_col = _after(pre, prev)
    return CompileError(f"syntax error: expected ';' at the end of line {end_line} (before "
                        f"{tokens[at].value!r} on line {line})", end_line, end_col, "syntax")


def _stray_comma_error(pre: Preprocessed, filename: str) -> CompileError | None:
    """A ',' followed by ';', '}', ')' or the end of the file: a declaration missing its last name."""
    tokens = _tokens(pre.text, filename)
    for k, tok in enumerate(tokens):
        following = tokens[k + 1] if k + 1 < len(tokens) else None
        if tok.type == "COMMA" and (following is None or following.type in ("SEMI", "RBRACE", "RPAREN")):
            line, col = int(tok.lineno), pre.original_column(int(tok.lineno), int(tok.column))
            after = f"before {following.value!r}" if following is not None else "at the end of the file"
            return CompileError(f"syntax error: a name is missing after this ',' ({after}); is the comma "
                                "a stray one?", line, col, "syntax")
    return None


def _parse(pre: Preprocessed, filename: str) -> c_ast.FileAST:
    parser = c_parser.CParser()
    try:
        return parser.parse(pre.text, filename=filename)
    except RecursionError:
        where = _next_token_position(parser)
        line = where[0] if where is not None and where[0] >= 1 else None
        raise CompileError("the code is nested too deeply for the emulator's parser (blocks, "
                           "ifs, loops or parentheses inside each other, about 100 levels at most)",
                           line, None, "nesting") from None
    except Exception as exc:  # pycparser raises ParseError and, on odd input, others
        text = str(exc)
        if "Invalid declarator" in text or text.endswith("At end of input"):
            stray = _stray_comma_error(pre, filename)
            if stray is not None:
                raise stray from None
        m = _PARSE_ERROR.search(text)
        if m is None:
            if text.endswith("At end of input"):
                raise _end_of_input_error(pre, filename) from None
            where = _next_token_position(parser)
            if where is None or where[0] < 1:
                raise CompileError(f"syntax error: {text}", None, None, "syntax") from None
            line, col, value = where
            raise CompileError(f"syntax error near {value!r} ({text.split(': ')[-1]})", line,
                               pre.original_column(line, col), "syntax") from None
        line, col = int(m.group(1)), int(m.group(2))
        detail = m.group(3).strip()
        semicolon = _missing_semicolon_error(pre, filename, line, col, detail)
        if semicolon is not None:
            raise semicolon from None
        raise CompileError(f"syntax error {detail} {_SUBSET}", line, pre.original_column(line, col),
                           "syntax") from None


def compile_source(source: str, filename: str = "kernel.cu",
                   include_dirs: Sequence[str | os.PathLike[str]] = (), *,
                   instantiate: tuple[str, ...] = (), count_flops: bool = False, fmad: bool = True) -> Program:
    """Preprocess, parse and compile ``source``; cached by source text (and by the files
    it includes, found in ``include_dirs``, with their modification times).

    ``instantiate`` names template instances to compile besides those the source asks
    for, as CuPy's ``name_expressions`` (``("reduce<256>",)``); see :mod:`.instantiate`.
    ``count_flops`` compiles the variant that counts floating-point work (:mod:`.work`);
    ``fmad=False`` compiles as ``nvcc -fmad=false``: no product is fused into an fma unless the
    source calls ``fmaf``/``fma`` (the default, as nvcc's, fuses ``a * b + c``)."""
    dirs = tuple(os.fspath(d) for d in include_dirs)
    stamp: tuple[tuple[str, int, int], ...] = ()
    if reads_files(source):
        try:
            stamp = preprocess(source, filename, dirs).included_files
        except CompileError:
            pass  # the cached call raises it again
    return _compile_cached(source, filename, dirs, stamp, tuple(instantiate), count_flops, fmad)


@lru_cache(maxsize=64)
def _compile_cached(source: str, filename: str, include_dirs: tuple[str, ...],
                    stamp: tuple[tuple[str, int, int], ...], instantiate: tuple[str, ...],
                    count_flops: bool = False, fmad: bool = True) -> Program:
    pre = preprocess(source, filename, include_dirs)
    try:
        return _compile(pre, filename, instantiate, count_flops, fmad)
    except CompileError as exc:
        raise pre.relocate(exc) from None


def _compile(pre: Preprocessed, filename: str, instantiate: tuple[str, ...], count_flops: bool = False,
             fmad: bool = True) -> Program:
    cxx.reject_unsupported(pre)  # lambdas, new, virtual, ...: named before a pass misreads them
    pre, structs = lower_structs(pre)  # C++ struct members, operators, constructors -> C
    pre = cxx.lower(pre)  # auto, references, C++ casts, brace init, default arguments, namespaces
    pre = lower_trailing_returns(pre)  # auto f(...) -> T
    ast = _parse(pre, filename)
    try:
        with np.errstate(all="ignore"):  # constant folding wraps like the GPU, silently
            compiler = CxxCompiler(pre, filename, structs, instantiate)
            compiler.count_flops = count_flops
            compiler.fmad = fmad
            return compiler.compile(ast)
    except RecursionError:
        raise CompileError("expression nested too deeply", None, None, "nesting") from None
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, AssertionError) as exc:
        raise CompileError(f"internal error in the emulator's compiler ({type(exc).__name__}: "
                           f"{exc}); please report this kernel", None, None,
                           "internal error") from exc
