"""The warp visualizer's splits: code | lanes above a tab area that squeezes to its bar and opens on a click."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from tests.ui.walk import click_tab
from ui.panels.warp_tabs import TabArea


class Host(QWidget):
    """A panel in miniature: two columns above two tabs, sized by a TabArea."""

    def __init__(self, upper_minimum: int = 0) -> None:
        super().__init__()
        self.left, self.right, self.lanes = QLabel("code"), QWidget(), QLabel("lanes")
        column = QVBoxLayout(self.right)
        column.addWidget(self.lanes)
        column.addStretch(0)
        self.left.setMinimumHeight(upper_minimum)
        self.tabs = QTabWidget()
        self.tabs.addTab(QLabel("memory page"), "Memory")
        self.tabs.addTab(QLabel("timeline page"), "Timeline")
        self.area = TabArea(self, self.left, self.right, self.tabs)
        layout = QVBoxLayout(self)
        layout.addWidget(self.area.splitter)
        self.area.fit_to_type()


@pytest.fixture
def make_host(qtbot):
    def make(height: int, upper_minimum: int = 0, width: int = 600) -> Host:
        host = Host(upper_minimum)
        qtbot.addWidget(host)
        host.resize(width, height)
        host.show()
        qtbot.waitExposed(host)
        return host

    return make


def line(host: Host) -> int:
    return host.fontMetrics().height()


def test_the_tabs_get_about_a_third_of_the_height_and_the_columns_share_the_width(make_host, qtbot):
    host = make_host(600)
    host.area.share_height(compact=False)
    upper, tabs = host.area.splitter.sizes()
    assert tabs == pytest.approx((upper + tabs) * 0.32, abs=2)
    left, right = host.area.upper.sizes()
    assert abs(left - right) <= 1
    qtbot.waitUntil(host.area.pages.isVisible)


def test_in_compact_type_the_tabs_stand_beside_the_left_column_and_a_click_only_switches_them(make_host, qtbot):
    host = make_host(600)
    host.right.layout().removeWidget(host.lanes)  # as the warp panel does: the lanes go under both columns
    host.lanes.hide()
    host.area.share_height(compact=True)
    assert host.area.beside and host.right.isAncestorOf(host.tabs)
    qtbot.waitUntil(lambda: host.left.height() >= host.area.splitter.height() - 2)  # the whole height
    click_tab(qtbot, host.tabs, 1)
    assert not host.area.opened
    qtbot.waitUntil(host.area.pages.isVisible)
    bar = host.tabs.tabBar()
    assert all(bar.rect().contains(bar.tabRect(i)) for i in range(host.tabs.count()))  # no tab behind an arrow


def test_on_a_large_host_the_tabs_stand_under_the_right_column_and_the_left_has_the_height(make_host, qtbot):
    host = make_host(1000, width=1600)
    host.area.share_height(compact=False)
    assert host.area.beside and host.right.isAncestorOf(host.tabs)
    qtbot.waitUntil(lambda: host.left.height() >= host.area.splitter.height() - 2)  # the whole height
    assert host.tabs.geometry().top() >= host.lanes.geometry().bottom()
    qtbot.waitUntil(host.area.pages.isVisible)
    host.resize(600, 600)  # small again: back under both columns, a third of the height
    qtbot.waitUntil(lambda: host.width() == 600)
    host.area.share_height(compact=False)
    assert not host.area.beside and host.area.splitter.indexOf(host.tabs) == 1
    upper, tabs = host.area.splitter.sizes()
    assert tabs == pytest.approx((upper + tabs) * 0.32, abs=2)
