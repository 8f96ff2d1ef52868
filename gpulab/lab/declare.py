"""A lab declares itself once, and the registry is found from those declarations.

Every lab is a module (or a package) directly under :mod:`gpulab.experiments` that sets

    LAB = Lab("launch", section="execution", order=20, page="launch", quick=("ks=quick",),
              kernels=KERNELS)

Everything that used to be a table kept in step by hand is derived from these: the registry
(:func:`registry`), the old names (``aliases``), the kernel catalogue (``kernels``), the sidebar
(``section``, ``order``, ``page``), and the one quick run that the GPU smoke script, the
screenshots and the walk-through tests all use (``quick``).

The registry is read from the sources without importing a lab (:func:`registry` parses each
module's ``LAB = Lab(...)`` with :mod:`ast`): opening the window must not import every lab and
what they import. So the fields the registry reads (everything except ``kernels``) are written
as literals; a test compares this reading with the imported ``LAB`` of every lab.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpulab.kernels import KernelSpec

LAB_PACKAGE = "gpulab.experiments"

# The sidebar's sections, in the curriculum's order; a lab's page sits in one of them.
SECTIONS = ("basics", "inside", "memory", "execution", "cluster", "check", "lessons")


class DeclarationError(ValueError):
    """A lab's ``LAB`` declaration is missing a field, malformed, or clashes with another lab's."""


@dataclass(frozen=True)
class Lab:
    """What a lab says about itself (see the module docstring).

    ``name`` is the registry name (``gpulab run NAME``, catalogue keys ``experiment.NAME.*``).
    ``section`` and ``order`` place it in every list of labs (lower first): its page in the
    sidebar, its entry in the lists of the generic pages. ``page`` names its own page (the front
    end's ``ui/panels/<page>.py``); without one it runs on the generic pages only.
    ``quick`` is its quick run, ``field=value`` texts as ``--set`` takes them, where a value may be
    the name of one of the field's presets. ``aliases`` are old names that still run it.
    ``kernels`` are the lab's own catalogue kernels."""

    name: str
    section: str = "basics"
    order: int = 100
    page: str = ""
    quick: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    kernels: tuple[KernelSpec, ...] = ()

    def __post_init__(self) -> None:
        if self.section not in SECTIONS:
            raise DeclarationError(f"lab {self.name!r}: section {self.section!r} is not one of {', '.join(SECTIONS)}")
        for assignment in self.quick:
            if "=" not in assignment:
                raise DeclarationError(f"lab {self.name!r}: quick run {assignment!r} is not field=value")


# The fields read from the source; ``kernels`` is code, known only once the lab is imported.
STATIC_FIELDS = tuple(f.name for f in fields(Lab) if f.name != "kernels")


@dataclass(frozen=True)
class Entry:
    """A registry entry: a lab's declaration as read from its source, and its module's name."""

    lab: Lab
    module: str


def _lab_sources(package_dir: Path) -> list[tuple[str, Path]]:
    """(module name, source file) of each module and package directly in the labs package."""
    found = []
    for path in sorted(package_dir.iterdir()):
        if path.suffix == ".py" and path.stem != "__init__":
            found.append((f"{LAB_PACKAGE}.{path.stem}", path))
        elif (path / "__init__.py").is_file():
            found.append((f"{LAB_PACKAGE}.{path.name}", path / "__init__.py"))
    return found


_LAB_LINE = re.compile(r"^LAB\s*=", re.MULTILINE)


def _declared_call(source: str, where: str) -> ast.Call | None:
    """The ``Lab(...)`` call of a module-level ``LAB = Lab(...)``, or None (not a lab).

    Only the statement itself is parsed, not the whole module: the window reads every lab's
    declaration before its first paint, and parsing twenty whole modules took a tenth of a second."""
    found = _LAB_LINE.search(source)
    if found is None:
        return None
    lines = source[found.start():].splitlines()
    for end in range(1, min(len(lines), 40) + 1):  # the shortest run of lines that is a whole statement
        try:
            statement = ast.parse("\n".join(lines[:end]), where).body
        except SyntaxError:
            continue
        call = statement[0].value if statement and isinstance(statement[0], ast.Assign) else None
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Lab":
            return call
        break
    raise DeclarationError("LAB must be assigned a Lab(...) call")


def read_declaration(source: str, where: str = "<source>") -> Lab | None:
    """The ``LAB`` a module's source declares, from its literal arguments; None if it declares none."""
    try:
        call = _declared_call(source, where)
    except DeclarationError as exc:
        raise DeclarationError(f"{where}: {exc}") from None
    if call is None:
        return None
    values: dict[str, Any] = {}
    for position, node in zip(STATIC_FIELDS, call.args, strict=False):
        values[position] = _literal(node, where, position)
    for keyword in call.keywords:
        if keyword.arg in STATIC_FIELDS:
            values[keyword.arg] = _literal(keyword.value, where, keyword.arg)
    if "name" not in values:
        raise DeclarationError(f"{where}: Lab(...) needs the lab's name")
    return Lab(**values)


def _literal(node: ast.expr, where: str, name: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise DeclarationError(f"{where}: Lab field {name!r} must be written as a literal") from None


@cache
def registry() -> dict[str, Entry]:
    """Every lab by name, in sidebar order (section, then order, then name); nothing is imported."""
    package_dir = Path(__file__).resolve().parent.parent / "experiments"
    entries: dict[str, Entry] = {}
    for module, path in _lab_sources(package_dir):
        lab = read_declaration(path.read_text(encoding="utf-8"), str(path))
        if lab is None:
            continue
        if lab.name in entries:
            raise DeclarationError(f"two labs are called {lab.name!r}: {entries[lab.name].module} and {module}")
        entries[lab.name] = Entry(lab, module)
    _check_aliases(entries)
    ordered = sorted(entries.values(), key=lambda e: (SECTIONS.index(e.lab.section), e.lab.order, e.lab.name))
    return {entry.lab.name: entry for entry in ordered}


def _check_aliases(entries: dict[str, Entry]) -> None:
    seen: dict[str, str] = {}
    for entry in entries.values():
        for alias in entry.lab.aliases:
            if alias in entries or alias in seen:
                raise DeclarationError(f"lab {entry.lab.name!r}: old name {alias!r} is taken")
            seen[alias] = entry.lab.name


def aliases() -> dict[str, str]:
    """Old name -> the lab it now means."""
    return {alias: entry.lab.name for entry in registry().values() for alias in entry.lab.aliases}


def imported(name: str) -> tuple[Lab, ModuleType]:
    """Lab ``name``'s declaration as its module defines it, with the module (imported now)."""
    module = importlib.import_module(registry()[name].module)
    lab = getattr(module, "LAB", None)
    if not isinstance(lab, Lab):
        raise DeclarationError(f"{module.__name__}: LAB is not a Lab")
    return lab, module


def quick_assignments(lab: Lab) -> dict[str, str]:
    """The quick run as ``{field: text}``, in declared order."""
    return dict(assignment.split("=", 1) for assignment in lab.quick)


@cache
def kernel_catalogue() -> dict[str, KernelSpec]:
    """Every kernel the labs run, by entry name: the base
    catalogue and each lab's ``LAB.kernels`` (imports every lab)."""
    from gpulab import kernels  # the kernels' numpy references: not needed to list the labs

    table = dict(kernels.catalogue())
    for name in registry():
        lab, _module = imported(name)
        for spec in lab.kernels:
            if spec.entry in table:
                clash = f"lab {name!r} declares kernel {spec.entry!r}, which is in the catalogue already"
                raise kernels.CatalogueError(clash)
            table[spec.entry] = spec
    return table


def kernel(entry: str) -> KernelSpec:
    """The catalogue entry of kernel ``entry``, wherever it is declared; CatalogueError names the known ones."""
    from gpulab import kernels  # see kernel_catalogue

    table = kernel_catalogue()
    if entry not in table:
        raise kernels.CatalogueError(f"no kernel {entry!r} in the catalogue (known: {', '.join(sorted(table))})")
    return table[entry]
