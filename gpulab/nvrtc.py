"""Compile CUDA C to a cubin with NVRTC from PyPI (``cuda-bindings`` + ``nvidia-cuda-nvrtc``).

This needs no GPU and no driver, so CI compile-checks every kernel for real architectures.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Where the toolkit headers that NVRTC does not build in live, below a CUDA root or the
# ``nvidia`` namespace package of the PyPI wheels (CUDA 13 wheels share ``nvidia/cu13``;
# CUDA 12 wheels have one folder per package). cooperative_groups.h comes with
# ``nvidia-cuda-runtime`` and includes CCCL headers (<nv/target>, <cuda/std/...>) that come
# with ``nvidia-cuda-cccl``; CUDA 13 keeps CCCL in include/cccl.
_ROOT_INCLUDES = ("include", "include/cccl")
_WHEEL_INCLUDES = ("cu13/include", "cu13/include/cccl", "cu12/include", "cuda_runtime/include",
                   "cuda_cccl/include")


# What nvcc's host headers give every .cu file and NVRTC, which reads no system header, lacks:
# sys/types.h's short unsigned names, math.h's M_ constants, the compiler's __FLT_MAX__ & co.,
# and <cassert>, <cfloat>, <climits>, <cstdint> (NVRTC has assert and the fixed-width types built
# in). Pre-included by :func:`nvcc_environment`, so a kernel written for nvcc compiles here as
# it does there. Values as glibc and GCC define them.
NVCC_ENVIRONMENT = """
typedef unsigned int uint; typedef unsigned short ushort; typedef unsigned long ulong;
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#ifndef __FLT_MAX__
#define __FLT_MAX__ 3.40282346638528859811704183484516925e+38F
#define __FLT_MIN__ 1.17549435082228750796873653722224568e-38F
#define __FLT_EPSILON__ 1.19209289550781250000000000000000000e-7F
#define __DBL_MAX__ double(1.79769313486231570814527423731704357e+308L)
#define __DBL_MIN__ double(2.22507385850720138309023271733240406e-308L)
#define __DBL_EPSILON__ double(2.22044604925031308084726333618164062e-16L)
#define __INT_MAX__ 0x7fffffff
#endif
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#define INT_MAX __INT_MAX__
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX 0xffffffffU
#define LLONG_MAX 0x7fffffffffffffffLL
"""
ENVIRONMENT_HEADER = "gpulab_nvcc_environment.h"


_STDINT = """
typedef signed char int8_t; typedef unsigned char uint8_t; typedef short int16_t; typedef unsigned short uint16_t;
typedef int int32_t; typedef unsigned int uint32_t; typedef long long int64_t; typedef unsigned long long uint64_t;
"""


def nvcc_environment() -> tuple[dict[str, str], tuple[str, ...]]:
    """(headers, options) that give NVRTC nvcc's environment (:data:`NVCC_ENVIRONMENT`): pass
    them as ``headers=`` and add the options to ``options``."""
    empty = ("cassert", "assert.h", "cfloat", "float.h", "climits", "limits.h")  # their names are pre-included
    headers = {ENVIRONMENT_HEADER: NVCC_ENVIRONMENT, "cstdint": _STDINT, "stdint.h": _STDINT,
               **dict.fromkeys(empty, "")}  # fmt: skip
    return headers, (f"--pre-include={ENVIRONMENT_HEADER}",)


class NvrtcUnavailable(RuntimeError):
    """cuda-bindings or the NVRTC library is not installed."""


class NvrtcCompileError(RuntimeError):
    """NVRTC rejected the source; ``log`` holds its messages."""

    def __init__(self, name: str, arch: str, log: str) -> None:
        super().__init__(f"{name} does not compile for {arch}:\n{log}")
        self.log = log


def _nvrtc() -> Any:
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise NvrtcUnavailable(f"NVRTC is not available ({exc}); install the dev extra") from None
    return nvrtc


def _check(result: Any, what: str) -> None:
    if int(result) != 0:
        raise RuntimeError(f"NVRTC {what} failed: {result!r}")


def _log(nvrtc: Any, prog: Any) -> str:
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    # NVRTC writes into the buffer: it must be mutable (``b" " * 1`` is Python's shared
    # one-byte object, and writing the log's NUL into it turned every b" " into b"\x00")
    buffer = bytearray(size)
    nvrtc.nvrtcGetProgramLog(prog, buffer)
    return bytes(buffer).rstrip(b"\x00").decode(errors="replace").strip()


def version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    err, major, minor = _nvrtc().nvrtcVersion()
    _check(err, "version query")
    return int(major), int(minor)


def cuda_include_dirs() -> list[str]:
    """Folders with CUDA toolkit headers for ``compile_cubin(include_dirs=...)``.

    NVRTC builds in the CUDA runtime's device declarations but not headers such as
    ``<cooperative_groups.h>``: they come from ``$CUDA_HOME`` / ``$CUDA_PATH`` or from the
    PyPI wheels ``nvidia-cuda-runtime`` and ``nvidia-cuda-cccl`` (the dev extra). Empty
    when none is installed.
    """
    roots = [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    found = [root / sub for root in roots for sub in _ROOT_INCLUDES]
    spec = importlib.util.find_spec("nvidia")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        found += [Path(location) / sub for sub in _WHEEL_INCLUDES]
    return list(dict.fromkeys(str(d) for d in found if d.is_dir()))


def has_header(header: str) -> bool:
    """Whether ``header`` (e.g. 'cooperative_groups.h') is in one of :func:`cuda_include_dirs`."""
    return any((Path(d) / header).is_file() for d in cuda_include_dirs())


def compile_cubin(source: str, name: str, arch: str = "sm_90",
                  options: tuple[str, ...] = ("-std=c++17",), *,
                  name_expressions: tuple[str, ...] = (),
                  include_dirs: Sequence[str] = (),
                  headers: Mapping[str, str] | None = None) -> tuple[bytes, str]:
    """Compile ``source`` for ``arch`` (e.g. 'sm_80'); return the cubin and the compiler log.

    ``name_expressions`` (e.g. ``"reduce<256>"``) instantiate templates as CuPy's do;
    ``include_dirs`` are searched by ``#include`` (pass :func:`cuda_include_dirs` for
    toolkit headers such as ``<cooperative_groups.h>``); ``headers`` maps a name as
    ``#include`` spells it (``"util.cuh"``) to the header's text, which NVRTC then reads
    from memory."""
    return _compile(source, name, arch, options, name_expressions, include_dirs, headers, "CUBIN")


def compile_ptx(source: str, name: str, arch: str = "compute_90",
                options: tuple[str, ...] = ("-std=c++17", "-lineinfo"), *,
                name_expressions: tuple[str, ...] = (), include_dirs: Sequence[str] = (),
                headers: Mapping[str, str] | None = None) -> tuple[str, str]:
    """Compile ``source`` to PTX for virtual ``arch`` (with ``.loc`` line information by default);
    return the PTX text and the compiler log. See :func:`compile_cubin` for the arguments."""
    ptx, log = _compile(source, name, arch, options, name_expressions, include_dirs, headers, "PTX")
    return ptx.rstrip(b"\x00").decode(), log


def _compile(source: str, name: str, arch: str, options: tuple[str, ...], name_expressions: tuple[str, ...],
             include_dirs: Sequence[str], headers: Mapping[str, str] | None, output: str) -> tuple[bytes, str]:
    """The NVRTC program for ``source``, compiled; its ``output`` ("CUBIN" or "PTX") and log."""
    nvrtc = _nvrtc()
    names = list(headers or {})
    texts = [(headers or {})[n].encode() for n in names]
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), len(names), texts,
                                         [n.encode() for n in names])
    _check(err, "program creation")
    try:
        for expression in name_expressions:
            _check(nvrtc.nvrtcAddNameExpression(prog, expression.encode())[0], "name expression")
        opts = [f"--gpu-architecture={arch}".encode(), *(o.encode() for o in options),
                *(f"-I{d}".encode() for d in include_dirs)]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        log = _log(nvrtc, prog)
        if int(err) != 0:
            raise NvrtcCompileError(name, arch, log)
        err, size = getattr(nvrtc, f"nvrtcGet{output}Size")(prog)
        _check(err, f"{output} size query")
        data = bytearray(size)
        (err,) = getattr(nvrtc, f"nvrtcGet{output}")(prog, data)
        _check(err, f"{output} retrieval")
        return bytes(data), log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
