"""CUDA builtin functions: math, integer intrinsics, warp intrinsics, atomics, barrier.

Each handler receives the compiler, the call node and the compiled arguments and returns
a compiled expression (:class:`~gpulab.simt.values.CExpr`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pycparser import c_ast, c_generator

from . import ctypes_ as ct
from .builtins_more import MORE_BUILTINS, Handler, check_arity
from .ctypes_ import CType
from .errors import KernelFault
from .fused import fma32, fma64
from .machine import Mask
from .values import CExpr, Frame, MemLV, converted

BUILTINS: dict[str, Handler] = {}


def _pure_call(ctype: CType, f: Callable, args: list[CExpr], comp: Any) -> CExpr:
    evs = [a.ev for a in args]
    if len(evs) == 1:
        e0 = evs[0]
        out = CExpr(ctype, lambda fr, m: f(e0(fr, m)), args[0].pure)
    elif len(evs) == 2:
        e0, e1 = evs
        out = CExpr(ctype, lambda fr, m: f(e0(fr, m), e1(fr, m)), all(a.pure for a in args))
    else:
        out = CExpr(ctype, lambda fr, m: f(*[e(fr, m) for e in evs]), all(a.pure for a in args))
    return comp.fold(out, args)


# ---------------------------------------------------------------------- float math
def _round_half_away(x: Any) -> Any:
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)[()]


_MATH1: dict[str, Callable[[Any], Any]] = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "fabs": np.abs, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "exp2": np.exp2, "log2": np.log2, "log10": np.log10,
    "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": _round_half_away, "rint": np.rint, "cbrt": np.cbrt, "expm1": np.expm1,
    "log1p": np.log1p,
}
_MATH2: dict[str, Callable[[Any, Any], Any]] = {
    "fmin": np.fmin, "fmax": np.fmax, "pow": np.power, "atan2": np.arctan2,
    "fmod": np.fmod, "hypot": np.hypot, "copysign": np.copysign, "fdim": lambda a, b:
    np.maximum(a - b, 0),
}


def _math(name: str, f: Callable, nargs: int, ctype: CType) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, nargs)
        return _pure_call(ctype, f, [converted(a, ctype) for a in args], comp)
    return handler


def _rsqrt(x: Any) -> Any:
    return x.dtype.type(1) / np.sqrt(x)


def _overloaded(name: str, f: Callable, g: Callable, nargs: int) -> Handler:
    """``name`` as C++ resolves it: CUDA compiles ``.cu`` files as C++, where ``sqrt``, ``fma``,
    ``fmax``, ... called with ``float`` arguments are the ``float`` overloads (``sqrtf``, ...)
    and the expression stays in float; with ``double`` arguments the ``double`` ones (``f``
    computes in float, ``g`` in double). Arguments of mixed or integer types match both, and
    nvcc refuses the call as ambiguous: so does this, naming the cast that settles it.
    ``pow(float, int)`` is CUDA's own float overload."""
    as_float, as_double = _math(name, f, nargs, ct.FLOAT), _math(name, g, nargs, ct.DOUBLE)

    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, nargs)
        types = [a.ctype for a in args]
        if all(t == ct.FLOAT for t in types) or (name == "pow" and types[0] == ct.FLOAT and types[1].is_integer):
            return as_float(comp, node, args)
        if all(t == ct.DOUBLE for t in types):
            return as_double(comp, node, args)
        shown = ", ".join(str(t) for t in types)
        raise comp.error(node, f"the call {name}({shown}) is ambiguous: CUDA's C++ has {name} for float and for "
                         f"double arguments, and nvcc refuses it too; cast the arguments to one type, or call "
                         f"{name}f for float", f"{name} with {shown} arguments")  # fmt: skip
    return handler


_f: Callable[..., Any]
for _name, _f in _MATH1.items():
    BUILTINS[_name + "f"] = _math(_name, _f, 1, ct.FLOAT)
    BUILTINS[_name] = _overloaded(_name, _f, _f, 1)
for _name, _f in _MATH2.items():
    BUILTINS[_name + "f"] = _math(_name, _f, 2, ct.FLOAT)
    BUILTINS[_name] = _overloaded(_name, _f, _f, 2)
