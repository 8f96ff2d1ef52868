"""The live plot: curves created once and grown by setData, styled by provenance, fitted to sizes."""

from __future__ import annotations

import itertools
import math

import pytest
from PySide6.QtCore import QRectF, Qt

from gpulab.results import Point
from ui.theme import apply_theme
from ui.widgets.live_plot import LivePlot


def drawn(curve) -> tuple[list[float], list[float]]:
    xs, ys = curve.getOriginalDataset()
    return ([] if xs is None else list(xs)), ([] if ys is None else list(ys))


@pytest.fixture
def plot(qtbot):
    widget = LivePlot(y_of=lambda p: p.extra["seconds"] * 1e3, log_x=True, log_y=True, x_text=lambda x: f"n{x:g}")
    qtbot.addWidget(widget)
    widget.resize(500, 400)
    widget.show()
    return widget


def test_points_are_drawn_at_the_next_tick_with_the_chosen_y(qtbot, plot):
    plot.add_point("cpu", Point(1024, 5.0, None, {"seconds": 0.002}))
    plot.add_point("cpu", Point(4096, 6.0, None, {"seconds": 0.008}))
    qtbot.waitUntil(lambda: len(drawn(plot.curves["cpu"])[0]) == 2, timeout=2000)
    assert drawn(plot.curves["cpu"]) == ([1024, 4096], pytest.approx([2.0, 8.0]))
    assert [p.x for p in plot.points_of("cpu")] == [1024, 4096]


def test_ticks_sit_at_the_sizes_run_and_the_view_holds_every_point(qtbot, plot):
    for x in (16, 256, 4096):
        plot.add_point("cpu", Point(x, 1.0, None, {"seconds": x * 1e-6}))
    plot.redraw()
    ticks = plot.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [label for _pos, label in ticks] == ["n16", "n256", "n4096"]
    (x_low, x_high), (y_low, y_high) = plot.getViewBox().viewRange()
    assert x_low < math.log10(16) and x_high > math.log10(4096)
    assert y_low < math.log10(16e-3) and y_high > math.log10(4096e-3)


def test_a_modelled_series_is_dashed_with_hollow_triangles_and_keeps_it_after_a_theme_change(qtbot, plot):
    plot.add_point("model", Point(64, 1.0, None, {"seconds": 1e-3}))
    plot.set_kind("model", "modelled")
    plot.add_point("cpu", Point(64, 1.0, None, {"seconds": 1e-3}))
    plot.set_kind("cpu", "measured")
    model, cpu = plot.curves["model"], plot.curves["cpu"]
    assert model.opts["pen"].style() == Qt.PenStyle.DashLine and model.opts["symbol"] == "t"
    assert model.opts["symbolBrush"] is None or model.opts["symbolBrush"].style() == Qt.BrushStyle.NoBrush
    assert cpu.opts["pen"].style() == Qt.PenStyle.SolidLine and cpu.opts["symbol"] == "o"
    apply_theme("projector")
    plot.restyle()
    assert model.opts["pen"].style() == Qt.PenStyle.DashLine and model.opts["pen"].width() >= 3
    assert [kind for _name, _colour, kind in plot.legend_entries()] == ["modelled", "measured"]


def test_a_marker_on_a_log_axis_sits_at_the_log_of_its_x(plot):
    line = plot.add_marker(1 << 20, "GPU wins from 2^20")
    assert line.value() == pytest.approx(20 * math.log10(2))
    assert line.label.textItem.toPlainText() == "GPU wins from 2^20"


def test_clearing_forgets_curves_markers_and_the_last_runs_ticks(qtbot, plot):
    plot.add_point("cpu", Point(64, 1.0, None, {"seconds": 1e-3}))
    plot.add_marker(64, "here")
    plot.redraw()
    plot.clear_series()
    assert not plot.curves and not plot.markers and not plot.getPlotItem().listDataItems()
    assert plot.getPlotItem().getAxis("bottom")._tickLevels is None


def test_an_automatic_x_axis_turns_logarithmic_once_x_spans_two_decades(qtbot):
    plot = LivePlot()
    qtbot.addWidget(plot)
    plot.add_point("s", Point(1, 1.0))
    plot.add_point("s", Point(10, 2.0))
    plot.redraw()
    assert not plot.log_x
    plot.add_point("s", Point(1000, 3.0))
    plot.redraw()
    assert plot.log_x


