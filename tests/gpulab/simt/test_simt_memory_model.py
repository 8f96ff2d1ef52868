"""Memory model details: store collisions, shared scalars, pointers, device functions."""

import numpy as np

from gpulab import simt


def test_colliding_stores_leave_the_value_of_the_highest_lane():
    src = 'extern "C" __global__ void k(int* o) { o[0] = blockIdx.x * 1000 + threadIdx.x; }'
    o = np.zeros(1, np.int32)
    simt.launch(src, "k", 3, 100, [o])
    assert o[0] == 2 * 1000 + 99


def test_shared_scalar_is_shared_by_the_block():
    src = """extern "C" __global__ void k(int* o) {
        __shared__ int flag;
        if (threadIdx.x == 5) flag = blockIdx.x + 40;
        __syncthreads();
        o[blockIdx.x * 64 + threadIdx.x] = flag;
    }"""
    o = np.zeros(128, np.int32)
    simt.launch(src, "k", 2, 64, [o])
    assert o.tolist() == [40] * 64 + [41] * 64


def test_shared_memory_is_private_to_each_block():
    src = """extern "C" __global__ void k(int* o) {
        __shared__ int s[32];
        s[threadIdx.x] = blockIdx.x;
        __syncthreads();
        o[blockIdx.x * 32 + threadIdx.x] = s[31 - threadIdx.x];
    }"""
    o = np.zeros(96, np.int32)
    simt.launch(src, "k", 3, 32, [o])
    assert o.tolist() == [0] * 32 + [1] * 32 + [2] * 32


def test_recursive_device_function():
    src = """__device__ unsigned long long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
    extern "C" __global__ void k(unsigned long long* o) { o[threadIdx.x] = fact(threadIdx.x); }"""
    o = np.zeros(21, np.uint64)
    simt.launch(src, "k", 1, 21, [o])
    import math
    assert o.tolist() == [math.factorial(i) for i in range(21)]


def test_runaway_recursion_is_a_fault():
    src = """__device__ int f(int n) { return f(n + 1); }
    extern "C" __global__ void k(int* o) { o[0] = f(0); }"""
    try:
        simt.launch(src, "k", 1, 1, [np.zeros(1, np.int32)])
    except simt.KernelFault as exc:
        assert "call depth" in str(exc)
    else:
        raise AssertionError("expected a KernelFault")


def test_device_function_writes_through_pointer_argument():
    src = """__device__ void put(float* dst, int i, float v) { dst[i] = v * 2.0f; }
    extern "C" __global__ void k(float* o) { put(o, threadIdx.x, (float)threadIdx.x); }"""
    o = np.zeros(8, np.float32)
    simt.launch(src, "k", 1, 8, [o])
    assert o.tolist() == [2.0 * i for i in range(8)]


def test_pointer_walk_with_increment_and_dereference():
    src = """extern "C" __global__ void k(const int* a, int* o, int n) {
        const int* p = a + threadIdx.x * n;
        const int* end = p + n;
        int s = 0;
        while (p < end) { s += *p; p++; }
        o[threadIdx.x] = s + (int)(end - a);
    }"""
    a = np.arange(40, dtype=np.int32)
    o = np.zeros(4, np.int32)
    simt.launch(src, "k", 1, 4, [a, o, 10])
    assert o.tolist() == [int(a[i * 10:(i + 1) * 10].sum()) + (i + 1) * 10 for i in range(4)]


def test_double_precision_atomic_add_and_unsigned_long_long_atomics():
    src = """extern "C" __global__ void k(double* d, unsigned long long* u) {
        atomicAdd(&d[0], 0.5);
        atomicAdd(&u[0], 1ull << 40);
        atomicMax(&u[1], (unsigned long long)threadIdx.x);
    }"""
    d = np.zeros(1)
    u = np.zeros(2, np.uint64)
    simt.launch(src, "k", 2, 64, [d, u])
    assert d[0] == 64.0 and u[0] == 128 << 40 and u[1] == 63


