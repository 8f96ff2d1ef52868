"""Performance model: what a GPU *should* take, from its spec sheet and stated formulas.

Pure functions, no I/O. Every result is a :class:`ModelEstimate` whose ``assumptions``
say, one sentence each, what the number rests on; the lab labels these numbers
``modelled`` and never draws them as measurements.

    >>> from gpulab.specs import load_specs
    >>> from gpulab.model import vector_add_estimate
    >>> h100 = load_specs().get("h100-sxm")
    >>> vector_add_estimate(h100, 10**8).bound
    'memory-bound'
"""

from gpulab.model.dtypes import BYTES_PER_ELEMENT, DTYPES, UnsupportedDtypeError, peak_for
from gpulab.model.estimate import BOUNDS, ModelEstimate, merge_assumptions
from gpulab.model.roofline import (
    DEFAULT_LAUNCH_OVERHEAD_S,
    MemoryShare,
    RooflinePlacement,
    kernel_time,
    memory_share,
    place,
    ridge_point,
    roof_at,
)
from gpulab.model.transfer import (
    DEFAULT_COPY_LATENCY_S,
    DEFAULT_PAGEABLE_EFFICIENCY,
    DEFAULT_PINNED_EFFICIENCY,
    PcieLink,
    pcie_gb_s_per_direction,
    transfer_time,
)
from gpulab.model.workloads import (
    GEMM_TILE,
    GemmShare,
    add_transfers,
    gemm_share,
    matmul_estimate,
    tile_fill,
    vector_add_estimate,
)

__all__ = [
    "BOUNDS",
    "BYTES_PER_ELEMENT",
    "DEFAULT_COPY_LATENCY_S",
    "DEFAULT_LAUNCH_OVERHEAD_S",
    "DEFAULT_PAGEABLE_EFFICIENCY",
    "DEFAULT_PINNED_EFFICIENCY",
    "DTYPES",
    "GEMM_TILE",
    "GemmShare",
    "MemoryShare",
    "ModelEstimate",
    "PcieLink",
    "RooflinePlacement",
    "UnsupportedDtypeError",
    "add_transfers",
    "gemm_share",
    "kernel_time",
    "matmul_estimate",
    "memory_share",
    "merge_assumptions",
    "pcie_gb_s_per_direction",
    "peak_for",
    "place",
    "ridge_point",
    "roof_at",
    "tile_fill",
    "transfer_time",
    "vector_add_estimate",
]
