"""Function templates, instantiated by the launch (``"reduce<256>"``), by calls and by explicit instantiations."""

import argparse

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt import cli
from gpulab.simt.errors import CompileError
from gpulab.simt.fused import fma32, fma64
from gpulab.simt.translate import compile_source

# The classic "reduce #6" of the CUDA samples: the block size is a template parameter, the
# last warp is unrolled in a template device function called with an explicit argument.
REDUCE = """template <unsigned int blockSize>
__device__ void warpReduce(volatile float* sdata, unsigned int tid) {
    if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
    if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
    if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
    if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
    if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
    if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

template <unsigned int blockSize>
__global__ void reduce(const float* g_idata, float* g_odata, unsigned int n) {
    __shared__ float sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    sdata[tid] = 0;
    while (i < n) {
        sdata[tid] += g_idata[i] + g_idata[i + blockSize];
        i += gridSize;
    }
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
    if (tid < 32) warpReduce<blockSize>(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
"""

# A type parameter, a value parameter with a default, a deduced device template.
AXPY = """template <typename T>
__device__ T clamp_to(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

template <typename T, int Unroll = 2>
__global__ void axpy_clamped(T a, const T* x, T* y, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
    for (int k = 0; k < Unroll; ++k) {
        int i = base + k;
        if (i < n) y[i] = clamp_to(a * x[i] + y[i], (T)-100, (T)100);
    }
}
"""

# Explicit instantiations and a bool parameter; size_t too.
FLAGS = """template <bool Square, size_t Offset>
__global__ void transform(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (Square ? x[i] * x[i] : -x[i]) + (int)Offset;
}
template __global__ void transform<true, 1>(int*, int);
template __global__ void transform<false, 0>(int*, int);
"""

# Explicit and deduced arguments together, and a file-scope constant as a template argument.
MIXED = """const int K = 3;
template <int Scale, typename T>
__device__ T scaled(T v) { return v * Scale; }

template <typename T>
__device__ T maxof(T a, T b) { return a > b ? a : b; }

extern "C" __global__ void mixed(const float* x, const int* y, float* out, int* iout) {
    int i = threadIdx.x;
    out[i] = maxof(scaled<K>(x[i]), x[i] + 1.0f);
    iout[i] = maxof(scaled<K, int>(y[i]), 0);
}
"""


BIG_TILES = """template <int N>
__global__ void stage(const float* x, float* out) {
    __shared__ float tile[N];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x] + N;
}
template __global__ void stage<8000>(const float*, float*);
template __global__ void stage<8192>(const float*, float*);
"""


