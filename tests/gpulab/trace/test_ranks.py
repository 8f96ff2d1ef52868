"""Several files of one distributed run read as one trace, a rank each; reading as a generator
that reports its progress and stops between chunks, leaving no file open."""

from __future__ import annotations

import os

import pytest

from gpulab.cli import main
from gpulab.lab.run import Progress
from gpulab.results import load
from gpulab.trace import TraceError, diagnose, read_traces, timeline_ops
from gpulab.trace.read import REPORT_BYTES, reading_traces
from tests.gpulab.trace.builders import Kineto, Nsys, busy_kernels, write_large_trace


def _rank(path, rank: int | None, busy: int):
    """A rank's file: ``busy`` long kernels, then the GPU idle for 2 ms, then one more kernel."""
    trace = Kineto(rank=rank)
    end = busy_kernels(trace, count=busy)
    trace.kernel("ampere_sgemm_128x64_nn", end + 2000, 100.0, launch_at=end + 1950)
    return trace.write(path)


def test_files_keep_the_ranks_they_state_whatever_their_order(tmp_path):
    one = _rank(tmp_path / "one.json", 1, busy=10)
    zero = _rank(tmp_path / "zero.json.gz", 0, busy=30)
    trace = read_traces([one, zero])
    assert trace.ranks == [0, 1] and trace.rank_files == {1: str(one), 0: str(zero)}
    diagnosis = diagnose(trace)
    assert diagnosis.ranks[0].kernels == 31 and diagnosis.ranks[1].kernels == 11
    lanes = {op.lane for op in timeline_ops(trace, host=False)}
    assert lanes == {"rank 0 · stream 7", "rank 1 · stream 7"}


def test_a_file_without_a_rank_takes_its_place_in_the_list_or_the_lowest_free(tmp_path):
    unsaid = _rank(tmp_path / "unsaid.json", None, busy=5)
    zero = _rank(tmp_path / "zero.json", 0, busy=7)
    again = _rank(tmp_path / "again.json", 0, busy=9)  # a second file saying rank 0: a guess, moved
    trace = read_traces([unsaid, zero, again])
    assert trace.rank_files == {0: str(zero), 1: str(unsaid), 2: str(again)}
    assert trace.rank_name(2) == "rank 2" and diagnose(trace).ranks[2].kernels == 10


def test_two_nsys_exports_of_gpu_0_become_two_ranks_named_by_their_files(tmp_path):
    for name in ("node-a.sqlite", "node-b.sqlite"):
        db = Nsys(tmp_path / name)
        db.kernel("ampere_sgemm_128x64_nn", 1_000_000, 100_000)
        db.close()
    trace = read_traces([tmp_path / "node-a.sqlite", tmp_path / "node-b.sqlite"])
    assert trace.ranks == [0, 1] and trace.format == "nsys"
    assert trace.rank_name(0) == "GPU 0 (NVIDIA H100 80GB HBM3)"
    assert trace.rank_name(1) == "node-b.sqlite: GPU 0 (NVIDIA H100 80GB HBM3)"


def test_one_bad_file_among_several_is_one_line_naming_it_and_nothing_is_merged(tmp_path):
    good = _rank(tmp_path / "rank0.json", 0, busy=5)
    bad = tmp_path / "rank1.json"
    bad.write_text('{"distributedInfo": {"rank": 1}, "traceEvents": [{"ph": "X", ', encoding="utf-8")
    with pytest.raises(TraceError) as caught:
        read_traces([good, bad])
    text = str(caught.value)
    assert text.startswith(str(bad)) and "not valid JSON" in text and "\n" not in text


def test_the_command_reads_several_files_as_ranks_and_says_which_file_is_which(tmp_path, capsys):
    files = [_rank(tmp_path / f"rank{r}.json", r, busy=10 + 10 * r) for r in (0, 1)]
    out = tmp_path / "d.json"
    assert main(["trace", *map(str, files), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "rank 0 (rank0.json): compute" in text and "rank 1 (rank1.json): compute" in text
    result = load(out)
    summary = result.params["summary"]
    assert set(summary["ranks"]) == {"0", "1"} and summary["rank_files"]["1"] == str(files[1])
    assert summary["ranks"]["1"]["compute_share"] > summary["ranks"]["0"]["compute_share"]
    assert result.series[0].provenance.details["file"] == "rank0.json, rank1.json"
    bad = tmp_path / "broken.json"
    bad.write_bytes(b"hello")
    assert main(["trace", str(files[0]), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "broken.json" in err


def test_reading_reports_the_fraction_of_all_the_files_bytes(tmp_path):
    paths = [write_large_trace(tmp_path / f"r{r}.json", 8_000, rank=r) for r in (0, 1)]
    steps = reading_traces(paths)
    fractions = []
    while True:
        try:
            event = next(steps)
        except StopIteration as done:
            trace = done.value
            break
        assert isinstance(event, Progress)
        fractions.append(event.fraction)
    total = sum(p.stat().st_size for p in paths)
    assert len(fractions) >= total // REPORT_BYTES - 2 and fractions == sorted(fractions)
    assert 0 < fractions[0] < 0.5 < fractions[-1] <= 1.0 and trace.ranks == [0, 1]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc")
def test_reading_stopped_between_chunks_leaves_no_file_open(tmp_path):
    path = write_large_trace(tmp_path / "large.json", 20_000)
    open_before = len(os.listdir("/proc/self/fd"))
    steps = reading_traces([path])
    first = next(steps)
    assert first.fraction < 0.5  # stopped well before the end
    assert len(os.listdir("/proc/self/fd")) > open_before  # the file is open while it reads
    steps.close()
    assert len(os.listdir("/proc/self/fd")) == open_before


def test_a_ranks_lanes_come_in_the_order_of_their_stream_numbers(tmp_path):
    trace = Kineto(rank=0)
    for stream in (13, 7, 100):
        busy_kernels(trace, count=2, stream=stream)
    lanes = list(dict.fromkeys(op.lane for op in timeline_ops(read_traces([trace.write(tmp_path / "a.json")]),
                                                              host=False)))  # fmt: skip
    assert lanes == ["rank 0 · stream 7", "rank 0 · stream 13", "rank 0 · stream 100"]
