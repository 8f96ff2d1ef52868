"""Where the warp visualizer's widgets go, and how they share the room.

The code is what a class reads from the back of a room, so it gets the height: the kernel's
purpose and the run's status take a line each (the whole text in their tooltips), the
metrics sit in one compact row under code | lanes, and on a small screen in large type the
tabs keep only their bar until one is clicked. The code view then shows at least
``CODE_LINES`` lines at 1024 x 768 in the projector theme, and wraps its long lines there so
that the current line is read whole, from its start.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractScrollArea, QTabWidget, QVBoxLayout, QWidget

from ui.panels.warp_controls import KernelControls
from ui.panels.warp_gpu import GpuTab
from ui.panels.warp_printf import PrintfTab
from ui.panels.warp_tabs import TabArea
from ui.panels.warp_timeline_tab import TimelineTab
from ui.widgets.code_view import CodeView
from ui.widgets.flow_layout import FlowBox, WrapLabel
from ui.widgets.lane_grid import COMPACT_CELLS_PX, MIN_CELLS_PX, WIDE_CELLS_PX, LaneGrid
from ui.widgets.memory_view import MemoryView
from ui.widgets.metrics_strip import MetricsStrip
from ui.widgets.transport import Transport


class WarpWidgets(Protocol):
    """The visualizer's widgets this module places (the panel, :class:`ui.panels.warp.WarpPanel`, has
    them): what it arranges, and the columns, tab area and legend items it keeps for later."""

    controls: KernelControls
    description: WrapLabel
    status: WrapLabel
    code: CodeView
    lanes: LaneGrid
    transport: Transport
    step_label: WrapLabel
    metrics: MetricsStrip
    memory: MemoryView
    timeline_tab: TimelineTab
    gpu_tab: GpuTab
    printf_tab: PrintfTab
    tabs: QTabWidget
    tab_area: TabArea
    left_column: QVBoxLayout
    right_column: QVBoxLayout
    below_layout: QVBoxLayout
    legend_items: list[QWidget]

    def height(self) -> int: ...

    def parentWidget(self) -> QWidget | None: ...

    def fontMetrics(self) -> QFontMetrics: ...


translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls
CODE_LINES = 12  # code lines the view keeps at the least (1024 x 768, projector type)
OPEN_TAB_CODE_LINES = 3  # ... while a tab is open there: the current line and one either side
COMPACT_LINES = 40  # a panel fewer type lines tall than this is "compact": large type, small screen


def build(panel: WarpWidgets) -> TabArea:
    """Lay ``panel``'s widgets out: controls, purpose, status, then code | lanes, under them the
    legend and the transport in one flow and the metrics across the whole width, and the tabs below.
    Returns the tab area that shares the height."""
    left = QWidget()
    panel.left_column = QVBoxLayout(left)
    panel.left_column.setContentsMargins(0, 0, 0, 0)
    panel.left_column.setSpacing(2)
    panel.left_column.addWidget(panel.code, 1)
    panel.left_column.addWidget(panel.step_label)
    right = QWidget()
    panel.right_column = QVBoxLayout(right)
    panel.right_column.setContentsMargins(0, 0, 0, 0)
    panel.right_column.setSpacing(2)
    panel.right_column.addWidget(panel.lanes, 1)  # the lane cells and the lane under the mouse
    panel.right_column.addStretch(0)  # below them when the lanes need less than the column
    panel.lanes.layout().removeWidget(panel.lanes.legend)  # across the width: fewer rows
    panel.lanes.legend.hide()
    below = QWidget()
    below_layout = panel.below_layout = QVBoxLayout(below)
    below_layout.setContentsMargins(0, 0, 0, 0)
    below_layout.setSpacing(3)
    below_layout.addWidget(shared_flow(panel))
    below_layout.addWidget(panel.metrics)
    # Its cells go 2 x 2 when it is narrow (on a resize): its least width in 4 columns must not
    # keep a narrow column (the metrics' tab, compact) from getting narrow.
    panel.metrics.setMinimumWidth(1)
    panel.tabs.addTab(panel.memory, "")
    panel.tabs.addTab(panel.timeline_tab, "")
    panel.tabs.addTab(panel.gpu_tab, "")
    panel.tabs.addTab(panel.printf_tab, "")
    area = TabArea(panel, left, right, panel.tabs, below=below)
    area.left_wants = lambda: code_width(panel)
    area.tab_opened = lambda opened: make_room_for_tab(panel, opened)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(4, 2, 4, 2)
    layout.setSpacing(2)  # at 3 the page was a pixel taller than a 1024x768 projector screen in Chinese
    layout.addWidget(panel.controls)
    layout.addWidget(panel.description)
    layout.addWidget(panel.status)
    layout.addWidget(area.splitter, 1)
    return area


def shared_flow(panel: WarpWidgets) -> FlowBox:
    """The transport's controls and the legend's colours in one flow: they share rows (a row
    fewer in large type on a small screen) instead of each leaving half a row empty."""
    flow = FlowBox(spacing=12, row_spacing=3)
    panel.legend_items = []  # the colours' keys: they explain the lane cells only
    for box in (panel.transport.box, panel.lanes.legend.box):
        while box.flow.count():
            item = box.flow.takeAt(0)
            if item is not None and item.widget() is not None:
                flow.add(item.widget())
                if box is panel.lanes.legend.box:
                    panel.legend_items.append(item.widget())
    panel.transport.layout().removeWidget(panel.transport.box)
    panel.transport.layout().addWidget(flow)  # the transport widget holds it: it stays one widget
    panel.transport.box = flow
    return panel.transport


def fit_to_type(panel: WarpWidgets) -> None:
    """Sizes that follow the type size: the combobox, the code's least height, the tabs' bar."""
    panel.controls.fit_to_type()
    panel.tab_area.fit_to_type()
    panel.code.setMinimumHeight(code_least(panel, panel.tab_area.opened))


def make_room_for_tab(panel: WarpWidgets, opened: bool) -> None:
    """A tab opened on a squeezed area gets the code lines the code can give up."""
    panel.code.setMinimumHeight(code_least(panel, opened))


def code_least(panel: WarpWidgets, tab_open: bool) -> int:
    """The code's least height: fewer lines while a tab is open on a squeezed area (the tab
    takes their room; the view keeps the current line and one either side)."""
    return code_height(panel, OPEN_TAB_CODE_LINES if tab_open else CODE_LINES)


def code_height(panel: WarpWidgets, lines: int) -> int:
    """The code view's height for ``lines`` whole lines (frame and sideways scroll bar included)."""
    code = panel.code
    bar = code.horizontalScrollBar().sizeHint().height()
    return lines * code.fontMetrics().lineSpacing() + 2 * code.frameWidth() + bar + 4


