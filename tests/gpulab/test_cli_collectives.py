"""``gpulab collectives`` and ``gpulab run collectives`` against what a launcher may really send
(issue 24): a rank that dies, lines with missing or mistyped fields, NaN, too many points, a
report path that cannot be written. The "job" is a plain Python program standing in for
``mpiexec`` (it prints rank 0's lines), so these tests need no MPI."""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from pathlib import Path

import pytest

from gpulab import cli, results
from gpulab.cluster import report
from gpulab.cluster.mpi_backend import MpiStatus
from gpulab.experiments import collectives

HELLO = {"event": "hello", "ranks": 2, "hosts": ["here", "here"]}
POINT = {"event": "point", "collective": "allreduce", "count": 2, "ranks": 2, "seconds": 1e-6, "seconds_iqr": 1e-7,
         "algbw_gb_s": 0.008, "busbw_gb_s": 0.008, "busbw_iqr": 0.001, "repeats": 5, "wrong": 0}  # fmt: skip
COMMAND = ["collectives", "--backend", "mpi", "--collectives", "allreduce", "--sizes", "8,64"]
RUN = ["run", "collectives", "--quiet", "--set", "backend=mpi", "--set", "collectives=allreduce",
       "--set", "sizes=8,64"]  # fmt: skip


def _point(**fields):
    return {**POINT, "message_bytes": 8, **fields}


