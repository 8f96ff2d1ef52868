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
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QPushButton, QVBoxLayout, QWidget

from gpulab.experiments import ParamError, cluster_scaling
from gpulab.experiments.cluster_scaling import fit as cluster_fit
from gpulab.results import Result
from ui import i18n
from ui.panels.cluster_scaling_view import ScalingExplorer
from ui.panels.lab_panel import LabPanel
from ui.widgets.export import Caption, caption_of
from ui.widgets.flow_layout import FlowLayout, WrapLabel

FORM_FIELDS = ("model", "model_gpu", "zero_stage", "recompute", "interleave", "overlap", "tp", "pp")


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
    whole_lines = False  # every line over and under the charts whole (a lesson in presenter mode sets it)

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.explorer = ScalingExplorer()
        self.notes.set_lines(2)
        # The bridge from the Collectives lab: a saved AllReduce gives this machine's link, and the
        # ring is drawn on it at every GPU count beside the spec sheet's.
        self.fit_button, self.no_fit_button = QPushButton(), QPushButton()
        self.fit_label = WrapLabel(min_lines=1, max_lines=3)
        self.fit_button.clicked.connect(self._choose_fit)
        self.no_fit_button.clicked.connect(lambda: self._use_fit(""))

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
        buttons = FlowLayout()  # side by side, or one under the other where the column is narrow
        buttons.addWidget(self.fit_button)
        buttons.addWidget(self.no_fit_button)
        at = self.controls_column.indexOf(self.form) + 1
        self.controls_column.insertLayout(at, buttons)
        self.controls_column.insertWidget(at + 1, self.fit_label)
        # Grey while a run goes on (its result would bring back its own fit); "No fit" only with a fit.
        controls, usable = self.run_controls, self.run_controls.usable_when_idle

        def usable_here(widget: QWidget) -> bool:
            return usable(widget) and (widget is not self.no_fit_button or self.explorer.local is not None)

        controls.lock_while_running([*controls.inputs, self.fit_button, self.no_fit_button], usable_here)
        self.set_provenance("modelled")

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        if hasattr(self, "explorer"):
            self.explorer.retranslate()
            self.fit_button.setText(self.tr("Fit to a Collectives run…"))
            self.no_fit_button.setText(self.tr("No fit"))
            self._show_fit()

    def fit_to_view(self) -> None:
        super().fit_to_view()
        self.notes.set_lines(min(2, self.MOST_NOTE_LINES or 2))  # the table and charts need the height
        self.explorer.set_short(self.is_short(), self.whole_lines)

    def folded_settings(self) -> list[QWidget]:
        """What a lesson folds away with the form in presenter mode: the sliders (the page's preset
        sets them; the charts' titles and marker say the values), so the charts keep half the page."""
        return [self.explorer.sliders]

    def forget_run(self) -> None:
        super().forget_run()
        self.set_provenance("modelled")  # the explorer's numbers are modelled before any run

    def read_params(self) -> Any | None:
        """The form's Params with the sliders' GPU count, message size, failure rate and checkpoint time."""
        params = super().read_params()
        if params is None:
            return None
        try:
            return dataclasses.replace(params, **self.explorer.sliders.values(), fit_from=self.explorer.base.fit_from)
        except ParamError as exc:
            reason = i18n.engine_message(exc.message)
            self.services.notifier.warning(self.tr("Check the parameters: %1").replace("%1", reason))
            return None

    def _finished(self, result: Result) -> None:
        super()._finished(result)
        params = params_of(result)
        if params is not None:
            self.explorer.set_base(params)
            self._show_fit()

    # ------------------------------------------------------------ export

    def pictures(self) -> list[QWidget]:
        # The charts' tabs as a whole: the figures over the goodput chart and the legends belong to
        # the picture, and with the sliders above them a 1024x768 projector has no half page left
        # for the chart alone (it gets about 40 %). With the sliders folded away (a lesson in
        # presenter mode) the chart on show gets its half itself.
        if self.explorer.sliders.isHidden():
            return [self.export_view()]
        return [self.explorer.tabs]

    def export_view(self) -> QWidget:
        """The explorer's tab on screen (the AllReduce chart, the goodput chart or the planner),
        never the hidden plot of the run's points."""
        tab = self.explorer.tabs.currentIndex()
        return {0: self.explorer.allreduce_plot, 1: self.explorer.scaling_plot}.get(tab, self.explorer.table)

    def export_caption(self, view: QWidget) -> Caption:
        tabs = self.explorer.tabs
        plot = view if view is not self.explorer.table else None
        return caption_of(self._lab_title(), self.last_result, plot, tabs.tabText(tabs.currentIndex()))

    # ------------------------------------------------------------ the fitted link

    def _choose_fit(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("A saved Collectives result"), "",
                                                    self.tr("gpulab results (*.json)"))  # fmt: skip
        if path:
            self._use_fit(path)

    def _use_fit(self, path: str) -> None:
        """Draw the ring on the link fitted to the result at ``path`` ("" for none); a file that
        cannot be fitted is refused with the reason and changes nothing."""
        local = None
        if path:
            try:
                local = cluster_fit.fit_to_saved(path)
            except ParamError as exc:
                self.services.notifier.warning(i18n.engine_message(exc.message))
                return
        self.explorer.set_base(dataclasses.replace(self.explorer.params, fit_from=path), local)
        self._show_fit()

    def _show_fit(self) -> None:
        local = self.explorer.local
        self.no_fit_button.setEnabled(local is not None)
        if local is None:
            self.fit_label.setText(self.tr("Links from the spec sheet only."))
            return
        self.fit_label.setText(self.tr("Ring also on the link fitted to %1: %2 GB/s, alpha %3 µs.")
                               .replace("%1", Path(local.path).name).replace("%2", f"{local.fit.gb_s:.3g}")
                               .replace("%3", f"{local.fit.alpha_s * 1e6:.3g}"))  # fmt: skip
