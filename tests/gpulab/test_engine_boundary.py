"""The engine runs where Qt cannot be imported at all, and its source names no front-end module."""

import ast
import subprocess
import sys
from pathlib import Path

import gpulab

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


# Top-level packages the engine must never import, even lazily inside a function.
FRONT_END_PACKAGES = {"PySide6", "pyqtgraph", "superqt", "shiboken6", "qtpy", "ui"}
IMPORT_FUNCTIONS = {"import_module", "__import__"}


def imported_names(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) for every import statement and every import_module("...") call in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and _called_name(node.func) in IMPORT_FUNCTIONS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return sorted(found)


def _called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def test_no_engine_source_imports_qt_or_the_front_end_even_inside_a_function():
    root = Path(gpulab.__file__).parent
    offences = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, module in imported_names(tree):
            if module.split(".")[0] in FRONT_END_PACKAGES:
                offences.append(f"{path.relative_to(root.parent)}:{line} imports {module}")
    assert not offences, "\n".join(offences)
    assert len(list(root.rglob("*.py"))) > 20  # the scan really saw the engine


def test_the_boundary_scan_sees_lazy_and_dynamic_imports():
    source = "def f():\n    from ui.app import run_gui\n    importlib.import_module('PySide6.QtCore')\nimport os\n"
    assert imported_names(ast.parse(source)) == [(2, "ui.app"), (3, "PySide6.QtCore"), (4, "os")]


def test_the_window_and_the_ui_bench_are_reached_through_declared_entry_points():
    from gpulab import frontend

    assert frontend.find(frontend.FRONTEND_GROUP, frontend.DESKTOP).__module__ == "ui.app"
    assert "ui" in frontend.names(frontend.BENCH_GROUP)
    assert frontend.find(frontend.BENCH_GROUP, "no-such-bench") is None