def code_width(panel: WarpWidgets) -> int:
    """The code column's width for its longest line unwrapped (gutter, frame, scroll bar and a
    little room after the line included)."""
    code = panel.code
    metrics = code.fontMetrics()
    longest = max((metrics.horizontalAdvance(line) for line in code.toPlainText().splitlines()), default=0)
    bar = code.verticalScrollBar().sizeHint().width()
    return longest + code.gutter_width() + 2 * code.frameWidth() + bar + 2 * metrics.horizontalAdvance("M")


def is_compact(panel: WarpWidgets) -> bool:
    return available_height(panel) < COMPACT_LINES * panel.fontMetrics().height()


def available_height(panel: WarpWidgets) -> int:
    """The height the screen gives the panel: its scroll area's view when it is in one. (Its own
    height grows with what it holds: a wide arrangement a few pixels too tall for the screen
    would make the panel taller than the threshold, and keep it wide, scrolling, for good.)"""
    parent = panel.parentWidget()
    area = parent.parentWidget() if parent is not None else None
    if isinstance(area, QAbstractScrollArea):
        return min(panel.height(), area.viewport().height())
    return panel.height()


def share_height(panel: WarpWidgets) -> None:
    """In large type on a small screen (compact) the panel stacks: code | the current tab side by
    side, the lane cells under them across the whole width (20 px a lane or more), the transport
    and the colours' keys under those; the metrics become a tab and the kernel's purpose goes to
    the kernel list's tooltip. Elsewhere code | lanes, with the tabs below (or, on a large
    screen, under the lanes)."""
    compact = is_compact(panel)
    panel.controls.fit_titles(roomy=not compact)  # at the controls' width now (their resize event may come later)
    panel.description.set_lines(1, 3)  # wrapped, read whole (the tooltip has it all the same)
    panel.status.set_lines(1, 3)
    panel.step_label.set_lines(2, 3 if compact else None)  # room kept: no jumping while stepping
    panel.metrics.set_compact(compact)
    stack(panel, compact)
    large = panel.tab_area.is_large()  # the lanes beside the code at 20 px a lane: room for it
    panel.lanes.set_min_cells(COMPACT_CELLS_PX if compact else WIDE_CELLS_PX if large else MIN_CELLS_PX)
    panel.lanes.set_axis_titles(not compact)
    panel.lanes.hover_label.set_lines(1 if compact else 2, 1 if compact else 5)  # all of it in the tooltip
    panel.lanes.hover_label.setVisible(not compact)  # the lane under the mouse: its tooltip then
    if panel.tab_area.opened:  # the tabs have their room in both arrangements now
        panel.tab_area.close_tab()
    panel.tab_area.share_height(compact)
    # Wrapped where its lines would be cut: in compact type, or where the code column (up to 72 %
    # of a large screen beside the tabs, half of a smaller one) is narrower than the longest line.
    # Once the splitters have placed the view: it then scrolls to the current line at its final height.
    narrow = panel.tab_area.upper.sizes()[0] < code_width(panel)
    QTimer.singleShot(0, panel.code, lambda: panel.code.set_wrapping(compact or narrow))


