"""Cooperative groups: the thread-block and tiled-partition subset of ``<cooperative_groups.h>``.

Two parts, both small enough to merge beside the other C++ passes:

* :func:`lower` is a source-lowering pass run by the preprocessor before pycparser sees the
  text. It blanks ``#include <cooperative_groups.h>`` (and ``<cooperative_groups/...>``),
  ``namespace cg = cooperative_groups;`` and ``using namespace cooperative_groups;``, and
  turns every cooperative-groups name into one C identifier of the same length, keeping
  its spelled prefix: ``cg::tiled_partition<32>`` becomes ``cg__tiled_partition_32_``,
  ``cooperative_groups::plus<float>`` becomes ``cooperative_groups__plus_float_`` (``::``,
  ``<``, ``>`` and other non-word characters become ``_``; squeezed spaces are padded at
  the end, so no later column moves). The identifiers it makes are recorded in
  ``Preprocessed.cg_names``; type names among them are declared to pycparser by
  :func:`typedef_prelude`. The pass claims exactly the names of namespace
  ``cooperative_groups`` (and its aliases); a general ``::``/namespace pass must run after
  it or skip those spellings.
* :class:`CoopGroups` is a mixin of the compiler: group types are opaque C types whose
  names start with ``cg::``; it compiles declarations, conversions, the free functions
  (``this_thread_block``, ``tiled_partition``, ``coalesced_threads``, ``sync``,
  ``thread_rank``, ``group_size``, ``reduce``) and the member functions called as
  ``g.method(...)``.

Semantics follow NVIDIA's headers and the CUDA Programming Guide: a ``thread_block_tile<N>``
(N = 1, 2, 4, 8, 16, 32) holds the threads whose block rank (``threadIdx.x + threadIdx.y *
blockDim.x + ...``) agree in all but the low log2(N) bits; its shuffles are
``__shfl*_sync(tile mask, v, s, N)``; ``ballot`` returns the tile's bits shifted down to bit
0; ``reduce`` is the headers' butterfly ``out = op(out, shfl_xor(out, k))`` for k = N/2 ... 1
(bit-exact for float). CUDA leaves a collective undefined unless every non-exited thread of
the group takes part, a ``tiled_partition<N>`` of a block whose size is not a multiple of
N, and a shuffle that reads an exited thread: the emulator faults on each, naming the
thread. Grid-wide synchronisation needs a cooperative launch and is a CompileError.

The run-time side (group values, per-lane masks, checks, member functions) is in
:mod:`gpulab.simt.coop_groups_run`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from pycparser import c_ast, c_parser

from . import ctypes_ as ct
from .builtins_ import _warp_bits as warp_bits
from .cexpr import ConstExprError, evaluate
from .coop_groups_run import (
    BLOCK,
    COALESCED,
    DIM3,
    METHODS,
    OPERATOR_FUNCTIONS,
    THREAD_GROUP,
    TILE_SIZES,
    ZERO,
    broadcast,
    check_tile,
    dynamic_masks,
    fault,
    is_group,
    is_tile,
    lane_index,
    operator_type,
    tile_masks,
    tile_type,
)
from .ctypes_ import CType
from .errors import CompileError
from .machine import Mask
from .values import CExpr, Frame, converted

NAMESPACE = "cooperative_groups"
GRID_CONSTRUCT = "grid-wide synchronisation (cooperative launch)"
_TYPES = {"thread_block", "thread_block_tile", "thread_group", "coalesced_group"}
_FUNCTIONS = {"this_thread_block", "tiled_partition", "coalesced_threads", "sync", "reduce",
              "thread_rank", "group_size"}
_OPERATORS = {"plus", "less", "greater", "bit_and", "bit_or", "bit_xor"}
_GRID = {"this_grid", "grid_group", "this_multi_grid", "multi_grid_group"}
_TEMPLATES = {"thread_block_tile", "tiled_partition", *_OPERATORS}
_SUPPORTED = _TYPES | _FUNCTIONS | _OPERATORS
_NAMES_A_CONSTANT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")  # an identifier (not a literal's suffix)


# ---------------------------------------------------------------------- source lowering
@dataclass(frozen=True)
class CgName:
    """What a lowered identifier stands for: ``name`` in namespace cooperative_groups and its
    template argument (a tile size, or an operator's value type), if any."""

    name: str
    arg: int | str | None = None


class CgSource(Protocol):
    """What this module uses of :class:`.preprocess.Preprocessed` (which calls the lowering,
    so that module imports this one and not the other way round)."""

    cg_names: dict[str, CgName]

    def original_column(self, line: int, column: int) -> int: ...


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](cooperative_groups(?:/[\w/]+)?\.h)[>"][ \t]*$',
                      re.M)
