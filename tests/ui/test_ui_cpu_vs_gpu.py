"""The CPU-vs-GPU panel: sweeps, live curves, provenance styling, cancel, race, export."""

from __future__ import annotations

import csv
import json

import pytest
from PySide6.QtCore import Qt

from gpulab import results
from gpulab.experiments import matmul, vector_add
from ui.panels.cpu_vs_gpu import CpuVsGpuPanel
from ui.widgets.badge import ProvenanceBadge

TINY = matmul.Params(sizes=(16, 32), repeats=1)


@pytest.fixture
def panel(qtbot, services):
    widget = CpuVsGpuPanel(services)
    qtbot.addWidget(widget)
    widget.resize(900, 640)
    widget.show()
    return widget


def run_to_end(qtbot, panel, params=TINY):
    job = panel.run_sweep(params)
    qtbot.waitUntil(lambda: job.is_over, timeout=20_000)
    assert job.state == "done"
    return job


def drawn(curve) -> tuple[list[float], list[float]]:
    """The data a curve holds, before the plot's log mapping."""
    xs, ys = curve.getOriginalDataset()
    return ([] if xs is None else list(xs)), ([] if ys is None else list(ys))


def model_name(panel) -> str:
    return next(name for name, view in panel.series.items() if view.kind == "modelled")


def test_a_sweep_draws_every_series_with_a_point_per_size(qtbot, panel):
    run_to_end(qtbot, panel)
    assert len(panel.series) == 3  # all-threads CPU, one-thread CPU, modelled GPU
    for view in panel.series.values():
        xs, ys = drawn(view.rate_curve)
        assert xs == [16, 32] and all(y > 0 for y in ys)
        assert len(drawn(view.time_curve)[0]) == 2
    assert panel.status.text() == "Done."
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_points_are_drawn_as_they_arrive_not_only_at_the_end(qtbot, panel):
    from gpulab.results import Point

    panel.add_point("CPU numpy (1 thread)", Point(64, 90.0, None, {"seconds": 5.8e-6, "kind": "measured"}))
    panel.add_point("CPU numpy (1 thread)", Point(128, 95.0, None, {"seconds": 4.4e-5, "kind": "measured"}))
    view = panel.series["CPU numpy (1 thread)"]
    qtbot.waitUntil(lambda: len(drawn(view.rate_curve)[0]) == len(drawn(view.time_curve)[0]) == 2, timeout=2000)
    assert drawn(view.time_curve)[1] == pytest.approx([5.8e-3, 4.4e-2])


def test_a_modelled_series_is_dashed_hollow_and_badged_modelled(qtbot, panel):
    run_to_end(qtbot, panel)
    modelled, measured = panel.series[model_name(panel)], panel.series["CPU numpy (1 thread)"]
    assert modelled.rate_curve.opts["pen"].style() == Qt.PenStyle.DashLine
    assert measured.rate_curve.opts["pen"].style() == Qt.PenStyle.SolidLine
    assert modelled.rate_curve.opts["symbolBrush"].style() == Qt.BrushStyle.NoBrush
    kinds = sorted(badge.kind for badge in panel.legend_box.findChildren(ProvenanceBadge))
    assert kinds == ["measured", "measured", "modelled"]
    assert panel.provenance == "modelled"
    assert "Crossover" in panel.notes.text() and "model" in panel.notes.text()


def test_the_dashes_survive_a_theme_change(qtbot, panel):
    from ui.theme import apply_theme

    run_to_end(qtbot, panel)
    apply_theme("projector")
    qtbot.wait(50)
    assert panel.series[model_name(panel)].rate_curve.opts["pen"].style() == Qt.PenStyle.DashLine


def test_cancel_stops_the_sweep_early(qtbot, panel):
    job = panel.run_sweep(matmul.Params(sizes=(64, 128, 256, 512, 1024, 2048, 4096), repeats=50))
    qtbot.waitUntil(lambda: bool(panel.series), timeout=10_000)
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: job.is_over, timeout=15_000)
    assert job.state == "cancelled"
    assert panel.status.text() == "Cancelled."
    assert sum(len(v.points) for v in panel.series.values()) < 7 * 3
    assert panel.run_button.isEnabled()


