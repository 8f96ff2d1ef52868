"""The warp visualizer's launch options, used as a learner does: the FMA contraction switch (nvcc's
``-fmad``), the ``__constant__`` field (``cudaMemcpyToSymbol``) and a catalogue kernel launched with
a pointer into its input (``d_in + RADIUS``)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from gpulab import experiments
from tests.ui.walk import choose, type_into

FMA_SOURCE = """extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i] + a[i];
}
"""


def _chosen(qtbot, panel, entry: str):
    choose(qtbot, panel.kernel_box, entry)
    qtbot.waitUntil(lambda: panel.session is not None and panel.session.entry == entry and panel.job.is_over,
                    timeout=10_000)  # fmt: skip
    return panel.session


def _ran(qtbot, panel, act):
    """Do ``act`` (a click, a key) and wait for the emulation it starts to arrive."""
    old = panel.session
    act()
    qtbot.waitUntil(lambda: panel.session is not old and panel.job is not None and panel.job.is_over, timeout=10_000)
    return panel.session


def _enter_constants(qtbot, panel, text: str) -> None:
    field = panel.controls.options.constants_field
    type_into(qtbot, field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_the_fma_switch_reaches_the_emulation_and_changes_float_results(warp_panel, qtbot):
    panel = warp_panel
    box = panel.controls.options.fmad_box
    assert box.isChecked() and "fma" in box.text() and "-fmad=true" in box.text()  # nvcc's default
    _chosen(qtbot, panel, "vector_add")
    panel.code.setPlainText(FMA_SOURCE)
    fused = _ran(qtbot, panel, lambda: qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton))
    separate = _ran(qtbot, panel, lambda: qtbot.mouseClick(box, Qt.MouseButton.LeftButton))
    assert not box.isChecked() and fused.fmad and not separate.fmad
    spec = experiments.kernel("vector_add")
    a, b = (x.astype(np.float64) for x in spec.build_args(panel.preset)[:2])
    once = (a * b + a).astype(np.float32)  # fma: the exact a*b + a rounded once
    twice = ((a * b).astype(np.float32).astype(np.float64) + a).astype(np.float32)  # rounded product, then add
    assert (once != twice).any()  # these inputs tell the two apart
    assert fused.args[2].tolist() == once.tolist() and separate.args[2].tolist() == twice.tolist()
    again = _ran(qtbot, panel, lambda: qtbot.mouseClick(box, Qt.MouseButton.LeftButton))
    assert again.fmad and again.args[2].tolist() == once.tolist()


def test_the_stencil_launched_with_a_pointer_into_its_input_reads_its_halo(warp_panel, qtbot):
    session = _chosen(qtbot, warp_panel, "stencil_1d")
    assert session.reference_match is True and warp_panel.code.error_line is None
    assert "d_in + 2" in warp_panel.description.text()


def test_the_constants_field_shows_for_constant_data_and_fills_it_before_the_launch(warp_panel, qtbot):
    panel = warp_panel
    group = panel.controls.options.constants_group
    assert not group.isVisible()  # the default kernel declares no __constant__ data
    panel.code.setPlainText("__constant__ float scale[4];\n" + panel.code.source())
    assert group.isVisible()  # an edit that declares some shows it at once
    _chosen(qtbot, panel, "stencil_1d")
    assert group.isVisible()
    session = _ran(qtbot, panel, lambda: _enter_constants(qtbot, panel, "weights=0,0,1,0,0"))
    inputs = experiments.kernel("stencil_1d").build_args(panel.preset)[0]
    assert session.constants == {"weights": [0, 0, 1, 0, 0]}
    assert session.args[1].tolist() == inputs[: panel.preset.sizes["n"]].tolist()  # the middle weight only
    assert session.reference_match is False  # the reference uses the source's weights


def test_unreadable_constants_are_said_in_the_panel_and_the_next_good_ones_run(warp_panel, qtbot):
    panel = warp_panel
    _chosen(qtbot, panel, "stencil_1d")
    before = panel.session
    _enter_constants(qtbot, panel, "weights=a,b")
    assert "Cannot read the constants “weights=a,b”" in panel.status.text()
    assert panel.session is before and panel.run_state.stale  # the previous run stays, greyed
    session = _ran(qtbot, panel, lambda: _enter_constants(qtbot, panel, "weights=1"))
    assert session.constants == {"weights": [1]} and "Cannot read" not in panel.status.text()


def test_constants_the_launch_refuses_are_said_in_the_language_shown(warp_panel, qtbot):
    from ui import i18n

    panel = warp_panel
    _chosen(qtbot, panel, "stencil_1d")
    old = panel.job
    _enter_constants(qtbot, panel, "weights=1,2,3,4,5,6")
    qtbot.waitUntil(lambda: panel.job is not old and panel.job.is_over, timeout=10_000)
    assert "weights holds 5 values; 6 were given" in panel.status.text()
    i18n.set_language("zh")
    assert "__constant__ 数组 weights 只能容纳 5 个值" in panel.status.text()
    assert panel.controls.options.fmad_box.text() == "把 a*b + c 合并为 fma（nvcc -fmad=true）"
    _enter_constants(qtbot, panel, "weights=")
    assert "无法读取常量“weights=”" in panel.status.text()  # the field's own refusal, in Chinese too
    i18n.set_language("en")
    assert "Cannot read the constants “weights=”" in panel.status.text()  # re-worded in the language shown


def test_a_new_kernel_clears_the_constants_and_hides_the_field(warp_panel, qtbot):
    panel = warp_panel
    _chosen(qtbot, panel, "stencil_1d")
    _ran(qtbot, panel, lambda: _enter_constants(qtbot, panel, "weights=1"))
    session = _chosen(qtbot, panel, "vector_add")
    assert panel.controls.options.constants_field.text() == "" and session.constants == {}
    assert not panel.controls.options.constants_group.isVisible()


def test_in_projector_type_at_1024_by_768_the_switch_is_short_and_the_controls_keep_two_rows(qtbot, services):
    from tests.ui.conftest import warp_in_window

    panel = warp_in_window(qtbot, services)
    box = panel.controls.options.fmad_box
    qtbot.waitUntil(lambda: box.text() == "fma" and panel.controls.rows() == 2, timeout=3_000)
    assert "nvcc -fmad=true" in box.toolTip() and "nvcc -fmad=true" in box.accessibleName()  # the whole title
