"""Struct templates: one struct per set of template arguments (``Pair<float>``), their static
members, conversion operators and ``operator[]``, and the errors C++ would give, named."""

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.errors import CompileError, KernelFault
from gpulab.simt.translate import compile_source

PAIR = """template <typename T>
struct Pair {
    T a, b;
    __device__ T sum() const { return a + b; }
};

template <unsigned int N>
struct Vec {
    float v[N];
};

extern "C" __global__ void pairs(float* out, int* iout) {
    float x = threadIdx.x;
    Pair<float> p{x, 1.5f};
    Pair<int> q{2, (int)threadIdx.x};
    Vec<3> three;
    Vec<5> five;
    out[threadIdx.x] = p.sum();
    iout[threadIdx.x] = q.sum() + sizeof(three) + 100 * sizeof(five);
}
"""

# A constructor, an operator, a typedef of an instance; the template's own name inside it.
COMPLEX = """template <typename T>
struct Cplx {
    T re, im;
    __device__ Cplx(T r, T i) : re(r), im(i) {}
    __device__ Cplx operator*(const Cplx& o) const { return Cplx(re * o.re - im * o.im, re * o.im + im * o.re); }
    __device__ T norm2() const { return re * re + im * im; }
};
typedef Cplx<double> zd;

extern "C" __global__ void square(const double* x, double* out) {
    int i = threadIdx.x;
    zd z(x[i], 1.0);
    zd w = z * z;
    out[i] = w.re + 10.0 * w.im + 100.0 * Cplx<float>(1.0f, 2.0f).norm2();
}
"""

# Static constexpr members sizing an array, static member functions, T::size, operator[].
PACKED = """template <class E>
struct alignas(16) Packed {
    Packed() = default;
    __device__ static Packed constant(E value) {
        Packed r;
        for (int k = 0; k < size; ++k) r.payload[k] = value;
        return r;
    }
    __device__ E& operator[](int index) { return payload[index]; }
    __device__ const E& operator[](int index) const { return payload[index]; }
    static constexpr int size = sizeof(int4) / sizeof(E);
    E payload[size];
};

template <class P>
__device__ int lanes_of() { return P::size; }

extern "C" __global__ void fill(float* out, double* dout, int* sizes) {
    Packed<float> f = Packed<float>::constant(2.0f);
    Packed<double> d = Packed<double>::constant(0.5);
    int k = threadIdx.x % 4;
    f[k] = f[k] + threadIdx.x;
    out[threadIdx.x] = f[k] + f[(k + 1) % f.size];
    dout[threadIdx.x] = d[threadIdx.x % 2];
    sizes[threadIdx.x] = Packed<float>::size * 10 + lanes_of<Packed<double> >();
}
"""

SHARED = """template <class T>
struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T>
__global__ void reverse(T *out) {
    T *s = SharedMemory<T>();
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
template __global__ void reverse<double>(double *out);
"""


ACC = """template <typename T>
class Acc {
public:
    __device__ Acc() : total(0) {}
    __device__ void add(T v) { total += v; }
    __device__ T get() const { return total; }
private:
    T total;
};

extern "C" __global__ void acc(float* o, int* io) {
    Acc<float> a;
    a.add(1.5f);
    a.add(threadIdx.x);
    Acc<int> b;
    b.add(7);
    o[threadIdx.x] = a.get();
    io[threadIdx.x] = b.get();
}
"""


def test_a_class_template_with_access_specifiers_is_a_struct_template():
    o, io = np.zeros(4, np.float32), np.zeros(4, np.int32)
    simt.launch(ACC, "acc", 1, 4, [o, io])
    np.testing.assert_array_equal(o, np.arange(4, dtype=np.float32) + 1.5)
    np.testing.assert_array_equal(io, np.full(4, 7))


def test_one_struct_per_template_argument_with_its_own_member_types():
    out, iout = np.zeros(32, np.float32), np.zeros(32, np.int32)
    simt.launch(PAIR, "pairs", 1, 32, [out, iout])
    np.testing.assert_array_equal(out, np.arange(32, dtype=np.float32) + 1.5)
    np.testing.assert_array_equal(iout, 2 + np.arange(32) + 12 + 2000)


def test_instances_are_named_as_cpp_prints_them():
    program = compile_source(PAIR)
    assert {"Pair<float>", "Pair<int>", "Vec<3>", "Vec<5>"} <= set(program.structs)
    assert "Pair<float>::sum" in program.functions and "Pair" not in program.structs


def test_constructors_operators_and_a_typedef_of_an_instance():
    x, out = np.arange(8, dtype=np.float64), np.zeros(8)
    simt.launch(COMPLEX, "square", 1, 8, [x, out])
    np.testing.assert_array_equal(out, x * x - 1 + 10 * 2 * x + 500)


def test_static_members_static_functions_and_operator_brackets():
    out, dout, sizes = np.zeros(32, np.float32), np.zeros(32), np.zeros(32, np.int32)
    simt.launch(PACKED, "fill", 1, 32, [out, dout, sizes])
    lane = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(out, (2 + lane) + 2)
    np.testing.assert_array_equal(dout, np.full(32, 0.5))
    np.testing.assert_array_equal(sizes, np.full(32, 42))


def test_a_conversion_operator_types_dynamic_shared_memory_per_instance():
    for name, dtype in (("reverse<float>", np.float32), ("reverse<double>", np.float64)):
        out = np.zeros(16, dtype)
        simt.launch(SHARED, name, 1, 16, [out], shared_mem=16 * np.dtype(dtype).itemsize)
        np.testing.assert_array_equal(out, np.arange(15, -1, -1, dtype=dtype))


