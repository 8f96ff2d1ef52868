"""The launch-overhead lab, "changing the menu takes time": microseconds per step against K for
tiny kernels launched one by one, waited for one by one, replayed as a CUDA Graph or fused into
one kernel, beside K small numpy calls against one. The plot is the lab panel's own; the legend
says what each way costs per step at the largest K (no level line for one launch: it would hide
the queued-launch curve, which runs along it)."""

from __future__ import annotations

from gpulab.results import Point, Result, Series
from ui.panels.lab_panel import LabPanel


def largest_k(result: Result) -> float | None:
    """The largest K any series reached, or None for an empty result."""
    return max((p.x for s in result.series for p in s.points), default=None)


def point_at(series: Series, k: float) -> Point | None:
    return next((p for p in series.points if p.x == k), None)


def microseconds(value: float) -> str:
    """A time in µs as the legend writes it: three significant digits; below 0.01 as 9.62e-5."""
    if value >= 0.01:
        return f"{value:.3g}"
    return f"{value:.2e}".replace("e-0", "e-")


class LaunchPanel(LabPanel):
    """Launch overhead & CUDA Graphs: µs per step against K, the cost at the largest K in the legend."""

    EXPERIMENT = "launch"

    def decorate(self, result: Result) -> None:
        k = largest_k(result)
        if k is None:
            return
        for series in result.series:
            point = point_at(series, k)
            if point is not None and series.name in self.plot.curves:
                self.plot.set_series_note(series.name, self._cost_text(point.y, k))

    def _cost_text(self, us: float, k: float) -> str:
        return self.tr("K=%2: %1 µs").replace("%1", microseconds(us)).replace("%2", f"{k:g}")