def test_two_dimensional_shared_tile_transpose():
    src = """#define T 8
    extern "C" __global__ void k(const int* in, int* out) {
        __shared__ int tile[T][T + 1];
        int x = threadIdx.x, y = threadIdx.y;
        tile[y][x] = in[y * T + x];
        __syncthreads();
        out[y * T + x] = tile[x][y];
    }"""
    a = np.arange(64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    simt.launch(src, "k", 1, (8, 8), [a, out])
    assert np.array_equal(out.reshape(8, 8), a.reshape(8, 8).T)


def test_arrays_are_updated_in_place_with_their_shape():
    src = 'extern "C" __global__ void k(float* m) { m[threadIdx.x] += 1.0f; }'
    m = np.zeros((4, 8), np.float32)
    r = simt.launch(src, "k", 1, 32, [m])
    assert (m == 1).all() and r.args[0] is m


def test_read_only_array_argument_is_accepted_and_left_unchanged():
    src = 'extern "C" __global__ void k(const int* a, int* o) { o[threadIdx.x] = a[threadIdx.x]; }'
    a = np.arange(32, dtype=np.int32)
    a.flags.writeable = False
    o = np.zeros(32, np.int32)
    simt.launch(src, "k", 1, 32, [a, o])
    assert np.array_equal(o, a)


def test_result_reports_kernel_shape_steps_and_provenance():
    src = 'extern "C" __global__ void k(int* o) { o[threadIdx.x] = 1; }'
    r = simt.launch(src, "k", (2, 1), (32, 2), [np.zeros(64, np.int32)])
    assert (r.kernel, r.grid, r.block, r.provenance) == ("k", (2, 1, 1), (32, 2, 1), "emulated")
    assert r.steps == r.metrics["inst_executed"] == 4
    assert r.lane_steps == 128


def test_array_parameters_prototypes_and_several_kernels_in_one_file():
    src = """__device__ int twice(int x);
    extern "C" {
    __global__ void first(int out[], int n) { out[threadIdx.x] = twice(n); }
    __global__ void second(int out[]) { out[threadIdx.x] = -1; }
    }
    __device__ int twice(int x) { return 2 * x; }"""
    out = np.zeros(4, np.int32)
    simt.launch(src, "first", 1, 4, [out, 21])
    assert out.tolist() == [42] * 4
    simt.launch(src, "second", 1, 2, [out])
    assert out.tolist() == [-1, -1, 42, 42]


def test_local_array_initializer_list_fills_the_rest_with_zeros_each_time():
    src = """extern "C" __global__ void k(float* o) {
        for (int r = 0; r < 2; r++) {
            float w[2][3] = {{0.25f, 0.5f}, {(float)threadIdx.x}};
            o[threadIdx.x * 2 + r] = w[0][0] + w[0][1] + 10.0f * w[0][2] + w[1][0] + w[1][1] + r;
            w[0][2] = 100.0f;
        }
    }"""
    o = np.zeros(8, np.float32)
    r = simt.launch(src, "k", 1, 4, [o])
    assert o.tolist() == [0.75 + t + rr for t in range(4) for rr in range(2)]
    assert r.metrics["local_store_requests"] == 2 * 7


def test_flat_initializer_list_fills_a_two_dimensional_array_row_by_row():
    src = """extern "C" __global__ void k(int* o) {
        int w[2][2] = {1, 2, 3};
        o[0] = w[0][0]; o[1] = w[0][1]; o[2] = w[1][0]; o[3] = w[1][1];
    }"""
    o = np.full(4, -1, np.int32)
    simt.launch(src, "k", 1, 1, [o])
    assert o.tolist() == [1, 2, 3, 0]


def test_volatile_shared_pointer_warp_reduction():
    src = """#pragma unroll
    __device__ void warp_reduce(volatile int* s, unsigned int t) {
        s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8];
        s[t] += s[t + 4]; s[t] += s[t + 2]; s[t] += s[t + 1];
    }
    extern "C" __global__ void k(const int* x, int* out) {
        __shared__ int s[64];
        unsigned int t = threadIdx.x;
        s[t] = x[t];
        __syncthreads();
        if (t < 32) warp_reduce(s, t);
        if (t == 0) out[0] = s[0];
    }"""
    x = np.arange(64, dtype=np.int32)
    out = np.zeros(1, np.int32)
    simt.launch(src, "k", 1, 64, [x, out])
    assert out[0] == x.sum()
