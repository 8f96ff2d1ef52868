"""The warp visualizer's dynamic shared memory field: bytes for ``extern __shared__`` arrays, typed by the user."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.walk import choose

STAGED = """extern "C" __global__ void load_coalesced(const float* __restrict__ in,
                                          float* __restrict__ out,
                                          int n)
{
    extern __shared__ float stage[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage[threadIdx.x] = in[i];
    __syncthreads();
    if (i < n) out[i] = stage[threadIdx.x];
}
"""


def _type_bytes(qtbot, panel, text: str):
    """Type a byte count into the field and press Enter, as a user does; return the run it starts."""
    box = panel.controls.shared_box
    old = panel.job
    box.setFocus()
    line = box.lineEdit()
    qtbot.keyClick(line, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.job is not old and panel.job.is_over, timeout=10_000)
    return panel.job


def test_the_field_gives_extern_shared_arrays_their_bytes_and_the_run_matches_the_reference(warp_panel, qtbot):
    panel = warp_panel
    choose(qtbot, panel.kernel_box, "load_coalesced")
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    assert panel.controls.shared_box.value() == 0  # the preset's: none
    assert not panel.controls.shared_group.isVisible()  # no extern __shared__: the row stays short
    panel.code.setPlainText(STAGED)
    assert panel.controls.shared_group.isVisible()
    threads = panel.preset.block[0]
    _type_bytes(qtbot, panel, str(threads * 4))
    assert panel.session is not None and panel.session.shared_mem == threads * 4
    assert panel.session.source == STAGED and panel.session.reference_match is True
    assert panel.code.error_line is None


def test_too_few_bytes_show_a_crash_naming_the_buffer_and_the_size(warp_panel, qtbot):
    panel = warp_panel
    choose(qtbot, panel.kernel_box, "load_coalesced")
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    panel.code.setPlainText(STAGED)
    _type_bytes(qtbot, panel, "16")
    assert panel.code.error_line == 7
    assert "stage" in panel.code.error_text and "shared_mem=16" in panel.code.error_text


def test_more_than_48_kib_is_refused_with_both_figures(warp_panel, qtbot):
    panel = warp_panel
    choose(qtbot, panel.kernel_box, "load_coalesced")
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    panel.code.setPlainText(STAGED)
    _type_bytes(qtbot, panel, "65536")
    assert "65536 bytes of dynamic shared memory" in panel.status.text()
    assert "49152" in panel.status.text()


def test_choosing_a_kernel_resets_the_field_to_its_presets_bytes(warp_panel, qtbot):
    panel = warp_panel
    choose(qtbot, panel.kernel_box, "load_coalesced")
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    panel.code.setPlainText(STAGED)
    _type_bytes(qtbot, panel, "512")
    other = next(panel.kernel_box.itemData(i) for i in range(panel.kernel_box.count())
                 if panel.kernel_box.itemData(i) != "load_coalesced")
    choose(qtbot, panel.kernel_box, other)
    assert panel.controls.shared_box.value() == panel.preset.shared_mem
    assert panel.controls.shared_group.isVisible() == ("extern __shared__" in panel.code.source())


def test_the_catalogue_kernel_with_dynamic_shared_memory_runs_with_its_presets_bytes(warp_panel, qtbot):
    panel = warp_panel
    choose(qtbot, panel.kernel_box, "reduce_dynamic")
    qtbot.waitUntil(lambda: panel.job.is_over, timeout=10_000)
    warps = panel.preset.block[0] // 32
    assert panel.controls.shared_group.isVisible() and panel.controls.shared_box.value() == 4 * warps
    assert panel.session is not None and panel.session.reference_match is True
    assert panel.code.error_line is None
