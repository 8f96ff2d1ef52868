"""A lab's page is found from its declaration: no list of pages to keep in step with the labs."""

import importlib
import pkgutil

import pytest

import ui.panels
from gpulab.lab import declare
from ui.panels import PANELS, SECTIONS, page_class
from ui.panels.lab_panel import LabPanel

LAB_PAGES = [entry.lab for entry in declare.registry().values() if entry.lab.page]


@pytest.mark.parametrize("lab", LAB_PAGES, ids=lambda lab: lab.name)
def test_a_lab_that_declares_a_page_has_one_in_the_sidebar_built_from_its_panel(lab):
    spec = next(p for p in PANELS if p.name == lab.page)
    assert spec.lab == lab.name and spec.section == lab.section
    assert issubclass(page_class(lab), LabPanel) and page_class(lab).EXPERIMENT == lab.name
    assert spec.title() and spec.title() != f"experiment.{lab.name}.page"  # its catalogue title, not the key


def test_every_lab_panel_in_the_front_end_is_the_page_of_a_lab_that_declares_it():
    declared = {(lab.page, lab.name) for lab in LAB_PAGES}
    found = set()
    for info in pkgutil.iter_modules(ui.panels.__path__, "ui.panels."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            is_page = isinstance(value, type) and issubclass(value, LabPanel) and value.EXPERIMENT
            if is_page and value.__module__ == module.__name__:
                found.add((info.name.rsplit(".", 1)[1].replace("_", "-"), value.EXPERIMENT))
    assert found == declared


def test_the_front_end_knows_every_section_a_lab_may_name():
    assert tuple(section.key for section in SECTIONS) == declare.SECTIONS


def test_a_page_module_without_the_labs_panel_is_reported_by_name():
    with pytest.raises(LookupError, match=r"ui\.panels\.devices has no panel whose EXPERIMENT is 'mine'"):
        page_class(declare.Lab("mine", page="devices"))
