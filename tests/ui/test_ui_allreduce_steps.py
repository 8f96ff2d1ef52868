"""The AllReduce panel as a user meets it: Run, Step forward and back with real clicks, the step's
words and bytes, Play to the end and the check shown, the tree, Chinese, a saved result reopened."""

from __future__ import annotations

import pytest

from gpulab import results
from tests.ui.walk import JOB_TIMEOUT_MS, choose, click, open_panel, switch_language, type_into, wait_idle
from ui.widgets.ring_view import RingView, best_grid


def _run(qtbot, window, ranks: str = "4"):
    panel = open_panel(qtbot, window, "allreduce-steps")
    type_into(qtbot, panel.editors["ranks"], ranks)
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.last_result is not None and panel.job is None, timeout=JOB_TIMEOUT_MS)
    return panel


def test_stepping_with_the_buttons_tells_each_step_and_its_bytes(qtbot, window):
    panel = _run(qtbot, window)
    assert panel.step_text.text().startswith("Start: each of the 4 ranks holds its own vector of 32 B")
    click(qtbot, panel.transport.forward_button)
    assert panel.step_text.text().startswith("Step 1 of 6, reduce-scatter: rank 0 sends chunk 0 (8 B) to rank 1")
    assert panel.bytes_text.text().startswith("This step: 4 links, up to 8 B each, 32 B in all")
    assert panel.view.animating and panel.view.shown_step().index == 0  # the messages are on their way
    qtbot.waitUntil(lambda: not panel.view.animating, timeout=2000)
    assert panel.view.shown_step().index == 1
    for _ in range(3):
        click(qtbot, panel.transport.forward_button)
    assert panel.step_text.text().startswith("Step 4 of 6, all-gather")
    assert "comes after the last step" in panel.check_text.text()
    click(qtbot, panel.transport.back_button)
    assert panel.cursor == 3 and not panel.view.animating  # stepping back shows the state at once
    click(qtbot, panel.transport.start_button)
    assert panel.cursor == 0
    wait_idle(qtbot, window)


def test_play_runs_to_the_end_and_shows_the_verification(qtbot, window):
    panel = _run(qtbot, window, "3")
    panel.transport.set_speed(60)
    click(qtbot, panel.transport.play_button)
    assert panel.transport.playing
    qtbot.waitUntil(lambda: panel.cursor == 4 and not panel.transport.playing, timeout=5000)
    text = panel.check_text.text()
    assert text.startswith("Verified: every rank holds the plain sum of the 3 vectors (max |error|")
    assert "float64" in text


def test_the_tree_steps_up_and_down_and_the_chart_shows_busbw_flat(qtbot, window):
    panel = _run(qtbot, window, "7")
    choose(qtbot, panel.algorithm_combo, "tree")
    assert panel.last() == 4 and panel.view.algorithm == "tree"
    click(qtbot, panel.transport.forward_button)
    assert "ranks 3, 4, 5, 6 send their whole vector (56 B each) to their parents 1, 1, 2, 2" in panel.step_text.text()
    click(qtbot, panel.transport.end_button)
    assert panel.check_text.text().startswith("Verified")
    boxes = panel.view.rank_boxes()
    assert len(boxes) == 7 and boxes[0].center().y() < boxes[1].center().y() < boxes[3].center().y()
    assert set(panel.plot.curves) == {"ring: busbw", "ring: algbw", "tree: busbw"}
    busbw = [p.y for p in panel.plot.points_of("ring: busbw")]
    assert busbw == pytest.approx([450.0] * 15) and panel.plot.markers  # flat at B; the chosen n marked


def test_chinese_texts_and_a_reopened_result(qtbot, window, tmp_path):
    panel = _run(qtbot, window)
    path = tmp_path / "allreduce.json"
    panel.last_result.save(path)
    switch_language(window, "zh")
    click(qtbot, panel.transport.end_button)
    assert panel.step_text.text().startswith("第 6 步（共 6 步），AllGather：进程")
    assert panel.check_text.text().startswith("已验证")
    assert panel.algorithm_combo.currentText() == "环形"
    switch_language(window, "en")
    panel.show_result(results.replay(path))
    assert panel.cursor == 0 and len(panel.run_steps()) == 7
    click(qtbot, panel.transport.end_button)
    assert panel.check_text.text().startswith("Verified")


def test_the_view_alone_lays_out_every_n_without_overlapping_boxes(qtbot):
    from gpulab.cluster import allreduce_steps as ar
    from gpulab.experiments.allreduce_steps import rank_vectors

    view = RingView()
    qtbot.addWidget(view)
    view.resize(600, 380)
    for n in (2, 5, 9, 16):
        for algorithm in ar.ALGORITHMS:
            view.set_steps(ar.steps(algorithm, rank_vectors(n, 1, 0)), algorithm)
            boxes = view.rank_boxes()
            assert len(boxes) == n
            overlaps = [(a, b) for a in range(n) for b in range(a + 1, n) if boxes[a].intersects(boxes[b])]
            assert overlaps == [], (n, algorithm)
            assert all(view.rect().toRectF().contains(box) for box in boxes)
    assert best_grid(16, 100, 100)[:2] == (4, 4)


def test_the_badge_says_emulated_over_the_executed_steps_and_modelled_over_the_chart(qtbot, window):
    from tests.ui.walk import click_tab

    panel = _run(qtbot, window)
    assert panel.tabs.currentIndex() == 0 and window.badge.kind == "emulated"  # steps run on real vectors
    click_tab(qtbot, panel.tabs, 1)
    assert window.badge.kind == "modelled"  # the bandwidths come from the link model
    click_tab(qtbot, panel.tabs, 0)
    assert window.badge.kind == "emulated"
    wait_idle(qtbot, window)
