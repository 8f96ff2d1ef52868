"""``__constant__`` memory: file-scope data every thread reads, initialized in the source or filled
by the host before a launch (``launch(..., constants=...)``, the emulator's cudaMemcpyToSymbol),
counted as constant-cache traffic, and read-only in a kernel (a write traps, as NVRTC compiles it)."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.errors import CompileError, KernelFault, SimtError

WEIGHTED = r"""
__constant__ float weights[4] = {9.0f, 8.0f};
__constant__ int scale = 3;
extern "C" __global__ void k(float* out) {
    int i = threadIdx.x;
    out[i] = weights[i % 4] * scale;
}
"""


def test_constant_data_has_its_initializer_and_zeros_after_it():
    out = np.zeros(64, np.float32)
    result = simt.launch(WEIGHTED, "k", 1, 64, [out])
    assert out[:4].tolist() == [27.0, 24.0, 0.0, 0.0]
    # two warps, two loads each; weights: four distinct addresses a warp, scale: one (broadcast)
    assert result.metrics["constant_load_requests"] == 4
    assert result.metrics["constant_load_transactions"] == 2 * 4 + 2 * 1


def test_the_host_fills_constant_data_before_the_launch_as_cudamemcpytosymbol_does():
    out = np.zeros(64, np.float32)
    simt.launch(WEIGHTED, "k", 1, 64, [out], constants={"weights": np.arange(1, 5, dtype=np.float32), "scale": 2})
    assert out[:4].tolist() == [2.0, 4.0, 6.0, 8.0]
    out = np.zeros(64, np.float32)
    simt.launch(WEIGHTED, "k", 1, 64, [out], constants={"weights": [5.0]})  # the first element only
    assert out[:4].tolist() == [15.0, 24.0, 0.0, 0.0]


@pytest.mark.parametrize(("constants", "words"), [
    ({"weigths": [1.0]}, "does not declare __constant__ (it declares: scale, weights)"),
    ({"weights": np.ones(5, np.float32)}, "has 5 values; the __constant__ array holds 4"),
    ({"weights": np.array(["a"])}, "is str32; the __constant__ data is float32"),
])
def test_a_wrong_fill_is_refused_by_name(constants, words):
    with pytest.raises(SimtError) as info:
        simt.launch(WEIGHTED, "k", 1, 64, [np.zeros(64, np.float32)], constants=constants)
    assert words in str(info.value)


def test_a_kernel_writing_constant_memory_traps():
    src = '__constant__ float c[4];\nextern "C" __global__ void k(float* o) { c[0] = 1.0f; o[threadIdx.x] = c[0]; }'
    with pytest.raises(KernelFault, match=r"store to __constant__ 'c'.*read-only in a kernel") as info:
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.float32)])
    assert info.value.kind == "constant-store"


def test_more_than_64_kib_of_constant_memory_is_refused():
    src = '__constant__ float big[20000];\nextern "C" __global__ void k(float* o) { o[0] = big[0]; }'
    with pytest.raises(CompileError, match="more than 64 KiB of __constant__ memory"):
        simt.launch(src, "k", 1, 1, [np.zeros(1, np.float32)])
