"""Where the warp visualizer's widgets go, and how they share the room.

The code is what a class reads from the back of a room, so it gets the height: the kernel's
purpose and the run's status take a line each (the whole text in their tooltips), the
metrics sit in one compact row under code | lanes, and on a small screen in large type the
tabs keep only their bar until one is clicked. The code view then shows at least
``CODE_LINES`` lines at 1024 x 768 in the projector theme, and wraps its long lines there so
that the current line is read whole, from its start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ui.panels.warp_tabs import TabArea

if TYPE_CHECKING:
    from ui.panels.warp import WarpPanel

CODE_LINES = 7  # code lines the view keeps at the least (1024 x 768, projector type)
COMPACT_LINES = 40  # a panel fewer type lines tall than this is "compact": large type, small screen


def build(panel: WarpPanel) -> TabArea:
    """Lay ``panel``'s widgets out: controls, purpose, status, then code | lanes, under them the
    legend, the transport and the metrics across the whole width, and the tabs below.
    Returns the tab area that shares the height."""
    left = QWidget()
    left_layout = QVBoxLayout(left)
    left_layout.setContentsMargins(0, 0, 0, 0)
    left_layout.setSpacing(2)
    left_layout.addWidget(panel.code, 1)
    left_layout.addWidget(panel.step_label)
    right = QWidget()
    right_layout = QVBoxLayout(right)
    right_layout.setContentsMargins(0, 0, 0, 0)
    right_layout.setSpacing(2)
    right_layout.addWidget(panel.lanes, 1)  # the lane cells and the lane under the mouse
    right_layout.addStretch(0)  # below them when the lanes need less than the column
    panel.lanes.layout().removeWidget(panel.lanes.legend)  # across the width: fewer rows
    below = QWidget()
    below_layout = QVBoxLayout(below)
    below_layout.setContentsMargins(0, 0, 0, 0)
    below_layout.setSpacing(3)
    below_layout.addWidget(panel.lanes.legend)
    below_layout.addWidget(panel.transport)
    below_layout.addWidget(panel.metrics)
    panel.tabs.addTab(panel.memory, "")
    panel.tabs.addTab(panel.timeline_tab, "")
    panel.tabs.addTab(panel.gpu_tab, "")
    panel.tabs.addTab(panel.printf_tab, "")
    area = TabArea(panel, left, right, panel.tabs, below=below)
    area.left_wants = lambda: code_width(panel)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(4, 2, 4, 2)
    layout.setSpacing(3)
    layout.addWidget(panel.controls)
    layout.addWidget(panel.description)
    layout.addWidget(panel.status)
    layout.addWidget(area.splitter, 1)
    return area


def fit_to_type(panel: WarpPanel) -> None:
    """Sizes that follow the type size: the combobox, the code's least height, the tabs' bar."""
    panel.controls.fit_to_type()
    panel.code.setMinimumHeight(code_height(panel, CODE_LINES))
    panel.tab_area.fit_to_type()


def code_height(panel: WarpPanel, lines: int) -> int:
    """The code view's height for ``lines`` whole lines (frame and sideways scroll bar included)."""
    code = panel.code
    bar = code.horizontalScrollBar().sizeHint().height()
    return lines * code.fontMetrics().lineSpacing() + 2 * code.frameWidth() + bar + 4


def code_width(panel: WarpPanel) -> int:
    """The code column's width for its longest line unwrapped (gutter, frame, scroll bar and a
    little room after the line included)."""
    code = panel.code
    metrics = code.fontMetrics()
    longest = max((metrics.horizontalAdvance(line) for line in code.toPlainText().splitlines()), default=0)
    bar = code.verticalScrollBar().sizeHint().width()
    return longest + code.gutter_width() + 2 * code.frameWidth() + bar + 2 * metrics.horizontalAdvance("M")


def is_compact(panel: WarpPanel) -> bool:
    return panel.height() < COMPACT_LINES * panel.fontMetrics().height()


def share_height(panel: WarpPanel) -> None:
    """In large type on a small screen the texts take a line or two, the metrics drop their
    explanations, the code wraps and the tabs keep only their bar (a click opens one)."""
    compact = is_compact(panel)
    panel.description.set_lines(1, 1)  # the whole purpose is in its tooltip
    panel.status.set_lines(1, 1 if compact else 3)  # the whole status in its tooltip
    panel.step_label.set_lines(2, 2 if compact else None)  # room kept: no jumping while stepping
    panel.metrics.set_compact(compact)
    panel.lanes.hover_label.set_lines(1 if compact else 2, 1 if compact else 5)  # all of it in the tooltip
    panel.tab_area.share_height(compact)
    # Wrapped where its lines would be cut: in compact type, or where the code column (up to 72 %
    # of a large screen beside the tabs, half of a smaller one) is narrower than the longest line.
    # Once the splitters have placed the view: it then scrolls to the current line at its final height.
    narrow = panel.tab_area.upper.sizes()[0] < code_width(panel)
    QTimer.singleShot(0, panel.code, lambda: panel.code.set_wrapping(compact or narrow))
