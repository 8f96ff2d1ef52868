"""Evaluators for the execution labs and host copies: launch overhead, CUDA Graphs, PCIe copies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulab.model import launch
from gpulab.model.transfer import PcieLink, transfer_time


def _spec(config: Mapping[str, Any]) -> Any:
    from gpulab.experiments.matmul import resolve_model_gpu

    return resolve_model_gpu(str(config.get("gpu", "h100-sxm")))


def _elements(config: Mapping[str, Any], spec: Any) -> int:
    """The lab's array size n: ``n`` when given, else the n whose bytes take ``kernel_us`` at the spec
    bandwidth (``kernel_us = 0``: n = 1, an empty kernel in all but name)."""
    if "n" in config:
        return int(config["n"])
    seconds = float(config["kernel_us"]) * 1e-6
    return max(1, round(seconds * spec.memory_bandwidth_bytes_per_s / launch.BYTES_PER_ELEMENT_STEP))


def launch_us_per_kernel(config: Mapping[str, Any]) -> float:
    """Microseconds per kernel of ``k`` launches done ``way``, each kernel running ``kernel_us`` on its own
    (or over ``n`` elements), with the launch costs of the GPU's generation, as the launch lab models it."""
    spec = _spec(config)
    k = int(config.get("k", 1000))
    return launch.launch_time(config["way"], spec, k, _elements(config, spec)).seconds / k * 1e6


def launch_graph_gain(config: Mapping[str, Any]) -> float:
    """How many times faster ``k`` kernels run replayed from a CUDA Graph than launched back to back."""
    spec, k = _spec(config), int(config.get("k", 1000))
    n = _elements(config, spec)
    return launch.launch_time("async", spec, k, n).seconds / launch.launch_time("graph", spec, k, n).seconds


def copy_gb_s(config: Mapping[str, Any]) -> float:
    """GB/s of one host-device copy of ``bytes`` over PCIe ``gen`` x``lanes`` (``pinned``, ``direction``;
    ``both``: while a copy the other way runs all the time)."""
    link = PcieLink(int(config["gen"]), int(config.get("lanes", 16)))
    size = float(config.get("bytes", 1 << 28))
    estimate = transfer_time(link, size, pinned=bool(config.get("pinned", True)),
                             direction=config.get("direction", "h2d"), both_ways=bool(config.get("both", False)))
    return size / estimate.seconds / 1e9


EVALUATORS = {
    "launch-us-per-kernel": launch_us_per_kernel,
    "launch-graph-gain": launch_graph_gain,
    "copy-gb-s": copy_gb_s,
}
