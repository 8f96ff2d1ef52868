"""References to structs and CUDA vector types: ``float3 &a``, ``const float4 &b``, ``Complex &c``.

Each kernel runs in the emulator against a numpy reference and is compiled by NVRTC, so the
emulator never accepts what CUDA rejects; each rejected snippet is rejected by NVRTC too.
"""

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt.fused import fma32


def _nvrtc_compiles(source: str) -> bool:
    from gpulab import nvrtc
    try:
        nvrtc.compile_cubin(source, "struct_refs.cu", "sm_80")
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(str(exc))
    except Exception:  # NVRTC's compile error
        return False
    return True


def _run(source: str, kernel: str, grid, block, args, **kw):
    assert _nvrtc_compiles(source), "NVRTC rejects this kernel"
    return simt.launch(source, kernel, grid, block, args, **kw)


def test_reference_parameters_bound_to_registers_and_to_shared_and_global_memory():
    src = r"""
    __device__ void acc(float3 &a, const float4 &b) {
        a.x += b.x;
        a.y += b.y * b.w;
        a.z -= b.z;
    }
    __device__ void reset(float3 &a, float v) { a = make_float3(v, 2.0f * v, 3.0f * v); }
    __device__ void copy_out(const float3 &a, float *out) { out[0] = a.x; out[1] = a.y; out[2] = a.z; }

    extern "C" __global__ void k(const float *in, float *reg, float *mem) {
        __shared__ float4 tile[32];
        int t = threadIdx.x;
        tile[t] = make_float4(in[4 * t], in[4 * t + 1], in[4 * t + 2], in[4 * t + 3]);
        __syncthreads();
        float3 ai = make_float3(1.0f, 1.0f, 1.0f);
        acc(ai, tile[(t + 1) % 32]);          // register struct, shared float4 element
        float3 snapshot = ai;                  // whole-struct copy of the result
        acc(ai, tile[t]);
        copy_out(snapshot, reg + 6 * t);
        copy_out(ai, reg + 6 * t + 3);
        float3 *m = (float3 *)mem;
        reset(m[t], (float)t);                 // global float3 element, whole assignment
        acc(m[t], tile[t]);
    }"""
    rng = np.random.default_rng(1)
    v = rng.standard_normal((32, 4)).astype(np.float32)
    reg = np.zeros(32 * 6, np.float32)
    mem = np.zeros(32 * 3, np.float32)
    _run(src, "k", 1, 32, [v.ravel(), reg, mem])

    def acc(a, b):
        return np.stack([a[:, 0] + b[:, 0], fma32(b[:, 1], b[:, 3], a[:, 1]), a[:, 2] - b[:, 2]], 1)
    first = acc(np.ones((32, 3), np.float32), np.roll(v, -1, axis=0))
    second = acc(first, v)
    np.testing.assert_array_equal(reg.reshape(32, 6)[:, :3], first)
    np.testing.assert_array_equal(reg.reshape(32, 6)[:, 3:], second)
    t = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(mem.reshape(32, 3), acc(np.stack([t, 2 * t, 3 * t], 1), v))


def test_local_references_to_an_array_element_and_to_a_struct_variable():
    src = r"""
    struct Complex { float re, im; };
    extern "C" __global__ void k(float *v, float *out) {
        int t = threadIdx.x;
        float3 *arr = (float3 *)v;
        float3 &r = arr[t];
        r.y = 2;                       // a member store through the reference
        r.z += r.x;
        Complex z = {1.0f * t, -1.0f};
        Complex &c = z;
        c.im = c.re * 3.0f;            // changes z
        Complex &c2 = c;               // a reference to a reference: the same object
        c2.re += 0.5f;
        float &im = c2.im;             // a reference to a member reached through a reference
        im -= 1.0f;
        out[2 * t] = z.re;
        out[2 * t + 1] = z.im;
    }"""
    v = np.arange(96, dtype=np.float32)
    out = np.zeros(64, np.float32)
    _run(src, "k", 1, 32, [v, out])
    want = np.arange(96, dtype=np.float32).reshape(32, 3)
    want[:, 1] = 2
    want[:, 2] += want[:, 0]
    np.testing.assert_array_equal(v.reshape(32, 3), want)
    t = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(out[0::2], t + 0.5)
    np.testing.assert_array_equal(out[1::2], 3 * t - 1)


