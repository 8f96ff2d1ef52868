"""Bad input to the gpulab command never costs a result and never prints a traceback (issue 11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpulab import cli

RUN = ["run", "vector-add", "--quiet", "--set", "sizes=1024"]


def _main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("where, problem", [
    ("missing/result.json", "does not exist"),
    (".", "is a folder"),
])
def test_run_refuses_an_unwritable_json_destination_before_running(tmp_path, capsys, where, problem):
    code, _out, err = _main([*RUN, "--json", str(tmp_path / where)], capsys)
    assert code == 2
    assert problem in err and err.count("\n") == 1
    assert not (tmp_path / "missing").exists()  # no folder is created


def test_run_refuses_a_json_path_under_proc(capsys):
    code, _out, err = _main([*RUN, "--json", "/proc/gpulab-result.json"], capsys)
    assert code == 2
    assert "cannot be written" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_write_that_fails_after_the_run_keeps_the_result_in_a_named_fallback_file(tmp_path, capsys,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _out, err = _main([*RUN, "--json", "/dev/full"], capsys)
    assert code == 1
    assert "could not write /dev/full" in err and "saved to" in err
    saved = Path(err.split("saved to ")[1].strip())
    assert saved.parent == tmp_path
    assert json.loads(saved.read_text(encoding="utf-8"))["experiment"] == "vector-add"


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root writes read-only files")
def test_run_refuses_a_read_only_json_file(tmp_path, capsys):
    target = tmp_path / "result.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o444)
    code, _out, err = _main([*RUN, "--json", str(target)], capsys)
    assert code == 2 and "cannot be written" in err
    assert target.read_text(encoding="utf-8") == "old"


def test_info_refuses_an_unwritable_json_destination(tmp_path, capsys):
    code, _out, err = _main(["info", "--json", str(tmp_path / "no" / "info.json")], capsys)
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("path", ["/proc/gpulab-shot.png", "{tmp}/missing/shot.png", "{tmp}"])
def test_screenshot_path_is_checked_before_the_window_opens(tmp_path, capsys, path):
    code, _out, err = _main(["--screenshot", path.format(tmp=tmp_path)], capsys)
    assert code == 2 and err.startswith("gpulab: --screenshot ")
    assert not (tmp_path / "missing").exists()


def test_a_good_json_path_leaves_no_probe_file_when_the_check_passes(tmp_path):
    assert cli.output_problem(str(tmp_path / "r.json")) is None
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("experiment, assignment, words", [
    ("divergence", "n=2^99999999999", ["n:", "far too large", "allowed: a multiple of 32 from 32"]),
    ("divergence", "n=2^-1", ["n:", "not a whole number", "allowed:"]),
    ("divergence", "max_rounds=2^31", ["max_rounds:", "from 0 to 1024"]),
    ("bank-conflicts", "side=2^40", ["side:", "from 32 to 1024"]),
    ("divergence", "kways=", ["kways:", "at least one value"]),
    ("divergence", "n=1e400", ["n:", "whole number"]),
    ("divergence", "repeats=99999999999", ["repeats:", "2147483647"]),
])
def test_parameter_errors_name_the_parameter_and_its_range_at_once(capsys, experiment, assignment, words):
    code, _out, err = _main(["run", experiment, "--quiet", "--set", assignment], capsys)
    assert code == 2
    assert err.count("\n") == 1
    for word in words:
        assert word in err


def test_a_huge_power_is_refused_without_computing_it_in_a_subprocess():
    done = subprocess.run([sys.executable, "-m", "gpulab.cli", "run", "divergence", "--quiet", "--set",
                           "n=2^99999999999"], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "far too large" in done.stderr


def test_an_empty_json_path_is_refused_not_taken_as_no_file(capsys):
    code, out, err = _main([*RUN, "--json", ""], capsys)
    assert code == 2 and "the path is empty" in err and not out


def test_a_named_pipe_as_the_json_destination_is_refused_before_the_run_without_waiting(tmp_path):
    import subprocess
    import sys

    fifo = tmp_path / "result.json"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "gpulab.cli", *RUN, "--json", str(fifo)],
                          capture_output=True, text=True, timeout=120)  # a hang ends at the timeout  # fmt: skip
    assert done.returncode == 2 and "named pipe" in done.stderr
