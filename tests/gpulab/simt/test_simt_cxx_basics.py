"""C++ basics in the emulator: auto, references, C++ casts, brace initializers, default
arguments and namespaces, each against a numpy reference and compiled by NVRTC too."""

import numpy as np
import pytest

from gpulab import simt
from tests.gpulab.simt.nvrtc_check import compiles


def _nvrtc_accepts(source: str) -> None:
    """The emulator must never accept what CUDA rejects."""
    compiles(source, "cxx.cu")


def _launch(source: str, args: list, n: int, kernel: str = "k") -> None:
    _nvrtc_accepts(source)
    simt.launch(source, kernel, 1, n, args)


AUTO = r"""
extern "C" __global__ void k(unsigned* wrapped, float* f, int* sizes, const float* in) {
    auto i = blockIdx.x * blockDim.x + threadIdx.x;   // unsigned int
    auto back = i - 5;                                 // wraps below zero, as unsigned
    wrapped[i] = back;
    auto x = 1.0;                                      // double
    auto y = 1.0f;                                     // float
    auto p = in + i;                                   // const float*
    const auto scale = 3;                              // int
    auto* q = p;
    auto less = in[i] < 2.5f;                          // bool in C++
    auto c = 'a';                                      // char in C++
    auto n = sizeof(float);                            // size_t
    auto big{2147483647};                              // C++17: int
    f[i] = *q * scale + static_cast<float>(x / 3.0) + y;
    if (i == 0) {
        sizes[0] = sizeof(x); sizes[1] = sizeof(y); sizes[2] = sizeof(less);
        sizes[3] = sizeof(c); sizes[4] = sizeof(n); sizes[5] = sizeof(i);
        sizes[6] = big + 1 < 0;                        // int overflow wraps on the GPU
        sizes[7] = sizeof(back);
    }
    for (auto k = 0u; k < 2u; ++k) {
        f[i] += k;
    }
}
"""


def test_auto_takes_the_initializers_cxx_type_and_unsigned_index_math_wraps():
    n = 8
    wrapped = np.zeros(n, np.uint32)
    f = np.zeros(n, np.float32)
    sizes = np.zeros(8, np.int32)
    data = np.arange(n, dtype=np.float32)
    _launch(AUTO, [wrapped, f, sizes, data], n)
    assert wrapped.tolist() == [(i - 5) % 2**32 for i in range(n)]
    expected = data * 3 + np.float32(np.float64(1.0) / 3.0) + np.float32(1.0) + np.float32(1)
    np.testing.assert_array_equal(f, expected.astype(np.float32))
    assert sizes.tolist() == [8, 4, 1, 1, 8, 4, 1, 4]


REFERENCES = r"""
__device__ void swap(float& a, float& b) { float t = a; a = b; b = t; }
__device__ float alias(float& x, float& y) { x = 1.0f; y = 2.0f; return x; }
__device__ float peek(const float& seen, float& written) { written = 5.0f; return seen; }
__device__ void inc(int& v) { v++; }
__device__ void twice(int& v) { inc(v); inc(v); }
__device__ float half(const float& v) { return v / 2; }

extern "C" __global__ void k(float* a, float* b, float* out, int* counts) {
    int i = threadIdx.x;
    swap(a[i], b[i]);                 // memory elements
    float u = i, w = -i;
    swap(u, w);                       // registers of the caller
    float v = 0.0f;
    float same = alias(v, v);         // two references to one variable
    float other = 0.0f;
    float differ = alias(v, other);
    float p = 0.0f;
    float seen = peek(p, p);          // a const reference sees the write through the other
    float temp = peek(p + 1.0f, other);  // a const reference to a temporary
    int c = 0;
    twice(c);                         // a reference passed on
    if (i & 1) { twice(c); }          // only the odd lanes write
    int& r = c;                       // a local reference to a register
    r += 10;
    float& slot = out[4 * i];         // a local reference to global memory
    slot = u;
    out[4 * i + 1] = w + same * 10 + differ * 100;
    out[4 * i + 2] = seen + temp * 10 + half(i) * 100;
    out[4 * i + 3] = half(3);         // an int converted into a temporary float
    counts[i] = c;
}
"""


def test_reference_parameters_write_through_and_alias_as_in_cxx():
    n = 6
    a = np.arange(n, dtype=np.float32)
    b = 10 + np.arange(n, dtype=np.float32)
    a0, b0 = a.copy(), b.copy()
    out = np.zeros(4 * n, np.float32)
    counts = np.zeros(n, np.int32)
    _launch(REFERENCES, [a, b, out, counts], n)
    np.testing.assert_array_equal(a, b0)
    np.testing.assert_array_equal(b, a0)
    lanes = np.arange(n)
    out = out.reshape(n, 4)
    np.testing.assert_array_equal(out[:, 0], -lanes)
    np.testing.assert_array_equal(out[:, 1], lanes + 2 * 10 + 1 * 100)
    np.testing.assert_array_equal(out[:, 2], 5 + 6 * 10 + lanes / 2 * 100)
    np.testing.assert_array_equal(out[:, 3], 1.5)
    np.testing.assert_array_equal(counts, 2 + 2 * (lanes & 1) + 10)