def test_the_legend_renders_a_series_label_also_for_a_loaded_result(qtbot):
    from gpulab import results
    from gpulab.catalogue import msg
    from gpulab.results import Provenance, Result, Series
    from ui import i18n
    from ui.widgets.live_plot import SeriesLegend

    series = Series("CPU (numpy)", Provenance("measured", "cpu"), "elements", "", "bandwidth", "GB/s",
                    (Point(1, 2.0),), role="cpu", key="cpu-numpy", label=msg("series.cpu-numpy"))
    loaded = results.loads(Result("vector-add", {}, (series,)).to_json())  # plain str names, as from a file
    plot = LivePlot()
    legend = SeriesLegend(plot)
    qtbot.addWidget(plot)
    qtbot.addWidget(legend)
    plot.add_point("CPU (numpy)", Point(1, 2.0))
    plot.label_series(loaded)
    i18n.set_language("zh")
    legend.refresh()
    assert "CPU（numpy）" in legend.text()
    i18n.set_language("en")
    legend.refresh()
    assert "CPU (numpy)" in legend.text()


def test_size_ticks_thin_out_when_their_labels_would_overlap(qtbot, plot):
    from PySide6.QtGui import QFontMetrics

    from ui.widgets.live_plot import thinned

    metrics = QFontMetrics(plot.font())
    ticks = [(float(i), f"2^{i}") for i in range(10, 26)]
    assert thinned(ticks, 10_000, metrics) == ticks  # room for all
    few = thinned(ticks, 120, metrics)
    assert 1 < len(few) < len(ticks) and few[0] == ticks[0]
    width = sum(metrics.horizontalAdvance(label) for _p, label in few)
    assert width <= 120
    for x in (1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24):
        plot.add_point("cpu", Point(x, 1.0, None, {"seconds": 1e-3}))
    plot.resize(260, 300)
    plot.redraw()
    shown = plot.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert len(shown) < 8 and shown[0][1] == "n1024"


def test_an_automatic_y_axis_turns_logarithmic_once_the_values_span_two_decades(qtbot):
    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    plot.add_point("cpu", Point(1, 30.0))
    plot.add_point("model", Point(1, 40.0))
    plot.redraw()
    assert not plot.log_y
    plot.add_point("model", Point(2, 3000.0))  # a modelled H100 next to two CPU cores
    plot.redraw()
    assert plot.log_y and not plot.log_x


@pytest.mark.parametrize("at", [1 << 11, 1 << 16, 1 << 23])
def test_a_marker_label_stays_whole_inside_the_plot_wherever_its_line_is(qtbot, plot, at):
    for x in (1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24):
        plot.add_point("cpu", Point(x, 1.0, None, {"seconds": x * 1e-9}))
    plot.resize(420, 300)
    plot.redraw()
    line = plot.add_marker(at, "GPU wins from 2^16")
    qtbot.wait(20)
    view = plot.getViewBox().sceneBoundingRect()
    label = line.label.sceneBoundingRect()
    assert view.left() - 1 <= label.left() and label.right() <= view.right() + 1, (at, label, view)


def test_a_marker_label_too_wide_for_either_side_breaks_into_two_lines(qtbot, plot):
    from ui.widgets.plot_marks import two_lines

    assert two_lines("GPU wins from 2^16") == "GPU wins\nfrom 2^16"
    assert two_lines("2^16") == "2^16"
    for x in (1 << 10, 1 << 24):
        plot.add_point("cpu", Point(x, 1.0, None, {"seconds": x * 1e-9}))
    plot.resize(300, 300)
    plot.redraw()
    line = plot.add_marker(1 << 17, "GPU wins from 2^16 on this very narrow plot")
    assert "\n" in line.label.format and line.marker_text == "GPU wins from 2^16 on this very narrow plot"


def test_only_major_ticks_are_labelled_so_log_axes_never_pile_labels_up(qtbot):
    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    for side in ("left", "bottom"):
        assert plot.getPlotItem().getAxis(side).style["maxTextLevel"] == 0


def test_a_log_axis_labels_its_decades_and_leaves_the_ticks_between_unlabelled(qtbot):
    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    axis = plot.getPlotItem().getAxis("bottom")
    (major_spacing, majors), (_minor_spacing, minors) = axis.logTickValues(3.0, 6.0, 600, [])
    assert majors == [3.0, 4.0, 5.0, 6.0] and major_spacing == 1.0
    assert len(minors) == 24 and all(3 < v < 6 and not float(v).is_integer() for v in minors)


