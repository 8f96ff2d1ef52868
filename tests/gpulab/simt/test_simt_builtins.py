"""Builtins: warp shuffles and votes, integer intrinsics, math, atomics, barriers."""

import numpy as np
import pytest

from gpulab import simt


def _lanes(body: str, n: int = 64, dtype=np.int32, params: str = "", args=()):
    ctype = {np.int32: "int", np.uint32: "unsigned int", np.float32: "float"}[dtype]
    src = f"""
    extern "C" __global__ void k({ctype}* out{params}) {{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        int lane = threadIdx.x % 32;
        {body}
    }}"""
    out = np.zeros(n, dtype=dtype)
    simt.launch(src, "k", 1, n, [out, *args])
    return out


def test_shfl_down_sync_implements_a_warp_sum_reduction():
    out = _lanes("int v = i; for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);"
                 " out[i] = v;")
    assert out[0] == sum(range(32)) and out[32] == sum(range(32, 64))
    assert out[31] == 31 * 32  # out-of-range lanes read their own value: v doubles 5 times


def test_shfl_xor_sync_butterfly_gives_every_lane_the_warp_max():
    out = _lanes("int v = (i * 37) % 101; for (int m = 16; m >= 1; m >>= 1)"
                 " v = max(v, __shfl_xor_sync(0xffffffff, v, m)); out[i] = v;")
    expected = [max((j * 37) % 101 for j in range(w * 32, w * 32 + 32)) for w in range(2)]
    assert out.tolist() == [expected[0]] * 32 + [expected[1]] * 32


def test_shfl_sync_broadcasts_and_respects_width_segments():
    out = _lanes("out[i] = __shfl_sync(0xffffffff, i * 10, 3, 8);")
    assert out.tolist() == [(i - i % 8 + 3) * 10 for i in range(64)]


def test_shfl_up_sync_keeps_own_value_below_delta():
    out = _lanes("out[i] = __shfl_up_sync(0xffffffff, i, 2);")
    assert out.tolist() == [i if i % 32 < 2 else i - 2 for i in range(64)]


def test_shuffle_with_partial_mask_among_the_named_lanes():
    body = ("if (lane < 16) { int v = lane + 100;"
            " out[i] = __shfl_xor_sync(0x0000ffff, v, 1); } else { out[i] = -1; }")
    out = _lanes(body, n=32)
    assert out.tolist() == [(lane ^ 1) + 100 for lane in range(16)] + [-1] * 16


def test_shuffle_by_lane_missing_from_mask_is_a_fault():
    with pytest.raises(simt.KernelFault, match="not named in the mask"):
        _lanes("out[i] = __shfl_sync(0x0000ffff, i, 0);", n=32)


def test_ballot_any_all_and_activemask_under_divergence():
    body = """
    unsigned int b = __ballot_sync(0xffffffff, lane % 3 == 0);
    if (lane < 20) {
        unsigned int act = __activemask();
        int a = __any_sync(act, lane == 19);
        int all = __all_sync(act, lane < 20);
        int none = __any_sync(act, lane > 25);
        out[i] = (act == 0xfffffu) + 2 * a + 4 * all + 8 * none + 16 * (b == 0x49249249u);
    } else { out[i] = 0; }"""
    out = _lanes(body, n=32, dtype=np.uint32)
    assert out.tolist() == [1 + 2 + 4 + 16] * 20 + [0] * 12


@pytest.mark.parametrize("fn, values, ref", [
    ("__popc", [0, 1, 0xFFFFFFFF, 0xF0F0], lambda x: bin(x).count("1")),
    ("__clz", [0, 1, 0x80000000, 0x00F00000], lambda x: 32 - x.bit_length()),
    ("__ffs", [0, 1, 0x80000000, 0x00F00000], lambda x: (x & -x).bit_length()),
])
def test_bit_intrinsics_match_python_reference(fn, values, ref):
    src = f"""
    extern "C" __global__ void k(const unsigned int* x, int* out) {{
        out[threadIdx.x] = {fn}(x[threadIdx.x]);
    }}"""
    x = np.array(values, dtype=np.uint32)
    out = np.zeros(len(values), np.int32)
    simt.launch(src, "k", 1, len(values), [x, out])
    assert out.tolist() == [ref(v) for v in values]


