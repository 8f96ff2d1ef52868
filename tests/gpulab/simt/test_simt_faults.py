"""Faults and rejected sources: documented exceptions with precise locations."""

import threading

import numpy as np
import pytest

from gpulab import simt

VECTOR_ADD = """extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        c[i] = a[i] + b[i];
    }
}
"""


def test_out_of_bounds_global_load_names_kernel_line_buffer_lanes_and_address():
    a = np.zeros(1024, np.float32)
    b = np.zeros(1024, np.float32)
    c = np.zeros(1024, np.float32)
    with pytest.raises(simt.KernelFault) as info:
        simt.launch(VECTOR_ADD, "vector_add", 8, 256, [a, b, c, 1024])
    fault = info.value
    assert fault.kernel == "vector_add" and fault.line == 4
    assert fault.buffer == "a"
    assert fault.lanes == (1024,)
    text = str(fault)
    assert "out-of-bounds global load from 'a' (argument 0)" in text
    assert "block (4,0,0), thread (0,0,0)" in text
    assert "is just past the end of a 4096-byte buffer" in text
    assert f"{fault.address:#x}" in text


def test_out_of_bounds_store_reports_every_offending_lane():
    src = """extern "C" __global__ void k(int* out) {
        out[threadIdx.x + 30] = 1;
    }"""
    with pytest.raises(simt.KernelFault, match=r"store to 'out'.*\[\+1 more lanes\]") as info:
        simt.launch(src, "k", 1, 32, [np.zeros(60, np.int32)])
    assert info.value.lanes == (30, 31)


def test_negative_index_is_reported_before_the_start_of_the_buffer():
    src = 'extern "C" __global__ void k(int* o) { o[(int)threadIdx.x - 1] = 0; }'
    with pytest.raises(simt.KernelFault, match="4 bytes before the start of a 128-byte buffer"):
        simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)])


def test_out_of_bounds_shared_access_is_a_fault():
    src = """extern "C" __global__ void k(int* o) {
        __shared__ int s[32];
        s[threadIdx.x * 2] = 1;
    }"""
    with pytest.raises(simt.KernelFault, match="out-of-bounds shared store to 's'") as info:
        simt.launch(src, "k", 1, 32, [np.zeros(1, np.int32)])
    assert info.value.line == 3 and info.value.buffer == "s"


def test_barrier_inside_divergent_branch_is_a_divergent_barrier_fault():
    src = """extern "C" __global__ void k(int* o) {
        if (threadIdx.x < 16) {
            __syncthreads();
        }
    }"""
    with pytest.raises(simt.KernelFault, match="divergent barrier") as info:
        simt.launch(src, "k", 1, 64, [np.zeros(1, np.int32)])
    assert info.value.line == 3


def test_barrier_after_early_return_of_some_threads_is_allowed():
    src = """extern "C" __global__ void k(int* o, int n) {
        int t = threadIdx.x;
        if (t >= n) return;
        o[t] = 1;
        __syncthreads();
        o[t] += 1;
    }"""
    o = np.zeros(64, np.int32)
    simt.launch(src, "k", 1, 64, [o, 40])
    assert o.tolist() == [2] * 40 + [0] * 24


def test_uniform_infinite_loop_is_stopped_by_the_step_budget():
    src = 'extern "C" __global__ void k(int* o) { int x = 0; while (1) { x++; } }'
    with pytest.raises(simt.KernelFault, match=r"step budget .* at line 1"):
        simt.launch(src, "k", 1, 32, [np.zeros(1, np.int32)], max_steps=10_000)


def test_single_lane_runaway_loop_is_stopped_by_the_loop_iteration_cap():
    src = 'extern "C" __global__ void k(int* o) { if (threadIdx.x == 0) for (;;) o[0]++; }'
    with pytest.raises(simt.KernelFault, match="loop ran more than 1000 iterations"):
        simt.launch(src, "k", 1, 32, [np.zeros(1, np.int32)], max_loop_iterations=1000)


