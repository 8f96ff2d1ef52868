"""The roofline panel as a user meets it: Run, the chart with its roofs and ridges, the verdicts,
and a click on a kernel's dot (or its row) that opens it in the warp visualizer."""

from __future__ import annotations

import re

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QStyle, QStyleOptionButton

from gpulab.experiments import kernel_catalogue
from tests.ui.walk import JOB_TIMEOUT_MS, click, open_panel, switch_language, wait_idle


def _run(qtbot, window, *, cpu_roof: bool = False):
    panel = open_panel(qtbot, window, "roofline")
    box = panel.editors["measure_cpu"]
    if box.isChecked() != cpu_roof:  # a person clicks the tick box: a faster run without the CPU roof
        option = QStyleOptionButton()
        box.initStyleOption(option)
        indicator = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=indicator.center())
    assert box.isChecked() == cpu_roof
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.job is None, timeout=JOB_TIMEOUT_MS)
    panel.plot.redraw()
    return panel


def _named(plot) -> list[str]:
    """The kernel names the plot's labels show ("a, b, c" or "a +2" each)."""
    names: list[str] = []
    for text in (item.toPlainText() for item in plot.kernel_labels):
        short = re.fullmatch(r"(\S+) \+(\d+)", text)
        names += [short.group(1)] if short else text.split(", ")
    return names


def _dot_position(panel, entry: str) -> QPoint:
    series = next(name for name in panel.plot.kernel_series)
    point = next(p for p in panel.plot.placed_points(series) if p.extra["entry"] == entry)
    return panel.plot.to_pixels(panel.plot.view_position(point)).toPoint()


def test_the_chart_draws_the_roofs_with_their_ridges_and_every_kernel_with_flops(qtbot, window):
    panel = _run(qtbot, window, cpu_roof=True)
    plot = panel.plot
    assert len(plot.roof_series) == 2  # the modelled GPU's roof and this CPU's measured one
    for roof in plot.roof_series:
        assert [p.extra["part"] for p in plot.placed_points(roof)] == ["memory", "ridge", "compute"]
    ridges = [item for item in plot.ridge_items if hasattr(item, "toPlainText")]
    assert len(ridges) == 2 and all(item.toPlainText().startswith("ridge ") for item in ridges)
    # A label names the kernels at one spot, or where the list does not fit, its first name and
    # how many more ("stream_mul +5"). A spot with no free room keeps its dot unnamed (how many
    # depends on where the measured CPU roof puts its ridge label), but never a label that lies.
    named = _named(plot)
    dots = {p.extra["label"] for series in plot.kernel_series for p in plot.placed_points(series)}
    assert len(named) == len(set(named)) and set(named) <= dots
    # Each matmul has a label that stands for it: its name, or (matmul_naive shares a spot with the
    # stencil, 0.36 vs 0.5 FLOP/byte) a list or "stencil_1d +1" where the list does not fit.
    standing = {name for item in plot.kernel_labels for name in item.kernel_names}
    assert "matmul_tiled" in named and {"matmul_naive", "matmul_tiled"} <= standing
    # A kernel that reuses its inputs has its no-reuse dot joined to its ideal-reuse bound: each
    # matmul's on the flat roof, the stencil's (5 reads of each input) still under the slope.
    bounds = {dot.extra["entry"]: bound.extra["bound"] for dot, bound in plot.pairs()}
    assert bounds == {"matmul_naive": "compute-bound", "matmul_tiled": "compute-bound", "stencil_1d": "memory-bound"}
    assert all(dot.x < bound.x for dot, bound in plot.pairs())
    assert len(plot.pair_lines.getData()[0]) == 6  # three segments, one per kernel with reuse
    assert plot.pair_lines in plot.getPlotItem().items  # drawn, not just computed
    assert "○ ideal reuse" in panel.legend.text()  # the kernels' entry names the hollow dots
    assert "Ideal reuse (model)" not in panel.legend.text()  # no entry of their own: the chart keeps its room
    rows = {row[0] for row in panel.verdicts.rows()}
    assert dots <= rows  # the verdict table names every dot, labelled or not
    assert "CPU roof" in panel.legend.text() and "FLOP/s" in panel.legend.text()
    assert panel.provenance in ("modelled", "measured")
    wait_idle(qtbot, window)