_NS_ALIAS = re.compile(rf"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(?:::\s*)?{NAMESPACE}\s*;")
_USING_NS = re.compile(rf"\busing\s+namespace\s+(?:::\s*)?{NAMESPACE}\s*;")
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_TARGS = re.compile(r"\s*<([^<>;{}()]*)>")
_EMPTY_BRACES = re.compile(r"\s*\{\s*\}")
_USER_FUNCTION = re.compile(r"\b(?:void|int|float|double|unsigned|bool|char|short|long)\s*[*&]?\s*"
                            r"([A-Za-z_]\w*)\s*\(")


def take_includes(source: str) -> tuple[str, set[str]]:
    """Blank the ``#include`` lines of cooperative-groups headers; return the text and the headers."""
    headers: set[str] = set()

    def blank(m: re.Match[str]) -> str:
        headers.add(m.group(1))
        return " " * len(m.group(0))
    return _INCLUDE.sub(blank, source), headers


def _blank(m: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _where(text: str, pos: int, pre: CgSource) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - text.rfind("\n", 0, pos)
    return line, pre.original_column(line, col)


def _error(text: str, pos: int, pre: CgSource, message: str, construct: str) -> CompileError:
    line, col = _where(text, pos, pre)
    return CompileError(message, line, col, construct)


class _Lowering:
    """One run of :func:`lower` over a preprocessed text."""

    def __init__(self, text: str, pre: CgSource, headers: set[str]) -> None:
        self.text = text
        self.pre = pre
        self.headers = headers
        self.strings = [m.span() for m in _STRING.finditer(text)]

    def in_string(self, pos: int) -> bool:
        return any(a <= pos < b for a, b in self.strings)

    def pattern(self, aliases: set[str], using: bool) -> re.Pattern[str]:
        prefixes = "|".join(sorted({NAMESPACE, *aliases}, key=len, reverse=True))
        qualified = rf"(?<![\w:.])(?P<ns>{prefixes})\s*::\s*(?P<name>[A-Za-z_]\w*)"
        if not using:
            return re.compile(qualified)
        own = {m.group(1) for m in _USER_FUNCTION.finditer(self.text)}
        names = "|".join(sorted((_SUPPORTED | _GRID) - own, key=len, reverse=True))
        return re.compile(rf"{qualified}|(?<![\w:.>])(?P<bare>{names})\b")

    def run(self) -> str:
        aliases: set[str] = set()

        def alias(m: re.Match[str]) -> str:
            aliases.add(m.group(1))
            return _blank(m)
        text = _NS_ALIAS.sub(alias, self.text)
        using = _USING_NS.search(text) is not None
        text = _USING_NS.sub(_blank, text)
        self.text = text
        out: list[str] = []
        pos = 0
        for m in self.pattern(aliases, using).finditer(text):
            if self.in_string(m.start()):
                continue
            replacement, end = self.replace(m)
            out.append(text[pos:m.start()])
            out.append(replacement)
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def replace(self, m: re.Match[str]) -> tuple[str, int]:
        ns, name = m.group("ns"), m.group("name") or m.group("bare")
        start, end = m.start(), m.end()
        if "cooperative_groups.h" not in self.headers:
            raise _error(self.text, start, self.pre, f"{NAMESPACE}::{name} needs "
                         "#include <cooperative_groups.h>", "cooperative groups include")
        self.check_supported(name, start)
        arg_text = None
        if name in _TEMPLATES:
            t = _TARGS.match(self.text, end)
            if t is not None:
                arg_text, end = " ".join(t.group(1).split()), t.end()
            elif self.text[end:].lstrip().startswith("<"):
                raise _error(self.text, start, self.pre, f"the template argument of {NAMESPACE}::"
                             f"{name} must be a constant or a plain type name", f"{NAMESPACE}::{name}")
        ident = f"{ns}__{name}" if ns else name
        if arg_text is not None:
            ident += "_" + re.sub(r"\W", "_", arg_text) + "_"
        self.record(ident, CgName(name, self.argument(name, arg_text, start)), start)
        replacement = ident.ljust(end - start)
        braces = _EMPTY_BRACES.match(self.text, end) if name in _OPERATORS else None
        if braces is not None:  # cg::plus<float>{} is the same object as cg::plus<float>()
            replacement += braces.group(0).replace("{", "(").replace("}", ")")
            end = braces.end()
        return replacement, end

    def check_supported(self, name: str, start: int) -> None:
        if name in _GRID:
            raise _error(self.text, start, self.pre, f"{GRID_CONSTRUCT}: {NAMESPACE}::{name} needs "
                         "a cooperative launch (cudaLaunchCooperativeKernel), which the emulator "
                         "does not model; synchronise the grid by ending the kernel and launching "
                         "another", GRID_CONSTRUCT)
        if name not in _SUPPORTED:
            raise _error(self.text, start, self.pre, f"{NAMESPACE}::{name} is not supported by the "
                         "emulator (it runs thread_block, thread_block_tile, tiled_partition, "
                         "coalesced_threads, sync and reduce)", f"{NAMESPACE}::{name}")
        if name == "reduce" and "cooperative_groups/reduce.h" not in self.headers:
            raise _error(self.text, start, self.pre, f"{NAMESPACE}::reduce needs #include "
                         "<cooperative_groups/reduce.h>", "cooperative groups include")

    def argument(self, name: str, arg_text: str | None, start: int) -> int | str | None:
        if arg_text is None or name in _OPERATORS:
            return arg_text
        if _NAMES_A_CONSTANT.search(arg_text):
            return arg_text  # tiled_partition<TILE>: the compiler reads TILE where it is used
        try:
            size = evaluate(arg_text)
        except ConstExprError:
            raise _error(self.text, start, self.pre, f"{NAMESPACE}::{name}<{arg_text}>: the tile size "
                         "must be an integer constant", f"{NAMESPACE}::{name}") from None
        problem = tile_size_problem(name, size)
        if problem is not None:
            raise _error(self.text, start, self.pre, *problem)
        return size

    def record(self, ident: str, what: CgName, start: int) -> None:
        known = self.pre.cg_names.setdefault(ident, what)
        if known != what:
            raise _error(self.text, start, self.pre, f"two different template arguments of "
                         f"{NAMESPACE}::{what.name} are spelled alike; write them as plain "
                         "constants", f"{NAMESPACE}::{what.name}")


def lower(text: str, pre: CgSource, headers: set[str]) -> str:
    """Lower cooperative-groups spellings in ``text`` (see the module docstring)."""
    if NAMESPACE not in text:
        return text
    return _Lowering(text, pre, headers).run()


def tile_size_problem(name: str, size: int) -> tuple[str, str] | None:
    """(message, construct) when ``size`` is not a tile size the emulator runs."""
    if size in TILE_SIZES:
        return None
    if size > 32 and size & (size - 1) == 0:
        return (f"{name}<{size}>: tiles of more than one warp are not supported by the emulator "
                "(sizes 1, 2, 4, 8, 16 and 32 are)", "multi-warp thread_block_tile")
    return f"{name}<{size}>: the size must be one of 1/2/4/8/16/32", "thread_block_tile size"


def typedef_prelude(pre: CgSource) -> str:
    """Typedefs that make the lowered group type names parse (on the prelude line)."""
    return "".join(f" typedef int {ident};" for ident, what in pre.cg_names.items()
                   if what.name in _TYPES)


class CoopGroups:
    """Compiler mixin: cooperative-groups declarations, conversions and calls."""

    # provided by the Compiler this class is mixed into
    pre: CgSource
    typedefs: dict[str, CType]
    error: Callable[..., CompileError]
    site: Callable[..., Any]
    expr: Callable[..., CExpr]
    scalar: Callable[..., CExpr]
    register_var: Callable[..., Any]
    check_new_name: Callable[..., None]
    local_scope: Any
    const_scope: Any
    position: Callable[..., tuple[int | None, int | None]]

    # ------------------------------------------------------------------ types
    def cg_typedef(self, ext: c_ast.Typedef) -> bool:
        """Map a prelude typedef made by :func:`typedef_prelude` to its group type."""
        what = self.pre.cg_names.get(ext.name)
        if what is None or what.name not in _TYPES:
            return False
        if what.name != "thread_block_tile":
            self.typedefs[ext.name] = {"thread_block": BLOCK, "thread_group": THREAD_GROUP,
                                       "coalesced_group": COALESCED}[what.name]
            return True
        if isinstance(what.arg, str):  # thread_block_tile<TILE>: read where the type is used
            self.__dict__.setdefault("cg_deferred", {})[ext.name] = what
            return True
        self.typedefs[ext.name] = tile_type(self.cg_tile_size(ext, what))
        return True

    def cg_deferred_type(self, node: c_ast.Node, ident: str) -> CType:
        """``thread_block_tile<TILE>`` where it is used: TILE a constant in scope there."""
        return tile_type(self.cg_tile_size(node, self.__dict__["cg_deferred"][ident]))

    def cg_tile_size(self, node: c_ast.Node, what: CgName, scope: Any = None) -> int:
        size = what.arg
        if isinstance(size, str):
            size = self.cg_constant(node, what, size, scope)
        if size is None:
            raise self.error(node, "thread_block_tile needs its size: thread_block_tile<32>",
                             "thread_block_tile")
        problem = tile_size_problem(what.name, size) if isinstance(size, int) else ("bad size", "")
        if problem is not None:  # checked by the lowering pass already
            raise self.error(node, *problem)
        return int(size)

    def cg_constant(self, node: c_ast.Node, what: CgName, text: str, scope: Any) -> int:
        """A tile size that names constants (``TILE``, ``2 * n``), read in ``scope`` (else the
        block being declared in, else the template's or the file's constants)."""
        where = f"{NAMESPACE}::{what.name}<{text}>"
        try:
            init = c_parser.CParser().parse(f"int __cg_size = ({text});").ext[0].init
            value = self.expr(init, scope or self.local_scope or self.const_scope)
        except CompileError as exc:
            raise self.error(node, f"{where}: {exc.detail}", f"{NAMESPACE}::{what.name}") from None
        except Exception:
            raise self.error(node, f"{where}: the tile size must be an integer constant",
                             f"{NAMESPACE}::{what.name}") from None
        if value.const is None or not value.ctype.is_integer:
            raise self.error(node, f"{where}: '{text}' is not a constant expression (the tile size "
                             "must be a compile-time integer)", f"{NAMESPACE}::{what.name}")
        size = int(value.const)
        problem = tile_size_problem(what.name, size)
        if problem is not None:
            raise self.error(node, *problem)
        return size

    # ------------------------------------------------------------------ declarations
    def cg_declare(self, node: c_ast.Decl, ctype: CType, scope: Any) -> Callable:
        """``cg::thread_block block = cg::this_thread_block();`` and the like."""
        if node.init is None:
            raise self.error(node, f"a {ctype} variable needs an initializer (groups are made by "
                             "this_thread_block(), tiled_partition(...) or coalesced_threads())",
                             "uninitialised group")
        self.check_new_name(node, scope)
        ev = self.cg_convert(self.expr(node.init, scope), ctype, node.init).ev
        var = self.register_var(node.name, ctype)
        var.var_id = -1  # not a register the warp visualizer shows
        var.line = self.position(node)[0] or 0
        scope.names[node.name] = var
        slot = var.slot

        def run(fr: Frame, m: Mask) -> Mask:
            fr.v[slot] = ev(fr, m)
            return m
        return run

    def cg_convert(self, value: CExpr, dst: CType, node: c_ast.Node) -> CExpr:
        """Initialisation/assignment/argument conversion involving group types."""
        src = value.ctype
        if src == dst:
            return value
        if dst == THREAD_GROUP and src == BLOCK:
            return CExpr(THREAD_GROUP, lambda fr, m: ZERO, value.pure)
        if dst == THREAD_GROUP and is_tile(src):
            n = src.length
            return CExpr(THREAD_GROUP, lambda fr, m: tile_masks(fr.mc, n), value.pure)
        if dst == THREAD_GROUP and src == COALESCED:
            return CExpr(THREAD_GROUP, value.ev, value.pure)
        raise self.error(node, f"cannot convert {src} to {dst}", "cooperative group conversion")

    # ------------------------------------------------------------------ free functions
    def cg_function(self, node: c_ast.FuncCall, scope: Any) -> CExpr:
        """A call of a lowered cooperative-groups function (``cg::tiled_partition<32>(b)``)."""
        what = self.pre.cg_names[node.name.name]
        args = list(node.args.exprs) if node.args is not None else []
        if what.name in _OPERATORS:
            self.cg_arity(node, what.name, args, 0)
            value = ct.type_from_specifiers(str(what.arg or "").split())
            if value is None or not value.is_scalar:
                raise self.error(node, f"cg::{what.name}<{what.arg}>: the value type must be an "
                                 "arithmetic type", f"cg::{what.name}")
            return CExpr(operator_type(what.name, value), lambda fr, m: ZERO)
        if what.name in _TYPES:
            raise self.error(node, f"cg::{what.name} objects are made by this_thread_block(), "
                             "tiled_partition(...) or coalesced_threads()", f"cg::{what.name}")
        return getattr(self, "cg_call_" + what.name)(node, what, args, scope)

    def cg_arity(self, node: c_ast.Node, name: str, args: list[Any], n: int) -> None:
        if len(args) != n:
            raise self.error(node, f"{name} takes {n} argument{'s' if n != 1 else ''}, not {len(args)}",
                             f"call to {name}")

    def cg_group(self, node: c_ast.Node, scope: Any, what: str) -> CExpr:
        group = self.expr(node, scope)
        if not is_group(group.ctype) or group.ctype in (DIM3,) or group.ctype.pointee is not None:
            raise self.error(node, f"{what} needs a cooperative group, not a {group.ctype} value",
                             f"{what} argument")
        return group

    def cg_call_this_thread_block(self, node: c_ast.FuncCall, what: CgName, args: list,
                                  scope: Any) -> CExpr:
        self.cg_arity(node, "this_thread_block", args, 0)
        return CExpr(BLOCK, lambda fr, m: ZERO)

    def cg_call_coalesced_threads(self, node: c_ast.FuncCall, what: CgName, args: list,
                                  scope: Any) -> CExpr:
        self.cg_arity(node, "coalesced_threads", args, 0)
        return CExpr(COALESCED, lambda fr, m: warp_bits(m.bits), False)

    def cg_call_sync(self, node: c_ast.FuncCall, what: CgName, args: list, scope: Any) -> CExpr:
        self.cg_arity(node, "cg::sync", args, 1)
        return self.cg_method(node, self.cg_group(args[0], scope, "cg::sync"), "sync", [], scope)

    def cg_call_thread_rank(self, node: c_ast.FuncCall, what: CgName, args: list,
                            scope: Any) -> CExpr:
        self.cg_arity(node, "cg::thread_rank", args, 1)
        group = self.cg_group(args[0], scope, "cg::thread_rank")
        return self.cg_method(node, group, "thread_rank", [], scope)

    def cg_call_group_size(self, node: c_ast.FuncCall, what: CgName, args: list,
                           scope: Any) -> CExpr:
        self.cg_arity(node, "cg::group_size", args, 1)
        group = self.cg_group(args[0], scope, "cg::group_size")
        return self.cg_method(node, group, "num_threads", [], scope)

    def cg_call_tiled_partition(self, node: c_ast.FuncCall, what: CgName, args: list,
                                scope: Any) -> CExpr:
        if what.arg is None:
            return self.cg_dynamic_partition(node, args, scope)
        self.cg_arity(node, "tiled_partition<N>", args, 1)
        n = self.cg_tile_size(node, what, scope)
        parent = self.cg_group(args[0], scope, "tiled_partition")
        site = self.site(node)
        if is_tile(parent.ctype):
            if n >= parent.ctype.length:
                raise self.error(node, f"tiled_partition<{n}> of a {parent.ctype}: the tile must be "
                                 "smaller than its parent", "tiled_partition size")
            size = np.uint32(parent.ctype.length)
            pev = parent.ev

            def of_tile(fr: Frame, m: Mask) -> Any:
                pev(fr, m)
                return size
            return CExpr(tile_type(n), of_tile, False)
        if parent.ctype != BLOCK:
            raise self.error(node, f"tiled_partition<{n}> of a {parent.ctype} is not supported "
                             "(the parent must be a thread_block or a thread_block_tile)",
                             "tiled_partition parent")

        def of_block(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            if mc.threads_per_block % n:
                raise fault(mc, site, f"tiled_partition<{n}> of a block of {mc.threads_per_block} "
                             f"threads: CUDA requires the block size to be a multiple of the tile "
                             "size (the last tile would be partial)")
            return ZERO
        return CExpr(tile_type(n), of_block, False)

    def cg_dynamic_partition(self, node: c_ast.FuncCall, args: list, scope: Any) -> CExpr:
        """``tiled_partition(block, n)``: a thread_group of n threads (the last one partial)."""
        self.cg_arity(node, "tiled_partition", args, 2)
        parent = self.cg_group(args[0], scope, "tiled_partition")
        if parent.ctype != BLOCK:
            raise self.error(node, f"tiled_partition(group, n) of a {parent.ctype} is not supported "
                             "by the emulator (use tiled_partition<N>(...))", "tiled_partition parent")
        size = self.scalar(args[1], scope)
        if not size.ctype.is_integer:
            raise self.error(args[1], f"tiled_partition(group, n): n must be an integer, not a "
                             f"{size.ctype}", "tiled_partition size")
        known = None if size.const is None else int(size.const) & 0xFFFFFFFF
        sev = size.ev
        site = self.site(node)

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            n = known if known is not None else _uniform_size(mc, site, sev(fr, m), m)
            if n not in TILE_SIZES:
                raise fault(mc, site, f"tiled_partition(group, {n}): the size must be a power of two "
                             "from 1 to 32 (CUDA traps)")
            return mc._per_lane(f"cg_dyn{n}", lambda: dynamic_masks(mc, n))
        return CExpr(THREAD_GROUP, run, False)

    def cg_call_reduce(self, node: c_ast.FuncCall, what: CgName, args: list, scope: Any) -> CExpr:
        self.cg_arity(node, "cg::reduce", args, 3)
        group = self.cg_group(args[0], scope, "cg::reduce")
        if not is_tile(group.ctype):
            raise self.error(node, f"cg::reduce of a {group.ctype}: the emulator reduces over a "
                             "thread_block_tile (CUDA: the group must be a tile)", "cg::reduce group")
        value = self.scalar(args[1], scope)
        op = self.expr(args[2], scope)
        if not is_group(op.ctype) or op.ctype.pointee is None:
            raise self.error(args[2], "cg::reduce needs an operator object such as cg::plus<float>()",
                             "cg::reduce operator")
        vtype = op.ctype.pointee
        if ct.as_value_type(value.ctype) != vtype:
            raise self.error(args[1], f"cg::reduce: the value is {ct.as_value_type(value.ctype)} but "
                             f"the operator is {op.ctype} (CUDA requires the same type)",
                             "cg::reduce type mismatch")
        name = op.ctype.name[4:op.ctype.name.index("<")]
        if name.startswith("bit_") and not vtype.is_integer:
            raise self.error(args[2], f"cg::{name} needs an integer type", f"cg::{name}")
        return self.cg_reduce(node, group, converted(value, vtype), name)

    def cg_reduce(self, node: c_ast.FuncCall, group: CExpr, value: CExpr, name: str) -> CExpr:
        n = group.ctype.length
        f = OPERATOR_FUNCTIONS[name]
        gev, vev = group.ev, value.ev
        site = self.site(node)
        dtype = value.ctype.dtype

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            gev(fr, m)
            check_tile(mc, m, n, site, "cg::reduce", everyone=True)
            out = broadcast(vev(fr, m), mc).astype(dtype, copy=False)
            index = lane_index(mc)
            k = n >> 1
            while k:
                out = f(out, out[index ^ k]).astype(dtype, copy=False)
                k >>= 1
            return out
        return CExpr(value.ctype, run, False)

    # ------------------------------------------------------------------ member functions
    def cg_method_call(self, node: c_ast.FuncCall, scope: Any) -> CExpr:
        """``g.method(args)`` on a cooperative group."""
        ref = node.name
        base = self.expr(ref.name, scope)
        if not is_group(base.ctype) or base.ctype == DIM3 or base.ctype.pointee is not None:
            raise self.error(node, f"member function calls on a {base.ctype} value are not "
                             "supported by the emulator", "member function call")
        if ref.type != ".":
            raise self.error(node, f"use '.' on a {base.ctype}", "-> on a group")
        args = list(node.args.exprs) if node.args is not None else []
        return self.cg_method(node, base, ref.field.name, args, scope)

    def cg_method(self, node: c_ast.FuncCall, base: CExpr, method: str, args: list,
                  scope: Any) -> CExpr:
        kind = "tile" if is_tile(base.ctype) else base.ctype.name[4:]
        handler = METHODS[kind].get(method)
        if handler is None:
            raise self.error(node, f"{base.ctype}::{method}() is not supported by the emulator",
                             f"{base.ctype}::{method}")
        return handler(self, node, base, args, scope)

    def cg_member(self, node: c_ast.StructRef, scope: Any) -> CExpr:
        """``block.thread_index().x`` and the other dim3 results."""
        base = self.expr(node.name, scope)
        axis = "xyz".find(node.field.name) if node.type == "." else -1
        if base.ctype != DIM3 or axis < 0:
            raise self.error(node, "structs and member access are not supported by the emulator",
                             "struct member access")
        ev = base.ev
        return CExpr(ct.UINT, lambda fr, m: ev(fr, m)[axis], base.pure)

    def cg_is_block_sync(self, node: c_ast.Node) -> bool:
        """Whether a statement is ``block.sync()``/``cg::sync(block)`` (a barrier step)."""
        return id(node) in getattr(self, "_cg_block_syncs", ())


__all__ = ["CoopGroups", "is_group", "lower", "take_includes", "typedef_prelude"]


def _uniform_size(mc: Any, site: Any, value: Any, m: Mask) -> int:
    """A run-time tile size: one value for every active thread, as CUDA requires of a group."""
    if np.ndim(value) == 0:
        return int(value) & 0xFFFFFFFF
    sizes = np.unique(np.asarray(value)[m.idx])
    if len(sizes) > 1:
        raise fault(mc, site, f"tiled_partition(group, n): the threads give different n "
                    f"({', '.join(str(int(v)) for v in sizes[:4])}); CUDA requires one n for the group")
    return int(sizes[0]) & 0xFFFFFFFF if len(sizes) else 1
