"""The emulator's modules import each other without loops, and import nothing else of gpulab.

Every ``import`` counts, wherever it stands: at the top, inside a function or under
``if TYPE_CHECKING:``. A loop hidden in a function still ties the modules together (neither
can be read, tested or moved without the other); shared types belong in a module both import
(``simt.symbols`` for the compiler's parts).
"""

import ast
from pathlib import Path

import gpulab.simt

SIMT_DIR = Path(gpulab.simt.__file__).parent


def _module_names(package_dir: Path, package: str) -> dict[str, Path]:
    names = {}
    for path in package_dir.rglob("*.py"):
        parts = [package, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every module ``module`` imports, as absolute names: ``from . import x`` is module ``x``
    when there is one, ``from .m import name`` is module ``m``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    return found


def import_edges(package_dir: Path, package: str) -> dict[str, set[str]]:
    """For each module of the package, the package's modules it imports."""
    modules = _module_names(package_dir, package)
    return {m: {t for t in _imported(m, p, modules) if t in modules and t != m} for m, p in modules.items()}


def import_loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """The sets of modules that reach each other through imports (each sorted), largest first."""
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {m: reach(m) for m in edges}
    loops = {frozenset(o for o in reachable[m] if m in reachable[o]) for m in edges if m in reachable[m]}
    return sorted((sorted(loop) for loop in loops), key=len, reverse=True)


def test_no_module_of_the_emulator_imports_itself_back_through_others():
    loops = import_loops(import_edges(SIMT_DIR, "gpulab.simt"))
    assert loops == [], f"import loops inside gpulab.simt: {loops}"


def test_the_emulator_imports_no_other_gpulab_module():
    modules = _module_names(SIMT_DIR, "gpulab.simt")
    outside = {(m, t) for m, p in modules.items() for t in _imported(m, p, modules)
               if (t == "gpulab" or t.startswith("gpulab.")) and not t.startswith("gpulab.simt")}
    assert outside == set()


def test_the_loop_finder_sees_an_import_made_inside_a_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import B\n")
    (package / "b.py").write_text("def f():\n    from . import a\n    return a\n\nB = 1\n")
    (package / "c.py").write_text("from pkg.a import B\n")
    assert import_loops(import_edges(package, "pkg")) == [["pkg.a", "pkg.b"]]
