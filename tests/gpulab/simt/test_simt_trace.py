"""Trace fields for the warp visualizer: sequence numbers, item sizes, exited lanes, registers."""

import itertools
import pickle
from pathlib import Path

import numpy as np
import pytest

from gpulab import simt
from gpulab.simt import registers as simt_registers

KERNELS = Path(__file__).resolve().parents[3] / "kernels"
EVEN_ODD = (KERNELS / "divergence_even_odd.cu").read_text()


def _even_odd(n: int = 64):
    values = (np.arange(64, dtype=np.uint32) * 1000 + 7).astype(np.uint32)
    r = simt.launch(EVEN_ODD, "divergence_even_odd", 1, 64,
                    [values, np.zeros(64, np.uint32), np.int32(n)], trace=True)
    return values, r


def _step_after(r, warp: int, line: int, kind: str = "stmt") -> int:
    """Own index of the warp's last step of that statement (its registers are final there)."""
    steps = r.trace[warp]
    first = next(k for k, s in enumerate(steps) if s.line == line and s.kind == kind)
    last = first
    while last + 1 < len(steps) and steps[last + 1].line == line and steps[last + 1].kind != "branch":
        last += 1
    return last


# ------------------------------------------------------------------ seq


def test_traced_warps_in_one_lock_step_share_a_sequence_number_that_grows_over_time():
    _, r = _even_odd()
    seqs0 = [s.seq for s in r.trace[0]]
    seqs1 = [s.seq for s in r.trace[1]]
    assert seqs0 == seqs1  # both warps take both paths, in lock step
    assert all(b > a for a, b in itertools.pairwise(seqs0))


def test_a_warp_aligned_branch_gives_each_side_its_own_sequence_numbers_in_execution_order():
    src = """extern "C" __global__ void k(int* out) {
        int w = threadIdx.x / 32;
        if (w == 0) { out[threadIdx.x] = 1; } else { out[threadIdx.x] = 2; }
    }"""
    r = simt.launch(src, "k", 1, 64, [np.zeros(64, np.int32)], trace=True)
    then_store = next(s for s in r.trace[0] if s.kind == "store")
    else_store = next(s for s in r.trace[1] if s.kind == "store")
    assert then_store.seq < else_store.seq
    assert not {s.seq for s in r.trace[0][2:]} & {s.seq for s in r.trace[1][2:]}


# ------------------------------------------------------------------ itemsize


@pytest.mark.parametrize("ctype, dtype", [("double", np.float64), ("unsigned char", np.uint8),
                                           ("short", np.int16), ("float", np.float32)])
def test_memory_steps_carry_the_bytes_per_element_they_access(ctype, dtype):
    src = f"""extern "C" __global__ void k(const {ctype}* a, {ctype}* b) {{
        __shared__ int tile[32];
        tile[threadIdx.x] = 1;
        b[threadIdx.x] = a[threadIdx.x] + tile[threadIdx.x];
    }}"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, dtype), np.zeros(32, dtype)], trace=True)
    sizes = {(s.kind, s.buffer): s.itemsize for s in r.trace[0] if s.kind in ("load", "store")}
    size = np.dtype(dtype).itemsize
    assert sizes == {("store", "tile"): 4, ("load", "a"): size, ("load", "tile"): 4, ("store", "b"): size}
    assert all(s.itemsize == 0 for s in r.trace[0] if s.kind in ("stmt", "branch"))


def test_atomic_steps_carry_the_item_size_of_the_atomic():
    src = """extern "C" __global__ void k(unsigned long long* c) { atomicAdd(&c[0], 1ULL); }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(1, np.uint64)], trace=True)
    assert next(s for s in r.trace[0] if s.kind == "atomic").itemsize == 8


# ------------------------------------------------------------------ exited_mask

EARLY_RETURN = """extern "C" __global__ void k(int* out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    if (i % 2 == 0) { out[i] = 1; } else { out[i] = 2; }
    out[i] += 10;
}
"""


