"""Export what a panel shows: a picture (PNG or SVG) that keeps its meaning, results as CSV or JSON.

A picture is the view on screen composed with a header (the lab's title and what the view shows)
and a footer (each series with its line sample and provenance word, the machine and the date), so
a slide pasted from it still says what it is. PNG paints the composition on a ``QImage``, SVG the
same composition on a ``QSvgGenerator``. Every file is written beside its target under a temporary
name and renamed only once complete: a failed export leaves no empty or partial file behind.

The writing functions take a path and never open dialogs, so scripts and tests use them
directly; :class:`ExportButton` adds the menu and the file dialog, :func:`save` the messages.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QImage,
    QImageWriter,
    QPaintDevice,
    QPainter,
    QPalette,
    QPen,
    QPolygonF,
)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QMenu, QStackedWidget, QTabWidget, QToolButton, QWidget

from gpulab.results import Result, Series, host_summary
from ui.i18n import engine_message, localized
from ui.widgets.badge import BADGE_COLOURS, kind_label

FORMATS = ("png", "svg", "csv", "json")
PICTURES = ("png", "svg")
CSV_COLUMNS = ("series", "provenance", "device", "x", "x_unit", "y", "y_unit", "spread", "seconds", "repeats", "extra")
PNG_SCALE = 2  # a slide is shown larger than the window it was taken from: twice the pixels keep it sharp
MARGIN_PX, GAP_PX, SAMPLE_PX, SYMBOL_PX = 12, 6, 28, 9
MAX_ENTRIES = 16  # a legend of more series than this would take the picture's room; the CSV has them all
translate = QCoreApplication.translate


# ------------------------------------------------------------------ what a picture says


@dataclass(frozen=True)
class LegendEntry:
    """One series in the footer: its name, its provenance kind, and how its curve is drawn (its line's
    pen, its symbol with the symbol's pen and brush) for the sample; no pen and no symbol: no sample."""

    text: str
    kind: str = ""
    pen: QPen | None = None
    symbol: str = ""
    symbol_pen: QPen | None = None
    symbol_brush: QBrush | None = None

    @property
    def has_sample(self) -> bool:
        return self.pen is not None or bool(self.symbol)


@dataclass(frozen=True)
class Caption:
    """The words around an exported picture, in the interface language."""

    title: str
    subtitle: str = ""
    entries: tuple[LegendEntry, ...] = ()
    machine: str = ""
    made: str = ""


def plot_entries(plot: Any) -> list[LegendEntry]:
    """A live plot's curves as legend entries, in curve order, with each curve's own pen."""
    import pyqtgraph as pg  # imported with the first plot, not with this module

    from ui.widgets.live_plot import series_title

    entries = []
    for name, curve in plot.curves.items():
        kind = plot.kinds.get(name, "")
        text = series_title(plot.labels.get(name, name), kind)
        note = plot.legend_note(plot.labels.get(name, name))
        opts = curve.opts
        symbol = opts.get("symbol") if isinstance(opts.get("symbol"), str) else ""
        pens = _first(pg.mkPen, opts.get("pen")), _first(pg.mkPen, opts.get("symbolPen"))
        label = text + localized(f" ({note})", f"（{note}）") if note else text
        entries.append(LegendEntry(label, kind, pens[0], symbol, pens[1], _first(pg.mkBrush, opts.get("symbolBrush"))))
    return entries


def _first(make: Callable[[Any], Any], value: Any) -> Any:
    """A curve's pen or brush as Qt's own (the first of a per-point list); None where pyqtgraph's
    spec is something else (the sample then goes without it rather than the export failing)."""
    if isinstance(value, (list, tuple)) and value and not isinstance(value[0], (int, float)):
        value = value[0]
    try:
        return make(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def result_entries(all_series: Iterable[Series]) -> list[LegendEntry]:
    """Series of a result as legend entries (no line samples: the picture is not a plot of them)."""
    from gpulab.catalogue import Note

    entries = []
    for series in all_series:
        name = Note(series.label, series.name) if series.label is not None else series.name
        entry = LegendEntry(engine_message(name), series.provenance.kind)
        if entry not in entries:
            entries.append(entry)
    return entries


def machine_text(result: Result | None) -> str:
    """The "Machine: host (arch) · Devices: …" line for the result (this machine when there is none)."""
    host = dict(result.host) if result is not None else host_summary()
    arch = f"({host['machine']})" if host.get("machine") else ""
    where = " ".join(part for part in (str(host.get("hostname", "")), arch) if part)
    devices = sorted({s.provenance.device for s in result.series if s.provenance.device}) if result is not None else []
    text = translate("Export", "Machine: %1").replace("%1", where or "?")
    if devices:
        text += " · " + translate("Export", "Devices: %1").replace("%1", ", ".join(devices))
    return text


def made_text(result: Result | None) -> str:
    """The "Made: 2025-05-01 14:03" line, in local time (the result's creation, or now)."""
    when = datetime.now().astimezone()
    if result is not None:
        try:
            when = datetime.fromisoformat(result.created).astimezone()
        except ValueError:
            pass  # an opened file with a date we cannot read: the export's own date is still true
    return translate("Export", "Made: %1").replace("%1", when.strftime("%Y-%m-%d %H:%M"))


def caption_of(title: str, result: Result | None, plot: Any = None, subtitle: str = "") -> Caption:
    """The caption of a picture of ``plot`` (its curves name the series) or of another view of ``result``."""
    entries = plot_entries(plot) if plot is not None and getattr(plot, "curves", None) else []
    if not entries and result is not None:
        entries = result_entries(result.series)
    return Caption(title, subtitle, tuple(entries), machine_text(result), made_text(result))


def tab_title(view: QWidget, page: QWidget) -> str:
    """The title of the tab of ``page`` that ``view`` is on ("" when it is on none)."""
    child, parent = view, view.parentWidget()
    while parent is not None and child is not page:
        tabs = parent.parentWidget()
        if isinstance(parent, QStackedWidget) and isinstance(tabs, QTabWidget):
            return tabs.tabText(tabs.indexOf(child))
        child, parent = parent, parent.parentWidget()
    return ""


def shown_instead(widget: QWidget, page: QWidget) -> QWidget:
    """``widget``, or where a tab of ``page`` hides it, the tab page the user sees in its place."""
    child, parent = widget, widget.parentWidget()
    while parent is not None and child is not page:
        shown = parent.currentWidget() if isinstance(parent, QStackedWidget) else None
        if shown is not None and shown is not child:
            return shown
        child, parent = parent, parent.parentWidget()
    return widget


# ------------------------------------------------------------------ the composed picture


def _fonts(widget: QWidget) -> tuple[QFont, QFont, QFont]:
    """Body, title and badge fonts in pixels: an SVG generator's 72 dpi must not shrink the words."""
    body = QFont(widget.font())
    body.setPixelSize(max(11, widget.fontMetrics().height() - 3))
    title = QFont(body)
    title.setBold(True)
    title.setPixelSize(round(body.pixelSize() * 1.35))
    badge = QFont(body)
    badge.setBold(True)
    badge.setPixelSize(max(9, round(body.pixelSize() * 0.85)))
    return body, title, badge


@dataclass(frozen=True)
class _Chip:
    """A legend entry placed in the footer: its box, where its words start, and its badge's box."""

    entry: LegendEntry
    box: QRect
    text_x: int
    badge: QRect | None


class _Layout:
    """Where the header, the view and the footer go, at the view's width."""

    def __init__(self, caption: Caption, view: QSize, widget: QWidget) -> None:
        self.body, self.title, self.badge = _fonts(widget)
        self.width = max(view.width(), 320)
        inner = QRect(MARGIN_PX, 0, self.width - 2 * MARGIN_PX, 10_000)
        flags = int(Qt.TextFlag.TextWordWrap)
        y = MARGIN_PX
        self.title_rect = QFontMetrics(self.title).boundingRect(inner.translated(0, y), flags, caption.title)
        y = self.title_rect.bottom() + GAP_PX
        self.subtitle_rect = QRect()
        if caption.subtitle:
            self.subtitle_rect = QFontMetrics(self.body).boundingRect(inner.translated(0, y), flags, caption.subtitle)
            y = self.subtitle_rect.bottom() + GAP_PX
        self.view_top = y
        y += view.height() + GAP_PX
        self.chips, y = self._place_chips(caption.entries[:MAX_ENTRIES], y)
        self.more = len(caption.entries) - MAX_ENTRIES
        footer = " · ".join(t for t in (caption.machine, caption.made) if t)
        self.footer_rect = QFontMetrics(self.body).boundingRect(inner.translated(0, y), flags, footer)
        self.height = self.footer_rect.bottom() + MARGIN_PX

    def _place_chips(self, entries: Sequence[LegendEntry], top: int) -> tuple[list[_Chip], int]:
        text, badge = QFontMetrics(self.body), QFontMetrics(self.badge)
        row_px = max(text.height(), badge.height() + 4) + 4
        chips, x, y = [], MARGIN_PX, top
        for entry in entries:
            sample = SAMPLE_PX + GAP_PX if entry.has_sample else 0
            words = min(text.horizontalAdvance(entry.text), self.width - 2 * MARGIN_PX - sample)
            pill = badge.horizontalAdvance(kind_label(entry.kind)) + 12 if entry.kind else 0
            width = sample + words + (GAP_PX + pill if pill else 0)
            if x > MARGIN_PX and x + width > self.width - MARGIN_PX:
                x, y = MARGIN_PX, y + row_px
            box = QRect(x, y, width, row_px - 4)
            pill_box = QRect(box.right() - pill + 1, y + (box.height() - badge.height() - 4) // 2, pill,
                             badge.height() + 4) if pill else None  # fmt: skip
            chips.append(_Chip(entry, box, x + sample, pill_box))
            x += width + 3 * GAP_PX
        return chips, (y + row_px + GAP_PX if chips else top)


def _paint(painter: QPainter, widget: QWidget, caption: Caption, layout: _Layout) -> None:
    palette = widget.palette()
    ink = palette.color(QPalette.ColorRole.WindowText)
    painter.fillRect(QRect(0, 0, layout.width, layout.height), palette.color(QPalette.ColorRole.Window))
    flags = int(Qt.TextFlag.TextWordWrap)
    painter.setPen(ink)
    painter.setFont(layout.title)
    painter.drawText(layout.title_rect, flags, caption.title)
    painter.setFont(layout.body)
    if caption.subtitle:
        painter.drawText(layout.subtitle_rect, flags, caption.subtitle)
    # QWidget's own render: a plot is a QGraphicsView, whose render() takes a target rectangle and
    # scales the scene into it. PySide6 6.11 has no render(painter) without the offset.
    QWidget.render(widget, painter, QPoint(0, layout.view_top))
    for chip in layout.chips:
        _paint_chip(painter, chip, layout, ink)
    painter.setPen(ink)
    painter.setFont(layout.body)
    footer = " · ".join(t for t in (caption.machine, caption.made) if t)
    if layout.more > 0:
        footer = translate("Export", "%1 more series in the CSV export.").replace("%1", str(layout.more)) + " " + footer
    painter.drawText(layout.footer_rect, flags, footer)


def _paint_chip(painter: QPainter, chip: _Chip, layout: _Layout, ink: QColor) -> None:
    _paint_sample(painter, chip.entry, QPointF(chip.box.left() + SAMPLE_PX / 2, chip.box.center().y()))
    words_right = chip.badge.left() - GAP_PX if chip.badge is not None else chip.box.right()
    painter.setPen(ink)
    painter.setFont(layout.body)
    words = QRect(chip.text_x, chip.box.top(), words_right - chip.text_x + 1, chip.box.height())
    text = QFontMetrics(layout.body).elidedText(chip.entry.text, Qt.TextElideMode.ElideRight, words.width())
    painter.drawText(words, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), text)
    if chip.badge is not None:
        background, foreground = BADGE_COLOURS.get(chip.entry.kind, BADGE_COLOURS["none"])
        painter.setPen(QPen(QColor("#00000055")))
        painter.setBrush(QColor(background))
        painter.drawRoundedRect(QRectF(chip.badge), 5, 5)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QColor(foreground))
        painter.setFont(layout.badge)
        painter.drawText(chip.badge, int(Qt.AlignmentFlag.AlignCenter), kind_label(chip.entry.kind))