def test_float_math_functions_match_numpy_in_float32():
    src = """
    extern "C" __global__ void k(const float* x, float* out) {
        int i = threadIdx.x; float v = x[i];
        out[i * 8 + 0] = sqrtf(v);
        out[i * 8 + 1] = expf(-v);
        out[i * 8 + 2] = logf(v);
        out[i * 8 + 3] = fmaf(v, v, 1.0f);
        out[i * 8 + 4] = powf(v, 1.5f);
        out[i * 8 + 5] = sinf(v) + cosf(v);
        out[i * 8 + 6] = rsqrtf(v);
        out[i * 8 + 7] = fminf(fabsf(v - 2.0f), fmaxf(v, 0.5f));
    }"""
    x = np.linspace(0.25, 4, 32).astype(np.float32)
    out = np.zeros(32 * 8, np.float32)
    simt.launch(src, "k", 1, 32, [x, out])
    got = out.reshape(32, 8)
    assert got.dtype == np.float32
    f = np.float32
    ref = np.stack([np.sqrt(x), np.exp(-x), np.log(x), x * x + f(1), np.power(x, f(1.5)),
                    np.sin(x) + np.cos(x), f(1) / np.sqrt(x),
                    np.fmin(np.abs(x - f(2)), np.fmax(x, f(0.5)))], axis=1)
    np.testing.assert_allclose(got, ref, rtol=2e-6)


def test_min_max_use_usual_arithmetic_conversions():
    out = _lanes("out[i] = min(i - 5, 3) + max(-2, i) * 10;", n=8)
    assert out.tolist() == [min(i - 5, 3) + max(-2, i) * 10 for i in range(8)]


def test_atomic_add_on_one_global_counter_from_every_lane_returns_distinct_tickets():
    src = """
    extern "C" __global__ void k(int* counter, int* ticket) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        ticket[i] = atomicAdd(counter, 1);
    }"""
    counter = np.zeros(1, np.int32)
    ticket = np.zeros(256, np.int32)
    r = simt.launch(src, "k", 4, 64, [counter, ticket])
    assert counter[0] == 256
    assert ticket.tolist() == list(range(256))  # documented serial order: lane order
    assert r.metrics["atomic_requests"] == 8


def test_atomic_add_float_histogram_in_shared_memory_matches_numpy():
    src = """
    extern "C" __global__ void hist(const int* bins, const float* w, float* out, int n) {
        __shared__ float h[8];
        int t = threadIdx.x;
        if (t < 8) h[t] = 0.0f;
        __syncthreads();
        for (int i = t; i < n; i += blockDim.x) atomicAdd(&h[bins[i]], w[i]);
        __syncthreads();
        if (t < 8) out[t] = h[t];
    }"""
    rng = np.random.default_rng(0)
    bins = rng.integers(0, 8, 1000).astype(np.int32)
    w = rng.random(1000).astype(np.float32)
    out = np.zeros(8, np.float32)
    simt.launch(src, "hist", 1, 128, [bins, w, out, 1000])
    np.testing.assert_allclose(out, np.bincount(bins, weights=w, minlength=8), rtol=1e-5)


@pytest.mark.parametrize("call, ref", [
    ("atomicMax(&m[0], v)", lambda vs: max(vs)), ("atomicMin(&m[0], v)", lambda vs: min(vs)),
    ("atomicOr(&m[0], v)", lambda vs: np.bitwise_or.reduce(vs)),
    ("atomicXor(&m[0], v)", lambda vs: np.bitwise_xor.reduce(vs)),
    ("atomicAnd(&m[0], v | 0x7fff0000)", lambda vs: 0),
    ("if (v > 500) atomicExch(&m[0], warpSize)", lambda vs: 32),
    ("atomicSub(&m[0], v)", lambda vs: -sum(vs)),
])
def test_integer_atomics_under_full_conflict(call, ref):
    src = f"""
    extern "C" __global__ void k(int* m) {{
        int v = (threadIdx.x * 7919) % 1000;
        {call};
    }}"""
    m = np.zeros(1, np.int32)
    simt.launch(src, "k", 1, 100, [m])
    assert m[0] == ref([(t * 7919) % 1000 for t in range(100)])


