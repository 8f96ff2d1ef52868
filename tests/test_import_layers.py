"""The import graph of gpulab/ and ui/: layers that import only downwards, and no loop across packages.

Every import counts, wherever it stands: at the top, inside a function, under ``if TYPE_CHECKING:``,
and ``import_module("a.constant")``. An import inside a function still ties two files together (one
cannot be read, tested or moved without the other); only a name computed at run time (the lab
registry's ``import_module(entry.module)``, the command table's) is a plug-in, not an arrow.
Importing ``a.b.c`` counts as an arrow to ``a.b.c`` only, not to the packages ``a`` and ``a.b``
that Python runs on the way.

The layers, lowest first (:data:`LAYERS`); a file may import its own layer and the ones below:

1. ``gpulab.simt``, the emulator: a leaf that imports nothing else of gpulab (its own test says so).
2. The engine's core modules: texts, paths, results, specs, kernels, measuring, CUDA, NVML,
   devices, host memory, threads, number formats, timelines, the published measurements, writing
   a command's output.
3. ``gpulab.lab``: the lab platform (parameters, events, sweeps, kernel work, CPU peaks, declarations).
4. ``gpulab.cluster``: the cluster engines (busbw, rank program, MPI and NCCL backends, topology,
   the collectives' report). Its NCCL backend yields the lab platform's events, so it sits above it.
5. ``gpulab.model``: the analytical models. Above the cluster engines, not in the core: the
   cluster layout model draws on :mod:`gpulab.cluster.topology`. The models and the lab platform
   do not import each other; the order between them is the cluster's.
6. ``gpulab.trace``: the trace doctor, reading profiler traces and the labs' saved timelines. It
   needs only the core and the lab platform; the labs use it (the squeeze lab's doctor, the
   trace-doctor lab that judges a shipped sample), so it sits below them.
7. ``gpulab.experiments``: the labs, built on all of the above.
   ``gpulab.lessons`` (the lesson track: pages that name labs, presets and the number to read) sits
   just above them: it runs the labs through the registry.
8. ``gpulab.validation``: prices each published row through the labs' own model code.
9. ``gpulab.check``: the sanity check, measuring with the labs' code and judging the results.
10. What a person runs: ``gpulab.bench``, ``gpulab.commands``, ``gpulab.cli``, ``gpulab.frontend``.
11. ``ui``: the Qt front end.

A *package* here is the folder of a file: ``experiments/streams/__init__.py`` and
``experiments/streams/gpu.py`` are one package, ``experiments/__init__.py`` another. Files that
import each other in a loop must be of one package (such a loop is still worth breaking, but it
stays inside one folder).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_PACKAGES = ("gpulab", "ui")
IMPORT_FUNCTIONS = {"import_module", "__import__"}
EXACT_ONLY = {"gpulab"}  # the package's __init__ is core; what lies in it has a layer of its own

CORE = ("gpulab", "gpulab.catalogue", "gpulab.paths", "gpulab.results", "gpulab.specs", "gpulab.kernels",
        "gpulab.measure", "gpulab.nvml", "gpulab.devices", "gpulab.monitor", "gpulab.hostmem", "gpulab.threads",
        "gpulab.compiled", "gpulab.nvrtc", "gpulab.cuda", "gpulab.timeline", "gpulab.precision",
        "gpulab.published", "gpulab.output")  # fmt: skip
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("emulator", ("gpulab.simt",)),
    ("core", CORE),
    ("lab platform", ("gpulab.lab",)),
    ("cluster engines", ("gpulab.cluster",)),
    ("models", ("gpulab.model", "gpulab.occupancy", "gpulab.latency")),
    ("trace doctor", ("gpulab.trace",)),
    ("labs", ("gpulab.experiments",)),
    ("lessons", ("gpulab.lessons",)),
    ("validation", ("gpulab.validation",)),
    ("sanity check", ("gpulab.check",)),
    ("commands", ("gpulab.bench", "gpulab.commands", "gpulab.cli", "gpulab.frontend")),
    ("front end", ("ui",)),
)


@dataclass(frozen=True)
class Arrow:
    """One import: the importing file's module, the line, and the imported module of the tree."""

    source: str
    line: int
    target: str


@dataclass(frozen=True)
class Graph:
    """The modules of the tree (name -> file) and every import between them."""

    root: Path
    files: dict[str, Path]
    arrows: tuple[Arrow, ...]

    def where(self, arrow: Arrow) -> str:
        return f"{self.files[arrow.source].relative_to(self.root)}:{arrow.line} imports {arrow.target}"

    def package(self, module: str) -> Path:
        """The folder of the module's file."""
        return self.files[module].parent