def test_the_verdicts_list_every_kernel_with_its_bound_and_distance_below_the_roof(qtbot, window):
    panel = _run(qtbot, window)
    rows = {row[0]: row for row in panel.verdicts.rows()}
    assert set(rows) == set(kernel_catalogue())  # every catalogue kernel, those without FLOPs too
    assert rows["vector_add"][1] == "memory" and rows["matmul_tiled"][1] == "memory"  # no reuse: the verdict
    assert rows["reduce_shuffle"][1] == "memory"
    assert all(row[2].endswith("%") for row in rows.values())
    tooltip = panel.describe_point(next(p for p in panel.plot.placed_points(next(iter(panel.plot.kernel_series)))
                                        if p.extra["entry"] == "vector_add"))
    assert "vector_add (no reuse): memory-bound" in tooltip and "% of roof" in tooltip
    naive = next(p for p in panel.plot.placed_points(next(iter(panel.plot.kernel_series)))
                 if p.extra["entry"] == "matmul_naive")  # fmt: skip
    tooltip = panel.describe_point(naive)
    assert "with ideal reuse: 683 FLOP/byte" in tooltip
    assert "published, a kernel like it: 1986 GFLOP/s on the NVIDIA RTX A6000, 5.1% of its fp32 peak" in tooltip
    assert "no reuse" in panel.verdicts.caption.text()
    wait_idle(qtbot, window)


def test_clicking_a_kernel_dot_opens_that_kernel_in_the_warp_visualizer(qtbot, window):
    panel = _run(qtbot, window)
    where = _dot_position(panel, "saxpy")
    assert panel.plot.rect().contains(where)
    qtbot.mouseClick(panel.plot.viewport(), Qt.MouseButton.LeftButton, pos=where)
    warp = window.panels["warp"]
    qtbot.waitUntil(lambda: window.current_panel() is warp, timeout=5000)
    assert warp.kernel_box.currentData() == "saxpy"
    wait_idle(qtbot, window)


def test_clicking_a_row_opens_a_kernel_without_flops_too(qtbot, window):
    panel = _run(qtbot, window)
    tree = panel.verdicts.tree
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).text(0) == "reduce_shuffle")  # fmt: skip
    tree.scrollToItem(item)
    row = tree.visualItemRect(item)
    where = QPoint(min(row.left() + 20, tree.viewport().width() // 2), row.center().y())
    assert tree.viewport().rect().contains(where)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=where)
    warp = window.panels["warp"]
    qtbot.waitUntil(lambda: window.current_panel() is warp, timeout=5000)
    assert warp.kernel_box.currentData() == "reduce_shuffle"
    wait_idle(qtbot, window)


def test_in_chinese_the_verdicts_and_ridges_are_chinese(qtbot, window):
    panel = _run(qtbot, window)
    switch_language(window, "zh")
    rows = {row[0]: row for row in panel.verdicts.rows()}
    assert rows["vector_add"][1] == "内存" and rows["matmul_naive"][1] == "内存"
    assert "无复用" in panel.verdicts.caption.text()
    assert all(item.toPlainText().startswith("脊点") for item in panel.plot.ridge_items if hasattr(item, "toPlainText"))
    assert "核函数" in panel.legend.text()
    wait_idle(qtbot, window)


def test_in_projector_type_at_1024_by_768_no_kernel_label_covers_another_or_leaves_the_plot(qtbot, window):
    from ui.theme import apply_theme

    apply_theme("projector")
    try:
        panel = _run(qtbot, window)
        plot = panel.plot
        boxes = [plot._pixel_rect(item) for item in plot.kernel_labels]
        scene = plot.getViewBox().sceneBoundingRect()
        inside = plot.mapFromScene(scene).boundingRect()
        assert boxes  # crowded, but the dots that have room are still named
        assert all(inside.adjusted(-1, -1, 1, 1).contains(box.toAlignedRect()) for box in boxes)
        assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    finally:
        apply_theme("light")
    wait_idle(qtbot, window)
