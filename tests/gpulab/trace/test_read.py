"""The readers: Kineto JSON (plain, gzip, streamed), nsys SQLite, the lab's own timelines, steps
and the timeline lanes; every unreadable file a one-line error naming the file and the problem."""

from __future__ import annotations

import gzip
import sqlite3
import tracemalloc

import pytest

from gpulab.results import Point, Provenance, Result, Series
from gpulab.timeline import TimelineOp, ops_to_json
from gpulab.trace import TraceError, diagnose, read_trace, read_traces, step_window, timeline_ops
from gpulab.trace.model import CPU_LAUNCH, KERNEL, MEMCPY, STEP, SYNC
from tests.gpulab.trace.builders import Kineto, Nsys, busy_kernels, write_large_trace


def _stepped() -> Kineto:
    trace = Kineto(rank=3)
    for number, start in ((7, 0.0), (8, 2100.0)):
        trace.annotation(f"ProfilerStep#{number}", start, 2050.0)
        busy_kernels(trace, start=start + 10, count=20)
    return trace


def test_a_gzip_trace_reads_like_the_plain_one_with_rank_device_and_kinds(tmp_path):
    plain = read_trace(_stepped().write(tmp_path / "a.json"))
    packed = read_trace(_stepped().write(tmp_path / "a.json.gz", compress=True))
    assert plain.format == packed.format == "kineto" and plain.ranks == packed.ranks == [3]
    assert plain.device == "NVIDIA H100"
    assert [(e.kind, e.start_ns, e.dur_ns) for e in plain.events] == [(e.kind, e.start_ns, e.dur_ns)
                                                                        for e in packed.events]  # fmt: skip
    assert {e.kind for e in plain.events} == {KERNEL, CPU_LAUNCH, STEP}  # python frames and metadata dropped


def test_steps_are_found_and_one_step_can_be_judged_alone(tmp_path):
    trace = read_trace(_stepped().write(tmp_path / "a.json"))
    assert [(s.rank, s.number) for s in trace.steps()] == [(3, 7), (3, 8)]
    diagnosis = diagnose(trace, step=8)
    part = diagnosis.ranks[3]
    assert (part.start_ns, part.end_ns) == (2_100_000, 4_150_000) and part.kernels == 20
    assert [s.number for s, _ in diagnosis.per_step[3]] == [7, 8]
    with pytest.raises(TraceError, match=r"no profiler step 9 \(steps in the trace: 7, 8\)"):
        diagnose(trace, step=9)


def test_the_timeline_lanes_are_per_rank_and_stream_with_the_labs_op_type(tmp_path):
    trace = read_trace(_stepped().write(tmp_path / "a.json"))
    window = step_window(trace, 8)
    ops = timeline_ops(trace, rank=3, window_ns=window)
    assert all(isinstance(op, TimelineOp) for op in ops)
    lanes = {op.lane for op in ops}
    assert "rank 3 · stream 7" in lanes and "rank 3 · steps" in lanes
    kernels = [op for op in ops if op.kind == "kernel"]
    assert len(kernels) == 20 and kernels[0].start_s == pytest.approx(10e-6) and kernels[0].engine == "compute"
    assert not [op for op in timeline_ops(trace, host=False) if op.engine == "host"]


def test_several_files_without_distinct_ranks_become_one_rank_each(tmp_path):
    a = Kineto(rank=None)
    busy_kernels(a)
    b = Kineto(rank=None)
    busy_kernels(b)
    trace = read_traces([a.write(tmp_path / "a.json"), b.write(tmp_path / "b.json")])
    assert trace.ranks == [0, 1] and set(diagnose(trace).ranks) == {0, 1}


