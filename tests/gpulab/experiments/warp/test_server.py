"""The emulator child process: sessions and the emulator's errors come back whole; cancel is prompt."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gpulab import simt
from gpulab.experiments import warp as ws

DIVERGENT = """extern "C" __global__ void k(const unsigned int* in, unsigned int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        if (threadIdx.x % 2 == 0) {
            v = v * 3;
        } else {
            v = v + 7;
        }
        out[i] = v;
    }
}
"""


SPIN = """extern "C" __global__ void spin(int* out, int n) {
    int x = 0;
    for (int k = 0; k < n; k++) { x = x + 1; }
    out[threadIdx.x] = x;
}
"""


@pytest.fixture(scope="module")
def child():
    process = ws.EmulatorProcess()
    yield process
    process.stop()


def divergent_request(**overrides):
    values = np.arange(64, dtype=np.uint32)
    expected = {1: np.where(np.arange(64) % 2 == 0, values * 3, values + 7).astype(np.uint32)}
    fields = dict(
        source=DIVERGENT,
        entry="k",
        grid=(1,),
        block=(64,),
        args=[values, np.zeros(64, np.uint32), np.int32(64)],
        expected=expected,
    )
    return ws.SessionRequest(**{**fields, **overrides})


def test_the_emulator_process_returns_a_session_with_outputs_checked_against_the_reference(child):
    session = child.run(divergent_request())
    assert session.reference_match is True
    then_line = 6
    g = next(h for h in range(len(session)) if session.line(h) == then_line)
    assert list(np.flatnonzero(session.lane_states(g)[0] == ws.LANE_ACTIVE)) == list(range(0, 32, 2))
    assert child.running


def test_a_compile_error_from_the_emulator_process_keeps_its_line(child):
    from gpulab import simt

    broken = DIVERGENT.replace("v = v * 3;", "goto out;")
    with pytest.raises(simt.CompileError) as caught:
        child.run(divergent_request(source=broken))
    assert caught.value.line == 6 and "goto" in str(caught.value)


def test_a_kernel_fault_from_the_emulator_process_names_the_buffer_and_line(child):
    from gpulab import simt

    broken = DIVERGENT.replace("unsigned int v = in[i];", "unsigned int v = in[i + 1000];")
    with pytest.raises(simt.KernelFault) as caught:
        child.run(divergent_request(source=broken))
    assert caught.value.line == 4 and caught.value.buffer == "in"


def test_cancelling_stops_a_long_emulation_by_itself_and_the_child_serves_the_next_run(child, monkeypatch):
    from gpulab import simt

    # A child that does not answer within the grace is killed; a long grace here means a child still
    # running afterwards stopped its run by itself (the emulator polls the cancel at every step),
    # however loaded the machine is: no timing is asserted.
    monkeypatch.setattr(child, "CANCEL_GRACE_S", 60.0)
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    request = ws.SessionRequest(SPIN, "spin", (1,), (32,), [np.zeros(32, np.int32), np.int32(10**9)], max_steps=10**12)
    with pytest.raises(simt.Cancelled):
        child.run(request, cancel)
    timer.join()
    assert child.running
    assert child.run(divergent_request()).reference_match is True


def test_a_session_from_the_emulator_process_keeps_register_values(child):
    session = child.run(divergent_request())
    g = next(h for h in range(len(session)) if session.line(h) == 6)  # v = v * 3 on even lanes
    assert session.lane_registers(g, 1, 4)["v"] == 36 * 3
    assert session.lane_registers(g, 1, 5)["v"] == 37


def test_a_syntax_error_through_the_emulator_process_keeps_its_line_and_column(child):
    from gpulab import simt

    broken = DIVERGENT.replace("v = v * 3;", "v = v * ;")
    with pytest.raises(simt.CompileError) as caught:
        child.run(divergent_request(source=broken))
    assert (caught.value.line, caught.value.column) == (6, DIVERGENT.split("\n")[5].index("v") + 9)


def test_printf_output_comes_back_from_the_emulator_process_with_the_session_and_with_a_fault(child):
    from gpulab import simt

    printing = DIVERGENT.replace("out[i] = v;", 'out[i] = v; if (i % 20 == 0) printf("v[%d] = %u\\n", i, v);')
    session = child.run(divergent_request(source=printing))
    assert [(r.thread, r.text) for r in session.printf] == [((i, 0, 0), f"v[{i}] = {v}\n")
                                                            for i, v in ((0, 0), (20, 60), (40, 120), (60, 180))]
    assert session.printf_lost == 0 and session.reference_match is True
    faulting = printing.replace("v);", "v); out[i + 64 * (i == 60)] = v;")
    with pytest.raises(simt.KernelFault) as caught:
        child.run(divergent_request(source=faulting))
    assert [r.text for r in caught.value.printf] == ["v[0] = 0\n", "v[20] = 60\n", "v[40] = 120\n", "v[60] = 180\n"]


def test_a_kernel_that_includes_a_header_from_its_folder_runs_in_a_session(tmp_path):
    (tmp_path / "twice.cuh").write_text("#pragma once\n__device__ int twice(int v) { return 2 * v; }\n")
    source = ('#include "twice.cuh"\n'
              'extern "C" __global__ void k(int* out) { out[threadIdx.x] = twice(threadIdx.x); }\n')
    out = np.zeros(32, np.int32)
    request = ws.SessionRequest(source, "k", (1,), (32,), [out], include_dirs=(str(tmp_path),))
    session = ws.session_from_request(request)
    assert np.array_equal(session.args[0], 2 * np.arange(32))
    with pytest.raises(simt.CompileError, match=r"twice\.cuh"):
        ws.session_from_request(ws.SessionRequest(source, "k", (1,), (32,), [out.copy()]))