def test_the_race_has_a_lane_per_series_and_ends_with_a_verdict(qtbot, panel):
    run_to_end(qtbot, panel)
    assert panel.race_size_combo.currentText() == "32"
    # A lane per series; the modelled lane's "[MODELLED]" tag says "model", so its name does not again.
    assert {lane.label for lane in panel.race.lanes} == {name.replace(" (model)", "") for name in panel.series}
    panel.race.race_seconds = 0.2
    with qtbot.waitSignal(panel.race.finished, timeout=5000):
        panel.race_button.click()
    assert panel.tabs.currentIndex() == 2
    assert all(panel.race.lane_fraction(lane) == 1.0 for lane in panel.race.lanes)
    assert "faster than" in panel.race.summary()


def test_halfway_through_the_race_the_slow_bar_is_half_full_and_a_ten_times_faster_one_done(qtbot, panel):
    from ui.widgets.race import Lane

    slow, fast = Lane("CPU", 1.0, "measured", "#0072b2"), Lane("GPU", 0.1, "modelled", "#d55e00")
    panel.race.set_lanes([slow, fast], "N = 4096")
    panel.race.set_progress(0.5)
    assert panel.race.lane_fraction(slow) == pytest.approx(0.5)
    assert panel.race.lane_fraction(fast) == 1.0
    assert panel.race.summary() == "GPU is about 10× faster than CPU"


def test_export_writes_png_svg_csv_and_json(qtbot, panel, tmp_path):
    run_to_end(qtbot, panel)
    pngs = panel.export("png", str(tmp_path / "sweep.png"))
    assert [p.rsplit("/", 1)[-1] for p in pngs] == ["sweep.png", "sweep-time.png"]
    assert all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in pngs)
    svg = panel.export("svg", str(tmp_path / "sweep.svg"))
    assert "<svg" in (tmp_path / "sweep.svg").read_text() and len(svg) == 2
    drawing = (tmp_path / "sweep.svg").read_text(encoding="utf-8")
    assert "MEASURED" in drawing and "MODELLED" in drawing  # each curve's kind under the picture
    panel.export("csv", str(tmp_path / "sweep.csv"))
    rows = list(csv.DictReader((tmp_path / "sweep.csv").open(encoding="utf-8")))
    assert len(rows) == 6 and {r["provenance"] for r in rows} == {"measured", "modelled"}
    assert all(float(r["seconds"]) > 0 for r in rows)
    panel.export("json", str(tmp_path / "sweep.json"))
    saved = results.load(tmp_path / "sweep.json")
    assert [s.name for s in saved.series] == list(panel.series)
    assert json.loads((tmp_path / "sweep.json").read_text())["experiment"] == "matmul"


def test_saving_a_result_before_any_sweep_warns_and_writes_nothing(qtbot, panel, tmp_path):
    with qtbot.waitSignal(panel.services.notifier.message, timeout=1000) as signal:
        assert panel.export("csv", str(tmp_path / "none.csv")) == []
    assert signal.args[0] == "warning"
    assert not (tmp_path / "none.csv").exists()


def test_vector_add_offers_fp32_only_and_plots_gb_per_s(qtbot, panel):
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("vector-add"))
    assert not panel.dtype_combo.isEnabled() and panel.dtype_combo.currentText() == "fp32"
    assert panel.tabs.tabText(0) == "GB/s"
    panel.transfers_box.setChecked(True)
    params = panel.params()
    assert isinstance(params, vector_add.Params) and params.include_transfers
    run_to_end(qtbot, panel, vector_add.Params(sizes=(1024, 4096), repeats=1, include_transfers=True))
    assert "CPU (numpy)" in panel.series


def test_a_race_with_copies_splits_the_gpu_bar_into_copy_in_compute_copy_out(qtbot, panel):
    run_to_end(qtbot, panel, vector_add.Params(sizes=(1 << 20,), repeats=1, include_transfers=True))
    gpu = next(lane for lane in panel.race.lanes if lane.kind == "modelled")
    cpu = next(lane for lane in panel.race.lanes if lane.kind == "measured")
    assert [part for part, _s in gpu.parts] == ["h2d", "kernel", "d2h"]
    assert sum(s for _p, s in gpu.parts) == pytest.approx(gpu.seconds)
    parts = dict(gpu.parts)
    assert parts["h2d"] > 10 * parts["kernel"]  # the side door, not the cooks, sets the time
    assert cpu.parts == ()


