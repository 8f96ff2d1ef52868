"""Trace steps: merged into one timeline by the emulator's sequence numbers, stored as numpy columns."""

from __future__ import annotations

import numpy as np

from gpulab.experiments import warp as ws


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
