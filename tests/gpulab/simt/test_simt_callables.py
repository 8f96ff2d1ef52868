"""Function objects, function pointers and braced arguments (gpulab.simt.fnptr), run as C++ runs
them and refused by name where the emulator stops."""

import numpy as np
import pytest

from gpulab import simt

_ARANGE = np.arange(64, dtype=np.float32)


def _run(source: str, block: int = 64, entry: str = "k") -> np.ndarray:
    out = np.zeros(block, dtype=np.float32)
    simt.launch(source, entry, 1, block, [_ARANGE[:block].copy(), out])
    return out


def _refused(source: str) -> simt.CompileError:
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    return info.value


# ---------------------------------------------------------------------- function objects
def test_a_function_object_is_called_with_its_data_as_this():
    out = _run("""
struct Scale { float s; __device__ float operator()(float x) const { return s * x; } };
template <typename F> __device__ float apply(F f, float x) { return f(x); }
__global__ void k(const float* in, float* out) {
    Scale triple{3.0f};
    out[threadIdx.x] = apply(triple, in[threadIdx.x]) + Scale{0.5f}(in[threadIdx.x]);
}""")
    np.testing.assert_array_equal(out, 3 * _ARANGE + 0.5 * _ARANGE)


def test_a_non_const_call_operator_changes_its_object():
    out = _run("""
struct Counter { int n; __device__ int operator()() { return ++n; } };
__global__ void k(const float* in, float* out) {
    Counter c{int(in[threadIdx.x])};
    c();
    c();
    out[threadIdx.x] = c();
}""")
    np.testing.assert_array_equal(out, _ARANGE + 3)


def test_an_object_without_a_call_operator_is_refused_by_name():
    error = _refused("""
struct Plain { float s; };
__global__ void k(const float* in, float* out) { Plain p{1.0f}; out[0] = p(2.0f); }""")
    assert error.line == 3 and "operator()" in str(error)


def test_a_call_operator_outside_a_struct_is_refused_as_cpp_refuses_it():
    error = _refused("""
struct P { float s; };
__device__ float operator()(P p, float x) { return x; }
__global__ void k(float* out) {}""")
    assert error.line == 3 and "member" in str(error)


def test_cooperative_groups_operators_may_be_brace_initialised():
    out = _run("""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const float* in, float* out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    out[threadIdx.x] = cg::reduce(warp, in[threadIdx.x], cg::plus<float>{})
                     - cg::reduce(warp, in[threadIdx.x], cg::plus<float>());
}""")
    np.testing.assert_array_equal(out, np.zeros(64, np.float32))


# ---------------------------------------------------------------------- function pointers
_OPS = """
typedef float (*op_t)(float);
using binary_t = float (*)(float, float);
__device__ float square(float x) { return x * x; }
__device__ float negate(float x) { return -x; }
__device__ float add(float a, float b) { return a + b; }
"""


def test_lanes_calling_different_functions_through_one_pointer_each_get_their_own():
    out = _run(_OPS + """
__device__ float apply(op_t f, float x) { return f(x); }
__global__ void k(const float* in, float* out) {
    op_t f = (threadIdx.x % 3 == 0) ? square : negate;
    binary_t g = &add;
    out[threadIdx.x] = g(apply(f, in[threadIdx.x]), (*f)(2.0f));
}""")
    square = np.arange(64) % 3 == 0
    want = np.where(square, _ARANGE * _ARANGE + 4, -_ARANGE - 2)
    np.testing.assert_array_equal(out, want.astype(np.float32))


def test_function_pointers_compare_equal_to_the_function_they_point_to():
    out = _run(_OPS + """
__global__ void k(const float* in, float* out) {
    op_t f = (threadIdx.x < 10) ? square : negate;
    op_t none = nullptr;
    out[threadIdx.x] = (f == square) + 2 * (f != negate) + 4 * (none == 0) + 8 * (f ? 1 : 0);
}""")
    np.testing.assert_array_equal(out, np.where(np.arange(64) < 10, 15, 12).astype(np.float32))


def test_a_template_parameter_deduced_from_a_function_name_is_a_function_pointer():
    out = _run(_OPS + """
template <typename F> __device__ float twice(F f, float x) { return f(f(x)); }
__global__ void k(const float* in, float* out) { out[threadIdx.x] = twice(square, in[threadIdx.x]); }""")
    np.testing.assert_array_equal(out, _ARANGE ** 4)


def test_a_call_through_a_null_function_pointer_faults_at_its_line():
    with pytest.raises(simt.KernelFault, match=r"line 10: call through a null function pointer"):
        _run(_OPS + """
__global__ void k(const float* in, float* out) {
    op_t f = nullptr;
    out[threadIdx.x] = f(in[threadIdx.x]);
}""")


