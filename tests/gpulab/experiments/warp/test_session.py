"""The warp session: timeline merge, lane states, jumps, lanes and registers (fake traces and the emulator)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from gpulab.experiments import warp as ws
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
