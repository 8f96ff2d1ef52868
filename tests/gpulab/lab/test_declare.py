"""A lab declares itself once; the registry, old names, kernels and quick runs come from that."""

import dataclasses
import subprocess
import sys

import pytest

from gpulab import experiments
from gpulab.lab import declare
from gpulab.lab.declare import STATIC_FIELDS, DeclarationError, Lab, quick_assignments, read_declaration, registry


@pytest.mark.parametrize("name", list(registry()))
def test_the_registry_read_from_the_source_is_what_the_lab_module_declares(name):
    lab, module = declare.imported(name)
    static = registry()[name].lab
    assert {f: getattr(static, f) for f in STATIC_FIELDS} == {f: getattr(lab, f) for f in STATIC_FIELDS}
    assert module.__name__ == registry()[name].module
    assert callable(module.run) and dataclasses.is_dataclass(module.Params)


@pytest.mark.parametrize("name", list(registry()))
def test_every_quick_run_names_real_fields_with_values_the_lab_accepts(name):
    module = experiments.get(name)
    params = experiments.params_from_strings(module.Params, quick_assignments(registry()[name].lab))
    assert dataclasses.is_dataclass(params)


def test_a_quick_run_may_name_a_preset_and_gets_its_values():
    module = experiments.get("transfer")
    named = dict(experiments.presets(module.Params, "sizes"))
    params = experiments.params_from_strings(module.Params, {"sizes": "quick"})
    assert params.sizes == named["quick"] and len(params.sizes) > 1


def test_listing_the_labs_imports_none_of_them():
    code = (
        "import sys; from gpulab import experiments; names = experiments.names(); "
        "loaded = [n for n in names if experiments.REGISTRY[n] in sys.modules]; "
        "print(len(names), loaded)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    count, loaded = done.stdout.split(" ", 1)
    assert int(count) == len(registry()) and loaded.strip() == "[]"


def test_old_names_come_from_the_declarations():
    assert experiments.canonical("coalescing") == "access-pattern" == declare.aliases()["coalescing"]
    assert "coalescing" not in experiments.names()


def test_the_labs_are_listed_by_section_then_order():
    keys = [(declare.SECTIONS.index(e.lab.section), e.lab.order) for e in registry().values()]
    assert keys == sorted(keys) and experiments.names()[0] == "vector-add"


def test_a_declaration_written_with_code_where_a_literal_belongs_is_refused_by_name():
    source = 'QUICK = ("n=1",)\nLAB = Lab("mine", quick=QUICK, kernels=KERNELS)\n'
    with pytest.raises(DeclarationError, match=r"mine.py: Lab field 'quick' must be written as a literal"):
        read_declaration(source, "mine.py")


def test_kernels_are_code_and_the_other_fields_are_read_from_the_source():
    lab = read_declaration('LAB = Lab("mine", section="memory", order=5, page="mine", kernels=KERNELS)\n')
    assert lab == Lab("mine", section="memory", order=5, page="mine")
    assert read_declaration("X = 1\n") is None


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ('LAB = Lab(section="memory")\n', "needs the lab's name"),
        ('LAB = Lab("mine", section="attic")\n', "section 'attic' is not one of"),
        ('LAB = Lab("mine", quick=("sizes",))\n', "quick run 'sizes' is not field=value"),
        ("LAB = 3\n", "LAB must be assigned a Lab"),
    ],
)
def test_a_malformed_declaration_says_what_is_wrong(source, problem):
    with pytest.raises(DeclarationError, match=problem):
        read_declaration(source, "mine.py")


def test_an_old_name_that_is_a_lab_name_is_refused():
    entries = {
        "a": declare.Entry(Lab("a", aliases=("b",)), "x.a"),
        "b": declare.Entry(Lab("b"), "x.b"),
    }
    with pytest.raises(DeclarationError, match="old name 'b' is taken"):
        declare._check_aliases(entries)


def test_every_lab_kernel_is_in_the_catalogue_once_with_its_lab():
    table = declare.kernel_catalogue()
    for name in registry():
        lab, _module = declare.imported(name)
        assert all(table[spec.entry] is spec for spec in lab.kernels)
