"""The AllReduce lab: ring and tree, step by step on real data, and why busbw is the yardstick.

Left, the form (ranks, values per chunk, seed, link bandwidth). Right, two tabs. "Step by step":
the algorithm (ring or tree), the transport (reset, back, play/pause, forward, end, speed), the
step's text, the animation (:class:`~ui.widgets.ring_view.RingView`), the bytes on the links in
this step and so far, and, at the last step, the check against the plain sum. "algbw vs busbw":
the modelled bandwidths against n, with the chosen n marked and the explanation under them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QComboBox, QHBoxLayout, QTabWidget, QVBoxLayout, QWidget

from gpulab.catalogue import msg
from gpulab.cluster import allreduce_steps as ar
from gpulab.experiments import allreduce_steps as lab
from gpulab.results import Point, Result, Series
from ui import i18n
from ui.panels.lab_panel import LabPanel
from ui.widgets.badge import weakest_kind
from ui.widgets.export import Caption, result_entries
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.legend_box import LegendBox
from ui.widgets.live_plot import LivePlot
from ui.widgets.ring_view import RingView
from ui.widgets.transport import Transport

PLAY_SPEED = 1.5  # steps a second: slow enough to follow a message along its arrow


class BandwidthPlot(LivePlot):
    """The lab's chart: only the GB/s curves (the counts and step records are shown elsewhere)."""

    def __init__(self) -> None:
        super().__init__(log_x=False, log_y=False)

    def add_point(self, series: str, point: Point) -> None:
        if point.extra.get("chart"):
            super().add_point(series, point)


def runs_of(result: Result) -> dict[str, list[ar.Step]]:
    """Each algorithm's steps, read back from the result's step series."""
    runs = {}
    for algorithm in ar.ALGORITHMS:
        series = result.get_series(f"{algorithm}-steps")
        if series is not None and series.points:
            runs[algorithm] = [ar.step_from_json(p.extra) for p in series.points]
    return runs


def verification_of(result: Result, algorithm: str) -> dict[str, Any] | None:
    series = result.get_series(f"{algorithm}-steps")
    return dict(series.points[-1].extra.get("verification") or {}) if series is not None and series.points else None


def _how_obtained(series: Series) -> str:
    """A series' kind, or for a replayed one the kind it had when it was made."""
    return str(series.provenance.details.get("original_kind", series.provenance.kind))


