"""This CPU's two roofline peaks, measured in this run: BLAS matmul GFLOP/s and triad GB/s.

- Compute: ``numpy.matmul`` of two float32 N×N matrices (N = :data:`GEMM_N`), all BLAS threads,
  credited 2·N³ FLOP.
- Memory: the STREAM triad ``a = b + s·c`` on float32 arrays much larger than any cache,
  credited 3 arrays × 4 bytes per element (two read, one written; like STREAM, the extra read
  a write-allocate cache makes of ``a`` is not counted). It runs as the loop compiled by Numba
  (:mod:`gpulab.compiled`: one pass, every thread); without Numba through numexpr (one pass in
  cache-sized blocks, often 10-30% below the loop); without either as two numpy passes (``c·s``
  into ``a``, then ``a + b``: 5 arrays' worth for the 3 credited). Each fallback's roof is low,
  and the notes say so.

Both report the best of their repeats, as STREAM does: a peak is what the machine can do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab.hostmem import page_aligned_full
from gpulab.measure import RepeatPolicy, Samples, time_cpu_calls
from gpulab.threads import cpu_threads

GEMM_N = 1024
TRIAD_ELEMENTS = 1 << 23  # 32 MiB per float32 array: far past a laptop's or a server core's cache
TRIAD_SCALAR = np.float32(3.0)


@dataclass(frozen=True)
class CpuPeaks:
    """Measured peaks of this CPU and how they were taken."""

    gflop_s: float
    gb_s: float
    gemm_n: int
    triad_elements: int
    triad_method: str  # "compiled" (one pass), "numexpr" (blocks) or "numpy" (two passes, credited one)

    @property
    def ridge_flop_per_byte(self) -> float:
        return self.gflop_s / self.gb_s


def _policy(repeats: int) -> RepeatPolicy:
    return RepeatPolicy(repeats=repeats, min_seconds=0.05, max_seconds=1.0)


GEMM_FLOP = 2.0 * GEMM_N**3
TRIAD_BYTES = 3 * 4 * TRIAD_ELEMENTS


def gemm_samples(repeats: int, check_cancelled: Callable[[], None] | None = None) -> Samples:
    """Seconds per float32 N×N matmul through numpy's BLAS (:data:`GEMM_FLOP` each)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((GEMM_N, GEMM_N), dtype=np.float32)
    b = rng.standard_normal((GEMM_N, GEMM_N), dtype=np.float32)
    c = np.empty_like(a)
    return time_cpu_calls(lambda: np.matmul(a, b, out=c), _policy(repeats), check_cancelled)


def measure_gemm_gflop_s(repeats: int, check_cancelled: Callable[[], None] | None = None) -> float:
    """Best GFLOP/s of a float32 N×N matmul through numpy's BLAS."""
    return GEMM_FLOP / min(gemm_samples(repeats, check_cancelled)) / 1e9


def _triad_call(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable[[], Any], str]:
    from gpulab import compiled

    if compiled.import_error() is None:
        compiled.set_threads(_threads())  # here: Numba keeps the count per calling thread
        try:
            return compiled.call("triad", {"a": a, "b": b, "c": c}, float(TRIAD_SCALAR)), "compiled"
        except Exception:  # a Numba that cannot compile here: numexpr's roof, and the notes say so
            pass
    try:
        import numexpr
    except ImportError:
        def two_passes() -> None:
            np.multiply(c, TRIAD_SCALAR, out=a)
            np.add(a, b, out=a)

        return two_passes, "numpy"
    s = TRIAD_SCALAR
    return lambda: numexpr.evaluate("b + s * c", local_dict={"b": b, "c": c, "s": s}, out=a), "numexpr"


def _threads() -> int:
    """The BLAS's thread count (the project's convention), as the matmul peak uses."""
    return cpu_threads()


def triad_samples(repeats: int, check_cancelled: Callable[[], None] | None = None) -> tuple[Samples, str]:
    """Seconds per triad ``a = b + s·c`` (:data:`TRIAD_BYTES` credited each) and the method used."""
    rng = np.random.default_rng(1)
    # On page boundaries, so the roof does not depend on where the allocator put the arrays.
    a, b, c = (page_aligned_full(TRIAD_ELEMENTS, 0.0, np.float32) for _ in range(3))
    b[:] = rng.standard_normal(TRIAD_ELEMENTS, dtype=np.float32)
    c[:] = rng.standard_normal(TRIAD_ELEMENTS, dtype=np.float32)
    call, method = _triad_call(a, b, c)
    return time_cpu_calls(call, _policy(repeats), check_cancelled), method


def measure_triad_gb_s(repeats: int, check_cancelled: Callable[[], None] | None = None) -> tuple[float, str]:
    """Best GB/s of ``a = b + s·c`` (12 bytes credited per element) and the method used."""
    samples, method = triad_samples(repeats, check_cancelled)
    return TRIAD_BYTES / min(samples) / 1e9, method


def measure_cpu_peaks(repeats: int = 5, check_cancelled: Callable[[], None] | None = None) -> CpuPeaks:
    """Measure both peaks (about a second on a laptop)."""
    gflop_s = measure_gemm_gflop_s(repeats, check_cancelled)
    gb_s, method = measure_triad_gb_s(repeats, check_cancelled)
    return CpuPeaks(gflop_s, gb_s, GEMM_N, TRIAD_ELEMENTS, method)
