"""The collectives lab: MPI across 2 CPU ranks end to end (``mpi``), the command under mpiexec,
faults of a real rank, what a missing MPI says, and NCCL on two GPUs (``gpu``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpulab import results
from gpulab.cluster import mpi_backend, report
from gpulab.experiments import Context, ExperimentError, ParamError, collectives, drive, params_from_strings

MPI = mpi_backend.mpi_status()


def _tiny(**overrides):
    values = {"backend": "mpi", "ranks": 2, "sizes": (8, 4096), "seconds_per_point": 0.002, "timeout_s": 60.0}
    return collectives.Params(**{**values, **overrides})


@pytest.mark.mpi
@pytest.mark.skipif(not MPI.available, reason=f"needs mpi4py and mpiexec: {MPI.reason and MPI.reason.text}")
def test_the_mpi_backend_measures_all_six_collectives_on_two_ranks_with_no_wrong_element():
    result = drive(collectives.run(_tiny(), Context()))
    assert [s.key for s in result.series] == [f"mpi-{c}" for c in collectives.COLLECTIVES]
    for series in result.series:
        assert series.provenance.kind == "measured" and series.provenance.device.startswith("2 CPU ranks on ")
        assert series.role == "cpu" and [p.x for p in series.points][-1] == 4096
        for point in series.points:
            assert point.extra["wrong"] == 0 and point.y > 0 and point.extra["algbw_gb_s"] > 0
    allgather = result.get_series("mpi-allgather").points[-1]
    assert allgather.y == pytest.approx(allgather.extra["algbw_gb_s"] / 2)  # (n-1)/n on 2 ranks
    assert any("busbw = algbw" in note for note in result.notes)


@pytest.mark.mpi
@pytest.mark.skipif(not MPI.available, reason=f"needs mpi4py and mpiexec: {MPI.reason and MPI.reason.text}")
def test_gpulab_collectives_under_mpiexec_runs_one_rank_per_process_and_rank_0_writes_the_report(tmp_path):
    report = tmp_path / "report.json"
    command = mpi_backend.launch_command(MPI.launcher, 2, [])
    command = [*command[:command.index(sys.executable) + 1], "-m", "gpulab.cli", "collectives", "--backend", "mpi",
               "--collectives", "allreduce,alltoall", "--sizes", "8,2^10", "--seconds-per-point", "0.002",
               "--report", str(report)]  # fmt: skip
    done = subprocess.run(command, env=mpi_backend.launch_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    replayed = results.replay(report)
    assert replayed.experiment == "collectives" and replayed.params["ranks"] == 2
    assert [s.key for s in replayed.series] == ["mpi-allreduce", "mpi-alltoall"]
    assert all(s.provenance.kind == "replayed" and s.provenance.details["original_kind"] == "measured"
               for s in replayed.series)  # fmt: skip
    assert [json.loads(line)["event"] for line in done.stdout.splitlines()][-1] == "done"


@pytest.mark.mpi
@pytest.mark.skipif(not MPI.available, reason=f"needs mpi4py and mpiexec: {MPI.reason and MPI.reason.text}")
def test_a_real_rank_that_dies_midway_keeps_the_points_before_and_shows_its_stderr(tmp_path):
    # Rank 1 dies once the first two points have reached this process: mpiexec may drop output that
    # is still on its way when a rank dies, so the rank waits for the test to say they arrived.
    arrived = tmp_path / "two-points-arrived"
    args = [*collectives.rank_args(["allreduce"], [8, 64, 512], 0.001), "--fault", "die", "--fault-after", "2",
            "--fault-when", str(arrived), "--stderr-dir", str(tmp_path)]  # fmt: skip
    collector = report.Collector("mpi", {})
    with pytest.raises(mpi_backend.RankFailure) as failure:
        for event in mpi_backend.stream_events(mpi_backend.launch_command(MPI.launcher, 2, args),
                                               mpi_backend.launch_env(), 30.0, stderr_dir=tmp_path):  # fmt: skip
            collector.add(event)
            if collector.points == 2:
                arrived.touch()
    assert "injected fault (die)" in failure.value.stderr and "[rank-1]" in failure.value.stderr
    assert [p.x for p in collector.series["mpi-allreduce"].points] == [8, 64]


def test_a_missing_mpi_is_explained_with_the_install_command(monkeypatch):
    missing = mpi_backend.MpiStatus(False, None, mpi_backend.msg("collectives.reason.no-mpi4py"))
    monkeypatch.setattr(collectives, "mpi_status", lambda: missing)
    with pytest.raises(ExperimentError, match=r"mpi4py is not installed.*pip install -e '\.\[mpi\]'"):
        drive(collectives.run(_tiny(), Context()))


def test_asking_for_nccl_without_gpus_says_why_and_what_to_choose(monkeypatch):
    monkeypatch.setattr(collectives, "nccl_status", lambda: (1, mpi_backend.msg("collectives.reason.one-gpu", gpus=1)))
    with pytest.raises(ExperimentError, match=r"1 GPU here; NCCL needs two or more.*mpi or auto"):
        drive(collectives.run(_tiny(backend="nccl"), Context()))


def test_bad_parameters_are_refused_by_name():
    with pytest.raises(ParamError, match="collectives"):
        params_from_strings(collectives.Params, {"collectives": "allreduce,allsum"})
    with pytest.raises(ParamError, match="ranks"):
        params_from_strings(collectives.Params, {"ranks": "0"})


def test_sizes_beyond_memory_are_left_out_with_a_note():
    kept, notes = report.fit_sizes(_tiny(sizes=(8, 1 << 20, 1 << 30)), available_bytes=64 << 20)
    assert kept == [8, 1 << 20] and "1 GiB" in notes[0].text


def test_wrong_elements_become_a_note_naming_the_series_and_sizes():
    collector = report.Collector("mpi", {})
    collector.add({"event": "hello", "ranks": 2, "hosts": ["here", "here"]})
    base = {"event": "point", "collective": "reduce", "count": 2, "ranks": 2, "seconds": 1e-6, "algbw_gb_s": 1.0,
            "busbw_gb_s": 1.0, "repeats": 3}  # fmt: skip
    collector.add({**base, "message_bytes": 8, "wrong": 0})
    collector.add({**base, "message_bytes": 1024, "wrong": 7})
    result = collector.result()
    assert any(note.startswith("Reduce (MPI): 7 wrong elements at 1 KiB") for note in result.notes)
    assert results.loads(result.to_json()).series[0].points[1].extra["wrong"] == 7


@pytest.mark.gpu
def test_nccl_across_two_gpus_measures_every_collective_with_no_wrong_element():
    _gpus, reason = collectives.nccl_status()
    if reason is not None:
        pytest.skip(f"needs NCCL across 2 GPUs: {reason.text}")
    result = drive(collectives.run(_tiny(backend="nccl", sizes=(8, 1 << 20)), Context()))
    assert [s.key for s in result.series] == [f"nccl-{c}" for c in collectives.COLLECTIVES]
    assert all(p.extra["wrong"] == 0 and p.y > 0 for s in result.series for p in s.points)
    assert result.series[0].provenance.device.startswith("2 GPU ranks on ")


def test_more_cpu_ranks_than_the_machine_holds_are_refused_before_anything_starts(monkeypatch):
    from gpulab.catalogue import render

    started = []
    monkeypatch.setattr(collectives, "launch_command", lambda *args, **kw: started.append(args) or ["false"])
    monkeypatch.setattr(collectives, "choose_backend", lambda params: ("mpi", []))
    monkeypatch.setattr(collectives.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(collectives.hostmem, "available_memory_bytes", lambda: 64 << 30)
    params = params_from_strings(collectives.Params, {"ranks": "1000"})
    with pytest.raises(ExperimentError) as refused:
        drive(collectives.run(params, Context()))
    assert not started
    assert render(refused.value.message) == ("1000 ranks are more than this machine can run (16: 8 ranks for each "
                                             "of its 2 cores). Choose 16 or fewer.")  # fmt: skip
    assert "16 个" in render(refused.value.message, "zh")


def test_on_a_machine_short_of_memory_the_rank_bound_says_so():
    limit, reason = collectives.rank_limit(cores=64, free_bytes=2 << 30)
    assert limit == (2 << 30) // collectives.RANK_BYTES < 64 * collectives.RANKS_PER_CORE
    assert reason.key == "collectives.limit.memory"
    collectives.check_ranks(limit, 64, 2 << 30)  # the bound itself is allowed
