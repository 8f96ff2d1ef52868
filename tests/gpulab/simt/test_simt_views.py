"""A launch argument that points into an array, as ``d_in + RADIUS`` does on the host side: the
whole array is mapped, the kernel's pointer points into it, and bounds are those of the whole array."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.errors import KernelFault

STENCIL = r"""
#define RADIUS 3
extern "C" __global__ void stencil(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) s += in[i + k];
    out[i] = s;
}
"""
R, N = 3, 64


def test_a_view_past_the_halo_reads_the_halo_before_it():
    x = np.arange(N + 2 * R, dtype=np.float32)
    out = np.zeros(N, np.float32)
    simt.launch(STENCIL, "stencil", 1, N, [x[R:], out, N])
    assert out.tolist() == [float(x[i:i + 2 * R + 1].sum()) for i in range(N)]


def test_reading_past_the_whole_array_is_still_a_fault_naming_its_size():
    x = np.arange(N + 2 * R, dtype=np.float32)
    with pytest.raises(KernelFault, match=r"out-of-bounds global load from 'in' .* 280-byte buffer"):
        simt.launch(STENCIL, "stencil", 2, N, [x[R:], np.zeros(N + 1, np.float32), N + 1])


def test_two_arguments_into_one_array_share_it_as_two_device_pointers_would():
    src = r"""extern "C" __global__ void shift(const int* src, int* dst) {
        int i = threadIdx.x;
        dst[i] = src[i] + 100;
    }"""
    buffer = np.arange(64, dtype=np.int32)
    simt.launch(src, "shift", 1, 32, [buffer[:32], buffer[32:]])  # writes land in the same array
    assert buffer[32:].tolist() == list(range(100, 132)) and buffer[:32].tolist() == list(range(32))
