"""The stream model against schedules worked out by hand, its chunk plan, and the diagnosis rule.

Times are whole seconds where the case allows, so each expected start can be checked on paper."""

from __future__ import annotations

import pytest

from gpulab.model.streams import (
    DEFAULT_STREAM,
    ChunkCosts,
    Machine,
    Op,
    Setup,
    chunked_program,
    diagnose,
    ideal_seconds,
    plan_chunk,
    simulate,
    sm_share,
)
from gpulab.timeline import span_seconds

NO_ISSUE_COST = Machine(issue_s=0.0)


def _schedule(program, machine=NO_ISSUE_COST):
    """{op name: (start, end)} of a simulated program."""
    return {op.name: (op.start_s, op.end_s) for op in simulate(program, machine)}


def _keys(messages):
    return [m.key.rsplit(".", 1)[1] for m in messages]


COSTS_1_2_1 = ChunkCosts(h2d_s=1.0, kernel_s=2.0, d2h_s=1.0, bytes_in=100, bytes_out=100)
UNIT = ChunkCosts(1.0, 1.0, 1.0, 100, 100)


def test_one_stream_runs_every_op_after_the_one_before():
    times = _schedule(chunked_program(2, 1, COSTS_1_2_1))
    assert times == {"H2D 0": (0, 1), "kernel 0": (1, 3), "D2H 0": (3, 4),
                     "H2D 1": (4, 5), "kernel 1": (5, 7), "D2H 1": (7, 8)}  # fmt: skip


def test_two_streams_copy_the_next_chunk_in_while_the_first_computes():
    times = _schedule(chunked_program(2, 2, COSTS_1_2_1))
    assert times == {"H2D 0": (0, 1), "kernel 0": (1, 3), "D2H 0": (3, 4),
                     "H2D 1": (1, 2), "kernel 1": (3, 5), "D2H 1": (5, 6)}  # the SMs are full until 3  # fmt: skip


def test_balanced_chunks_on_enough_streams_take_chunks_plus_two_stages():
    ops = simulate(chunked_program(8, 4, UNIT), NO_ISSUE_COST)
    assert span_seconds(ops) == 10  # vs 24 on one stream: 2.4 times faster
    assert ideal_seconds(ops) == 10


def test_pageable_copies_block_the_host_so_streams_change_nothing():
    assert _schedule(chunked_program(2, 2, COSTS_1_2_1, pageable=True)) == _schedule(chunked_program(2, 1, COSTS_1_2_1))


def test_kernels_on_the_legacy_default_stream_wait_for_every_stream_and_hold_back_later_work():
    times = _schedule(chunked_program(2, 2, UNIT, kernels_on_default=True))
    # H2D 1 is issued after kernel 0 (default stream): it waits for it, and overlaps D2H 0 only.
    assert times == {"H2D 0": (0, 1), "kernel 0": (1, 2), "D2H 0": (2, 3),
                     "H2D 1": (2, 3), "kernel 1": (3, 4), "D2H 1": (4, 5)}  # fmt: skip
    assert span_seconds(simulate(chunked_program(2, 2, UNIT), NO_ISSUE_COST)) == 4


def test_one_copy_engine_makes_copies_in_and_out_take_turns_in_issue_order():
    two = _schedule(chunked_program(3, 3, UNIT))
    one = _schedule(chunked_program(3, 3, UNIT), Machine(issue_s=0.0, copy_engines=1))
    assert max(end for _start, end in two.values()) == 5
    # At t=2, D2H 0 (issued earlier) takes the engine before H2D 2; at t=3 D2H 1 does again.
    assert one["D2H 0"] == (2, 3) and one["D2H 1"] == (3, 4) and one["H2D 2"] == (4, 5)
    assert one["D2H 2"] == (6, 7)


def test_kernels_run_side_by_side_only_while_their_shares_of_the_sms_fit():
    def two_kernels(share):
        return [Op("a", 1, "kernel", 2.0, sm_fraction=share), Op("b", 2, "kernel", 2.0, sm_fraction=share)]

    assert _schedule(two_kernels(0.5)) == {"a": (0, 2), "b": (0, 2)}
    assert _schedule(two_kernels(0.6)) == {"a": (0, 2), "b": (2, 4)}
    assert _schedule(two_kernels(1.0)) == {"a": (0, 2), "b": (2, 4)}


def test_the_host_issues_one_call_per_issue_time_so_tiny_ops_start_apart():
    program = [Op(f"k{i}", 1 + i, "kernel", 0.5, sm_fraction=0.1) for i in range(3)]
    assert _schedule(program, Machine(issue_s=1.0)) == {"k0": (1, 1.5), "k1": (2, 2.5), "k2": (3, 3.5)}


def test_a_pageable_copy_keeps_the_host_from_issuing_until_it_ends():
    program = [Op("H2D", 1, "h2d", 2.0, pageable=True), Op("kernel", 2, "kernel", 1.0)]
    assert _schedule(program, Machine(issue_s=0.5)) == {"H2D": (0.5, 2.5), "kernel": (3.0, 4.0)}
    pinned = [Op("H2D", 1, "h2d", 2.0), Op("kernel", 2, "kernel", 1.0)]
    assert _schedule(pinned, Machine(issue_s=0.5)) == {"H2D": (0.5, 2.5), "kernel": (1.0, 2.0)}