class AllReducePanel(LabPanel):
    """Ring & tree AllReduce: the animation with its transport and texts, and the bandwidth chart."""

    EXPERIMENT = "allreduce-steps"

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.runs: dict[str, list[ar.Step]] = {}
        self.cursor = 0
        self.algorithm_combo = QComboBox()
        for algorithm in ar.ALGORITHMS:
            self.algorithm_combo.addItem("", algorithm)
        self.algorithm_combo.currentIndexChanged.connect(lambda _i: self._algorithm_chosen())
        self.transport = Transport()
        for widget in (self.transport.divergence_button, self.transport.memory_button, self.transport.position_label):
            widget.hide()  # the warp visualizer's jumps; the step is told in words below
        self.transport.set_speed(PLAY_SPEED)
        self.transport.step_requested.connect(lambda delta: self.go(self.cursor + delta, animate=delta > 0))
        self.transport.seek_requested.connect(lambda where: self.go(where if where >= 0 else self.last()))
        self.view = RingView()
        self.step_text = WrapLabel(min_lines=2, max_lines=3)
        self.bytes_text = WrapLabel(min_lines=2, max_lines=3)
        self.check_text = WrapLabel(min_lines=1, max_lines=3)
        self.check_text.setObjectName("checkLine")
        self.legend_text = WrapLabel(min_lines=1, max_lines=3)
        self.explanation = WrapLabel(min_lines=2, max_lines=6)

    def make_plot(self) -> LivePlot:
        return BandwidthPlot()

    def make_view(self) -> QWidget:
        steps = QWidget()
        column = QVBoxLayout(steps)
        row = QHBoxLayout()
        row.addWidget(self.algorithm_combo)
        row.addWidget(self.transport, 1)
        column.addLayout(row)
        texts = QWidget()  # under the ranks, or beside them in a lesson on a projector (place_texts)
        under = QVBoxLayout(texts)
        under.setContentsMargins(0, 0, 0, 0)
        for label in (self.step_text, self.legend_text, self.bytes_text, self.check_text):
            under.addWidget(label)
        under.addStretch(1)
        self.body = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.body.addWidget(self.view, 3)
        self.body.addWidget(texts, 0)
        column.addLayout(self.body, 1)
        chart = QWidget()
        column = QVBoxLayout(chart)
        column.addWidget(self.plot, 1)
        column.addWidget(LegendBox(self.legend))
        column.addWidget(self.explanation)
        column.addWidget(self.notes)
        self.tabs = QTabWidget()
        self.tabs.tabBar().setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.setUsesScrollButtons(True)
        self.tabs.addTab(steps, "")
        self.tabs.addTab(chart, "")
        self.tabs.currentChanged.connect(self._badge_for_view)
        return self.tabs

    def _build_layout(self) -> None:
        super()._build_layout()
        self.description.hide()  # the heading's tooltip says it: the form needs the room in projector type

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Step by step"))
        self.tabs.setTabText(1, self.tr("algbw vs busbw"))
        self.algorithm_combo.setItemText(0, self.tr("Ring"))
        self.algorithm_combo.setItemText(1, self.tr("Tree"))
        self.view.set_texts(self.tr("Press Run: the ranks and their chunks appear here, ready to step through."),
                            self.tr("rank %1"), self.tr("all"))  # fmt: skip
        legend = self.tr("A cell is a chunk; its number and colour: how many ranks' data it sums (green: all). "
                         "Outlined: being sent; arrows carry the chunk index.")  # fmt: skip
        self.legend_text.setText(legend)
        self.view.setToolTip(legend)
        self.explanation.setText(i18n.engine_message(msg("allreduce.note.busbw")))
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        self.show_cursor()

    whole_lines = False  # the busbw chart's explanation whole (a lesson in presenter mode sets it)

    def fit_to_view(self) -> None:
        super().fit_to_view()
        short = self.is_short()
        if short:  # projector type: the chart before the notes
            self.notes.set_lines(min(2, self.MOST_NOTE_LINES or 2))
        self.legend_text.setVisible(not short)  # the view's tooltip says it too: the animation needs the room
        # Cut short with '…', whole on hover. Whole, the step's texts would take the ring's half of a
        # 1024x768 projector (four lines each in Chinese at the last step), so they stay cut there.
        # In presenter mode whole (a room sees no tooltips); on a projector they then stand beside the
        # ranks (under them, the step's three texts took more than the ring's half of a 1024x768 page).
        beside = self.whole_lines and short
        self.body.setDirection(QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom)
        self.body.setStretch(1, 2 if beside else 0)
        for label in (self.step_text, self.bytes_text, self.check_text):
            label.set_lines(min(label.min_lines, 2), None if self.whole_lines else 2 if short else 3)
        # Under the busbw chart, in the other tab: whole in presenter mode, the chart keeps its half
        self.explanation.set_lines(2, None if self.whole_lines else 3 if short else 6)

    # ------------------------------------------------------------ export

    def pictures(self) -> list[QWidget]:
        return [self.view, self.plot]  # the steps, and the busbw chart in the other tab

    def export_view(self) -> QWidget:
        """The tab on screen: the ranks at the current step, or the bandwidth chart."""
        return self.view if self.tabs.currentIndex() == 0 else self.plot

    def export_caption(self, view: QWidget) -> Caption:
        """The step view's caption: the algorithm, the step's words and bytes, what a cell means, and
        only the shown algorithm's steps (executed on real data) in the legend."""
        caption = super().export_caption(view)
        if view is not self.view or self.last_result is None:
            return caption
        words = (self.step_text.text(), self.bytes_text.text(), self.legend_text.text())
        subtitle = self.algorithm_combo.currentText() + i18n.localized(": ", "：") + " ".join(w for w in words if w)
        steps = [s for s in self.last_result.series if s.key == f"{self.algorithm}-steps"]
        return dataclasses.replace(caption, subtitle=subtitle, entries=tuple(result_entries(steps)))

    # ------------------------------------------------------------ the run's life

    def forget_run(self) -> None:
        super().forget_run()
        self.runs = {}
        self.transport.pause()
        self._algorithm_chosen()

    def decorate(self, result: Result) -> None:
        """The finished (or opened) result's steps; the chosen n marked on the chart."""
        ranks = result.params.get("ranks")
        if ranks:
            self.plot.add_marker(float(ranks), self.tr("n = %1").replace("%1", str(ranks)))
        if not self.runs:
            self.runs = runs_of(result)
            self._algorithm_chosen()
        self._badge_for_view()

    def _badge_for_view(self) -> None:
        """The badge says how the numbers on screen were obtained: the steps are executed exactly on
        real vectors (emulated), the chart's bandwidths come from the link model (modelled)."""
        if self.last_result is None:
            return
        steps_shown = self.tabs.currentIndex() == 0
        kinds = [s.provenance.kind for s in self.last_result.series
                 if (_how_obtained(s) == "emulated") == steps_shown]  # fmt: skip
        if kinds:
            self.set_provenance(weakest_kind(kinds))

    # ------------------------------------------------------------ the cursor

    @property
    def algorithm(self) -> str:
        return str(self.algorithm_combo.currentData())

    def run_steps(self) -> list[ar.Step]:
        return self.runs.get(self.algorithm, [])

    def last(self) -> int:
        return max(0, len(self.run_steps()) - 1)

    def _algorithm_chosen(self) -> None:
        self.transport.pause()
        self.view.set_steps(self.run_steps(), self.algorithm)
        self.go(0)

    def go(self, position: int, animate: bool = False) -> None:
        """Show the state after step ``position`` (0: the start); the transport follows."""
        steps = self.run_steps()
        self.cursor = max(0, min(position, self.last()))
        self.view.set_position(self.cursor, animate=animate and bool(steps))
        self.transport.set_position(self.cursor, len(steps))
        self.show_cursor()

    def show_cursor(self) -> None:
        """The step's words, its bytes and, at the end, the check."""
        steps = self.run_steps()
        if not steps:
            for label in (self.step_text, self.bytes_text, self.check_text):
                label.setText("")
            return
        step = steps[self.cursor]
        self.step_text.setText(i18n.engine_message(lab.describe(step, self.algorithm, self.last())))
        self.bytes_text.setText(i18n.engine_message(lab.bytes_text(steps, self.cursor)))
        self.check_text.setText(self.check_line())

    def check_line(self) -> str:
        check = verification_of(self.last_result, self.algorithm) if self.last_result is not None else None
        if self.cursor < self.last() or not check:
            return self.tr("The check against the plain sum comes after the last step.")
        result = ar.Verification(check["max_abs_error"], check["bound"], bool(check["ranks_agree"]))
        return i18n.engine_message(lab.verification_text(result, self.run_steps()[0].ranks))
