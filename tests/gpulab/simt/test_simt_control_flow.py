"""Control flow under divergence: each construct runs the right lanes with the right masks."""

import numpy as np
import pytest

from gpulab import simt


def _run(body: str, n: int = 64, block: int = 64, extra: str = "", trace=False):
    src = f"""
    {extra}
    extern "C" __global__ void k(int* out, int n) {{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        {body}
    }}
    """
    out = np.full(n, -1, dtype=np.int32)
    r = simt.launch(src, "k", grid=(n + block - 1) // block, block=block, args=[out, n],
                    trace=trace)
    return out, r


def test_divergent_warp_runs_both_paths_with_complementary_masks():
    out, r = _run("if (i % 2 == 0) { out[i] = 1; } else { out[i] = 2; }", n=32, block=32,
                  trace=True)
    assert out.tolist() == [1, 2] * 16
    steps = r.trace[0]
    branch = next(s for s in steps if s.kind == "branch")
    assert branch.taken_mask == 0x55555555
    stores = [s for s in steps if s.kind == "store"]
    assert [s.active_mask for s in stores] == [0x55555555, 0xAAAAAAAA]
    assert stores[0].active_mask & stores[1].active_mask == 0
    assert stores[0].active_mask | stores[1].active_mask == 0xFFFFFFFF


def test_warp_reconverges_after_if_else():
    out, r = _run("int v = 0; if (i < 5) v = 1; else v = 2; out[i] = v * 10 + (i < 5);",
                  n=32, block=32, trace=True)
    assert out.tolist() == [11] * 5 + [20] * 27
    last_store = [s for s in r.trace[0] if s.kind == "store"][-1]
    assert last_store.active_mask == 0xFFFFFFFF


