"""The engine runs where Qt cannot be imported at all."""

import subprocess
import sys

BLOCK_QT_AND_IMPORT_ALL = r"""
import importlib, pkgutil, sys
class BlockQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "pyqtgraph", "superqt", "shiboken6", "qtpy", "ui"):
            raise ImportError(f"{name} is blocked in this test")
sys.meta_path.insert(0, BlockQt())
import gpulab
for mod in pkgutil.walk_packages(gpulab.__path__, "gpulab."):
    importlib.import_module(mod.name)
from gpulab.cli import main
code = main(["run", "vector-add", "--set", "sizes=512", "--set", "repeats=1", "--json", "-", "--quiet"])
assert code == 0, code
qt = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "superqt")]
assert not qt, qt
print("engine-ok")
"""


def test_engine_imports_and_runs_an_experiment_with_qt_unimportable():
    proc = subprocess.run([sys.executable, "-c", BLOCK_QT_AND_IMPORT_ALL], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "engine-ok" in proc.stdout


def test_without_a_display_the_lab_says_so_in_one_line():
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "gpulab.cli"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0] and "gpulab info" in lines[0]
