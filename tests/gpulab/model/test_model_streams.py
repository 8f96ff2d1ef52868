"""The stream model against schedules worked out by hand, its chunk plan, and the diagnosis rule.

Times are whole seconds where the case allows, so each expected start can be checked on paper."""

from __future__ import annotations

import itertools

import pytest

from gpulab.model.roofline import memory_share
from gpulab.model.streams import (
    DEFAULT_STREAM,
    TOGETHER_SHARE,
    ChunkCosts,
    Machine,
    Op,
    Setup,
    chunked_program,
    concurrency,
    diagnose,
    ideal_seconds,
    machine_assumptions,
    machine_for,
    plan_chunk,
    simulate,
    sm_share,
)
from gpulab.specs import load_specs
from gpulab.timeline import TimelineOp, span_seconds

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
    with pytest.raises(ValueError, match="both_ways_share"):
        Machine(both_ways_share=(0.0, 1.0))


# ---------------------------------------------------------------- copies both ways share the host link

IN_2_OUT_1 = [Op("in", 1, "h2d", 2.0), Op("out", 2, "d2h", 1.0)]  # full-rate seconds of work


def test_a_copy_in_and_a_copy_out_at_once_each_go_at_their_share_until_the_other_ends():
    # Both at half rate: the copy out's 1 s of work ends at 2 s; the copy in has done 1 of its 2 s
    # by then and does the rest alone at its full rate, ending at 3 s.
    assert _schedule(IN_2_OUT_1, Machine(issue_s=0.0, both_ways_share=(0.5, 0.5))) == {"in": (0, 3), "out": (0, 2)}
    # Gen4's asymmetry: the copy in keeps 47%, the copy out 94%.
    times = _schedule(IN_2_OUT_1, Machine(issue_s=0.0, both_ways_share=(0.47, 0.94)))
    out_end = 1 / 0.94
    assert times["out"] == pytest.approx((0, out_end))
    assert times["in"] == pytest.approx((0, out_end + (2 - 0.47 * out_end)))


def test_copies_alone_or_beside_a_kernel_or_on_one_shared_engine_keep_their_full_rate():
    halved = (0.5, 0.5)
    beside_kernel = [Op("in", 1, "h2d", 2.0), Op("k", 2, "kernel", 1.0)]
    assert _schedule(beside_kernel, Machine(issue_s=0.0, both_ways_share=halved)) == {"in": (0, 2), "k": (0, 1)}
    one_engine = Machine(issue_s=0.0, copy_engines=1, both_ways_share=halved)
    assert _schedule(IN_2_OUT_1, one_engine) == {"in": (0, 2), "out": (2, 3)}  # they take turns instead


def test_a_gpu_shares_its_link_as_its_pcie_generation_does_and_the_notes_say_so(toy):
    specs = load_specs()
    assert machine_for(toy).both_ways_share == (0.47, 0.94)  # Gen4
    assert machine_for(specs["h100-sxm"]).both_ways_share == (0.90, 0.90)  # Gen5
    assert machine_for(toy, copy_engines=1).copy_engines == 1
    texts = " ".join(machine_assumptions(machine_for(toy), toy))
    assert "the copy in goes at 47% of its one-way rate and the copy out at 94%" in texts
    assert "an SM of the Toy GPU holds 2048 threads" in texts
    one_engine = " ".join(machine_assumptions(machine_for(toy, copy_engines=1)))
    assert "47%" not in one_engine  # one engine: the copies never run at once


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
    # 8 bytes per element at the toy's 1000 GB/s, times the share a streaming kernel achieves
    assert plan.pinned.kernel_s == pytest.approx(8 * plan.elements / (memory_share(toy).share * 1e12))


def test_a_small_chunk_fills_only_a_share_of_the_sms(toy):
    assert sm_share(256, toy.sm_count, toy.max_threads_per_sm) == pytest.approx(256 / (10 * 2048))
    assert plan_chunk(toy, 1024, 1.0).pinned.sm_fraction < 0.02
    with pytest.raises(ValueError, match="threads_per_sm"):
        sm_share(256, 10, 0)


