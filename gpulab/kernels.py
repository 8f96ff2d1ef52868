"""The kernel catalogue: every ``kernels/*.cu`` with its entry point, launch presets and a
numpy reference.

The same source runs on a GPU through CuPy (:func:`gpulab.cuda.get_kernel`) and on any CPU
through the SIMT emulator (:mod:`gpulab.simt`), unless it is marked GPU-only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

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

    @property
    def threads(self) -> int:
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        return gx * gy * gz * bx * by * bz


@dataclass(frozen=True)
class KernelSpec:
    """One catalogue entry. ``reference(args)`` returns expected outputs by argument index.

    ``title_zh``, ``description_zh`` and ``lesson_zh`` are the Chinese of ``title``,
    ``description`` and ``lesson`` (empty when there is none)."""

    file: str
    entry: str
    title: str
    description: str
    presets: tuple[LaunchPreset, ...]
    make_args: ArgMaker
    reference: Reference
    gpu_only: bool = False
    rtol: float = 1e-5
    atol: float = 1e-6
    tags: tuple[str, ...] = ()
    lesson: str = ""
    title_zh: str = ""
    description_zh: str = ""
    lesson_zh: str = ""

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
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        return self.reference(copies)

    def matches(self, args: Sequence[Any], expected: Mapping[int, np.ndarray]) -> bool:
        """Whether outputs equal the reference: exactly for integers, within tolerance for floats."""
        return all(outputs_match(args[i], want, self.rtol, self.atol) for i, want in expected.items())


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


def _lab(file: str, title: str, description: str, lesson: str, tags: tuple[str, ...],
         presets: tuple[LaunchPreset, ...], make_args: ArgMaker, reference: Reference) -> KernelSpec:
    return KernelSpec(file=file, entry=file.removesuffix(".cu"), title=title, description=description,
                      presets=presets, make_args=make_args, reference=reference, tags=tags, lesson=lesson)


def _divergence_presets(**sizes: int) -> tuple[LaunchPreset, ...]:
    return (lab_preset("tiny", 64, 64, **sizes), lab_preset("small", 1024, 256, **sizes),
            lab_preset("large", 1 << 20, 256, **sizes))


def _load_presets(**sizes: int) -> tuple[LaunchPreset, ...]:
    return (lab_preset("tiny", 64, 64, **sizes), lab_preset("small", 4096, 256, **sizes),
            lab_preset("large", 1 << 22, 256, **sizes))


def _reduce_presets() -> tuple[LaunchPreset, ...]:
    return (lab_preset("tiny", 100, 64), lab_preset("small", 4096, 256), lab_preset("large", 1 << 22, 256))


_DIVERGENCE = "A warp runs one instruction for all 32 lanes; lanes on the other side of a branch wait masked off."
_COALESCING = "One warp's loads are served in 32-byte sectors: neighbouring lanes should read neighbouring addresses."
_BANKS = "Shared memory has 32 banks of 4 bytes; lanes of a warp hitting one bank at different words queue up."
_REDUCTION = "The same sum, three ways: how threads are picked to work decides divergence and instruction count."

_LAB_ENTRIES: tuple[KernelSpec, ...] = (
    _lab("divergence_even_odd.cu", "Divergence: even/odd lanes",
         "Even lanes take one path, odd lanes another; every warp runs both paths at half occupancy.",
         _DIVERGENCE, ("divergence",), _divergence_presets(), _divergence_args, _even_odd_ref),
    _lab("divergence_warp_aligned.cu", "Divergence avoided: warp-aligned branch",
         "The same two paths chosen per warp ((threadIdx.x / 32) % 2): no lane waits.",
         _DIVERGENCE, ("divergence",), _divergence_presets(), _divergence_args, _warp_aligned_ref),
    _lab("divergence_kway.cu", "Divergence: k different paths",
         "lane % k picks one of k recipes (if/else-if chain, k <= 8); a warp runs all k of them.",
         _DIVERGENCE, ("divergence",), _divergence_presets(k=4), _kway_args, _kway_ref),
    _lab("loop_data_dependent.cu", "Divergence: data-dependent loop",
         "Each lane loops counts[i] times; the warp loops as long as its slowest lane.",
         _DIVERGENCE, ("divergence",), _divergence_presets(max_rounds=32), _loop_args, _loop_ref),
    _lab("load_coalesced.cu", "Loads: coalesced", "out[i] = in[i]: 4 sectors per warp load, all bytes used.",
         _COALESCING, ("coalescing",), _load_presets(), _coalesced_args, _copy_ref),
    _lab("load_strided.cu", "Loads: strided", "out[i] = in[i * stride]: more sectors per load as the stride grows.",
         _COALESCING, ("coalescing",), _load_presets(stride=4), _strided_args, _strided_ref),
    _lab("load_gather.cu", "Loads: random gather", "out[i] = in[idx[i]] with random indices: scattered sectors.",
         _COALESCING, ("coalescing",), _load_presets(), _gather_args, _gather_ref),
    _lab("load_misaligned.cu", "Loads: misaligned", "out[i] = in[i + offset]: a warp's 128 bytes straddle 5 sectors.",
         _COALESCING, ("coalescing",), _load_presets(offset=1), _misaligned_args, _misaligned_ref),
    _lab("transpose_shared.cu", "Transpose via shared memory (no padding)",
         "32 x 32 tile; reading a tile column is a 32-way bank conflict.",
         _BANKS, ("shared-memory", "bank-conflicts"),
         (preset_transpose("tiny", 32), preset_transpose("small", 64), preset_transpose("large", 2048)),
         _transpose_args, _transpose_ref),
    _lab("transpose_shared_padded.cu", "Transpose via shared memory (padded 32 x 33)",
         "One padding column per tile row puts a column on 32 different banks: conflict-free.",
         _BANKS, ("shared-memory", "bank-conflicts"),
         (preset_transpose("tiny", 32), preset_transpose("small", 64), preset_transpose("large", 2048)),
         _transpose_args, _transpose_ref),
    _lab("shared_stride.cu", "Shared memory: strided reads",
         "Lane t reads shared word t * stride: a gcd(stride, 32)-way bank conflict.",
         _BANKS, ("shared-memory", "bank-conflicts"),
         (lab_preset("tiny", 64, 64, stride=2), lab_preset("small", 1024, 256, stride=2),
          lab_preset("large", 1 << 20, 256, stride=2)),
         _shared_stride_args, _shared_stride_ref),
    _lab("reduce_interleaved.cu", "Reduction: interleaved addressing",
         "tid % (2*s) == 0 picks the workers: divergent warps, idle lanes.",
         _REDUCTION, ("reduction", "divergence"), _reduce_presets(), _reduce_args, _reduce_ref),
    _lab("reduce_sequential.cu", "Reduction: sequential addressing",
         "tid < s picks the workers: whole warps work or rest together.",
         _REDUCTION, ("reduction",), _reduce_presets(), _reduce_args, _reduce_ref),
    _lab("reduce_shuffle.cu", "Reduction: warp shuffles",
         "__shfl_down_sync sums inside each warp; shared memory only for one value per warp.",
         _REDUCTION, ("reduction", "shuffle"), _reduce_presets(), _reduce_args, _reduce_ref),
)


_LESSONS_ZH = {
    _DIVERGENCE: "一个 warp 的 32 条 lane 同时执行同一条指令；走到分支另一边的 lane 只能被屏蔽着等待。",
    _COALESCING: "一个 warp 的加载按 32 字节的扇区来取：相邻的 lane 应该读相邻的地址。",
    _BANKS: "共享内存有 32 个 4 字节宽的 bank；同一 warp 的多条 lane 访问同一 bank 的不同字时要排队。",
    _REDUCTION: "同样的求和有三种写法：怎样挑选干活的线程，决定了分支发散和指令数。",
}

# entry -> (title, description) in Chinese
_TEXTS_ZH: dict[str, tuple[str, str]] = {
    "vector_add": ("向量加法", "c[i] = a[i] + b[i]，每个元素一个线程；受限于内存带宽。"),
    "matmul_naive": ("矩阵乘法（朴素）", "每个输出元素一个线程，所有操作数都从全局内存读取。"),
    "matmul_tiled": ("矩阵乘法（共享内存分块）", "16×16 的分块先放进共享内存；每次全局内存加载被重复使用 16 次。"),
    "divergence_even_odd": ("分支发散：奇偶 lane",
                            "偶数 lane 走一条路径，奇数 lane 走另一条；每个 warp 以一半的占用率把两条路径都跑一遍。"),
    "divergence_warp_aligned": ("避免分支发散：按 warp 对齐的分支",
                                "同样的两条路径按 warp 选择（(threadIdx.x / 32) % 2）：没有 lane 需要等待。"),
    "divergence_kway": ("分支发散：k 条不同路径",
                        "lane % k 从 k 种做法中选一种（if/else-if 链，k ≤ 8）；一个 warp 要把 k 种全跑一遍。"),
    "loop_data_dependent": ("分支发散：依赖数据的循环",
                            "每条 lane 循环 counts[i] 次；整个 warp 要循环到最慢的那条 lane 结束。"),
    "load_coalesced": ("加载：合并访问", "out[i] = in[i]：每次 warp 加载 4 个扇区，所有字节都有用。"),
    "load_strided": ("加载：跨步访问", "out[i] = in[i * stride]：跨步越大，每次加载需要的扇区越多。"),
    "load_gather": ("加载：随机收集", "out[i] = in[idx[i]]，索引随机：扇区分散。"),
    "load_misaligned": ("加载：未对齐", "out[i] = in[i + offset]：一个 warp 的 128 字节跨了 5 个扇区。"),
    "transpose_shared": ("经共享内存转置（无填充）", "32 × 32 分块；按列读取分块会造成 32 路 bank 冲突。"),
    "transpose_shared_padded": ("经共享内存转置（填充为 32 × 33）",
                                "每行分块多填一列，使一列数据落在 32 个不同的 bank 上：没有冲突。"),
    "shared_stride": ("共享内存：跨步读取", "lane t 读取共享内存第 t * stride 个字：gcd(stride, 32) 路 bank 冲突。"),
    "reduce_interleaved": ("归约：交错寻址", "用 tid % (2*s) == 0 挑选干活的线程：warp 发散，lane 空闲。"),
    "reduce_sequential": ("归约：顺序寻址", "用 tid < s 挑选干活的线程：整个 warp 要么一起干活，要么一起休息。"),
    "reduce_shuffle": ("归约：warp 洗牌",
                       "用 __shfl_down_sync 在每个 warp 内求和；共享内存只用来存每个 warp 的一个值。"),
}


def _with_chinese(spec: KernelSpec) -> KernelSpec:
    title, description = _TEXTS_ZH[spec.entry]
    return replace(spec, title_zh=title, description_zh=description, lesson_zh=_LESSONS_ZH.get(spec.lesson, ""))


_ENTRIES: tuple[KernelSpec, ...] = tuple(_with_chinese(spec) for spec in (
    KernelSpec(
        file="vector_add.cu",
        entry="vector_add",
        title="Vector add",
        description="c[i] = a[i] + b[i], one thread per element; memory-bound.",
        presets=(preset_1d("tiny", 1000, 128), preset_1d("small", 4096), preset_1d("large", 1 << 20)),
        make_args=_vector_add_args,
        reference=_vector_add_ref,
    ),
    KernelSpec(
        file="matmul_naive.cu",
        entry="matmul_naive",
        title="Matrix multiply (naive)",
        description="One thread per output element, every operand read from global memory.",
        presets=(preset_2d("tiny", 20, 8), preset_2d("small", 64), preset_2d("medium", 128)),
        make_args=_matmul_args,
        reference=_matmul_ref,
        rtol=1e-4,
        atol=1e-4,
    ),
    KernelSpec(
        file="matmul_tiled.cu",
        entry="matmul_tiled",
        title="Matrix multiply (shared-memory tiles)",
        description="16x16 tiles staged in shared memory; each global load is reused 16 times.",
        presets=(preset_2d("tiny", 20), preset_2d("small", 64), preset_2d("medium", 128)),
        make_args=_matmul_args,
        reference=_matmul_ref,
        rtol=1e-4,
        atol=1e-4,
    ),
    *_LAB_ENTRIES,
))  # fmt: skip


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


def uncatalogued_files() -> list[str]:
    """``.cu`` files in kernels/ that no catalogue entry describes (should be none)."""
    described = {spec.file for spec in catalogue().values()}
    return sorted(p.name for p in kernels_dir().glob("*.cu") if p.name not in described)