def test_the_model_picker_lists_the_spec_table_and_feeds_the_params(qtbot, panel):
    from gpulab.specs import load_specs

    keys = [panel.model_combo.itemData(i) for i in range(panel.model_combo.count())]
    assert keys == list(load_specs().keys())
    assert panel.model_combo.currentData() == "h100-sxm"
    panel.model_combo.setCurrentIndex(keys.index("t4"))
    assert panel.params().model_gpu == "t4"


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_the_panel_fits_a_1024_by_768_window(qtbot, services, theme):
    from ui.theme import apply_theme

    apply_theme(theme)
    widget = CpuVsGpuPanel(services)
    qtbot.addWidget(widget)
    hint = widget.minimumSizeHint()
    assert hint.width() <= 780 and hint.height() <= 640


@pytest.fixture
def quiet_machine(monkeypatch):
    """Every measured point taken as clean: these tests are about drawing a crossover, which a loaded
    machine's flagged points would rightly withhold (that is tested in the engine's tests)."""
    from gpulab import measure

    monkeypatch.setattr(measure, "is_clean", lambda point: True)


def test_the_crossover_is_marked_on_both_plots(qtbot, panel, quiet_machine):
    run_to_end(qtbot, panel, matmul.Params(sizes=(64, 512), repeats=1, cpu_single_thread=False))
    assert panel.crossover_size in (64, 512)  # a modelled H100 beats two CPU cores by N=512
    assert len(panel.markers) == 2
    # No GPU ran here: the marker says the winner is the modelled one.
    assert all(line.label.format == f"Modelled GPU wins from {panel.crossover_size}" for line in panel.markers)


# ------------------------------------------------------------ polish (issue 6 panel)


