"""User structs in the emulator: C layout, values, pointers, member functions, operators.

Every kernel that runs here is also compiled by NVRTC, so the emulator never accepts what
CUDA rejects.
"""

import numpy as np
import pytest

from gpulab import simt
from tests.gpulab.simt.nvrtc_check import compiles


def _nvrtc_accepts(source: str) -> None:
    compiles(source, "structs.cu")


def _run(source: str, kernel: str, grid, block, args, **kw):
    _nvrtc_accepts(source)
    return simt.launch(source, kernel, grid, block, args, **kw)


COMPLEX = r"""
struct Complex {
    float re, im;
    __device__ Complex() {}
    __device__ Complex(float r, float i = 0.0f) : re(r), im(i) {}
    __device__ Complex operator+(const Complex& o) const { return Complex(re + o.re, im + o.im); }
    __device__ Complex operator-() const { return Complex(-re, -im); }
    __device__ Complex& operator+=(const Complex& o) { re += o.re; im += o.im; return *this; }
    __device__ float norm() const { return re * re + im * im; }
    __device__ void scale(float s) { re *= s; this->im *= s; }
};
__device__ Complex operator*(Complex a, Complex b) {
    return Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
__device__ Complex operator*(Complex a, float s) { return Complex(a.re * s, a.im * s); }
__device__ Complex operator*(float s, Complex a) { return Complex(s * a.re, -s * a.im); }
"""


def _complex(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)


def test_complex_multiply_add_matches_numpy_complex64():
    src = COMPLEX + r"""
    extern "C" __global__ void axpy(const Complex* x, const Complex* y, Complex* out, Complex a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = a * x[i] + y[i];
    }"""
    x, y = _complex(100, 0), _complex(100, 1)
    out = np.zeros(100, np.complex64)
    a = np.complex64(0.5 - 2j)
    _run(src, "axpy", 4, 32, [x, y, out, (a.real, a.imag), 100])
    # float32 products, summed as the struct's code does (no fused multiply-add)
    re = (a.real * x.real - a.imag * x.imag).astype(np.float32) + y.real
    im = (a.real * x.imag + a.imag * x.real).astype(np.float32) + y.imag
    np.testing.assert_array_equal(out, (re + 1j * im).astype(np.complex64))
    np.testing.assert_allclose(out, a * x + y, rtol=1e-5, atol=1e-6)


def test_operator_overloading_resolves_by_operand_types():
    src = COMPLEX + r"""
    extern "C" __global__ void k(const Complex* z, Complex* out) {
        int t = threadIdx.x;
        Complex v = z[t];
        out[3 * t] = v * v;          // Complex * Complex
        out[3 * t + 1] = v * 2.0f;   // Complex * float
        out[3 * t + 2] = 2.0f * v;   // float * Complex (conjugates, to tell them apart)
    }"""
    z = _complex(8, 2)
    out = np.zeros(24, np.complex64)
    _run(src, "k", 1, 8, [z, out])
    np.testing.assert_allclose(out[0::3], z * z, rtol=1e-6)
    np.testing.assert_array_equal(out[1::3], z * np.float32(2))
    np.testing.assert_array_equal(out[2::3], np.conj(z) * np.float32(2))


def test_no_operator_for_the_operand_types_is_a_named_compile_error():
    src = COMPLEX + r"""
    extern "C" __global__ void k(Complex* z) { z[0] = z[0] - z[1]; }"""
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 1, [np.zeros(2, np.complex64)])
    assert info.value.construct == "operator-" and "Complex and Complex" in str(info.value)
    assert info.value.line == src.count("\n", 0, src.index("z[0] - z[1]")) + 1


def test_struct_assignment_is_a_copy():
    src = COMPLEX + r"""
    extern "C" __global__ void k(Complex* z, float* out) {
        int t = threadIdx.x;
        Complex a(t, 1.0f);
        Complex b = a;        // register copy
        b.re = 100.0f;
        Complex c = z[t];     // memory copy
        z[t].re = -5.0f;
        z[t + 8] = c;         // memory to memory
        c.im = 7.0f;
        out[t] = a.re + b.re * 10.0f + c.re * 1000.0f + c.im * 10000.0f;
    }"""
    z = np.zeros(16, np.complex64)
    z[:8] = np.arange(8) + 3j
    orig = z[:8].copy()
    out = np.zeros(8, np.float32)
    _run(src, "k", 1, 8, [z, out])
    t = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(out, t + 1000 + orig.real * 1000 + 70000)
    np.testing.assert_array_equal(z[:8], -5 + 3j)
    np.testing.assert_array_equal(z[8:], orig)


