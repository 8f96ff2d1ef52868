"""The kernel catalogue: every ``kernels/*.cu`` with its entry point, launch presets and a
numpy reference.

The same source runs on a GPU through CuPy (:func:`gpulab.cuda.get_kernel`) and on any CPU
through the SIMT emulator (:mod:`gpulab.simt`), unless it is marked GPU-only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
    """One catalogue entry. ``reference(args)`` returns expected outputs by argument index."""

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


_ENTRIES: tuple[KernelSpec, ...] = (
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


def uncatalogued_files() -> list[str]:
    """``.cu`` files in kernels/ that no catalogue entry describes (should be none)."""
    described = {spec.file for spec in catalogue().values()}
    return sorted(p.name for p in kernels_dir().glob("*.cu") if p.name not in described)
