"""Emulator errors carry kind, line and details; the warp lab words them from the catalogue."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab import simt
from gpulab.catalogue import render
from gpulab.experiments import warp as ws
from gpulab.simt.machine import PROGRESS_EVERY

LOOP = """extern "C" __global__ void k(float* a) {
    int i = threadIdx.x;
    while (i >= 0) {
        i = i + 1 - 1;
    }
    a[i] = 1.0f;
}
"""


def fault(**limits) -> simt.SimtError:
    with pytest.raises(simt.SimtError) as caught:
        simt.launch(LOOP, "k", 1, 32, [np.zeros(32, np.float32)], **limits)
    return caught.value


def test_a_time_limit_stops_a_runaway_loop_with_the_loops_line():
    error = fault(max_seconds=0.3)
    assert error.kind == "time-budget" and error.line == 3
    assert error.details["seconds"] == 0.3 and error.details["loop_line"] == 3


def test_a_step_budget_stop_names_the_loop_and_is_worded_as_a_possible_infinite_loop_in_both_languages():
    error = fault(max_steps=1000)
    assert error.kind == "step-budget" and error.line == 3
    english, chinese = render(ws.error_message(error)), render(ws.error_message(error), "zh")
    assert "a possible infinite loop at line 3" in english and "crash" not in english.replace("Not a crash", "")
    assert "第 3 行可能是死循环" in chinese and "possible" not in chinese


def test_a_syntax_error_keeps_the_english_detail_inside_a_chinese_frame():
    with pytest.raises(simt.CompileError) as caught:
        simt.launch("garbage(", "k", 1, 32, [])
    assert caught.value.kind == "compile"
    assert render(ws.error_message(caught.value), "zh").startswith("仿真器无法运行这段代码：第 1 行：")


def test_progress_is_reported_in_warp_steps_while_the_launch_runs():
    seen: list[int] = []
    fault(max_steps=100_000, progress=seen.append)
    assert seen and seen == sorted(seen) and seen[0] >= PROGRESS_EVERY


def test_the_emulator_process_reports_progress_then_the_time_limit_stop():
    # 2.5 s: room for the compile on a loaded machine before the first progress report
    request = ws.SessionRequest(LOOP, "k", (1,), (32,), [np.zeros(32, np.float32)], max_seconds=2.5)
    steps = ws.emulator_process().run_steps(request)
    reports = []
    with pytest.raises(simt.KernelFault) as caught:
        for done in steps:
            reports.append(done)
    assert caught.value.kind == "time-budget" and caught.value.line == 3
    assert reports and reports == sorted(reports)


def test_a_division_by_zero_is_worded_as_undefined_on_a_gpu_in_both_languages():
    source = 'extern "C" __global__ void k(int* o, const int* d) {\n  o[threadIdx.x] = 10 / d[threadIdx.x];\n}\n'
    with pytest.raises(simt.KernelFault) as caught:
        simt.launch(source, "k", 1, 2, [np.zeros(2, np.int32), np.array([0, 1], np.int32)])
    english, chinese = render(ws.error_message(caught.value)), render(ws.error_message(caught.value), "zh")
    assert "line 2" in english and "undefined on a GPU" in english
    assert "第 2 行" in chinese and "除数为零" in chinese


@pytest.mark.parametrize(("source", "english", "chinese"), [
    ('extern "C" __global__ void k(float* a, int n) { a[threadIdx.x] = sqrt(n); }',
     "the call sqrt(int) is ambiguous", "调用 sqrt(int) 有歧义"),
    ('#include <cassert>\nextern "C" __global__ void k(float* a, int n) { assert(n < 0); a[0] = 1; }',
     "a device assert failed", "设备端 assert 断言失败"),
    ('__constant__ float c[2];\nextern "C" __global__ void k(float* a, int n) { c[0] = 1; }',
     "it wrote to __constant__ memory", "写入了 __constant__ 内存"),
])
def test_the_new_emulator_refusals_and_faults_are_worded_in_both_languages(source, english, chinese):
    with pytest.raises(simt.SimtError) as caught:
        simt.launch(source, "k", 1, 4, [np.zeros(4, np.float32), 3])
    message = ws.error_message(caught.value)
    assert english in render(message) and chinese in render(message, "zh")


CONSTANT_WEIGHTS = """__constant__ float weights[3] = {1.0f, 1.0f, 1.0f};
__constant__ int taps[2];
extern "C" __global__ void k(float* o) { o[threadIdx.x] = weights[threadIdx.x % 3] + taps[0]; }
"""


@pytest.mark.parametrize("constants, en, zh", [
    ({"weights": [1, 2, 3, 4]}, "The __constant__ array weights holds 3 values; 4 were given", "最多给出 3 个"),
    ({"taps": [0.5]}, "The values given for the __constant__ data taps are float64; it holds int32", "int32"),
    ({"wieghts": [1]}, "no __constant__ data named wieghts (it declares: taps, weights)", "wieghts"),
])  # fmt: skip
def test_constants_the_launch_refuses_are_worded_in_both_languages(constants, en, zh):
    with pytest.raises(simt.SimtError) as caught:
        simt.launch(CONSTANT_WEIGHTS, "k", 1, 32, [np.zeros(32, np.float32)], constants=constants)
    message = ws.error_message(caught.value)
    assert en in render(message, "en") and zh in render(message, "zh")


@pytest.mark.parametrize("source, english, chinese", [
    ('static_assert(sizeof(double) == 4, "doubles are 4 bytes");\n__global__ void k(float* a) {}\n',
     'static_assert failed ("doubles are 4 bytes")', 'static_assert 断言失败（"doubles are 4 bytes"）'),
    ("__device__ float f(float x) { return x; }\n__device__ float f(double x) { return x; }\n"
     "__global__ void k(float* a) {\n    a[0] = f(1);\n}\n",
     "the call to f matches more than one overload (f(float); f(double))", "同时匹配多个重载（f(float); f(double)）"),
    ("__device__ float f(float x) { return x; }\n__device__ float f(double x) { return x; }\n"
     "__global__ void k(float* a) {\n    a[0] = f(a, a);\n}\n",
     "no overload of f takes these arguments; the overloads are: f(float); f(double)", "f 的重载都不接受这些参数"),
])
def test_static_asserts_and_overload_mismatches_are_worded_in_both_languages(source, english, chinese):
    with pytest.raises(simt.CompileError) as caught:
        simt.compile_source(source)
    message = ws.error_message(caught.value)
    assert english in render(message), render(message)
    assert chinese in render(message, "zh") and "The code" not in render(message, "zh")
