"""CUDA's built-in vector types (float2/3/4, int2/4, uint4, double2, ...) in the emulator.

Every kernel here is also compiled by NVRTC, so the emulator never accepts what CUDA rejects.
"""

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.layout import VECTOR_TYPES
from tests.gpulab.simt.nvrtc_check import compiles


def _nvrtc_accepts(source: str) -> None:
    compiles(source, "vectors.cu")


def _run(source: str, kernel: str, grid, block, args, **kw):
    _nvrtc_accepts(source)
    return simt.launch(source, kernel, grid, block, args, **kw)


@pytest.mark.parametrize("name, size, align", [
    ("char2", 2, 2), ("char3", 3, 1), ("char4", 4, 4), ("uchar4", 4, 4), ("short2", 4, 4),
    ("short3", 6, 2), ("short4", 8, 8), ("int2", 8, 8), ("int3", 12, 4), ("int4", 16, 16),
    ("uint4", 16, 16), ("float2", 8, 8), ("float3", 12, 4), ("float4", 16, 16),
    ("longlong2", 16, 16), ("double2", 16, 16), ("double3", 24, 8), ("double4", 32, 16),
])
def test_vector_types_have_the_size_and_alignment_of_vector_types_h(name, size, align):
    ctype = VECTOR_TYPES[name]
    assert (ctype.size, ctype.layout.align) == (size, align)
    static = f'static_assert(sizeof({name}) == {size} && alignof({name}) == {align}, "layout");\n'
    kernel = f'extern "C" __global__ void k(unsigned long long* out) {{ out[0] = sizeof({name}); }}'
    _nvrtc_accepts(static + kernel)  # the table above is CUDA's
    out = np.zeros(1, np.uint64)
    simt.launch(kernel, "k", 1, 1, [out])
    assert out[0] == size


SCALE4 = r"""
extern "C" __global__ void scale4(const float* a, float* b, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = ((const float4*)a)[i];
        v.x *= 2.0f; v.y *= 2.0f; v.z *= 2.0f; v.w *= 2.0f;
        ((float4*)b)[i] = v;
    }
}"""


def test_float4_loads_and_stores_a_whole_vector_through_a_cast_pointer():
    a = np.random.default_rng(0).random(4 * 50).astype(np.float32)
    b = np.zeros_like(a)
    _run(SCALE4, "scale4", 2, 32, [a, b, 50])
    np.testing.assert_array_equal(b, 2 * a)


def test_a_float4_access_is_one_16_byte_request_per_warp():
    a = np.arange(4 * 32, dtype=np.float32)
    b = np.zeros_like(a)
    r = _run(SCALE4, "scale4", 1, 32, [a, b, 32], trace=True)
    # 32 lanes x 16 bytes = 512 bytes: one request, 16 sectors, for the load and the store
    assert (r.metrics["gld_requests"], r.metrics["gld_transactions"]) == (1, 16)
    assert (r.metrics["gst_requests"], r.metrics["gst_transactions"]) == (1, 16)
    loads = [s for s in r.trace[0] if s.kind == "load"]
    assert len(loads) == 1 and loads[0].itemsize == 16
    assert loads[0].addresses[1] - loads[0].addresses[0] == 16


def test_a_float3_access_is_three_4_byte_accesses_like_the_gpu_does():
    src = r"""
    extern "C" __global__ void k(const float3* p, float* out) {
        float3 v = p[threadIdx.x];
        out[threadIdx.x] = v.x + v.y + v.z;
    }"""
    p = np.arange(3 * 32, dtype=np.float32).reshape(32, 3)
    out = np.zeros(32, np.float32)
    r = _run(src, "k", 1, 32, [p, out])
    np.testing.assert_array_equal(out, p.sum(axis=1))
    assert r.metrics["gld_requests"] == 3  # x, y and z are separate 4-byte loads


def test_a_misaligned_float4_load_faults_naming_the_buffer_and_the_address():
    src = r"""
    extern "C" __global__ void k(const float* a, float* b) {
        int i = threadIdx.x;
        float4 v = *(const float4*)(a + 1 + 4 * i);
        b[i] = v.x + v.y + v.z + v.w;
    }"""
    a = np.zeros(64, np.float32)
    with pytest.raises(simt.KernelFault) as info:
        _run(src, "k", 1, 4, [a, np.zeros(4, np.float32)])
    fault = info.value
    assert "misaligned 16-byte load" in str(fault) and "'a' (argument 0)" in str(fault)
    assert fault.buffer == "a" and fault.address % 16 == 4 and fault.kind == "memory"


def test_a_misaligned_float2_store_faults_but_an_8_aligned_one_does_not():
    src = r"""
    extern "C" __global__ void k(float* a, int offset) {
        ((float2*)(a + offset))[threadIdx.x] = make_float2(1.0f, 2.0f);
    }"""
    a = np.zeros(70, np.float32)
    _run(src, "k", 1, 32, [a, 2])
    np.testing.assert_array_equal(a[2:66], np.tile([1.0, 2.0], 32))
    with pytest.raises(simt.KernelFault, match="misaligned 8-byte store to 'a'"):
        simt.launch(src, "k", 1, 32, [a, 1])


