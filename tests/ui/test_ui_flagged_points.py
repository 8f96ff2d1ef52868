"""Points flagged noisy or implausible are drawn hollow and faded, and the legend next to the plot says
what that means; a run with only clean points shows neither."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpulab.lab.base import PartialPoint, Progress
from gpulab.measure import flagged
from gpulab.results import Point, Provenance, Result, Series
from tests.ui.walk import JOB_TIMEOUT_MS, click, open_panel, switch_language
from ui.widgets.live_plot import FLAGGED_ALPHA, LivePlot, SeriesLegend

LOADED_STEP = 3  # the step timed while the machine was busy


def _spot_style(plot: LivePlot, series: str) -> list[tuple[Qt.BrushStyle, int]]:
    """(fill style, outline alpha) of each drawn point of ``series``, in order."""
    spots = sorted(plot.curves[series].scatter.points(), key=lambda spot: spot.pos().x())
    return [(spot.brush().style(), spot.pen().color().alpha()) for spot in spots]


def test_a_flagged_point_is_hollow_and_faded_and_the_clean_ones_stay_filled(qtbot):
    plot = LivePlot(log_x=False, log_y=False)
    qtbot.addWidget(plot)
    legend = SeriesLegend(plot)
    for x in (1, 2, 3):
        point = Point(x, 10.0 * x)
        plot.add_point("cpu", flagged(point, ["busy"]) if x == 2 else point)
    plot.redraw()
    (fill_1, alpha_1), (fill_2, alpha_2), (fill_3, _alpha_3) = _spot_style(plot, "cpu")
    assert fill_1 == fill_3 == Qt.BrushStyle.SolidPattern and alpha_1 == 255
    assert fill_2 == Qt.BrushStyle.NoBrush and alpha_2 == FLAGGED_ALPHA
    assert "Hollow, faded points: 1 " in legend.text()


def test_a_theme_change_keeps_the_flagged_point_hollow(qtbot):
    plot = LivePlot()
    qtbot.addWidget(plot)
    plot.add_point("cpu", Point(1, 1.0))
    plot.add_point("cpu", Point(2, 2.0, extra={"implausible": "drop-from-previous-size"}))
    plot.redraw()
    plot.restyle()
    assert [fill for fill, _alpha in _spot_style(plot, "cpu")] == [Qt.BrushStyle.SolidPattern, Qt.BrushStyle.NoBrush]


def loaded_run(params, ctx):
    """The fake squares, its third step timed on a busy machine (flagged)."""
    series = Series("squares", Provenance("measured", "test device"), "n", "", "n squared", "")
    for i in range(1, params.steps + 1):
        point = Point(i, i**2)
        point = flagged(point, ["busy"]) if i == LOADED_STEP else point
        series = series.with_point(point)
        yield Progress(i / params.steps, f"step {i}")
        yield PartialPoint("squares", point)
    return Result("fake", {"steps": params.steps}, (series,), ("a fake note",))


def _run_fake(qtbot, window):
    panel = open_panel(qtbot, window, "experiments")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None and panel.last_result is not None, timeout=JOB_TIMEOUT_MS)
    return panel


def test_after_a_run_with_a_flagged_point_the_line_under_the_plot_says_hollow_points_make_no_claim(
        qtbot, window, fake_experiment, monkeypatch):  # fmt: skip
    monkeypatch.setattr(fake_experiment, "run", loaded_run)
    panel = _run_fake(qtbot, window)
    assert panel.legend.isVisible()
    assert "Hollow, faded points: 1 measured under load or implausible" in panel.legend.text()
    fills = [fill for fill, _alpha in _spot_style(panel.plot, "squares")]
    assert fills.count(Qt.BrushStyle.NoBrush) == 1 and fills[LOADED_STEP - 1] == Qt.BrushStyle.NoBrush
    switch_language(window, "zh")
    assert "空心" in panel.legend.text()
    switch_language(window, "en")


def test_a_run_with_only_clean_points_has_no_line_on_hollow_points(qtbot, window, fake_experiment):
    panel = _run_fake(qtbot, window)
    assert panel.plot.curves and "Hollow" not in panel.legend.text()