# The math functions CUDA computes with polynomials of fused multiply-adds (its headers' own code,
# inlined where they are called): their fmas in NVRTC's PTX are the library's, not contractions.
_EXACT_FUNCTIONS = {"sqrt", "fabs", "floor", "ceil", "trunc", "rint", "round", "fmin", "fmax", "copysign", "fdim"}
POLYNOMIAL_FUNCTIONS = frozenset(name + suffix for name in {*_MATH1, *_MATH2} - _EXACT_FUNCTIONS
                                 for suffix in ("", "f"))  # fmt: skip
BUILTINS["rsqrtf"] = _math("rsqrt", _rsqrt, 1, ct.FLOAT)
BUILTINS["rsqrt"] = _overloaded("rsqrt", _rsqrt, _rsqrt, 1)
BUILTINS["fmaf"] = _math("fma", fma32, 3, ct.FLOAT)
BUILTINS["fma"] = _overloaded("fma", fma32, fma64, 3)
BUILTINS["__fdividef"] = _math("div", lambda a, b: a / b, 2, ct.FLOAT)
BUILTINS["__expf"] = _math("exp", np.exp, 1, ct.FLOAT)
BUILTINS["__logf"] = _math("log", np.log, 1, ct.FLOAT)
BUILTINS["__sinf"] = _math("sin", np.sin, 1, ct.FLOAT)
BUILTINS["__cosf"] = _math("cos", np.cos, 1, ct.FLOAT)
BUILTINS["__powf"] = _math("pow", np.power, 2, ct.FLOAT)
for _suffix in ("rn", "rz", "ru", "rd"):  # rounding modes other than rn: documented as rn
    BUILTINS["__fadd_" + _suffix] = _math("add", lambda a, b: a + b, 2, ct.FLOAT)
    BUILTINS["__fmul_" + _suffix] = _math("mul", lambda a, b: a * b, 2, ct.FLOAT)
    BUILTINS["__fdiv_" + _suffix] = _math("div", lambda a, b: a / b, 2, ct.FLOAT)
    BUILTINS["__fsqrt_" + _suffix] = _math("sqrt", np.sqrt, 1, ct.FLOAT)
    BUILTINS["__fmaf_" + _suffix] = _math("fma", fma32, 3, ct.FLOAT)
BUILTINS["__saturatef"] = _math("sat", lambda x: np.clip(x, np.float32(0), np.float32(1)), 1,
                                ct.FLOAT)


def _minmax(int_f: Callable, float_f: Callable) -> Handler:
    """CUDA's min/max: integer overloads, and fminf/fmaxf (NaN-ignoring) for floats."""
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, 2)
        if not all(a.ctype.is_scalar for a in args):
            raise comp.error(node, f"{node.name.name} needs arithmetic arguments",
                             f"{node.name.name} on pointer")
        common = ct.common_type(args[0].ctype, args[1].ctype)
        f = float_f if common.is_float else int_f
        return _pure_call(common, f, [converted(a, common) for a in args], comp)
    return handler


BUILTINS["min"] = _minmax(np.minimum, np.fmin)
BUILTINS["max"] = _minmax(np.maximum, np.fmax)


def _abs(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    check_arity(comp, node, args, 1)
    t = ct.promote(args[0].ctype)
    return _pure_call(t, np.abs, [converted(args[0], t)], comp)


BUILTINS["abs"] = _abs
BUILTINS["llabs"] = _abs


def _is(f: Callable) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, 1)
        return _pure_call(ct.TRUTH, f, args, comp)
    return handler


BUILTINS["isnan"] = _is(np.isnan)
BUILTINS["isinf"] = _is(np.isinf)
BUILTINS["isfinite"] = _is(np.isfinite)


# ---------------------------------------------------------------------- integer intrinsics
def _bit_length(x: Any, bits: int) -> Any:
    """Number of significant bits of unsigned ``x`` (uint32 or uint64)."""
    x = np.asarray(x).astype(np.uint64)
    hi = (x >> np.uint64(32)).astype(np.float64)
    lo = (x & np.uint64(0xFFFFFFFF)).astype(np.float64)
    hi_len = np.frexp(hi)[1]
    lo_len = np.frexp(lo)[1]
    return np.where(hi_len > 0, hi_len + 32, lo_len).astype(np.int32)[()]


def _int_intrinsic(f: Callable, arg_type: CType, ret: CType = ct.INT) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, 1)
        return _pure_call(ret, f, [converted(args[0], arg_type)], comp)
    return handler


_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int32)


