"""Data types the model knows, their sizes, and which peak rate each one runs at."""

from __future__ import annotations

from typing import Literal

from gpulab.catalogue import Message, Note, msg, render
from gpulab.specs import DTYPES, GpuSpec

__all__ = ["BYTES_PER_ELEMENT", "DTYPES", "Dtype", "UnsupportedDtypeError", "peak_for"]

Dtype = Literal["fp64", "fp32", "tf32", "fp16", "bf16", "fp8"]

BYTES_PER_ELEMENT: dict[str, int] = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,  # stored as fp32 in memory; only the tensor-core multiply uses 19 bits
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
}

_TENSOR_ONLY = frozenset({"tf32", "fp8"})


class UnsupportedDtypeError(ValueError):
    """The GPU has no rate for this data type (for example fp8 on a V100); ``message`` says so as a
    catalogue message, ``str(exc)`` in English."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(render(message))


def check_dtype(dtype: str) -> None:
    """Raise ``ValueError`` unless ``dtype`` is one of :data:`DTYPES`."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(DTYPES)}")


def peak_for(spec: GpuSpec, dtype: str, use_tensor_cores: bool) -> tuple[str, float, Note | None]:
    """Pick the peak rate a kernel in ``dtype`` runs at on ``spec``.

    Returns ``(peak key, peak TFLOP/s, assumption or None)``. fp32 always runs on CUDA cores
    (use ``tf32`` for tensor cores); fp64 uses FP64 tensor cores where the GPU has them;
    fp16/bf16 without tensor cores run at the GPU's published CUDA-core rate for them
    (``fp16_non_tensor``: twice fp32 on Hopper, four times on A100), or, where the table has
    none, at the fp32 CUDA-core rate with an assumption saying so.
    """
    check_dtype(dtype)
    if dtype in _TENSOR_ONLY and not use_tensor_cores:
        raise ValueError(f"{dtype} exists only on tensor cores; use_tensor_cores must be True")
    key, note = _peak_key(spec, dtype, use_tensor_cores)
    tflops = spec.peak_tflops.get(key)
    if tflops is None:
        raise UnsupportedDtypeError(msg("model.error.no-rate", gpu=spec.name, key=key))
    return key, tflops, note


def _peak_key(spec: GpuSpec, dtype: str, use_tensor_cores: bool) -> tuple[str, Note | None]:
    if dtype == "fp64":
        if use_tensor_cores and "fp64_tensor" in spec.peak_tflops:
            return "fp64_tensor", None
        return "fp64", None
    if dtype in ("fp16", "bf16") and not use_tensor_cores:
        if dtype not in spec.peak_tflops:
            return dtype, None  # the GPU lacks the type altogether; reported by the caller
        if f"{dtype}_non_tensor" in spec.peak_tflops:
            return f"{dtype}_non_tensor", None
        return "fp32", Note(msg("model.assumption.no-tensor-cores", dtype=dtype, gpu=spec.name))
    return dtype, None
