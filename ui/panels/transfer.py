"""The PCIe-transfer lab, "the side door is tiny": GB/s of host-GPU copies against the size of
one copy, with the link's theoretical rate and the share pinned copies reach in practice as
lines, percentages of the link at the points of the main curve, two bars that compare many
small round trips with one batched copy (keep it on the GPU), and four that set copies both
ways at once against one way at a time."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from gpulab.model.transfer import DEFAULT_PINNED_EFFICIENCY
from gpulab.results import Result, Series
from ui.panels.lab_panel import LabPanel, best_percent_of_peak
from ui.panels.transfer_view import (
    BatchBars,
    BothWaysBars,
    TransferPlot,
    batch_pair,
    both_ways_pair,
    is_bar_point,
    spread_out,
)

PERCENT_LABELS = 4  # at most this many percentages on the main curve: more would hide it
SHORT_PANEL_LINES = 34  # a panel fewer text lines tall than this keeps two lines of notes (they scroll)


def copy_series(result: Result) -> list[Series]:
    """The series of single copies (not the keep-it-on-the-GPU pair)."""
    return [s for s in result.series if s.points and not any(is_bar_point(p) for p in s.points)]


def link_rates(result: Result) -> dict[str, float]:
    """Each link the copy series were compared with, by name ("PCIe Gen4 x16"), and its rate per direction."""
    rates: dict[str, float] = {}
    for series in copy_series(result):
        name, rate = series.provenance.details.get("link"), series.provenance.details.get("link_gb_s_per_direction")
        if name and rate:
            rates.setdefault(str(name), float(rate))
    return rates


def main_series(result: Result) -> Series | None:
    """The curve the percentages are written on: measured host-to-GPU pinned copies, else the
    model of the GPU's own link, else the modelled Gen4 link (the lesson's), else the first pinned model."""
    by_key = {s.key: s for s in copy_series(result)}
    for key in ("h2d-pinned", "model-link-pinned", "model-gen4-pinned"):
        if key in by_key:
            return by_key[key]
    return next((s for s in by_key.values() if s.key.endswith("-pinned")), None)


class TransferPanel(LabPanel):
    """PCIe transfers: pinned and pageable copies each way, modelled links, round trips vs one batch."""

    EXPERIMENT = "transfer"

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.bars = BatchBars()
        self.both_ways = BothWaysBars()

    def make_plot(self) -> TransferPlot:
        return TransferPlot()

    def make_view(self) -> QWidget:
        """Three tabs over the notes: the copy-size sweep (plot and legend), the round trips against
        one batch (bars), and copies both ways at once (bars). Side by side they would leave the
        plot no room in projector type."""
        sweep = self.plot_column()
        self.tabs = QTabWidget()
        self.tabs.tabBar().setElideMode(Qt.TextElideMode.ElideRight)  # a long title must not widen the panel
        self.tabs.setUsesScrollButtons(True)
        self.tabs.addTab(sweep, "")
        for bars in (self.bars, self.both_ways):
            page = QWidget()
            column = QVBoxLayout(page)
            column.addWidget(bars)
            column.addStretch(1)
            self.tabs.addTab(page, "")
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.notes)
        return view

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Copy sizes"))
        self.tabs.setTabText(1, self.tr("Round trips vs batch"))
        self.tabs.setTabText(2, self.tr("Both ways at once"))
        super().retranslate()

    def fit_to_view(self) -> None:
        super().fit_to_view()
        if self.shown_size().height() < SHORT_PANEL_LINES * self.fontMetrics().height():
            self.notes.set_lines(2)  # the plot needs the room more than the notes, which scroll

    def forget_run(self) -> None:
        super().forget_run()
        self.bars.show_result(None)
        self.both_ways.show_result(None)

    def decorate(self, result: Result) -> None:
        rates = link_rates(result)
        for name, rate in rates.items():
            self._level(rate, self.tr("%1: %2 GB/s").replace("%1", name).replace("%2", f"{rate:.1f}"), above=True)
        main = main_series(result)
        main_rate = main.provenance.details.get("link_gb_s_per_direction") if main is not None else None
        if main_rate and main is not None and main.role == "gpu":  # beside a model's curves it says nothing new
            text = self.tr("%1: pinned, in practice").replace("%1", f"{DEFAULT_PINNED_EFFICIENCY:.0%}")
            self._level(DEFAULT_PINNED_EFFICIENCY * float(main_rate), text, above=False)
        self.plot.reach(max(rates.values(), default=0.0))
        self._label_main(main)
        for series in copy_series(result):  # measured ones: a model's percentages are its assumptions
            best = best_percent_of_peak(series.points) if series.role == "gpu" else None
            if best is not None and series.name in self.plot.curves:
                self.plot.set_series_note(series.name, self.tr("up to %1% of the link").replace("%1", f"{best:.0f}"))
        self.bars.show_result(result)
        self.both_ways.show_result(result)

    def _level(self, y: float, text: str, above: bool) -> Any:
        """A horizontal line with its label at the left end, where every curve is still near zero
        (small copies are slow), above the line or, for a second line close under another, below it."""
        line = self.plot.add_level(y, text)
        line.label.anchors = [(0.0, 1.0), (0.0, 1.0)] if above else [(0.0, 0.0), (0.0, 0.0)]
        line.label.setPosition(0.01)
        return line

    def _label_main(self, main: Series | None) -> None:
        if main is None:
            self.plot.clear_point_labels()
            return
        points = spread_out([p for p in main.points if p.extra.get("percent_of_peak") is not None], PERCENT_LABELS)
        self.plot.label_points(points, [f"{p.extra['percent_of_peak']:.0f}%" for p in points], main.name)

    def show_result(self, result: Result) -> None:
        super().show_result(result)
        if batch_pair(result) is None:
            self.bars.show_result(None)
        if both_ways_pair(result) is None:
            self.both_ways.show_result(None)
