"""Number formats of a matrix multiply, emulated exactly on a CPU: rounding to each format and
the error of a product against a reference of higher precision.

A GPU multiplies FP16, BF16 and FP8 matrices on its tensor cores: the inputs are in the narrow
format, every product is exact, and the products are summed in FP32. TF32 is FP32 data whose
inputs the tensor cores round to 10 explicit mantissa bits, summed in FP32 as well. FP64 and FP32
multiplies keep everything in their own format. :func:`emulated_matmul` follows the same recipe
with numpy (FP32 sums through the BLAS's float32 matmul) and ml_dtypes (bfloat16, float8_e4m3fn
and float8_e5m2, which numpy lacks), so the error of each format is measured here, on any CPU.
FP8 comes in two encodings (Micikevicius et al., "FP8 Formats for Deep Learning",
arXiv:2209.05433): E4M3 (``fp8``: 3 mantissa bits, largest 448, for weights and activations)
and E5M2 (``fp8e5m2``: 2 mantissa bits, largest 57344, for gradients).

    >>> import numpy as np
    >>> float(round_to(np.array([1 + 2**-9]), "bf16")[0])  # 8 significand bits: 2^-9 is lost
    1.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "FORMATS",
    "Format",
    "ProductError",
    "emulated_matmul",
    "extended_reference_available",
    "product_error",
    "reference_matmul",
    "round_to",
]


@dataclass(frozen=True)
class Format:
    """One number format as a matrix multiply uses it.

    ``significand_bits`` counts the implicit leading bit (FP16: 10 stored + 1 = 11), so the unit
    roundoff (the largest relative error of one rounding to nearest) is ``2**-significand_bits``.
    ``accumulate`` is the format the sums of products are kept in; ``output`` the one C is stored in.
    """

    name: str
    significand_bits: int
    exponent_bits: int
    max_finite: float
    bytes_per_element: int
    accumulate: str
    output: str

    @property
    def explicit_mantissa_bits(self) -> int:
        return self.significand_bits - 1

    @property
    def unit_roundoff(self) -> float:
        return 2.0**-self.significand_bits


FORMATS: dict[str, Format] = {
    "fp64": Format("fp64", 53, 11, float(np.finfo(np.float64).max), 8, "fp64", "fp64"),
    "fp32": Format("fp32", 24, 8, float(np.finfo(np.float32).max), 4, "fp32", "fp32"),
    # TF32 lives in memory as FP32 (4 bytes); only the tensor cores' multiply sees 10 mantissa bits.
    "tf32": Format("tf32", 11, 8, (2 - 2**-10) * 2.0**127, 4, "fp32", "fp32"),
    "fp16": Format("fp16", 11, 5, 65504.0, 2, "fp32", "fp16"),
    # The largest finite values follow from the bits (1.1111111 x 2^127; 1.11 x 2^15), so ml_dtypes,
    # a slow import, loads only when a value is rounded (a test checks them against its finfo).
    "bf16": Format("bf16", 8, 8, (2 - 2**-7) * 2.0**127, 2, "fp32", "bf16"),
    # FP8 is E4M3 (the 'fn' variant: no infinities, largest 448), the format of the forward pass.
    # Its C stays in FP32, one of the output types cuBLASLt offers for FP8 inputs.
    "fp8": Format("fp8", 4, 4, 448.0, 1, "fp32", "fp32"),
    # FP8 E5M2: IEEE-like (infinities and NaNs), two exponent bits more range, one mantissa bit
    # less precision; the format of gradients. C in FP32 as for E4M3.
    "fp8e5m2": Format("fp8e5m2", 3, 5, (2 - 2**-2) * 2.0**15, 1, "fp32", "fp32"),
}


def _tf32(values: np.ndarray) -> np.ndarray:
    """FP32 values rounded to 10 explicit mantissa bits, to nearest with ties to even; the 13 bits
    dropped are cleared. Infinities and NaNs pass unchanged."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    lowest_kept = (bits >> np.uint32(13)) & np.uint32(1)
    rounded = (bits + np.uint32(0x0FFF) + lowest_kept) & np.uint32(0xFFFFE000)
    finite = np.isfinite(values)
    return np.where(finite, rounded, bits).view(np.float32)


_CASTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "fp64": lambda x: x.astype(np.float64),
    "fp32": lambda x: x.astype(np.float32),
    "tf32": lambda x: _tf32(x.astype(np.float32)),
    "fp16": lambda x: x.astype(np.float16),
    "bf16": lambda x: x.astype(narrow_dtype("bfloat16")),
    "fp8": lambda x: x.astype(narrow_dtype("float8_e4m3fn")),
    "fp8e5m2": lambda x: x.astype(narrow_dtype("float8_e5m2")),
}


def narrow_dtype(name: str) -> Any:
    """ml_dtypes' numpy dtype ``name`` (``bfloat16``, ``float8_e4m3fn``, ...), imported on first use:
    the import takes about a second, and the lab window opens without it."""
    import ml_dtypes

    return getattr(ml_dtypes, name)


def round_to(values: np.ndarray, name: str) -> np.ndarray:
    """``values`` rounded to format ``name`` (to nearest, ties to even), given back as float64.

    Beyond the largest finite value FP16, BF16, FP32 and FP8 E5M2 give infinity; FP8 E4M3 has
    none and gives NaN (a GPU's conversion instruction may saturate to 448 instead). TF32 goes through FP32 first,
    as FP32 data does on its way into a tensor core."""
    if name not in _CASTS:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    with np.errstate(over="ignore", invalid="ignore"):
        return _CASTS[name](np.asarray(values)).astype(np.float64)


def emulated_matmul(a: np.ndarray, b: np.ndarray, name: str) -> np.ndarray:
    """C = A·B as a GPU computes it in format ``name``, as float64 values.

    FP64: a float64 matmul. Every other format: A and B rounded to it, multiplied by numpy's
    float32 matmul with the sums kept in FP32, and C rounded to the format's output. For FP32
    itself that is plain single precision; for the narrower formats a product of two inputs has
    at most 22 significand bits, so it is exact in FP32 as on a tensor core, and only the sums
    round."""
    fmt = FORMATS[name]
    if fmt.accumulate == "fp64":
        return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)
    a32 = round_to(a, name).astype(np.float32)
    b32 = round_to(b, name).astype(np.float32)
    return round_to(a32 @ b32, fmt.output)


def extended_reference_available() -> bool:
    """Whether numpy's long double carries more than FP64's 53 bits here (x86 Linux: 64 bits);
    without it FP64's own error cannot be measured, only bounded."""
    return int(np.finfo(np.longdouble).nmant) > int(np.finfo(np.float64).nmant)


def reference_matmul(a: np.ndarray, b: np.ndarray, extended: bool = False) -> np.ndarray:
    """A·B from the unrounded inputs: in float64, or with ``extended`` in long double (the
    reference FP64 itself is compared with; numpy has no BLAS for it, so it is slow)."""
    kind = np.longdouble if extended else np.float64
    return np.asarray(a, dtype=kind) @ np.asarray(b, dtype=kind)


@dataclass(frozen=True)
class ProductError:
    """How far one format's C is from the reference, at size ``n``.

    ``normwise``: ‖C − C_ref‖ / ‖C_ref‖ (Frobenius norms). ``componentwise_median`` and
    ``componentwise_max``: |C − C_ref| / (|A|·|B|) over the entries, the quantity the classic
    error bound of a dot product limits (at most about n·u for sums kept in the format itself)."""

    name: str
    n: int
    normwise: float
    componentwise_median: float
    componentwise_max: float
    unit_roundoff: float


def product_error(
    a: np.ndarray, b: np.ndarray, name: str, reference: np.ndarray | None = None, scale: np.ndarray | None = None
) -> ProductError:
    """The error of :func:`emulated_matmul` in ``name`` against ``reference`` (default: float64
    A·B; pass the long-double one for FP64, whose float64 product would be its own reference).
    ``scale`` is |A|·|B| when the caller has it already (it is the same for every format)."""
    if reference is None:
        reference = reference_matmul(a, b)
    if scale is None:
        scale = np.abs(np.asarray(a, dtype=np.float64)) @ np.abs(np.asarray(b, dtype=np.float64))
    kind = reference.dtype
    difference = np.abs(emulated_matmul(a, b, name).astype(kind) - reference)
    componentwise = (difference / np.where(scale > 0, scale, 1.0)).astype(np.float64)
    normwise = float(np.linalg.norm(difference.astype(np.float64)) / np.linalg.norm(reference.astype(np.float64)))
    return ProductError(name, int(a.shape[0]), normwise, float(np.median(componentwise)),
                        float(componentwise.max()), FORMATS[name].unit_roundoff)  # fmt: skip
