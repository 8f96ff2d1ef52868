"""Overloaded functions and kernels, ``auto`` return types, and constexpr locals as template arguments."""

import argparse
import re

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt import cli
from gpulab.simt import ctypes_ as ct
from gpulab.simt.errors import CompileError, SimtError
from gpulab.simt.overloads import CONVERSION, EXACT, PROMOTION, conversion_rank
from tests.gpulab.simt.nvrtc_check import compiles, rejects

_K = 'extern "C" __global__ void k(const float* in, float* out) {\n    int i = threadIdx.x;\n'


def _run(source, args=None, kernel="k"):
    args = args or [np.arange(32, dtype=np.float32), np.zeros(32, np.float32)]
    simt.launch(source, kernel, 1, 32, args)
    return args[-1]


def _error(source, kernel="k"):
    with pytest.raises(CompileError) as info:
        _run(source, kernel=kernel)
    return info.value


# --- overloaded functions --------------------------------------------------------------------

TWICE = """__device__ float twice(float x) { return 2.0f * x; }
__device__ int twice(int x) { return 3 * x; }
"""


def test_overloads_of_one_name_are_picked_by_the_argument_types():
    out = _run(TWICE + _K + "    out[i] = twice(in[i]) + twice(i);\n}\n")
    np.testing.assert_array_equal(out, 2 * np.arange(32) + 3 * np.arange(32))


def test_a_promotion_beats_a_conversion_and_an_exact_match_beats_both():
    source = """__device__ float f(int x) { return 1.0f; }
__device__ float f(double x) { return 2.0f; }
""" + _K + """    short s = 1; float v = in[i]; char c = 'a'; double d = v;
    out[i] = f(s) * 1000.0f + f(v) * 100.0f + f(c) * 10.0f + f(d);
}
"""
    np.testing.assert_array_equal(_run(source), np.full(32, 1000 + 200 + 10 + 2, np.float32))


# Which overload NVRTC picks (1 or 2, from static_assert(sizeof(f(...)) == N)) or None when it
# finds the call ambiguous or unmatched; the emulator must agree. A differential run of 590 such
# calls (every pair of arithmetic argument types and literals) agreed when these were written.
PICKS = [
    ("char f(int x); short f(float x);", "(short)1", 1),
    ("char f(int x); short f(float x);", "1.0", None),
    ("char f(int x); short f(double x);", "1.0f", 2),
    ("char f(float x); short f(double x);", "1", None),
    ("char f(int x); short f(unsigned int x);", "'a'", 1),
    ("char f(unsigned char x); short f(int x);", "true", 2),
    ("char f(int x, float y); short f(float x, int y);", "1, 1", None),
    ("char f(double x, int y); short f(float x, long long y);", "1.0f, 1", None),
    ("template <typename T> char f(T x, T y); short f(float x, float y);", "1, 'a'", 2),
    ("template <typename T> char f(T x, T y); short f(float x, float y);", "1.0f, 1.0f", 2),
    ("template <typename T> char f(T x, int y); short f(double x, double y);", "1.0, 2", 1),
    ("template <typename T> char f(T x, T y); template <typename T> short f(T* x, T y);", "p, 1.0f", 2),
]


@pytest.mark.parametrize("overloads, args, pick", PICKS)
def test_the_overload_picked_is_the_one_nvrtc_picks(overloads, args, pick):
    heads = [re.sub(r"^(template <[^>]*> )?", r"\1__device__ ", d.strip()) for d in overloads.split(";")[:2]]
    bodies = [f"{head} {{ return {k + 1}; }}" for k, head in enumerate(heads)]
    source = "\n".join(bodies) + '\nextern "C" __global__ void k(int* out, float* p) {\n' \
        f"    out[0] = f({args});\n}}\n"
    if pick is None:
        with pytest.raises(CompileError, match="instance of overloaded function 'f'"):
            simt.compile_source(source)
        return
    out = np.zeros(1, np.int32)
    simt.launch(source, "k", 1, 1, [out, np.zeros(1, np.float32)])
    assert out[0] == pick


