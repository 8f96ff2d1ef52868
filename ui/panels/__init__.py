"""The panel registry: every page the window shows, in sidebar order.

Eight pages belong to no one lab (the welcome page, devices, CPU vs GPU, the generic run page,
the warp visualizer, the machine check, the trace doctor, the lesson viewer) and are listed here.
Every other page is a lab's: a lab that declares ``page="NAME"`` (:mod:`gpulab.lab.declare`) gets
the page ``NAME``, built from the :class:`~ui.panels.lab_panel.LabPanel` subclass for that lab in
``ui/panels/<NAME>.py``, titled by its catalogue key ``experiment.<lab>.page``, placed by its
section and order. Sections keep the curriculum's order; a section without pages is not shown. A
page's module is imported when the page is first built, so start-up imports no lab and no lab page.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from PySide6.QtCore import QCoreApplication

from gpulab.catalogue import msg
from gpulab.lab import declare
from ui import i18n
from ui.panels.base import Panel
from ui.services import Services

translate = QCoreApplication.translate


@dataclass(frozen=True)
class SectionSpec:
    key: str  # never translated
    title: Callable[[], str]


SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("basics", lambda: translate("Panels", "Basics")),
    SectionSpec("inside", lambda: translate("Panels", "Inside a GPU")),
    SectionSpec("memory", lambda: translate("Panels", "Memory")),
    SectionSpec("execution", lambda: translate("Panels", "Execution")),
    SectionSpec("cluster", lambda: translate("Panels", "Cluster")),
    SectionSpec("check", lambda: translate("Panels", "Check")),
    SectionSpec("lessons", lambda: translate("Panels", "Lessons")),
)


@dataclass(frozen=True)
class PanelSpec:
    name: str  # used by --panel and saved in the settings; never translated
    title: Callable[[], str]  # translated at call time, so language switches show at once
    factory: Callable[[Services], Panel]
    section: str  # a SectionSpec key
    order: int = 100  # place in its section, lower first
    lab: str = ""  # the lab whose page it is ("" for a page of no one lab)


def _lazy(module: str, attribute: str) -> Callable[[Services], Panel]:
    """A factory that imports the page's module only when the page is first built."""
    return lambda services: getattr(importlib.import_module(module), attribute)(services)


def page_class(lab: declare.Lab) -> type[Panel]:
    """The LabPanel subclass in ``ui/panels/<page>.py`` whose ``EXPERIMENT`` is this lab."""
    module = importlib.import_module(f"ui.panels.{lab.page.replace('-', '_')}")
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, Panel) and getattr(value, "EXPERIMENT", "") == lab.name:
            return value
    raise LookupError(f"{module.__name__} has no panel whose EXPERIMENT is {lab.name!r}")


def _lab_page(lab: declare.Lab) -> PanelSpec:
    def title() -> str:
        return i18n.engine_message(msg(f"experiment.{lab.name}.page"))

    return PanelSpec(lab.page, title, lambda services: page_class(lab)(services), lab.section, lab.order, lab.name)


# The pages of no one lab.
OWN_PAGES: tuple[PanelSpec, ...] = (
    PanelSpec("welcome", lambda: translate("Panels", "Start here"), _lazy("ui.panels.welcome", "WelcomePanel"),
              "basics", 0),
    PanelSpec("devices", lambda: translate("Panels", "Devices"), _lazy("ui.panels.devices", "DevicesPanel"),
              "basics", 10),
    PanelSpec("cpu-vs-gpu", lambda: translate("Panels", "CPU vs GPU"), _lazy("ui.panels.cpu_vs_gpu", "CpuVsGpuPanel"),
              "basics", 20),
    PanelSpec("experiments", lambda: translate("Panels", "Run experiment"),
              _lazy("ui.panels.experiments", "ExperimentsPanel"), "basics", 30),
    PanelSpec("warp", lambda: translate("Panels", "Warp visualizer"), _lazy("ui.panels.warp", "WarpPanel"),
              "inside", 10),
    PanelSpec("check", lambda: translate("Panels", "Check this machine"), _lazy("ui.panels.check", "CheckPanel"),
              "check", 10),
    PanelSpec("trace", lambda: translate("Panels", "Trace doctor"), _lazy("ui.panels.trace", "TracePanel"),
              "check", 20),

    PanelSpec("lesson", lambda: translate("Panels", "Lesson viewer"), _lazy("ui.panels.lesson", "LessonPanel"),
              "lessons", 10),
)


@cache
def _panels() -> tuple[PanelSpec, ...]:
    labs = [_lab_page(entry.lab) for entry in declare.registry().values() if entry.lab.page]
    keys = [section.key for section in SECTIONS]
    return tuple(sorted((*OWN_PAGES, *labs), key=lambda p: (keys.index(p.section), p.order, p.name)))


PANELS: tuple[PanelSpec, ...] = _panels()


def sections() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(section key, heading, [(panel name, title), ...]) in sidebar order, texts translated now."""
    return [
        (section.key, section.title(), [(p.name, p.title()) for p in PANELS if p.section == section.key])
        for section in SECTIONS
    ]


def panel_names() -> list[str]:
    return [spec.name for spec in PANELS]


def panel_spec(name: str) -> PanelSpec:
    for spec in PANELS:
        if spec.name == name:
            return spec
    raise KeyError(f"no panel called {name!r} (known: {', '.join(panel_names())})")
