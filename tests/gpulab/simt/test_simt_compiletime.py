"""Enums, static_assert and the C++ words that change nothing the emulator computes
(gpulab.simt.compiletime and the preprocessor's blanking)."""

import numpy as np
import pytest

from gpulab import simt


def _run(source: str, n: int = 64) -> np.ndarray:
    out = np.zeros(n, dtype=np.float32)
    simt.launch(source, "k", 1, n, [np.arange(n, dtype=np.float32), out])
    return out


def test_enumerators_count_on_from_the_last_value_and_name_a_type():
    out = _run("""
enum Activation { RELU, GELU = 4, TANH };
enum { BLOCK = 64 };
__device__ float code(Activation a) { switch (a) { case RELU: return 10; case TANH: return 20; default: return 30; } }
__global__ void k(const float* in, float* out) {
    __shared__ float s[BLOCK];
    Activation a = (threadIdx.x % 3 == 0) ? TANH : ((threadIdx.x % 3 == 1) ? RELU : GELU);
    s[threadIdx.x] = code(a) + TANH;
    out[threadIdx.x] = s[threadIdx.x] + (a == GELU);
}""")
    lane = np.arange(64) % 3
    want = np.select([lane == 0, lane == 1], [20 + 5, 10 + 5], 30 + 5 + 1)
    np.testing.assert_array_equal(out, want.astype(np.float32))


@pytest.mark.parametrize("source, line, construct, words", [
    ("enum E { A = 1.5 };\n__global__ void k(const float* in, float* out) {}\n", 1,
     "enumerator value", "integer constant"),
    ("enum E { A };\nenum F { A };\n__global__ void k(const float* in, float* out) {}\n", 2,
     "redeclaration", "already declared"),
    ("__global__ void k(const float* in, float* out) {\n    enum L { X } l;\n}\n", 2,
     "enum inside a function", "file scope"),
    ("static_assert(sizeof(double) == 4, \"doubles are 8 bytes\");\n"
     "__global__ void k(const float* in, float* out) {}\n", 1, "static_assert", "doubles are 8 bytes"),
    ("template <int N> __global__ void k(const float* in, float* out) {\n"
     "    static_assert(N % 32 == 0, \"N must be a multiple of 32\");\n}\n"
     "template __global__ void k<48>(const float*, float*);\n", 2, "static_assert", "multiple of 32"),
    ("__global__ void k(const float* in, float* out) {\n    static_assert(in != 0, \"x\");\n}\n", 2,
     "static_assert", "evaluate"),
])
def test_compile_time_mistakes_are_refused_at_their_line(source, line, construct, words):
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    assert (info.value.line, info.value.construct) == (line, construct), str(info.value)
    assert words in str(info.value)


def test_a_true_static_assert_compiles_at_file_scope_in_a_function_and_in_each_template_instance():
    out = _run("""
static_assert(sizeof(float) == 4, "floats are 4 bytes");
template <int N> __device__ float scaled(float x) {
    static_assert(N > 0, "N must be positive");
    return N * x;
}
__global__ void k(const float* in, float* out) {
    static_assert(sizeof(float4) == 16, "float4 is 16 bytes");
    out[threadIdx.x] = scaled<3>(in[threadIdx.x]);
}""")
    np.testing.assert_array_equal(out, 3 * np.arange(64, dtype=np.float32))


def test_attributes_noexcept_alignas_and_if_constexpr_change_nothing_and_keep_columns():
    source = """
template <bool Square> __device__ float f(float x) noexcept {
    if constexpr (Square) { return x * x; } else { return x; }
}
__global__ void k(const float* in, float* out) {
    [[maybe_unused]] int unused = 0;
    alignas(16) float buf[4];
    buf[0] = in[threadIdx.x];
    if (threadIdx.x % 2 == 0) [[likely]] { out[threadIdx.x] = f<true>(buf[0]) + undefined_name; }
    else { out[threadIdx.x] = f<false>(buf[0]); }
}"""
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    assert (info.value.line, info.value.column) == (9, 81)  # columns kept past the blanked attribute
    out = _run(source.replace(" + undefined_name", ""))
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(out, np.where(np.arange(64) % 2 == 0, x * x, x))