def _popcount(x: Any) -> Any:
    """Set bits of each unsigned integer (numpy >= 2 has ``bitwise_count``)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.int32)
    v = np.atleast_1d(np.asarray(x))
    counts = _BYTE_POPCOUNT[v.view(np.uint8).reshape(len(v), -1)].sum(axis=1, dtype=np.int32)
    return counts if isinstance(x, np.ndarray) else counts[0]


BUILTINS["__popc"] = _int_intrinsic(_popcount, ct.UINT)
BUILTINS["__popcll"] = _int_intrinsic(_popcount, ct.ULLONG)
BUILTINS["__clz"] = _int_intrinsic(lambda x: np.int32(32) - _bit_length(x, 32), ct.UINT)
BUILTINS["__clzll"] = _int_intrinsic(lambda x: np.int32(64) - _bit_length(x, 64), ct.ULLONG)
BUILTINS["__ffs"] = _int_intrinsic(lambda x: _bit_length(x & (~x + np.uint32(1)), 32), ct.UINT)
BUILTINS["__ffsll"] = _int_intrinsic(lambda x: _bit_length(x & (~x + np.uint64(1)), 64),
                                     ct.ULLONG)
def _brev(x: Any) -> Any:
    v = np.atleast_1d(np.asarray(x, dtype=np.uint32))
    bits = np.unpackbits(v.view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
    out = np.packbits(bits[:, ::-1], axis=1, bitorder="little").view(np.uint32).reshape(-1)
    return out if isinstance(x, np.ndarray) else out[0]


BUILTINS["__brev"] = _int_intrinsic(_brev, ct.UINT, ct.UINT)


def _reinterpret(dst: CType, src: CType) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, 1)
        dst_dtype = dst.dtype
        assert dst_dtype is not None

        def f(x: Any) -> Any:
            return np.asarray(x).view(dst_dtype)[()]
        return _pure_call(dst, f, [converted(args[0], src)], comp)
    return handler


BUILTINS["__int_as_float"] = _reinterpret(ct.FLOAT, ct.INT)
BUILTINS["__uint_as_float"] = _reinterpret(ct.FLOAT, ct.UINT)
BUILTINS["__float_as_int"] = _reinterpret(ct.INT, ct.FLOAT)
BUILTINS["__float_as_uint"] = _reinterpret(ct.UINT, ct.FLOAT)


def _convert_rounded(f: Callable, dst: CType, src: CType) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        check_arity(comp, node, args, 1)
        return _pure_call(dst, lambda x: ct.convert(f(x), src, dst), [converted(args[0], src)],
                          comp)
    return handler


BUILTINS["__float2int_rn"] = _convert_rounded(np.rint, ct.INT, ct.FLOAT)
BUILTINS["__float2int_rz"] = _convert_rounded(np.trunc, ct.INT, ct.FLOAT)
BUILTINS["__float2int_rd"] = _convert_rounded(np.floor, ct.INT, ct.FLOAT)
BUILTINS["__float2int_ru"] = _convert_rounded(np.ceil, ct.INT, ct.FLOAT)
BUILTINS["__int2float_rn"] = _convert_rounded(lambda x: x, ct.FLOAT, ct.INT)


def _ldg(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    """``__ldg(p)`` and the other cache-hint loads (``__ldcs``: streaming, ``__ldcg``: L2 only,
    ...): which cache keeps the line changes the GPU's speed, not the value; in the emulator an
    ordinary load of ``*p``."""
    check_arity(comp, node, args, 1)
    ptr, name = args[0], node.name.name
    if not ptr.ctype.is_pointer or ptr.ctype.pointee is None:
        raise comp.error(node, f"{name} needs a pointer", f"{name} argument")
    return comp.memory_ref(ptr, ptr.ctype.pointee, node)


def _store_hint(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    """``__stcs(p, v)`` and the other cache-hint stores: an ordinary ``*p = v`` here."""
    check_arity(comp, node, args, 2)
    ptr, name = args[0], node.name.name
    if not ptr.ctype.is_pointer or ptr.ctype.pointee is None or ptr.ctype.pointee.dtype is None:
        raise comp.error(node, f"{name} needs a pointer to a number", f"{name} argument")
    target = MemLV(ptr, ptr.ctype.pointee, comp.site(node))
    value = converted(args[1], ptr.ctype.pointee).ev

    def store(fr: Frame, m: Mask) -> Any:
        target.set(fr, m, target.prepare(fr, m), value(fr, m))
        return None
    return CExpr(ct.VOID, store, False)


for _name in ("__ldg", "__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv"):
    BUILTINS[_name] = _ldg
for _name in ("__stcs", "__stcg", "__stwb", "__stwt"):
    BUILTINS[_name] = _store_hint


def _assert(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    """Device ``assert(condition)``: where it is false for an active lane, the kernel stops with
    a fault naming the line, the condition and the lane, as a GPU stops the launch."""
    check_arity(comp, node, args, 1)
    condition = args[0].ev
    site = comp.site(node)
    text = c_generator.CGenerator().visit(node.args.exprs[0])  # the condition, as the GPU's message quotes it

    def check(fr: Frame, m: Mask) -> Any:
        holds = np.asarray(condition(fr, m)).astype(bool)
        failed = ~holds & m.bits if holds.ndim else (np.zeros(0, bool) if holds else m.bits)
        if failed.any():
            lanes = np.flatnonzero(failed)
            more = f" [+{len(lanes) - 1} more lanes]" if len(lanes) > 1 else ""
            raise KernelFault(f"{fr.mc.kernel}: line {site.line}: assert({text}) failed for "
                              f"{fr.mc.describe_lane(int(lanes[0]))}{more}", fr.mc.kernel, site.line,
                              lanes=tuple(int(x) for x in lanes[:64]), kind="assert")  # fmt: skip
        return None
    return CExpr(ct.VOID, check, False)


BUILTINS["assert"] = _assert


# ---------------------------------------------------------------------- barrier
def _syncthreads(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    check_arity(comp, node, args, 0)
    site = comp.site(node)

    def run(fr: Frame, m: Mask) -> Any:
        fr.mc.barrier(m, site)
        return None
    return CExpr(ct.VOID, run, False)


BUILTINS["__syncthreads"] = _syncthreads


def _fence(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    return CExpr(ct.VOID, lambda fr, m: None, False)


BUILTINS["__threadfence"] = _fence
BUILTINS["__threadfence_block"] = _fence
BUILTINS["__syncwarp"] = _fence


# ---------------------------------------------------------------------- warp intrinsics
def _check_mask(fr: Frame, m: Mask, mask: Any, site: Any, name: str) -> np.ndarray:
    """Per-lane 'my bit is in mask'; active lanes missing from the mask are a fault."""
    mc = fr.mc
    member = ((np.asarray(mask).astype(np.uint32) >> mc.lane_in_warp.astype(np.uint32))
              & np.uint32(1)).astype(bool)
    missing = m.bits & ~member
    if np.any(missing):
        lane = int(np.flatnonzero(missing)[0])
        raise KernelFault(f"{mc.kernel}: line {site.line}: {name} executed by "
                          f"{mc.describe_lane(lane)}, which is not named in the mask "
                          f"{int(np.atleast_1d(mask)[0] if np.ndim(mask) == 0 else mask[lane]):#010x}",
                          mc.kernel, site.line, lanes=(lane,))
    return member


def _shuffle(kind: str) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        name = node.name.name
        check_arity(comp, node, args, 3, 4)
        mask = converted(args[0], ct.UINT).ev
        value = args[1]
        if not value.ctype.is_scalar:
            raise comp.error(node, f"{name} works on arithmetic values", f"{name} on pointer")
        var = value.ev
        src = converted(args[2], ct.INT).ev
        width = converted(args[3], ct.INT).ev if len(args) == 4 else (lambda fr, m: np.int32(32))
        site = comp.site(node)

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            _check_mask(fr, m, mask(fr, m), site, name)
            v = var(fr, m)
            if np.ndim(v) == 0:
                return v
            lane = mc.lane_in_warp
            w = np.asarray(width(fr, m)).astype(np.int64)
            active_w = w if w.ndim == 0 else w[m.idx]
            if np.any((active_w < 1) | (active_w > 32) | (active_w & (active_w - 1) != 0)):
                raise KernelFault(f"{mc.kernel}: line {site.line}: {name} width must be a "
                                  "power of two from 1 to 32", mc.kernel, site.line)
            s = np.asarray(src(fr, m)).astype(np.int64)
            if kind in ("up", "down"):
                s = s & 0xFFFFFFFF  # delta is unsigned int
            source = shuffle_source(kind, lane, s, w)
            return v[np.arange(mc.nlanes, dtype=np.int64) - lane + source]
        return CExpr(value.ctype, run, False)
    return handler


def shuffle_source(kind: str, lane: Any, s: Any, w: Any) -> Any:
    """The lane (in its warp) each lane reads in a ``__shfl*_sync`` of ``kind`` ("idx", "up",
    "down", "xor") with source/delta/lane mask ``s`` and ``width`` ``w`` (PTX shfl.sync):
    a source outside the lane's width segment reads the lane's own value, except that a
    butterfly may reach into a lower segment, as the hardware's clamp allows."""
    seg = lane & ~(w - 1)
    if kind == "idx":
        return seg + (s & (w - 1))
    if kind == "up":
        return np.where(lane - seg >= s, lane - s, lane)
    if kind == "down":
        return np.where(lane - seg + s < w, lane + s, lane)
    source = lane ^ (s & 31)
    return np.where(source >= seg + w, lane, source)


