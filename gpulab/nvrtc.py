"""Compile CUDA C to a cubin with NVRTC from PyPI (``cuda-bindings`` + ``nvidia-cuda-nvrtc``).

This needs no GPU and no driver, so CI compile-checks every kernel for real architectures.
"""

from __future__ import annotations

from typing import Any


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
    buffer = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buffer)
    return buffer.rstrip(b"\x00").decode(errors="replace").strip()


def version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    err, major, minor = _nvrtc().nvrtcVersion()
    _check(err, "version query")
    return int(major), int(minor)


def compile_cubin(source: str, name: str, arch: str = "sm_90",
                  options: tuple[str, ...] = ("-std=c++17",),
                  name_expressions: tuple[str, ...] = ()) -> tuple[bytes, str]:
    """Compile ``source`` for ``arch`` (e.g. 'sm_80'); return the cubin and the compiler log.

    ``name_expressions`` (``("reduce<256>",)``) are template instances to compile, as CuPy's
    ``RawModule(name_expressions=...)`` asks NVRTC for them (``nvrtcAddNameExpression``)."""
    nvrtc = _nvrtc()
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(err, "program creation")
    try:
        for expression in name_expressions:
            (err,) = nvrtc.nvrtcAddNameExpression(prog, expression.encode())
            _check(err, f"name expression {expression!r}")
        opts = [f"--gpu-architecture={arch}".encode(), *(o.encode() for o in options)]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        log = _log(nvrtc, prog)
        if int(err) != 0:
            raise NvrtcCompileError(name, arch, log)
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check(err, "cubin size query")
        cubin = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        _check(err, "cubin retrieval")
        return cubin, log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
