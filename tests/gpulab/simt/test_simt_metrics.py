"""Metrics on known access patterns: sectors per request and bank wavefronts."""

import numpy as np
import pytest

from gpulab import simt

GLOBAL_LOAD = """
extern "C" __global__ void k(const {t}* a, {t}* out, int stride) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i * stride];
}}"""


@pytest.mark.parametrize("ctype, dtype, stride, expected", [
    ("float", np.float32, 1, 4), ("float", np.float32, 32, 32), ("double", np.float64, 1, 8),
    ("float", np.float32, 2, 8), ("int", np.int32, 0, 1),
])
def test_global_load_sectors_per_request(ctype, dtype, stride, expected):
    n = 256
    a = np.arange(n * max(stride, 1), dtype=dtype)
    out = np.zeros(n, dtype=dtype)
    r = simt.launch(GLOBAL_LOAD.format(t=ctype), "k", 2, 128, [a, out, stride])
    assert r.metrics["gld_requests"] == n // 32
    assert r.metrics["gld_transactions_per_request"] == expected
    assert r.metrics["gst_transactions_per_request"] == 4 * dtype().itemsize // 4
    assert np.array_equal(out, a[np.arange(n) * stride])


def test_misaligned_warp_window_touches_one_extra_sector():
    src = """
    extern "C" __global__ void k(const float* a, float* out) {
        out[threadIdx.x] = a[threadIdx.x + 1];
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(64, np.float32), np.zeros(32, np.float32)])
    assert r.metrics["gld_transactions_per_request"] == 5


SHARED = """
extern "C" __global__ void k(float* out, int stride) {
    __shared__ float s[32 * 33];
    __shared__ float tile[32][33];
    __shared__ float plain[32][32];
    int t = threadIdx.x;
    PATTERN
}"""


@pytest.mark.parametrize("pattern, expected", [
    ("out[t] = s[t];", 1),
    ("out[t] = s[t * 2];", 2),
    ("out[t] = s[t * 32];", 32),
    ("out[t] = tile[t][0];", 1),
    ("out[t] = plain[t][0];", 32),
    ("out[t] = s[5];", 1),
    ("out[t] = s[t / 2];", 1),
])
def test_shared_load_wavefronts_per_request(pattern, expected):
    r = simt.launch(SHARED.replace("PATTERN", pattern), "k", 1, 32,
                    [np.zeros(32, np.float32), 1])
    assert r.metrics["shared_load_requests"] == 1
    assert r.metrics["shared_load_transactions_per_request"] == expected


def test_shared_store_with_stride_two_takes_two_wavefronts_for_every_warp():
    r = simt.launch(SHARED.replace("PATTERN", "s[t * 2] = t;"), "k", 4, 128,
                    [np.zeros(32, np.float32), 1])
    assert r.metrics["shared_store_requests"] == 16
    assert r.metrics["shared_store_transactions"] == 32


def test_double_shared_access_needs_two_wavefronts():
    src = """
    extern "C" __global__ void k(double* out) {
        __shared__ double d[64];
        d[threadIdx.x] = threadIdx.x;
        out[threadIdx.x] = d[threadIdx.x];
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32)])
    assert r.metrics["shared_load_transactions_per_request"] == 2


def test_inactive_lanes_do_not_add_sectors():
    src = """
    extern "C" __global__ void k(const float* a, float* out) {
        int i = threadIdx.x;
        if (i < 8) out[i] = a[i * 32];
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(1024, np.float32), np.zeros(32, np.float32)])
    assert r.metrics["gld_transactions"] == 8
    assert r.metrics["gst_transactions"] == 1


def test_warp_execution_and_branch_efficiency_of_even_odd_divergence():
    src = """
    extern "C" __global__ void k(int* out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i % 2 == 0) out[i] = 1; else out[i] = 2;
    }"""
    r = simt.launch(src, "k", 2, 64, [np.zeros(128, np.int32)])
    m = r.metrics
    # per warp: decl (32 lanes), branch (32), then-store (16), else-store (16)
    assert m["inst_executed"] == 4 * 4
    assert m["warp_execution_efficiency"] == pytest.approx(100 * (32 + 32 + 16 + 16) / 128)
    assert m["branch_efficiency"] == 0.0
    assert m["divergent_branches"] == 4


def test_uniform_branch_is_fully_efficient():
    src = """
    extern "C" __global__ void k(int* out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if ((i / 32) % 2 == 0) out[i] = 1; else out[i] = 2;
    }"""
    r = simt.launch(src, "k", 2, 64, [np.zeros(128, np.int32)])
    assert r.metrics["branch_efficiency"] == 100.0
    assert r.metrics["warp_execution_efficiency"] == 100.0


def test_trace_records_addresses_sectors_and_bank_conflicts_for_selected_warps():
    src = """
    extern "C" __global__ void k(const float* a, float* out) {
        __shared__ float s[64];
        int t = threadIdx.x;
        s[t * 2 % 64] = a[t * 2];
        __syncthreads();
        out[blockIdx.x * blockDim.x + t] = s[t];
    }"""
    a = np.zeros(4096, np.float32)
    r = simt.launch(src, "k", 4, 32, [a, np.zeros(128, np.float32)], trace=[2])
    assert list(r.trace) == [2]
    steps = r.trace[2]
    load = next(s for s in steps if s.kind == "load" and s.space == "global")
    assert load.active_mask == 0xFFFFFFFF and load.buffer == "a"
    assert load.addresses[1] - load.addresses[0] == 8
    assert len(load.sectors) == 8 and len(load.lines) == 2
    store = next(s for s in steps if s.kind == "store" and s.space == "shared")
    assert store.bank_conflict_degree == 2
    assert any(s.kind == "barrier" for s in steps)
    assert all(s.line > 0 and s.col_end > s.col_start for s in steps)


def test_trace_true_selects_warps_of_block_zero_only():
    src = 'extern "C" __global__ void k(int* o) { o[blockIdx.x * 64 + threadIdx.x] = 1; }'
    r = simt.launch(src, "k", 3, 64, [np.zeros(192, np.int32)], trace=True)
    assert sorted(r.trace) == [0, 1]


def test_metrics_cover_all_warps_even_when_trace_is_selective():
    src = 'extern "C" __global__ void k(int* o) { o[blockIdx.x * 64 + threadIdx.x] = 1; }'
    r = simt.launch(src, "k", 3, 64, [np.zeros(192, np.int32)], trace=[0])
    assert r.metrics["gst_requests"] == 6


def test_trace_keeps_at_most_the_step_cap_per_warp(monkeypatch):
    from gpulab.simt import machine
    monkeypatch.setattr(machine, "MAX_STEPS_PER_WARP", 10)
    src = 'extern "C" __global__ void k(int* o) { for (int j = 0; j < 100; j++) o[threadIdx.x] += j; }'
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)], trace=True)
    assert len(r.trace[0]) == 10 and r.trace_truncated
    assert r.metrics["inst_executed"] > 300


def test_atomic_steps_are_traced_with_addresses():
    src = 'extern "C" __global__ void k(int* o) { atomicAdd(&o[threadIdx.x % 4], 1); }'
    r = simt.launch(src, "k", 1, 32, [np.zeros(4, np.int32)], trace=[0])
    atomic = next(s for s in r.trace[0] if s.kind == "atomic")
    assert atomic.active_mask == 0xFFFFFFFF
    assert len(set(atomic.addresses)) == 4 and len(atomic.sectors) == 1
