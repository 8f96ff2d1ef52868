"""The collectives lab: bus bandwidth against message size, one curve per collective and backend.

The plot is the collectives lab's result (``gpulab.experiments.collectives``): busbw (nccl-tests'
bus bandwidth) against the message size S on a log axis, growing live as rank 0 reports its points.
A check box shows the algorithm bandwidth (algbw = S / t) instead. Every point carries ``wrong``,
the elements of the results that were not what the collective must give: when any is non-zero the
panel says so in red above the plot and beside the curve in the legend. An NCCL AllReduce on GPUs of
the spec table gets the model's curves beside it, dashed (ring, and NVLink SHARP on NVSwitch nodes of
H100/H200), from :func:`gpulab.experiments.cluster_scaling.fit.model_reference`; the line under the plot says
what they are, or why there are none.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLabel, QWidget

from gpulab import hostmem
from gpulab.experiments.cluster_scaling import fit as cluster_fit
from gpulab.results import Point, Result
from ui import i18n
from ui.panels.cluster_scaling_view import algorithm_name
from ui.panels.lab_panel import LabPanel
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.live_plot import LivePlot

WRONG_STYLE = "color: #d32f2f; font-weight: bold;"


def wrong_total(points: list[Point] | tuple[Point, ...]) -> int:
    return sum(int(p.extra.get("wrong", 0) or 0) for p in points)


class CollectivesPanel(LabPanel):
    """AllReduce, AllGather, ReduceScatter, Broadcast, Reduce and AlltoAll: busbw against S."""

    EXPERIMENT = "collectives"
    show_algbw = False  # read by the plot's y_of from the start

    def make_plot(self) -> LivePlot:
        return LivePlot(y_of=self._y_of, log_x=True, log_y=None, x_text=hostmem.bytes_text)

    def _y_of(self, point: Point) -> float:
        return float(point.extra.get("algbw_gb_s", point.y)) if self.show_algbw else float(point.y)

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.algbw_box = QCheckBox()
        self.algbw_box.toggled.connect(self._show_algbw)
        self.wrong_label = QLabel()
        self.wrong_label.setObjectName("wrongResults")
        self.wrong_label.setStyleSheet(WRONG_STYLE)
        self.wrong_label.setWordWrap(True)
        self.wrong_label.hide()
        self.model_label = WrapLabel(min_lines=1, max_lines=2)  # the model's curves beside an NCCL AllReduce
        self.model_label.setObjectName("modelLine")
        self.reference: cluster_fit.ModelReference | None = None

    def make_view(self) -> QWidget:
        return self.plot_column(self.algbw_box, self.wrong_label, self.model_label, notes=True)

    whole_lines = False  # the model's line whole, not cut at two lines (a lesson in presenter mode sets it)

    def fit_to_view(self) -> None:
        super().fit_to_view()
        self.model_label.set_lines(1, None if self.whole_lines else 2)

    def retranslate(self) -> None:
        self.algbw_box.setText(self.tr("Show algbw (S / time)"))
        super().retranslate()
        self._say_model()

    def forget_run(self) -> None:
        super().forget_run()
        self.wrong_label.hide()
        self.reference = None
        self._say_model()

    # ------------------------------------------------------------ what is drawn

    def _show_algbw(self, checked: bool) -> None:
        self.show_algbw = checked
        self.plot._dirty = True  # the same points, another y: redraw them all now
        self.plot.redraw()
        self._label_y_axis()

    def _label_y_axis(self) -> None:
        if self.show_algbw:
            self.plot.setLabel("left", self.tr("Algorithm bandwidth (algbw) (GB/s)"))
        elif self.last_result is not None:
            self.plot.label_series(self.last_result)

    def decorate(self, result: Result) -> None:
        """Wrong elements, in red above the plot and beside each curve that has them."""
        wrong = {s.name: wrong_total(s.points) for s in result.series}
        for name, count in wrong.items():
            if count and name in self.plot.curves:
                self.plot.set_series_note(name, self.tr("%1 wrong").replace("%1", str(count)))
        total = sum(wrong.values())
        self.wrong_label.setText(
            self.tr("#wrong: %1 elements of the results were not what the collective must give. "
                    "Do not trust these bandwidths.").replace("%1", str(total)))  # fmt: skip
        self.wrong_label.setVisible(total > 0)
        self.reference = cluster_fit.model_reference(result)
        self._draw_model()
        self._label_y_axis()

    # ------------------------------------------------------------ the model beside an NCCL AllReduce

    def model_curve_name(self, algorithm: str) -> str:
        return self.tr("model: %1").replace("%1", algorithm_name(algorithm))

    def _draw_model(self) -> None:
        reference = self.reference
        if reference is not None:
            share = 2 * (reference.ranks - 1) / reference.ranks  # busbw = algbw · 2(n-1)/n
            for algorithm, rows in reference.curves.items():
                name = self.model_curve_name(algorithm)
                for size, busbw in rows:
                    extra = {"kind": "modelled", "algbw_gb_s": busbw / share}
                    self.plot.add_point(name, Point(size, busbw, extra=extra))
                self.plot.set_kind(name, "modelled")
            self.plot.redraw()
        self._say_model()

    def _say_model(self) -> None:
        reference = self.reference
        if reference is None:
            self.model_label.setText(self.tr("With the NCCL backend on GPUs of the spec table, the model's AllReduce "
                                             "curves are drawn beside the measurement."))  # fmt: skip
            return
        text = (self.tr("Dashed: the AllReduce model for %1 × %2 (NCCL's achievable NVLink rate).")
                .replace("%1", str(reference.ranks)).replace("%2", reference.gpu))  # fmt: skip
        if reference.missing is not None:
            text += " " + i18n.engine_message(reference.missing)
        self.model_label.setText(text)