def test_non_const_methods_and_compound_operators_update_their_object():
    src = COMPLEX + r"""
    extern "C" __global__ void k(Complex* z, float* norms) {
        int t = threadIdx.x;
        Complex acc(0.0f);
        for (int j = 0; j <= t % 4; ++j) acc += Complex(j, 1.0f);
        if (t % 2) acc.scale(10.0f);      // divergent: only odd lanes change
        z[t].scale(0.5f);                 // through memory
        acc += -z[t];
        norms[t] = acc.norm();
        z[t + 8] = acc;
    }"""
    z = np.zeros(16, np.complex64)
    z[:8] = _complex(8, 4)
    orig = z[:8].copy()
    norms = np.zeros(8, np.float32)
    _run(src, "k", 1, 8, [z, norms])
    t = np.arange(8)
    acc = np.array([sum(range(k % 4 + 1)) + 1j * (k % 4 + 1) for k in t], np.complex64)
    acc = np.where(t % 2 == 1, acc * np.float32(10), acc)
    np.testing.assert_array_equal(z[:8], orig * np.float32(0.5))
    acc = (acc - z[:8]).astype(np.complex64)
    np.testing.assert_array_equal(z[8:], acc)
    np.testing.assert_allclose(norms, np.abs(acc) ** 2, rtol=1e-6)


def test_device_functions_take_and_return_structs_with_divergent_returns():
    src = r"""
    struct Range { int lo, hi; };
    __device__ Range clamp_range(Range r, int limit) {
        if (r.hi > limit) { Range c = {r.lo, limit}; return c; }
        if (r.lo < 0) return Range{0, r.hi};
        return r;
    }
    extern "C" __global__ void k(int* out) {
        int t = threadIdx.x;
        Range r = {t - 4, t * 3};
        Range c = clamp_range(r, 40);
        out[2 * t] = c.lo;
        out[2 * t + 1] = c.hi;
    }"""
    out = np.zeros(64, np.int32)
    _run(src, "k", 1, 32, [out])
    t = np.arange(32)
    lo, hi = t - 4, t * 3
    ref_lo = np.where(hi > 40, lo, np.where(lo < 0, 0, lo))
    ref_hi = np.where(hi > 40, 40, hi)
    np.testing.assert_array_equal(out[0::2], ref_lo)
    np.testing.assert_array_equal(out[1::2], ref_hi)


def test_sizeof_and_numpy_layout_follow_c_padding_rules():
    src = r"""
    struct Mixed { char c; double d; int i; };
    struct Outer { short s; Mixed m; float3 v; char tail; };
    static_assert(sizeof(Mixed) == 24 && sizeof(Outer) == 48, "C layout");
    extern "C" __global__ void k(unsigned long long* out, Outer* o) {
        out[0] = sizeof(Mixed);
        out[1] = sizeof(Outer);
        out[2] = sizeof(o->v);
        o[1].m.d = o[0].m.d + o[0].m.c + o[0].tail;
        o[1].v.y = o[0].v.z;
    }"""
    _nvrtc_accepts(src)
    emulated = src.replace(src[src.index("static_assert"):src.index("extern")], "")
    dt = simt.struct_dtype(emulated, "Outer")
    mixed = np.dtype([("c", "i1"), ("d", "f8"), ("i", "i4")], align=True)
    assert dt.itemsize == 48 and dt.fields["m"][1] == 8 and dt.fields["v"][1] == 32
    assert simt.struct_dtype(emulated, "Mixed") == mixed
    out = np.zeros(3, np.uint64)
    o = np.zeros(2, dt)
    o[0]["m"]["d"], o[0]["m"]["c"], o[0]["tail"], o[0]["v"]["z"] = 1.5, 3, -2, 9.0
    simt.launch(emulated, "k", 1, 1, [out, o])
    np.testing.assert_array_equal(out, [24, 48, 12])
    assert o[1]["m"]["d"] == 2.5 and o[1]["v"]["y"] == 9.0


def test_a_pointer_to_a_struct_needs_an_array_with_its_layout():
    src = r"""
    struct P { float x; int n; };
    extern "C" __global__ void k(P* p) { p[threadIdx.x].n += 1; }"""
    _nvrtc_accepts(src)
    with pytest.raises(simt.SimtError) as info:
        simt.launch(src, "k", 1, 2, [np.zeros(4, np.float32)])
    text = str(info.value)
    assert "argument 0 (P* p)" in text and "x float32 at byte 0, n int32 at byte 4" in text
    wrong_names = np.zeros(2, np.dtype([("a", "f4"), ("b", "i4")]))
    with pytest.raises(simt.SimtError, match="layout of P"):
        simt.launch(src, "k", 1, 2, [wrong_names])
    good = np.zeros(2, simt.struct_dtype(src, "P"))
    simt.launch(src, "k", 1, 2, [good])
    np.testing.assert_array_equal(good["n"], [1, 1])


