"""Themes: light, dark and projector (high contrast, large type, thick plot lines).

A theme sets the Fusion palette, the application font size, a small style sheet from
``resources/themes/<name>.qss`` and pyqtgraph's colours; :func:`style_plot` restyles one plot.
"""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from gpulab.paths import resource_path

if TYPE_CHECKING:
    import pyqtgraph as pg


@dataclass(frozen=True)
class Theme:
    name: str
    window: str
    base: str
    text: str
    button: str
    highlight: str
    muted: str  # secondary text, grid lines
    font_pt: int
    line_width: int
    curve_colors: tuple[str, ...]


# Curve colours: Okabe-Ito colour-blind-safe palette, reordered per background.
THEMES: dict[str, Theme] = {
    "light": Theme(
        name="light", window="#f3f3f3", base="#ffffff", text="#1a1a1a", button="#e6e6e6",
        highlight="#2a6fdb", muted="#6b6b6b", font_pt=10, line_width=2,
        curve_colors=("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"),
    ),
    "dark": Theme(
        name="dark", window="#25272b", base="#1b1c1f", text="#e8e8e8", button="#34373c",
        highlight="#4c8df6", muted="#9a9a9a", font_pt=10, line_width=2,
        curve_colors=("#56b4e9", "#e69f00", "#34d399", "#f0a3d0", "#f0e442", "#ff8c69"),
    ),
    "projector": Theme(
        name="projector", window="#ffffff", base="#ffffff", text="#000000", button="#e0e0e0",
        highlight="#0033cc", muted="#333333", font_pt=16, line_width=4,
        curve_colors=("#0033cc", "#c83200", "#007a3d", "#8b008b", "#000000", "#b8860b"),
    ),
}  # fmt: skip
# Coloured boxes (the GPU banner, the message bar): light tints on light themes, deep ones on dark.
_LIGHT_BOXES = {
    "box_text": "#1a1a1a",
    "warn_bg": "#fff4dd", "warn_border": "#b36b00",
    "ok_bg": "#e3f5e8", "ok_border": "#1b7f3b",
    "error_bg": "#fde2e1", "error_border": "#b3261e",
    "info_bg": "#e3eefc", "info_border": "#2a6fdb",
}  # fmt: skip
BOX_COLOURS: dict[str, dict[str, str]] = {
    "light": _LIGHT_BOXES,
    "projector": {**_LIGHT_BOXES, "box_text": "#000000"},
    "dark": {
        "box_text": "#f2f2f2",
        "warn_bg": "#4a3710", "warn_border": "#e0a030",
        "ok_bg": "#173d24", "ok_border": "#4cc27a",
        "error_bg": "#4d1c1a", "error_border": "#ef6f66",
        "info_bg": "#1a3153", "info_border": "#6fa2f0",
    },
}  # fmt: skip
THEME_NAMES = tuple(THEMES)
DEFAULT_THEME = "light"

_current = THEMES[DEFAULT_THEME]


def theme_title(name: str) -> str:
    """The menu text of a theme, translated."""
    titles = {
        "light": QCoreApplication.translate("Theme", "Light"),
        "dark": QCoreApplication.translate("Theme", "Dark"),
        "projector": QCoreApplication.translate("Theme", "Projector (high contrast)"),
    }
    return titles.get(name, name)


def current_theme() -> Theme:
    return _current


def apply_theme(name: str, app: QApplication | None = None) -> Theme:
    """Make ``name`` the look of the whole application (unknown names mean light)."""
    global _current
    theme = THEMES.get(name, THEMES[DEFAULT_THEME])
    app = app or QApplication.instance()
    _current = theme
    app.setStyle("Fusion")
    app.setPalette(make_palette(theme))
    app.setFont(_app_font(app, theme))
    app.setStyleSheet(_style_sheet(theme))
    if "pyqtgraph" in sys.modules:  # no plot exists before it is loaded; prepare_plots() comes first then
        prepare_plots()
        for widget in _live_plot_widgets(app):
            style_plot(widget)
    return theme


def prepare_plots() -> None:
    """pyqtgraph, loaded now if it is not yet, with the current theme's default colours. The
    window calls it before it builds a page: the frame and sidebar paint before pyqtgraph (half
    a second) is imported."""
    import pyqtgraph as pg

    pg.setConfigOption("background", _current.base)
    pg.setConfigOption("foreground", _current.text)