def test_a_const_reference_reads_the_current_value_after_writes_through_other_paths():
    src = r"""
    __device__ float sum_after_write(const float4 &a, float4 &b, float4 *p) {
        float before = a.x;            // a and b are the same object
        b.x = 10.0f;                   // a write through the other reference ...
        p->y = 20.0f;                  // ... and through a pointer
        return before + a.x + a.y;     // both seen through the const reference
    }
    extern "C" __global__ void k(float *v, float *out) {
        int t = threadIdx.x;
        float4 *arr = (float4 *)v;
        out[3 * t] = sum_after_write(arr[t], arr[t], &arr[t]);
        float4 r = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
        const float4 &cr = r;
        r.w = 40.0f;                   // a register struct changed after binding
        out[3 * t + 1] = cr.w;
        const float3 &tmp = make_float3(5.0f, 6.0f, 7.0f);   // bound to a temporary
        out[3 * t + 2] = tmp.y;
    }"""
    v = np.arange(4 * 32, dtype=np.float32)
    out = np.zeros(3 * 32, np.float32)
    _run(src, "k", 1, 32, [v.copy(), out])
    x = np.arange(32, dtype=np.float32) * 4
    np.testing.assert_array_equal(out[0::3], x + 10 + 20)
    np.testing.assert_array_equal(out[1::3], 40)
    np.testing.assert_array_equal(out[2::3], 6)


def test_two_references_to_one_struct_alias():
    src = r"""
    struct Acc { float sum; int n; };
    __device__ void add_both(Acc &a, Acc &b, float v) {
        a.sum += v;
        a.n += 1;
        b.sum *= 2.0f;                 // sees a's update when a and b are one object
        b.n += 10;
    }
    extern "C" __global__ void k(float *out, int *count) {
        int t = threadIdx.x;
        Acc x = {1.0f, 0};
        Acc y = {1.0f, 0};
        add_both(x, x, (float)t);      // aliased
        add_both(x, y, 1.0f);          // distinct
        out[2 * t] = x.sum;
        out[2 * t + 1] = y.sum;
        count[2 * t] = x.n;
        count[2 * t + 1] = y.n;
    }"""
    out = np.zeros(64, np.float32)
    count = np.zeros(64, np.int32)
    _run(src, "k", 1, 32, [out, count])
    t = np.arange(32, dtype=np.float32)
    aliased = (1 + t) * 2
    np.testing.assert_array_equal(out[0::2], aliased + 1)
    np.testing.assert_array_equal(out[1::2], 2)
    np.testing.assert_array_equal(count[0::2], 12)
    np.testing.assert_array_equal(count[1::2], 10)


def test_a_reference_to_a_shared_struct_is_seen_by_other_threads_after_syncthreads():
    src = r"""
    struct Stats { float lo, hi; };
    __device__ void widen(Stats &s, float v) {
        if (v < s.lo) s.lo = v;
        if (v > s.hi) s.hi = v;
    }
    extern "C" __global__ void k(const float *in, float *out) {
        __shared__ Stats s[2];
        int t = threadIdx.x;
        if (t < 2) s[t] = Stats{1e30f, -1e30f};
        __syncthreads();
        Stats &mine = s[t / 32];       // one struct per warp
        if (t % 32 == 0) {
            for (int i = 0; i < 32; ++i) widen(mine, in[t + i]);
        }
        __syncthreads();
        const Stats &other = s[1 - t / 32];   // the other warp's struct
        out[2 * t] = other.lo;
        out[2 * t + 1] = other.hi;
    }"""
    x = np.random.default_rng(2).standard_normal(64).astype(np.float32)
    out = np.zeros(128, np.float32)
    _run(src, "k", 1, 64, [x, out])
    lo = np.array([x[:32].min(), x[32:].min()])
    hi = np.array([x[:32].max(), x[32:].max()])
    warp = np.arange(64) // 32
    np.testing.assert_array_equal(out[0::2], lo[1 - warp])
    np.testing.assert_array_equal(out[1::2], hi[1 - warp])


def test_a_float4_reference_is_one_aligned_16_byte_access_and_a_misaligned_one_faults():
    src = r"""
    __device__ void scale(float4 &v, float s) { v = make_float4(v.x * s, v.y * s, v.z * s, v.w * s); }
    extern "C" __global__ void k(float *a, int shift) {
        float4 *p = (float4 *)(a + shift);
        float4 &v = p[threadIdx.x];
        float4 w = v;                  // one 16-byte load per lane
        scale(v, 2.0f);
        v.w = w.w;                     // a 4-byte store into the vector
    }"""
    a = np.arange(4 * 32 + 4, dtype=np.float32)
    r = _run(src, "k", 1, 32, [a, 0], trace=True)
    want = np.arange(4 * 32 + 4, dtype=np.float32)
    want[:128] *= 2
    want[3:128:4] /= 2
    np.testing.assert_array_equal(a, want)
    accesses = [(s.line, s.kind, s.itemsize) for s in r.trace[0] if s.kind in ("load", "store")]
    # w = v: one 16-byte load; scale reads v.x .. v.w (4 bytes each), stores v whole; v.w = ...
    assert accesses == [(6, "load", 16)] + [(2, "load", 4)] * 4 + [(2, "store", 16), (8, "store", 4)]
    assert (r.metrics["gld_requests"], r.metrics["gst_requests"]) == (5, 2)
    with pytest.raises(simt.KernelFault) as info:
        _run(src, "k", 1, 32, [np.zeros(4 * 32 + 4, np.float32), 1])
    assert "misaligned 16-byte load" in str(info.value) and info.value.buffer == "a"


