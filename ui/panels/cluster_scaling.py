"""Scaling to 16,384 GPUs: the cluster-scaling lab's panel.

Left: the model, GPU type, ZeRO stage, recomputation, interleaving and a fixed TP or PP (the
form), and Run, which makes the saved result. Right: the scaling explorer
(:mod:`ui.panels.cluster_scaling_view`): four sliders redraw the modelled charts, the failure
figures, the Llama 3 check and the planner table as they move, no job needed. A Run takes the
sliders' values, and a finished or opened result moves the sliders to its own. Every number here
is modelled, and the badge says so from the start.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtWidgets import QVBoxLayout, QWidget

from gpulab.experiments import ParamError, cluster_scaling
from gpulab.results import Result
from ui import i18n
from ui.panels.cluster_scaling_view import ScalingExplorer
from ui.panels.lab_panel import LabPanel

FORM_FIELDS = ("model", "model_gpu", "zero_stage", "recompute", "interleave", "tp", "pp")


def params_of(result: Result) -> cluster_scaling.Params | None:
    """The Params a result was made with (None when they no longer make a valid Params)."""
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in result.params.items()}
    names = {f.name for f in dataclasses.fields(cluster_scaling.Params)}
    try:
        return cluster_scaling.Params(**{k: v for k, v in values.items() if k in names})
    except (ParamError, TypeError):
        return None


class ClusterScalingPanel(LabPanel):
    """The scaling explorer beside the lab's form."""

    EXPERIMENT = "cluster-scaling"
    FORM_FIELDS = FORM_FIELDS  # the sliders set the rest

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.explorer = ScalingExplorer()
        self.notes.set_lines(2)

    def make_view(self) -> QWidget:
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.explorer, 1)
        column.addWidget(self.notes)
        hidden = self.plot_column()  # the result's points are drawn by the explorer's own charts
        hidden.hide()
        column.addWidget(hidden)
        return view

    def _build_layout(self) -> None:
        super()._build_layout()
        for widget in (self.description, self.device_label, self.device_combo):
            widget.hide()  # nothing runs on a device: every figure is modelled
        self.set_provenance("modelled")

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        if hasattr(self, "explorer"):
            self.explorer.retranslate()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.notes.set_lines(2)  # the table and charts need the height

    def forget_run(self) -> None:
        super().forget_run()
        self.set_provenance("modelled")  # the explorer's numbers are modelled before any run

    def read_params(self) -> Any | None:
        """The form's Params with the sliders' GPU count, message size, failure rate and checkpoint time."""
        params = super().read_params()
        if params is None:
            return None
        try:
            return dataclasses.replace(params, **self.explorer.sliders.values())
        except ParamError as exc:
            reason = i18n.engine_message(exc.message)
            self.services.notifier.warning(self.tr("Check the parameters: %1").replace("%1", reason))
            return None

    def _finished(self, result: Result) -> None:
        super()._finished(result)
        params = params_of(result)
        if params is not None:
            self.explorer.set_base(params)