def _live_plot_widgets(app: QApplication) -> list[pg.PlotWidget]:
    """Every PlotWidget alive now. Python's garbage collector is held off while Qt's widget list
    becomes Python objects: a collection in the middle can delete a Python-owned widget (one of
    pyqtgraph's parentless menus) that is still in the list, and wrapping it then crashes."""
    import pyqtgraph as pg

    collecting = gc.isenabled()
    gc.disable()
    try:
        return [widget for widget in app.allWidgets() if isinstance(widget, pg.PlotWidget)]
    finally:
        if collecting:
            gc.enable()


def make_palette(theme: Theme) -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: theme.window,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.base,
        QPalette.ColorRole.AlternateBase: theme.button,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.Button: theme.button,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.ToolTipBase: theme.base,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.Highlight: theme.highlight,
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.Link: theme.highlight,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor(theme.muted))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor(theme.muted))
    return palette


def _app_font(app: QApplication, theme: Theme) -> QFont:
    font = QFont(app.font())
    font.setPointSize(theme.font_pt)
    return font


def _style_sheet(theme: Theme) -> str:
    """The theme's qss file with ``@name`` colour placeholders filled in."""
    path = resource_path("themes", "base.qss")
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    colours = {key: getattr(theme, key) for key in ("window", "base", "text", "button", "muted")}
    colours |= {"highlight": theme.highlight, **BOX_COLOURS[theme.name]}
    colours["themes_dir"] = resource_path("themes").as_posix()  # the check mark's picture
    for key in sorted(colours, key=len, reverse=True):  # @warn_bg before a shorter @warn
        text = text.replace(f"@{key}", colours[key])
    text = text.replace("@indicator_px", str(round(theme.font_pt * 4 / 3)))  # the type's height at 96 dpi
    return text.replace("@font_pt", str(theme.font_pt))


# A modelled curve must never look measured: only measured and emulated lines are solid.
PEN_STYLES = {
    "modelled": Qt.PenStyle.DashLine,
    "replayed": Qt.PenStyle.DotLine,
}


def curve_pen(index: int, theme: Theme | None = None, kind: str = "") -> pg.QtGui.QPen:
    """The pen of the ``index``-th curve: theme colour and width, dashed if modelled."""
    theme = theme or _current
    colour = theme.curve_colors[index % len(theme.curve_colors)]
    import pyqtgraph as pg  # loaded already: a pen is for a plot

    style = PEN_STYLES.get(kind, Qt.PenStyle.SolidLine)
    return pg.mkPen(colour, width=theme.line_width, style=style)


def style_plot(plot_widget: pg.PlotWidget, theme: Theme | None = None) -> None:
    """Apply the theme to one plot: background, axes, grid, legend and its curves' pens."""
    import pyqtgraph as pg  # loaded already: the plot is one of its widgets

    theme = theme or _current
    plot_widget.setBackground(theme.base)
    item = plot_widget.getPlotItem()
    font = QFont()
    font.setPointSize(theme.font_pt)
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        axis.setPen(pg.mkPen(theme.text, width=max(1, theme.line_width // 2)))
        axis.setTextPen(theme.text)
        axis.setTickFont(font)
        axis.label.setFont(font)
    item.showGrid(x=True, y=True, alpha=0.3)
    curves = [curve for curve in item.listDataItems() if hasattr(curve, "setPen")]  # bars keep their brushes
    for index, curve in enumerate(curves):
        curve.setPen(curve_pen(index, theme, getattr(curve, "provenance_kind", "")))
    _style_legend(item, theme)


def _style_legend(item: pg.PlotItem, theme: Theme) -> None:
    import pyqtgraph as pg

    legend = item.legend
    if legend is None:
        return
    legend.setBrush(pg.mkBrush(QColor(theme.base)))
    legend.setPen(pg.mkPen(theme.muted))
    legend.setLabelTextColor(theme.text)
    legend.setLabelTextSize(f"{theme.font_pt}pt")
    for _sample, label in legend.items:
        label.setText(label.text, color=theme.text, size=f"{theme.font_pt}pt")


def themed(widget: QWidget) -> QWidget:
    """Style every plot inside ``widget`` with the current theme; returns ``widget``."""
    import pyqtgraph as pg

    for plot in widget.findChildren(pg.PlotWidget):
        style_plot(plot)
    return widget