def test_an_array_member_in_registers_takes_a_run_time_index_per_lane():
    src = ("struct Q { int v[4]; };\n"
           'extern "C" __global__ void k(int* o) {\n'
           "    Q q = {{10, 20, 30, 40}};\n"
           "    int i = threadIdx.x % 4;\n"
           "    q.v[i] += i;\n"
           "    o[threadIdx.x] = q.v[0] + q.v[1] + q.v[2] + q.v[3] + 1000 * q.v[3 - i];\n"
           "}\n")
    out = np.zeros(8, np.int32)
    simt.launch(src, "k", 1, 8, [out])
    lane = np.arange(8) % 4
    np.testing.assert_array_equal(out, 100 + lane + 1000 * np.array([40, 30, 20, 10])[lane])


def test_an_index_outside_an_array_member_in_registers_faults_with_its_line():
    src = ("struct Q { int v[4]; };\n"
           'extern "C" __global__ void k(int* o) {\n'
           "    Q q = {{1, 2, 3, 4}};\n"
           "    o[threadIdx.x] = q.v[threadIdx.x];\n"
           "}\n")
    with pytest.raises(KernelFault, match=r"line 4: index 4 is outside Q::v \(it has 4 elements\)"):
        simt.launch(src, "k", 1, 8, [np.zeros(8, np.int32)])


def test_an_explicit_instantiation_compiles_the_instance_and_its_members():
    program = compile_source("template <typename T> struct P { T x; __device__ T get() const { return x; } };\n"
                             "template struct P<double>;\n")
    assert "P<double>::get" in program.functions and program.structs["P<double>"].size == 8
    with pytest.raises(CompileError, match=r"'\.y' needs a struct, not a float"):
        compile_source("template <typename T> struct P { T x; __device__ T get() const { return x.y; } };\n"
                       "template struct P<float>;\n")


_K = 'extern "C" __global__ void k(float* o) { %s }\n'
_PAIR = "template <typename T> struct Pair { T a, b; __device__ T sum() const { return a + b; } };\n"
_VEC = "template <unsigned int N> struct Vec { float v[N]; };\n"


@pytest.mark.parametrize("source, construct, words", [
    (_PAIR + _K % "Pair<float, int> p{1, 2};", "template arguments",
     "Pair<typename T> takes 1 template argument, got 2"),
    (_PAIR + _K % "Pair<3> p{1, 2};", "template arguments", "'3' is not a type"),
    (_VEC + _K % "Vec<float> v;", "template arguments", "a value is needed, and 'float' is a type"),
    (_VEC + _K % "Vec<-1> v;", "template arguments", "-1 does not fit unsigned int"),
    (_PAIR + _K % "Pair p{1, 2};", "template arguments", "'Pair' is a struct template (template <typename T>): give"),
    (_PAIR + _K % "Pair<float> p{1, 2}; o[0] = p.c;", "member c", "struct Pair<float> has no member named 'c'"),
    (_PAIR + _K % "o[0] = Pair<float>::size;", "member size", "'size' is not a static member of Pair<float>"),
    (_PAIR + _K % "o[0] = Pair<float>::sum();", "static member function", "not a static member function"),
    ("template <typename T> struct W { T v; __device__ float x() const { return v.x; } };\n"
     + _K % "W<float2> a; W<float> b; o[0] = a.x() + b.x();", "member access", "'.x' needs a struct, not a float"),
    (_PAIR + "template <typename T> struct Pair<T*> { T* a; };\n", "partial specialization",
     "partial specialization of struct template 'Pair'"),
    ("template <typename T> struct Fwd;\n", "class template declaration", "declared without its definition"),
    ("struct B { int x; };\ntemplate <typename T> struct D : B { T y; };\n", "inheritance", "has a base class"),
    ("template <typename T> struct M { template <typename U> __device__ U f(U u) { return u; } };\n",
     "member template", "member templates"),
    ("template <typename T> struct S { static int count; };\n", "static data member", "without an initializer"),
    ("template <typename T> struct S { static T count = 0; };\n", "static data member", "is not const"),
    ("template <typename T> struct S { T v; };\n" + _K % "S<S<float>> s;", "nested template argument",
     "name it first"),
    ("template <typename T> union U { T v; };\n", "union template", "union templates"),
    ("struct Q { int x; };\ntemplate struct Q<float>;\n", "explicit instantiation", "'Q' is not a struct template"),
    ("namespace ns { template <class T> struct P { T x; }; }\n", "struct template in a namespace",
     "inside a namespace"),
    ("template <typename T> struct S { T v; __device__ S(const S& o) = default; };\n",
     "defaulted member function", "= default"),
])
def test_wrong_or_unsupported_struct_templates_are_named(source, construct, words):
    with pytest.raises(CompileError) as info:
        compile_source(source)
    assert info.value.construct == construct and words in str(info.value), str(info.value)
    assert info.value.line is not None


@pytest.mark.parametrize("source, names", [
    (PAIR, ()), (COMPLEX, ()), (PACKED, ()), (SHARED, ("reverse<float>",)), (ACC, ()),
])
def test_struct_template_sources_compile_with_nvrtc(source, names):
    from gpulab import nvrtc
    try:
        nvrtc.compile_cubin(source, "struct_templates.cu", "sm_80", name_expressions=names)
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))