def test_the_timeline_names_lanes_and_engines():
    ops = simulate(chunked_program(1, 1, UNIT, kernels_on_default=True), Machine(issue_s=0.0, copy_engines=1))
    assert [(op.lane, op.engine, op.kind, op.bytes) for op in ops] == [
        ("stream 1", "copy", "h2d", 100), ("default", "compute", "kernel", 0), ("stream 1", "copy", "d2h", 100)]
    assert DEFAULT_STREAM == 0


def test_bad_ops_and_machines_are_refused():
    with pytest.raises(ValueError, match="kind"):
        Op("x", 1, "memset", 1.0)
    with pytest.raises(ValueError, match="sm_fraction"):
        Op("x", 1, "kernel", 1.0, sm_fraction=0.0)
    with pytest.raises(ValueError, match="copy_engines"):
        Machine(copy_engines=3)


# ---------------------------------------------------------------- the chunk plan


def test_a_balanced_chunk_has_a_kernel_as_long_as_its_copy_in(toy):
    plan = plan_chunk(toy, 1 << 23, 1.0)
    per_round_s = 2 * plan.elements / (toy.peak_flops("fp32") or 1)
    assert plan.pinned.kernel_s == pytest.approx(plan.pinned.h2d_s, abs=per_round_s)
    assert plan.pageable.h2d_s > plan.pinned.h2d_s  # pageable copies are slower
    assert plan.pinned.sm_fraction == 1.0 and plan.rounds > 0
    keys = [note.message.key for note in plan.assumptions]
    assert "streams.assumption.kernel" in keys and "model.assumption.no-copy-overlap" not in keys


def test_a_kernel_cannot_be_shorter_than_its_dram_traffic(toy):
    plan = plan_chunk(toy, 1 << 23, 0.0)
    assert plan.rounds == 0
    assert plan.pinned.kernel_s == pytest.approx(8 * plan.elements / 1e12)  # 8 bytes per element at 1000 GB/s


def test_a_small_chunk_fills_only_a_share_of_the_sms(toy):
    assert sm_share(256, toy.sm_count) == pytest.approx(256 / (10 * 2048))
    assert plan_chunk(toy, 1024, 1.0).pinned.sm_fraction < 0.02


# ---------------------------------------------------------------- diagnosis


def _diagnosis(setup, program, machine=NO_ISSUE_COST, baseline_s=None):
    return diagnose(setup, simulate(program, machine), baseline_s)


def test_balanced_streams_are_diagnosed_as_overlapping_with_their_speedup():
    messages = _diagnosis(Setup(4, kernel_sm_share=0.5, issue_s=0.0), chunked_program(8, 4, UNIT), baseline_s=24)
    assert _keys(messages) == ["overlapping"]
    assert messages[0].args["speedup"] == "2.4" and messages[0].args["percent"] == "80%"


@pytest.mark.parametrize(("setup", "options", "expected"), [
    (Setup(1, issue_s=0.0), {"streams": 1}, ["one-stream"]),
    (Setup(4, pageable=True, issue_s=0.0), {"pageable": True}, ["pageable"]),
    (Setup(4, kernels_on_default=True, issue_s=0.0), {"kernels_on_default": True}, ["default-stream"]),
])  # fmt: skip
def test_each_cause_of_lost_overlap_is_named(setup, options, expected):
    streams = options.pop("streams", 4)
    assert _keys(_diagnosis(setup, chunked_program(8, streams, UNIT, **options))) == expected


def test_chunks_too_small_for_the_fixed_costs_are_named_with_their_longest_step():
    tiny = ChunkCosts(4e-6, 4e-6, 4e-6, 1024, 1024, sm_fraction=0.01)
    messages = _diagnosis(Setup(4, kernel_sm_share=0.01, issue_s=5e-6), chunked_program(8, 4, tiny), Machine())
    assert _keys(messages) == ["small-chunks"] and messages[0].args["number"] == "4"


def test_kernels_that_fill_the_gpu_and_a_single_copy_engine_are_named_as_what_sets_the_pace():
    heavy = ChunkCosts(1.0, 4.0, 1.0, 100, 100)
    assert _keys(_diagnosis(Setup(4, issue_s=0.0), chunked_program(8, 4, heavy))) == ["overlapping", "kernel-fills-gpu"]
    light = ChunkCosts(1.0, 0.5, 1.0, 100, 100)
    one_engine = Machine(issue_s=0.0, copy_engines=1)
    keys = _keys(_diagnosis(Setup(4, copy_engines=1, issue_s=0.0), chunked_program(8, 4, light), one_engine))
    assert keys == ["overlapping", "one-copy-engine"]


def test_an_empty_timeline_has_no_diagnosis():
    assert diagnose(Setup(4), ()) == []
