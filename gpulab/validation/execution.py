"""Evaluators for the execution labs and host copies: launch overhead, CUDA Graphs, PCIe copies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulab.model import launch, streams
from gpulab.model.roofline import achievable_bytes_per_s
from gpulab.model.transfer import Direction, PcieLink, transfer_time
from gpulab.validation.config import model_gpu


def _elements(config: Mapping[str, Any], spec: Any) -> int:
    """The lab's array size n: ``n`` when given, else the n whose bytes take ``kernel_us`` at the rate the
    model gives them (``kernel_us = 0``: n = 1, an empty kernel in all but name)."""
    if "n" in config:
        return int(config["n"])
    seconds = float(config["kernel_us"]) * 1e-6
    return max(1, round(seconds * achievable_bytes_per_s(spec) / launch.BYTES_PER_ELEMENT_STEP))


def launch_us_per_kernel(config: Mapping[str, Any]) -> float:
    """Microseconds per kernel of ``k`` launches done ``way``, each kernel running ``kernel_us`` on its own
    (or over ``n`` elements), with the launch costs of the GPU's generation, as the launch lab models it."""
    spec = model_gpu(config)
    k = int(config.get("k", 1000))
    return launch.launch_time(config["way"], spec, k, _elements(config, spec)).seconds / k * 1e6


def launch_graph_gain(config: Mapping[str, Any]) -> float:
    """How many times faster ``k`` kernels run replayed from a CUDA Graph than launched back to back."""
    spec, k = model_gpu(config), int(config.get("k", 1000))
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


def streams_copy_gb_s(config: Mapping[str, Any]) -> float:
    """GB/s of a ``direction`` copy of ``bytes`` in the streams lab's timeline on ``gpu`` (its PCIe link and
    copy engines), started with a copy the other way twice as long (``both``), as nvbandwidth's
    bidirectional tests run them; or alone."""
    spec = model_gpu(config)
    size = int(config.get("bytes", 1 << 28))
    way: Direction = "d2h" if config.get("direction") == "d2h" else "h2d"
    other: Direction = "h2d" if way == "d2h" else "d2h"
    program = [streams.Op("measured", 1, way, transfer_time(spec, size, direction=way).seconds, size)]
    if config.get("both", True):
        interfering = transfer_time(spec, 2 * size, direction=other).seconds
        program.append(streams.Op("interfering", 2, other, interfering, 2 * size))
    measured = streams.simulate(program, streams.machine_for(spec))[0]
    return size / measured.duration_s / 1e9


EVALUATORS = {
    "launch-us-per-kernel": launch_us_per_kernel,
    "launch-graph-gain": launch_graph_gain,
    "copy-gb-s": copy_gb_s,
    "streams-copy-gb-s": streams_copy_gb_s,
}
