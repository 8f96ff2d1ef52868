"""The README's Slurm command for real: a single-node Slurm (:mod:`tests.slurm_cluster`), ``srun``
running ``gpulab check`` as 2 tasks, the merged report checked, the daemons stopped."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.slurm_cluster import RUN_TIMEOUT_S, find, gpulab_command, single_node_slurm, slurm_folder

pytestmark = [pytest.mark.slurm, pytest.mark.mpi]


def test_the_readmes_srun_command_checks_two_tasks_and_rank_0_writes_one_report(tmp_path):
    from gpulab.cluster.mpi_backend import launch_env

    folder = slurm_folder()
    try:
        with single_node_slurm(folder) as env:
            env = {**launch_env(), **env}
            out = tmp_path / "fleet.json"
            # The README's command (its fleet section) on this one node: 2 tasks, each its own "node", and
            # only the quick MPI check (the CPU checks of two ranks on two cores would say "busy").
            gpulab = gpulab_command()
            command = [find("srun") or "srun", "--nodes=1", "--ntasks-per-node=2", "--mpi=pmix", *gpulab, "check",
                       "--json", str(out), "--html", str(tmp_path / "fleet.html"), "--only", "software.mpi",
                       "--each-rank-a-node"]
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
            if done.returncode != 0 and "pmix" in (done.stderr + done.stdout).lower() and not out.exists():
                pytest.skip(f"srun --mpi=pmix cannot start Open MPI's ranks here: {done.stderr[-600:]}")
            assert done.returncode == 0, done.stderr[-2000:]
            data = json.loads(out.read_text(encoding="utf-8"))
            checked = [row for row in data["rows"] if row["check"] == "software.mpi"]
            assert sorted(row["rank"] for row in checked) == [0, 1]
            assert data["machine"]["fleet"]["ranks"] == 2 and data["exit_code"] == 0
            assert done.stdout.count("Exit code 0.") == 1
            assert "Nodes × devices" in done.stdout and (tmp_path / "fleet.html").stat().st_size > 2_000
    finally:
        shutil.rmtree(folder, ignore_errors=True)
