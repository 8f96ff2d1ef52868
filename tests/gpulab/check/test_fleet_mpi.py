"""Fleet mode for real under ``mpiexec``, 2 to 4 CPU ranks on this machine, each rank its own "node"
(``--each-rank-a-node``): one merged report whose rows name rank, host and device; the nodes' AllReduce
measured and, on one host, not judged; a rank that hangs or dies is named and never a pass.

Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) (launch_env sets them) and, with more ranks
than cores, --oversubscribe. Every run is bounded by a timeout."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpulab.check.fleet import TEST_FAULT_VARIABLE

pytestmark = pytest.mark.mpi

RUN_TIMEOUT_S = 240


def _launcher() -> tuple[str, dict[str, str]]:
    from gpulab.cluster.mpi_backend import find_launcher, is_open_mpi, launch_env

    launcher = find_launcher()
    if launcher is None:
        pytest.skip("no mpiexec here (pip install -e '.[mpi]' brings Open MPI)")
    if not is_open_mpi(launcher):
        pytest.skip(f"{launcher} is not Open MPI: these tests use its --oversubscribe and its exit behaviour")
    return launcher, launch_env()


def _fleet(tmp_path, ranks: int, *extra: str, fault: str | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    launcher, env = _launcher()
    if fault is not None:
        env[TEST_FAULT_VARIABLE] = fault
    out = tmp_path / "fleet.json"
    done = subprocess.run([launcher, "-n", str(ranks), "--oversubscribe", sys.executable, "-m", "gpulab.cli", "check",
                           "--only", "software.mpi", "--each-rank-a-node", "--json", str(out), *extra],
                          env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    return done, data


@pytest.mark.parametrize("ranks", [2, 4])
def test_every_rank_as_a_node_gives_one_report_naming_rank_host_and_device(tmp_path, ranks):
    done, data = _fleet(tmp_path, ranks)
    assert done.returncode == 0, done.stderr[-2000:]
    checked = [row for row in data["rows"] if row["check"] == "software.mpi"]
    assert sorted(row["rank"] for row in checked) == list(range(ranks))
    assert len({row["host"] for row in checked}) == ranks and all("#" in row["host"] for row in checked)
    allreduce = next(row for row in data["rows"] if row["check"] == "fleet.allreduce")
    # Measured between ranks of one host (shared memory): kept, and said to be no verdict on a fabric.
    assert allreduce["verdict"] == "skip" and allreduce["value"] > 0 and allreduce["unit"] == "GB/s"
    assert "all on one host" in allreduce["reason"]["text"] and allreduce["facts"]["wrong"] == 0
    assert data["machine"]["fleet"] == {**data["machine"]["fleet"], "ranks": ranks, "nodes": ranks,
                                        "reported": ranks, "each_rank_a_node": True}
    assert done.stdout.count("Exit code 0.") == 1  # rank 0 alone prints the report
    assert "Nodes × devices" in done.stdout and "Every rank counted as its own node" in done.stdout


def test_a_rank_that_hangs_is_named_in_the_report_and_the_job_exits_non_zero(tmp_path):
    done, data = _fleet(tmp_path, 3, "--node-timeout", "15", fault="hang:2")
    assert done.returncode != 0  # rank 0 aborted the job after writing the report
    failed = [row for row in data["rows"] if row["verdict"] == "fail"]
    assert [(row["check"], row["rank"], row["device"]) for row in failed] == [("fleet.node", 2, "report")]
    assert failed[0]["host"].endswith("#2") and "no report within 15 s" in failed[0]["reason"]["text"]
    assert data["exit_code"] == 1 and data["machine"]["fleet"]["reported"] == 2
    assert "Rank 2 on" in done.stdout and "Exit code 1." in done.stdout
    assert "no report from rank 2" in done.stderr


def test_a_rank_that_dies_ends_the_job_with_the_launchers_error_never_a_pass(tmp_path):
    done, data = _fleet(tmp_path, 3, fault="exit:2")
    # Open MPI ends the whole job when a rank exits non-zero, names it, and exits non-zero itself.
    assert done.returncode != 0
    assert "Exit code 0." not in done.stdout
    if data:  # rank 0 wrote what it had in the moment between the launcher's SIGTERM and its SIGKILL
        assert data["exit_code"] == 1
        assert any(row["check"] == "fleet.node" and row["rank"] == 2 for row in data["rows"])