def test_the_sm_share_counts_the_threads_each_gpus_sms_hold():
    specs = load_specs()
    chunk = 1 << 18  # 65,536 floats: 256 blocks of 256 threads
    for key, threads in (("t4", 1024), ("rtx-4090", 1536), ("a100-sxm4-80gb", 2048)):
        spec = specs[key]
        assert spec.max_threads_per_sm == threads
        share = plan_chunk(spec, chunk, 1.0).pinned.sm_fraction
        assert share == pytest.approx(min(1.0, 65536 / (spec.sm_count * threads)))
    assert plan_chunk(specs["t4"], chunk, 1.0).pinned.sm_fraction == 1.0  # 40 SMs x 1024 < 65,536 threads


# ---------------------------------------------------------------- diagnosis


def _diagnosis(setup, program, machine=NO_ISSUE_COST, baseline_s=None):
    return diagnose(setup, simulate(program, machine), baseline_s)


def test_balanced_streams_are_diagnosed_as_overlapping_with_their_speedup():
    messages = _diagnosis(Setup(4, kernel_sm_share=0.5, issue_s=0.0), chunked_program(8, 4, UNIT), baseline_s=24)
    assert _keys(messages) == ["overlapping"]
    # copies ran under kernels from 1 s to 9 s of the 10
    assert messages[0].args["speedup"] == "2.4" and messages[0].args["percent"] == "80%"


@pytest.mark.parametrize(("setup", "options", "expected"), [
    (Setup(1, issue_s=0.0), {"streams": 1}, ["serial", "one-stream"]),
    (Setup(4, pageable=True, issue_s=0.0), {"pageable": True}, ["serial", "pageable"]),
    # copy out i beside copy in i+1, but never a copy beside a kernel
    (Setup(4, kernels_on_default=True, issue_s=0.0), {"kernels_on_default": True}, ["copies-only", "default-stream"]),
])  # fmt: skip
def test_each_cause_of_lost_overlap_is_named_after_what_the_schedule_did(setup, options, expected):
    streams = options.pop("streams", 4)
    assert _keys(_diagnosis(setup, chunked_program(8, streams, UNIT, **options))) == expected


def test_kernels_on_the_default_stream_overlap_no_copy_even_when_kernels_are_four_times_the_copies():
    heavy = ChunkCosts(1.0, 4.0, 1.0, 100, 100)
    program = chunked_program(8, 4, heavy, kernels_on_default=True)
    one_stream_s = span_seconds(simulate(chunked_program(8, 1, heavy), NO_ISSUE_COST))
    keys = _keys(_diagnosis(Setup(4, kernels_on_default=True, issue_s=0.0), program, baseline_s=one_stream_s))
    assert "overlapping" not in keys and keys[:2] == ["copies-only", "default-stream"]


@pytest.mark.parametrize("options", [{}, {"pageable": True}, {"kernels_on_default": True}])
@pytest.mark.parametrize("streams", [1, 4])
def test_one_chunk_cannot_overlap_anything_whatever_the_configuration(streams, options):
    setup = Setup(streams, pageable=options.get("pageable", False),
                  kernels_on_default=options.get("kernels_on_default", False), issue_s=0.0)  # fmt: skip
    keys = _keys(_diagnosis(setup, chunked_program(1, streams, COSTS_1_2_1, **options)))
    assert keys == ["one-chunk"]  # it says why nothing overlapped, and nothing else


def test_chunks_too_small_for_the_fixed_costs_are_named_with_their_longest_step():
    tiny = ChunkCosts(4e-6, 4e-6, 4e-6, 1024, 1024, sm_fraction=0.01)
    messages = _diagnosis(Setup(4, kernel_sm_share=0.01, issue_s=5e-6), chunked_program(8, 4, tiny), Machine())
    # each 4 µs op ends before the host, at 5 µs a call, issues the next: nothing ran together
    assert _keys(messages) == ["serial", "small-chunks"] and messages[1].args["number"] == "4"


def test_kernels_that_fill_the_gpu_and_a_single_copy_engine_are_named_as_what_sets_the_pace():
    heavy = ChunkCosts(1.0, 4.0, 1.0, 100, 100)
    assert _keys(_diagnosis(Setup(4, issue_s=0.0), chunked_program(8, 4, heavy))) == ["overlapping", "kernel-fills-gpu"]
    light = ChunkCosts(1.0, 0.5, 1.0, 100, 100)
    one_engine = Machine(issue_s=0.0, copy_engines=1)
    keys = _keys(_diagnosis(Setup(4, copy_engines=1, issue_s=0.0), chunked_program(8, 4, light), one_engine))
    assert keys == ["overlapping", "one-copy-engine"]


