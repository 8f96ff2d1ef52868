"""The README's ``srun ... gpulab collectives`` for real, on a single-node Slurm
(:mod:`tests.slurm_cluster`): 2 tasks with ``--mpi=pmix`` and the MPI backend (no GPU here), rank 0's
report read back as a result, and opened in the Collectives page as a replayed run."""

from __future__ import annotations

import subprocess

import pytest

from tests.slurm_cluster import RUN_TIMEOUT_S, find, gpulab_command, single_node_slurm, slurm_folder

pytestmark = [pytest.mark.slurm, pytest.mark.mpi]


def test_the_readmes_srun_collectives_command_runs_two_ranks_and_the_report_loads(tmp_path):
    import shutil

    from gpulab.cluster.mpi_backend import launch_env
    from gpulab.results import load, replay

    folder = slurm_folder()
    report = tmp_path / "allreduce-1x2.json"
    try:
        with single_node_slurm(folder) as env:
            env = {**launch_env(), **env}
            command = [find("srun") or "srun", "--nodes=1", "--ntasks-per-node=2", "--mpi=pmix", *gpulab_command(),
                       "collectives", "--backend", "mpi", "--collectives", "allreduce", "--sizes", "2^10,2^16",
                       "--seconds-per-point", "0.01", "--report", str(report)]  # fmt: skip
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
            if done.returncode != 0 and "pmix" in (done.stderr + done.stdout).lower() and not report.exists():
                pytest.skip(f"srun --mpi=pmix cannot start Open MPI's ranks here: {done.stderr[-600:]}")
            assert done.returncode == 0, done.stderr[-2000:]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result = load(report)
    assert result.experiment == "collectives"
    points = [p for s in result.series for p in s.points]
    assert points and all(p.y > 0 for p in points)
    assert any(s.provenance.kind == "measured" for s in result.series)
    assert 2 in {int(v) for v in (result.params.get("ranks"), *[s.provenance.details.get("ranks", 0)
                                                                  for s in result.series]) if v}  # fmt: skip
    replayed = replay(report)
    assert all(s.provenance.kind == "replayed" for s in replayed.series)