def test_the_conversion_ranks_follow_cxx():
    assert conversion_rank(ct.FLOAT, ct.FLOAT) == EXACT
    assert conversion_rank(ct.SHORT, ct.INT) == PROMOTION and conversion_rank(ct.BOOL, ct.INT) == PROMOTION
    assert conversion_rank(ct.FLOAT, ct.DOUBLE) == PROMOTION
    assert conversion_rank(ct.INT, ct.FLOAT) == CONVERSION and conversion_rank(ct.DOUBLE, ct.FLOAT) == CONVERSION
    assert conversion_rank(ct.pointer_to(ct.FLOAT), ct.INT) is None
    assert conversion_rank(ct.pointer_to(ct.FLOAT), ct.pointer_to(ct.VOID)) == CONVERSION


def test_an_ambiguous_call_lists_the_candidates():
    source = """__device__ float f(float x) { return x; }
__device__ double f(double x) { return x; }
""" + _K + "    out[i] = f(i);\n}\n"
    error = _error(source)
    assert error.construct == "ambiguous call to f" and error.line == 5
    assert "more than one instance of overloaded function 'f'" in str(error)
    assert "(int)" in str(error) and "f(float)" in str(error) and "f(double)" in str(error)
    rejects(source)


@pytest.mark.parametrize("call", ["f(in)", "f(1, 2)", "f()"])
def test_a_call_no_overload_takes_lists_the_candidates(call):
    source = TWICE.replace("twice", "f") + _K + f"    out[i] = {call};\n}}\n"
    error = _error(source)
    assert error.construct == "no matching f" and "no instance of overloaded function 'f'" in str(error)
    assert "f(float); f(int)" in str(error)


def test_a_prototype_and_its_definition_are_one_overload():
    source = """__device__ float g(float x);
__device__ int g(int x);
""" + _K + """    out[i] = g(in[i]) + g(i);
}
__device__ float g(float v) { return v + 0.5f; }
__device__ int g(int v) { return -v; }
"""
    np.testing.assert_array_equal(_run(source), np.full(32, 0.5, np.float32))


def test_one_signature_defined_twice_is_still_an_error():
    source = TWICE + "__device__ float twice(float y) { return y; }\n" + _K + "}\n"
    error = _error(source)
    assert error.construct == "redefinition" and "defined twice" in str(error) and error.line == 3


def test_overloaded_function_templates_are_picked_by_arity():
    source = """template <typename T> __device__ T pick(T a) { return a; }
template <typename T> __device__ T pick(T a, T b) { return a > b ? a : b; }
""" + _K + "    out[i] = pick(in[i]) + pick(in[i], 10.0f) + (float)pick(i, 5);\n}\n"
    x = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(_run(source), x + np.maximum(x, 10) + np.maximum(np.arange(32), 5))
    compiles(source)


def test_a_non_template_wins_a_tie_and_loses_to_an_exact_template():
    source = """template <typename T> __device__ T pick(T a) { return a; }
__device__ float pick(float a) { return 100.0f * a; }
""" + _K + "    out[i] = pick(in[i]) + (float)pick(i);\n}\n"
    np.testing.assert_array_equal(_run(source), 100 * np.arange(32) + np.arange(32))
    compiles(source)


def test_reference_overloads_and_the_more_specialized_template():
    source = """__device__ void bump(float& x) { x += 1.0f; }
__device__ void bump(int& x) { x += 2; }
template <typename T> __device__ T load(const T* p) { return p[0]; }
template <typename T> __device__ T load(T v) { return 10 * v; }
""" + _K + """    float f = in[i];
    int j = i;
    bump(f);
    bump(j);
    out[i] = f + j + load(in + i) + load(in[i]);
}
"""
    x = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(_run(source), (x + 1) + (x + 2) + x + 10 * x)
    assert "bump(float&)" in simt.compile_source(source).functions
    compiles(source)


@pytest.mark.parametrize("second, construct", [
    ("__device__ int rd(float p) { return 2; }", "overload by return type"),
    ("__device__ float rd(const float p) { return p; }", "redefinition"),
])
def test_overloads_cxx_forbids_are_named(second, construct):
    source = "__device__ float rd(float p) { return p; }\n__device__ float rd(int p) { return 1; }\n" \
             + second + "\n" + _K + "}\n"
    error = _error(source)
    assert error.construct == construct and error.line == 3, str(error)
    rejects(source)


