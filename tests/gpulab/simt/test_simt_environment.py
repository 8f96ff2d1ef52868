"""What nvcc's environment gives every .cu file, as the emulator gives it: the short unsigned type
names, math.h's M_ constants, the compiler's __FLT_MAX__, the limits headers, <cassert> with a device
assert that stops the kernel like a GPU, and the cache-hint loads and stores (plain loads here)."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab import nvrtc, simt
from gpulab.simt.errors import KernelFault

NAMES = r"""
#include <cfloat>
#include <climits>
extern "C" __global__ void k(double* o) {
    uint u = 4000000000u; ushort s = 65535; ulong l = 1ul << 40;
    o[0] = M_PI; o[1] = M_SQRT2; o[2] = M_LN2; o[3] = __FLT_MAX__; o[4] = FLT_MIN;
    o[5] = DBL_EPSILON; o[6] = INT_MAX; o[7] = u; o[8] = s; o[9] = (double)l;
}
"""


def test_the_names_nvcc_gives_a_file_have_glibc_and_gccs_values():
    out = np.zeros(10, np.float64)
    simt.launch(NAMES, "k", 1, 1, [out])
    f32 = np.finfo(np.float32)
    expected = [np.pi, np.sqrt(2), np.log(2), f32.max, f32.tiny, np.finfo(np.float64).eps, 2**31 - 1,
                4000000000, 65535, 2**40]  # fmt: skip
    assert out.tolist() == pytest.approx(expected, rel=0, abs=0)


def test_the_same_file_compiles_with_nvrtc_given_nvccs_environment():
    headers, options = nvrtc.nvcc_environment()
    try:
        nvrtc.compile_cubin(NAMES, "names.cu", "sm_80", ("-std=c++17", *options), headers=headers)
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


ASSERTING = r"""
#include <cassert>
extern "C" __global__ void k(const int* a, int* o) {
    int i = threadIdx.x;
    assert(a[i] >= 0);
    o[i] = a[i] * 2;
}
"""


def test_a_failed_device_assert_stops_the_kernel_naming_the_line_condition_and_lane():
    a = np.arange(64, dtype=np.int32)
    a[37] = -1
    with pytest.raises(KernelFault) as info:
        simt.launch(ASSERTING, "k", 1, 64, [a, np.zeros(64, np.int32)])
    fault = info.value
    assert "line 5" in str(fault) and "assert(a[i] >= 0) failed" in str(fault)
    assert fault.lanes == (37,) and "thread (37,0,0)" in str(fault)
    ok, out = np.arange(64, dtype=np.int32), np.zeros(64, np.int32)
    simt.launch(ASSERTING, "k", 1, 64, [ok, out])  # a holding assert changes nothing
    assert out.tolist() == (2 * ok).tolist()


def test_cache_hint_loads_and_stores_read_and_write_like_plain_ones():
    src = r"""extern "C" __global__ void k(const float* a, float* o) {
        int i = threadIdx.x;
        float v = __ldcs(a + i) + __ldcg(a + i) + __ldca(a + i) + __ldlu(a + i) + __ldcv(a + i);
        __stcs(o + i, v); __stcg(o + 64 + i, v); __stwb(o + 128 + i, v); __stwt(o + 192 + i, v);
    }"""
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(256, np.float32)
    simt.launch(src, "k", 1, 64, [a, out])
    assert out.reshape(4, 64).tolist() == [(5 * a).tolist()] * 4
