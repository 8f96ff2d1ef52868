"""The Devices and Run-experiment panels."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ui.panels.devices import DevicesPanel
from ui.panels.experiments import ExperimentsPanel
from ui.services import Services


def _texts(widget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel)]


def _panel(qtbot, cls, report_probe):
    services = Services.create(probe=report_probe)
    panel = cls(services)
    qtbot.addWidget(panel)
    services.devices.refresh()
    qtbot.waitUntil(lambda: services.devices.report is not None, timeout=5000)
    return panel


def test_without_a_gpu_the_devices_panel_says_why_first(qtbot, device_reports):
    panel = _panel(qtbot, DevicesPanel, lambda: device_reports.no_gpu)
    assert "No usable GPU: no NVIDIA driver." in panel.banner.text()
    assert device_reports.reason in panel.banner.text()
    texts = _texts(panel)
    assert "Test CPU 9000" in texts
    assert "4 physical, 8 logical" in texts
    assert "openblas 0.3.27 (Haswell), 4 threads" in texts
    assert "16.0 GiB" in texts


def test_with_a_gpu_the_devices_panel_lists_its_fields_with_units(qtbot, device_reports):
    panel = _panel(qtbot, DevicesPanel, lambda: device_reports.gpu)
    assert "GPU ready: 1 CUDA device(s)." in panel.banner.text()
    texts = _texts(panel)
    for expected in ("80.0 GiB", "1,980 MHz", "5,120 bit", "3,352.3 GB/s", "9.0", "132", "13.0"):
        assert expected in texts, expected


def test_refresh_probes_the_devices_in_a_worker_thread(qtbot, device_reports):
    probe_threads = []

    def probe():
        probe_threads.append(threading.get_ident())
        return device_reports.gpu

    panel = _panel(qtbot, DevicesPanel, probe)
    with qtbot.waitSignal(panel.services.devices.report_changed, timeout=5000):
        panel.refresh_button.click()
    assert len(probe_threads) == 2
    assert threading.get_ident() not in probe_threads


def test_a_failing_probe_is_reported_and_refresh_can_be_pressed_again(qtbot):
    def broken_probe():
        raise OSError("probe exploded")

    services = Services.create(probe=broken_probe)
    panel = DevicesPanel(services)
    qtbot.addWidget(panel)
    services.devices.refresh()
    qtbot.waitUntil(lambda: not services.devices.probing, timeout=5000)
    assert services.notifier.history[-1] == ("error", "probe exploded")
    assert panel.refresh_button.isEnabled()


def test_the_experiment_form_is_built_from_the_params_dataclass(fake_experiment, qtbot, device_reports):
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    assert panel.experiment_combo.currentText() == "Fake squares"
    assert set(panel.editors) == {"steps", "delay_s", "fail_at"}
    assert panel.editors["steps"].text() == "6"
    assert [panel.device_combo.itemData(i) for i in range(panel.device_combo.count())] == ["cpu"]


def test_a_gpu_appears_as_a_device_to_run_on(fake_experiment, qtbot, device_reports):
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.gpu)
    devices = [panel.device_combo.itemText(i) for i in range(panel.device_combo.count())]
    assert devices == ["CPU", "GPU 0: Test H100"]


def test_running_an_experiment_grows_one_curve_per_series_and_labels_its_provenance(
    fake_experiment, qtbot, device_reports
):
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    job = panel.run_experiment()
    assert not panel.run_button.isEnabled() and panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: job.is_over, timeout=5000)
    curve = panel.plot.curves["squares"]
    xs, ys = curve.getData()
    assert list(xs) == [1, 2, 3, 4, 5, 6] and list(ys) == [1, 4, 9, 16, 25, 36]
    assert len(panel.plot.getPlotItem().listDataItems()) == 1
    assert not panel.legend.isHidden()
    assert panel.legend.text().startswith("<b>EMULATED</b>:") and "squares" in panel.legend.text()
    assert panel.provenance == "emulated"
    assert panel.notes.toPlainText() == "a fake note"
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_cancel_button_stops_the_running_experiment(fake_experiment, qtbot, device_reports):
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    panel.editors["steps"].setText("1000")
    panel.editors["delay_s"].setText("0.01")
    job = panel.run_experiment()
    qtbot.waitUntil(lambda: len(panel.plot.points_of("squares")) > 0, timeout=5000)
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: job.is_over, timeout=5000)
    assert job.state == "cancelled"
    assert panel.status.text() == "Cancelled."
    assert len(panel.plot.points_of("squares")) < 1000


def test_a_bad_parameter_is_explained_and_nothing_runs(fake_experiment, qtbot, device_reports):
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    panel.editors["steps"].setText("many")
    assert panel.run_experiment() is None
    level, text = panel.services.notifier.history[-1]
    assert level == "warning"
    assert text.startswith("Check the parameters: steps: expected a whole number")


def test_the_form_reads_back_the_defaults_of_every_registered_experiment(qtbot, device_reports):
    from gpulab import experiments

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    for index in range(panel.experiment_combo.count()):
        panel.experiment_combo.setCurrentIndex(index)
        name = panel.experiment_combo.itemData(index)
        assert panel.module is experiments.get(name)
        params_type = panel.module.Params
        gpu_only = {f.name: False for f in dataclasses.fields(params_type)
                    if experiments.field_spec(params_type, f.name).needs_gpu}  # unticked: no GPU here  # fmt: skip
        assert panel.read_params() == dataclasses.replace(params_type(), **gpu_only), name
    assert panel.services.notifier.history == []


def test_a_point_that_carries_its_provenance_labels_the_curve_while_it_runs(
    fake_experiment, qtbot, device_reports, monkeypatch
):
    from dataclasses import dataclass

    from gpulab.experiments import PartialPoint, Progress
    from gpulab.results import Point, Provenance

    @dataclass(frozen=True)
    class PointWithProvenance(PartialPoint):
        provenance: Provenance | None = None

    release = threading.Event()

    def modelled_run(params, ctx):
        yield PointWithProvenance("H100 model", Point(1, 2), Provenance("modelled", "spec sheet"))
        release.wait(5)
        yield Progress(1.0, "done")
        return None

    monkeypatch.setattr(fake_experiment, "run", modelled_run)
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    job = panel.run_experiment()
    try:
        qtbot.waitUntil(lambda: panel.provenance == "modelled", timeout=5000)
        assert panel.legend.text().startswith("<b>MODELLED</b>:") and "H100 model" in panel.legend.text()
        pen = panel.plot.curves["H100 model"].opts["pen"]
        assert pen.style() == Qt.PenStyle.DashLine
    finally:
        release.set()
        qtbot.waitUntil(lambda: job.is_over, timeout=5000)


def test_engine_texts_switch_language_when_the_engine_provides_them(
    fake_experiment, qtbot, device_reports, monkeypatch
):
    import dataclasses

    from gpulab import catalogue
    from gpulab.lab.base import param
    from ui import i18n

    @dataclasses.dataclass(frozen=True)
    class LabelledParams:  # defined outside the registered module, so it names its key
        steps: int = param(3, key="experiment.fake.param.steps")

    monkeypatch.setitem(catalogue.entries(), "experiment.fake.title", catalogue.Entry("Fake squares", "假的平方"))
    monkeypatch.setitem(catalogue.entries(), "experiment.fake.param.steps.label", catalogue.Entry("Steps", "步数"))
    monkeypatch.setattr(fake_experiment, "Params", LabelledParams)
    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    assert panel.experiment_combo.currentText() == "Fake squares"
    assert "Steps:" in _texts(panel)
    i18n.set_language("zh")
    assert panel.experiment_combo.currentText() == "假的平方"
    assert "步数：" in _texts(panel)
    assert panel.editors["steps"].text() == "3"


def _choose(qtbot, combo, text) -> None:
    """Pick the item showing ``text`` with the keyboard: Home, then Down until it is current."""
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    while combo.currentText() != text and combo.currentIndex() < combo.count() - 1:
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentText() == text


def test_the_form_offers_choices_presets_and_the_spec_tables_gpus_from_the_params(qtbot, device_reports):
    from PySide6.QtWidgets import QComboBox

    from gpulab import experiments
    from gpulab.experiments import matmul
    from gpulab.specs import load_specs
    from ui.widgets.params_form import PresetEditor

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    _choose(qtbot, panel.experiment_combo, matmul.TITLE)
    dtype, sizes, model = panel.editors["dtype"], panel.editors["sizes"], panel.editors["model_gpu"]
    assert isinstance(dtype, QComboBox) and isinstance(model, QComboBox) and isinstance(sizes, PresetEditor)
    assert [dtype.itemText(i) for i in range(dtype.count())] == list(experiments.choices(matmul.Params, "dtype"))
    assert [model.itemText(i) for i in range(model.count())] == [spec.name for spec in load_specs()]
    assert [sizes.combo.itemText(i) for i in range(sizes.combo.count())][:2] == ["Standard: 64 … 2048",
                                                                                  "Quick: 64 … 1024"]
    _choose(qtbot, sizes.combo, "Quick: 64 … 1024")
    assert sizes.edit.text() == "64, 128, 256, 512, 1024"
    sizes.edit.clear()
    qtbot.keyClicks(sizes.edit, "16, 32")
    _choose(qtbot, dtype, "fp64")
    first_gpu = next(iter(load_specs())).key
    _choose(qtbot, model, model.itemText(0))
    panel.editors["repeats"].clear()
    qtbot.keyClicks(panel.editors["repeats"], "1")
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.last_result is not None, timeout=20_000)
    params = panel.last_result.params
    chosen = (params["sizes"], params["dtype"], params["model_gpu"], params["repeats"])
    assert chosen == ((16, 32), "fp64", first_gpu, 1) and first_gpu != matmul.Params().model_gpu
    assert panel.services.notifier.history == []


def test_a_typed_value_outside_a_declared_limit_is_explained_and_nothing_runs(qtbot, device_reports):
    from gpulab.experiments import reduction

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    _choose(qtbot, panel.experiment_combo, reduction.TITLE)
    panel.editors["block"].clear()
    qtbot.keyClicks(panel.editors["block"], "192")
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.job is None
    assert panel.services.notifier.history[-1] == (  # the field named by its label, as the form shows it
        "warning", "Check the parameters: threads per block: must be a power of two from 32 to 256, got 192")


def test_choosing_another_experiment_clears_the_last_plot_its_axes_notes_and_failure_banner(
    fake_experiment, qtbot, device_reports
):
    from tests.ui.walk import choose, click, type_into

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    banner: list[str] = []
    panel.services.notifier.dismissed.connect(lambda: banner.append("dismissed"))
    panel.show()
    type_into(qtbot, panel.editors["fail_at"], "3")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None, timeout=5000)
    assert panel.status.text().startswith("Failed:")
    assert panel.services.notifier.history[-1][0] == "error"
    banner.clear()
    choose(qtbot, panel.experiment_combo, "vector-add")
    assert banner == ["dismissed"]
    assert panel.plot.curves == {} and panel.notes.isHidden()
    assert panel.status.text() == "" and panel.provenance == ""
    assert panel.plot.getPlotItem().getAxis("bottom").labelText == ""
    x_range = panel.plot.getViewBox().viewRange()[0]
    assert x_range[0] >= -0.1 and x_range[1] <= 1.1  # not the last run's (log) range as plain numbers


def test_a_run_that_fails_before_its_first_point_shows_no_axes_of_made_up_numbers(
    fake_experiment, qtbot, device_reports
):
    from tests.ui.walk import click, type_into

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    panel.show()
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None, timeout=5000)
    type_into(qtbot, panel.editors["fail_at"], "0")
    click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: panel.job is None, timeout=5000)
    assert panel.plot.curves == {}
    assert not panel.placeholder.isHidden() and "failed" in panel.placeholder.text()


def test_the_sizes_field_shows_every_size_of_its_preset_in_a_wide_window(qtbot, device_reports):
    from tests.ui.walk import choose

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    panel.resize(1800, 900)
    panel.show()
    choose(qtbot, panel.experiment_combo, "vector-add")
    qtbot.wait(50)
    edit = panel.editors["sizes"].edit
    assert edit.fontMetrics().horizontalAdvance(edit.text()) <= edit.contentsRect().width()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_in_projector_type_at_1024_by_768_the_plot_keeps_at_least_two_fifths_of_the_width(qtbot, services, language):
    from ui import i18n
    from ui.main_window import MainWindow
    from ui.theme import apply_theme

    i18n.set_language(language)
    apply_theme("projector")
    window = MainWindow(services, panel="experiments")
    qtbot.addWidget(window)
    window.resize(1024, 768)
    window.show()
    panel = window.panels["experiments"]
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("saxpy"))  # the longest title
    qtbot.wait(50)
    assert panel.plot.width() >= 0.4 * panel.width(), (panel.plot.width(), panel.width())
    assert panel.experiment_combo.toolTip() == panel.experiment_combo.currentText()  # the whole title


def test_every_parameter_label_of_every_experiment_starts_with_a_capital(qtbot, device_reports):
    from tests.ui.walk import choose

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    for index in range(panel.experiment_combo.count()):
        choose(qtbot, panel.experiment_combo, panel.experiment_combo.itemData(index))
        for label in panel.form.labels.values():
            first = label.text()[:1]
            assert first and first == first.upper(), label.text()


def test_a_choice_with_words_in_the_catalogue_shows_them_and_runs_with_its_value(qtbot, device_reports):
    from gpulab.experiments import cluster_scaling

    panel = _panel(qtbot, ExperimentsPanel, lambda: device_reports.no_gpu)
    _choose(qtbot, panel.experiment_combo, cluster_scaling.TITLE)
    model, recompute = panel.editors["model"], panel.editors["recompute"]
    assert [model.itemText(i) for i in range(model.count())] == ["Llama 3 405B", "GPT 1.3B"]
    assert [recompute.itemText(i) for i in range(recompute.count())] == ["full recomputation",
                                                                          "selective recomputation"]
    _choose(qtbot, model, "GPT 1.3B")  # a dot in the value ("gpt-1.3b"): its words are found all the same
    _choose(qtbot, recompute, "selective recomputation")
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.last_result is not None, timeout=20_000)
    assert (panel.last_result.params["model"], panel.last_result.params["recompute"]) == ("gpt-1.3b", "selective")
    assert any("selective recomputation" in str(note) for note in panel.last_result.notes)
    assert panel.services.notifier.history == []