@pytest.fixture
def fake_job(monkeypatch, tmp_path):
    """Replace mpiexec with a program that prints the given lines (raw text or JSON-able objects)
    and then runs ``ending``; the rank program's --stderr-dir comes as its first argument."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(collectives, "mpi_status", lambda: MpiStatus(True, "mpiexec"))
    monkeypatch.setattr(collectives, "check_ranks", lambda *_: None)

    def install(lines, ending="print('{\"event\": \"done\"}')"):
        texts = [line if isinstance(line, str) else json.dumps(line) for line in lines]

        def command(_launcher, _ranks, rank_args):
            folder = rank_args[rank_args.index("--stderr-dir") + 1]
            script = "\n".join(["import sys, os", f"folder = {folder!r}",
                                *[f"print({text!r}, flush=True)" for text in texts], ending])  # fmt: skip
            return [sys.executable, "-c", script]

        monkeypatch.setattr(collectives, "launch_command", command)

    return install


def _main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _leftovers(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "tmp").glob("gpulab-ranks-*"))


DIES = ("open(os.path.join(folder, 'rank-1.stderr'), 'w').write('rank 1: Segmentation fault in Allreduce\\n')\n"
        "sys.exit(3)")


def test_a_rank_that_dies_partway_exits_1_naming_the_rank_and_its_stderr_in_the_report_too(fake_job, tmp_path,
                                                                                          capsys):
    fake_job([HELLO, _point()], DIES)
    code, _out, err = _main([*COMMAND, "--report", "r.json"], capsys)
    assert code == 1
    assert "rank 1" in err and "Segmentation fault in Allreduce" in err and "marked partial" in err
    saved = results.load(tmp_path / "r.json")
    assert [p.x for p in saved.series[0].points] == [8]
    assert saved.partial["cause"] == "rank failure" and saved.partial["ranks"] == [1]
    assert "Segmentation fault" in saved.partial["stderr"]
    assert any("rank 1 stopped (exit code 3)" in note for note in saved.notes)
    assert not _leftovers(tmp_path)


def test_gpulab_run_collectives_with_a_rank_that_dies_keeps_the_points_and_exits_1(fake_job, tmp_path, capsys):
    fake_job([HELLO, _point()], DIES)
    code, _out, err = _main([*RUN, "--json", "r.json"], capsys)
    assert code == 1 and "stopped early (rank failure)" in err
    assert results.load(tmp_path / "r.json").partial["ranks"] == [1]


@pytest.mark.parametrize("line, words", [
    ({"event": "point"}, "field 'collective' is"),
    (_point(message_bytes="abc"), "field 'message_bytes' is \"abc\", expected a number"),
    (_point(repeats=2.5), "field 'repeats' is 2.5, expected a whole number"),
    ({**_point(), "seconds": None}, "field 'seconds' is null"),
    (_point(collective="allsum"), "expected one of allreduce"),
    ({"event": "hello", "ranks": "two"}, "field 'ranks' is \"two\""),
])
@pytest.mark.parametrize("command", [COMMAND, RUN])
def test_a_launcher_line_with_a_missing_or_mistyped_field_is_one_clean_error(fake_job, tmp_path, capsys, line,
                                                                             words, command):  # fmt: skip
    fake_job([HELLO, line])
    code, _out, err = _main(command, capsys)
    assert code == 1
    assert words in err and "not a measured point" in err
    assert not _leftovers(tmp_path)


def test_a_bad_line_after_good_points_keeps_them_in_a_partial_report(fake_job, tmp_path, capsys):
    fake_job([HELLO, _point(), {"event": "point"}])
    code, _out, err = _main([*COMMAND, "--report", "r.json"], capsys)
    assert code == 1 and "not a measured point" in err
    assert results.load(tmp_path / "r.json").partial["points"] == 1


def test_nan_and_infinity_from_a_rank_give_a_report_that_reopens_with_the_point_flagged(fake_job, tmp_path,
                                                                                        capsys):
    fake_job([HELLO, '{"event": "point", "collective": "allreduce", "message_bytes": 8, "count": 2, "ranks": 2, '
                     '"seconds": NaN, "seconds_iqr": null, "algbw_gb_s": Infinity, "busbw_gb_s": NaN, '
                     '"busbw_iqr": null, "repeats": 5, "wrong": 0}', _point(message_bytes=64)])
    code, _out, _err = _main([*COMMAND, "--report", "r.json"], capsys)
    assert code == 0
    saved = results.replay(tmp_path / "r.json")
    bad, good = saved.series[0].points
    assert "busbw_gb_s = nan" in bad.extra["implausible"] and "algbw_gb_s = inf" in bad.extra["implausible"]
    assert bad.extra["noisy"] and math.isfinite(bad.y) and not good.extra.get("implausible")
    assert any("no finite time or bandwidth" in note for note in saved.notes)


def test_more_points_than_a_run_may_hold_stop_the_job_with_a_clear_message(fake_job, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.setattr(collectives, "Collector", lambda backend, params: report.Collector(backend, params,
                                                                                          max_points=3))
    fake_job([HELLO, *[_point(message_bytes=8 << i) for i in range(6)]], "import time; time.sleep(600)")
    code, _out, err = _main([*COMMAND, "--report", "r.json"], capsys)
    assert code == 1 and "more than 3 points in one run" in err
    assert results.load(tmp_path / "r.json").partial["points"] == 3
    assert not _leftovers(tmp_path)


def test_ingestion_keeps_points_in_lists_not_in_a_copied_series_per_point():
    collector = report.Collector("mpi", {})
    collector.add(HELLO)
    for i in range(2000):
        collector.add(_point(message_bytes=8 + i))
    series = collector.series["mpi-allreduce"]
    assert len(series.points) == 2000 and collector.points == 2000
    assert len(collector.result().series[0].points) == 2000


@pytest.mark.parametrize("where, problem", [
    ("missing/r.json", "does not exist"),
    (".", "is a folder"),
    ("", "the path is empty"),
])
def test_an_unwritable_report_path_is_refused_before_any_rank_starts(fake_job, tmp_path, capsys, where, problem):
    fake_job([HELLO, _point()])
    code, _out, err = _main([*COMMAND, "--report", str(tmp_path / where) if where else ""], capsys)
    assert code == 2 and problem in err and err.count("\n") == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_report_write_that_fails_after_the_run_keeps_the_report_in_a_named_fallback_file(fake_job, tmp_path,
                                                                                           capsys):
    fake_job([HELLO, _point(), _point(message_bytes=64)])
    code, _out, err = _main([*COMMAND, "--report", "/dev/full"], capsys)
    assert code == 1 and "could not write /dev/full" in err
    saved = Path(err.split("saved to ")[1].split()[0])
    assert saved.parent == tmp_path and len(results.load(saved).series[0].points) == 2


def test_a_failed_run_leaves_no_ranks_folder_in_the_temp_folder(fake_job, tmp_path, capsys):
    fake_job([HELLO], "sys.exit(3)")
    code, _out, _err = _main([*COMMAND, "--report", "r.json"], capsys)
    assert code == 1
    assert not _leftovers(tmp_path)


def test_a_named_pipe_as_the_report_is_refused_before_any_rank_starts(tmp_path, capsys):
    import os

    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    code, _out, err = _main([*COMMAND, "--report", str(fifo)], capsys)  # opening it would wait: it is not opened
    assert code == 2 and "named pipe" in err