def test_structs_pass_by_value_to_kernels_as_tuples_or_structured_scalars():
    src = r"""
    struct Affine { float a, b; int shift; };
    extern "C" __global__ void k(Affine f, float* x) {
        int t = threadIdx.x;
        x[t] = f.a * x[t] + f.b + (t << f.shift);
    }"""
    x = np.arange(8, dtype=np.float32)
    _run(src, "k", 1, 8, [(2.0, 1.0, 1), x])
    np.testing.assert_array_equal(x, 2 * np.arange(8) + 1 + 2 * np.arange(8))
    scalar = np.zeros((), simt.struct_dtype(src, "Affine"))[()]
    scalar["a"], scalar["b"], scalar["shift"] = 1.0, -1.0, 0
    y = np.ones(8, np.float32)
    simt.launch(src, "k", 1, 8, [scalar, y])
    np.testing.assert_array_equal(y, np.arange(8))
    with pytest.raises(simt.SimtError, match=r"argument 0 \(Affine f\): expected a tuple"):
        simt.launch(src, "k", 1, 8, [(1.0, 2.0), y])


def test_aos_and_soa_give_the_same_sums_but_aos_touches_more_sectors():
    aos = r"""
    struct Particle { float x, y, z; };
    extern "C" __global__ void k(const Particle* p, float* out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = p[i].x + p[i].y + p[i].z;
    }"""
    soa = r"""
    extern "C" __global__ void k(const float* x, const float* y, const float* z, float* out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = x[i] + y[i] + z[i];
    }"""
    rng = np.random.default_rng(5)
    xyz = rng.random((3, 128)).astype(np.float32)
    particles = np.zeros(128, simt.struct_dtype(aos, "Particle"))
    particles["x"], particles["y"], particles["z"] = xyz
    out_aos, out_soa = np.zeros(128, np.float32), np.zeros(128, np.float32)
    r_aos = _run(aos, "k", 4, 32, [particles, out_aos])
    r_soa = _run(soa, "k", 4, 32, [*xyz, out_soa])
    np.testing.assert_array_equal(out_aos, out_soa)
    assert r_aos.metrics["gld_requests"] == r_soa.metrics["gld_requests"] == 12
    # each AoS load spans 32 lanes x 12 bytes = 384 bytes (12 sectors); SoA 128 bytes (4)
    assert r_aos.metrics["gld_transactions"] == 3 * r_soa.metrics["gld_transactions"] == 3 * 48


def test_arrays_of_structs_in_shared_memory_reduce_per_block():
    src = r"""
    struct Stat { float sum; int count; };
    extern "C" __global__ void k(const float* x, Stat* out) {
        __shared__ Stat part[64];
        int t = threadIdx.x;
        float v = x[blockIdx.x * 64 + t];
        part[t].sum = v > 0.0f ? v : 0.0f;
        part[t].count = v > 0.0f;
        __syncthreads();
        for (int s = 32; s > 0; s >>= 1) {
            if (t < s) { part[t].sum += part[t + s].sum; part[t].count += part[t + s].count; }
            __syncthreads();
        }
        if (t == 0) out[blockIdx.x] = part[0];
    }"""
    x = np.random.default_rng(6).standard_normal(192).astype(np.float32)
    out = np.zeros(3, simt.struct_dtype(src, "Stat"))
    _run(src, "k", 3, 64, [x, out])
    blocks = x.reshape(3, 64)
    np.testing.assert_array_equal(out["count"], (blocks > 0).sum(axis=1))
    np.testing.assert_allclose(out["sum"], np.where(blocks > 0, blocks, 0).sum(axis=1), rtol=1e-5)


