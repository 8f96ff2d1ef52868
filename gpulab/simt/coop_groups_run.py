"""Cooperative groups at run time: group types, per-lane masks, the checks for undefined
collectives, and the member functions of each group type (see :mod:`gpulab.simt.coop_groups`).

At run time a ``thread_block`` value is 0; a ``thread_block_tile<N>`` value is the size of
the tile it was partitioned from (0: the block), which ``meta_group_rank`` needs; a
``thread_group`` or ``coalesced_group`` value is, per lane, the 32-bit mask of its group's
lanes in the warp (``thread_group`` 0: the whole block).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pycparser import c_ast

from . import ctypes_ as ct
from .builtins_ import _popcount, _warp_bits, shuffle_source
from .ctypes_ import CType
from .errors import KernelFault
from .machine import Machine, Mask
from .values import CExpr, Frame, converted, truth

TILE_SIZES = (1, 2, 4, 8, 16, 32)
_FULL = np.uint32(0xFFFFFFFF)
ZERO = np.uint32(0)


# ---------------------------------------------------------------------- types
BLOCK = CType("cg::thread_block")
THREAD_GROUP = CType("cg::thread_group")
COALESCED = CType("cg::coalesced_group")
DIM3 = CType("cg::dim3")


def tile_type(size: int) -> CType:
    """``cg::thread_block_tile<size>``."""
    return CType(f"cg::thread_block_tile<{size}>", length=size)


def operator_type(name: str, value: CType) -> CType:
    """``cg::plus<T>`` and the other reduction operators (``pointee`` is T)."""
    return CType(f"cg::{name}<{value}>", pointee=value)


def is_group(t: CType) -> bool:
    """Whether ``t`` is one of the cooperative-groups types."""
    return t.name.startswith("cg::")


def is_tile(t: CType) -> bool:
    return t.name.startswith("cg::thread_block_tile<")


# ---------------------------------------------------------------------- per-lane helpers
def _block_rank(mc: Machine) -> np.ndarray:
    """Linear thread rank in the block of every lane (uint32)."""
    return mc._per_lane("cg_rank", lambda: np.tile(np.arange(mc.lanes_per_block, dtype=np.uint32),
                                                   mc.nblocks))


def lane_index(mc: Machine) -> np.ndarray:
    return mc._per_lane("cg_index", lambda: np.arange(mc.nlanes, dtype=np.int64))


def tile_masks(mc: Machine, n: int) -> Any:
    """Per lane: the warp mask of its ``thread_block_tile<n>`` (the headers' build_mask)."""
    if n == 32:
        return _FULL
    lane = mc.lane_in_warp
    return mc._per_lane(f"cg_mask{n}", lambda: (np.uint32((1 << n) - 1)
                                                << (lane & ~(n - 1)).astype(np.uint32)))


def _lanes_below(mc: Machine) -> np.ndarray:
    """Per lane: the mask of the lanes below it in its warp (``%lanemask_lt``)."""
    lane = mc.lane_in_warp
    return mc._per_lane("cg_lt", lambda: ((np.uint64(1) << lane.astype(np.uint64))
                                          - np.uint64(1)).astype(np.uint32))


def _popc(x: Any) -> Any:
    return _popcount(np.asarray(x, dtype=np.uint32))


def fault(mc: Machine, site: Any, message: str, lanes: tuple[int, ...] = ()) -> KernelFault:
    return KernelFault(f"{mc.kernel}: line {site.line}: {message}", mc.kernel, site.line, lanes=lanes)


def check_tile(mc: Machine, m: Mask, n: int, site: Any, what: str, everyone: bool = False) -> None:
    """Every non-exited thread of each tile with an active lane is active (``everyone``: and
    none has exited, for collectives that read every thread's value)."""
    if m.count == mc.full.count or (not everyone and m.count == mc.live_count):
        return
    need_bits = mc.valid if everyone else mc.valid & ~mc.exited
    here = np.count_nonzero(m.bits.reshape(-1, n), axis=1)
    need = np.count_nonzero(need_bits.reshape(-1, n), axis=1)
    bad = np.flatnonzero((here > 0) & (here != need))
    if not len(bad):
        return
    t = int(bad[0])
    missing = t * n + np.flatnonzero((need_bits & ~m.bits).reshape(-1, n)[t])
    lane = int(missing[0])
    how = "has exited" if mc.exited[lane] else "did not arrive"
    raise fault(mc, site, f"{what} reached by {here[t]} of the {need[t]} threads of a "
                 f"thread_block_tile<{n}>: {mc.describe_lane(lane)} {how} (CUDA leaves a tile "
                 "collective undefined unless every thread of the tile takes part)",
                 tuple(int(x) for x in missing[:32]))


def _check_members(mc: Machine, m: Mask, masks: Any, site: Any, what: str, group: str) -> None:
    """Every non-exited lane named in an active lane's group mask is active."""
    if m.count == mc.live_count:
        return
    missing = np.asarray(masks, dtype=np.uint32) & _warp_bits(mc.valid & ~mc.exited) \
        & ~_warp_bits(m.bits)
    bad = np.flatnonzero(m.bits & (missing != 0))
    if not len(bad):
        return
    lane = int(bad[0])
    bits = int(np.broadcast_to(missing, m.bits.shape)[lane])
    other = lane - int(mc.lane_in_warp[lane]) + (bits & -bits).bit_length() - 1
    raise fault(mc, site, f"{what} on a {group} reached by {mc.describe_lane(lane)} but not by "
                 f"{mc.describe_lane(other)} of the same group (CUDA leaves a group collective "
                 "undefined unless every thread of the group takes part)", (lane, other))


def _check_sources(mc: Machine, m: Mask, source: np.ndarray, n: int, site: Any, what: str) -> None:
    """A tile shuffle reads only live threads of the reader's own tile."""
    if mc.live_count == mc.full.count and n == 32:
        return
    lanes = m.idx
    src = source[lanes]
    outside = (src // n) != (lanes // n)
    dead = mc.exited[src] | ~mc.valid[src]
    bad = np.flatnonzero(outside | dead)
    if not len(bad):
        return
    lane, other = int(lanes[bad[0]]), int(src[bad[0]])
    why = "outside its tile" if outside[bad[0]] else "which has exited"
    raise fault(mc, site, f"{what}: {mc.describe_lane(lane)} reads {mc.describe_lane(other)}, "
                 f"{why}: the value is undefined in CUDA", (lane, other))


def broadcast(v: Any, mc: Machine) -> np.ndarray:
    return v if isinstance(v, np.ndarray) and v.ndim else np.full(mc.nlanes, v)


# ---------------------------------------------------------------------- reduction operators
def _plus(a: Any, b: Any) -> Any:
    return a + b


def _less(a: Any, b: Any) -> Any:
    return np.where(b < a, b, a)  # the headers' (arg2 < arg1) ? arg2 : arg1 (NaN order kept)


def _greater(a: Any, b: Any) -> Any:
    return np.where(a < b, b, a)  # (arg1 < arg2) ? arg2 : arg1


OPERATOR_FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "plus": _plus, "less": _less, "greater": _greater, "bit_and": np.bitwise_and,
    "bit_or": np.bitwise_or, "bit_xor": np.bitwise_xor,
}

Method = Callable[[Any, c_ast.FuncCall, CExpr, list[c_ast.Node], Any], CExpr]


def dynamic_masks(mc: Machine, n: int) -> np.ndarray:
    """``tiled_partition(block, n)``'s per-lane masks: the headers' _get_tiled_threads."""
    rank = _block_rank(mc).astype(np.int64)
    base = rank & ~(n - 1)
    length = np.minimum(mc.threads_per_block - base, n)
    mask = (np.int64(0xFFFFFFFF) >> (32 - np.clip(length, 1, 32))) << (mc.lane_in_warp & ~(n - 1))
    return (mask & 0xFFFFFFFF).astype(np.uint32)


# ---------------------------------------------------------------------- methods
def _no_args(comp: Any, node: c_ast.FuncCall, args: list, what: str) -> None:
    comp.cg_arity(node, what, args, 0)


def _uint(f: Callable[[Machine, Any], Any], ctype: CType = ct.UINT) -> Method:
    """A method with no arguments whose value is ``f(machine, group value)``."""
    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        _no_args(comp, node, args, node.name.field.name if isinstance(node.name, c_ast.StructRef)
                 else "this member function")
        gev = base.ev
        return CExpr(ctype, lambda fr, m: f(fr.mc, gev(fr, m)), False)
    return handler


def _block_sync(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
    _no_args(comp, node, args, "sync")
    site = comp.site(node)
    gev = base.ev
    syncs = comp.__dict__.setdefault("_cg_block_syncs", set())
    syncs.add(id(node))

    def run(fr: Frame, m: Mask) -> Any:
        gev(fr, m)
        fr.mc.barrier(m, site)
        return None
    return CExpr(ct.VOID, run, False)


def _dim3(f: Callable[[Machine], tuple[Any, Any, Any]]) -> Method:
    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        _no_args(comp, node, args, node.name.field.name)
        return CExpr(DIM3, lambda fr, m: f(fr.mc), False)
    return handler


def _grid_dims(mc: Machine) -> tuple[Any, Any, Any]:
    return np.uint32(mc.block[0]), np.uint32(mc.block[1]), np.uint32(mc.block[2])


_BLOCK_METHODS: dict[str, Method] = {
    "sync": _block_sync,
    "thread_rank": _uint(lambda mc, g: _block_rank(mc)),
    "size": _uint(lambda mc, g: np.uint32(mc.threads_per_block)),
    "num_threads": _uint(lambda mc, g: np.uint32(mc.threads_per_block)),
    "group_index": _dim3(lambda mc: (mc.block_index(0), mc.block_index(1), mc.block_index(2))),
    "thread_index": _dim3(lambda mc: (mc.thread_index(0), mc.thread_index(1), mc.thread_index(2))),
    "group_dim": _dim3(_grid_dims),
    "dim_threads": _dim3(_grid_dims),
}


def _tile_size(base: CExpr) -> int:
    return base.ctype.length


def _tile_sync(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
    _no_args(comp, node, args, "sync")
    n, gev, site = _tile_size(base), base.ev, comp.site(node)

    def run(fr: Frame, m: Mask) -> Any:
        gev(fr, m)
        check_tile(fr.mc, m, n, site, f"thread_block_tile<{n}>::sync()")
        return None
    return CExpr(ct.VOID, run, False)


def _meta_rank(n: int) -> Callable[[Machine, Any], Any]:
    def f(mc: Machine, parent: Any) -> Any:
        rank = _block_rank(mc)
        parent = np.asarray(parent, dtype=np.uint32)
        return np.where(parent == 0, rank // np.uint32(n), (rank & (parent - np.uint32(1))) // np.uint32(n))
    return f


def _meta_size(n: int) -> Callable[[Machine, Any], Any]:
    def f(mc: Machine, parent: Any) -> Any:
        of_block = np.uint32(-(-mc.threads_per_block // n))
        parent = np.asarray(parent, dtype=np.uint32)
        return np.where(parent == 0, of_block, parent // np.uint32(n))[()]
    return f


def _tile_method(make: Callable[[int], Callable[[Machine, Any], Any]]) -> Method:
    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        return _uint(make(_tile_size(base)))(comp, node, base, args, scope)
    return handler


def _tile_shuffle(kind: str) -> Method:
    name = {"idx": "shfl", "up": "shfl_up", "down": "shfl_down", "xor": "shfl_xor"}[kind]

    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        comp.cg_arity(node, name, args, 2)
        n, gev, site = _tile_size(base), base.ev, comp.site(node)
        value = comp.scalar(args[0], scope)
        if not value.ctype.is_scalar:
            raise comp.error(node, f"{name} works on arithmetic values", f"{name} on pointer")
        value = converted(value, ct.as_value_type(value.ctype))
        var = value.ev
        src = converted(comp.scalar(args[1], scope), ct.INT if kind == "idx" else ct.UINT).ev
        what = f"thread_block_tile<{n}>::{name}()"

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            gev(fr, m)
            check_tile(mc, m, n, site, what)
            v = var(fr, m)
            lane = mc.lane_in_warp
            s = np.asarray(src(fr, m)).astype(np.int64)
            source = lane_index(mc) - lane + shuffle_source(kind, lane, s, n)
            _check_sources(mc, m, source, n, site, what)
            return v if np.ndim(v) == 0 else v[source]
        return CExpr(value.ctype, run, False)
    return handler


def _tile_vote(kind: str) -> Method:
    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        comp.cg_arity(node, kind, args, 1)
        n, gev, site = _tile_size(base), base.ev, comp.site(node)
        pred = truth(comp.scalar(args[0], scope))
        what = f"thread_block_tile<{n}>::{kind}()"

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            gev(fr, m)
            check_tile(mc, m, n, site, what)
            p = np.broadcast_to(pred(fr, m), m.bits.shape) & m.bits
            masks = tile_masks(mc, n)
            bits = _warp_bits(p) & masks
            if kind == "ballot":
                return bits >> (mc.lane_in_warp & ~(n - 1)).astype(np.uint32)
            return bits != 0 if kind == "any" else bits == masks
        return CExpr(ct.UINT if kind == "ballot" else ct.TRUTH, run, False)
    return handler


def _tile_match_any(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
    comp.cg_arity(node, "match_any", args, 1)
    n, gev, site = _tile_size(base), base.ev, comp.site(node)
    value = comp.scalar(args[0], scope)
    if not value.ctype.is_scalar:
        raise comp.error(node, "match_any works on arithmetic values", "match_any on pointer")
    dtype = ct.as_value_type(value.ctype).dtype
    var = value.ev
    weights = (np.uint32(1) << np.arange(n, dtype=np.uint32))

    def run(fr: Frame, m: Mask) -> Any:
        mc = fr.mc
        gev(fr, m)
        check_tile(mc, m, n, site, f"thread_block_tile<{n}>::match_any()")
        v = broadcast(np.asarray(var(fr, m)).astype(dtype), mc)
        bits = v.view(f"u{v.dtype.itemsize}").reshape(-1, n)  # __match_any_sync compares bits
        active = m.bits.reshape(-1, n)
        same = (bits[:, :, None] == bits[:, None, :]) & active[:, None, :]
        return (same * weights).sum(axis=2, dtype=np.uint32).reshape(-1)
    return CExpr(ct.UINT, run, False)


_TILE_METHODS: dict[str, Method] = {
    "sync": _tile_sync,
    "thread_rank": _tile_method(lambda n: lambda mc, g: _block_rank(mc) & np.uint32(n - 1)),
    "size": _tile_method(lambda n: lambda mc, g: np.uint32(n)),
    "num_threads": _tile_method(lambda n: lambda mc, g: np.uint32(n)),
    "meta_group_rank": _tile_method(_meta_rank),
    "meta_group_size": _tile_method(_meta_size),
    "shfl": _tile_shuffle("idx"),
    "shfl_up": _tile_shuffle("up"),
    "shfl_down": _tile_shuffle("down"),
    "shfl_xor": _tile_shuffle("xor"),
    "any": _tile_vote("any"),
    "all": _tile_vote("all"),
    "ballot": _tile_vote("ballot"),
    "match_any": _tile_match_any,
}


def _mask_sync(group: str) -> Method:
    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        _no_args(comp, node, args, "sync")
        gev, site = base.ev, comp.site(node)

        def run(fr: Frame, m: Mask) -> Any:
            masks = gev(fr, m)
            if np.ndim(masks) == 0 and masks == 0:  # a thread_group holding the whole block
                fr.mc.barrier(m, site)
            else:
                _check_members(fr.mc, m, masks, site, f"{group}::sync()", group)
            return None
        return CExpr(ct.VOID, run, False)
    return handler


def _group_rank(mc: Machine, masks: Any) -> Any:
    return _popc(np.asarray(masks, dtype=np.uint32) & _lanes_below(mc)).astype(np.uint32)


def _group_size(mc: Machine, masks: Any) -> Any:
    return _popc(masks).astype(np.uint32)


def _whole_block(f: Callable[[Machine, Any], Any], block: Callable[[Machine], Any]) -> Callable:
    """A thread_group query: ``block`` when the group is the whole block (value 0)."""
    def g(mc: Machine, masks: Any) -> Any:
        if np.ndim(masks) == 0 and masks == 0:
            return np.asarray(block(mc)).astype(np.uint64)
        return np.asarray(f(mc, masks)).astype(np.uint64)
    return g


def _coalesced_vote(kind: str) -> Method:
    def handler(comp: Any, node: c_ast.FuncCall, base: CExpr, args: list, scope: Any) -> CExpr:
        comp.cg_arity(node, kind, args, 1)
        gev, site = base.ev, comp.site(node)
        pred = truth(comp.scalar(args[0], scope))

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            masks = np.asarray(gev(fr, m), dtype=np.uint32)
            _check_members(mc, m, masks, site, f"coalesced_group::{kind}()", "coalesced_group")
            p = np.broadcast_to(pred(fr, m), m.bits.shape) & m.bits
            bits = _warp_bits(p) & masks
            if kind == "any":
                return bits != 0
            if kind == "all":
                return bits == masks
            return _pack_lanes(bits, masks)
        return CExpr(ct.UINT if kind == "ballot" else ct.TRUTH, run, False)
    return handler


def _pack_lanes(bits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Move each member's ballot bit to the member's rank in the group (the headers' _packLanes)."""
    out = np.zeros(bits.shape, dtype=np.uint32)
    rank = np.zeros(bits.shape, dtype=np.uint32)
    for lane in range(32):
        member = (masks >> np.uint32(lane)) & np.uint32(1)
        out |= ((bits >> np.uint32(lane)) & member) << rank
        rank += member
    return out


_COALESCED_METHODS: dict[str, Method] = {
    "sync": _mask_sync("coalesced_group"),
    "thread_rank": _uint(_group_rank),
    "size": _uint(_group_size),
    "num_threads": _uint(_group_size),
    "meta_group_rank": _uint(lambda mc, g: ZERO),
    "meta_group_size": _uint(lambda mc, g: np.uint32(1)),
    "any": _coalesced_vote("any"),
    "all": _coalesced_vote("all"),
    "ballot": _coalesced_vote("ballot"),
}

_THREAD_GROUP_METHODS: dict[str, Method] = {
    "sync": _mask_sync("thread_group"),
    "thread_rank": _uint(_whole_block(_group_rank, _block_rank), ct.ULLONG),
    "size": _uint(_whole_block(_group_size, lambda mc: mc.threads_per_block), ct.ULLONG),
    "num_threads": _uint(_whole_block(_group_size, lambda mc: mc.threads_per_block), ct.ULLONG),
}

METHODS: dict[str, dict[str, Method]] = {
    "thread_block": _BLOCK_METHODS, "tile": _TILE_METHODS, "coalesced_group": _COALESCED_METHODS,
    "thread_group": _THREAD_GROUP_METHODS,
}