SHARED_REFERENCE = r"""
__device__ void accumulate(float& total, float value) { total += value; }

extern "C" __global__ void k(const float* in, float* out) {
    __shared__ float tile[64];
    __shared__ float sum;
    int t = threadIdx.x;
    float& mine = tile[t];
    mine = in[t] * 2.0f;
    if (t == 0) { sum = 0.0f; }
    __syncthreads();
    out[t] = tile[blockDim.x - 1 - t];
    if (t == 0) {
        for (int j = 0; j < blockDim.x; ++j) { accumulate(sum, tile[j]); }
    }
    __syncthreads();
    out[blockDim.x + t] = sum;
}
"""


def test_references_to_shared_memory_elements_and_shared_scalars():
    n = 64
    data = np.linspace(-3, 3, n).astype(np.float32)
    out = np.zeros(2 * n, np.float32)
    _launch(SHARED_REFERENCE, [data, out], n)
    doubled = data * np.float32(2)
    np.testing.assert_array_equal(out[:n], doubled[::-1])
    total = np.float32(0)
    for value in doubled:
        total = np.float32(total + value)
    np.testing.assert_array_equal(out[n:], total)


CASTS = r"""
extern "C" __global__ void k(const float* f, const int* n, int* ints, float* floats,
                             unsigned* bits, unsigned char* bytes) {
    int i = threadIdx.x;
    ints[i] = static_cast<int>(f[i]);                 // truncates toward zero
    floats[i] = static_cast<float>(n[i]);             // rounds to nearest even
    bits[i] = reinterpret_cast<const unsigned*>(f)[i];  // the float's bits
    bytes[i] = static_cast<unsigned char>(n[i]);      // wraps modulo 256
    const float* cf = f;
    float* writable = const_cast<float*>(cf);
    const void* raw = static_cast<const void*>(writable);
    floats[blockDim.x + i] = static_cast<const float*>(raw)[i] / 2 + float(i) + int(f[i])
                             + unsigned(i) + int{3} + double(1.5f) + int();
    ints[blockDim.x + i] = static_cast<int>(static_cast<unsigned>(n[i]) >> 1);
}
"""


def test_cxx_casts_convert_exactly_as_cxx():
    f = np.array([2.7, -2.7, 0.5, -0.5, 1e9, -1e9, 3.0, -0.0], np.float32)
    n = np.array([16777217, -16777219, 300, -1, 2**31 - 1, -(2**31), 7, 255], np.int32)
    k = len(f)
    ints = np.zeros(2 * k, np.int32)
    floats = np.zeros(2 * k, np.float32)
    bits = np.zeros(k, np.uint32)
    bytes_ = np.zeros(k, np.uint8)
    _launch(CASTS, [f, n, ints, floats, bits, bytes_], k)
    np.testing.assert_array_equal(ints[:k], np.trunc(f).astype(np.int32))
    np.testing.assert_array_equal(floats[:k], n.astype(np.float32))
    np.testing.assert_array_equal(bits, f.view(np.uint32))
    np.testing.assert_array_equal(bytes_, n.astype(np.uint8))
    lanes = np.arange(k)
    expected = (f / np.float32(2) + lanes.astype(np.float32) + np.trunc(f) + lanes + 3
                + 1.5 + 0).astype(np.float32)
    np.testing.assert_allclose(floats[k:], expected, rtol=1e-6)
    np.testing.assert_array_equal(ints[k:], (n.view(np.uint32) >> 1).astype(np.int32))


BRACES = r"""
__device__ float scale(float a, float b = 2.0f, int times = 1) { return a * b * times; }
__device__ int offset(int a, int b = 10);
__device__ int offset(int a, int b) { return a + b; }

extern "C" __global__ void k(float* out, int* ints) {
    int i = threadIdx.x;
    float x{0.5f};
    int a{};
    float v[4]{};
    float w[3]{1.0f, 2.0f};
    int zero = {};
    int seven{7};
    float* nothing{};
    int narrowed{2.9};             // narrowing: NVRTC warns and converts, as here
    v[i % 4] += x;
    out[i] = v[0] + v[1] + v[2] + v[3] + w[1] + w[2] + a + zero + (nothing == nullptr);
    ints[i] = seven + narrowed;
    out[blockDim.x + i] = scale(i) + scale(i, 3.0f) + scale(i, 1.0f, 5) + offset(i);
}
"""


