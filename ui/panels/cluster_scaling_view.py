"""The scaling explorer: sliders over the model, two live charts, the Llama 3 check and the planner table.

Every number comes from the lab's own :func:`gpulab.experiments.cluster_scaling.figures`, asked
again on the GUI thread as a slider moves (about 10 ms for all of it), so the view shows what a Run
with the same Params would store and keeps no second copy of the model's arithmetic.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QTabWidget, QVBoxLayout, QWidget

from gpulab.catalogue import Message, msg
from gpulab.experiments import ParamError, cluster_scaling
from gpulab.experiments.cluster_scaling import fit as cluster_fit
from gpulab.model import cluster, parallelism, reliability
from gpulab.results import Point
from ui import i18n
from ui.panels.cluster_scaling_controls import ScalingSliders
from ui.panels.cluster_scaling_table import PlanTable
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.legend_box import LegendBox
from ui.widgets.live_plot import GroupedLegend, LivePlot

translate = QCoreApplication.translate
ALGORITHM_KEYS = {"ring": "experiment.cluster-scaling.param.algorithms.choice.ring",
                  "tree": "experiment.cluster-scaling.param.algorithms.choice.tree",
                  "hierarchical": "experiment.cluster-scaling.param.algorithms.choice.hierarchical",
                  "nvls": "experiment.cluster-scaling.param.algorithms.choice.nvls"}  # fmt: skip


def algorithm_name(algorithm: str) -> str:
    """An AllReduce algorithm in the interface's language, as the lab's form names it."""
    return i18n.engine_message(msg(ALGORITHM_KEYS[algorithm]))


def _plot(y_unit_text: str) -> LivePlot:
    plot = LivePlot(log_x=True, log_y=None)
    plot.setMinimumHeight(140)
    plot.y_unit_text = y_unit_text  # type: ignore[attr-defined]
    return plot


def _fitted(path: str) -> cluster_fit.LocalFit | None:
    """The link fitted to the collectives result at ``path``; None without one, or where the file
    is gone or unusable (a result opened elsewhere: the ring on it is simply not drawn)."""
    if not path:
        return None
    try:
        return cluster_fit.fit_to_saved(path)
    except ParamError:
        return None


class ScalingExplorer(QWidget):
    """Sliders, charts, lines of figures and the plan table for one base Params."""

    params_changed = Signal(object)  # the Params the view now shows (base with the sliders' values)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base = cluster_scaling.Params()
        self.params = self.base
        self.figs = cluster_scaling.figures(self.base)
        self.local: cluster_fit.LocalFit | None = None  # the link fitted to a saved AllReduce, if any
        self.problem: Message | None = None
        self.brief = False  # a lesson on a projector: the planner's verdict without its reasons
        self.sliders = ScalingSliders()
        self.sliders.changed.connect(self._slider_moved)
        self.allreduce_plot, self.scaling_plot = _plot("ms"), _plot("%")
        self.legends = [GroupedLegend(self.allreduce_plot), GroupedLegend(self.scaling_plot)]
        self.badge = ProvenanceBadge("modelled")
        # At most three and two lines (the rest in the tooltip): the chart under them keeps the room
        # it needs for its ticks on a projector. The goodput comes first, so a cut never hides it.
        self.figures_line = WrapLabel(min_lines=1, max_lines=3)
        self.llama_line = WrapLabel(min_lines=1, max_lines=2)
        self.llama_line.setObjectName("llamaLine")
        self.links_line = WrapLabel(min_lines=1, max_lines=3)  # the rates the AllReduce curves stand on
        self.links_line.setObjectName("linksLine")
        self.table_title = WrapLabel(min_lines=1, max_lines=2)
        self.published_line = WrapLabel(min_lines=1, max_lines=3)  # Meta's layout beside the best plan
        self.published_line.setObjectName("publishedLine")
        self.table = PlanTable()
        self.tabs = QTabWidget()
        self._build()
        self.set_base(self.base)
        self.retranslate()

    def _build(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.sliders)
        # The charts and the table take turns: on a 768-pixel projector screen each needs the whole
        # height. The failure figures and the Llama 3 check sit with the goodput they explain, which
        # leaves the AllReduce chart, the lab's first picture, the room.
        lines = QHBoxLayout()
        lines.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        text = QVBoxLayout()
        text.addWidget(self.figures_line)
        text.addWidget(self.llama_line)
        lines.addLayout(text, 1)
        self.fit_to_type()
        for plot, legend, above, below in ((self.allreduce_plot, self.legends[0], None, self.links_line),
                                           (self.scaling_plot, self.legends[1], lines, None)):  # fmt: skip
            chart = QWidget()
            chart_column = QVBoxLayout(chart)
            chart_column.setContentsMargins(0, 0, 0, 0)
            if above is not None:
                chart_column.addLayout(above)
            chart_column.addWidget(plot, 1)
            chart_column.addWidget(LegendBox(legend))
            if below is not None:
                chart_column.addWidget(below)
            self.tabs.addTab(chart, "")
        planner = QWidget()
        planner_column = QVBoxLayout(planner)
        planner_column.setContentsMargins(0, 0, 0, 0)
        planner_column.addWidget(self.table_title)
        planner_column.addWidget(self.published_line)
        planner_column.addWidget(self.table, 1)
        self.tabs.addTab(planner, "")
        column.addWidget(self.tabs, 1)

    # ------------------------------------------------------------ computing

    def set_base(self, base: cluster_scaling.Params, local: cluster_fit.LocalFit | None = None) -> None:
        """Show ``base`` (the form's Params): sliders moved to its values, everything recomputed.
        ``local``: the fit to ``base.fit_from`` when the caller has it already (else it is read)."""
        self.base = base
        self.local = local if local is not None and local.path == base.fit_from else _fitted(base.fit_from)
        self.sliders.set_values({name: getattr(base, name) for name in self.sliders.by_name()})
        self.params = base
        self.problem = None
        self.figs = cluster_scaling.figures(base)
        self.redraw()

    def _slider_moved(self, _name: str) -> None:
        try:
            params = dataclasses.replace(self.base, **self.sliders.values())
        except ParamError as exc:  # a fixed DP × TP × PP that no longer multiplies to the GPU count
            self.problem = exc.message
            self._show_figures()
            return
        self.problem = None
        self.params = params
        self.figs = cluster_scaling.figures(params)  # the lab's own figures, as a Run would compute them
        self.redraw()
        self.params_changed.emit(params)

    # ------------------------------------------------------------ drawing

    def redraw(self) -> None:
        self._draw_allreduce()
        self._draw_scaling()
        self._show_figures()
        published = parallelism.published_plan(self.params.shape, self.params.gpus, self.figs.plans)
        self.table.show_plans(self.figs.plans, self.figs.spec, published)
        title = translate("ScalingExplorer", "Plans for %1 GPUs (★ best that fits; ◆ Meta's published layout; "
                                             "tinted: cannot run)")
        self.table_title.setText(title.replace("%1", f"{self.params.gpus:,}"))
        said = [parallelism.departure(self.params.shape, self.params.gpus, self.figs.plans)]
        if not self.brief:  # the model's TFLOPS against Meta's and why they differ: the lab's own page has room
            said.append(parallelism.published_check(self.params.shape, self.params.gpus, self.figs.plans,
                                                    self.figs.spec.key))  # fmt: skip
        joiner = "" if i18n.current_language() == "zh" else " "  # Chinese sentences end in 。 with no space
        self.published_line.setText(joiner.join(i18n.engine_message(m) for m in said if m is not None))
        self.published_line.setVisible(any(m is not None for m in said))

    def _curve(self, plot: LivePlot, name: str, points: list[Point]) -> None:
        for point in points:
            plot.add_point(name, point)
        plot.set_kind(name, "modelled")

    def _draw_allreduce(self) -> None:
        plot = self.allreduce_plot
        plot.clear_series()
        for algorithm, rows in self.figs.allreduce.items():
            if not rows:
                continue  # NVLS on a GPU without it: the line under the chart says why
            self._curve(plot, algorithm_name(algorithm), [Point(n, s * 1e3) for n, s in rows])
        if self.local is not None:  # the same ring on the link this machine's AllReduce was fitted to
            name = translate("ScalingExplorer", "ring on the fitted link")  # the label under the form says which
            self._curve(plot, name, list(cluster_scaling.fitted_series(self.local, self.params).points))
        plot.redraw()
        plot.setLabel("left", "ms")
        plot.setLabel("bottom", translate("ScalingExplorer", "GPUs"))
        message = self.sliders.message.value_label.text()
        plot.setTitle(translate("ScalingExplorer", "AllReduce of %1").replace("%1", message))
        self.legends[0].refresh()
        plot.add_marker(self.params.gpus, f"{self.params.gpus:,}")
        self.links_line.setText(self.links_text())

    def links_text(self) -> str:
        """The rates under the AllReduce curves: NCCL's share of NVLink, the node's NICs, NVLink SHARP."""
        fabric = self.figs.fabric
        text = (translate("ScalingExplorer", "In a node %1 GB/s a GPU (NCCL's share of %2's %3); out of it %4 NICs × "
                                             "%5 = %6 GB/s. ")
                .replace("%1", f"{fabric.intra.bytes_per_s / 1e9:.0f}").replace("%2", fabric.intra_name)
                .replace("%3", f"{fabric.intra_line_gb_s:.0f}").replace("%4", str(fabric.nics))
                .replace("%5", f"{fabric.inter.bytes_per_s / 1e9:.0f}")
                .replace("%6", f"{fabric.nics * fabric.inter.bytes_per_s / 1e9:.0f}"))  # fmt: skip
        node = fabric.node_gpus
        missing = cluster.unavailable("nvls", node, fabric)
        if missing is not None:
            return text + i18n.engine_message(missing)
        size = self.params.message_bytes
        busbw = cluster.bus_bandwidth_gb_s(node, size, cluster.allreduce_seconds("nvls", node, size, fabric))
        return text + (translate("ScalingExplorer", "NVLink SHARP: %1 GB/s busbw on %2 GPUs, one node only.")
                       .replace("%1", f"{busbw:.0f}").replace("%2", str(node)))  # fmt: skip

    def _draw_scaling(self) -> None:
        plot = self.scaling_plot
        plot.clear_series()
        efficiency = [Point(n, plan.efficiency * 100) for n, plan in self.figs.scaling if plan is not None]
        goodput = [Point(r.gpus, r.goodput * 100) for r in self.figs.failures]
        self._curve(plot, translate("ScalingExplorer", "scaling efficiency, % of the ideal step"), efficiency)
        self._curve(plot, translate("ScalingExplorer", "goodput, % of wall time"), goodput)
        plot.redraw()
        plot.setYRange(0, 100)
        plot.setLabel("left", "%")
        plot.setTitle(translate("ScalingExplorer", "ideal step: the model's FLOPs at %1 of peak")
                      .replace("%1", f"{parallelism.COMPUTE_SHARE:.0%}"))  # fmt: skip
        plot.setLabel("bottom", translate("ScalingExplorer", "GPUs"))
        self.legends[1].refresh()
        plot.add_marker(self.params.gpus, f"{self.params.gpus:,}")

    def _show_figures(self) -> None:
        if self.problem is not None:
            self.figures_line.setText(i18n.engine_message(self.problem))
            return
        here = self.figs.here
        self.figures_line.setText(
            translate("ScalingExplorer", "Goodput %5% on %1 GPUs: %2 interruptions/day (MTBF %3 h), a checkpoint "
                                         "every %4 min (Young)")
            .replace("%1", f"{self.params.gpus:,}").replace("%2", f"{here.interruptions_per_day:.1f}")
            .replace("%3", f"{here.mtbf_s / 3600:.1f}").replace("%4", f"{here.interval_s / 60:.0f}")
            .replace("%5", f"{here.goodput * 100:.0f}"))  # fmt: skip
        self.llama_line.setText(self.llama_text())

    def llama_text(self) -> str:
        """"Llama 3: model 7.6 interruptions/day; Meta's paper 8.6 (7.8 unexpected)"."""
        paper = reliability.LLAMA3
        return (translate("ScalingExplorer", "Llama 3, 16,384 H100s — model: %1/day; Meta's paper: %2 "
                                             "(%3 unexpected)")
                .replace("%1", f"{self.figs.llama3_model_per_day:.1f}")
                .replace("%2", f"{paper.interruptions_per_day:.1f}")
                .replace("%3", f"{paper.unexpected_per_day:.1f}"))  # fmt: skip

    def set_short(self, short: bool, whole: bool = False) -> None:
        """On a short screen (a 1024x768 projector) the lines over and under the charts take one
        line less each (the rest in their tooltips): the charts keep half the page. ``whole``: every
        line whole, however long (a lesson in presenter mode: a room sees no tooltips; the sliders
        are folded away there, which leaves the charts their half)."""
        for label, lines in ((self.figures_line, 2 if short else 3), (self.llama_line, 1 if short else 2),
                             (self.links_line, 2 if short else 3)):  # fmt: skip
            label.set_lines(1, None if whole else lines)
        brief = whole and short  # a lesson on a projector: the planner says its verdict, not its reasons
        if brief != self.brief:
            self.brief = brief
            self.redraw()

    def fit_to_type(self) -> None:
        """The goodput chart tall enough for its y ticks (0-100 %) and its axis in this type."""
        self.scaling_plot.setMinimumHeight(6 * self.fontMetrics().height())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.fit_to_type()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.tabs.setTabText(0, "AllReduce")
        self.tabs.setTabText(1, translate("ScalingExplorer", "Efficiency, goodput"))
        self.tabs.setTabText(2, translate("ScalingExplorer", "Planner"))
        self.sliders.retranslate()
        self.table.retranslate()
        self.redraw()

    def numbers(self) -> dict[str, Any]:
        """What a test reads: the figures line, the first plan row and the AllReduce points."""
        curves = {name: [p.y for p in points] for name, points in self.allreduce_plot.series.items()}
        return {"figures": self.figures_line.text(), "row": [self.table.cell(0, c) for c in range(9)],
                "allreduce": curves}
