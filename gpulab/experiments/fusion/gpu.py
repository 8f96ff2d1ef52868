"""The fusion lab on a GPU: the same chain four ways, timed with CUDA events.

- CuPy as written, ``(a + b) * c`` on ``cupy.ndarray``: one elementwise kernel per operator,
  each writing a fresh temporary;
- one ``cupy.ElementwiseKernel`` whose body is the whole formula;
- ``cupy.fuse``, which traces the Python formula and compiles one kernel from it;
- the hand-written ``.cu`` kernels from ``kernels/``: the unfused steps one launch each, and
  the fused kernel.

Every call is checked once against numpy's answer; a wrong answer stops the GPU series like
any other GPU error (the points measured before it stay).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from gpulab import cuda, kernels
from gpulab.experiments.fusion.chains import BLOCK, FLOAT_BYTES, Chain, kernel_spec
from gpulab.lab.base import ExperimentError

GPU_MEMORY_SHARE = 0.8
"""Use at most this share of the GPU's free memory at one size (CuPy's pool and temporaries need room)."""


@cache
def elementwise_kernel(chain: Chain) -> Any:
    """One ``cupy.ElementwiseKernel`` computing the whole chain: ``float32`` inputs, output ``y``."""
    cupy = cuda.require_cupy()
    inputs = ", ".join(f"float32 {name}" for name in chain.inputs)
    return cupy.ElementwiseKernel(inputs, "float32 y", chain.elementwise, f"fusion_elementwise_{len(chain.inputs)}")


@cache
def fused_function(chain: Chain) -> Any:
    """The chain's Python formula under ``cupy.fuse``: traced once, one kernel per call.
    (CuPy's documentation asks to reuse a fused function rather than decorate it again.)"""
    cupy = cuda.require_cupy()
    return cupy.fuse(kernel_name=f"fusion_fuse_{len(chain.inputs)}")(chain.formula)


def device_bytes_needed(chain: Chain, n: int) -> int:
    """Inputs, y, one buffer per unfused step and two CuPy temporaries, all float32."""
    return FLOAT_BYTES * n * (len(chain.inputs) + 1 + len(chain.steps) + 2)


@dataclass
class DeviceOperands:
    """The inputs of one size on the GPU, an output ``y`` and one buffer per unfused step."""

    inputs: list[Any]
    y: Any
    steps: list[Any]


@dataclass
class GpuRun:
    """What the GPU series of one run share: the device, its free memory, the operands of the
    current size, and the sizes left out as too large for it."""

    device: int
    free_bytes: int = 0
    skipped: list[int] = field(default_factory=list)
    _size: int = -1
    _operands: DeviceOperands | None = None

    def start(self) -> None:
        cupy = cuda.require_cupy()
        with cupy.cuda.Device(self.device):
            self.free_bytes = int(cupy.cuda.Device(self.device).mem_info[0])

    def fits(self, chain: Chain, n: int) -> bool:
        return device_bytes_needed(chain, n) <= GPU_MEMORY_SHARE * self.free_bytes

    def operands(self, chain: Chain, n: int, host: list[np.ndarray]) -> DeviceOperands:
        """The device copies of ``host`` for size ``n`` (made once per size, shared by every GPU series)."""
        if self._size != n or self._operands is None:
            self.release()
            cupy = cuda.require_cupy()
            with cupy.cuda.Device(self.device):
                inputs = [cupy.asarray(x) for x in host]
                self._operands = DeviceOperands(inputs, cupy.empty(n, cupy.float32),
                                                [cupy.empty(n, cupy.float32) for _ in chain.steps])  # fmt: skip
            self._size = n
        return self._operands

    def release(self) -> None:
        """Drop the last size's arrays and give their memory back to the driver."""
        if self._operands is None:
            return
        self._operands, self._size = None, -1
        cupy = cuda.require_cupy()
        with cupy.cuda.Device(self.device):
            cupy.get_default_memory_pool().free_all_blocks()


# ------------------------------------------------------------- the calls


Call = Callable[[], Any]


def cupy_ops(chain: Chain, ops: DeviceOperands) -> tuple[Call, Call]:
    """(call, result): the formula on CuPy arrays, one kernel and one temporary per operator."""
    box: list[Any] = [None]

    def call() -> None:
        box[0] = chain.formula(*ops.inputs)

    return call, lambda: box[0]


def elementwise(chain: Chain, ops: DeviceOperands) -> tuple[Call, Call]:
    kernel = elementwise_kernel(chain)
    return (lambda: kernel(*ops.inputs, ops.y)), (lambda: ops.y)


def fused(chain: Chain, ops: DeviceOperands) -> tuple[Call, Call]:
    function = fused_function(chain)
    box: list[Any] = [None]

    def call() -> None:
        box[0] = function(*ops.inputs)

    return call, lambda: box[0]


def cu_fused(chain: Chain, ops: DeviceOperands, device: int) -> tuple[Call, Call]:
    spec = kernel_spec(chain.fused_entry)
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    n = int(ops.y.size)
    grid, block = kernels.grid_1d(n, BLOCK)
    args = (*ops.inputs, ops.y, np.int32(n))
    return (lambda: kernel(grid, block, args)), (lambda: ops.y)


def cu_unfused(chain: Chain, ops: DeviceOperands, device: int) -> tuple[Call, Call]:
    """The unfused ``.cu`` steps, one launch each: step k reads step k-1's buffer and the next input."""
    n = int(ops.y.size)
    grid, block = kernels.grid_1d(n, BLOCK)
    launches, current, pending = [], ops.inputs[0], list(ops.inputs[1:])
    for step, out in zip(chain.steps, ops.steps, strict=True):
        spec = kernel_spec(step.entry)
        operands = (current, pending.pop(0)) if step.reads == 2 else (current,)
        launches.append((cuda.get_kernel(spec.source, spec.entry, device), (*operands, out, np.int32(n))))
        current = out

    def call() -> None:
        for kernel, args in launches:
            kernel(grid, block, args)

    return call, lambda: ops.steps[-1]


def check_result(got: Any, want: np.ndarray, what: str) -> None:
    """Raise ExperimentError when a GPU version's answer is not numpy's (float32 tolerance)."""
    cupy = cuda.require_cupy()
    host = cupy.asnumpy(got)
    if host.dtype != np.float32 or not np.allclose(host, want, rtol=1e-5, atol=1e-5):
        raise ExperimentError(f"{what} gave a wrong answer (dtype {host.dtype})")
