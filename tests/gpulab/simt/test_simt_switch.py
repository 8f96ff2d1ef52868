"""switch statements: C's labels, fall-through and break, lane by lane with divergence counted."""

import numpy as np
import pytest

from gpulab import simt
from tests.gpulab.simt.nvrtc_check import compiles, rejects


def nvrtc_compiles(source: str, name: str = "switch.cu") -> None:
    """The same source must compile for a real GPU (the emulator never accepts what CUDA rejects)."""
    compiles(source, name)


nvrtc_rejects = rejects


def kernel(body: str, ctype: str = "int", extra: str = "") -> str:
    return f"""{extra}
extern "C" __global__ void k(int* out, const {ctype}* in, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    {ctype} v = in[i];
    int r = 0;
    {body}
    out[i] = r;
}}
"""


def run(source: str, values, dtype=np.int32, block: int = 64, trace=False):
    values = np.asarray(values, dtype=dtype)
    n = len(values)
    out = np.full(n, -999, dtype=np.int32)
    result = simt.launch(source, "k", (n + block - 1) // block, block, [out, values, n], trace=trace)
    return out, result


# ------------------------------------------------------------------ semantics against Python
FALL_THROUGH = kernel("""
    switch (v) {
        case 0: r += 1;                 // falls into case 1
        case 1: r += 10; break;
        default: r += 100;              // default in the middle, falls into case 7
        case 7: r += 1000;
        case -3: r += 10000; break;
        case 'A': r = -1;               // the last label: nothing to fall into
    }
""")


def fall_through_reference(v: int) -> int:
    r = 0
    entry = {0: 0, 1: 1, 7: 3, -3: 4, 65: 5}.get(v, 2)
    for part in range(entry, 6):
        if part == 0:
            r += 1
        elif part == 1:
            r += 10
            break
        elif part == 2:
            r += 100
        elif part == 3:
            r += 1000
        elif part == 4:
            r += 10000
            break
        else:
            r = -1
    return r


def test_fall_through_default_in_the_middle_and_break_match_c():
    values = [0, 1, 2, 7, -3, 65, 64, -1, 2**31 - 1, -2**31, 6, 8] * 11
    out, _ = run(FALL_THROUGH, values)
    assert out.tolist() == [fall_through_reference(v) for v in values]
    nvrtc_compiles(FALL_THROUGH)


LOOP = kernel("""
    for (int j = 0; j < 6; j++) {
        switch ((v + j) % 4) {
            case 0: r += 1; break;          // leaves the switch, not the loop
            case 1: r += 10; continue;      // next iteration: skips the r *= 2 below
            case 2: for (int t = 0; t < 3; t++) { if (t == j % 3) break; r += 100; } break;
            default: if (v == 5 && j == 4) return;   // the thread ends: out[i] stays -999
        }
        r *= 2;
    }
""")


def loop_reference(v: int) -> int:
    r = 0
    for j in range(6):
        c = (v + j) % 4
        if c == 0:
            r += 1
        elif c == 1:
            r += 10
            continue
        elif c == 2:
            for t in range(3):
                if t == j % 3:
                    break
                r += 100
        elif v == 5 and j == 4:
            return -999
        r *= 2
    return r


def test_break_leaves_the_switch_continue_goes_to_the_loop_and_return_ends_the_thread():
    values = list(range(40))
    out, _ = run(LOOP, values, block=32)
    assert out.tolist() == [loop_reference(v) for v in values]
    nvrtc_compiles(LOOP)


NESTED = kernel("""
    switch (v & 3) {
        case 1:
            switch (v >> 2) {
                case 0: r = 10; break;      // leaves the inner switch only
                case 1: r = 11;             // falls through within the inner switch
                default: r += 100;
            }
            r += 1000;
            break;
        case 2: { int w = v * 3; r = w; } break;
        default: r = -v;
    }
""")


def nested_reference(v: int) -> int:
    if v & 3 == 1:
        inner = v >> 2
        r = 10 if inner == 0 else (11 + 100 if inner == 1 else 100)
        return r + 1000
    if v & 3 == 2:
        return v * 3
    return -v


def test_nested_switches_break_out_of_the_inner_one_only():
    values = list(range(64))
    out, _ = run(NESTED, values, block=32)
    assert out.tolist() == [nested_reference(v) for v in values]
    nvrtc_compiles(NESTED)


@pytest.mark.parametrize("ctype, dtype, cases, values", [
    ("unsigned int", np.uint32, {0: 1, 4294967295: 2, 2147483648: 3},
     [0, 4294967295, 2147483648, 7, 2147483647]),
    ("long long", np.int64, {-1: 1, 1 << 40: 2, -(1 << 62): 3}, [-1, 1 << 40, -(1 << 62), 0, 1 << 41]),
    ("unsigned char", np.uint8, {255: 1, 0: 2, ord("x"): 3}, [255, 0, 120, 7, 128]),
    ("short", np.int16, {-32768: 1, 32767: 2, -1: 3}, [-32768, 32767, -1, 1, 0]),
])
def test_switch_on_each_integer_type_compares_in_the_promoted_type(ctype, dtype, cases, values):
    suffix = {"unsigned int": "u", "long long": "LL"}.get(ctype, "")
    labels = " ".join(f"case {v}{suffix}: r = {r}; break;" if v >= 0 else f"case ({v}{suffix}): r = {r}; break;"
                      for v, r in cases.items())
    source = kernel(f"switch (v) {{ {labels} default: r = 99; }}", ctype)
    out, _ = run(source, values, dtype=dtype, block=32)
    assert out.tolist() == [cases.get(v, 99) for v in values]
    nvrtc_compiles(source)


def test_a_switch_on_a_comparison_or_bool_uses_its_int_value():
    source = kernel("switch (v > 3) { case 1: r = 1; break; case 0: r = 2; } "
                    "bool b = v & 1; switch (b) { case true: r += 10; }")
    out, _ = run(source, [0, 1, 4, 5], block=32)
    assert out.tolist() == [2, 12, 1, 11]
    nvrtc_compiles(source)


def test_case_labels_may_be_constant_expressions_and_macros():
    source = kernel("switch (v) { case N * 2 + 1: r = 1; break; case (1 << 4) | 1: r = 2; break; "
                    "case sizeof(double): r = 3; }", extra="#define N 3")
    out, _ = run(source, [7, 17, 8, 9], block=32)
    assert out.tolist() == [1, 2, 3, 0]
    nvrtc_compiles(source)


def test_a_switch_with_no_matching_label_and_no_default_is_skipped():
    source = kernel("r = 5; switch (v) { case 1: r = 1; } switch (v) { } switch (v) { default: r += 1; }")
    out, _ = run(source, [0, 1], block=32)
    assert out.tolist() == [6, 2]
    nvrtc_compiles(source)


def test_a_variable_declared_in_the_switch_body_is_shared_by_its_cases():
    source = kernel("switch (v) { case 0: { r = 3; break; } case 1: int y; y = 5; r = y; break; "
                    "case 2: y = 7; r = y + 1; }")
    out, _ = run(source, [0, 1, 2, 3], block=32)
    assert out.tolist() == [3, 5, 8, 0]
    nvrtc_compiles(source)


def test_switch_in_a_device_function_returns_from_a_case():
    extra = """__device__ int grade(int score) {
    switch (score / 10) {
        case 10: case 9: return 4;
        case 8: return 3;
        case 7: return 2;
        default: break;
    }
    return score < 0 ? -1 : 0;
}"""
    source = kernel("r = grade(v);", extra=extra)
    values = [100, 95, 90, 89, 80, 79, 70, 69, 0, -5]
    out, _ = run(source, values, block=32)
    ref = [4 if v // 10 in (9, 10) else 3 if v // 10 == 8 else 2 if v // 10 == 7 else (-1 if v < 0 else 0)
           for v in values]
    assert out.tolist() == ref
    nvrtc_compiles(source)


# ------------------------------------------------------------------ divergence and reconvergence
def test_a_divergent_switch_is_one_branch_whose_taken_lanes_enter_first_and_the_warp_reconverges():
    source = kernel("switch (v % 3) { case 0: r = 1; break; case 1: r = 2; break; default: r = 3; }"
                    " r += 10;")
    out, result = run(source, list(range(32)), block=32, trace=True)
    assert out.tolist() == [11 + v % 3 for v in range(32)]
    branches = [s for s in result.trace[0] if s.kind == "branch" and s.line == 7]
    assert len(branches) == 1
    assert branches[0].taken_mask == sum(1 << v for v in range(0, 32, 3))  # lanes entering at case 0
    assert branches[0].active_mask == 0xFFFFFFFF
    last_store = [s for s in result.trace[0] if s.kind == "store"][-1]
    assert last_store.active_mask == 0xFFFFFFFF  # reconverged for out[i] = r
    assert result.metrics["divergent_branches"] == 1


def test_a_switch_every_lane_of_a_warp_enters_at_one_place_is_not_divergent():
    source = kernel("switch (i / 32) { case 0: r = 1; break; case 1: r = 2; break; default: r = 3; }")
    out, result = run(source, list(range(96)), block=96, trace=True)
    assert out.tolist() == [1] * 32 + [2] * 32 + [3] * 32
    assert result.metrics["divergent_branches"] == 0
    assert all(s.taken_mask == s.active_mask for s in result.trace[0] if s.kind == "branch" and s.line == 7)


def test_lanes_without_a_matching_label_count_as_their_own_path():
    source = kernel("switch (v) { case 0: r = 1; }")
    _, result = run(source, [0] + [5] * 31, block=32, trace=True)
    assert result.metrics["divergent_branches"] == 1
    branch = next(s for s in result.trace[0] if s.kind == "branch" and s.line == 7)
    assert branch.taken_mask == 1


def test_divergent_lanes_falling_through_join_the_lanes_entering_below():
    source = kernel("switch (v) { case 0: r = 1; case 1: r += 2; break; }")
    _, result = run(source, [0, 1, 2, 0] * 8, block=32, trace=True)
    stmts = [s for s in result.trace[0] if s.kind == "stmt" and s.line == 7]
    zeros = sum(1 << k for k in range(32) if k % 4 in (0, 3))
    ones = sum(1 << k for k in range(32) if k % 4 == 1)
    assert [s.active_mask for s in stmts] == [zeros, zeros | ones, zeros | ones]  # r = 1; r += 2; break


# ------------------------------------------------------------------ named rejections
@pytest.mark.parametrize("body, match, cuda_rejects", [
    ("switch (v) { case 1: case 1: r = 0; }", "duplicate case value 1 \\(first on line 7\\)", True),
    ("switch (v) { case 1: break; case 3 - 2: r = 0; }", "duplicate case value 1", True),
    ("switch (v) { default: r = 1; default: r = 0; }", "second 'default' label", True),
    ("float f = v; switch (f) { case 1: r = 1; }", "condition must have integer type, not float", True),
    ("switch (out) { case 0: r = 1; }", "condition must have integer type", True),
    ("switch (v) { case 1.0: r = 1; }", "a floating constant", True),
    ("int y = 3; switch (v) { case y: r = 1; }", "not an integer constant expression", True),
    ("unsigned u = v; switch (u) { case -1: r = 1; }", "does not fit the condition's type unsigned int", True),
    ("switch (v) { case 5000000000LL: r = 1; }", "does not fit the condition's type int", True),
    ("switch (v) { case 1: continue; }", "'continue' is not inside a loop", True),
    ("case 3: r = 1;", "'case' label is not inside a switch", True),
    ("switch (v) { case 1: { case 2: r = 1; } }", "Duff's device", False),
])
def test_switch_errors_name_the_construct_and_line(body, match, cuda_rejects):
    source = kernel(body)
    with pytest.raises(simt.CompileError, match=match) as info:
        run(source, [0])
    assert info.value.line == 7
    assert info.value.construct in ("switch statement", "case label", "continue outside a loop")
    if cuda_rejects:
        nvrtc_rejects(source)
    else:
        nvrtc_compiles(source)  # valid CUDA the emulator declines, by name


def test_break_in_a_switch_outside_any_loop_is_accepted_and_outside_a_switch_is_not():
    run(kernel("switch (v) { case 0: break; }"), [0])
    with pytest.raises(simt.CompileError, match="'break' is not inside a loop or switch"):
        run(kernel("if (v) break;"), [0])