def test_atomic_exch_and_cas_return_old_values_in_lane_order():
    src = """
    extern "C" __global__ void k(int* m, int* old_exch, int* old_cas) {
        int t = threadIdx.x;
        old_exch[t] = atomicExch(&m[0], t + 1);
        old_cas[t] = atomicCAS(&m[1], t, t + 1);
    }"""
    m = np.zeros(2, np.int32)
    oe = np.zeros(8, np.int32)
    oc = np.zeros(8, np.int32)
    simt.launch(src, "k", 1, 8, [m, oe, oc])
    assert oe.tolist() == [0, 1, 2, 3, 4, 5, 6, 7] and m[0] == 8
    assert oc.tolist() == [0, 1, 2, 3, 4, 5, 6, 7] and m[1] == 8


def test_syncthreads_orders_shared_memory_between_warps():
    src = """
    extern "C" __global__ void reverse(int* out) {
        __shared__ int s[128];
        int t = threadIdx.x;
        s[t] = t * 2;
        __syncthreads();
        out[blockIdx.x * 128 + t] = s[127 - t];
    }"""
    out = np.zeros(256, np.int32)
    simt.launch(src, "reverse", 2, 128, [out])
    assert out.tolist() == [(127 - t) * 2 for t in range(128)] * 2


def test_shared_memory_tree_reduction_matches_numpy_sum():
    src = """
    #define BLOCK 256
    extern "C" __global__ void reduce(const int* x, int* partial, int n) {
        __shared__ int s[BLOCK];
        unsigned int t = threadIdx.x;
        unsigned int i = blockIdx.x * blockDim.x + t;
        s[t] = (i < n) ? x[i] : 0;
        __syncthreads();
        for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
            if (t < stride) s[t] += s[t + stride];
            __syncthreads();
        }
        if (t == 0) partial[blockIdx.x] = s[0];
    }"""
    x = np.arange(5000, dtype=np.int32) % 97
    partial = np.zeros(20, np.int32)
    simt.launch(src, "reduce", 20, 256, [x, partial, 5000])
    assert partial.sum() == x.sum()
    assert partial[0] == x[:256].sum()


def test_integer_atomic_add_histogram_returns_serial_old_values():
    src = """
    extern "C" __global__ void hist(const int* bins, unsigned int* h, unsigned int* old) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        old[i] = atomicAdd(&h[bins[i]], 3u);
    }"""
    rng = np.random.default_rng(3)
    bins = rng.integers(0, 10, 512).astype(np.int32)
    h = np.full(10, 2**32 - 5, np.uint32)  # wraps around after two increments
    old = np.zeros(512, np.uint32)
    simt.launch(src, "hist", 4, 128, [bins, h, old])
    counts = np.bincount(bins, minlength=10)
    assert h.tolist() == [(2**32 - 5 + 3 * c) % 2**32 for c in counts]
    seen = np.zeros(10, np.int64)
    expected = []
    for b in bins.tolist():
        expected.append((2**32 - 5 + 3 * seen[b]) % 2**32)
        seen[b] += 1
    assert old.tolist() == expected


def test_shuffle_width_that_is_not_a_power_of_two_is_a_fault():
    with pytest.raises(simt.KernelFault, match="power of two"):
        _lanes("out[i] = __shfl_sync(0xffffffff, i, 0, 12);", n=32)


def test_negative_shuffle_delta_reads_own_value():
    out = _lanes("out[i] = __shfl_down_sync(0xffffffff, i, -3);", n=32)
    assert out.tolist() == list(range(32))


def test_ldg_and_rounding_intrinsics_behave_like_plain_operations():
    src = """extern "C" __global__ void k(const float* a, float* o) {
        int i = threadIdx.x;
        o[i] = __fmul_rn(__ldg(&a[i]), 2.0f) + __fadd_rn(a[i], 1.0f);
    }"""
    a = np.arange(32, dtype=np.float32)
    o = np.zeros(32, np.float32)
    r = simt.launch(src, "k", 1, 32, [a, o])
    assert o.tolist() == [3 * x + 1 for x in range(32)]
    assert r.metrics["gld_requests"] == 2
