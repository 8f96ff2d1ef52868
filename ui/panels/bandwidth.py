"""The memory-wall lab: STREAM bandwidth against the working set, with the caches marked.

The plot is the bandwidth lab's result (``gpulab.experiments.bandwidth``) with what makes the
wall visible drawn on it: a horizontal line per ceiling (the CPU's best out-of-cache triad of
this run, the GPU's spec-sheet bandwidth), a vertical line per cache size (this CPU's L1/L2/L3
as the OS reports them, the GPU's L2 from the spec table), and each curve's percentage of its
ceiling at its largest working set (where the curve meets the wall), in the legend.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpulab import hostmem
from gpulab.measure import clean_points
from gpulab.results import Result, Series
from ui.panels.lab_panel import LabPanel


def _gb_s(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def ceilings(result: Result) -> Iterator[tuple[str, float, str]]:
    """(role, GB/s, device) of each distinct ceiling the result's series are compared with."""
    seen: set[tuple[str, float]] = set()
    for series in result.series:
        value = series.provenance.details.get("ceiling")
        if not value or (series.role, float(value)) in seen:
            continue
        seen.add((series.role, float(value)))
        yield series.role, float(value), series.provenance.device


def cpu_caches(result: Result) -> list[tuple[str, int]]:
    """(name, bytes) of each CPU cache the result recorded, smallest first."""
    recorded: Any = result.host.get("memory") or {}
    caches = recorded.get("caches", []) if hasattr(recorded, "get") else []
    return [(f"L{int(c['level'])}", int(c["size_bytes"])) for c in caches if c.get("size_bytes")]


def gpu_l2_bytes(result: Result) -> tuple[str, int] | None:
    """(GPU name, L2 bytes from the spec table) of the GPU the result measured; None without one.
    A modelled GPU gets no marker: its model has no L2, only the HBM's bandwidth."""
    from gpulab.specs import load_specs

    measured = next((s for s in result.series if s.role == "gpu"), None)
    spec = load_specs().match(measured.provenance.device) if measured is not None else None
    return (spec.name, int(spec.l2_cache_mb * 1e6)) if spec is not None else None


def end_percent(series: Series, beyond_bytes: int = 0) -> tuple[float, float] | None:
    """(percent of the ceiling, working set) at the series' largest clean working set past its
    device's last cache (``beyond_bytes``), if known: where the curve ends is where the wall is,
    so that is the percentage the legend shows. A flagged point is drawn hollow and makes no
    claim; a clean point still in a cache makes none either (a cache's rate set against the DRAM
    ceiling read "124% of ceiling"), so a curve whose points past the cache were all flagged
    claims nothing."""
    known = [p for p in clean_points(series) if p.extra.get("percent_of_peak") is not None and p.x > beyond_bytes]
    if not known:
        return None
    last = max(known, key=lambda p: p.x)
    return float(last.extra["percent_of_peak"]), last.x


def last_cache_bytes(result: Result, series: Series) -> int:
    """The largest cache in front of ``series``' memory: the CPU's last level, a measured GPU's L2
    (0 where unknown, and for a model, which has none)."""
    if series.role == "cpu":
        return max((size for _name, size in cpu_caches(result)), default=0)
    l2 = gpu_l2_bytes(result) if series.role == "gpu" else None
    return l2[1] if l2 is not None else 0


class BandwidthPanel(LabPanel):
    """STREAM copy/mul/add/triad/dot over working sets from 4 KiB up: the memory wall."""

    EXPERIMENT = "bandwidth"

    def decorate(self, result: Result) -> None:
        """Ceilings, cache sizes and each curve's percent of its ceiling where it ends."""
        for role, value, device in ceilings(result):
            line = self.plot.add_level(value, self._ceiling_text(role, value, device))
            if role != "cpu":
                # A GPU's ceiling tops the plot, and its curve meets it at the right: the label goes
                # under the line at the left, where the curve is still low (launch-bound).
                line.label.anchors = [(0.0, 0.0), (0.0, 0.0)]
                line.label.setPosition(0.02)
        # Short labels (L1, L2, L3): three boxes must fit side by side over a small plot; the sizes
        # are in the notes and under the lines on the axis.
        for name, size in cpu_caches(result):
            self.plot.add_marker(size, name)
        l2 = gpu_l2_bytes(result)
        if l2 is not None:
            self.plot.add_marker(l2[1], self.tr("GPU L2"))
        for series in result.series:
            found = end_percent(series, last_cache_bytes(result, series))
            if found is not None and series.name in self.plot.curves:
                self.plot.set_series_note(series.name, self._percent_text(series, found))

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.plot.x_text = hostmem.bytes_text  # ticks in KiB/MiB/GiB at the working sets run

    def _percent_text(self, series: Series, found: tuple[float, float]) -> str:
        """'61% of ceiling', and of the DRAM's theoretical rate when the firmware reported one."""
        percent, working_set = found
        text = self.tr("%1% of ceiling").replace("%1", f"{percent:.0f}")
        last = next(p for p in clean_points(series) if p.x == working_set)
        dram = last.extra.get("percent_of_dram_theoretical")
        return text if dram is None else text + self.tr(", %1% of DRAM").replace("%1", f"{float(dram):.0f}")

    def _ceiling_text(self, role: str, value: float, device: str) -> str:
        if role == "cpu":
            return self.tr("CPU best triad %1 GB/s").replace("%1", _gb_s(value))
        return self.tr("%1 spec %2 GB/s").replace("%1", _short(device)).replace("%2", _gb_s(value))


def _short(device: str) -> str:
    """'NVIDIA H100 SXM5 80 GB' -> 'H100 SXM5': a ceiling's label must stay short over the plot."""
    return " ".join(device.removeprefix("NVIDIA ").split()[:2])
