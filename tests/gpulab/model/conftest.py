"""A toy GPU with round numbers, so expected model times can be worked out by hand."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest

from gpulab.specs import GpuSpec, Source

_TOY_SOURCE = Source(key="toy", title="Toy GPU sheet (test fixture)")


def _toy_spec() -> GpuSpec:
    return GpuSpec(
        key="toy",
        name="Toy GPU",
        aliases=("Toy GPU",),
        architecture="Toyland",
        compute_capability=(8, 0),
        sm_count=10,
        boost_clock_mhz=1000.0,
        memory_gb=16.0,
        memory_type="HBM2",
        memory_bandwidth_gb_s=1000.0,
        l2_cache_mb=4.0,
        pcie_gen=4,
        pcie_lanes=16,
        tdp_w=100.0,
        peak_tflops=MappingProxyType({"fp64": 5.0, "fp32": 10.0, "tf32": 50.0, "fp16": 100.0, "bf16": 100.0}),
        source=_TOY_SOURCE,
        field_sources=MappingProxyType({}),
        memory_efficiency=0.8,
    )


@pytest.fixture
def toy() -> GpuSpec:
    """1000 GB/s of which 80% achievable (800 GB/s), fp32 10 TFLOP/s, fp16/bf16 tensor 100, tf32 50, fp64 5,
    no fp8, PCIe Gen4 x16."""
    return _toy_spec()


@pytest.fixture
def make_toy() -> Callable[..., GpuSpec]:
    """Factory for a toy GPU with some fields replaced (``peak_tflops`` given as a dict)."""

    def make(**changes: Any) -> GpuSpec:
        if "peak_tflops" in changes:
            changes["peak_tflops"] = MappingProxyType(dict(changes["peak_tflops"]))
        return replace(_toy_spec(), **changes)

    return make
