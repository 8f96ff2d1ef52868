"""Series in another unit than the first's are drawn on an axis of their own at the right, titled
with their unit, and the left axis is fitted to its own series only."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpulab.results import Point, Provenance, Result, Series
from ui.widgets.live_plot import LivePlot
from ui.widgets.plot_axes import DecadeAxis


def series(name: str, y_label: str, unit: str, ys: list[float]) -> Series:
    points = tuple(Point(i, y) for i, y in enumerate(ys))
    return Series(name, Provenance("emulated", "SIMT emulator"), "variant", "", y_label, unit, points)


def shown(plot: LivePlot, result: Result) -> None:
    for s in result.series:
        for point in s.points:
            plot.add_point(s.name, point)
    plot.label_series(result)


def test_a_count_beside_percentages_gets_the_right_axis_and_the_left_keeps_the_percentages(qtbot):
    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()
    result = Result("divergence", {}, (series("branch efficiency", "branch efficiency", "%", [50, 100, 40]),
                                       series("instructions", "warp instructions", "", [90, 60, 800])))
    shown(plot, result)
    item = plot.getPlotItem()
    right = plot.right.axes[0]
    assert right.isVisible() and right.labelText == "warp instructions"
    assert plot.curves["instructions"].getViewBox() is plot.right.views[0]
    assert plot.curves["branch efficiency"].getViewBox() is item.vb
    qtbot.waitUntil(lambda: item.vb.viewRange()[1][1] < 200)  # no longer stretched to 800 "%"
    qtbot.waitUntil(lambda: plot.right.views[0].viewRange()[1][1] >= 800)
    assert "right axis" in plot.legend_note("instructions") and not plot.legend_note("branch efficiency")
    # the x axis is shared: the right view lies over the plot's own and spans the same variants
    view = plot.right.views[0]
    def over() -> bool:  # within the half pixel of a pen
        a, b = view.sceneBoundingRect(), item.vb.sceneBoundingRect()
        return all(abs(p - q) <= 1 for p, q in zip(a.getRect(), b.getRect(), strict=True))

    qtbot.waitUntil(over)
    assert view.viewRange()[0] == pytest.approx(item.vb.viewRange()[0], abs=0.01)

    plot.clear_series()  # a new run of one unit: one axis again
    assert right.scene() is None and not plot.right.views
    shown(plot, Result("divergence", {}, (series("branch efficiency", "branch efficiency", "%", [50, 100]),)))
    assert not plot.right.axes
    assert plot.curves["branch efficiency"].getViewBox() is item.vb


def test_a_third_unit_gets_a_second_right_axis_of_its_own(qtbot):
    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    plot.resize(700, 400)
    plot.show()
    shown(plot, Result("divergence", {}, (series("a", "efficiency", "%", [50, 100]),
                                          series("b", "instructions", "", [90, 800]),
                                          series("c", "kernel time", "ms", [0.01, 0.02]))))
    assert len(plot.right.views) == 2
    second = plot.right.axes[1]
    assert isinstance(second, DecadeAxis) and second.labelText == "kernel time (ms)"
    assert plot.curves["c"].getViewBox() is plot.right.views[1]
    first = plot.right.axes[0]
    qtbot.waitUntil(lambda: second.sceneBoundingRect().left() >= first.sceneBoundingRect().right() - 6)
    assert second.sceneBoundingRect().right() <= plot.width() + 1  # both on the plot, side by side
    plot.clear_series()
    assert second.scene() is None  # gone from the plot, not just hidden


def test_the_divergence_lesson_draws_instructions_on_the_right_after_run_is_pressed(qtbot, window):
    """As a room sees it: page 2-2, R pressed; the warp instruction counts are read on their own axis."""
    viewer = window.open_lesson(2, "divergence")
    qtbot.keyClick(viewer, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: viewer.running is None, timeout=60_000)
    plot = viewer.lab.current_panel().plot
    [right] = plot.right.axes
    assert right.isVisible()
    assert "instructions" in right.labelText
    left_top = plot.getPlotItem().vb.viewRange()[1][1]
    assert left_top <= 110, "the left axis reads percentages only"


def test_the_wheel_over_a_plot_with_a_right_axis_still_zooms_the_plot(qtbot):
    """The right axis' view lies over the plot's own: the mouse must pass through it."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()
    shown(plot, Result("divergence", {}, (series("a", "efficiency", "%", [50, 100, 70]),
                                          series("b", "instructions", "", [90, 800, 100]))))
    vb = plot.getPlotItem().vb
    qtbot.waitUntil(lambda: plot.right.views[0].sceneBoundingRect().width() > 100)
    (x0, x1), (y0, y1) = vb.viewRange()
    centre = plot.mapFromScene(vb.sceneBoundingRect().center())
    wheel = QWheelEvent(QPointF(centre), QPointF(plot.viewport().mapToGlobal(centre)), QPoint(0, 0),
                        QPoint(0, 240), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)  # fmt: skip
    QApplication.sendEvent(plot.viewport(), wheel)
    # the plot's own y zooms too (a view on top taking the wheel would zoom only x, through the link)
    qtbot.waitUntil(lambda: vb.viewRange()[0][1] - vb.viewRange()[0][0] < (x1 - x0) * 0.95
                    and vb.viewRange()[1][1] - vb.viewRange()[1][0] < (y1 - y0) * 0.95)  # fmt: skip
    assert plot.right.views[0].viewRange()[0] == pytest.approx(vb.viewRange()[0], abs=0.01)  # x follows


def test_a_percentage_axis_starts_at_zero_and_another_unit_keeps_its_fit(qtbot):
    """40 % at the bottom edge would read as nothing: a linear % axis has 0 at its foot."""
    plot = LivePlot(log_x=None, log_y=None)
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    plot.show()
    shown(plot, Result("divergence", {}, (series("a", "branch efficiency", "%", [50, 100, 40]),)))
    low, high = plot.getPlotItem().vb.viewRange()[1]
    assert -0.05 * high < low <= 0 and 100 <= high <= 110
    plot.clear_series()
    shown(plot, Result("stream", {}, (series("b", "bandwidth", "GB/s", [50, 100, 40]),)))
    qtbot.waitUntil(lambda: plot.getPlotItem().vb.viewRange()[1][0] > 30)  # fitted to the values, not to 0
