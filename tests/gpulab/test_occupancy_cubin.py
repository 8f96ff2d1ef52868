"""Registers and static shared memory read from NVRTC's cubins equal ptxas's own -v report."""

from __future__ import annotations

import pytest

from gpulab import kernels
from gpulab.occupancy import cubin

pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) is not installed")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("entry", ["transpose_shared", "matmul_tiled", "reduce_shuffle", "vector_add"])
def test_cubin_resources_equal_ptxas_report(entry: str, arch: str) -> None:
    resources, log = cubin.compile_resources(kernels.get(entry).source, entry, arch)
    report = cubin.ptxas_report(log)
    assert (resources.registers, resources.shared_bytes) == report[entry]
    assert resources.registers > 0


def test_static_shared_of_a_tile_kernel() -> None:
    resources, _log = cubin.compile_resources(kernels.get("transpose_shared").source, "transpose_shared", "sm_90")
    assert resources.shared_bytes == 32 * 32 * 4  # __shared__ float tile[32][32], without sm_90's reserved 1 KiB


def test_not_a_cubin_and_unknown_kernel() -> None:
    with pytest.raises(cubin.CubinError):
        cubin.kernel_resources(b"not an elf file at all" * 4, "k")
    source = kernels.get("vector_add").source
    from gpulab import nvrtc

    binary, _log = nvrtc.compile_cubin(source, "v.cu", "sm_80")
    with pytest.raises(cubin.CubinError, match="vector_add"):
        cubin.kernel_resources(binary, "nope")
