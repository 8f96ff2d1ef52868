"""Evaluators for the execution labs and host copies: launch overhead, CUDA Graphs, PCIe copies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulab.model import launch
from gpulab.model.transfer import PcieLink, transfer_time


def _spec(config: Mapping[str, Any]) -> Any:
    from gpulab.experiments.matmul import resolve_model_gpu

    return resolve_model_gpu(str(config.get("gpu", "h100-sxm")))


def launch_us_per_kernel(config: Mapping[str, Any]) -> float:
    """Microseconds per kernel of ``k`` launches done ``way``, each kernel running ``kernel_us`` on its own."""
    spec = _spec(config)
    k = int(config.get("k", 1000))
    # The lab's kernel runs as long as its bytes take at the spec bandwidth: pick the n that runs kernel_us.
    n = max(1, round(float(config["kernel_us"]) * 1e-6 * spec.memory_bandwidth_bytes_per_s
                     / launch.BYTES_PER_ELEMENT_STEP))  # fmt: skip
    return launch.launch_time(config["way"], spec, k, n).seconds / k * 1e6


def copy_gb_s(config: Mapping[str, Any]) -> float:
    """GB/s of one host-device copy of ``bytes`` over PCIe ``gen`` x``lanes`` (``pinned``, ``direction``)."""
    link = PcieLink(int(config["gen"]), int(config.get("lanes", 16)))
    size = float(config.get("bytes", 1 << 28))
    estimate = transfer_time(link, size, pinned=bool(config.get("pinned", True)),
                             direction=config.get("direction", "h2d"))  # fmt: skip
    return size / estimate.seconds / 1e9


EVALUATORS = {
    "launch-us-per-kernel": launch_us_per_kernel,
    "copy-gb-s": copy_gb_s,
}
