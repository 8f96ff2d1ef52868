"""File-scope constants: ``const``, ``constexpr`` and ``static const`` scalars as compile-time constants."""

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.errors import CompileError

TILED = """const int TILE = 16;
constexpr int PAD = 1;
constexpr int WIDTH = TILE + PAD;
static const float SCALE = 0.5f;

extern "C" __global__ void transpose_scaled(const float* in, float* out, int n) {
    __shared__ float tile[TILE][WIDTH];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x] * SCALE;
    __syncthreads();
    int tx = blockIdx.y * TILE + threadIdx.x;
    int ty = blockIdx.x * TILE + threadIdx.y;
    if (tx < n && ty < n) out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
}
"""

CONVERSIONS = """const float TENTH = 0.1;
const double TENTH_D = 0.1;
const int TRUNCATED = 3.9;
const unsigned int ALL_ONES = 0xFFFFFFFF;
const unsigned int WRAPPED = ALL_ONES + 1;
const long long BIG = 1LL << 40;
constexpr bool YES = 2;
const char LETTER = 'A';

extern "C" __global__ void values(double* out) {
    out[0] = TENTH;
    out[1] = TENTH_D;
    out[2] = TRUNCATED;
    out[3] = ALL_ONES;
    out[4] = WRAPPED;
    out[5] = BIG;
    out[6] = YES;
    out[7] = LETTER;
    out[8] = sizeof(TRUNCATED) + sizeof(BIG);
    out[9] = ALL_ONES + 1u;
}
"""

SHADOWED = """const int N = 100;
__device__ int twice(int N) { return 2 * N; }
extern "C" __global__ void shadow(int* out) {
    out[0] = N;
    out[1] = twice(7);
    {
        int N = 5;
        out[2] = N;
    }
    out[3] = N;
}
"""


def test_file_constants_size_shared_arrays_and_scale_values():
    n = 40
    a = np.arange(n * n, dtype=np.float32).reshape(n, n)
    out = np.zeros((n, n), np.float32)
    simt.launch(TILED, "transpose_scaled", (3, 3), (16, 16), [a, out, n])
    np.testing.assert_array_equal(out, (a * np.float32(0.5)).T)


def test_file_constants_convert_to_their_declared_type_as_cuda_does():
    out = np.zeros(10)
    simt.launch(CONVERSIONS, "values", 1, 1, [out])
    expected = [np.float32(0.1), 0.1, 3, 2**32 - 1, 0, 2**40, 1, 65, 4 + 8, 0]
    np.testing.assert_array_equal(out, np.array(expected, dtype=np.float64))


def test_locals_and_parameters_shadow_file_constants():
    out = np.zeros(4, np.int32)
    simt.launch(SHADOWED, "shadow", 1, 1, [out])
    np.testing.assert_array_equal(out, [100, 14, 5, 100])


def test_file_constants_are_not_registers_in_the_trace():
    r = simt.launch(SHADOWED, "shadow", 1, 32, [np.zeros(4, np.int32)], trace=True)
    assert sorted(r.registers[0].variables) == ["N", "N", "out"]  # twice()'s parameter, out, the local


@pytest.mark.parametrize("body, construct", [
    ("N = 3;", "assignment to const"),
    ("N++;", "assignment to const"),
    ("N += 1;", "assignment to const"),
])
def test_assigning_to_a_file_constant_is_a_compile_error(body, construct):
    source = f'const int N = 8;\nextern "C" __global__ void k(int* o) {{\n    {body}\n}}\n'
    with pytest.raises(CompileError) as info:
        simt.compile_source(source)
    assert info.value.construct == construct and info.value.line == 3


@pytest.mark.parametrize("declaration, construct, words", [
    ("__device__ int counter;", "global variable", "global variables"),
    ("int counter = 0;", "global variable", "global variables"),
    ("const float W[3] = {1, 2, 3};", "file-scope const array", "const array 'W'"),
    ("const int N;", "file-scope constant", "needs an initializer"),
    ("const int N = 2;\nconst int N = 3;", "redeclaration", "already declared"),
    ("const int M = 4;\nconst int N = M / 0 + threadIdx.x;", "file-scope constant", "not a compile-time constant"),
    ("const float* P = 0;", "global variable", "global variables"),
])
def test_unsupported_file_scope_declarations_are_named(declaration, construct, words):
    source = f'{declaration}\nextern "C" __global__ void k(int* o) {{ o[0] = 1; }}\n'
    with pytest.raises(CompileError) as info:
        simt.compile_source(source)
    assert info.value.construct == construct and words in str(info.value)
    assert info.value.line == declaration.count("\n") + 1


def test_a_constant_array_size_must_still_be_positive():
    source = 'const int N = 0;\nextern "C" __global__ void k(int* o) { int a[N]; o[0] = 1; }\n'
    with pytest.raises(CompileError, match="positive integer constants"):
        simt.compile_source(source)


@pytest.mark.parametrize("source", [TILED, CONVERSIONS, SHADOWED])
def test_file_constant_sources_compile_with_nvrtc(source):
    from gpulab import nvrtc
    try:
        nvrtc.compile_cubin(source, "file_constants.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


def test_assigning_to_a_file_constant_is_also_rejected_by_nvrtc():
    from gpulab import nvrtc
    source = 'const int N = 8;\nextern "C" __global__ void k(int* o) {\n    N = 3;\n}\n'
    try:
        with pytest.raises(nvrtc.NvrtcCompileError):
            nvrtc.compile_cubin(source, "assign.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


LOCAL_SIZES = """extern "C" __global__ void rotate(float* o, int n) {
    constexpr int TILE = 16;
    const int COPIES = 2;
    const int offset = n;  // const, but not a constant expression
    __shared__ float tile[TILE * COPIES];
    float local[COPIES];
    local[1] = offset;
    tile[threadIdx.x] = threadIdx.x + local[1];
    __syncthreads();
    o[threadIdx.x] = tile[(threadIdx.x + 1) % (TILE * COPIES)];
}
"""


def test_const_and_constexpr_locals_size_shared_and_local_arrays_as_in_cuda():
    out = np.zeros(32, np.float32)
    simt.launch(LOCAL_SIZES, "rotate", 1, 32, [out, 100])
    assert np.array_equal(out, (np.arange(32) + 1) % 32 + 100)
    try:
        from gpulab import nvrtc
        nvrtc.compile_cubin(LOCAL_SIZES, "rotate.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


def test_a_const_local_that_is_not_a_constant_expression_cannot_size_an_array():
    source = LOCAL_SIZES.replace("float local[COPIES]", "float local[offset]")
    with pytest.raises(simt.CompileError, match="constant") as caught:
        simt.compile_source(source)
    assert caught.value.line == 6
    try:
        from gpulab import nvrtc
        with pytest.raises(nvrtc.NvrtcCompileError):
            nvrtc.compile_cubin(source, "rotate.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))
