"""Check boxes are drawn in every theme, as large as its type, and show whether they are ticked."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QStyle, QStyleOptionButton

from ui.panels.cpu_vs_gpu import CpuVsGpuPanel


def indicator_pixels(box) -> tuple[int, list[QColor]]:
    """The indicator's side in pixels and the colours inside it, as it is painted now."""
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    image = box.grab().toImage()
    colours = [image.pixelColor(x, y) for x in range(rect.left(), rect.right() + 1)
               for y in range(rect.top(), rect.bottom() + 1)]  # fmt: skip
    return rect.height(), colours


def dark(colours: list[QColor]) -> int:
    return sum(c.lightness() < 100 for c in colours)


@pytest.mark.parametrize("theme", ["light", "projector", "dark"])
def test_a_check_box_has_a_visible_frame_and_a_tick_when_clicked(qtbot, services, theme):
    from ui.theme import apply_theme

    apply_theme(theme)
    panel = CpuVsGpuPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    box = panel.transfers_box
    side, unticked = indicator_pixels(box)
    assert side >= 0.8 * box.fontMetrics().height()  # as large as the type, not a dot
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert box.isChecked()
    _side, ticked = indicator_pixels(box)
    changed = sum(a != b for a, b in zip(unticked, ticked, strict=True))
    assert changed >= len(ticked) // 3  # the tick fills the box with another colour
    if theme != "dark":
        assert dark(unticked) >= 2 * side  # a frame one can see on white