def test_overloads_that_differ_only_in_const_are_refused_by_name():
    source = "__device__ float rd(const float* p) { return p[0]; }\n" \
             "__device__ float rd(float* p) { return 2 * p[0]; }\n" + _K + "}\n"
    error = _error(source)
    assert error.construct == "overload by const" and error.line == 2
    compiles(source)  # C++ allows them; the emulator does not tell them apart


@pytest.mark.parametrize("source", [
    'extern "C" __device__ float h(float x) { return x; }\nextern "C" __device__ int h(int x) { return x; }\n',
    'extern "C" {\n__device__ float h(float x) { return x; }\n__device__ int h(int x) { return x; }\n}\n',
])
def test_extern_c_functions_cannot_be_overloaded(source):
    source += _K + "}\n"
    error = _error(source)
    assert error.construct == 'overloaded extern "C" function' and 'has "C" linkage' in str(error)
    rejects(source)


def test_overloads_with_default_arguments_are_refused_by_name():
    source = "__device__ float f(float x, float s = 2.0f) { return s * x; }\n" \
             "__device__ int f(int x) { return x; }\n" + _K + "}\n"
    assert _error(source).construct == "overload with defaults"


# --- overloaded kernels ----------------------------------------------------------------------

SCALE = """__global__ void scale(const float* in, float* out, float s) { out[threadIdx.x] = s * in[threadIdx.x]; }
__global__ void scale(const double* in, double* out, double s) { out[threadIdx.x] = 3.0 * s * in[threadIdx.x]; }
__global__ void scale(const int* in, int* out, int s) { out[threadIdx.x] = -s * in[threadIdx.x]; }
"""


@pytest.mark.parametrize("dtype, factor", [(np.float32, 2), (np.float64, 6), (np.int32, -2)])
def test_a_launch_picks_the_overloaded_kernel_its_argument_dtypes_select(dtype, factor):
    x = np.arange(32, dtype=dtype)
    out = np.zeros(32, dtype)
    simt.launch(SCALE, "scale", 1, 32, [x, out, 2 if dtype == np.int32 else 2.0])
    np.testing.assert_array_equal(out, factor * x)


def test_a_launch_matching_no_overload_or_several_is_refused_by_name():
    with pytest.raises(SimtError, match=r"no overload of kernel 'scale' takes \(int64 array, int64 array, int\)"):
        simt.launch(SCALE, "scale", 1, 32, [np.zeros(32, np.int64), np.zeros(32, np.int64), 1])
    source = """__global__ void k(float* out, int s) { out[threadIdx.x] = s; }
__global__ void k(float* out, unsigned int s) { out[threadIdx.x] = 2 * s; }
"""
    with pytest.raises(SimtError, match="matches more than one overload"):
        simt.launch(source, "k", 1, 32, [np.zeros(32, np.float32), 1])
    out = np.zeros(32, np.float32)
    simt.launch(source, "k", 1, 32, [out, np.uint32(3)])
    assert out[0] == 6
    compiles(source)


def test_a_signature_is_not_a_launch_name_as_cupy_has_no_such_name_expression():
    with pytest.raises(SimtError, match="launched by its name \\('scale'\\)"):
        simt.launch(SCALE, "scale(const float*, float*, float)", 1, 32, [np.zeros(32, np.float32)] * 2 + [1.0])
    rejects_name = "scale(const float*, float*, float)"
    from gpulab import nvrtc
    try:
        with pytest.raises(nvrtc.NvrtcCompileError):
            nvrtc.compile_cubin(SCALE, "scale.cu", "sm_80", name_expressions=(rejects_name,))
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("expression, factor", [
    ("(void(*)(const double*, double*, double))scale", 6),
    ("static_cast<void(*)(const int*, int*, int)>(scale)", -2),
])
def test_a_cast_name_expression_picks_the_overload_as_nvrtc_does_for_cupy(expression, factor):
    dtype = np.float64 if "double" in expression else np.int32
    x, out = np.arange(32, dtype=dtype), np.zeros(32, dtype)
    simt.launch(SCALE, expression, 1, 32, [x, out, 2])
    np.testing.assert_array_equal(out, factor * x)
    from gpulab import nvrtc
    try:
        nvrtc.compile_cubin(SCALE, "scale.cu", "sm_80", name_expressions=(expression,))
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))
    with pytest.raises(SimtError, match="names no kernel"):
        simt.launch(SCALE, "(void(*)(const char*, char*, char))scale", 1, 32, [x, out, 2])