BUILTINS["__shfl_sync"] = _shuffle("idx")
BUILTINS["__shfl_up_sync"] = _shuffle("up")
BUILTINS["__shfl_down_sync"] = _shuffle("down")
BUILTINS["__shfl_xor_sync"] = _shuffle("xor")


def _warp_bits(bits: np.ndarray) -> np.ndarray:
    """Per lane: the 32-bit ballot of its warp built from lane bools."""
    packed = np.packbits(bits.reshape(-1, 32), axis=1, bitorder="little")
    words = packed.view("<u4").reshape(-1).astype(np.uint32)
    return np.repeat(words, 32)


def _vote(kind: str) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        name = node.name.name
        check_arity(comp, node, args, 2)
        mask = converted(args[0], ct.UINT).ev
        pred = converted(args[1], ct.BOOL).ev
        site = comp.site(node)

        def run(fr: Frame, m: Mask) -> Any:
            member = _check_mask(fr, m, mask(fr, m), site, name)
            voting = m.bits & member
            p = np.broadcast_to(pred(fr, m), voting.shape) & voting
            if kind == "ballot":
                return _warp_bits(p)
            if kind == "any":
                return _warp_bits(p) != 0
            return _warp_bits(voting & ~p) == 0
        return CExpr(ct.UINT if kind == "ballot" else ct.TRUTH, run, False)
    return handler


