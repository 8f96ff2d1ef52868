"""What real sample headers do with the preprocessor: #elif chains, function-like macros with
``#`` and ``##``, variadic macros, #undef, #pragma unroll, and compiler attributes.

Each kernel runs in the emulator against numpy and compiles with NVRTC.
"""

import numpy as np
import pytest

from gpulab.simt import CompileError, launch
from gpulab.simt.fused import fma32
from gpulab.simt.preprocess import preprocess
from gpulab.simt.translate import compile_source
from tests.gpulab.simt.nvrtc_check import compiles


def _nvrtc(source: str) -> None:
    compiles(source)


def _run_ints(source: str, n: int, kernel: str = "k") -> list[int]:
    out = np.zeros(n, np.int32)
    launch(source, kernel, 1, n, [out])
    return out.tolist()


def _body(text: str) -> str:
    return text.split("\n", 2)[2]


# ----------------------------------------------------------------------------- conditionals

ELIF_KERNEL = """\
#define ARCH {arch}
#if ARCH >= 90
#  define PATH 3
#elif ARCH >= 80
#  if defined(FAST) && FAST
#    define PATH 21
#  elif ARCH == 86
#    define PATH 22
#  else
#    define PATH 2
#  endif
#elif ARCH >= 70
#  define PATH 1
#else
#  define PATH 0
#endif
extern "C" __global__ void k(int* out) {{ out[threadIdx.x] = PATH; }}
"""


@pytest.mark.parametrize("arch, path", [(90, 3), (86, 22), (80, 2), (75, 1), (60, 0)])
def test_elif_chains_take_the_first_true_branch_only(arch, path):
    source = ELIF_KERNEL.format(arch=arch)
    assert _run_ints(source, 2) == [path, path]
    _nvrtc(source)


def test_elif_after_a_taken_branch_is_not_evaluated():
    # 1/0 would be an error if evaluated; C skips every #elif once a branch was taken
    assert "int kept;" in preprocess("#if 1\nint kept;\n#elif 1/0\nint no;\n#endif\n").text
    assert "int no" not in preprocess("#ifdef NOPE\n#if 1/0\n#elif 1/0\nint no;\n#endif\n#endif\n").text


def test_elif_inside_a_skipped_region_keeps_it_skipped():
    text = preprocess("#if 0\n#if 1\nint a;\n#elif 1\nint b;\n#else\nint c;\n#endif\n#elif 1\nint d;\n#endif\n").text
    assert "int d;" in text and not any(f"int {v};" in text for v in "abc")


@pytest.mark.parametrize("source, construct, line, words", [
    ("#elif 1\n", "#elif", 1, "#elif without #if"),
    ("#if 1\n#else\n#elif 1\n#endif\n", "#elif", 3, "#elif after #else"),
    ("#if 1\n#else\n#else\n#endif\n", "#else", 3, "#else after #else"),
    ("#if 0\n#elif 2 +\n#endif\n", "#if", 2, "cannot evaluate"),
    ("int a;\n#error needs sm_80 or newer\n", "#error", 2, "#error needs sm_80 or newer"),
])
def test_conditional_mistakes_name_the_directive_and_its_line(source, construct, line, words):
    with pytest.raises(CompileError) as info:
        preprocess(source)
    assert (info.value.construct, info.value.line) == (construct, line)
    assert words in str(info.value)


def test_undef_and_redefine():
    source = ("#define W 2\n#undef W\n#ifndef W\n#define W 5\n#endif\n#undef W\n#define W 7\n"
              'extern "C" __global__ void k(int* o) { o[0] = W; }\n')
    assert _run_ints(source, 1) == [7]
    _nvrtc(source)


# ----------------------------------------------------------------------------- function-like macros

MACRO_KERNEL = """\
#define SQR(x) ((x) * (x))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(v, lo, hi) MAX(lo, MAX(-(hi), -(v)) * -1)
#define IDX2(r, c, w) ((r) * (w) + (c))
#define FIELD(name) name##_v
#define DECLARE(name, init) int FIELD(name) = (init)
#define SUM(first, ...) (first + add(__VA_ARGS__))
#define CALL(f, ...) f(0, ##__VA_ARGS__)
__device__ int add(int a, int b) { return a + b; }
__device__ int one(int z) { return z + 1; }
__device__ int two(int z, int y) { return z + y + 2; }

extern "C" __global__ void k(int* out) {
    int t = threadIdx.x;
    DECLARE(sq, SQR(t - 3));
    DECLARE(cl, CLAMP(t * 3, 2, 11));
    out[IDX2(t, 0, 6)] = sq_v;
    out[IDX2(t, 1, 6)] = cl_v;
    out[IDX2(t, 2, 6)] = SQR(SQR(t));
    out[IDX2(t, 3, 6)] = SUM(t, t, 10);
    out[IDX2(t, 4, 6)] = CALL(one);
    out[IDX2(t, 5, 6)] = CALL(two, t);
}
"""