def module_files(root: Path, tops: tuple[str, ...] = TOP_PACKAGES) -> dict[str, Path]:
    files = {}
    for top in tops:
        for path in (root / top).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def _named(node: ast.AST, package: str) -> Iterator[str]:
    """The dotted names an import node (or an ``import_module("...")`` call) brings in, absolute;
    ``from m import x`` gives ``m.x`` (a module if there is one, else a name of ``m``)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - (node.level - 1)] + ([base] if base else []))
        yield from (f"{base}.{alias.name}" for alias in node.names)
    elif isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        first = node.args[0]
        if name in IMPORT_FUNCTIONS and isinstance(first, ast.Constant) and isinstance(first.value, str):
            yield first.value


def _module_of(name: str, files: dict[str, Path]) -> str | None:
    """The longest module of the tree that ``name`` is or lies in (``gpulab.x.func`` -> ``gpulab.x``)."""
    while name and name not in files:
        name = name.rpartition(".")[0]
    return name or None


def read_graph(root: Path = ROOT, tops: tuple[str, ...] = TOP_PACKAGES) -> Graph:
    files = module_files(root, tops)
    arrows = []
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for name in _named(node, package):
                target = _module_of(name, files)
                if target is not None and target != module:
                    arrows.append(Arrow(module, getattr(node, "lineno", 0), target))
    return Graph(root, files, tuple(arrows))


def strongly_connected(graph: Graph) -> list[set[str]]:
    """The sets of two or more modules that reach each other through imports (Tarjan, iterative)."""
    edges: dict[str, list[str]] = {m: [] for m in graph.files}
    for arrow in graph.arrows:
        edges[arrow.source].append(arrow.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of the most specific entry naming ``module`` (the root ``gpulab``
    names only its own ``__init__``: a new module must be given a layer)."""
    best, best_length = None, -1
    for number, (_name, entries) in enumerate(LAYERS):
        for entry in entries:
            inside = module == entry or (entry not in EXACT_ONLY and module.startswith(entry + "."))
            if inside and len(entry) > best_length:
                best, best_length = number, len(entry)
    return best


def loops_across_packages(graph: Graph) -> list[str]:
    """Each loop spanning two or more folders, with the imports that close it."""
    reports = []
    for component in strongly_connected(graph):
        if len({graph.package(m) for m in component}) < 2:
            continue
        inside = [graph.where(a) for a in graph.arrows if a.source in component and a.target in component]
        reports.append(f"loop of {sorted(component)}:\n    " + "\n    ".join(sorted(set(inside))))
    return reports


def upward_imports(graph: Graph) -> list[str]:
    found = []
    for arrow in graph.arrows:
        low, high = layer_of(arrow.source), layer_of(arrow.target)
        if low is not None and high is not None and high > low:
            found.append(f"{graph.where(arrow)} ({LAYERS[low][0]} -> {LAYERS[high][0]})")
    return sorted(set(found))


# ------------------------------------------------------------------ the tree as it is


@pytest.fixture(scope="module")
def tree() -> Graph:
    return read_graph()  # about a second of parsing: once for the three tests


def test_every_module_of_the_tree_has_a_layer(tree):
    assert [m for m in tree.files if layer_of(m) is None] == []


def test_no_files_of_different_packages_import_each_other_in_a_loop(tree):
    loops = loops_across_packages(tree)
    assert loops == [], "\n".join(loops)


def test_no_file_imports_a_module_of_a_higher_layer(tree):
    upward = upward_imports(tree)
    assert upward == [], "\n".join(upward)


# ------------------------------------------------------------------ the scanner itself


def _tree(root: Path, files: dict[str, str]) -> Graph:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return read_graph(root, ("top",))


def test_the_scanner_sees_imports_in_functions_relative_ones_and_import_module_calls(tmp_path):
    graph = _tree(tmp_path, {
        "top/__init__.py": "",
        "top/a/__init__.py": "",
        "top/a/one.py": "from ..b import two\n",
        "top/b/__init__.py": "",
        "top/b/two.py": "def later():\n    from top.a import one\n    return one\n",
        "top/b/three.py": "import importlib\nM = importlib.import_module('top.a.one')\n"
                          "N = importlib.import_module(M.x)\n",
    })  # fmt: skip
    assert {(a.source, a.line, a.target) for a in graph.arrows} == {
        ("top.a.one", 1, "top.b.two"), ("top.b.two", 2, "top.a.one"), ("top.b.three", 2, "top.a.one")}
    loops = loops_across_packages(graph)
    assert len(loops) == 1 and "top/b/two.py:2 imports top.a.one" in loops[0]


def test_a_loop_inside_one_folder_is_not_a_loop_across_packages(tmp_path):
    graph = _tree(tmp_path, {
        "top/__init__.py": "",
        "top/lab/__init__.py": "from top.lab import gpu\n",
        "top/lab/gpu.py": "def f():\n    from top.lab import X\n",
    })  # fmt: skip
    assert strongly_connected(graph) == [{"top.lab", "top.lab.gpu"}]
    assert loops_across_packages(graph) == []
