"""Evaluators for the memory and compute labs: roofline, precision, the CPU-vs-GPU crossover, the
memory wall, vector add, fusion and access patterns.

Each prices a row's configuration through the lab's own model code: the roofline lab's modelled
kernel rate (:func:`gpulab.experiments.roofline.modelled_gflop_s`) or the roof above it, the
precision lab's modelled multiply per format and its CUDA-core rates, the CPU-vs-GPU lab's modelled
matmul and vector add, the precision lab's rounding to a number format, the memory wall's modelled
STREAM rate (:func:`gpulab.experiments.bandwidth.model_point`), the fusion lab's modelled versions
(:func:`gpulab.experiments.fusion.modelled_point_at`) and the access-pattern lab's modelled GB/s of
a case (a run of the lab itself: its sector counts come from the emulator).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import numpy as np

from gpulab.experiments import (
    Context,
    access_pattern,
    bandwidth,
    drive,
    fusion,
    matmul,
    precision,
    roofline,
    vector_add,
)
from gpulab.experiments.access_pattern.cases import MODEL_KEY
from gpulab.precision import round_to
from gpulab.validation.config import model_gpu


def roofline_kernel_gflops(config: Mapping[str, Any]) -> float:
    """GFLOP/s the roofline lab models for catalogue ``kernel`` at ``elements`` (an N×N kernel:
    N² elements) on ``gpu``, its bytes counted as ``traffic`` (``sectors``: no reuse; ``unique``:
    ideal reuse). With ``at = "roof"``, the height of the roof above that point instead (the spec
    sheet's peak and bandwidth: a bound), which the priced point (bytes at the achievable rate)
    sits under."""
    entry, gpu = str(config["kernel"]), str(config.get("gpu", "h100-sxm"))
    elements, traffic = int(config["elements"]), str(config.get("traffic", "sectors"))
    at = str(config.get("at", "point"))
    if at == "point":
        return roofline.modelled_gflop_s(entry, gpu, elements, traffic)
    if at != "roof":
        raise ValueError(f"at must be 'point' or 'roof', got {at!r}")
    spec = model_gpu(config)
    placed = roofline.placed_kernel(roofline.count_work(roofline.kernels_spec(entry)), elements, traffic)
    point = roofline.kernel_point(placed, roofline.modelled_seconds(spec, placed), roofline.gpu_roof(spec), traffic)
    return float(point.extra["roof_gflop_s"])


def precision_tflops(config: Mapping[str, Any]) -> float:
    """TFLOP/s of the precision lab's modelled N×N multiply in format ``dtype`` on ``gpu``."""
    n = int(config.get("n", 8192))
    return 2.0 * n**3 / precision.modelled_estimate(model_gpu(config), str(config["dtype"]), n).seconds / 1e12


def cuda_core_tflops(config: Mapping[str, Any]) -> float:
    """TFLOP/s the precision lab gives ``dtype`` (fp16, bf16) on ``gpu`` without tensor cores."""
    return precision.cuda_core_rates(model_gpu(config))[str(config["dtype"])][0]


def matmul_tflops(config: Mapping[str, Any]) -> float:
    """TFLOP/s of the CPU-vs-GPU lab's modelled N×N matmul in ``dtype`` on ``gpu`` (no copies)."""
    n = int(config["n"])
    return 2.0 * n**3 / matmul.model_estimate(model_gpu(config), n, str(config.get("dtype", "fp32"))).seconds / 1e12


def rounding_error(config: Mapping[str, Any]) -> float:
    """The largest error of one rounding to ``format`` in the precision lab's own rounding
    (:func:`gpulab.precision.round_to`), relative to the rounded value, over ``samples`` values
    spread across [1, 256) (inside every format's normal range): at most the unit roundoff
    2^-p of a format with p significand bits, reached at the midpoints between two values."""
    rng = np.random.default_rng(0)
    values = 2.0 ** rng.uniform(0, 8, int(config.get("samples", 100_000)))
    rounded = round_to(values, str(config["format"]))
    return float(np.max(np.abs(rounded - values) / np.abs(rounded)))


def stream_gb_s(config: Mapping[str, Any]) -> float:
    """GB/s the memory wall models for STREAM ``operation`` (copy, mul, add, triad, dot) on ``gpu`` at
    ``working_set_bytes`` (the bytes of every array it touches), as the lab draws its modelled curve."""
    op = str(config.get("operation", "triad"))
    if op not in bandwidth.OPERATIONS:
        raise ValueError(f"operation must be one of {', '.join(bandwidth.OPERATIONS)}, got {op!r}")
    return bandwidth.model_point(op, model_gpu(config), int(config["working_set_bytes"])).y


def vector_add_gb_s(config: Mapping[str, Any]) -> float:
    """GB/s (12 bytes an element) of the CPU-vs-GPU lab's modelled vector add of ``n`` fp32 on ``gpu``."""
    return vector_add.modelled_point(str(config.get("gpu", "h100-sxm")), int(config["n"])).y


def fusion_gb_s(config: Mapping[str, Any]) -> float:
    """Effective GB/s (the fused version's bytes over the time) the fusion lab models for the
    ``version`` (fused, unfused) of ``chain`` at ``n`` elements on ``gpu``."""
    return _fusion_point(config, str(config.get("version", "fused"))).y


def fusion_gain(config: Mapping[str, Any]) -> float:
    """How many times as long the fusion lab models the unfused ``chain`` as the fused one at ``n``."""
    unfused, fused = _fusion_point(config, "unfused"), _fusion_point(config, "fused")
    return float(unfused.extra["seconds"]) / float(fused.extra["seconds"])


def _fusion_point(config: Mapping[str, Any], version: str) -> Any:
    if version not in ("fused", "unfused"):
        raise ValueError(f"version must be 'fused' or 'unfused', got {version!r}")
    return fusion.modelled_point_at(str(config.get("chain", "(a+b)*c")), str(config.get("gpu", "h100-sxm")),
                                    int(config["n"]), fused=version == "fused")  # fmt: skip


def access_pattern_gb_s(config: Mapping[str, Any]) -> float:
    """Useful GB/s the access-pattern lab models for ``case`` (its English label: "coalesced",
    "stride 2", ...) on ``gpu``, from a run of the lab at its default sizes."""
    case = str(config["case"])
    modelled = _access_pattern_model(str(config.get("gpu", "h100-sxm")))
    if case not in modelled:
        raise ValueError(f"case must be one of {', '.join(modelled)}, got {case!r}")
    return modelled[case]


@cache
def _access_pattern_model(gpu: str) -> dict[str, float]:
    """Case label -> modelled useful GB/s of one run of the access-pattern lab (no GPU timing)."""
    params = access_pattern.Params(model_gpu=gpu, gpu_n=32, repeats=1)
    result = drive(access_pattern.run(params, Context()))  # GPU timing, if any, kept tiny
    series = result.get_series(MODEL_KEY)
    return {str(point.extra["variant"]): point.y for point in series.points} if series is not None else {}


EVALUATORS: dict[str, Callable[[Mapping[str, Any]], float]] = {
    "roofline-kernel-gflops": roofline_kernel_gflops,
    "precision-tflops": precision_tflops,
    "cuda-core-tflops": cuda_core_tflops,
    "matmul-tflops": matmul_tflops,
    "rounding-error": rounding_error,
    "stream-gb-s": stream_gb_s,
    "vector-add-gb-s": vector_add_gb_s,
    "fusion-gb-s": fusion_gb_s,
    "fusion-gain": fusion_gain,
    "access-pattern-gb-s": access_pattern_gb_s,
}
