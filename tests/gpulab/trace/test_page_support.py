"""What the trace page needs from the engine: one step judged from the whole diagnosis (no second
reading of the events), and a lab's modelled timeline never called measured."""

from __future__ import annotations

from gpulab.results import Point, Provenance, Result, Series
from gpulab.timeline import TimelineOp, ops_to_json
from gpulab.trace import diagnose, for_step, read_trace, to_result
from tests.gpulab.trace.builders import Kineto, busy_kernels


def _two_steps(tmp_path):
    trace = Kineto(rank=0)
    trace.annotation("ProfilerStep#1", 0.0, 2050.0)
    busy_kernels(trace, start=10, count=20)
    trace.annotation("ProfilerStep#2", 2100.0, 4000.0)
    t = 2110.0
    for _ in range(40):  # tiny kernels launched late: the GPU waits for the CPU
        trace.kernel("vectorized_elementwise_kernel", t, 2.0, launch_at=t - 3.0, launch_dur=4.0)
        t += 60.0
    return read_trace(trace.write(tmp_path / "steps.json"))


def test_one_step_from_the_whole_diagnosis_is_what_diagnosing_that_step_finds(tmp_path):
    trace = _two_steps(tmp_path)
    whole = diagnose(trace)
    for step in (1, 2):
        quick, slow = for_step(whole, step), diagnose(trace, step)
        assert quick.step == step and quick.ranks[0].figures() == slow.ranks[0].figures()
        assert [f.key for f in quick.findings] == [f.key for f in slow.findings]
    assert [f.key for f in for_step(whole, 2).findings] != [f.key for f in for_step(whole, 1).findings]
    assert for_step(whole, None) is whole


def test_a_modelled_lab_timeline_stays_modelled_in_the_result(tmp_path):
    ops = (TimelineOp("H2D 0", "stream 1", "h2d", 0.0, 1e-4, 1 << 20, "h2d"),
           TimelineOp("kernel 0", "stream 1", "compute", 1e-4, 1e-4, 0, "kernel"))
    point = Point(x=1, y=0.2, extra={"ops": ops_to_json(ops), "configuration": "one"})
    series = Series("1 stream", Provenance("modelled", "H100 (model)"), "chunks", "", "time", "s", (point,))
    path = tmp_path / "streams.json"
    Result("streams", {}, (series,)).save(path)
    trace = read_trace(path)
    assert trace.provenance == "modelled"
    assert to_result(diagnose(trace)).series[0].provenance.kind == "modelled"
