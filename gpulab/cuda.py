"""The thin CuPy layer: compiled kernels (memoized per device) and CUDA-event timing.

Nothing here runs without a usable GPU; callers check :func:`gpu_available` first (or catch
:class:`GpuUnavailable`). Times come from CUDA events after warm-up, never from wall clock
around an asynchronous launch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from gpulab.devices import CudaStatus, probe_cuda

DEFAULT_NVRTC_OPTIONS = ("-std=c++17",)


class GpuUnavailable(RuntimeError):
    """No usable CUDA device; the message says why."""


class KernelCompileError(RuntimeError):
    """NVRTC rejected a kernel; ``log`` holds the compiler's messages."""

    def __init__(self, name: str, log: str) -> None:
        super().__init__(f"{name} did not compile:\n{log}")
        self.log = log


@cache
def cuda_status() -> CudaStatus:
    """The CUDA probe, done once per process."""
    return probe_cuda()


def gpu_available() -> bool:
    return cuda_status().available


def require_cupy() -> Any:
    """The cupy module, or GpuUnavailable explaining why there is no GPU."""
    status = cuda_status()
    if not status.available:
        raise GpuUnavailable(status.reason)
    import cupy

    return cupy


def _new_module(device_index: int, source: str, options: tuple[str, ...],
                name_expressions: tuple[str, ...] = ()) -> Any:
    cupy = require_cupy()
    with cupy.cuda.Device(device_index):
        module = cupy.RawModule(code=source, options=options,
                                name_expressions=name_expressions or None)
        try:
            module.compile()
        except cupy.cuda.compiler.CompileException as exc:
            raise KernelCompileError("kernel source", exc.get_message()) from None
    return module


# Memoized: one module per device, source and options, shared by every caller. Its __constant__
# symbols keep the values its source gives; values a caller sets go to a module of its own.
_compiled_module = cache(_new_module)


def get_kernel(source: str, entry: str, device_index: int = 0,
               options: tuple[str, ...] = DEFAULT_NVRTC_OPTIONS) -> Any:
    """A compiled ``cupy.RawKernel`` for ``entry``; modules are memoized per device and source.
    A template instance (``"reduce<256>"``) is compiled as a CuPy name expression."""
    module = _compiled_module(device_index, source, options, (entry,) if "<" in entry else ())
    return module.get_function(entry)


def kernel_with_constants(source: str, entry: str, data: dict[str, Any], device_index: int = 0,
                          options: tuple[str, ...] = DEFAULT_NVRTC_OPTIONS) -> Any:
    """A ``cupy.RawKernel`` for ``entry`` whose ``__constant__`` symbols start with ``data`` (symbol
    name -> numpy values, copied as ``cudaMemcpyToSymbol`` does), from a module of its own: set in
    the shared module, a warp session's weights stayed there for every later user of the source
    (the kernel check's stencil_1d then disagreed with numpy on an H200)."""
    cupy = require_cupy()
    # CuPy memoizes loaded modules by source and options (a second RawModule of the same code shares
    # the first's __constant__ memory): the marked source is another module, the shared one untouched.
    private = source + "\n// gpulab: __constant__ values set by the caller\n"
    module = _new_module(device_index, private, options, (entry,) if "<" in entry else ())
    with cupy.cuda.Device(device_index):
        for name, values in data.items():
            host = np.ascontiguousarray(values).reshape(-1)
            cupy.ndarray(host.shape, host.dtype, module.get_global(name)).set(host)
    return module.get_function(entry)


def to_device(args: Sequence[Any]) -> list[Any]:
    """Kernel arguments on the current device: each array copied there, scalars as they are. A
    view into a larger array (the host side of ``d_in + RADIUS``) becomes the same view into one
    copy of the whole array, so the kernel may read before it, and two views share one allocation."""
    cupy = require_cupy()
    wholes: dict[int, Any] = {}
    device: list[Any] = []
    for arg in args:
        base = arg.base if isinstance(arg, np.ndarray) and isinstance(arg.base, np.ndarray) else None
        if base is None or base.ndim != 1 or arg.ndim != 1 or base.dtype != arg.dtype or not base.flags.c_contiguous:
            device.append(cupy.asarray(arg) if isinstance(arg, np.ndarray) else arg)
            continue
        whole = wholes.setdefault(id(base), cupy.asarray(base))
        start = (arg.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
        device.append(whole[start : start + arg.size])
    return device


def time_with_events(fn: Callable[[], Any], repeats: int = 10, warmup: int = 2) -> list[float]:
    """Seconds per call of ``fn`` on the current stream, each from a pair of CUDA events."""
    cupy = require_cupy()
    for _ in range(warmup):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(repeats):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
    return times


def device_name(device_index: int = 0) -> str:
    status = cuda_status()
    for dev in status.devices:
        if dev.index == device_index:
            return dev.name
    return f"cuda:{device_index}"
