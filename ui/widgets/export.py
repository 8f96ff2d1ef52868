"""Export what a panel shows: plots as PNG or SVG (pyqtgraph's exporters), results as CSV or JSON.

The writing functions take a path and never open dialogs, so scripts and tests use them
directly; :class:`ExportButton` adds the menu and the file dialog.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QEvent, QPoint, QRect, Signal
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QMenu, QToolButton, QWidget

from gpulab.results import Result

FORMATS = ("png", "svg", "csv", "json")
CSV_COLUMNS = ("series", "provenance", "device", "x", "x_unit", "y", "y_unit", "spread", "seconds", "repeats", "extra")


def export_plot_png(plot: pg.PlotWidget, path: str | Path, width: int | None = None) -> Path:
    """The plot (axes, curves, legend) as a PNG; ``width`` in pixels, default the plot's own."""
    exporter = pg_exporters.ImageExporter(plot.getPlotItem())
    target_width = int(width or max(plot.width(), 640))
    exporter.parameters()["width"] = target_width  # the exporter keeps the aspect ratio
    exporter.export(str(path))
    return Path(path)


def export_plot_svg(plot: pg.PlotWidget, path: str | Path) -> Path:
    """The plot as an SVG drawing: pyqtgraph's exporter, or Qt's SVG generator where that fails.

    pyqtgraph 0.14's exporter cannot parse the path data newer Qt releases write
    (pyqtgraph issue #3485: ``ValueError`` in ``correctCoordinates``); rendering the widget
    through ``QSvgGenerator`` still gives vector output of exactly what is on screen.
    """
    try:
        pg_exporters.SVGExporter(plot.getPlotItem()).export(str(path))
    except ValueError:
        _render_svg(plot, Path(path))
    return Path(path)


def _render_svg(widget: QWidget, path: Path) -> None:
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(widget.size())
    generator.setViewBox(QRect(QPoint(0, 0), widget.size()))
    generator.setTitle("gpulab plot")
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()


def _cell(value: object) -> object:
    return "" if value is None else value


def export_csv(result: Result, path: str | Path) -> Path:
    """One row per point: series, provenance kind and device, x, y, spread, seconds, repeats, other facts."""
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for series in result.series:
            for point in series.points:
                other = {k: v for k, v in point.extra.items() if k not in ("seconds", "repeats")}
                writer.writerow([
                    series.name, series.provenance.kind, series.provenance.device,
                    point.x, series.x_unit, point.y, series.y_unit, _cell(point.spread),
                    _cell(point.extra.get("seconds")), _cell(point.extra.get("repeats")),
                    json.dumps(other, ensure_ascii=False, default=str) if other else "",
                ])  # fmt: skip
    return Path(path)


def export_json(result: Result, path: str | Path) -> Path:
    """The ``gpulab.result/2`` document (the format ``gpulab replay`` opens)."""
    result.save(path)
    return Path(path)


def with_suffix_stem(path: str | Path, extra: str) -> Path:
    """``plot.png`` + ``-time`` -> ``plot-time.png`` (a second plot saved beside the first)."""
    path = Path(path)
    return path.with_name(f"{path.stem}{extra}{path.suffix}")


class ExportButton(QToolButton):
    """A button with a menu: PNG, SVG, CSV, JSON. Emits ``export_requested(format, path)``
    after asking for a file name; the owner does the writing (see the functions above)."""

    export_requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None, ask_path: Callable[[str], str] | None = None) -> None:
        super().__init__(parent)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._menu = QMenu(self)
        self._actions = {fmt: self._menu.addAction("") for fmt in FORMATS}
        for fmt, action in self._actions.items():
            action.triggered.connect(lambda _checked=False, f=fmt: self._chosen(f))
        self.setMenu(self._menu)
        self.ask_path = ask_path or self._dialog
        self.retranslate()

    def retranslate(self) -> None:
        self.setText(self.tr("Export…"))
        self._actions["png"].setText(self.tr("Plots as PNG image…"))
        self._actions["svg"].setText(self.tr("Plots as SVG drawing…"))
        self._actions["csv"].setText(self.tr("Points as CSV table…"))
        self._actions["json"].setText(self.tr("Result as JSON (gpulab report)…"))

    def _dialog(self, fmt: str) -> str:
        title = self.tr("Export as %1").replace("%1", fmt.upper())
        path, _filter = QFileDialog.getSaveFileName(self, title, f"gpulab-result.{fmt}", f"*.{fmt}")
        return path

    def _chosen(self, fmt: str) -> None:
        path = self.ask_path(fmt)
        if path:
            if not path.lower().endswith(f".{fmt}"):
                path += f".{fmt}"
            self.export_requested.emit(fmt, path)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
