"""NVRTC checks for the emulator's tests: what the emulator runs must compile for a real GPU,
and what CUDA rejects the emulator must reject too. Both skip, giving the reason, where NVRTC
is not installed."""

from __future__ import annotations

import pytest

from gpulab import nvrtc


def compiles(source: str, name: str = "kernel.cu") -> None:
    """``source`` compiles for sm_80 (a failure shows NVRTC's log)."""
    try:
        nvrtc.compile_cubin(source, name, "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(f"NVRTC is not installed: {exc}")


def rejects(source: str, name: str = "rejected.cu") -> None:
    """NVRTC refuses ``source``."""
    try:
        with pytest.raises(nvrtc.NvrtcCompileError):
            nvrtc.compile_cubin(source, name, "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(f"NVRTC is not installed: {exc}")