def _paint_sample(painter: QPainter, entry: LegendEntry, middle: QPointF) -> None:
    """The curve's line across the sample and its symbol in the middle, as the plot draws them."""
    if entry.pen is not None and entry.pen.style() != Qt.PenStyle.NoPen:
        pen = QPen(entry.pen)
        pen.setWidthF(max(2.0, pen.widthF()))
        painter.setPen(pen)
        painter.drawLine(middle - QPointF(SAMPLE_PX / 2, 0), middle + QPointF(SAMPLE_PX / 2, 0))
    if not entry.symbol:
        return
    painter.setPen(entry.symbol_pen or QPen(Qt.PenStyle.NoPen))
    painter.setBrush(entry.symbol_brush or QBrush())
    r = SYMBOL_PX / 2
    if entry.symbol == "t":  # pyqtgraph's "t": a triangle pointing down
        painter.drawPolygon(QPolygonF([middle + QPointF(-r, -r), middle + QPointF(r, -r), middle + QPointF(0, r)]))
    elif entry.symbol == "o":
        painter.drawEllipse(middle, r, r)
    else:  # any other symbol: a square says "a point here" well enough beside the name
        painter.drawRect(QRectF(middle.x() - r, middle.y() - r, 2 * r, 2 * r))
    painter.setBrush(Qt.BrushStyle.NoBrush)


