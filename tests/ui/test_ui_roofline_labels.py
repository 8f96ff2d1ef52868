"""Where the roofline chart writes its kernel names, on fixed points (no measurement): every spot
with room is named in full, a crowd never prints over itself or past the plot's edge."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QRectF

from gpulab.results import Point
from ui.widgets.roofline_plot import RooflinePlot

ROOF = "roof"
KERNELS = "kernels"


def _roof(plot: RooflinePlot) -> None:
    """A GPU-like roof: 3 TB/s up to a ridge at 20 FLOP/byte, then flat at 60 TFLOP/s."""
    for part, x in (("memory", 0.01), ("ridge", 20.0), ("compute", 1e4)):
        plot.add_point(ROOF, Point(x, min(3000.0 * x, 60_000.0), extra={"part": part}))


def _kernel(plot: RooflinePlot, name: str, intensity: float) -> None:
    plot.add_point(KERNELS, Point(intensity, 3000.0 * intensity * 0.9, extra={"entry": name, "label": name}))


def _shown(qtbot, plot: RooflinePlot, width: int, height: int) -> RooflinePlot:
    qtbot.addWidget(plot)
    plot.resize(width, height)
    plot.show()
    qtbot.waitExposed(plot)
    plot.redraw()
    return plot


def _boxes(plot: RooflinePlot) -> list[QRectF]:
    return [plot._pixel_rect(item) for item in plot.kernel_labels]


def _inside(plot: RooflinePlot) -> QRectF:
    room = plot.getViewBox().sceneBoundingRect()
    return QRectF(plot.mapFromScene(room.topLeft()).toPointF(), plot.mapFromScene(room.bottomRight()).toPointF())


def _dots(plot: RooflinePlot) -> list[tuple[str, QRectF]]:
    """Each kernel's name and the pixels of its dot's centre (a 4-pixel square)."""
    found = []
    for series in plot.kernel_series:
        for point in plot.placed_points(series):
            centre = plot.to_pixels(plot.view_position(point))
            found.append((point.extra["label"], QRectF(centre.x() - 2, centre.y() - 2, 4, 4)))
    return found


def _assert_tidy(plot: RooflinePlot) -> None:
    boxes, inside = _boxes(plot), _inside(plot).adjusted(-1, -1, 1, 1)
    assert all(inside.contains(box) for box in boxes), (inside, boxes)
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    for item, box in zip(plot.kernel_labels, boxes, strict=True):  # a name never hides another kernel's dot
        covered = {name for name, dot in _dots(plot) if box.intersects(dot)}
        assert covered <= set(item.kernel_names), (item.toPlainText(), covered)


def test_kernels_with_room_around_them_are_each_named_in_full(qtbot):
    plot = RooflinePlot()
    _roof(plot)
    spread = {"stream_copy": 0.05, "saxpy": 0.5, "tiny_add": 5.0, "matmul_naive": 200.0}
    for name, intensity in spread.items():
        _kernel(plot, name, intensity)
    _shown(qtbot, plot, 900, 600)
    assert sorted(item.toPlainText() for item in plot.kernel_labels) == sorted(spread)
    _assert_tidy(plot)


@pytest.mark.parametrize("size", [(520, 300), (900, 600)])
def test_a_crowd_of_kernels_never_prints_over_itself_or_past_the_plot(qtbot, size):
    plot = RooflinePlot()
    _roof(plot)
    names = [f"kernel_with_a_long_name_{i}" for i in range(12)]
    for i, name in enumerate(names):  # twelve dots within a factor of 1.4: one spot, or a few
        _kernel(plot, name, 0.1 * (1 + 0.03 * i))
    for i in range(6):  # and neighbours on each side, each wanting the same room
        _kernel(plot, f"near_{i}", 0.06 * 1.25**i)
    _shown(qtbot, plot, *size)
    _assert_tidy(plot)
    texts = [item.toPlainText() for item in plot.kernel_labels]
    assert texts  # crowded, yet the spots with room are named
    shortened = [t for t in texts if re.fullmatch(r"\S+ \+\d+", t)]
    assert shortened  # a list too long for any free place shows its first name and how many more
    everyone = set(names) | {f"near_{i}" for i in range(6)}
    for text in texts:
        short = re.fullmatch(r"(\S+) \+(\d+)", text)
        assert set([short.group(1)] if short else text.split(", ")) <= everyone


def test_the_labels_move_with_the_plot_when_it_is_resized(qtbot):
    plot = RooflinePlot()
    _roof(plot)
    for name, intensity in {"saxpy": 0.5, "matmul_naive": 200.0}.items():
        _kernel(plot, name, intensity)
    _shown(qtbot, plot, 900, 600)
    plot.resize(480, 320)
    qtbot.waitUntil(lambda: _inside(plot).width() < 480)
    _assert_tidy(plot)
    assert sorted(item.toPlainText() for item in plot.kernel_labels) == ["matmul_naive", "saxpy"]


def test_closing_a_chart_with_labels_raises_nothing(qtbot):
    plot = RooflinePlot()
    _roof(plot)
    _kernel(plot, "saxpy", 0.5)
    plot.resize(600, 400)
    plot.show()  # not given to qtbot: it would close the plot a second time, which pyqtgraph cannot do
    qtbot.waitExposed(plot)
    plot.redraw()
    assert plot.kernel_labels
    plot.close()  # pyqtgraph drops its plot item, reparents and resizes the view: nothing to place or restyle
    qtbot.wait(20)
