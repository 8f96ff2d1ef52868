"""Fused multiply-add rounded once, as the GPU's ``fma.rn.f32`` / ``fma.rn.f64`` round it.

numpy has no fma, and ``float32(a * b + c)`` computed in float64 rounds twice: once to 53 bits,
once to 24, which differs from one rounding where the float64 sum lands on a float32 midpoint.
Both functions here round the exact ``a * b + c`` once, with Boldo and Melquiond's rounding to
odd ("Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
IEEE Trans. Computers 57(4), 2008): an inexact intermediate result is moved to its neighbour with
an odd last bit, after which rounding to nearest in the target format is correct.

- float32: ``a * b`` is exact in float64 (24 + 24 bits); the float64 sum rounded to odd then
  rounded to float32 is the correctly rounded fma (53 >= 24 + 2).
- float64: Dekker's exact product and Knuth's exact sum give ``a * b + c`` as an unevaluated
  sum, and the paper's algorithm rounds it once. Overflow of the product's split (|a| or |b|
  above about 1e300) and results in the subnormal range are outside the proof; kernels that
  teach do not reach them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting constant for float64


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """(s, e) with s = RN(a + b) and s + e == a + b exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: Any, b: Any) -> tuple[Any, Any]:
    """(p, e) with p = RN(a * b) and p + e == a * b exactly (Dekker, with Veltkamp's split)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s: Any, e: Any) -> Any:
    """The float64 ``s`` (RN of a value exceeding it by ``e``) rounded to odd instead: where the
    value was not exact and ``s`` has an even last bit, its neighbour towards the value."""
    s = np.asarray(s, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    even = (s.view(np.int64) & 1) == 0
    move = (e != 0) & even & np.isfinite(s)
    if not move.any():
        return s
    toward = np.where(e > 0, np.inf, -np.inf)
    return np.where(move, np.nextafter(s, toward), s)


_LOW = np.int64((1 << 29) - 1)  # the float64 mantissa bits below float32's last bit
_HALF = np.int64(1 << 28)  # ... and their pattern where the float64 value is a float32 midpoint
_FLT_MIN = np.float32(2.0**-126)  # below it float32 is subnormal and rounds at another bit


def _wide(x: Any) -> Any:
    """``x`` as float64 (an array's plain cast is the cheapest)."""
    return x.astype(np.float64) if isinstance(x, np.ndarray) else np.float64(x)


def fma32(a: Any, b: Any, c: Any) -> Any:
    """float32 fma: ``a * b + c`` rounded once.

    The float64 sum of the exact product and ``c`` rounds to float32 correctly unless it landed
    exactly on a float32 midpoint (or in float32's subnormal range): only those few lanes take
    the rounding-to-odd path. The common path makes one float64 array and works in it (a large
    grid's fresh temporaries cost more than the arithmetic); the subnormal test reads the
    smallest magnitude first and finds the lanes only when it is small."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.multiply(a, b, dtype=np.float64)  # exact: 24 + 24 bits
        if isinstance(s, np.ndarray) and s.shape == np.broadcast_shapes(s.shape, np.shape(c)):
            np.add(s, c, out=s)
        else:
            s = np.asarray(s + _wide(c))
        out = s.astype(np.float32)
        bits = s.view(np.int64)
        np.bitwise_and(bits, _LOW, out=bits)  # s is recomputed below for the lanes in doubt
        doubtful = bits == _HALF
        magnitude = np.abs(out, out=bits.reshape(-1).view(np.float32)[:out.size].reshape(out.shape)) \
            if out.ndim else np.abs(out)
        if magnitude.size and magnitude.min() <= _FLT_MIN:  # zero too: rare, then found exactly
            doubtful |= (magnitude <= _FLT_MIN) & (magnitude != 0)
        if doubtful.any():
            product = _wide(a) * _wide(b)
            c64 = _wide(c)
            p, c_, s_ = np.broadcast_arrays(product, c64, product + c64)
            where = np.broadcast_to(doubtful, s_.shape)
            _, e = _two_sum(p[where], c_[where])
            out = np.array(np.broadcast_to(out, s_.shape))
            out[where] = _round_to_odd(s_[where], e).astype(np.float32)
    return out[()]


def fma64(a: Any, b: Any, c: Any) -> Any:
    """float64 fma: ``a * b + c`` rounded once (see the module's note on its range)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        uh, ul = _two_prod(a, b)
        th, tl = _two_sum(c, uh)
        v, ve = _two_sum(tl, ul)
        result = th + _round_to_odd(v, ve)
        # Where a part was not finite (inf, nan, overflow), the plain expression says what IEEE says.
        plain = a * b + c
        return np.where(np.isfinite(result) & np.isfinite(plain), result, plain)[()]
