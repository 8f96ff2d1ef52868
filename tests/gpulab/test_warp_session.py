"""The warp session: timeline merge, lane states, jumps, memory analysis (fake traces, no emulator)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from gpulab import warp_session as ws
from gpulab.simt.trace import TraceStep

FULL = 0xFFFF_FFFF
EVEN = 0x5555_5555
ODD = 0xAAAA_AAAA


def stmt(line, mask=FULL, col=5, kind="stmt", **kw):
    return TraceStep(line, col, col + 3, kind, mask, **kw)


def branch(line, mask, taken):
    return TraceStep(line, 5, 9, "branch", mask, taken_mask=taken)


def session(steps, block=(64, 1, 1), grid=(1, 1, 1), source="", warps=None):
    shape = ws.LaunchShape(grid, block)
    return ws.WarpSession(
        source=source,
        entry="k",
        shape=shape,
        block=0,
        warps=warps or list(range(len(steps))),
        steps=steps,
        itemsizes=ws.buffer_itemsizes(source),
    )


def even_odd_warp():
    return [stmt(2), branch(3, FULL, EVEN), stmt(4, EVEN), stmt(6, ODD), stmt(7)]


def test_even_odd_divergence_makes_exactly_the_even_lanes_active_on_the_then_line():
    s = session([even_odd_warp(), even_odd_warp()])
    g = next(h for h in range(len(s)) if s.line(h) == 4)
    states = s.lane_states(g)
    assert list(np.flatnonzero(states[0] == ws.LANE_ACTIVE)) == list(range(0, 32, 2))
    assert list(np.flatnonzero(states[0] == ws.LANE_MASKED)) == list(range(1, 32, 2))
    assert np.array_equal(states[0], states[1])


def test_warps_at_the_same_site_step_together_and_the_timeline_keeps_source_order():
    s = session([even_odd_warp(), even_odd_warp()])
    assert len(s) == 5
    assert [s.line(g) for g in range(len(s))] == [2, 3, 4, 6, 7]
    assert all(s.participants(g) == [0, 1] for g in range(len(s)))


def test_warp_aligned_branches_serialize_across_warps_without_masking_any_lane():
    w0 = [stmt(2), branch(3, FULL, FULL), stmt(4), stmt(7)]
    w1 = [stmt(2), branch(3, FULL, 0), stmt(6), stmt(7)]
    s = session([w0, w1])
    assert [s.line(g) for g in range(len(s))] == [2, 3, 4, 6, 7]
    then_states = s.lane_states(2)
    assert np.all(then_states[0] == ws.LANE_ACTIVE)
    assert np.all(then_states[1] == ws.LANE_WAITING)
    assert not np.any(then_states == ws.LANE_MASKED)


def test_a_loop_that_runs_longer_in_one_warp_keeps_the_other_warp_waiting_until_the_join():
    w0 = [branch(3, FULL, FULL), stmt(4), branch(3, FULL, 0), stmt(9)]
    w1 = [branch(3, FULL, FULL), stmt(4), branch(3, FULL, FULL), stmt(4), branch(3, FULL, 0), stmt(9)]
    s = session([w0, w1])
    assert [s.line(g) for g in range(len(s))] == [3, 4, 3, 4, 3, 9]
    assert s.participants(3) == [1]
    assert s.participants(5) == [0, 1]


def test_lanes_that_never_run_again_show_as_exited_and_padding_lanes_as_idle():
    bounds = [stmt(2), branch(3, 0xFFFF, 0x00FF), stmt(4, 0x00FF), stmt(5, 0x00FF)]
    s = session([bounds], block=(16, 1, 1))
    states = s.lane_states(2)
    assert np.all(states[0, :8] == ws.LANE_ACTIVE)
    assert np.all(states[0, 8:16] == ws.LANE_EXITED)
    assert np.all(states[0, 16:] == ws.LANE_IDLE)


def test_a_warp_whose_next_step_is_a_barrier_waits_at_the_barrier_while_others_work():
    w0 = [stmt(2), branch(3, FULL, FULL), stmt(4), stmt(6, kind="barrier"), stmt(7)]
    w1 = [stmt(2), branch(3, FULL, 0), stmt(6, kind="barrier"), stmt(7)]
    s = session([w0, w1])
    states = s.lane_states(2)
    assert np.all(states[1] == ws.LANE_BARRIER)
    assert np.all(s.lane_states(3) == ws.LANE_BARRIER)


def test_next_divergence_skips_uniform_branches_and_finds_the_split():
    w = [branch(2, FULL, FULL), stmt(3), branch(4, FULL, 0), stmt(5), branch(6, FULL, EVEN), stmt(7, EVEN)]
    s = session([w])
    assert s.next_divergence(0) == 4
    assert s.next_divergence(4) is None


def test_next_memory_finds_loads_and_stores_in_order():
    addresses = tuple(range(0, 128, 4))
    w = [
        stmt(2),
        stmt(3, kind="load", addresses=addresses, space="global", buffer="a"),
        stmt(4),
        stmt(5, kind="store", addresses=addresses, space="global", buffer="c"),
    ]
    s = session([w])
    assert s.next_memory(0) == 1
    assert s.next_memory(1) == 3
    assert s.next_memory(3) is None


def global_step(addresses):
    used = [a for a in addresses if a is not None]
    return stmt(
        3,
        kind="load",
        mask=sum(1 << i for i, a in enumerate(addresses) if a is not None),
        addresses=tuple(addresses),
        space="global",
        buffer="a",
        sectors=tuple(sorted({a >> 5 for a in used})),
        lines=tuple(sorted({a >> 7 for a in used})),
    )


def test_a_coalesced_float_load_needs_and_fetches_four_sectors_of_one_line():
    base = 0x7F00_0000_0000
    m = ws.analyse_memory_step(global_step([base + 4 * i for i in range(32)]), 0, 4)
    assert (m.sectors_needed, m.sectors_fetched, len(m.lines)) == (4, 4, 1)
    assert m.efficiency == 1.0
    assert m.sector_of_lane[:9] == (0, 0, 0, 0, 0, 0, 0, 0, 1)


def test_a_stride_two_load_fetches_twice_the_sectors_it_needs():
    base = 0x7F00_0000_0000
    m = ws.analyse_memory_step(global_step([base + 8 * i for i in range(32)]), 0, 4)
    assert (m.sectors_needed, m.sectors_fetched, len(m.lines)) == (4, 8, 2)
    assert m.efficiency == pytest.approx(0.5)
    assert m.line_of_lane[15:17] == (0, 1)


def test_inactive_lanes_have_no_sector_and_do_not_count_as_needed():
    base = 0x7F00_0000_0000
    m = ws.analyse_memory_step(global_step([base + 4 * i if i % 2 == 0 else None for i in range(32)]), 0, 4)
    assert m.active_lanes == 16
    assert m.sector_of_lane[1] == -1
    assert m.sectors_needed == 2 and m.sectors_fetched == 4


def shared_step(addresses, degree):
    return stmt(3, kind="load", addresses=tuple(addresses), space="shared", buffer="tile", bank_conflict_degree=degree)


def test_a_column_read_of_a_32_wide_shared_tile_hits_one_bank_32_times():
    m = ws.analyse_memory_step(shared_step([0x0100_0000 + 128 * i for i in range(32)], 32), 0, 4)
    assert m.words_per_bank[0] == 32 and sum(m.words_per_bank) == 32
    assert m.conflict_degree == 32
    assert m.efficiency == pytest.approx(1 / 32)


def test_a_padded_tile_spreads_a_column_read_over_all_32_banks():
    m = ws.analyse_memory_step(shared_step([0x0100_0000 + 132 * i for i in range(32)], 1), 0, 4)
    assert m.words_per_bank == (1,) * 32
    assert sorted(m.bank_of_lane) == list(range(32))
    assert m.efficiency == 1.0


def test_lanes_reading_the_same_shared_word_are_one_broadcast_not_a_conflict():
    m = ws.analyse_memory_step(shared_step([0x0100_0000] * 32, 1), 0, 4)
    assert m.words_per_bank[0] == 1 and len(m.lanes_per_bank[0]) == 32


def test_buffer_itemsizes_reads_pointer_parameters_and_shared_arrays():
    source = """extern "C" __global__ void k(const float* __restrict__ a, double *b, int n) {
        __shared__ float tile[16][17];
        __shared__ unsigned long long acc[32];
    }"""
    assert ws.buffer_itemsizes(source) == {"a": 4, "b": 8, "tile": 4, "acc": 8}


def test_lane_info_names_the_thread_and_its_address_at_a_memory_step():
    addresses = tuple(0x7F00_0000_0000 + 4 * i for i in range(32))
    w1 = [stmt(2), stmt(3, kind="load", addresses=addresses, space="global", buffer="a")]
    s = ws.WarpSession(
        source="",
        entry="k",
        shape=ws.LaunchShape((4, 1, 1), (64, 1, 1)),
        block=2,
        warps=[4, 5],
        steps=[list(w1), list(w1)],
    )
    info = s.lane_info(1, 1, 3)
    assert info.thread == (35, 0, 0) and info.block == (2, 0, 0)
    assert info.global_thread == 2 * 64 + 35
    assert info.address == addresses[3]
    assert info.state == ws.LANE_ACTIVE


def test_timeline_of_a_warp_is_a_staircase_of_active_lanes_with_timeline_positions():
    w0 = [stmt(2), branch(3, FULL, FULL), stmt(4), stmt(7)]
    w1 = [stmt(2), branch(3, FULL, EVEN), stmt(4, EVEN), stmt(6, ODD), stmt(7)]
    s = session([w0, w1])
    t = s.timeline(1)
    assert list(t.active_lanes) == [32, 32, 16, 16, 32]
    assert list(t.global_step) == [0, 1, 2, 3, 4]
    assert list(s.timeline(0).global_step) == [0, 1, 2, 4]


def test_memory_of_a_non_memory_step_is_none():
    s = session([even_odd_warp()])
    assert s.memory(0) is None


def test_run_session_traces_the_selected_blocks_warps_and_passes_cancel_through():
    seen = {}

    def fake_launch(source, entry, **kw):
        seen.update(kw)
        return SimpleNamespace(metrics={"branch_efficiency": 50.0}, trace={w: even_odd_warp() for w in kw["trace"]})

    cancel = threading.Event()
    s = ws.run_session(
        "src",
        "k",
        (4, 1, 1),
        (48, 1, 1),
        [np.zeros(4)],
        block_index=3,
        cancel=cancel,
        launch=fake_launch,
        expected={0: np.zeros(4)},
        compare=lambda a, e: True,
    )
    assert seen["trace"] == [6, 7] and seen["cancel"] is cancel
    assert s.truncated is False
    assert s.warps == [6, 7] and s.metrics["branch_efficiency"] == 50.0
    assert s.reference_match is True
    assert np.all(s.lane_states(0)[1, 16:] == ws.LANE_IDLE)


def test_run_session_refuses_a_block_outside_the_grid():
    with pytest.raises(ws.SessionError, match="outside the grid"):
        ws.run_session("src", "k", (2, 1, 1), (32, 1, 1), [], block_index=2, launch=lambda *a, **k: None)


# ------------------------------------------------------------------ the emulator child process

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


def test_cancelling_stops_a_long_emulation_promptly_and_the_child_serves_the_next_run(child):
    import time

    from gpulab import simt

    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    started = time.monotonic()
    request = ws.SessionRequest(SPIN, "spin", (1,), (32,), [np.zeros(32, np.int32), np.int32(10**9)], max_steps=10**12)
    with pytest.raises(simt.Cancelled):
        child.run(request, cancel)
    timer.join()
    assert time.monotonic() - started < 5
    assert child.running
    assert child.run(divergent_request()).reference_match is True


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ["divergence_even_odd", "load_strided", "transpose_shared", "reduce_interleaved"])
def test_on_a_gpu_the_same_source_gives_the_emulated_outputs_and_a_measured_time(entry):
    from gpulab import kernels

    spec = kernels.get(entry)
    preset = spec.presets[0]
    session = ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
    run = ws.run_on_gpu(session, spec.build_args(preset), repeats=5, rtol=spec.rtol, atol=spec.atol)
    assert run.matches and run.all_match
    assert len(run.times_s) == 5 and 0 < run.median_s < 1.0


def test_a_launch_wide_sequence_number_orders_the_timeline_when_the_emulator_gives_one():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class SeqStep:
        line: int
        col_start: int
        col_end: int
        kind: str
        active_mask: int
        seq: int
        taken_mask: int | None = None
        addresses: tuple | None = None

        @property
        def active_lanes(self) -> int:
            return bin(self.active_mask).count("1")

    # Source order would run warp 1's line 9 first and step both warps' line 9 together;
    # the sequence numbers say otherwise.
    w0 = [SeqStep(12, 1, 2, "stmt", FULL, 0), SeqStep(9, 1, 2, "stmt", FULL, 2)]
    w1 = [SeqStep(9, 1, 2, "stmt", FULL, 1), SeqStep(12, 1, 2, "stmt", FULL, 3)]
    s = session([w0, w1])
    assert [s.line(g) for g in range(len(s))] == [12, 9, 9, 12]
    assert [s.participants(g) for g in range(len(s))] == [[0], [1], [0], [1]]


def test_last_active_step_of_each_lane_is_found_without_a_lanes_by_steps_blow_up():
    long_warp = [stmt(2)] * 5000 + [stmt(3, EVEN)] + [stmt(4, 0x1)]
    s = session([long_warp], block=(32, 1, 1))
    last = s._last_active_step()
    assert last[0, 0] == 5001 and last[0, 2] == 5000 and last[0, 1] == 4999


def test_a_step_table_gives_back_every_trace_step_exactly_and_pickles_to_a_few_objects():
    import gc
    import pickle

    from gpulab import kernels, simt

    spec = kernels.get("transpose_shared")
    preset = spec.presets[0]
    result = simt.launch(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset), trace=[0, 1])
    steps = result.trace[0] + result.trace[1]
    assert any(s.addresses for s in steps) and any(s.space == "shared" for s in steps)
    table = ws.StepTable(steps)
    assert len(table) == len(steps)
    assert [table[i] for i in range(len(table))] == steps
    assert table[-1] == steps[-1] and table[1:3] == steps[1:3]
    before = len(gc.get_objects())
    copy = pickle.loads(pickle.dumps(table))
    assert len(gc.get_objects()) - before < 40
    assert copy[5] == steps[5]


def test_a_session_says_when_the_emulator_cut_the_trace_short():
    def fake_launch(source, entry, **kw):
        return SimpleNamespace(metrics={}, trace={w: even_odd_warp() for w in kw["trace"]}, trace_truncated=True)

    s = ws.run_session("src", "k", (1, 1, 1), (32, 1, 1), [], launch=fake_launch)
    assert s.truncated is True


# ------------------------------------------------------------------ emulator trace: seq, exited, itemsize, registers

EVEN_ODD_ENTRY = "divergence_even_odd"


def even_odd_session(n=64):
    from gpulab import kernels

    spec = kernels.get(EVEN_ODD_ENTRY)
    values = (np.arange(64, dtype=np.uint32) * 1000 + 7).astype(np.uint32)
    args = [values, np.zeros(64, np.uint32), np.int32(n)]
    return values, ws.run_session(spec.source, spec.entry, (1,), (64,), args)


def first_step_on_line(s, line, kind="stmt"):
    return next(g for g in range(len(s)) if s.line(g) == line and s.step(g).kind == kind)


def test_after_the_index_statement_lane_5_of_warp_1_in_block_0_has_i_37():
    _, s = even_odd_session()
    g = first_step_on_line(s, 9)
    regs = s.lane_registers(g, 1, 5)
    assert regs["i"] == 37 and regs["n"] == 64
    assert "v" not in regs
    assert s.lane_registers(g, 0, 5)["i"] == 5


def test_on_the_odd_path_v_follows_the_odd_formula_not_the_even_one():
    values, s = even_odd_session()
    g = first_step_on_line(s, 17)  # v = v * 5 + 7;
    x = int(values[37])
    assert s.lane_registers(g, 1, 5)["v"] == (x * 5 + 7) % 2**32
    assert s.lane_registers(g, 1, 5)["v"] != (x * 3 + 1) % 2**32
    assert s.lane_registers(g - 1, 1, 5)["v"] == x  # before the odd path: the loaded value


def test_lane_info_carries_the_lanes_registers_and_register_types_name_their_c_types():
    _, s = even_odd_session()
    g = first_step_on_line(s, 9)
    assert s.lane_info(g, 1, 5).registers == s.lane_registers(g, 1, 5)
    assert s.register_types(g, 1) == {"in": "unsigned int*", "out": "unsigned int*", "n": "int", "i": "int"}


def test_lane_registers_are_empty_for_a_session_without_register_traces():
    s = session([even_odd_warp(), even_odd_warp()])
    assert s.lane_registers(2, 0, 3) == {} and s.register_types(2, 0) == {}
    assert s.lane_info(2, 0, 3).registers == {}


def test_lane_registers_are_empty_before_the_warps_first_step():
    _, real = even_odd_session()
    w0 = [TraceStep(8, 1, 2, "stmt", FULL, seq=1), TraceStep(9, 1, 2, "stmt", FULL, seq=5)]
    w1 = [TraceStep(9, 1, 2, "stmt", FULL, seq=5)]
    late = session([w0, w1])
    late.registers = list(real.registers)
    assert late.lane_registers(0, 1, 0) == {}
    assert late.lane_registers(1, 1, 0)["i"] == 32


LATE_DEFINITION = """__device__ unsigned int later(unsigned int x);
extern "C" __global__ void k(unsigned int* out) {
    unsigned int v = threadIdx.x;
    if (threadIdx.x < 32) {
        v = later(v);
    } else {
        v = v + 1;
    }
    out[threadIdx.x] = v;
}
__device__ unsigned int later(unsigned int x) {
    return x * 3;
}
"""


def test_the_emulators_sequence_numbers_put_a_call_to_a_later_function_before_the_else_side():
    import dataclasses

    s = ws.run_session(LATE_DEFINITION, "k", (1,), (64,), [np.zeros(64, np.uint32)])
    lines = [s.line(g) for g in range(len(s))]
    assert lines.index(12) < lines.index(7)  # warp 0 returns from later() before warp 1 runs the else side
    assert s.participants(lines.index(12)) == [0] and s.participants(lines.index(7)) == [1]
    without_seq = [[dataclasses.replace(step, seq=None) for step in steps] for steps in s.steps]
    guessed = ws.merge_steps(without_seq)
    guessed_lines = [without_seq[int(np.flatnonzero(r >= 0)[0])][int(r[r >= 0][0])].line for r in guessed]
    assert guessed_lines.index(7) < guessed_lines.index(12)  # source order alone gets it wrong


def test_merging_by_sequence_number_reads_a_step_table_column_and_matches_the_list_merge():
    s = ws.run_session(LATE_DEFINITION, "k", (1,), (64,), [np.zeros(64, np.uint32)])
    tables = [ws.StepTable(steps) for steps in s.steps]
    assert np.array_equal(ws.merge_steps(tables), s.step_at)


EARLY_RETURN = """extern "C" __global__ void k(int* out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    if (i < n - 4) {
        out[i] = 1;
    }
    out[i] += 10;
}
"""


def test_returned_lanes_show_as_exited_and_lanes_skipping_an_if_body_as_masked():
    s = ws.run_session(EARLY_RETURN, "k", (1,), (32,), [np.zeros(32, np.int32), np.int32(20)])
    g = first_step_on_line(s, 5)
    states = s.lane_states(g)[0]
    assert np.all(states[:16] == ws.LANE_ACTIVE)
    assert np.all(states[16:20] == ws.LANE_MASKED)  # alive, waiting for the if to end: not exited
    assert np.all(states[20:] == ws.LANE_EXITED)
    assert np.all(s.lane_states(len(s) - 1)[0, 16:20] == ws.LANE_ACTIVE)


def test_a_memory_step_uses_the_item_size_the_emulator_traced_over_the_declarations():
    addresses = tuple(0x7F00_0000_0000 + 8 * i for i in range(32))
    load = stmt(3, kind="load", addresses=addresses, space="global", buffer="a", itemsize=8)
    s = session([[stmt(2), load]], block=(32, 1, 1), source="__global__ void k(const float* a) {}")
    assert s.itemsizes["a"] == 4
    m = s.memory(1)
    assert m is not None and m.itemsize == 8 and m.sectors_needed == 8


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