def edit_field_width(combo) -> int:
    """The width a combo box has for its text (its frame and arrow taken off), in this style."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    rect = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo)  # fmt: skip
    return rect.width()


@pytest.mark.parametrize(("theme", "language"), [("light", "en"), ("projector", "en"), ("projector", "zh")])
def test_every_choice_of_every_combo_fits_without_being_cut(qtbot, services, theme, language):
    from ui import i18n
    from ui.theme import apply_theme

    apply_theme(theme)
    i18n.set_language(language)
    widget = CpuVsGpuPanel(services)
    qtbot.addWidget(widget)
    widget.resize(874, 714)  # the panel's share of a 1024 x 768 window
    widget.show()
    qtbot.wait(20)
    for experiment in ("matmul", "vector-add"):
        widget.experiment_combo.setCurrentIndex(widget.experiment_combo.findData(experiment))
        qtbot.wait(100)
        for combo in (widget.experiment_combo, widget.sizes_combo, widget.model_combo):
            metrics = combo.fontMetrics()
            widest = max(metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))
            assert widest <= edit_field_width(combo), (theme, language, combo.currentText())


def test_a_placeholder_replaces_the_empty_axes_until_the_first_point(qtbot, panel):
    from gpulab.results import Point

    assert all(not p.isHidden() and "Run sweep" in p.text() for p in panel.placeholders)
    assert panel.placeholders[0].isVisible()  # over the plot on the open tab
    assert not panel.rate_plot.getPlotItem().getAxis("left").style["showValues"]
    panel.add_point("CPU numpy (1 thread)", Point(64, 90.0, None, {"seconds": 5.8e-6}))
    assert all(p.isHidden() for p in panel.placeholders)
    assert panel.rate_plot.getPlotItem().getAxis("left").style["showValues"]
    panel.clear()  # a new sweep starts from an empty plot again
    assert not any(p.isHidden() for p in panel.placeholders)


def test_the_progress_bar_and_the_notes_show_only_when_they_have_something(qtbot, panel):
    assert not panel.progress.isVisible() and not panel.notes.isVisible()
    job = panel.run_sweep(TINY)
    assert panel.progress.isVisible()
    qtbot.waitUntil(lambda: job.is_over, timeout=20_000)
    assert not panel.progress.isVisible()
    assert panel.notes.isVisible() and "Crossover" in panel.notes.text()


def test_an_announced_modelled_series_is_dashed_from_its_first_point(qtbot, panel):
    from gpulab.results import Point

    panel.announce_kind("Toy GPU (model)", "modelled")
    panel.add_point("Toy GPU (model)", Point(64, 900.0, None, {"seconds": 1e-6}))  # no kind in extra
    view = panel.series["Toy GPU (model)"]
    assert view.kind == "modelled"
    assert view.rate_curve.opts["pen"].style() == Qt.PenStyle.DashLine
    panel.announce_kind("Toy GPU (model)", "measured")  # a later word from the engine wins
    assert view.rate_curve.opts["pen"].style() == Qt.PenStyle.SolidLine


def test_the_engine_announces_the_modelled_kind_through_the_job(qtbot, panel):
    kinds = []
    original = panel.announce_kind
    panel.announce_kind = lambda name, kind: (kinds.append((name, kind)), original(name, kind))
    run_to_end(qtbot, panel)
    assert (model_name(panel), "modelled") in kinds


def test_the_crossover_label_uses_the_projector_type_and_text_colour(qtbot, panel, quiet_machine):
    from ui.theme import apply_theme, current_theme

    run_to_end(qtbot, panel, matmul.Params(sizes=(64, 512), repeats=1, cpu_single_thread=False))
    apply_theme("projector")
    qtbot.waitUntil(lambda: panel.markers[0].label.textItem.font().pointSize() == current_theme().font_pt)
    label = panel.markers[0].label
    assert label.textItem.font().bold()
    assert label.color.name() == current_theme().text
    assert label.fill.color().name() == current_theme().base


def test_race_part_names_pick_black_or_white_for_their_fill():
    from PySide6.QtGui import QColor

    from ui.widgets.race import readable_on

    assert readable_on(QColor("#f0e442")).name() == "#000000"  # yellow: black text
    assert readable_on(QColor("#0033cc")).name() == "#ffffff"  # projector blue: white text
    assert readable_on(QColor("#000000").lighter(170)).name() == "#ffffff"


def test_a_long_lane_name_gets_its_own_line_when_the_lane_is_tall_enough(qtbot):
    from ui.widgets.race import Lane, RaceView

    race = RaceView()
    qtbot.addWidget(race)
    lane = Lane("NVIDIA GeForce RTX 4090 (model), a very long contender name", 1e-3, "modelled", "#d55e00")
    race.set_lanes([lane])
    metrics = race.fontMetrics()
    assert race.caption_lines(lane, 200, 4 * metrics.height(), metrics) == 2
    assert race.caption_lines(lane, 200, 2 * metrics.height(), metrics) == 1  # no room: one line, elided
    assert race.caption_lines(Lane("GPU", 1e-3, "modelled", "#d55e00"), 600, 4 * metrics.height(), metrics) == 1


def choose(qtbot, combo, data) -> None:
    """Pick an item of a combo box with the keyboard, as a user can: Home, then Down to the item."""
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    for _ in range(combo.findData(data)):
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentData() == data


def test_the_size_and_dtype_lists_come_from_the_experiments_params(qtbot, panel):
    from gpulab.experiments import choices, presets

    for module in (vector_add, matmul):
        choose(qtbot, panel.experiment_combo, "vector-add" if module is vector_add else "matmul")
        offered = [tuple(panel.sizes_combo.itemData(i)) for i in range(panel.sizes_combo.count())]
        assert offered == [sizes for _key, sizes in presets(module.Params, "sizes")]
        dtypes = [panel.dtype_combo.itemText(i) for i in range(panel.dtype_combo.count())]
        assert dtypes == list(choices(module.Params, "dtype"))
        assert panel.dtype_combo.isEnabled() == (len(dtypes) > 1)
    assert panel.sizes_combo.itemText(0) == "64 … 2048"
    tip = panel.sizes_combo.itemData(0, Qt.ItemDataRole.ToolTipRole)
    assert tip == "Standard: 64, 128, 256, 512, 1024, 2048"  # the preset's name and every size
    assert panel.tabs.tabText(0) == "GFLOP/s"
    choose(qtbot, panel.experiment_combo, "vector-add")
    assert panel.sizes_combo.itemText(0) == "1024 … 2^24"
    assert panel.tabs.tabText(0) == "GB/s"
    assert panel.params().dtype == "fp32" and panel.params().sizes == presets(vector_add.Params, "sizes")[0][1]


def test_a_language_switch_keeps_the_race_where_it_was(qtbot, panel):
    from ui import i18n

    run_to_end(qtbot, panel)
    panel.race.set_progress(0.6)
    i18n.set_language("zh")
    assert panel.race.progress == pytest.approx(0.6)
    assert panel.race_button.text() == "开始赛跑"
    from ui.widgets.badge import kind_label

    # The modelled lane says so once, in Chinese, by its tag ("（模型）" would say it twice).
    modelled = [lane for lane in panel.race.lanes if lane.kind == "modelled"]
    assert modelled and all("（模型）" not in lane.label for lane in modelled)
    assert "模型" in kind_label("modelled")


def test_the_badge_names_the_kind_of_numbers_as_soon_as_curves_are_drawn(qtbot, panel):
    from gpulab.results import Point

    assert panel.provenance == ""
    panel.add_point("CPU numpy (1 thread)", Point(64, 90.0, None, {"seconds": 5.8e-6}))
    assert panel.provenance == "measured"
    panel.announce_kind("Toy GPU (model)", "modelled")
    assert panel.provenance == "modelled"  # a modelled curve on screen: the whole view is labelled so


def test_the_status_and_the_crossover_label_follow_a_language_switch(qtbot, panel):
    from ui import i18n

    run_to_end(qtbot, panel, matmul.Params(sizes=(64, 512), repeats=1, cpu_single_thread=False))
    i18n.set_language("zh")
    assert panel.status.text() == "完成。"
    assert all(line.label.format.startswith("模型估算的 GPU 从") for line in panel.markers)


# ------------------------------------------------------------ numbers and words a room reads


def test_the_race_summary_writes_a_ratio_as_people_say_it():
    from ui.widgets.race import Lane, RaceView

    race = RaceView()
    race.set_lanes([Lane("GPU", 1e-6, "measured", "#000"), Lane("CPU", 1.14e-3, "measured", "#111")])
    assert race.summary() == "GPU is about 1,100× faster than CPU"
    assert "e+" not in race.summary()


def test_a_modelled_series_is_called_modelled_once_in_the_series_column_race_and_legend(qtbot, panel):
    panel.run_sweep(TINY)
    qtbot.waitUntil(lambda: panel.job is None, timeout=20_000)
    names = panel.legend_box.names()
    model = [n for n in names if "H100" in n]
    assert model and all("(model)" not in n for n in model)
    lanes = [lane.label for lane in panel.race.lanes if lane.kind == "modelled"]
    assert lanes and all("(model)" not in label for label in lanes)
    legend = [label.text for _sample, label in panel.rate_plot.getPlotItem().legend.items]
    assert any(text.endswith("— MODELLED") and "(model)" not in text for text in legend)
    assert panel.export_button.isEnabled()  # once the sweep has ended


def test_export_is_greyed_out_until_a_sweep_has_finished(qtbot, panel):
    assert not panel.export_button.isEnabled()
    job = panel.run_sweep(TINY)
    assert not panel.export_button.isEnabled()
    qtbot.waitUntil(lambda: job.is_over, timeout=20_000)
    assert panel.export_button.isEnabled()


def test_noisy_points_are_said_in_the_panels_notes(qtbot, panel, monkeypatch):
    from gpulab import measure

    monkeypatch.setattr(measure, "BUSY_FRACTION", -1.0)  # every CPU point counts as timed on a busy machine
    run_to_end(qtbot, panel)
    assert panel.notes.text().count("Noisy:") >= 1
    assert "busy" in panel.notes.text()
    assert any(p.extra.get("noisy") for p in panel.last_result.series[0].points)


def test_the_notes_box_is_a_whole_number_of_lines_tall(qtbot, panel):
    run_to_end(qtbot, panel)
    line = panel.notes.line_height()
    assert panel.notes.viewport().height() % line == 0 and panel.notes.viewport().height() >= line
    assert panel.notes.verticalScrollBar().singleStep() == line
