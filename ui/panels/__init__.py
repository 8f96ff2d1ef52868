"""The panel registry: one explicit, ordered table of every panel the window shows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from ui.panels.base import Panel
from ui.panels.cpu_vs_gpu import CpuVsGpuPanel
from ui.panels.devices import DevicesPanel
from ui.panels.experiments import ExperimentsPanel
from ui.panels.warp import WarpPanel
from ui.services import Services

translate = QCoreApplication.translate


@dataclass(frozen=True)
class PanelSpec:
    name: str  # used by --panel and saved in the settings; never translated
    title: Callable[[], str]  # translated at call time, so language switches show at once
    factory: Callable[[Services], Panel]


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("devices", lambda: translate("Panels", "Devices"), DevicesPanel),
    PanelSpec("experiments", lambda: translate("Panels", "Run experiment"), ExperimentsPanel),
    PanelSpec("cpu-vs-gpu", lambda: translate("Panels", "CPU vs GPU"), CpuVsGpuPanel),
    PanelSpec("warp", lambda: translate("Panels", "Warp visualizer"), WarpPanel),
)


def panel_names() -> list[str]:
    return [spec.name for spec in PANELS]


def panel_spec(name: str) -> PanelSpec:
    for spec in PANELS:
        if spec.name == name:
            return spec
    raise KeyError(f"no panel called {name!r} (known: {', '.join(panel_names())})")
