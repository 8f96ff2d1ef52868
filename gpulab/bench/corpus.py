"""The kernel corpus: CUDA kernels written the way learners paste them, each with its launch.

Every ``*.cu`` file of a corpus folder (``tests/gpulab/simt/corpus/`` in a checkout) holds one
kernel and a machine-readable launch line in its header comment::

    // corpus: {"kernel": "reduce<256>", "grid": 4, "block": 256, "shared_mem": 1024,
    //          "args": ["in:int32[1024]=ints", "out:int32[4]", 1024]}

(on one line). ``kernel`` is the name to launch (a template instantiation is written as
``name<args>``), ``grid`` and ``block`` are an int or a list of up to three, ``shared_mem`` is the
dynamic shared memory in bytes (default 0). Each entry of ``args`` is a number (a scalar, converted
to the parameter's type by the launch) or an array ``name:dtype[shape]=fill``; ``shape`` is one or
more comma-separated sizes and ``fill`` one of :data:`FILLS` (default ``zeros``) or ``max``/``min``
(the dtype's extreme value). Arrays are
reproducible from a seed. The numpy references live with the tests; ``gpulab bench fuzz`` mutates
these kernels as well as the catalogue's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from gpulab.kernels import LaunchPreset

_SPEC_LINE = re.compile(r"^\s*//\s*corpus:\s*(\{.*\})\s*$", re.M)
_ARRAY = re.compile(r"^(?P<name>\w+):(?P<dtype>\w+)\[(?P<shape>[\d,\s]+)\](?:=(?P<fill>\w+))?$")


def _small_ints(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(-8, 9, n)


FILLS: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "zeros": lambda rng, n: np.zeros(n),
    "ones": lambda rng, n: np.ones(n),
    "arange": lambda rng, n: np.arange(n),
    "ints": _small_ints,                                   # integers in [-8, 8]
    "naturals": lambda rng, n: rng.integers(0, 100, n),    # integers in [0, 99]
    "bytes": lambda rng, n: rng.integers(0, 256, n),       # integers in [0, 255]
    "bits": lambda rng, n: rng.integers(0, 2**32, n, dtype=np.uint64),
    "rand": lambda rng, n: rng.uniform(-1.0, 1.0, n),      # floats in [-1, 1)
    "unit": lambda rng, n: rng.uniform(0.0, 1.0, n),       # floats in [0, 1)
}


EXTREMES = ("max", "min")


class CorpusSpecError(ValueError):
    """A corpus file's ``// corpus:`` line is missing or malformed."""


@dataclass(frozen=True)
class ArraySpec:
    """One array argument: its name, numpy dtype, shape and how it is filled."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    fill: str = "zeros"

    def build(self, rng: np.random.Generator) -> np.ndarray:
        count = int(np.prod(self.shape))
        if self.fill in EXTREMES:  # the dtype's largest or smallest value, to start a min or max
            info = np.iinfo(self.dtype) if np.dtype(self.dtype).kind in "iu" else np.finfo(self.dtype)
            return np.full(self.shape, info.max if self.fill == "max" else info.min, dtype=self.dtype)
        return FILLS[self.fill](rng, count).astype(self.dtype).reshape(self.shape)


def _parse_arg(text: Any, file: str) -> Any:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return text
    match = _ARRAY.match(str(text).replace(" ", ""))
    if match is None:
        raise CorpusSpecError(f"{file}: argument {text!r} is neither a number nor name:dtype[shape]=fill")
    fill = match["fill"] or "zeros"
    if fill not in FILLS and fill not in EXTREMES:
        known = ", ".join([*FILLS, *EXTREMES])
        raise CorpusSpecError(f"{file}: unknown fill {fill!r} (known: {known})")
    shape = tuple(int(s) for s in match["shape"].split(",") if s)
    return ArraySpec(match["name"], np.dtype(match["dtype"]).name, shape, fill)


def _dim3(value: Any) -> tuple[int, int, int]:
    dims = [int(v) for v in (value if isinstance(value, list) else [value])]
    x, y, z = [*dims, 1, 1][:3]
    return x, y, z


@dataclass(frozen=True)
class CorpusKernel:
    """One corpus file and its launch. ``entry``, ``source``, ``file``, ``presets`` and
    ``build_args`` mirror :class:`gpulab.kernels.KernelSpec`, so the fuzzer takes either."""

    path: Path
    entry: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int = 0
    args: tuple[Any, ...] = ()
    presets: tuple[LaunchPreset, ...] = field(default=())

    @property
    def file(self) -> str:
        return self.path.name

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def build_args(self, preset: LaunchPreset | None = None, seed: int = 0) -> list[Any]:
        """Fresh arguments (arrays filled reproducibly from ``seed``); ``preset`` is ignored."""
        rng = np.random.default_rng(seed)
        return [a.build(rng) if isinstance(a, ArraySpec) else a for a in self.args]


def parse(path: Path) -> CorpusKernel:
    """The corpus kernel of one ``.cu`` file; CorpusSpecError when its launch line is bad."""
    match = _SPEC_LINE.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise CorpusSpecError(f"{path.name}: no '// corpus: {{...}}' launch line")
    try:
        spec = json.loads(match[1])
        grid, block = _dim3(spec["grid"]), _dim3(spec["block"])
        args = tuple(_parse_arg(a, path.name) for a in spec["args"])
        preset = LaunchPreset("corpus", grid, block)
        return CorpusKernel(path, str(spec["kernel"]), grid, block, int(spec.get("shared_mem", 0)),
                            args, (preset,))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise CorpusSpecError(f"{path.name}: bad corpus line ({exc})") from None


def default_folder() -> Path:
    """``tests/gpulab/simt/corpus`` of this checkout (it does not ship in a wheel)."""
    return Path(__file__).resolve().parents[2] / "tests" / "gpulab" / "simt" / "corpus"


@cache
def load(folder: Path | None = None) -> tuple[CorpusKernel, ...]:
    """Every corpus kernel of ``folder`` (default :func:`default_folder`), sorted by file name;
    empty when the folder does not exist."""
    folder = folder or default_folder()
    if not folder.is_dir():
        return ()
    return tuple(parse(p) for p in sorted(folder.glob("*.cu")))