def test_function_like_macros_nest_paste_and_take_variadic_arguments():
    out = np.zeros(8 * 6, np.int32)
    launch(MACRO_KERNEL, "k", 1, 8, [out])
    t = np.arange(8)
    expected = np.stack([(t - 3) ** 2, np.clip(t * 3, 2, 11), t ** 4, 2 * t + 10,
                         np.ones(8, int), t + 2], axis=1)
    np.testing.assert_array_equal(out.reshape(8, 6), expected)
    _nvrtc(MACRO_KERNEL)


def test_stringize_makes_a_c_string_of_the_argument_as_written():
    text = _body(preprocess('#define STR(x) #x\n#define N 4\nconst char* s = STR( a  +  N "q\\n" );\n').text)
    assert 'const char* s = "a + N \\"q\\\\n\\"";' in text


def test_paste_joins_arguments_as_written_not_expanded():
    text = _body(preprocess("#define N 4\n#define CAT(a, b) a ## b\nint CAT(x, N) = CAT(1, 0);\n").text)
    assert "int xN = 10;" in text


def test_wrong_argument_counts_are_named():
    with pytest.raises(CompileError, match="macro SUM expects at least 2 arguments, got 1") as info:
        preprocess("#define SUM(first, second, ...) first\nint a = SUM(1);\n")
    assert info.value.line == 2 and info.value.construct == "macro call"
    with pytest.raises(CompileError, match="macro MAX expects 2 arguments, got 3"):
        preprocess("#define MAX(a, b) a\nint a = MAX(1, 2, 3);\n")


def test_named_variadic_parameters_are_refused_by_name():
    with pytest.raises(CompileError, match="named variadic") as info:
        preprocess("#define LOG(fmt, args...) fmt\n")
    assert info.value.construct == "#define"


def test_macro_expansion_keeps_columns_after_it():
    source = '#define SQR(x) ((x) * (x))\nextern "C" __global__ void k(int* o) { o[0] = SQR(2) + nope; }\n'
    with pytest.raises(CompileError) as info:
        compile_source(source)
    assert (info.value.line, info.value.column) == (2, source.split("\n")[1].index("nope") + 1)


# ----------------------------------------------------------------------------- pragmas and attributes

ATTRIBUTE_KERNEL = """\
#define THREADS 64
#define ALIGNED(n) __attribute__((aligned(n)))
__device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__device__ __noinline__ float plus_one(float v) { return v + 1.0f; }
static __device__ __attribute__((always_inline)) inline float half_of(float v) { return 0.5f * v; }

extern "C" __global__ void __launch_bounds__((THREADS), 2)
rotate_sum(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ __align__(16) float tile[THREADS];
    __shared__ float weights[4] ALIGNED(16);
    __shared__ float unused[2] __attribute__((
        aligned(8),
        unused));
    int t = threadIdx.x;
    tile[t] = in[t];
    if (t < 4) weights[t] = (float)(t + 1);
    __syncthreads();
    float acc = 0.0f;
    #pragma unroll
    for (int j = 0; j < 4; ++j) {
        #pragma unroll 2
        for (int r = 0; r < 2; ++r)
            acc += weights[j] * tile[(t + j + r) % THREADS];
    }
    _Pragma("unroll") for (int j = 0; j < 1; ++j) acc = plus_one(acc);
    out[t] = half_of(twice(acc));
}
"""


def test_attributes_launch_bounds_inline_hints_and_unroll_pragmas_change_nothing():
    x = np.random.default_rng(1).random(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    launch(ATTRIBUTE_KERNEL, "rotate_sum", 1, 64, [x, out])
    t = np.arange(64)
    acc = np.zeros(64, np.float32)
    for j in range(4):
        for r in range(2):
            acc = fma32(np.float32(j + 1), x[(t + j + r) % 64], acc)  # acc += w * x: one fma
    expected = np.float32(0.5) * (np.float32(2) * (acc + np.float32(1)))
    np.testing.assert_array_equal(out, expected)
    _nvrtc(ATTRIBUTE_KERNEL)


def test_blanked_attributes_keep_lines_and_the_columns_after_them():
    source = ('__device__ __attribute__((noinline)) int f(int v) { return v + nope; }\n')
    with pytest.raises(CompileError) as info:
        compile_source(source)
    assert (info.value.line, info.value.column) == (1, source.index("nope") + 1)
    lines = _body(preprocess(ATTRIBUTE_KERNEL).text).split("\n")
    assert len(lines) == len(ATTRIBUTE_KERNEL.split("\n")) + 1
    assert lines[11].split() == ["static", "float", "unused[2]"]
    assert lines[12].strip() == "" and lines[13].strip() == ";"


def test_an_unclosed_attribute_is_named():
    with pytest.raises(CompileError, match="__attribute__: unbalanced parentheses") as info:
        preprocess("int a;\n__device__ __attribute__((noinline int f();\n")
    assert info.value.line == 2 and info.value.construct == "__attribute__"
