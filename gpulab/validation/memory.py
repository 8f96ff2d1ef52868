"""Evaluators for the memory and compute labs: roofline, precision, the CPU-vs-GPU crossover.

Each prices a row's configuration through the lab's own model code: the roofline lab's modelled
kernel rate (:func:`gpulab.experiments.roofline.modelled_gflop_s`), the precision lab's modelled
multiply per format and its CUDA-core rates, the CPU-vs-GPU lab's modelled matmul, and the
precision lab's rounding to a number format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np


def _spec(config: Mapping[str, Any]) -> Any:
    from gpulab.experiments.matmul import resolve_model_gpu

    return resolve_model_gpu(str(config.get("gpu", "h100-sxm")))


def roofline_kernel_gflops(config: Mapping[str, Any]) -> float:
    """GFLOP/s the roofline lab models for catalogue ``kernel`` at ``elements`` (an N×N kernel:
    N² elements) on ``gpu``, its bytes counted as ``traffic`` (``sectors``: no reuse; ``unique``:
    ideal reuse)."""
    from gpulab.experiments import roofline

    return roofline.modelled_gflop_s(str(config["kernel"]), str(config.get("gpu", "h100-sxm")),
                                     int(config["elements"]), str(config.get("traffic", "sectors")))  # fmt: skip


def precision_tflops(config: Mapping[str, Any]) -> float:
    """TFLOP/s of the precision lab's modelled N×N multiply in format ``dtype`` on ``gpu``."""
    from gpulab.experiments import precision

    n = int(config.get("n", 8192))
    return 2.0 * n**3 / precision.modelled_estimate(_spec(config), str(config["dtype"]), n).seconds / 1e12


def cuda_core_tflops(config: Mapping[str, Any]) -> float:
    """TFLOP/s the precision lab gives ``dtype`` (fp16, bf16) on ``gpu`` without tensor cores."""
    from gpulab.experiments import precision

    return precision.cuda_core_rates(_spec(config))[str(config["dtype"])][0]


def matmul_tflops(config: Mapping[str, Any]) -> float:
    """TFLOP/s of the CPU-vs-GPU lab's modelled N×N matmul in ``dtype`` on ``gpu`` (no copies)."""
    from gpulab.experiments import matmul

    n = int(config["n"])
    return 2.0 * n**3 / matmul.model_estimate(_spec(config), n, str(config.get("dtype", "fp32"))).seconds / 1e12


def rounding_error(config: Mapping[str, Any]) -> float:
    """The largest error of one rounding to ``format`` in the precision lab's own rounding
    (:func:`gpulab.precision.round_to`), relative to the rounded value, over ``samples`` values
    spread across [1, 256) (inside every format's normal range): at most the unit roundoff
    2^-p of a format with p significand bits, reached at the midpoints between two values."""
    from gpulab.precision import round_to

    rng = np.random.default_rng(0)
    values = 2.0 ** rng.uniform(0, 8, int(config.get("samples", 100_000)))
    rounded = round_to(values, str(config["format"]))
    return float(np.max(np.abs(rounded - values) / np.abs(rounded)))


EVALUATORS: dict[str, Callable[[Mapping[str, Any]], float]] = {
    "roofline-kernel-gflops": roofline_kernel_gflops,
    "precision-tflops": precision_tflops,
    "cuda-core-tflops": cuda_core_tflops,
    "matmul-tflops": matmul_tflops,
    "rounding-error": rounding_error,
}