def _paint_on(device: QPaintDevice, scale: float, widget: QWidget, caption: Caption, layout: _Layout) -> None:
    painter = QPainter(device)
    if not painter.isActive():
        raise OSError(translate("Export", "the file could not be opened for drawing"))
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.scale(scale, scale)
        _paint(painter, widget, caption, layout)
    finally:
        painter.end()


def export_picture(widget: QWidget, caption: Caption, path: str | Path, fmt: str) -> Path:
    """``widget`` as it is on screen, under ``caption``'s title and over its legend, machine and date,
    as a PNG (twice the screen's pixels) or an SVG drawing; written whole or not at all."""
    layout = _Layout(caption, widget.size(), widget)
    size = QSize(layout.width, layout.height)

    def write_png(temporary: Path) -> None:
        image = QImage(size * PNG_SCALE, QImage.Format.Format_ARGB32)
        image.fill(widget.palette().color(QPalette.ColorRole.Window))
        _paint_on(image, PNG_SCALE, widget, caption, layout)
        writer = QImageWriter(str(temporary), QByteArray(b"PNG"))  # PNG whatever the name ends with
        if not writer.write(image):
            raise OSError(translate("Export", "the image could not be written"))

    def write_svg(temporary: Path) -> None:
        generator = QSvgGenerator()
        generator.setFileName(str(temporary))
        generator.setResolution(widget.logicalDpiX())  # the view's words at the size they have on screen
        generator.setSize(size)
        generator.setViewBox(QRect(QPoint(0, 0), size))
        generator.setTitle(caption.title)
        generator.setDescription(" · ".join(t for t in (caption.machine, caption.made) if t))
        _paint_on(generator, 1.0, widget, caption, layout)

    if fmt not in PICTURES:
        raise ValueError(f"not a picture format: {fmt}")
    return write_atomically(path, write_png if fmt == "png" else write_svg)