def test_member_arrays_nested_structs_and_local_struct_arrays():
    src = r"""
    struct Vec3 { float x, y, z; };
    typedef struct { Vec3 corner[2]; int id; } Box;
    extern "C" __global__ void k(Box* boxes, float* vol) {
        int t = threadIdx.x;
        Box* b = &boxes[t];
        Vec3 d = {b->corner[1].x - b->corner[0].x, b->corner[1].y - b->corner[0].y,
                  b->corner[1].z - b->corner[0].z};
        Vec3 pts[2];
        pts[t % 2] = d;
        pts[1 - t % 2] = b->corner[0];
        vol[t] = pts[t % 2].x * pts[t % 2].y * pts[t % 2].z + b->id + pts[1 - t % 2].x * 0.0f;
        b->corner[0] = d;
    }"""
    dt = simt.struct_dtype(src, "Box")
    boxes = np.zeros(16, dt)
    rng = np.random.default_rng(7)
    c = rng.random((16, 2, 3)).astype(np.float32)
    for axis, name in enumerate("xyz"):
        boxes["corner"][name] = c[:, :, axis]
    boxes["id"] = np.arange(16)
    vol = np.zeros(16, np.float32)
    _run(src, "k", 1, 16, [boxes, vol])
    d = c[:, 1] - c[:, 0]
    np.testing.assert_allclose(vol, d[:, 0] * d[:, 1] * d[:, 2] + np.arange(16), rtol=1e-6)
    np.testing.assert_array_equal(boxes["corner"]["x"][:, 0], d[:, 0])


def test_aggregate_initializers_braced_elided_and_partial():
    src = r"""
    struct In { int a, b; };
    struct Out { In first; int c; In second; };
    extern "C" __global__ void k(int* o) {
        Out p = {{1, 2}, 3, {4, 5}};
        Out q = {6, 7, 8, 9};          // brace elision
        Out r = {{10}};                // the rest is zero
        In s{11, 12};
        Out u = {s, 13, In{14, 15}};
        int* w = o + 12 * threadIdx.x;
        w[0] = p.first.b; w[1] = p.second.a; w[2] = q.first.a; w[3] = q.c; w[4] = q.second.a;
        w[5] = q.second.b; w[6] = r.first.a + r.first.b + r.c + r.second.b; w[7] = s.b;
        w[8] = u.first.a; w[9] = u.c; w[10] = u.second.b; w[11] = threadIdx.x > 0 ? p.c : q.c;
    }"""
    o = np.zeros(24, np.int32)
    _run(src, "k", 1, 2, [o])
    # q = {{6, 7}, 8, {9, 0}}: elided braces fill each member in turn
    lane = [2, 4, 6, 8, 9, 0, 10, 12, 11, 13, 15]
    np.testing.assert_array_equal(o, [*lane, 8, *lane, 3])


def test_ternary_and_comparison_operators_on_structs():
    src = r"""
    struct Key {
        int hi, lo;
        __device__ bool operator<(const Key& o) const { return hi < o.hi || (hi == o.hi && lo < o.lo); }
    };
    extern "C" __global__ void k(const Key* a, const Key* b, Key* smaller) {
        int t = threadIdx.x;
        Key x = a[t], y = b[t];
        smaller[t] = y < x ? y : x;
    }"""
    rng = np.random.default_rng(8)
    a = rng.integers(0, 3, (32, 2)).astype(np.int32)
    b = rng.integers(0, 3, (32, 2)).astype(np.int32)
    dt = simt.struct_dtype(src, "Key")
    out = np.zeros(32, dt)
    _run(src, "k", 1, 32, [a.view(dt).reshape(32), b.view(dt).reshape(32), out])
    less = (b[:, 0] < a[:, 0]) | ((b[:, 0] == a[:, 0]) & (b[:, 1] < a[:, 1]))
    ref = np.where(less[:, None], b, a)
    np.testing.assert_array_equal(out["hi"], ref[:, 0])
    np.testing.assert_array_equal(out["lo"], ref[:, 1])