def test_an_empty_timeline_has_no_diagnosis():
    assert diagnose(Setup(4), ()) == []


def test_ops_that_only_touch_or_share_a_sliver_of_time_did_not_run_together():
    def op(kind, start, duration):
        return TimelineOp(kind, "stream 1", kind, start, duration, 0, kind)

    assert concurrency([op("h2d", 0.0, 1.0), op("kernel", 1.0, 1.0)]) == frozenset()  # end meets start
    sliver = TOGETHER_SHARE / 2
    assert concurrency([op("h2d", 0.0, 1.0), op("kernel", 1.0 - sliver, 1.0)]) == frozenset()  # event jitter
    assert concurrency([op("h2d", 0.0, 1.0), op("kernel", 0.5, 1.0)]) == {"copy+kernel"}
    assert concurrency([op("h2d", 0.0, 1.0), op("d2h", 0.5, 1.0)]) == {"in+out"}
    assert concurrency([op("kernel", 0.0, 1.0), op("kernel", 0.5, 1.0)]) == {"kernel+kernel"}


# ---------------------------------------------------------------- the verdict follows the schedule


def _ran_together_by_hand(a, b):
    """Interval intersection longer than the shared sliver, written out again for the test."""
    shared = min(a.start_s + a.duration_s, b.start_s + b.duration_s) - max(a.start_s, b.start_s)
    return shared > 0 and shared > TOGETHER_SHARE * min(a.duration_s, b.duration_s)


def _copy_beside_kernel(ops):
    return any(_ran_together_by_hand(a, b) for a in ops if a.kind in ("h2d", "d2h") for b in ops if b.kind == "kernel")


GRID = list(itertools.product(
    (1, 2, 4),                      # streams
    (1, 2, 8),                      # chunks
    (False, True),                  # pageable
    (False, True),                  # kernels on the legacy default stream
    (1, 2),                         # copy engines
    (0.25, 1.0, 4.0),               # kernel time / copy time
    (0.0, 0.3),                     # host seconds per call, against 1 s copies
))  # fmt: skip


@pytest.mark.parametrize(("streams", "chunks", "pageable", "on_default", "engines", "ratio", "issue_s"), GRID)
def test_overlap_is_claimed_exactly_when_a_copy_ran_beside_a_kernel(streams, chunks, pageable, on_default, engines,
                                                                    ratio, issue_s):  # fmt: skip
    costs = ChunkCosts(1.0, ratio, 1.0, 100, 100, sm_fraction=0.5)
    machine = Machine(issue_s=issue_s, copy_engines=engines, both_ways_share=(0.47, 0.94))
    ops = simulate(chunked_program(chunks, streams, costs, pageable=pageable, kernels_on_default=on_default), machine)
    setup = Setup(streams, pageable, on_default, engines, 0.5, issue_s)
    keys = _keys(diagnose(setup, ops, baseline_s=1.0))
    assert ("overlapping" in keys) == _copy_beside_kernel(ops)
    if _copy_beside_kernel(ops):
        assert keys[0] == "overlapping" and not {"serial", "copies-only", "one-chunk"} & set(keys)
        return
    assert ("one-chunk" in keys) == (chunks == 1)
    if chunks == 1:
        assert keys[0] == "one-chunk" and not {"serial", "copies-only", "kernels-only"} & set(keys)
        return
    in_out = any(_ran_together_by_hand(a, b) for a in ops if a.kind == "h2d" for b in ops if b.kind == "d2h")
    kernels = any(_ran_together_by_hand(a, b) for a, b in itertools.combinations(ops, 2)
                  if a.kind == b.kind == "kernel")  # fmt: skip
    assert ("copies-only" in keys) == in_out and ("kernels-only" in keys) == kernels
    assert ("serial" in keys) == (not in_out and not kernels)
    # each setting that forbids a copy beside a kernel is named
    assert ("one-stream" in keys) == (streams == 1)
    assert ("pageable" in keys) == pageable
    assert ("default-stream" in keys) == on_default
