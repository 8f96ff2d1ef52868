"""A lab panel: one experiment's own page in the sidebar (the memory wall, the roofline, ...).

It is the Run-experiment panel with the experiment fixed: the form from the lab's Params, the
device choice, the run column, the live plot with its legend and notes, and an export button.
A lab adds what its picture needs in two hooks:

- ``decorate(result)`` draws on the finished plot: ceiling lines (``plot.add_level``), cache or
  crossover markers (``plot.add_marker``), legend notes (``plot.set_series_note``). It runs when a
  run finishes, when a saved result is opened and when the language changes. By default each
  series that carries ``percent_of_peak`` shows its best percentage in the legend.
- ``make_view()`` replaces the right-hand side when a plot of points is not the whole story
  (a case table, a roofline chart).

A lab whose model has validation rows (``resources/validation/*.toml`` naming its experiment id)
gets a "How good is this model?" button at the right of its heading, listing them.

A lab page is a ``LabPanel`` subclass with ``EXPERIMENT`` set, in ``ui/panels/<page>.py``, where the
lab's declaration (``LAB = Lab(..., page="<page>")``) makes :mod:`ui.panels` find it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtWidgets import QVBoxLayout, QWidget

from gpulab import experiments
from gpulab.measure import clean_points
from gpulab.results import Result
from ui.panels.experiments import ExperimentsPanel, localized
from ui.widgets.controls_scroll import ControlsScroll
from ui.widgets.validation_view import ValidationButton, heading_row


def best_percent_of_peak(points: Any) -> float | None:
    """The largest ``percent_of_peak`` among the clean ``points`` (a flagged one makes no claim),
    or None when none carries one."""
    values = [float(p.extra["percent_of_peak"]) for p in clean_points(points)
              if p.extra.get("percent_of_peak") is not None]  # fmt: skip
    return max(values) if values else None


class LabPanel(ExperimentsPanel):
    """The panel of one registered experiment, ``EXPERIMENT`` (its registry name)."""

    EXPERIMENT = ""
    # A lab's picture is the point of its page: the form gets less of the width than in Run experiment.
    FORM_SHARE = 0.3
    CONTROLS_SHARE = 0.4
    LEAST_NOTE_LINES = 2  # on a short screen the plot keeps the height; the notes scroll
    FORM_FIELDS: tuple[str, ...] | None = None  # the fields the form shows (None: all but LEFT_OUT_FIELDS)
    LEFT_OUT_FIELDS: tuple[str, ...] = ()  # kept at their defaults on this page; the command line still sets them

    def _make_widgets(self) -> None:
        super()._make_widgets()
        # "How good is this model?": the lab's validation rows (hidden where the lab has none).
        self.validation_button = ValidationButton(self.EXPERIMENT, self._lab_title, self.services.runner)

    def _lab_title(self) -> str:
        return self.export_title() or self.EXPERIMENT

    def _build_layout(self) -> None:
        super()._build_layout()
        page = self.layout()
        page.insertWidget(page.indexOf(self.heading), heading_row(self.heading, self.validation_button))
        self.experiment_label.hide()  # one experiment: the heading names it
        self.experiment_combo.hide()
        # The form scrolls on a short screen instead of squeezing; the device, Run and Export stay
        # under it, on screen whatever the form's length (a 1024x768 projector holds few fields:
        # the operator-fusion form left "Run on" half below the fold).
        self.controls_scroll = ControlsScroll()
        pinned = QWidget()
        column = QVBoxLayout(pinned)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.controls_scroll)
        for widget in (self.device_label, self.device_combo, self.run_controls, self.export_button):
            column.addWidget(widget)  # taken out of the scrolled column
        column.addStretch(1)  # room to spare goes under Export; the form shrinks (and scrolls) first
        controls = self.splitter.widget(0)
        self.splitter.insertWidget(0, pinned)
        self.controls_scroll.setWidget(controls)

    def _fill_experiments(self) -> None:
        self.experiment_combo.addItem(self.EXPERIMENT, self.EXPERIMENT)
        self._experiment_chosen(0)

    def retranslate(self) -> None:
        super().retranslate()
        if self.module is not None:
            self.heading.setText(localized(self.module, "TITLE"))
        if self.last_result is not None:
            self._redecorate(self.last_result)

    def form_fields(self, params_type: type) -> list[str] | None:
        if self.FORM_FIELDS is not None:
            return list(self.FORM_FIELDS)
        if not self.LEFT_OUT_FIELDS:
            return None
        return [f.name for f in dataclasses.fields(params_type) if f.name not in self.LEFT_OUT_FIELDS]

    # ------------------------------------------------------------ hooks

    def decorate(self, result: Result) -> None:
        """Draw what the lab adds to a finished plot; the default shows each series' best percent of peak."""
        for series in result.series:
            best = best_percent_of_peak(series.points)
            if best is not None and series.name in self.plot.curves:
                self.plot.set_series_note(series.name, self.tr("up to %1% of peak").replace("%1", f"{best:.0f}"))

    def _redecorate(self, result: Result) -> None:
        self.plot.clear_decorations()
        self.decorate(result)

    # ------------------------------------------------------------ the run's life

    def _finished(self, result: Result) -> None:
        super()._finished(result)
        self._redecorate(result)

    def show_result(self, result: Result) -> None:
        """Show a finished (or opened) result of this lab; another lab's result is refused with a message."""
        if experiments.canonical(result.experiment) != self.EXPERIMENT:  # also a lab's results under its old name
            self.services.notifier.warning(
                self.tr("This result is from %1, not from this lab.").replace("%1", result.experiment)
            )
            return
        super().show_result(result)