def test_a_method_hides_an_overloaded_free_function_of_its_name():
    source = TWICE + """struct Acc {
    float v;
    __device__ float twice(float x) { return 10.0f * x; }
    __device__ void add(float x) { v += twice(x); }
};
""" + _K + "    Acc a;\n    a.v = 0.0f;\n    a.add(in[i]);\n    out[i] = a.v + twice(i);\n}\n"
    np.testing.assert_array_equal(_run(source), 10 * np.arange(32) + 3 * np.arange(32))
    compiles(source)


def test_emulate_runs_the_overloaded_kernel_the_arg_types_select(tmp_path, capsys):
    path = tmp_path / "scale.cu"
    path.write_text(SCALE)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    args = parser.parse_args(["emulate", str(path), "--kernel", "scale", "--grid", "1", "--block", "32",
                              "--arg", "float64[32]=ones", "--arg", "float64[32]", "--arg", "2.0", "--json"])
    assert args.func(args) == 0, capsys.readouterr().err
    args = parser.parse_args(["emulate", str(path), "--kernel", "scale", "--grid", "1", "--block", "32",
                              "--arg", "int8[32]", "--arg", "int8[32]", "--arg", "2"])
    assert args.func(args) == 1 and "no overload of kernel 'scale'" in capsys.readouterr().err


def test_a_name_expression_of_overloaded_template_kernels_is_ambiguous_as_in_nvrtc():
    source = """template <typename T> __global__ void fill(T* a) { a[threadIdx.x] = 1; }
template <typename T> __global__ void fill(T* a, T* b) { a[threadIdx.x] = 2; }
"""
    with pytest.raises(CompileError) as info:
        simt.launch(source, "fill<float>", 1, 32, [np.zeros(32, np.float32)])
    assert info.value.construct == "ambiguous name expression" and "more than one template" in str(info.value)
    from gpulab import nvrtc
    try:
        with pytest.raises(nvrtc.NvrtcCompileError):
            nvrtc.compile_cubin(source, "fill.cu", "sm_80", name_expressions=("fill<float>",))
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


def test_overloaded_kernels_compile_with_nvrtc():
    compiles(SCALE)


# --- auto return types -----------------------------------------------------------------------

