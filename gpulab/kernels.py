"""The kernel catalogue: every ``kernels/*.cu`` with its entry point, launch presets and a
numpy reference.

The same source runs on a GPU through CuPy (:func:`gpulab.cuda.get_kernel`) and on any CPU
through the SIMT emulator (:mod:`gpulab.simt`), unless it is marked GPU-only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from gpulab.catalogue import Message, msg, render
from gpulab.paths import kernels_dir

Args = list[Any]
ArgMaker = Callable[[Mapping[str, int], np.random.Generator], Args]
Reference = Callable[[Args], dict[int, np.ndarray]]


class CatalogueError(LookupError):
    """A kernel is not in the catalogue, or a catalogue entry is inconsistent."""


@dataclass(frozen=True)
class LaunchPreset:
    """A named launch: grid and block shape plus the problem sizes the arguments are built for."""

    name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    sizes: Mapping[str, int] = field(default_factory=dict)
    shared_mem: int = 0  # bytes of dynamic shared memory per block (extern __shared__ arrays)

    @property
    def threads(self) -> int:
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        return gx * gy * gz * bx * by * bz


@dataclass(frozen=True)
class Complexity:
    """How a kernel's work grows with its size ``n``: FLOPs, unique bytes and sector bytes are each
    a sum of ``c·n^p`` over the listed powers (no powers: none of that work). ``square``: ``n`` is
    the side of an ``n × n`` problem. ``stated``: False for the linear guess made for a kernel
    that states nothing."""

    flop_powers: tuple[int, ...] = (1,)
    byte_powers: tuple[int, ...] = (1,)
    sector_powers: tuple[int, ...] | None = None  # None: the same as byte_powers
    square: bool = False
    stated: bool = True

    @property
    def sector_terms(self) -> tuple[int, ...]:
        return self.byte_powers if self.sector_powers is None else self.sector_powers


# The stated complexities the base catalogue's kernels share.
_INTEGER_1D = Complexity(flop_powers=())
_MATMUL = Complexity(flop_powers=(3,), byte_powers=(2,), sector_powers=(3, 2), square=True)
_SQUARE_COPY = Complexity(flop_powers=(), byte_powers=(2,), square=True)


@dataclass(frozen=True)
class KernelSpec:
    """One catalogue entry. ``reference(args)`` returns expected outputs by argument index.

    Its texts live in the text catalogue (:mod:`gpulab.catalogue`): ``kernel.<entry>.title``,
    ``kernel.<entry>.description`` and, for lab kernels, the lesson ``lesson_key`` names
    (shared by the kernels of one lab). ``title``, ``description`` and ``lesson`` are their
    English; the ``*_message`` properties give the messages to render in another language."""

    file: str
    entry: str
    presets: tuple[LaunchPreset, ...]
    make_args: ArgMaker
    reference: Reference
    gpu_only: bool = False
    rtol: float = 1e-5
    atol: float = 1e-6
    tags: tuple[str, ...] = ()
    lesson_key: str = ""
    complexity: Complexity | None = None  # how its work grows with n; None: assumed linear (the roofline says so)

    @property
    def title_message(self) -> Message:
        return msg(f"kernel.{self.entry}.title")

    @property
    def description_message(self) -> Message:
        return msg(f"kernel.{self.entry}.description")

    @property
    def lesson_message(self) -> Message | None:
        """The lab's lesson, or None for a kernel that is not part of a lab."""
        return msg(self.lesson_key) if self.lesson_key else None

    @property
    def title(self) -> str:
        return render(self.title_message)

    @property
    def description(self) -> str:
        return render(self.description_message)

    @property
    def lesson(self) -> str:
        return render(self.lesson_message) if self.lesson_message else ""

    @property
    def path(self) -> Path:
        return kernels_dir() / self.file

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def preset(self, name: str) -> LaunchPreset:
        for preset in self.presets:
            if preset.name == name:
                return preset
        known = ", ".join(p.name for p in self.presets)
        raise CatalogueError(f"kernel {self.entry!r} has no preset {name!r} (presets: {known})")

    @property
    def smallest_preset(self) -> LaunchPreset:
        """The preset with the fewest threads (for stepping in the visualizer and fast checks)."""
        return min(self.presets, key=lambda p: p.threads)

    def build_args(self, preset: LaunchPreset, seed: int = 0) -> Args:
        """Fresh arguments for ``preset``, reproducible from ``seed``."""
        return self.make_args(preset.sizes, np.random.default_rng(seed))

    def expected(self, args: Sequence[Any]) -> dict[int, np.ndarray]:
        """Reference outputs, computed from copies of the inputs (the inputs are not touched)."""
        return self.reference(copy_args(args))

    def matches(self, args: Sequence[Any], expected: Mapping[int, np.ndarray]) -> bool:
        """Whether outputs equal the reference: exactly for integers, within tolerance for floats."""
        return all(outputs_match(args[i], want, self.rtol, self.atol) for i, want in expected.items())


