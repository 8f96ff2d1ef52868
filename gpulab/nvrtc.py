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