def test_brace_initializers_value_initialize_and_default_arguments_fill_calls():
    n = 8
    out = np.zeros(2 * n, np.float32)
    ints = np.zeros(n, np.int32)
    _launch(BRACES, [out, ints], n)
    np.testing.assert_array_equal(out[:n], 0.5 + 2.0 + 1)
    np.testing.assert_array_equal(ints, 9)
    lanes = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(out[n:], lanes * 2 + lanes * 3 + lanes * 5 + lanes + 10)


NAMESPACES = r"""
namespace geometry {
    __device__ float square(float x) { return x * x; }
    __device__ float norm2(float x, float y) { return square(x) + square(y); }
    namespace detail {
        __device__ int twice(int v) { return 2 * v; }
    }
}
namespace util::bits {
    __device__ unsigned low(unsigned v, unsigned n = 4u) { return v & ((1u << n) - 1u); }
}
namespace geo = geometry;
using util::bits::low;

__device__ float square(float x) { return -1.0f; }   // a different, global square

extern "C" __global__ void k(float* out, unsigned* masks) {
    int i = threadIdx.x;
    out[i] = geo::norm2(i, 1.0f) + geometry::detail::twice(i) + ::square(i);
    masks[i] = low(i * 7u) + ::min(i, 3);
    {
        using namespace geometry;
        out[blockDim.x + i] = norm2(0.0f, i) + detail::twice(1);
    }
    bool flag = true;
    int* none = nullptr;
    masks[blockDim.x + i] = flag + (none == nullptr) + false;
}
"""


def test_namespaces_aliases_using_and_global_qualification_resolve_as_cxx():
    n = 8
    out = np.zeros(2 * n, np.float32)
    masks = np.zeros(2 * n, np.uint32)
    _launch(NAMESPACES, [out, masks], n)
    lanes = np.arange(n)
    np.testing.assert_array_equal(out[:n], lanes**2 + 1 + 2 * lanes - 1)
    np.testing.assert_array_equal(out[n:], lanes**2 + 2)
    np.testing.assert_array_equal(masks[:n], ((lanes * 7) & 15) + np.minimum(lanes, 3))
    np.testing.assert_array_equal(masks[n:], 2)


KERNEL_IN_NAMESPACE = r"""
namespace lab {
    __device__ int bump(int& v, int by = 1) { v += by; return v; }
    extern "C" __global__ void count(int* out) {
        int c = 0;
        bump(c);
        out[threadIdx.x] = bump(c, threadIdx.x);
    }
}
"""


def test_an_extern_c_kernel_in_a_namespace_keeps_its_plain_name():
    out = np.zeros(4, np.int32)
    _launch(KERNEL_IN_NAMESPACE, [out], 4, kernel="count")
    np.testing.assert_array_equal(out, 1 + np.arange(4))


def test_reference_writes_follow_the_lane_mask_in_divergent_code():
    source = r"""
    __device__ void set(int& target, int value) { target = value; }
    extern "C" __global__ void k(int* out) {
        int mine = -1;
        int& alias = mine;
        if (threadIdx.x % 3 == 0) { set(alias, threadIdx.x); }
        else if (threadIdx.x % 3 == 1) { set(out[threadIdx.x], 100); }
        out[32 + threadIdx.x] = mine;
    }
    """
    out = np.zeros(64, np.int32)
    _launch(source, [out], 32)
    lanes = np.arange(32)
    np.testing.assert_array_equal(out[:32], np.where(lanes % 3 == 1, 100, 0))
    np.testing.assert_array_equal(out[32:], np.where(lanes % 3 == 0, lanes, -1))


def test_errors_name_namespace_members_as_the_source_wrote_them():
    source = """namespace foo {
    __device__ float bar(float x) { return x; }
}
extern "C" __global__ void k(float* out) {
    out[0] = foo::bar(1.0f, 2.0f);
}
"""
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    assert info.value.line == 5
    assert "foo::bar takes 1 arguments" in str(info.value)


def test_columns_after_a_lowered_cast_point_at_the_original_source():
    source = """extern "C" __global__ void k(float* out) {
    out[0] = static_cast<float>(threadIdx.x) + undeclared;
}
"""
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    assert info.value.line == 2
    assert info.value.column == source.split("\n")[1].index("undeclared") + 1


def test_a_reference_to_a_pointer_moves_the_callers_pointer():
    source = r"""
    __device__ float take(const float*& cursor) { float v = *cursor; cursor += 2; return v; }
    extern "C" __global__ void k(const float* in, float* out) {
        const float* p = in + threadIdx.x;
        float first = take(p);
        float second = take(p);
        out[threadIdx.x] = first * 10 + second + (p - in);
    }
    """
    data = np.arange(16, dtype=np.float32)
    out = np.zeros(4, np.float32)
    _launch(source, [data, out], 4)
    lanes = np.arange(4)
    np.testing.assert_array_equal(out, lanes * 10 + (lanes + 2) + lanes + 4)
