"""The README's ``srun ... gpulab collectives`` for real, on a single-node Slurm
(:mod:`tests.slurm_cluster`): 2 tasks with ``--mpi=pmix`` and the MPI backend (no GPU here), rank 0's
report read back as a result, and opened in the lab: File → Open result… in the real main window puts it
on the Collectives page, replayed, from 2 ranks."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.slurm_cluster import RUN_TIMEOUT_S, find, gpulab_command, single_node_slurm, slurm_folder

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication (as tests/ui does)

pytestmark = [pytest.mark.slurm, pytest.mark.mpi]


def _run_the_readmes_command(folder: Path, path: Path) -> Path:
    """Rank 0's report (at ``path``) of the README's command with 2 tasks under a single-node Slurm."""
    from gpulab.cluster.mpi_backend import launch_env

    try:
        with single_node_slurm(folder) as env:
            env = {**launch_env(), **env}
            command = [find("srun") or "srun", "--nodes=1", "--ntasks-per-node=2", "--mpi=pmix", *gpulab_command(),
                       "collectives", "--backend", "mpi", "--collectives", "allreduce", "--sizes", "2^10,2^16",
                       "--seconds-per-point", "0.01", "--report", str(path)]  # fmt: skip
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
            if done.returncode != 0 and "pmix" in (done.stderr + done.stdout).lower() and not path.exists():
                pytest.skip(f"srun --mpi=pmix cannot start Open MPI's ranks here: {done.stderr[-600:]}")
            assert done.returncode == 0, done.stderr[-2000:]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return path


def _ranks(result) -> set[int]:
    return {int(s.provenance.details.get("ranks", 0) or 0) for s in result.series} - {0}


def test_the_readmes_srun_collectives_command_runs_two_ranks_and_opens_in_the_lab(qtbot, tmp_path):
    """One srun run, then its report checked and opened in the page."""
    from gpulab.results import load, replay

    report = _run_the_readmes_command(slurm_folder(), tmp_path / "allreduce-1x2.json")
    result = load(report)
    assert result.experiment == "collectives"
    points = [p for s in result.series for p in s.points]
    assert points and all(p.y > 0 for p in points)
    assert any(s.provenance.kind == "measured" for s in result.series)
    assert _ranks(result) == {2}  # what MPI said its world was, not the default of a parameter
    replayed = replay(report)
    assert all(s.provenance.kind == "replayed" for s in replayed.series)
    _open_in_the_collectives_page(qtbot, tmp_path, report)


def _open_in_the_collectives_page(qtbot, tmp_path: Path, report: Path) -> None:
    """File → Open result… in the real main window: the Collectives page, replayed, from 2 ranks."""
    from PySide6.QtCore import QSettings

    from tests.ui.conftest import no_gpu_report
    from ui.jobs import JobRunner
    from ui.main_window import MainWindow
    from ui.services import Services
    from ui.widgets.params_form import editor_text

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    services = Services.create(probe=no_gpu_report)
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.resize(1024, 768)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.started and services.devices.report is not None, timeout=10_000)
        window.ask_result_path = lambda: str(report)  # the file dialog; the menu entry is the real one
        window.open_action.trigger()  # File → Open result…
        panel = window.current_panel()
        assert panel is window.panels["collectives"]
        assert panel.last_result is not None and _ranks(panel.last_result) == {2}
        assert panel.provenance == "replayed" and window.badge.kind == "replayed"
        assert set(panel.plot.kinds.values()) == {"replayed"} and panel.plot.curves
        assert editor_text(panel.editors["ranks"]) == "2" and editor_text(panel.editors["backend"]) == "mpi"
    finally:
        window.close()
        JobRunner.shutdown_all()
