"""The panel registry: one explicit, ordered table of every panel the window shows.

Each panel sits in one section of the sidebar; sections keep the curriculum's order (the
basics, then inside a GPU, memory, execution, the cluster, the hardware check, lessons) and a
section without panels is not shown. Adding a panel is one line in ``PANELS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from ui.panels.access_pattern import AccessPatternPanel
from ui.panels.allreduce_steps import AllReducePanel
from ui.panels.bandwidth import BandwidthPanel
from ui.panels.base import Panel
from ui.panels.cluster_scaling import ClusterScalingPanel
from ui.panels.collectives import CollectivesPanel
from ui.panels.cpu_vs_gpu import CpuVsGpuPanel
from ui.panels.devices import DevicesPanel
from ui.panels.experiments import ExperimentsPanel
from ui.panels.fusion import FusionPanel
from ui.panels.launch import LaunchPanel
from ui.panels.precision import PrecisionPanel
from ui.panels.roofline import RooflinePanel
from ui.panels.streams import StreamsPanel
from ui.panels.topology import TopologyPanel
from ui.panels.transfer import TransferPanel
from ui.panels.warp import WarpPanel
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


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("devices", lambda: translate("Panels", "Devices"), DevicesPanel, "basics"),
    PanelSpec("cpu-vs-gpu", lambda: translate("Panels", "CPU vs GPU"), CpuVsGpuPanel, "basics"),
    PanelSpec("experiments", lambda: translate("Panels", "Run experiment"), ExperimentsPanel, "basics"),
    PanelSpec("warp", lambda: translate("Panels", "Warp visualizer"), WarpPanel, "inside"),
    PanelSpec("bandwidth", lambda: translate("Panels", "Memory wall"), BandwidthPanel, "memory"),
    PanelSpec("access-pattern", lambda: translate("Panels", "Access patterns"), AccessPatternPanel, "memory"),
    PanelSpec("roofline", lambda: translate("Panels", "Roofline"), RooflinePanel, "memory"),
    PanelSpec("transfer", lambda: translate("Panels", "PCIe transfers"), TransferPanel, "memory"),
    PanelSpec("streams", lambda: translate("Panels", "Stream overlap"), StreamsPanel, "execution"),
    PanelSpec("launch", lambda: translate("Panels", "Launch overhead & CUDA Graphs"), LaunchPanel, "execution"),
    PanelSpec("fusion", lambda: translate("Panels", "Operator fusion"), FusionPanel, "execution"),
    PanelSpec("precision", lambda: translate("Panels", "Mixed precision"), PrecisionPanel, "execution"),
    PanelSpec("topology", lambda: translate("Panels", "Topology"), TopologyPanel, "cluster"),
    PanelSpec("collectives", lambda: translate("Panels", "Collectives"), CollectivesPanel, "cluster"),
    PanelSpec("allreduce-steps", lambda: translate("Panels", "Ring & tree AllReduce"), AllReducePanel, "cluster"),
    PanelSpec("cluster-scaling", lambda: translate("Panels", "Scaling to 16,384 GPUs"), ClusterScalingPanel, "cluster"),
)


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