def test_an_nsys_export_reads_kernels_copies_calls_and_ranges(tmp_path):
    db = Nsys(tmp_path / "report.sqlite")
    db.range("ProfilerStep#3", 0, 2_000_000)
    for i in range(10):
        db.kernel("ampere_sgemm_128x64_nn", 10_000 + i * 101_000, 100_000)
    db.copy(1, 1, 3, 1_100_000, 400_000, 32 << 20)  # HtoD from pageable memory
    db.runtime("cudaDeviceSynchronize_v3020", 1_400_000, 120_000)
    db.close()
    trace = read_trace(tmp_path / "report.sqlite")
    assert trace.format == "nsys" and trace.ranks == [0]
    assert trace.rank_name(0) == "GPU 0 (NVIDIA H100 80GB HBM3)"
    copy = next(e for e in trace.events if e.kind == MEMCPY)
    assert (copy.direction, copy.memory, copy.bytes) == ("h2d", "pageable", 32 << 20)
    assert [e.name for e in trace.events if e.kind == SYNC] == ["cudaDeviceSynchronize"]
    assert [s.number for s in trace.steps()] == [3]
    diagnosis = diagnose(trace)
    assert {"pageable_copies", "transfers_on_critical_path"} <= {f.key for f in diagnosis.findings}


def test_the_streams_labs_saved_timeline_is_a_trace_of_its_configurations(tmp_path):
    ops = (TimelineOp("H2D 0", "default", "h2d", 0.0, 1e-3, 1 << 20, "h2d"),
           TimelineOp("kernel 0", "default", "compute", 1e-3, 1e-3, 0, "kernel"),
           TimelineOp("D2H 0", "default", "d2h", 2e-3, 1e-3, 1 << 20, "d2h"))  # fmt: skip
    point = Point(1, 3.0, extra={"ops": ops_to_json(ops), "configuration": "one-stream"})
    series = Series("One stream", Provenance("modelled", "H100"), "streams", "", "time", "ms", (point,))
    path = tmp_path / "streams.json"
    Result("streams", {}, (series,)).save(path)
    trace = read_trace(path)
    assert trace.format == "gpulab" and trace.rank_name(0) == "One stream (streams)"
    diagnosis = diagnose(trace)
    found = {f.key: f for f in diagnosis.findings}
    assert found["no_overlap"].evidence["reason"] == "streams.diagnosis.one-stream"
    assert diagnosis.ranks[0].shares()["memory_share"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(("content", "problem"), [
    (b"", "not a trace gpulab reads"),
    (b"hello, world", "it starts with 'hello, world'"),
    (b'{"traceEvents": [{"ph": "X", "cat": "kernel"', "not valid JSON"),
    (b'{"schemaVersion": 1}', "without a traceEvents list"),
    (b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "soon", "dur": 1}]}',
     "an event's ts/dur is not a number"),
    (gzip.compress(b'{"traceEvents": []}', mtime=0)[:15], "damaged or truncated gzip"),
])  # fmt: skip
def test_an_unreadable_file_is_one_line_naming_the_file_and_the_problem(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    text = str(caught.value)
    assert problem in text and text.startswith(str(path)) and "\n" not in text


def test_other_unreadable_files_name_what_is_wrong(tmp_path):
    cases = {tmp_path / "missing.json": "no such file", tmp_path / "run.nsys-rep": "nsys export --type sqlite"}
    (tmp_path / "run.nsys-rep").write_bytes(b"\x00binary")
    empty_db = tmp_path / "empty.sqlite"
    sqlite3.connect(empty_db).execute("CREATE TABLE t (x)").connection.close()
    cases[empty_db] = "not an nsys export with CUDA trace"
    result = tmp_path / "vector.json"
    Result("vector-add", {}, ()).save(result)
    cases[result] = "without any timeline"
    for path, problem in cases.items():
        with pytest.raises(TraceError, match=problem):
            read_trace(path)


def test_a_large_trace_is_streamed_with_memory_far_below_its_size(tmp_path):
    path = tmp_path / "large.json"
    write_large_trace(path, 40_000)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        trace = read_trace(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(1 for e in trace.events if e.kind == KERNEL) == 4_000
    # json.load alone would take several times the file's size
    assert peak < 0.35 * size, f"peak {peak} bytes for a {size}-byte file"