BUILTINS["__ballot_sync"] = _vote("ballot")
BUILTINS["__any_sync"] = _vote("any")
BUILTINS["__all_sync"] = _vote("all")


def _activemask(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
    check_arity(comp, node, args, 0)
    return CExpr(ct.UINT, lambda fr, m: _warp_bits(m.bits), False)


BUILTINS["__activemask"] = _activemask


# ---------------------------------------------------------------------- atomics
_ACCUMULATE: dict[str, np.ufunc] = {
    "add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
}


def _apply_unique(op: str, flat: np.ndarray, e: np.ndarray, vals: np.ndarray,
                  cmp: np.ndarray | None) -> np.ndarray:
    old = flat[e]
    if op == "exch":
        flat[e] = vals
    elif op == "cas":
        assert cmp is not None
        flat[e] = np.where(old == cmp, vals, old)
    else:
        flat[e] = _ACCUMULATE[op](old, vals)
    return old


def _apply_group(op: str, flat: np.ndarray, addr: int, vals: np.ndarray,
                 cmp: np.ndarray | None) -> np.ndarray:
    """Serial semantics for lanes hitting one address, in increasing lane order."""
    cur = flat[addr]
    if op == "exch":
        old = np.concatenate([[cur], vals[:-1]]).astype(flat.dtype)
        flat[addr] = vals[-1]
        return old
    if op == "cas":
        assert cmp is not None
        old = np.empty(len(vals), dtype=flat.dtype)
        for i in range(len(vals)):
            old[i] = cur
            if cur == cmp[i]:
                cur = vals[i]
        flat[addr] = cur
        return old
    acc = _ACCUMULATE[op].accumulate(np.concatenate([[cur], vals]).astype(flat.dtype))
    flat[addr] = acc[-1]
    return acc[:-1]


def atomic_apply(op: str, flat: np.ndarray, e: np.ndarray, vals: np.ndarray,
                 cmp: np.ndarray | None = None) -> np.ndarray:
    """Apply an atomic ``op`` for lanes (in lane order) at element indices ``e``.

    Returns each lane's old value, as if the lanes ran one after another in increasing
    lane order (= lane order within a warp, warps in increasing global warp id).
    """
    order = np.argsort(e, kind="stable")
    es = e[order]
    dup = es[1:] == es[:-1]
    if not dup.any():
        return _apply_unique(op, flat, e, vals, cmp)
    if op in ("add", "sub") and flat.dtype.kind in "iu":
        return _integer_add_grouped(op, flat, e, vals, order, es, dup)
    old = np.empty(len(vals), dtype=flat.dtype)
    starts = np.flatnonzero(np.concatenate([[True], ~dup]))
    ends = np.concatenate([starts[1:], [len(es)]])
    single = ends - starts == 1
    lanes_single = order[starts[single]]
    if len(lanes_single):
        old[lanes_single] = _apply_unique(op, flat, e[lanes_single], vals[lanes_single],
                                          None if cmp is None else cmp[lanes_single])
    for s, t in zip(starts[~single].tolist(), ends[~single].tolist(), strict=True):
        sel = order[s:t]
        old[sel] = _apply_group(op, flat, int(es[s]), vals[sel],
                                None if cmp is None else cmp[sel])
    return old


def _integer_add_grouped(op: str, flat: np.ndarray, e: np.ndarray, vals: np.ndarray,
                         order: np.ndarray, es: np.ndarray, dup: np.ndarray) -> np.ndarray:
    v = vals[order].astype(flat.dtype)
    if op == "sub":
        v = (np.zeros(1, dtype=flat.dtype) - v)
    inclusive = np.cumsum(v, dtype=flat.dtype)
    exclusive = inclusive - v
    starts = np.flatnonzero(np.concatenate([[True], ~dup]))
    group = np.cumsum(np.concatenate([[True], ~dup])) - 1
    exclusive = exclusive - exclusive[starts][group]
    base = flat[es]
    old_sorted = base + exclusive
    ends = np.concatenate([starts[1:], [len(es)]]) - 1
    flat[es[starts]] = old_sorted[ends] + v[ends]
    old = np.empty(len(vals), dtype=flat.dtype)
    old[order] = old_sorted
    return old


_INTS = (ct.INT.dtype, ct.UINT.dtype, ct.ULLONG.dtype)
_ATOMIC_TYPES: dict[str, tuple[Any, ...]] = {  # CUDA's overloads (sm_80), as NVRTC accepts them
    "add": (*_INTS, ct.FLOAT.dtype, ct.DOUBLE.dtype), "sub": _INTS[:2],
    "exch": (*_INTS, ct.FLOAT.dtype), "cas": _INTS,
    **{op: (*_INTS, ct.LLONG.dtype) for op in ("min", "max", "and", "or", "xor")},
}


def _atomic(op: str) -> Handler:
    def handler(comp: Any, node: c_ast.FuncCall, args: list[CExpr]) -> CExpr:
        name = node.name.name
        check_arity(comp, node, args, 3 if op == "cas" else 2)
        ptr = args[0]
        if not ptr.ctype.is_pointer or not (ptr.ctype.pointee and ptr.ctype.pointee.is_scalar):
            raise comp.error(node, f"{name} needs a pointer to memory as first argument",
                             f"{name} target")
        elem: CType = ptr.ctype.pointee
        dtype = elem.dtype
        assert dtype is not None
        if elem.dtype not in _ATOMIC_TYPES[op]:
            names = ", ".join(str(ct.NUMPY_TO_CTYPE[d]) for d in _ATOMIC_TYPES[op])
            raise comp.error(node, f"{name} on {elem} is not supported: CUDA's {name} takes "
                             f"{names}", f"{name} on {elem}")
        operands = [converted(a, elem).ev for a in args[1:]]
        pev = ptr.ev
        site = comp.site(node)

        def run(fr: Frame, m: Mask) -> Any:
            mc = fr.mc
            out = np.zeros(mc.nlanes, dtype=dtype)
            if m.count == 0:
                return out
            addr = pev(fr, m)
            values = [np.broadcast_to(o(fr, m), (mc.nlanes,)) for o in operands]
            for region, lanes, e in mc.resolve_for_atomic(addr, m, elem, site):
                flat = region.flat_view(dtype)
                if op == "cas":
                    old = atomic_apply(op, flat, e, values[1][lanes], values[0][lanes])
                else:
                    old = atomic_apply(op, flat, e, values[0][lanes])
                out[lanes] = old
            return out
        return CExpr(elem, run, False)
    return handler


for _op in ("add", "sub", "min", "max", "exch", "and", "or", "xor"):
    BUILTINS["atomic" + _op.capitalize()] = _atomic(_op)
BUILTINS["atomicCAS"] = _atomic("cas")
BUILTINS.update(MORE_BUILTINS)  # atomicInc/Dec, clock, __nanosleep