def test_a_float4_read_past_the_end_of_a_buffer_is_out_of_bounds():
    src = r"""
    extern "C" __global__ void k(const float4* a, float* out) {
        float4 v = a[threadIdx.x];
        out[threadIdx.x] = v.w;
    }"""
    with pytest.raises(simt.KernelFault, match="out-of-bounds global load"):
        _run(src, "k", 1, 3, [np.zeros((2, 4), np.float32), np.zeros(3, np.float32)])


def test_make_functions_convert_their_arguments_to_the_component_type():
    src = r"""
    extern "C" __global__ void k(int4* out, double2* d, uchar4* c) {
        int t = threadIdx.x;
        out[t] = make_int4(t, 2.9f, -2.9f, t * 1000000000);
        d[t] = make_double2(0.1f, 0.1);
        c[t] = make_uchar4(t + 250, 1, 2, 3);
    }"""
    out = np.zeros((8, 4), np.int32)
    d = np.zeros((8, 2), np.float64)
    c = np.zeros((8, 4), np.uint8)
    _run(src, "k", 1, 8, [out, d, c])
    t = np.arange(8)
    np.testing.assert_array_equal(out[:, 0], t)
    np.testing.assert_array_equal(out[:, 1:3], np.tile([2, -2], (8, 1)))
    np.testing.assert_array_equal(out[:, 3], (t * 1_000_000_000).astype(np.int64).astype(np.int32))
    assert d[0, 0] == np.float64(np.float32(0.1)) and d[0, 1] == 0.1
    np.testing.assert_array_equal(c[:, 0], ((t + 250) % 256).astype(np.uint8))


def test_vector_arrays_in_shared_memory_with_divergent_writes():
    src = r"""
    extern "C" __global__ void k(const float2* in, float2* out) {
        __shared__ float2 tile[64];
        int t = threadIdx.x;
        tile[t] = in[blockIdx.x * 64 + t];
        __syncthreads();
        float2 v = tile[63 - t];
        if (t % 3 == 0) { v.x = -v.x; } else { v.y = v.y * 10.0f; }
        out[blockIdx.x * 64 + t] = v;
    }"""
    rng = np.random.default_rng(3)
    data = rng.random((128, 2)).astype(np.float32)
    out = np.zeros_like(data)
    r = _run(src, "k", 2, 64, [data, out])
    ref = data.reshape(2, 64, 2)[:, ::-1].reshape(128, 2).copy()
    t = np.tile(np.arange(64), 2)
    ref[t % 3 == 0, 0] *= -1
    ref[t % 3 != 0, 1] *= np.float32(10)
    np.testing.assert_array_equal(out, ref)
    assert r.metrics["shared_store_requests"] == 2 * 2  # one 8-byte store per warp


def test_vector_typed_parameters_bind_component_arrays_or_structured_arrays():
    src = r"""
    extern "C" __global__ void k(const uint4* a, unsigned int* out) {
        uint4 v = a[threadIdx.x];
        out[threadIdx.x] = v.x ^ v.y ^ v.z ^ v.w;
    }"""
    a = np.random.default_rng(1).integers(0, 2**32, (16, 4), dtype=np.uint64).astype(np.uint32)
    out = np.zeros(16, np.uint32)
    _run(src, "k", 1, 16, [a, out])
    np.testing.assert_array_equal(out, a[:, 0] ^ a[:, 1] ^ a[:, 2] ^ a[:, 3])
    structured = a.view(simt.struct_dtype("", "uint4")).reshape(16)
    out2 = np.zeros(16, np.uint32)
    simt.launch(src, "k", 1, 16, [structured, out2])
    np.testing.assert_array_equal(out2, out)
    with pytest.raises(simt.SimtError, match=r"argument 0 \(uint4\* a\): expected a numpy array"):
        simt.launch(src, "k", 1, 16, [np.zeros((16, 3), np.uint32), out])


def test_vector_locals_copy_by_value_and_pass_through_device_functions():
    src = r"""
    __device__ float2 swap(float2 v) { float2 r; r.x = v.y; r.y = v.x; return r; }
    __device__ float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
    extern "C" __global__ void k(float* out) {
        int t = threadIdx.x;
        float2 a = make_float2(t, 1.0f);
        float2 b = a;
        b.x = 100.0f;
        float2 s = swap(a);
        float4 u = make_float4(1, 2, 3, 4), w = make_float4(t, t, t, t);
        out[t] = a.x + b.x * 10.0f + s.x * 1000.0f + dot(u, w) * 10000.0f;
    }"""
    out = np.zeros(8, np.float32)
    _run(src, "k", 1, 8, [out])
    t = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(out, t + 1000 + 1000 + 10 * t * 10000)


def test_helper_math_style_operators_on_vector_types():
    src = r"""
    inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
    inline __host__ __device__ float2 operator*(float s, float2 a) { return make_float2(s * a.x, s * a.y); }
    inline __host__ __device__ void operator+=(float2& a, float2 b) { a.x += b.x; a.y += b.y; }
    extern "C" __global__ void k(const float2* p, float2* out) {
        int t = threadIdx.x;
        float2 acc = make_float2(0, 0);
        acc += p[t];
        acc += 2.0f * p[t] + p[0];
        out[t] = acc;
    }"""
    p = np.random.default_rng(0).random((32, 2)).astype(np.float32)
    out = np.zeros_like(p)
    _run(src, "k", 1, 32, [p, out])
    np.testing.assert_array_equal(out, p + (2 * p + p[0]))