def test_exited_mask_has_the_lanes_that_returned_and_not_the_lanes_masked_by_divergence():
    out = np.zeros(32, np.int32)
    r = simt.launch(EARLY_RETURN, "k", 1, 32, [out, np.int32(20)], trace=True)
    steps = r.trace[0]
    ret = next(s for s in steps if s.line == 3 and s.kind == "stmt")
    assert ret.active_mask == 0xFFF0_0000 and ret.exited_mask == 0  # returning lanes are active here
    odd_store = [s for s in steps if s.line == 4 and s.kind == "store"][1]
    assert odd_store.exited_mask == 0xFFF0_0000
    assert odd_store.active_mask == 0x000A_AAAA and odd_store.active_mask & odd_store.exited_mask == 0
    assert steps[0].exited_mask == 0


def test_lanes_that_fall_through_an_if_are_never_counted_as_exited():
    _, r = _even_odd(n=60)
    assert all(s.exited_mask == 0 for s in r.trace[1])


# ------------------------------------------------------------------ registers


def test_after_the_index_statement_lane_5_of_warp_1_holds_i_37():
    _, r = _even_odd()
    after_i = _step_after(r, 1, 9)
    regs = r.registers[1].at(after_i)
    assert regs["i"][5] == 37
    assert regs["i"] == tuple(range(32, 64))
    assert regs["n"] == (64,) * 32
    assert "v" not in regs  # declared later


def test_odd_lanes_follow_the_odd_path_formula_while_even_lanes_keep_the_even_result():
    values, r = _even_odd()
    regs = r.registers[1]
    odd_first = regs.at(_step_after(r, 1, 17))["v"]  # v = v * 5 + 7 on the odd lanes
    x5, x4 = int(values[37]), int(values[36])
    assert odd_first[5] == (x5 * 5 + 7) % 2**32
    even = (x4 * 3 + 1) % 2**32
    even = (even ^ (even >> 5)) + 12345
    assert odd_first[4] == even % 2**32  # the even path ran first and is finished
    assert regs.at(_step_after(r, 1, 11))["v"][5] == x5  # just loaded


def test_lanes_that_never_declared_a_variable_have_no_value_for_it():
    _, r = _even_odd(n=60)
    v = r.registers[1].at(len(r.trace[1]) - 1)["v"]
    assert v[27] is not None and v[28:] == (None,) * 4  # i = 60..63 skip the if body


def test_lanes_that_returned_have_no_register_values_left():
    out = np.zeros(32, np.int32)
    r = simt.launch(EARLY_RETURN, "k", 1, 32, [out, np.int32(20)], trace=True)
    regs = r.registers[0]
    last = regs.at(len(r.trace[0]) - 1)
    assert last["i"][:20] == tuple(range(20)) and last["i"][20:] == (None,) * 12
    assert regs.lane(len(r.trace[0]) - 1, 25) == {}


def test_a_device_function_shows_its_own_variables_and_the_callers_come_back_after_the_call():
    src = """__device__ int twice(int x) {
        int y = x * 2;
        return y;
    }
    extern "C" __global__ void k(int* out) {
        int t = threadIdx.x;
        int u = twice(t + 1);
        out[t] = u;
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)], trace=True)
    regs, steps = r.registers[0], r.trace[0]
    inside = next(k for k, s in enumerate(steps) if s.line == 2)
    assert regs.at(inside) == {"x": tuple(range(1, 33)), "y": tuple(range(2, 66, 2))}
    after = regs.at(next(k for k, s in enumerate(steps) if s.line == 8))
    assert set(after) == {"out", "t", "u"} and after["u"][3] == 8


def test_register_values_keep_their_c_types():
    src = """extern "C" __global__ void k(float* out) {
        float f = 0.1f;
        double d = 1.0 / 3.0;
        bool b = threadIdx.x % 2 == 1;
        unsigned int u = 0u - 1u;
        long long big = -5000000000LL;
        out[threadIdx.x] = f;
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, np.float32)], trace=True)
    regs = r.registers[0].lane(len(r.trace[0]) - 1, 3)
    assert regs["f"] == 0.1 and regs["d"] == 1.0 / 3.0
    assert regs["b"] is True and regs["u"] == 2**32 - 1 and regs["big"] == -5_000_000_000
    assert r.registers[0].type_of("u", len(r.trace[0]) - 1) == "unsigned int"
    assert r.registers[0].type_of("out", len(r.trace[0]) - 1) == "float*"


