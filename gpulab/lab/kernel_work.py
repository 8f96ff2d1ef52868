"""How much work a catalogue kernel does: FLOPs and bytes, counted by the emulator and scaled.

The emulator counts a launch's work exactly (``simt.launch(..., count_flops=True)``, see
:mod:`gpulab.simt.work`), but only at sizes a laptop can emulate. Each kernel's
:class:`Complexity` states how its FLOPs and bytes grow with its size ``n``: a sum of
``c·n^p`` over the powers it lists (vector add: FLOPs ``∝ n``; matmul: FLOPs ``∝ N³``, bytes
``∝ N²``). :func:`count_work` emulates a kernel at two small sizes, fits the coefficients
and evaluates them at any size. With one power the fit uses the larger size and the smaller
one checks it (``check_error``); with two powers both sizes are needed.

Three byte counts are kept, all for global memory:

- ``unique``: distinct bytes read plus distinct bytes written (an ideal cache: each byte
  crosses DRAM once, however often the kernel uses it) - the count people do by hand;
- ``sectors``: the 32-byte sectors the warps' loads and stores fetch, with no reuse between
  instructions (no cache at all).

Real DRAM traffic lies between the two. FLOPs are single plus double precision.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np

from gpulab import kernels
from gpulab.kernels import Complexity, KernelSpec, LaunchPreset

__all__ = ["Complexity", "KernelWork", "WorkCounts", "complexity_of", "count_work",
           "problem_size", "scaled_preset"]

COUNT_MAX_THREADS = 4096
"""The counting size: the largest preset with at most this many threads (doubled for the check)."""

SECTOR_BYTES = 32
BYTE_KINDS = ("unique", "sectors")


def complexity_of(spec: KernelSpec) -> Complexity:
    """The stated complexity, or the linear guess (square when its presets are 2-D grids)."""
    if spec.complexity is not None:
        return spec.complexity
    return Complexity(square=_is_2d(spec.presets[0]), stated=False)


def _is_2d(preset: LaunchPreset) -> bool:
    return preset.grid[1] > 1 or preset.block[1] > 1


@dataclass(frozen=True)
class WorkCounts:
    """What one emulated launch did: FLOPs and bytes (unique and sector) at size ``n``."""

    n: int
    flops: int
    unique_bytes: int
    sector_bytes: int


@dataclass(frozen=True)
class KernelWork:
    """A kernel's work as a function of its size, fitted to emulated counts.

    ``coefficients`` maps "flops", "unique", "sectors" to ``{power: c}``; ``counts`` are the
    emulated launches the fit came from; ``check_error`` is the largest relative miss of a
    one-term fit at the other counted size (0 when exact, None when both sizes fed a fit)."""

    entry: str
    complexity: Complexity
    base: LaunchPreset
    counts: tuple[WorkCounts, ...]
    coefficients: dict[str, dict[int, float]] = field(hash=False)
    check_error: float | None = None

    def flops(self, n: int) -> float:
        return _evaluate(self.coefficients["flops"], n)

    def bytes(self, n: int, kind: str = "unique") -> float:
        """Global-memory bytes at size ``n``: ``unique`` (ideal cache) or ``sectors`` (no cache)."""
        if kind not in BYTE_KINDS:
            raise ValueError(f"byte kind must be one of {', '.join(BYTE_KINDS)}, got {kind!r}")
        return _evaluate(self.coefficients[kind], n)

    @property
    def counted_sizes(self) -> tuple[int, ...]:
        return tuple(c.n for c in self.counts)


def _evaluate(terms: dict[int, float], n: int) -> float:
    return max(0.0, sum(c * float(n) ** p for p, c in terms.items()))


def problem_size(complexity: Complexity, elements: int) -> int:
    """The kernel's ``n`` for a problem of ``elements`` output elements (the side for a square one)."""
    return max(1, math.isqrt(elements)) if complexity.square else elements