def copy_args(args: Sequence[Any]) -> Args:
    """Copies of ``args``; a view into an array (the host's ``d_in + RADIUS``) stays a view, into
    a copy of the whole array (one copy per array, so its halo is still there to read)."""
    wholes: dict[int, np.ndarray] = {}
    copies: Args = []
    for arg in args:
        if not isinstance(arg, np.ndarray):
            copies.append(arg)
            continue
        base = arg.base if isinstance(arg.base, np.ndarray) and arg.base.ndim == 1 and arg.ndim == 1 else None
        if base is None or base.dtype != arg.dtype:
            copies.append(arg.copy())
            continue
        whole = wholes.setdefault(id(base), base.copy())
        start = (arg.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
        copies.append(whole[start : start + arg.size])
    return copies


def outputs_match(got: Any, want: np.ndarray, rtol: float, atol: float) -> bool:
    """Bit-exact for integer and boolean arrays; ``allclose`` for floating point."""
    got = np.asarray(got)
    if got.shape != want.shape:
        return False
    if np.issubdtype(want.dtype, np.floating):
        return bool(np.allclose(got, want, rtol=rtol, atol=atol))
    return bool(np.array_equal(got, want))


def grid_1d(n: int, block: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Enough blocks of ``block`` threads to cover ``n`` elements."""
    return ((n + block - 1) // block, 1, 1), (block, 1, 1)


def grid_2d(n: int, tile: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """An N x N problem covered by tile x tile blocks."""
    blocks = (n + tile - 1) // tile
    return (blocks, blocks, 1), (tile, tile, 1)


def preset_1d(name: str, n: int, block: int = 256) -> LaunchPreset:
    grid, blk = grid_1d(n, block)
    return LaunchPreset(name, grid, blk, {"n": n})


def preset_2d(name: str, n: int, tile: int = 16) -> LaunchPreset:
    grid, blk = grid_2d(n, tile)
    return LaunchPreset(name, grid, blk, {"n": n})


def random_f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------- entries


def _vector_add_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_f32(rng, n), random_f32(rng, n), np.zeros(n, np.float32), np.int32(n)]


def _vector_add_ref(args: Args) -> dict[int, np.ndarray]:
    return {2: args[0] + args[1]}


def _matmul_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_f32(rng, n * n), random_f32(rng, n * n), np.zeros(n * n, np.float32), np.int32(n)]


def _matmul_ref(args: Args) -> dict[int, np.ndarray]:
    n = int(args[3])
    a = args[0].reshape(n, n).astype(np.float64)
    b = args[1].reshape(n, n).astype(np.float64)
    return {2: (a @ b).astype(np.float32).ravel()}


STENCIL_RADIUS = 2
STENCIL_WEIGHTS = np.array([0.1, 0.2, 0.4, 0.2, 0.1], np.float32)  # stencil_1d.cu's __constant__ weights


def _stencil_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    """``in`` is ``d_in + RADIUS``: a view RADIUS elements into n + 2*RADIUS values (the halo before it)."""
    n = sizes["n"]
    halo = random_f32(rng, n + 2 * STENCIL_RADIUS)
    return [halo[STENCIL_RADIUS:], np.zeros(n, np.float32), np.int32(n)]


def _stencil_ref(args: Args) -> dict[int, np.ndarray]:
    whole, n = args[0].base, int(args[2])
    windows = np.lib.stride_tricks.sliding_window_view(whole.astype(np.float64), 2 * STENCIL_RADIUS + 1)[:n]
    return {1: (windows @ STENCIL_WEIGHTS.astype(np.float64)).astype(np.float32)}


# ------------------------------------------------------------- lab kernels: helpers


def lab_preset(name: str, n: int, block: int, **sizes: int) -> LaunchPreset:
    """A 1-D preset whose sizes also record the block size and any kernel parameters."""
    grid, blk = grid_1d(n, block)
    return LaunchPreset(name, grid, blk, {"n": n, "block": block, **sizes})


def random_u32(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 1 << 32, n, dtype=np.uint32)


def _u32(value: int) -> np.uint32:
    return np.uint32(value & 0xFFFFFFFF)


# ------------------------------------------------------------- divergence


def _divergence_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_u32(rng, n), np.zeros(n, np.uint32), np.int32(n)]


def _path_a(v: np.ndarray) -> np.ndarray:
    v = v * _u32(3) + _u32(1)
    v = v ^ (v >> _u32(5))
    return v + _u32(12345)


def _path_b(v: np.ndarray) -> np.ndarray:
    v = v * _u32(5) + _u32(7)
    v = v ^ (v << _u32(3))
    return v - _u32(999)


def _even_odd_ref(args: Args) -> dict[int, np.ndarray]:
    """Assumes an even block size, so threadIdx.x has the parity of the global index."""
    v = args[0]
    lane_is_even = np.arange(v.size) % 2 == 0
    return {1: np.where(lane_is_even, _path_a(v), _path_b(v))}


def _warp_aligned_ref(args: Args) -> dict[int, np.ndarray]:
    """Assumes a block size that is a multiple of 64, so (threadIdx.x / 32) % 2 == (i / 32) % 2."""
    v = args[0]
    warp_is_even = (np.arange(v.size) // 32) % 2 == 0
    return {1: np.where(warp_is_even, _path_a(v), _path_b(v))}


def _kway_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_u32(rng, n), np.zeros(n, np.uint32), np.int32(sizes["k"]), np.int32(n)]


_KWAY_PATHS: tuple[Callable[[np.ndarray], np.ndarray], ...] = (
    lambda v: v * _u32(3) + _u32(1),
    lambda v: v * _u32(5) + _u32(7),
    lambda v: v ^ (v >> _u32(3)),
    lambda v: v + (v << _u32(4)),
    lambda v: v * _u32(7) - _u32(11),
    lambda v: v ^ (v << _u32(7)),
    lambda v: v + _u32(1000003),
    lambda v: v * _u32(9) + (v >> _u32(2)),
)


def _kway_ref(args: Args) -> dict[int, np.ndarray]:
    """Assumes a block size that is a multiple of 32, so threadIdx.x % 32 == i % 32."""
    v, k = args[0], int(args[2])
    path = np.minimum((np.arange(v.size) % 32) % k, len(_KWAY_PATHS) - 1)
    out = np.empty_like(v)
    for p, recipe in enumerate(_KWAY_PATHS):
        out[path == p] = recipe(v[path == p])
    return {1: out}


def _loop_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    counts = rng.integers(sizes.get("min_rounds", 0), sizes.get("max_rounds", 32) + 1, n, dtype=np.int32)
    return [random_u32(rng, n), counts, np.zeros(n, np.uint32), np.int32(n)]


def _loop_ref(args: Args) -> dict[int, np.ndarray]:
    v, counts = args[0].copy(), args[1]
    for r in range(int(counts.max(initial=0))):
        step = counts > r
        v[step] = v[step] * _u32(1664525) + _u32(1013904223)
    return {2: v}


# ------------------------------------------------------------- global loads


def _coalesced_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_f32(rng, n), np.zeros(n, np.float32), np.int32(n)]


def _copy_ref(args: Args) -> dict[int, np.ndarray]:
    return {1: args[0].copy()}


def _strided_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n, stride = sizes["n"], sizes["stride"]
    return [random_f32(rng, n * stride), np.zeros(n, np.float32), np.int32(stride), np.int32(n)]


def _strided_ref(args: Args) -> dict[int, np.ndarray]:
    stride, n = int(args[2]), int(args[3])
    return {1: args[0][: n * stride : stride].copy()}


def _gather_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    idx = rng.integers(0, n, n, dtype=np.int32)
    return [random_f32(rng, n), idx, np.zeros(n, np.float32), np.int32(n)]


def _gather_ref(args: Args) -> dict[int, np.ndarray]:
    return {2: args[0][args[1]]}


def _misaligned_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n, offset = sizes["n"], sizes["offset"]
    return [random_f32(rng, n + offset), np.zeros(n, np.float32), np.int32(offset), np.int32(n)]


def _misaligned_ref(args: Args) -> dict[int, np.ndarray]:
    offset, n = int(args[2]), int(args[3])
    return {1: args[0][offset : offset + n].copy()}


# ------------------------------------------------------------- shared memory


TRANSPOSE_TILE = 32
SHARED_STRIDE_WORDS = 1024


def preset_transpose(name: str, n: int) -> LaunchPreset:
    """An n x n transpose: one 32 x 32 thread block per 32 x 32 tile."""
    return preset_2d(name, n, TRANSPOSE_TILE)


def _transpose_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_f32(rng, n * n), np.zeros(n * n, np.float32), np.int32(n)]


def _transpose_ref(args: Args) -> dict[int, np.ndarray]:
    n = int(args[2])
    return {1: np.ascontiguousarray(args[0].reshape(n, n).T).ravel()}


def _shared_stride_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [random_f32(rng, SHARED_STRIDE_WORDS), np.zeros(n, np.float32), np.int32(sizes["stride"]), np.int32(n)]


def _shared_stride_ref(args: Args) -> dict[int, np.ndarray]:
    stride, n = int(args[2]), int(args[3])
    return {1: args[0][(np.arange(n) * stride) % SHARED_STRIDE_WORDS]}


# ------------------------------------------------------------- reductions


def _reduce_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n, block = sizes["n"], sizes["block"]
    blocks = (n + block - 1) // block
    return [rng.integers(0, 100, n, dtype=np.int32), np.zeros(blocks, np.int32), np.int32(n)]


def reduction_block_size(n: int, blocks: int) -> int:
    """The power-of-two block size that splits ``n`` elements into ``blocks`` blocks.

    With one block every element lands in it, so any block size >= n gives the same sums.
    """
    per_block = -(-n // blocks)
    return 1 << max(0, (per_block - 1).bit_length())


def _reduce_ref(args: Args) -> dict[int, np.ndarray]:
    """Per-block integer sums (bit-exact); assumes a power-of-two block size."""
    values, blocks, n = args[0], args[1].size, int(args[2])
    block = reduction_block_size(n, blocks)
    padded = np.zeros(blocks * block, np.int64)
    padded[:n] = values[:n]
    return {1: padded.reshape(blocks, block).sum(axis=1).astype(np.int32)}


def _lab(file: str, lesson_key: str, tags: tuple[str, ...], presets: tuple[LaunchPreset, ...],
         make_args: ArgMaker, reference: Reference, complexity: Complexity = _INTEGER_1D) -> KernelSpec:
    return KernelSpec(file=file, entry=file.removesuffix(".cu"), presets=presets, make_args=make_args,
                      reference=reference, tags=tags, lesson_key=lesson_key, complexity=complexity)


def _divergence_presets(**sizes: int) -> tuple[LaunchPreset, ...]:
    return (lab_preset("tiny", 64, 64, **sizes), lab_preset("small", 1024, 256, **sizes),
            lab_preset("large", 1 << 20, 256, **sizes))


def _load_presets(**sizes: int) -> tuple[LaunchPreset, ...]:
    return (lab_preset("tiny", 64, 64, **sizes), lab_preset("small", 4096, 256, **sizes),
            lab_preset("large", 1 << 22, 256, **sizes))


def _reduce_presets() -> tuple[LaunchPreset, ...]:
    return (lab_preset("tiny", 100, 64), lab_preset("small", 4096, 256), lab_preset("large", 1 << 22, 256))


def _dynamic_reduce_presets() -> tuple[LaunchPreset, ...]:
    """The reduction presets with one int of dynamic shared memory per warp of the block."""
    return tuple(dataclasses.replace(p, shared_mem=4 * (p.sizes["block"] // 32)) for p in _reduce_presets())


# Lesson keys: the text catalogue's kernel.lesson.* entries.
_DIVERGENCE = "kernel.lesson.divergence"
_COALESCING = "kernel.lesson.coalescing"
_BANKS = "kernel.lesson.bank-conflicts"
_REDUCTION = "kernel.lesson.reduction"

_LAB_ENTRIES: tuple[KernelSpec, ...] = (
    _lab("divergence_even_odd.cu", _DIVERGENCE, ("divergence",), _divergence_presets(), _divergence_args,
         _even_odd_ref),
    _lab("divergence_warp_aligned.cu", _DIVERGENCE, ("divergence",), _divergence_presets(), _divergence_args,
         _warp_aligned_ref),
    _lab("divergence_kway.cu", _DIVERGENCE, ("divergence",), _divergence_presets(k=4), _kway_args, _kway_ref),
    _lab("loop_data_dependent.cu", _DIVERGENCE, ("divergence",), _divergence_presets(max_rounds=32), _loop_args,
         _loop_ref),
    _lab("load_coalesced.cu", _COALESCING, ("coalescing",), _load_presets(), _coalesced_args, _copy_ref),
    _lab("load_strided.cu", _COALESCING, ("coalescing",),  # a tiny launch per stride the access-pattern lab opens
         (*_load_presets(stride=4), *(lab_preset(f"stride={s}", 64, 64, stride=s) for s in (2, 8, 32))),
         _strided_args, _strided_ref),
    _lab("load_gather.cu", _COALESCING, ("coalescing",), _load_presets(), _gather_args,
         _gather_ref),  # random indices: linear on average, exact only at the counted size
    _lab("load_misaligned.cu", _COALESCING, ("coalescing",), _load_presets(offset=1), _misaligned_args,
         _misaligned_ref),
    _lab("transpose_shared.cu", _BANKS, ("shared-memory", "bank-conflicts"),
         (preset_transpose("tiny", 32), preset_transpose("small", 64), preset_transpose("large", 2048)),
         _transpose_args, _transpose_ref, _SQUARE_COPY),
    _lab("transpose_shared_padded.cu", _BANKS, ("shared-memory", "bank-conflicts"),
         (preset_transpose("tiny", 32), preset_transpose("small", 64), preset_transpose("large", 2048)),
         _transpose_args, _transpose_ref, _SQUARE_COPY),
    _lab("shared_stride.cu", _BANKS, ("shared-memory", "bank-conflicts"),
         (lab_preset("tiny", 64, 64, stride=2), lab_preset("small", 1024, 256, stride=2),
          lab_preset("large", 1 << 20, 256, stride=2)),
         _shared_stride_args, _shared_stride_ref,
         Complexity(flop_powers=(), byte_powers=(1, 0))),  # + one 4 KiB table, read by every block
    _lab("reduce_interleaved.cu", _REDUCTION, ("reduction", "divergence"), _reduce_presets(), _reduce_args,
         _reduce_ref),
    _lab("reduce_sequential.cu", _REDUCTION, ("reduction",), _reduce_presets(), _reduce_args, _reduce_ref),
    _lab("reduce_shuffle.cu", _REDUCTION, ("reduction", "shuffle"), _reduce_presets(), _reduce_args, _reduce_ref),
    _lab("reduce_dynamic.cu", _REDUCTION, ("reduction", "shuffle", "dynamic-shared-memory"),
         _dynamic_reduce_presets(), _reduce_args, _reduce_ref),
)  # fmt: skip


_ENTRIES: tuple[KernelSpec, ...] = (
    KernelSpec(
        file="vector_add.cu",
        entry="vector_add",
        presets=(preset_1d("tiny", 1000, 128), preset_1d("small", 4096), preset_1d("large", 1 << 20)),
        make_args=_vector_add_args,
        reference=_vector_add_ref,
        complexity=Complexity(),
    ),
    KernelSpec(
        file="matmul_naive.cu",
        entry="matmul_naive",
        presets=(preset_2d("tiny", 20, 8), preset_2d("small", 64), preset_2d("medium", 128)),
        make_args=_matmul_args,
        reference=_matmul_ref,
        rtol=1e-4,
        atol=1e-4,
        complexity=_MATMUL,
    ),
    KernelSpec(
        file="matmul_tiled.cu",
        entry="matmul_tiled",
        presets=(preset_2d("tiny", 20), preset_2d("small", 64), preset_2d("medium", 128)),
        make_args=_matmul_args,
        reference=_matmul_ref,
        rtol=1e-4,
        atol=1e-4,
        complexity=_MATMUL,
    ),
    KernelSpec(  # launched with a pointer into its input (d_in + RADIUS), weights in __constant__
        file="stencil_1d.cu",
        entry="stencil_1d",
        presets=(preset_1d("tiny", 64, 64), preset_1d("small", 4096), preset_1d("large", 1 << 20)),
        make_args=_stencil_args,
        reference=_stencil_ref,
        atol=1e-5,
        complexity=Complexity(byte_powers=(1, 0)),  # + the halo and the __constant__ weights, whatever n
    ),
    *_LAB_ENTRIES,
)


@cache
def catalogue() -> dict[str, KernelSpec]:
    """All catalogue entries by entry name."""
    entries = {spec.entry: spec for spec in _ENTRIES}
    if len(entries) != len(_ENTRIES):
        raise CatalogueError("two catalogue entries share an entry name")
    return entries


def get(entry: str) -> KernelSpec:
    """The catalogue entry for kernel ``entry``."""
    try:
        return catalogue()[entry]
    except KeyError:
        known = ", ".join(sorted(catalogue()))
        raise CatalogueError(f"no kernel {entry!r} in the catalogue (known: {known})") from None



# ------------------------------------------------------------- the tools' kernels


# memtest.cu's "own address" pattern (pattern 2): each 64-bit word holds BASE + 8 * its index.
_MEMTEST_ADDRESS, _MEMTEST_BASE, _MEMTEST_RECORD = 2, 0x7F00_0000_1000, 4


def _memtest_addresses(n: int) -> np.ndarray:
    return np.uint64(_MEMTEST_BASE) + np.arange(n, dtype=np.uint64) * np.uint64(8)


def _memtest_write_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    n = sizes["n"]
    return [np.zeros(n, np.uint64), np.uint64(n), np.uint64(0), np.int32(_MEMTEST_ADDRESS), np.uint64(_MEMTEST_BASE)]


def _memtest_write_ref(args: Args) -> dict[int, np.ndarray]:
    return {0: _memtest_addresses(int(args[1]))}


def _memtest_verify_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    """A filled buffer with one word's bit flipped at a random place: the verifier must find it."""
    n = sizes["n"]
    words = _memtest_addresses(n)
    words[int(rng.integers(0, n))] ^= np.uint64(1 << int(rng.integers(0, 64)))
    found = [np.zeros(1, np.uint64), *(np.zeros(_MEMTEST_RECORD, np.uint64) for _ in range(3))]
    return [words, np.uint64(n), np.uint64(0), np.int32(_MEMTEST_ADDRESS), np.uint64(_MEMTEST_BASE), *found,
            np.int32(_MEMTEST_RECORD)]


def _memtest_verify_ref(args: Args) -> dict[int, np.ndarray]:
    words = args[0]
    want = _memtest_addresses(words.size)
    (bad,) = np.nonzero(words != want)
    recorded = np.zeros((3, _MEMTEST_RECORD), np.uint64)
    recorded[:, : bad.size] = [bad.astype(np.uint64), words[bad], want[bad]]
    return {5: np.array([bad.size], np.uint64), 6: recorded[0], 7: recorded[1], 8: recorded[2]}


def _memtest(entry: str, make_args: ArgMaker, reference: Reference) -> KernelSpec:
    return KernelSpec(file="memtest.cu", entry=entry, make_args=make_args, reference=reference,
                      presets=(preset_1d("tiny", 1000, 128), preset_1d("small", 4096)),
                      complexity=Complexity(flop_powers=()))


# pointer_chase.cu: the latency lab's GPU chase (gpulab.latency.gpu_chase). A small chain built by
# the CPU ladder's layout; the reference walks it in numpy: the final index must be exact.
_CHASE_START = 0


def _chase_chain(working_set_bytes: int, rng: np.random.Generator) -> np.ndarray:
    """One random cycle through every 64-byte line, as int64 indices (the layout of
    gpulab.latency.ladder.build_chain without its page grouping, which a small chain does not need;
    that module is a layer above this one)."""
    lines, stride = working_set_bytes // 64, 8
    order = rng.permutation(lines)
    chain = np.zeros(lines * stride, dtype=np.int64)
    chain[order * stride] = np.roll(order, -1) * stride
    return chain


def _chase_args(sizes: Mapping[str, int], rng: np.random.Generator) -> Args:
    chain = _chase_chain(sizes["bytes"], rng)
    return [chain, np.int64(_CHASE_START), np.int64(sizes["steps"]), np.zeros(1, np.int64), np.zeros(1, np.int64)]


def chase_walk(chain: np.ndarray, start: int, steps: int) -> int:
    """Where ``steps`` dependent loads from ``start`` end (numpy's walk of the chain)."""
    at = int(start)
    for _ in range(int(steps)):
        at = int(chain[at])
    return at


def _chase_ref(args: Args) -> dict[int, np.ndarray]:
    return {3: np.array([chase_walk(args[0], int(args[1]), int(args[2]))], np.int64)}


def _chase_preset(name: str, working_set_bytes: int, steps: int) -> LaunchPreset:
    return LaunchPreset(name, (1, 1, 1), (32, 1, 1), {"n": steps, "bytes": working_set_bytes, "steps": steps})


# The kernels of gpulab's own tools rather than of its labs. They are not in the catalogue (the
# visualizer, the roofline and the correctness check list lab kernels); the kernel tests compile
# them with NVRTC and run them in the emulator, and the fuzzer mutates them, as the catalogue's.
# memtest.cu: gpulab.check.device_memtest (gpu.memtest); these presets are the "own address"
# pattern, the verifier's with one flipped bit to find. pointer_chase.cu: the latency lab's chase.
TOOL_KERNELS: tuple[KernelSpec, ...] = (
    _memtest("memtest_write", _memtest_write_args, _memtest_write_ref),
    _memtest("memtest_verify", _memtest_verify_args, _memtest_verify_ref),
    KernelSpec(file="pointer_chase.cu", entry="pointer_chase", make_args=_chase_args, reference=_chase_ref,
               presets=(_chase_preset("tiny", 4096, 100), _chase_preset("small", 1 << 16, 2000)),
               complexity=Complexity(flop_powers=())),
)