def _reduce(block: int, n: int, blocks: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(seed).integers(0, 10, n).astype(np.float32)
    out = np.zeros(blocks, np.float32)
    simt.launch(REDUCE, f"reduce<{block}>", blocks, block, [x, out, np.uint32(n)])
    return x, out


@pytest.mark.parametrize("block", [64, 128, 256, 512])
def test_templated_reduction_sums_like_numpy_for_each_block_size(block):
    x, out = _reduce(block, 8192, 4)
    assert out.sum() == x.sum()  # integer values: float sums are exact in any order


def test_two_instances_of_one_template_in_one_program():
    program = compile_source(REDUCE, "kernel.cu", instantiate=("reduce<64>", "reduce<128>"))
    assert program.kernels == ["reduce<64>", "reduce<128>"]
    assert {"warpReduce<64>", "warpReduce<128>"} <= set(program.functions)
    source = REDUCE + "template __global__ void reduce<64>(const float*, float*, unsigned int);\n" \
        "template __global__ void reduce<128>(const float*, float*, unsigned int);\n"
    x = np.arange(4096, dtype=np.float32) % 13
    sums = []
    for name, block in (("reduce<64>", 64), ("reduce<128>", 128)):
        out = np.zeros(2, np.float32)
        simt.launch(source, name, 2, block, [x, out, np.uint32(4096)])
        sums.append(out.sum())
    assert sums == [x.sum(), x.sum()]


def test_the_instances_of_a_template_differ_by_their_arguments():
    for name in ("reduce<64>", "reduce<128>"):
        program = compile_source(REDUCE, "kernel.cu", instantiate=(name,))
        sdata = [m for m in program.memory if m.name == "sdata"]
        assert [m.count for m in sdata] == [int(name[7:-1])]


def test_a_type_parameter_gives_each_instance_its_arithmetic():
    x = np.linspace(-30, 30, 50)
    y0 = np.linspace(5, -5, 50)
    for T, name in ((np.float32, "axpy_clamped<float>"), (np.float64, "axpy_clamped<double>"),
                    (np.int32, "axpy_clamped<int, 4>")):
        xs, y = x.astype(T), y0.astype(T)
        a = T(3.3) if T is not np.int32 else T(3)
        fused = {np.float32: fma32, np.float64: fma64}.get(T)  # a * x + y: an fma in float and double
        expected = np.clip(fused(a, xs, y) if fused else a * xs + y, T(-100), T(100)).astype(T)
        simt.launch(AXPY, name, 1, 32, [a, xs, y, 50])
        np.testing.assert_array_equal(y, expected)


def test_explicit_instantiations_are_compiled_kernels():
    program = compile_source(FLAGS)
    assert program.kernels == ["transform<true, 1>", "transform<false, 0>"]
    x = np.arange(-4, 4, dtype=np.int32)
    simt.launch(FLAGS, "transform<true, 1>", 1, 8, [x, 8])
    np.testing.assert_array_equal(x, np.arange(-4, 4) ** 2 + 1)
    simt.launch(FLAGS, "transform<false,0>", 1, 8, [x, 8])
    np.testing.assert_array_equal(x, -(np.arange(-4, 4) ** 2 + 1))


def test_explicit_and_deduced_template_arguments_and_file_constants():
    x = np.array([0.5, -2.0, 1.0, 3.0] * 8, np.float32)
    y = np.array([1, -2, 0, 7] * 8, np.int32)
    out, iout = np.zeros(32, np.float32), np.zeros(32, np.int32)
    simt.launch(MIXED, "mixed", 1, 32, [x, y, out, iout])
    np.testing.assert_array_equal(out, np.maximum(x * np.float32(3), x + np.float32(1)))
    np.testing.assert_array_equal(iout, np.maximum(y * 3, 0))
    assert {"scaled<3, float>", "scaled<3, int>", "maxof<float>", "maxof<int>"} <= set(
        compile_source(MIXED).functions)


def test_launch_names_may_be_spelled_like_any_name_expression():
    x = np.arange(1024, dtype=np.float32)
    for name in ("reduce< 256 >", "reduce<256u>", "reduce<0x100>", " reduce<256>"):
        out = np.zeros(1, np.float32)
        simt.launch(REDUCE, name, 1, 256, [x, out, np.uint32(1024)])
        assert out[0] == x.sum()


def test_the_trace_of_an_instance_points_at_the_template_lines():
    x = np.ones(128, np.float32)
    r = simt.launch(REDUCE, "reduce<64>", 1, 64, [x, np.zeros(1, np.float32), np.uint32(128)], trace=True)
    lines = {s.line for s in r.trace[0]}
    assert {3, 8, 14, 26, 27} <= lines  # warpReduce's body, the kernel's body
    call = next(s for s in r.trace[0] if s.line == 26 and s.kind == "stmt")
    line = REDUCE.splitlines()[25]
    assert line[call.col_start - 1:call.col_end - 1] == "warpReduce<blockSize>(sdata, tid"  # site ends at the last name


def test_the_compile_cache_keys_on_the_requested_instances():
    a = compile_source(REDUCE, "kernel.cu", instantiate=("reduce<64>",))
    b = compile_source(REDUCE, "kernel.cu", instantiate=("reduce<128>",))
    assert a is not b and a is compile_source(REDUCE, "kernel.cu", instantiate=("reduce<64>",))
    assert compile_source(REDUCE).kernels == []


def _error(source, kernel, *args):
    with pytest.raises(CompileError) as info:
        simt.launch(source, kernel, 1, 32, list(args))
    return info.value


def test_a_template_kernel_launched_without_arguments_says_which_are_needed():
    err = _error(REDUCE, "reduce")
    assert "template <unsigned int blockSize>" in str(err) and "reduce<256>" in str(err)
    assert err.construct == "template arguments" and err.line == 11


@pytest.mark.parametrize("kernel, words", [
    ("reduce<float>", "a value is needed, and 'float' is a type"),
    ("reduce<64, 2>", "takes 1 template argument, got 2"),
    ("reduce<-1>", "-1 does not fit unsigned int"),
    ("reduce<2.5>", "a double value cannot be the argument"),
    ("reduce<n>", "'n' is not declared"),
    ("axpy_clamped<7>", "T is a type parameter (typename T), and '7' is not a type"),
    ("axpy_clamped<>", "give its template argument typename T"),
    ("clamp_to<float>", "__device__ template"),
    ("nothing<3>", "'nothing' is not a template"),
])
def test_wrong_template_arguments_are_named(kernel, words):
    source = REDUCE + AXPY
    err = _error(source, kernel)
    assert words in str(err), str(err)
    assert err.construct in ("template arguments", "template parameter")


@pytest.mark.parametrize("source, construct, words", [
    ("template <typename T> __device__ T maxof(T a, T b) { return a > b ? a : b; }\n"
     'extern "C" __global__ void k(float* o) { o[0] = maxof(1, 2.0f); }\n',
     "template argument deduction", "T is int from one argument but float"),
    ("template <typename T> __device__ T zero() { return 0; }\n"
     'extern "C" __global__ void k(float* o) { o[0] = zero(); }\n',
     "template arguments", "give its template argument typename T"),
    ("template <typename T> __device__ T first(T* p) { return p[0]; }\n"
     'extern "C" __global__ void k(float* o) { o[0] = first(o[1]); }\n',
     "template argument deduction", "a pointer is needed"),
    ("template <int N> __device__ int f() { return f<N + 1>(); }\n"
     'extern "C" __global__ void k(int* o) { o[0] = f<0>(); }\n',
     "template instantiation depth", "instantiate itself without end"),
    ("template <typename T> union Box { T v; };\n", "union template", "union templates"),
    ("template <> __global__ void k<int>(int* o) {}\n", "template specialization", "specializations"),
    ("template <typename... Ts> __global__ void k(Ts... a) {}\n", "variadic template", "variadic"),
    ("template <template <typename> class C> __global__ void k() {}\n", "template template parameter",
     "template template"),
    ("template <typename T> constexpr T pi = T(3);\n", "variable template", "variable templates"),
    ("template <float F> __global__ void k(float* o) { o[0] = F; }\ntemplate __global__ void k<1>(float*);\n",
     "template parameter", "only integer and bool value parameters"),
    ("template <typename T> __device__ T f(T a);\n"
     'extern "C" __global__ void k(float* o) { o[0] = f(o[1]); }\n',
     "template definition", "declared but never defined"),
])
def test_unsupported_or_wrong_templates_are_named(source, construct, words):
    with pytest.raises(CompileError) as info:
        compile_source(source)
    assert info.value.construct == construct and words in str(info.value), str(info.value)
    assert info.value.line is not None


def _main(argv):
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_emulate_launches_a_template_instance(tmp_path, capsys):
    path = tmp_path / "axpy.cu"
    path.write_text(AXPY)
    code = _main(["emulate", str(path), "--kernel", "axpy_clamped<float>", "--grid", "1", "--block", "32",
                  "--arg", "2.0", "--arg", "float32[64]=ones", "--arg", "float32[64]=ones", "--arg", "int=64",
                  "--json"])
    assert code == 0, capsys.readouterr().err
    code = _main(["emulate", str(path), "--kernel", "axpy_clamped", "--grid", "1", "--block", "32"])
    assert code == 1 and "give its template argument" in capsys.readouterr().err


@pytest.mark.parametrize("source, names", [
    (REDUCE, ("reduce<64>", "reduce<128>", "reduce<256>", "reduce<512>")),
    (AXPY, ("axpy_clamped<float>", "axpy_clamped<double>", "axpy_clamped<int, 4>")),
    (FLAGS, ()),
    (MIXED, ()),
    (BIG_TILES, ()),
])
def test_template_sources_compile_with_nvrtc(source, names):
    from gpulab import nvrtc
    try:
        nvrtc.compile_cubin(source, "templates.cu", "sm_80", name_expressions=names)
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("name", ["reduce<-1>", "reduce<float>", "reduce<64, 2>"])
def test_nvrtc_also_rejects_the_wrong_name_expressions(name):
    from gpulab import nvrtc
    try:
        with pytest.raises(nvrtc.NvrtcCompileError):
            nvrtc.compile_cubin(REDUCE, "templates.cu", "sm_80", name_expressions=(name,))
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


def test_instances_each_within_48_kib_of_shared_memory_compile_together():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    simt.launch(BIG_TILES, "stage<8192>", 1, 32, [x, out])
    np.testing.assert_array_equal(out, np.roll(x, -1) + 8192)
    with pytest.raises(CompileError, match="48 KiB"):
        compile_source(BIG_TILES.replace("tile[N]", "tile[2 * N]"))


NAMESPACED = r"""
namespace gemm {
template <int rowStrideA, typename T>
__device__ T scaled(T x) { return x * (T)rowStrideA; }
namespace detail {
template <int K> __device__ int plus(int x) { return x + K; }
}
}
using namespace gemm;
extern "C" __global__ void k(float* o, int* p) {
    int i = threadIdx.x;
    o[i] = gemm::scaled<4, float>((float)i) + scaled<2>(1.0f);
    p[i] = gemm::detail::plus<7>(i);
}
"""


def test_function_templates_in_a_namespace_keep_their_parameters_called_qualified_or_not():
    o, p = np.zeros(32, np.float32), np.zeros(32, np.int32)
    simt.launch(NAMESPACED, "k", 1, 32, [o, p])
    assert o.tolist() == [4.0 * i + 2.0 for i in range(32)]
    assert p.tolist() == [i + 7 for i in range(32)]