def scaled_preset(preset: LaunchPreset, n: int, square: bool) -> LaunchPreset:
    """``preset`` with size ``n``: the same block shape, extra sizes and shared memory, a grid to cover n."""
    bx, by, bz = preset.block
    if square:
        grid = (-(-n // bx), -(-n // by), 1)
    else:
        grid = (-(-n // (bx * by * bz)), 1, 1)
    return LaunchPreset(preset.name, grid, preset.block, {**preset.sizes, "n": n}, preset.shared_mem)


def counting_base(spec: KernelSpec) -> LaunchPreset:
    """The preset the counts start from: the largest with at most :data:`COUNT_MAX_THREADS` threads."""
    small = [p for p in spec.presets if p.threads <= COUNT_MAX_THREADS]
    return max(small, key=lambda p: p.threads) if small else spec.smallest_preset


def emulate_counts(spec: KernelSpec, preset: LaunchPreset, cancel: threading.Event | None = None) -> WorkCounts:
    """Run ``preset`` in the emulator with work counting on."""
    from gpulab import simt

    result = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset),
                         cancel=cancel, filename=spec.file, shared_mem=preset.shared_mem, count_flops=True)
    m = result.metrics
    sectors = m["gld_transactions"] + m["gst_transactions"] + 2 * m["atomic_transactions"]
    return WorkCounts(int(preset.sizes["n"]), int(m["flop_count_sp"] + m["flop_count_dp"]),
                      int(m["unique_global_load_bytes"] + m["unique_global_store_bytes"]),
                      int(sectors * SECTOR_BYTES))


def _fit(powers: tuple[int, ...], sizes: list[int], values: list[int]) -> tuple[dict[int, float], float | None]:
    """Coefficients of ``Σ c·n^p`` through the counted values, and the miss at the unused size."""
    if not powers:
        return {}, (1.0 if any(values) else 0.0)  # stated "none": any counted work is a full miss
    if len(powers) == 1:
        (p,) = powers
        c = values[-1] / float(sizes[-1]) ** p
        predicted = c * float(sizes[0]) ** p
        miss = abs(predicted - values[0]) / values[0] if values[0] else (0.0 if predicted == 0 else 1.0)
        return {p: c}, miss
    matrix = np.array([[float(n) ** p for p in powers] for n in sizes])
    solution = np.linalg.lstsq(matrix, np.array(values, dtype=float), rcond=None)[0]
    return dict(zip(powers, (float(c) for c in solution), strict=True)), None


def count_work(spec: KernelSpec, cancel: threading.Event | None = None) -> KernelWork:
    """Emulate ``spec`` at two small sizes (n and 2n) with work counting and fit its complexity.

    Raises :class:`~gpulab.kernels.CatalogueError` for a GPU-only kernel or one whose presets have
    no size ``n``; emulator errors (:class:`~gpulab.simt.SimtError`) pass through."""
    if spec.gpu_only:
        raise kernels.CatalogueError(f"kernel {spec.entry!r} is GPU-only: the emulator cannot count it")
    base = counting_base(spec)
    if "n" not in base.sizes:
        raise kernels.CatalogueError(f"kernel {spec.entry!r}: its presets have no size n to scale")
    key = (spec.entry, spec.source, base.name)
    if key not in _COUNTED:  # a kernel's counts do not change between runs of one source
        _COUNTED[key] = _count_and_fit(spec, base, cancel)
    return _COUNTED[key]


_COUNTED: dict[tuple[str, str, str], KernelWork] = {}


def _count_and_fit(spec: KernelSpec, base: LaunchPreset, cancel: threading.Event | None) -> KernelWork:
    complexity = complexity_of(spec)
    n = int(base.sizes["n"])
    sizes = [n, 2 * n]
    counts = tuple(emulate_counts(spec, scaled_preset(base, size, complexity.square), cancel) for size in sizes)
    coefficients: dict[str, dict[int, float]] = {}
    misses: list[float | None] = []
    for kind, powers, values in (
        ("flops", complexity.flop_powers, [c.flops for c in counts]),
        ("unique", complexity.byte_powers, [c.unique_bytes for c in counts]),
        ("sectors", complexity.sector_terms, [c.sector_bytes for c in counts]),
    ):
        coefficients[kind], miss = _fit(powers, sizes, values)
        misses.append(miss)
    known = [m for m in misses if m is not None]
    return KernelWork(spec.entry, complexity, base, counts, coefficients, max(known) if known else None)