@pytest.mark.parametrize("rising", [True, False])
def test_a_marker_label_moves_to_the_bottom_when_a_curve_runs_where_it_would_sit(qtbot, plot, rising):
    for x in (1 << 10, 1 << 14, 1 << 17, 1 << 22, 1 << 24):
        y = (1e4 if x > 1 << 16 else 1.0) if rising else 1e4 / x  # rising: at the top right of the view
        plot.add_point("model", Point(x, y, None, {"seconds": y * 1e-3}))  # the fixture plots seconds
    plot.resize(420, 300)
    plot.redraw()
    line = plot.add_marker(1 << 16, "GPU wins from 2^16")
    qtbot.wait(20)
    view, label = plot.getViewBox().sceneBoundingRect(), line.label.sceneBoundingRect()
    if rising:
        assert label.bottom() > view.center().y(), (label, view)  # below the middle: out of the curve's way
    else:
        assert label.top() < view.center().y(), (label, view)  # the top is free: it stays there


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_a_short_log_axis_labels_only_as_many_decades_as_have_room(qtbot, theme):
    from PySide6.QtGui import QImage, QPainter

    apply_theme(theme)
    try:
        plot = LivePlot(log_y=True)
        qtbot.addWidget(plot)
        for x, y in ((1, 1.0), (2, 1e3), (3, 1e6)):  # seven decades
            plot.add_point("rates", Point(x, y))
        plot.resize(500, 170)  # the chart under its table on a projector
        plot.show()
        qtbot.waitExposed(plot)
        plot.redraw()
        axis = plot.getPlotItem().getAxis("left")

        def drawn() -> list[QRectF]:
            image = QImage(10, 10, QImage.Format.Format_ARGB32)
            painter = QPainter(image)
            try:
                return [rect for rect, _flags, _text in axis.generateDrawSpecs(painter)[2]]
            finally:
                painter.end()

        qtbot.waitUntil(lambda: len(drawn()) >= 2)
        rects = sorted(drawn(), key=lambda r: r.top())
        gap = 0.2 * rects[0].height()  # labels that touch read as one number ("10⁶10⁵10⁴")
        assert all(a.bottom() + gap <= b.top() for a, b in itertools.pairwise(rects)), rects
        plot.resize(500, 900)  # tall: every decade has its label again
        qtbot.waitUntil(lambda: len(drawn()) == 7)
    finally:
        apply_theme("light")


def test_an_axis_title_longer_than_its_axis_wraps_below_the_tick_labels_and_unwraps_when_wide(qtbot, plot):
    """pyqtgraph writes a title on one line centred on its axis, both ends off the plot: here it wraps
    to the axis' length, clear of the tick labels, and goes back to one line when the plot widens."""
    axis = plot.getPlotItem().getAxis("bottom")
    plot.setLabel("bottom", "variant (" + ", ".join(f"{i} = a kernel with a long name" for i in range(6)) + ")")

    def placed() -> bool:  # the plot's layout is redone later, in the event loop
        top, ticks_bottom = axis.label.pos().y(), axis.textHeight + axis.style["tickTextOffset"][1]
        return (axis.label.boundingRect().width() <= axis.width() + 1
                and top >= ticks_bottom - 4  # the title's box starts below the tick labels
                and top + axis.label.boundingRect().height() <= axis.height() + 6)  # fmt: skip

    qtbot.waitUntil(placed)
    assert axis.label.document().firstBlock().layout().lineCount() > 1
    plot.setLabel("bottom", "size (B)")
    qtbot.waitUntil(lambda: axis.extra_title_px == 0)
    assert axis.label.boundingRect().width() < axis.width() / 2


def test_an_axis_title_with_a_less_than_sign_is_shown_whole(qtbot, plot):
    """pyqtgraph writes the title as HTML: "(tid < s)" must not start a tag that swallows the rest."""
    plot.setLabel("bottom", "variant (0 = interleaved (tid % 2s), 1 = sequential (tid < s), 2 = warp shuffle)")
    axis = plot.getPlotItem().getAxis("bottom")
    assert axis.label.toPlainText().strip().endswith("2 = warp shuffle)")
    assert "tid < s" in axis.label.toPlainText()


def test_decades_are_written_one_way_along_an_axis():
    """pyqtgraph writes "0.1 1 10¹": one axis, two notations. Within 0.001 to 1000 plain numbers,
    beyond it powers of ten for every label."""
    from ui.widgets.plot_axes import DecadeAxis

    axis = DecadeAxis("left")
    assert axis.logTickStrings([-2.0, -1.0, 0.0, 1.0], 1.0, 1.0) == ["0.01", "0.1", "1", "10"]
    assert axis.logTickStrings([0.0, 1.0, 2.0, 5.0], 1.0, 1.0) == ["10⁰", "10¹", "10²", "10⁵"]
    assert axis.logTickStrings([-8.0, -4.0], 1.0, 1.0) == ["10⁻⁸", "10⁻⁴"]