def test_launch_can_be_cancelled_from_another_thread():
    src = 'extern "C" __global__ void k(int* o) { int x = 0; while (1) { x++; } }'
    cancel = threading.Event()
    errors = []

    def work():
        try:
            simt.launch(src, "k", 1, 32, [np.zeros(1, np.int32)], cancel=cancel,
                        max_loop_iterations=10**9, max_steps=10**12)
        except simt.SimtError as exc:
            errors.append(exc)
    worker = threading.Thread(target=work)
    worker.start()
    cancel.set()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], simt.Cancelled)


@pytest.mark.parametrize("code, construct, line, column", [
    ("goto end;", "goto statements", 3, 9),
    ("union U { int x; } u;", "union", 3, 9),
    ("enum E { A, B } e;", "enum inside a function", 3, 9),
    ("int y = undefined_name + 1;", "undeclared name undefined_name", 3, 17),
    ("int z = sinhq(1.0);", "call to sinhq", 3, 17),
])
def test_unsupported_constructs_raise_compile_error_with_line_and_column(code, construct, line,
                                                                         column):
    src = f"""extern "C" __global__ void k(int* o) {{
        int t = threadIdx.x;
        {code}
    end: ;
    }}"""
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 32, [np.zeros(1, np.int32)])
    err = info.value
    assert err.construct == construct
    assert (err.line, err.column) == (line, column)
    assert str(err).startswith(f"line {line}, column {column}: ")


def test_compile_error_column_maps_back_through_macro_expansion():
    src = """#define BIG_EXPRESSION (1 + 2 + 3)
    extern "C" __global__ void k(int* o) {
        o[0] = BIG_EXPRESSION + missing;
    }"""
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 1, [np.zeros(1, np.int32)])
    assert (info.value.line, info.value.column) == (3, 33)


def test_unsupported_directive_is_rejected():
    with pytest.raises(simt.CompileError, match="#line"):
        simt.launch('#line 10 "other.cu"\n__global__ void k() {}', "k", 1, 1, [])


def test_wrong_array_dtype_names_the_argument():
    with pytest.raises(simt.SimtError, match=r"argument 1 \(float\* b\): expected a numpy "
                                             r"float32 array, got a float64 array"):
        simt.launch(VECTOR_ADD, "vector_add", 1, 32,
                    [np.zeros(32, np.float32), np.zeros(32), np.zeros(32, np.float32), 32])


def test_unknown_kernel_name_lists_available_kernels():
    with pytest.raises(simt.SimtError, match="kernels: vector_add"):
        simt.launch(VECTOR_ADD, "nope", 1, 1, [])


def test_wrong_argument_count_is_reported():
    with pytest.raises(simt.SimtError, match="takes 4 arguments, got 1"):
        simt.launch(VECTOR_ADD, "vector_add", 1, 1, [np.zeros(1, np.float32)])


def test_block_larger_than_1024_threads_is_rejected():
    with pytest.raises(simt.SimtError, match="at most 1024 threads"):
        simt.launch(VECTOR_ADD, "vector_add", 1, (32, 33), [np.zeros(1, np.float32)] * 3 + [1])


def test_non_contiguous_arrays_are_written_back():
    src = 'extern "C" __global__ void k(int* o) { o[threadIdx.x] = threadIdx.x; }'
    base = np.zeros(64, np.int32)
    view = base[::2]
    simt.launch(src, "k", 1, 32, [view])
    assert view.tolist() == list(range(32)) and base[1] == 0


def test_pointer_passed_to_math_function_is_a_compile_error():
    src = 'extern "C" __global__ void k(float* o) {\n    o[0] = sqrtf(o);\n}'
    with pytest.raises(simt.CompileError) as info:
        simt.launch(src, "k", 1, 1, [np.zeros(1, np.float32)])
    assert info.value.construct == "type mismatch" and info.value.line == 2


def test_a_load_further_out_says_how_far_past_the_end_it_is():
    source = 'extern "C" __global__ void k(const float* a, float* out) { out[0] = a[threadIdx.x + 5]; }'
    a = np.zeros(4, np.float32)
    out = np.zeros(1, np.float32)
    with pytest.raises(simt.KernelFault) as info:
        simt.launch(source, "k", 1, 1, [a, out])
    assert "is 4 bytes past the end of a 16-byte buffer" in str(info.value)