@pytest.mark.parametrize("body, line, words", [
    ("op_t f = add;", 8, "cannot convert float (*)(float, float) to float (*)(float)"),
    ("op_t f = square; float g = f;", 8, "cannot convert float (*)(float) to float"),
    ("op_t f = square; out[0] = f < negate;", 8, "only == and != compare"),
    ("float g = 1; out[0] = g(2.0f);", 8, "'g' is a float, not a function"),
    ("op_t f = square; out[0] = f(1.0f, 2.0f);", 8, "takes 1 arguments, not 2"),
    ("op_t table[2] = {square, negate};", 8, "arrays of pointers"),
])
def test_function_pointer_mistakes_are_refused_at_their_line(body, line, words):
    error = _refused(_OPS + "__global__ void k(const float* in, float* out) {\n    " + body + "\n}\n")
    assert error.line == line and words in str(error), str(error)


def test_a_pointer_to_a_function_of_structs_or_to_a_kernel_is_refused_by_name():
    error = _refused("""
struct P { float x; };
__device__ float get(P p) { return p.x; }
typedef float (*getter)(P);
__global__ void k(float* out) { getter g = get; }""")
    assert error.line == 5 and error.construct == "function pointer to a struct function"
    error = _refused("""
__global__ void other(float* out) {}
typedef void (*launcher)(float*);
__global__ void k(float* out) { launcher l = other; }""")
    assert error.line == 4 and error.construct == "pointer to a kernel"


def test_a_function_pointer_template_parameter_is_refused_with_what_to_write_instead():
    error = _refused("""
__device__ float square(float x) { return x * x; }
template <float (*F)(float)> __global__ void k(float* out) { out[0] = F(1.0f); }""")
    assert error.line == 3 and error.construct == "function pointer template parameter"
    assert "typename F" in str(error)


# ---------------------------------------------------------------------- braced lists
def test_braced_arguments_and_return_values_take_the_parameter_and_return_types():
    out = _run("""
struct Complex { float re, im; };
__device__ Complex conj(Complex z) { return {z.re, -z.im}; }
__device__ float im_of(Complex z) { return z.im; }
__device__ float norm2(float2 v) { return v.x * v.x + v.y * v.y; }
__device__ float twice(float x) { return 2 * x; }
__global__ void k(const float* in, float* out) {
    float x = in[threadIdx.x];
    out[threadIdx.x] = im_of(conj({1.0f, x})) + norm2({x, 1.0f}) + twice({x}) + twice({});
}""")
    x = _ARANGE
    np.testing.assert_array_equal(out, -x + (x * x + 1) + 2 * x)


def test_a_braced_list_whose_type_the_emulator_cannot_see_is_refused_by_name():
    error = _refused("""
__global__ void k(const float* in, float* out) { out[0] = fmaxf({1.0f}, 2.0f); }""")
    assert error.line == 2 and error.construct == "braced list"
    error = _refused("""
__device__ float twice(float x) { return 2 * x; }
__global__ void k(const float* in, float* out) { out[0] = twice({1.0f, 2.0f}); }""")
    assert error.line == 3 and "with 2 values for a float" in str(error)


def test_a_pointer_to_an_overloaded_function_is_the_overload_of_the_pointer_type():
    out = _run("""
typedef float (*op_t)(float);
typedef int (*iop_t)(int);
__device__ float twice(float x) { return 2 * x; }
__device__ int twice(int x) { return 3 * x; }
__device__ float apply(op_t f, float x) { return f(x); }
__global__ void k(const float* in, float* out) {
    op_t f = twice;
    iop_t g = &twice;
    auto h = apply;
    out[threadIdx.x] = f(in[threadIdx.x]) + g(1) + h(twice, 1.0f) + (f == twice);
}""")
    np.testing.assert_array_equal(out, 2 * _ARANGE + 6)


@pytest.mark.parametrize("body, words", [
    ("float v = twice;", "'twice' names overloaded functions"),
    ("double (*h)(double) = twice;", "no overload of 'twice' has the type double (*)(double)"),
    ("auto f = twice;", "'twice' names overloaded functions"),
])
def test_an_overloaded_name_without_a_pointer_type_to_pick_by_is_refused(body, words):
    error = _refused("""
__device__ float twice(float x) { return 2 * x; }
__device__ int twice(int x) { return 3 * x; }
__global__ void k(const float* in, float* out) {
    """ + body + "\n}\n")
    assert error.line == 5 and words in str(error), str(error)
