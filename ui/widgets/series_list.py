"""The series of a live plot as a column: a line sample in the curve's colour, the series name
(wrapping, in the interface language) and its provenance badge underneath.

It reads everything from :meth:`LivePlot.legend_entries`, so it always says what the plot shows;
the plot's own in-plot legend stays hidden on screen (long names in projector type would cover
the data) and is shown only in exported pictures.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from ui.widgets.badge import ProvenanceBadge
from ui.widgets.live_plot import LINE_SAMPLES, LivePlot, series_title


class SeriesList(QWidget):
    """Rebuilt whenever the plot's legend changes (a new series, a provenance now known)."""

    def __init__(self, plot: LivePlot, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = plot
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setColumnStretch(1, 1)
        plot.legend_changed.connect(self.refresh)
        self.refresh()

    def names(self) -> list[str]:
        """The texts of the series names shown, top to bottom."""
        labels = [self.grid.itemAtPosition(2 * row, 1) for row in range(self.grid.rowCount())]
        return [item.widget().text() for item in labels if item is not None and item.widget() is not None]

    def badges(self) -> list[ProvenanceBadge]:
        return self.findChildren(ProvenanceBadge)

    def refresh(self) -> None:
        self._clear()
        for row, (name, colour, kind) in enumerate(self.plot.legend_entries()):
            sample = QLabel(LINE_SAMPLES.get(kind, "━━━"))
            sample.setStyleSheet(f"color: {colour}; font-weight: bold;")
            label = QLabel(series_title(name, kind))
            label.setWordWrap(True)
            self.grid.addWidget(sample, 2 * row, 0)
            self.grid.addWidget(label, 2 * row, 1)
            if kind:
                self.grid.addWidget(ProvenanceBadge(kind), 2 * row + 1, 1, Qt.AlignmentFlag.AlignLeft)
        self.setVisible(bool(self.plot.curves))

    def _clear(self) -> None:
        while self.grid.count():
            widget = self.grid.takeAt(0).widget()
            if widget is not None:
                widget.setParent(None)  # gone from the layout at once, not at the next event loop turn
                widget.deleteLater()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        elif event.type() == QEvent.Type.PaletteChange:
            QTimer.singleShot(0, self, self.refresh)  # after the plot has restyled its curves
        super().changeEvent(event)
