"""The series column beside a live plot: colour sample, name in the interface language, badge."""

from __future__ import annotations

from gpulab.results import Point
from ui import i18n
from ui.widgets.live_plot import LivePlot
from ui.widgets.series_list import SeriesList


def test_it_lists_each_series_once_with_its_provenance_badge(qtbot):
    plot = LivePlot()
    column = SeriesList(plot)
    qtbot.addWidget(plot)
    qtbot.addWidget(column)
    assert column.isHidden() or not column.names()
    plot.add_point("CPU (numpy)", Point(1, 1.0))
    plot.set_kind("CPU (numpy)", "measured")
    plot.add_point("H100 SXM (model)", Point(1, 2.0))
    plot.set_kind("H100 SXM (model)", "modelled")
    plot.add_point("CPU (numpy)", Point(2, 1.0))
    assert column.names() == ["CPU (numpy)", "H100 SXM (model)"]
    assert sorted(badge.kind for badge in column.badges()) == ["measured", "modelled"]


def test_names_follow_the_interface_language(qtbot):
    plot = LivePlot()
    column = SeriesList(plot)
    qtbot.addWidget(plot)
    qtbot.addWidget(column)
    from gpulab.catalogue import Note, msg

    plot.set_kind(Note(msg("series.cpu-numpy")), "measured")  # the engine's name, carrying its label
    i18n.set_language("zh")
    column.refresh()
    assert column.names() == ["CPU（numpy）"]
    plot.clear_series()
    assert column.names() == []