def test_local_arrays_and_out_of_scope_loop_variables_are_not_registers():
    src = """extern "C" __global__ void k(float* out) {
        float w[3] = {1.0f, 2.0f, 3.0f};
        float s = 0.0f;
        for (int j = 0; j < 3; j++) { s += w[j]; }
        out[threadIdx.x] = s;
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, np.float32)], trace=True)
    steps = r.trace[0]
    in_loop = r.registers[0].at(next(k for k, s in enumerate(steps) if s.line == 4 and s.kind == "load"))
    assert set(in_loop) == {"out", "s", "j"}
    final = r.registers[0].at(len(steps) - 1)
    assert set(final) == {"out", "s"} and final["s"][0] == 6.0


def test_registers_are_recorded_only_for_traced_warps():
    _, r = _even_odd()
    assert sorted(r.registers) == [0, 1]
    untraced = simt.launch(EVEN_ODD, "divergence_even_odd", 1, 64,
                           [np.zeros(64, np.uint32), np.zeros(64, np.uint32), np.int32(64)])
    assert untraced.registers == {}


def test_register_changes_stop_at_the_cap_and_say_so(monkeypatch):
    monkeypatch.setattr(simt_registers, "MAX_REGISTER_CHANGES_PER_WARP", 5)
    src = """extern "C" __global__ void k(int* out) {
        int x = 0;
        for (int j = 0; j < 50; j++) { x += j; }
        out[threadIdx.x] = x;
    }"""
    r = simt.launch(src, "k", 1, 32, [np.zeros(32, np.int32)], trace=True)
    assert r.registers[0].truncated and len(r.registers[0].change_var) == 5


def test_a_register_trace_pickles_as_a_few_arrays_and_gives_the_same_values():
    _, r = _even_odd()
    copy = pickle.loads(pickle.dumps(r.registers[1]))
    last = len(r.trace[1]) - 1
    assert copy.at(last) == r.registers[1].at(last)
    assert isinstance(copy.change_values, np.ndarray) and copy.change_values.shape[1] == 32


# ------------------------------------------------------------------ syntax errors with positions

VECTOR_ADD = (KERNELS / "vector_add.cu").read_text()
BODY = "c[i] = a[i] + b[i];"


def _compile_error(source: str) -> simt.CompileError:
    with pytest.raises(simt.CompileError) as caught:
        simt.launch(source, "vector_add", 1, 32, [np.zeros(32, np.float32)] * 3 + [np.int32(32)])
    return caught.value


def test_a_missing_operand_is_a_syntax_error_at_its_line_and_column():
    error = _compile_error(VECTOR_ADD.replace(BODY, "c[i] = a[i] + ;"))
    line = VECTOR_ADD.split("\n")[error.line - 1]
    assert (error.line, error.column) == (10, line.index("+") + 3)
    assert "line 10, column" in str(error) and error.construct == "syntax"


def test_a_missing_semicolon_is_reported_at_the_end_of_the_line_that_lacks_it():
    broken = VECTOR_ADD.replace("threadIdx.x;", "threadIdx.x")
    error = _compile_error(broken)
    line8 = broken.split("\n")[7]
    assert line8.rstrip().endswith("threadIdx.x")
    assert (error.line, error.column) == (8, len(line8.rstrip()) + 1)
    assert "expected ';'" in str(error)


def test_a_syntax_error_below_multi_line_macros_and_conditionals_keeps_its_original_line():
    prefix = "#define SCALE \\\n    2\n#ifdef NOT_SET\nint junk;\n#endif\n"
    broken = prefix + VECTOR_ADD.replace(BODY, "c[i] = a[i] * SCALE + ;")
    error = _compile_error(broken)
    assert error.line == 10 + 5
    assert error.column == broken.split("\n")[14].index(";") + 1  # after the macro, columns still map


def test_a_source_that_ends_too_early_still_names_its_last_line():
    error = _compile_error(VECTOR_ADD.rstrip()[:-1])  # the closing brace is missing
    assert error.line == 11 and error.column is not None
    assert "ends" in str(error)