# ------------------------------------------------------------------ files written whole or not at all


def write_atomically(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Have ``write`` fill a temporary file beside ``path`` (same suffix: the format follows it), then
    rename it onto ``path``. A write that raises or leaves an empty file leaves nothing behind."""
    target = Path(path)
    handle, name = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=target.suffix, dir=target.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        write(temporary)
        if temporary.stat().st_size == 0:
            raise OSError(translate("Export", "nothing was written"))
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target


def _cell(value: object) -> object:
    return "" if value is None else value


def _write_csv(result: Result, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
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


def export_csv(result: Result, path: str | Path) -> Path:
    """One row per point: series, provenance kind and device, x, y, spread, seconds, repeats, other facts."""
    return write_atomically(path, lambda temporary: _write_csv(result, temporary))


def export_json(result: Result, path: str | Path) -> Path:
    """The ``gpulab.result/2`` document (the format ``gpulab replay`` opens)."""
    return write_atomically(path, result.save)


def export_result(result: Result, path: str | Path, fmt: str) -> Path:
    """``result`` as CSV or JSON."""
    if fmt not in ("csv", "json"):
        raise ValueError(f"not a result format: {fmt}")
    return (export_csv if fmt == "csv" else export_json)(result, path)


def with_suffix_stem(path: str | Path, extra: str) -> Path:
    """``plot.png`` + ``-time`` -> ``plot-time.png`` (a second plot saved beside the first)."""
    path = Path(path)
    return path.with_name(f"{path.stem}{extra}{path.suffix}")


def save(notifier: Any, path: str, write: Callable[[], Iterable[Path]]) -> list[str]:
    """Run ``write`` and tell the window what came of it: "Saved …", or why nothing was saved.

    Any exception is told, not raised: an export that fails (a full disk, a folder without write
    access, a view Qt cannot draw) must never take the lab, and the run shown in it, down.
    """
    try:
        written = [str(p) for p in write()]
    except Exception as exc:  # the window must survive whatever the writer raises (see above)
        reason = str(exc) or type(exc).__name__
        notifier.error(translate("Export", "Could not save %1: %2").replace("%1", path).replace("%2", reason))
        return []
    notifier.info(translate("Export", "Saved %1").replace("%1", ", ".join(written)))
    return written


def save_export(notifier: Any, result: Result | None, fmt: str, path: str,
                pictures: Callable[[], Iterable[Path]], nothing_yet: str) -> list[str]:
    """A page's Export: ``pictures()`` for png and svg, ``result`` itself for csv and json, told
    through :func:`save`; without a result yet, ``nothing_yet`` is said and nothing is written."""
    if fmt not in PICTURES and result is None:
        notifier.warning(nothing_yet)
        return []

    def write() -> Iterable[Path]:
        if fmt in PICTURES:
            return pictures()
        assert result is not None
        return [export_result(result, path, fmt)]

    return save(notifier, path, write)


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