def test_for_loop_with_lane_dependent_trip_count():
    out, _ = _run("int s = 0; for (int j = 0; j < i; j++) s += j; out[i] = s;")
    assert out.tolist() == [i * (i - 1) // 2 for i in range(64)]


def test_while_loop_with_divergent_exit():
    out, _ = _run("int x = i, steps = 0; while (x != 1 && x > 0) { x = (x % 2) ? 3 * x + 1 : x / 2;"
                  " steps++; } out[i] = steps;", n=32, block=32)

    def collatz(x):
        s = 0
        while x != 1 and x > 0:
            x = 3 * x + 1 if x % 2 else x // 2
            s += 1
        return s
    assert out.tolist() == [collatz(i) for i in range(32)]


def test_do_while_runs_body_at_least_once():
    out, _ = _run("int c = 0; do { c++; } while (c < i); out[i] = c;", n=8, block=8)
    assert out.tolist() == [1, 1, 2, 3, 4, 5, 6, 7]


def test_break_under_divergence_leaves_only_breaking_lanes():
    out, _ = _run("int j; for (j = 0; j < 100; j++) { if (j == i % 7) break; } out[i] = j;")
    assert out.tolist() == [i % 7 for i in range(64)]


def test_continue_under_divergence_skips_rest_of_body_for_those_lanes():
    out, _ = _run("int s = 0; for (int j = 0; j < 10; j++) { if ((j + i) % 3 == 0) continue;"
                  " s += j; } out[i] = s;")
    assert out.tolist() == [sum(j for j in range(10) if (j + i) % 3) for i in range(64)]


def test_early_return_in_kernel_stops_only_returning_lanes():
    out, _ = _run("if (i >= n - 3) return; out[i] = 7;", n=40, block=32)
    assert out.tolist() == [7] * 37 + [-1] * 3


def test_device_function_with_early_return():
    extra = """
    __device__ int classify(int x) {
        if (x < 10) return 1;
        for (int k = 2; k < x; k++) { if (x % k == 0) return 2; }
        return 3;
    }"""
    out, _ = _run("out[i] = classify(i);", extra=extra)

    def ref(x):
        if x < 10:
            return 1
        return 2 if any(x % k == 0 for k in range(2, x)) else 3
    assert out.tolist() == [ref(i) for i in range(64)]


def test_ternary_with_memory_operands_only_loads_for_selected_lanes():
    src = """
    extern "C" __global__ void k(const int* a, int* out, int n) {
        int i = threadIdx.x;
        out[i] = (i < n) ? a[i] : -5;
    }"""
    a = np.arange(10, dtype=np.int32)
    out = np.zeros(32, dtype=np.int32)
    simt.launch(src, "k", 1, 32, [a, out, 10])
    assert out.tolist() == list(range(10)) + [-5] * 22


def test_short_circuit_and_guards_out_of_bounds_load():
    src = """
    extern "C" __global__ void k(const int* a, int* out, int n) {
        int i = threadIdx.x;
        out[i] = (i < n && a[i] > 3) || i == 31;
    }"""
    a = np.arange(10, dtype=np.int32)
    out = np.zeros(32, dtype=np.int32)
    simt.launch(src, "k", 1, 32, [a, out, 10])
    assert out.tolist() == [0] * 4 + [1] * 6 + [0] * 21 + [1]


def test_nested_loops_with_break_and_compound_assignment():
    out, _ = _run("int s = 0; for (int a = 0; a < 4; a++) { for (int b = 0; b < 4; b++) {"
                  " if (b > a) break; s += a * b; } s <<= 1; } out[i] = s + i;", n=32, block=32)
    s = 0
    for a in range(4):
        for b in range(4):
            if b > a:
                break
            s += a * b
        s <<= 1
    assert out.tolist() == [s + i for i in range(32)]


def test_partial_last_warp_leaves_idle_lanes_inactive():
    out, r = _run("out[i] = i;", n=40, block=40, trace=True)
    assert out.tolist() == list(range(40))
    assert r.trace[1][0].active_mask == 0xFF
    assert r.metrics["warp_execution_efficiency"] == 100 * 40 / 64


def test_pointer_swap_of_shared_buffers():
    src = """
    extern "C" __global__ void k(int* out) {
        __shared__ int bufA[32];
        __shared__ int bufB[32];
        int t = threadIdx.x;
        int* src = bufA;
        int* dst = bufB;
        src[t] = t;
        __syncthreads();
        for (int step = 0; step < 3; step++) {
            dst[t] = src[(t + 1) % 32] + 1;
            __syncthreads();
            int* tmp = src; src = dst; dst = tmp;
        }
        out[t] = src[t];
    }"""
    out = np.zeros(32, dtype=np.int32)
    simt.launch(src, "k", 1, 32, [out])
    assert out.tolist() == [(t + 3) % 32 + 3 for t in range(32)]


def test_three_dimensional_block_and_grid_indices():
    src = """
    extern "C" __global__ void k(int* out) {
        int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        int nthreads = blockDim.x * blockDim.y * blockDim.z;
        out[bx * nthreads + t] = threadIdx.z * 100 + threadIdx.y * 10 + threadIdx.x
                                 + 1000 * (blockIdx.z * 100 + blockIdx.y * 10 + blockIdx.x);
    }"""
    out = np.zeros(2 * 3 * 2 * 4 * 2 * 3, dtype=np.int32)
    simt.launch(src, "k", (2, 3, 2), (4, 2, 3), [out])
    expected = []
    for bz in range(2):
        for by in range(3):
            for bx in range(2):
                for tz in range(3):
                    for ty in range(2):
                        for tx in range(4):
                            expected.append(tz * 100 + ty * 10 + tx
                                            + 1000 * (bz * 100 + by * 10 + bx))
    assert out.tolist() == expected


def test_local_array_indexed_per_lane():
    out, _ = _run("int buf[4]; for (int j = 0; j < 4; j++) buf[j] = i * j;"
                  " out[i] = buf[i % 4] + buf[3];", n=32, block=32)
    assert out.tolist() == [i * (i % 4) + 3 * i for i in range(32)]


@pytest.mark.parametrize("statement", ["continue;", "break;", "if (i > 2) { break; }"])
def test_break_or_continue_outside_a_loop_is_a_compile_error_naming_the_line(statement):
    source = 'extern "C" __global__ void k(int* a) {\n    int i = threadIdx.x;\n    ' + statement + "\n}\n"
    with pytest.raises(simt.CompileError, match="is not inside a loop") as info:
        simt.compile_source(source)
    assert info.value.line == 3