def test_struct_members_appear_in_the_register_trace_by_name():
    src = COMPLEX + r"""
    extern "C" __global__ void k(float* out) {
        Complex c(threadIdx.x, 2.0f);
        out[threadIdx.x] = c.norm();
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, np.float32)], trace=True)
    regs = r.registers[0]
    last = regs.at(len(r.trace[0]) - 1)
    assert list(last["c.re"]) == list(np.arange(32, dtype=np.float32))
    assert list(last["c.im"]) == [2.0] * 32


def test_an_error_inside_a_member_function_points_at_its_line():
    src = r"""struct Complex {
    float re, im;
    __device__ float norm() const {
        return re * re + im * undefined_name;
    }
};
extern "C" __global__ void k(float* o) { Complex c = {1, 2}; o[0] = c.norm(); }"""
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 1, [np.zeros(1, np.float32)])
    assert info.value.line == 4 and info.value.construct == "undeclared name undefined_name"
    assert info.value.column == src.split("\n")[3].index("undefined_name") + 1


@pytest.mark.parametrize("code, construct", [
    ("struct P { float x; }; __device__ float f(P* p) { return p->y; }", "member y"),
    ("struct P { float x, y; }; __device__ void f(P* p) { P a(1, 2); p[0] = a; }",
     "constructor call"),
    ("struct P { float x; }; __device__ float f(float* p) { return p->x; }", "member access"),
    ("struct P { float x; }; __device__ float f(P* p) { return p[0]; }", "conversion"),
    ("struct P { static int n; float x; };", "static member"),
    ("struct P { float x; __device__ virtual float f() { return x; } };", "virtual"),
    ("struct P { float x; __device__ ~P() {} };", "destructor"),
    ("struct P { float x; __device__ float f() const; };", "member function defined outside its struct"),
    ("struct P { float x = 1; };", "default member initializer"),
    ("struct P { float x; } global_p;", "global variable"),
    ("struct Node { int v; Node* next; };", "self-referential struct"),
    ("struct P { float x; __device__ void f() const { x = 1; } };", "assignment to const"),
    ("struct P { float2 v[3]; }; __device__ float f(P* p) { P a = p[0]; return a.v[1].x; }",
     "array member of a register struct"),
    ("struct P { float x; __device__ P(float a) : x(a) {} }; __device__ void f() { __shared__ P s[4]; }",
     "no default constructor"),
    ("struct P { int x : 3; };", "bit-field"),
    ("struct P { float x; }; __device__ float operator float(P p) { return p.x; }", "conversion operator"),
])
def test_unsupported_struct_constructs_are_named_compile_errors(code, construct):
    src = code + '\nextern "C" __global__ void k(int* o) { }'
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(src)
    assert info.value.construct == construct
    assert info.value.line == 1


def test_a_file_scope_struct_is_not_called_a_global_variable():
    src = 'struct P { float x; };\nextern "C" __global__ void k(P* p) { p[0].x = 1; }'
    p = np.zeros(1, simt.struct_dtype(src, "P"))
    _run(src, "k", 1, 1, [p])
    assert p["x"][0] == 1.0


def test_a_struct_of_device_pointers_passes_by_value_with_arrays_for_its_pointers():
    src = r"""
    struct Bufs { const float* x; float* y; int n; };
    struct Stat { float sum; int count; };
    extern "C" __global__ void k(Bufs b, Stat* total) {
        __shared__ Stat s;
        int i = threadIdx.x;
        if (i == 0) { s.sum = 0.0f; s.count = 0; }
        __syncthreads();
        if (i < b.n) { b.y[i] = 2.0f * b.x[i]; atomicAdd(&s.count, 1); atomicAdd(&total->sum, b.x[i]); }
        __syncthreads();
        if (i == 0) total->count = s.count;
    }"""
    x, y = np.arange(40, dtype=np.float32), np.zeros(40, np.float32)
    total = np.zeros(1, simt.struct_dtype(src, "Stat"))
    _run(src, "k", 1, 64, [(x, y, 40), total])
    np.testing.assert_array_equal(y, 2 * x)
    assert (total["sum"][0], total["count"][0]) == (x.sum(), 40)
    with pytest.raises(simt.SimtError, match=r"argument 0 \(float\* b\.y\): expected a numpy float32"):
        simt.launch(src, "k", 1, 64, [(x, np.zeros(40, np.int32), 40), total])


def test_a_plain_struct_declared_in_a_namespace_is_a_type_there_and_outside():
    source = """
namespace geo { struct Q { float x, y; }; __device__ float sum(Q q) { return q.x + q.y; } }
__global__ void k(const float* in, float* out) {
    geo::Q q{in[threadIdx.x], 1.0f};
    out[threadIdx.x] = geo::sum(q);
}"""
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    simt.launch(source, "k", 1, 32, [x, out])
    np.testing.assert_array_equal(out, x + 1)


def test_a_typedef_of_an_unnamed_struct_in_a_namespace_names_the_type_not_its_first_member():
    source = """
namespace geo { typedef struct { float x; float y; } R; __device__ float sum(R q) { return q.x + q.y; } }
using namespace geo;
__global__ void k(const float* in, float* out) {
    R q{in[threadIdx.x], 2.0f};
    geo::R r{1.0f, 1.0f};
    out[threadIdx.x] = sum(q) + geo::sum(r);
}"""
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    simt.launch(source, "k", 1, 32, [x, out])
    np.testing.assert_array_equal(out, x + 4)
    compiles(source)
