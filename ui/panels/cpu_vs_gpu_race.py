"""The race tab of the CPU-vs-GPU panel: pick a size run, then watch one bar per series fill
over that series' time at that size (copies in, compute, copies out split where known)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpulab.results import Point
from ui.widgets.live_plot import LivePlot, series_title
from ui.widgets.params_form import size_text
from ui.widgets.race import Lane, RaceView


def lane_parts(point: Point) -> tuple[tuple[str, float], ...]:
    """Copy in, compute, copy out of a GPU point whose copies were timed or modelled; else ()."""
    extra = point.extra
    if not extra.get("h2d_seconds") and not extra.get("d2h_seconds"):
        return ()
    compute = float(extra.get("kernel_seconds", 0.0)) + float(extra.get("launch_seconds", 0.0))
    parts = (
        ("h2d", float(extra.get("h2d_seconds", 0.0))),
        ("kernel", compute),
        ("d2h", float(extra.get("d2h_seconds", 0.0))),
    )
    total = sum(seconds for _part, seconds in parts)
    scale = float(extra["seconds"]) / total if total > 0 else 0.0  # medians of parts need not add up exactly
    return tuple((part, seconds * scale) for part, seconds in parts)


def race_lanes(plot: LivePlot, size: float) -> list[Lane]:
    """A lane per series of ``plot`` that has a timed point at ``size``, in the curve's colour."""
    lanes = []
    for name, colour, kind in plot.legend_entries():
        point = next((p for p in plot.points_of(name) if p.x == size), None)
        if point is not None and point.extra.get("seconds"):
            seconds = float(point.extra["seconds"])
            lanes.append(Lane(series_title(name, kind), seconds, kind or "measured", colour, lane_parts(point)))
    return lanes


class RaceTab(QWidget):
    """Size list, Start button and the race; ``refill()`` after a sweep, ``start_requested`` on a click."""

    def __init__(self, plot: LivePlot, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = plot  # the series and points the lanes are made of
        self.experiment = ""
        self.race = RaceView()
        self.size_combo = QComboBox()
        self.size_combo.currentIndexChanged.connect(self.show_lanes)
        self.start_button = QPushButton()
        self.start_button.clicked.connect(lambda: self.race.start())
        self.size_label = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.size_label)
        row.addWidget(self.size_combo, 1)
        row.addWidget(self.start_button)
        column = QVBoxLayout(self)
        column.addLayout(row)
        column.addWidget(self.race, 1)
        self.retranslate()

    def refill(self, experiment: str) -> None:
        """Offer every size the plot holds (the largest chosen) and show its lanes."""
        self.experiment = experiment
        sizes = sorted({p.x for name in self.plot.curves for p in self.plot.points_of(name)})
        self.size_combo.blockSignals(True)
        self.size_combo.clear()
        for x in sizes:
            self.size_combo.addItem(size_text(x), x)
        self.size_combo.setCurrentIndex(len(sizes) - 1)
        self.size_combo.blockSignals(False)
        self.show_lanes()

    def clear(self) -> None:
        self.size_combo.clear()
        self.race.set_lanes([])

    def show_lanes(self, _index: int = 0) -> None:
        size = self.size_combo.currentData()
        if size is None:
            self.race.set_lanes([])
            return
        titles = {"matmul": self.tr("One multiply at N = %1"), "vector-add": self.tr("One add of n = %1")}
        title = titles.get(self.experiment, self.tr("Size %1"))
        self.race.set_lanes(race_lanes(self.plot, size), title.replace("%1", size_text(size)))

    def retranslate(self) -> None:
        self.size_label.setText(self.tr("Size:"))
        self.start_button.setText(self.tr("Start race"))
        if not self.race.is_running():  # lane names and title in the new language, bars as they were
            progress = self.race.progress
            self.show_lanes()
            self.race.set_progress(progress)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