def stack(panel: WarpWidgets, compact: bool) -> None:
    """Move the lane cells, the step's text, the metrics and the purpose to where ``compact``
    (or the wide arrangement) wants them; nothing moves when they are there already."""
    metrics_tab = panel.tabs.indexOf(panel.metrics)
    if compact == (metrics_tab >= 0):
        return
    below = panel.below_layout
    if compact:
        panel.right_column.removeWidget(panel.lanes)
        below.insertWidget(0, panel.lanes)
        below.removeWidget(panel.metrics)
        panel.tabs.addTab(panel.metrics, "")
        panel.left_column.removeWidget(panel.step_label)
        panel.right_column.addWidget(panel.step_label)  # under the tabs: the code keeps its lines
    else:
        panel.tabs.removeTab(metrics_tab)
        below.removeWidget(panel.lanes)
        below.addWidget(panel.metrics)
        panel.metrics.show()
        panel.right_column.insertWidget(0, panel.lanes, 1)
        panel.right_column.removeWidget(panel.step_label)
        panel.left_column.insertWidget(1, panel.step_label)
    panel.description.setVisible(not compact)
    panel.step_label.show()
    title_tabs(panel)


def title_tabs(panel: WarpWidgets) -> None:
    """The tabs' titles: short ones while they stand beside the code in a narrow column (the
    whole title in each tab's tooltip)."""
    short = panel.tabs.indexOf(panel.metrics) >= 0
    titles = {
        panel.memory: (translate("WarpPanel", "Memory traffic"), translate("WarpPanel", "Memory")),
        panel.timeline_tab: (translate("WarpPanel", "Timeline"), translate("WarpPanel", "Timeline")),
        panel.gpu_tab: (translate("WarpPanel", "On a GPU"), translate("WarpPanel", "GPU")),
        panel.printf_tab: (translate("WarpPanel", "printf output"), translate("WarpPanel", "printf")),
        panel.metrics: (translate("WarpPanel", "Metrics"), translate("WarpPanel", "Metrics")),
    }
    for page, (whole, brief) in titles.items():
        index = panel.tabs.indexOf(page)
        if index >= 0:
            panel.tabs.setTabText(index, brief if short else whole)
            panel.tabs.setTabToolTip(index, whole)