def test_an_auto_return_type_is_deduced_from_the_return_statements():
    source = """__device__ auto halve(int v) { return v / 2; }
__device__ auto halve_f(float v) { return v / 2; }
__device__ auto is_big(float v) { return v > 10.0f; }
__device__ auto note(float* p) { p[0] = 1.0f; }
""" + _K + "    out[i] = halve(i) + halve_f(in[i]) + is_big(in[i]);\n}\n"
    x = np.arange(32)
    np.testing.assert_array_equal(_run(source), (x // 2 + x / 2 + (x > 10)).astype(np.float32))
    program = simt.compile_source(source)
    assert [str(program.functions[n].ret) for n in ("halve", "halve_f", "is_big", "note")] == \
        ["int", "float", "bool", "void"]
    compiles(source)


# The type NVRTC deduces (decltype checked with a static_assert) for ``return EXPR;`` in
# auto g(int v, float f, short s, char c, unsigned u, bool b) { const int cv = v; ... }
DEDUCED = [("v / 2", "int"), ("f * 2.0", "double"), ("v > 1", "bool"), ("s + s", "int"), ("'a'", "char"),
           ("1u + v", "unsigned int"), ("v ? 1 : 2.0f", "float"), ("cv", "int"), ("c", "char"),
           ("-c", "int"), ("b + b", "int"), ("f < 1.0f && v", "bool"), ("2ll * v", "long long")]


@pytest.mark.parametrize("expression, deduced", DEDUCED)
def test_the_deduced_return_type_is_the_one_nvrtc_deduces(expression, deduced):
    source = "__device__ auto g(int v, float f, short s, char c, unsigned u, bool b) {\n" \
             f"    const int cv = v;\n    return {expression};\n}}\n" \
             'extern "C" __global__ void k(float* o) { o[0] = g(1, 1.0f, 1, 1, 1u, true); }\n'
    assert str(simt.compile_source(source).functions["g"].ret) == deduced


def test_auto_function_templates_and_trailing_return_types():
    source = """template <typename T> __device__ auto halve(T v) { return v / 2; }
__device__ auto square(int v) -> float { return v * v; }
""" + _K + "    out[i] = halve(in[i]) + halve(i) + square(i) / 4;\n}\n"
    x = np.arange(32)
    np.testing.assert_array_equal(_run(source), (x / 2 + x // 2 + x * x / 4).astype(np.float32))
    assert str(simt.compile_source(source).functions["square"].ret) == "float"
    compiles(source)


def test_an_auto_function_may_recurse_after_a_return_has_deduced_its_type():
    source = "__device__ auto tri(int n) { if (n <= 0) return 0; return n + tri(n - 1); }\n" + _K \
        + "    out[i] = tri(i % 5);\n}\n"
    m = np.arange(32) % 5
    np.testing.assert_array_equal(_run(source), (m * (m + 1) // 2).astype(np.float32))
    compiles(source)


def test_a_trailing_return_type_of_a_template_is_its_instances_type():
    source = "template <typename T> __device__ auto twice(T v) -> float { return v * 2; }\n" + _K \
        + "    out[i] = twice(i) / 4;\n}\n"
    np.testing.assert_array_equal(_run(source), np.arange(32, dtype=np.float32) / 2)
    compiles(source)


@pytest.mark.parametrize("source, construct, words", [
    ("__device__ auto f(int n);\n" + _K + "    out[i] = f(i);\n}\n__device__ auto f(int n) { return n; }\n",
     "auto return type used before deduction", "before its return type is deduced"),
    ("__device__ auto f(int n) { if (n > 0) return f(n - 1); return 0; }\n" + _K + "}\n",
     "auto return type used before deduction", "before its return type is deduced"),
    ("__device__ auto f(int n) { if (n > 0) return 1.0; return 0.0f; }\n" + _K + "}\n",
     "conflicting auto return types", "deduced as double on line 1 but as float"),
])
def test_auto_return_types_are_refused_where_cxx_refuses_them(source, construct, words):
    error = _error(source)
    assert error.construct == construct and words in str(error), str(error)
    rejects(source)


# --- constexpr and const locals as template arguments ----------------------------------------

SCALE_T = "template <int N> __device__ float scaled(float x) { return N * x; }\n"


@pytest.mark.parametrize("declaration", ["constexpr int n = 4;", "const int n = 4;", "constexpr int n = 2 * 2;"])
def test_a_constant_local_is_a_template_argument_and_an_array_size(declaration):
    source = SCALE_T + _K + f"""    {declaration}
    float buf[n];
    for (int k = 0; k < n; ++k) buf[k] = in[i];
    out[i] = scaled<n>(buf[n - 1]);
}}
"""
    np.testing.assert_array_equal(_run(source), 4 * np.arange(32, dtype=np.float32))
    compiles(source)


def test_a_non_constant_local_as_a_template_argument_is_named():
    source = SCALE_T + _K + "    int n = i;\n    out[i] = scaled<n>(in[i]);\n}\n"
    error = _error(source)
    assert error.construct == "template arguments" and "'n' is not a constant expression" in str(error)
    assert error.line == 5
    rejects(source)


# --- constants as cooperative-groups tile sizes ----------------------------------------------

CG = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
CG_LOCAL = CG + """extern "C" __global__ void k(const float* in, float* out) {
    DECLARATION
    cg::thread_block block = cg::this_thread_block();
    TYPE tile = cg::tiled_partition<n>(block);
    out[threadIdx.x] = tile.shfl(in[threadIdx.x], 0) + tile.size();
}
"""
CG_FILE = CG + """constexpr int TILE = 8;
__device__ float leader(cg::thread_block_tile<TILE> t, float v) { return t.shfl(v, 0); }
template <int N> __device__ float first_of(float v) {
    auto t = cg::tiled_partition<N>(cg::this_thread_block());
    return t.shfl(v, 0);
}
extern "C" __global__ void k(const float* in, float* out) {
    cg::thread_block_tile<TILE> t = cg::tiled_partition<TILE>(cg::this_thread_block());
    constexpr int four = TILE / 2;
    out[threadIdx.x] = leader(t, in[threadIdx.x]) + first_of<four>(in[threadIdx.x]);
}
"""


def _cg_compiles(source, ok=True):
    from gpulab import nvrtc
    if not nvrtc.has_header("cooperative_groups.h"):
        pytest.skip("no CUDA toolkit headers (cooperative_groups.h) found for NVRTC")
    try:
        if ok:
            nvrtc.compile_cubin(source, "cg.cu", "sm_80", include_dirs=nvrtc.cuda_include_dirs())
        else:
            with pytest.raises(nvrtc.NvrtcCompileError):
                nvrtc.compile_cubin(source, "cg.cu", "sm_80", include_dirs=nvrtc.cuda_include_dirs())
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("declaration, type_", [("constexpr int n = 16;", "auto"),
                                                ("const int n = 16;", "cg::thread_block_tile<n>")])
def test_a_constant_local_is_a_tile_size(declaration, type_):
    source = CG_LOCAL.replace("DECLARATION", declaration).replace("TYPE", type_)
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    simt.launch(source, "k", 1, 64, [x, out])
    np.testing.assert_array_equal(out, x - x % 16 + 16)
    _cg_compiles(source)


def test_file_constants_and_template_parameters_are_tile_sizes():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    simt.launch(CG_FILE, "k", 1, 64, [x, out])
    np.testing.assert_array_equal(out, (x - x % 8) + (x - x % 4))
    _cg_compiles(CG_FILE)


def test_a_variable_tile_size_is_not_a_constant_expression():
    source = CG_LOCAL.replace("DECLARATION", "int n = 16;").replace("TYPE", "auto")
    with pytest.raises(CompileError) as info:
        simt.compile_source(source)
    assert "'n' is not a constant expression" in str(info.value) and info.value.line == 6
    _cg_compiles(source, ok=False)


def test_overloads_on_group_types_pick_the_exact_tile_and_convert_a_block_to_thread_group():
    source = CG + """__device__ float lead(cg::thread_block_tile<32> t, float v) { return t.shfl(v, 0); }
__device__ float lead(cg::thread_group g, float v) { return -1.0f; }
extern "C" __global__ void k(const float* in, float* out) {
    cg::thread_block b = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(b);
    auto quad = cg::tiled_partition<4>(b);
    out[threadIdx.x] = lead(warp, in[threadIdx.x]) + lead(b, 1.0f) + CALL;
}
"""
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    simt.launch(source.replace("CALL", "quad.size()"), "k", 1, 64, [x, out])
    np.testing.assert_array_equal(out, x - x % 32 - 1 + 4)
    _cg_compiles(source.replace("CALL", "quad.size()"))
    ambiguous = source.replace("CALL", "lead(quad, 1.0f)")  # CUDA converts a tile to both parameter types
    with pytest.raises(CompileError, match="more than one instance of overloaded function 'lead'"):
        simt.compile_source(ambiguous)
    _cg_compiles(ambiguous, ok=False)


def test_a_const_and_a_non_const_method_of_one_name_are_picked_by_the_objects_constness():
    source = """
struct V {
    float d[2];
    __device__ float get(int i) { return d[i]; }
    __device__ float get(int i) const { return d[i] + 100; }
};
__device__ float through_const(const V v) { return v.get(1); }
__global__ void k(const float* in, float* out) {
    V v;
    v.d[0] = in[threadIdx.x];
    v.d[1] = 1;
    out[threadIdx.x] = v.get(0) + through_const(v);
}"""
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    simt.launch(source, "k", 1, 32, [x, out])
    np.testing.assert_array_equal(out, x + 101)