def test_divergent_lanes_write_through_references_only_where_active():
    src = r"""
    __device__ void bump(float2 &p, float by) { p.x += by; p.y = -p.y; }
    extern "C" __global__ void k(float *v, float *reg_out) {
        int t = threadIdx.x;
        float2 *arr = (float2 *)v;
        float2 r = make_float2(1.0f * t, 1.0f);
        float2 &ref = r;
        if (t % 3 == 0) {
            bump(arr[t], 100.0f);
            bump(ref, 0.5f);
        } else if (t % 3 == 1) {
            ref = make_float2(-1.0f, -2.0f);
        }
        reg_out[2 * t] = r.x;
        reg_out[2 * t + 1] = r.y;
    }"""
    v = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    _run(src, "k", 1, 32, [v, out])
    t = np.arange(32)
    want = np.arange(64, dtype=np.float32).reshape(32, 2)
    want[t % 3 == 0, 0] += 100
    want[t % 3 == 0, 1] *= -1
    np.testing.assert_array_equal(v.reshape(32, 2), want)
    reg = np.stack([t.astype(np.float32), np.ones(32, np.float32)], 1)
    reg[t % 3 == 0, 0] += 0.5
    reg[t % 3 == 0, 1] = -1
    reg[t % 3 == 1] = (-1, -2)
    np.testing.assert_array_equal(out.reshape(32, 2), reg)


COMPLEX = r"""
struct Complex {
    float re, im;
    __device__ Complex() {}
    __device__ Complex(float r, float i) : re(r), im(i) {}
    __device__ void add_into(Complex &o) const { o.re += re; o.im += im; }
    __device__ void swap(Complex &o) { Complex t = o; o = *this; re = t.re; im = t.im; }
    __device__ void parts(float &r, float &i) const { r = re; i = im; }
    __device__ Complex& operator+=(const Complex &o) { re += o.re; im += o.im; return *this; }
};
"""


def test_non_const_reference_parameters_of_member_functions():
    src = COMPLEX + r"""
    extern "C" __global__ void k(Complex *z, float *out) {
        int t = threadIdx.x;
        Complex a(1.0f, 2.0f);
        a.add_into(z[t]);              // a member function writes a global struct
        Complex b(3.0f * t, 4.0f);
        a.swap(b);
        float r, i;
        b.parts(r, i);                 // scalar references to registers
        Complex &ref = a;
        ref += b;                      // operator through a reference
        out[4 * t] = r;
        out[4 * t + 1] = i;
        out[4 * t + 2] = a.re;
        out[4 * t + 3] = a.im;
    }"""
    z = (np.arange(32) + 1j * np.arange(32)).astype(np.complex64)
    out = np.zeros(128, np.float32)
    _run(src, "k", 1, 32, [z, out])
    t = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(z, (t + 1 + 1j * (t + 2)).astype(np.complex64))
    np.testing.assert_array_equal(out[0::4], 1)
    np.testing.assert_array_equal(out[1::4], 2)
    np.testing.assert_array_equal(out[2::4], 3 * t + 1)
    np.testing.assert_array_equal(out[3::4], 6)


_HEAD = 'struct P { float x, y; };\nextern "C" __global__ void k(P* ps, const P* cps) {\n'
_F = 'struct P { float x, y; };\n__device__ void f(P& p) { p.x = 1; }\n' \
     'extern "C" __global__ void k(P* ps, const P* cps) {\n'
REJECTED = [
    (_F + "    f(P{1, 2});\n}\n", 4, "reference to a temporary", "non-const reference"),
    (_F + "    const P c = {1, 2};\n    f(c);\n}\n", 5, "reference to const", "const"),
    (_HEAD + "    P& r = cps[0];\n}\n", 3, "reference to const", "const"),
    (_HEAD + "    const P& r = ps[0];\n    r.x = 1;\n}\n", 4, "assignment to const", "const"),
    (_HEAD + "    const P& r = ps[0];\n    float& x = r.x;\n}\n", 4, "assignment to const", "const"),
    (_HEAD + "    float2 v;\n    P& r = v;\n}\n", 4, "reference type mismatch", "P&"),
    ("struct Q { float v[2]; };\n__device__ float f(Q& q) { return q.v[0]; }\n"
     + _HEAD + "}\n", 2, "array member through a reference", "array member"),
]


@pytest.mark.parametrize("source, line, construct, words", REJECTED)
def test_misused_struct_references_are_named_with_their_line(source, line, construct, words):
    with pytest.raises(simt.CompileError) as info:
        simt.compile_source(source)
    error = info.value
    assert error.construct == construct and error.line == line
    assert words in str(error)
    if construct != "array member through a reference":  # CUDA accepts that one
        assert not _nvrtc_compiles(source), "NVRTC accepts what the emulator rejects"
