"""Texts that come from the engine follow the interface language: experiment titles and
parameters, the no-GPU reason, series names, result notes and the monitor's reason."""

from __future__ import annotations

import re

import pytest

from gpulab import devices, kernels
from gpulab.catalogue import render
from gpulab.experiments import matmul
from ui import i18n
from ui.panels.cpu_vs_gpu import CpuVsGpuPanel
from ui.panels.devices import DevicesPanel
from ui.panels.experiments import ExperimentsPanel

CJK = re.compile(r"[\u4e00-\u9fff]")


def combo_texts(combo) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


def test_the_run_experiment_panel_shows_chinese_titles_labels_and_description(qtbot, services):
    panel = ExperimentsPanel(services)
    qtbot.addWidget(panel)
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("matmul"))
    i18n.set_language("zh")
    assert "矩阵乘法：CPU 与 GPU" in combo_texts(panel.experiment_combo)
    assert matmul.TITLE not in combo_texts(panel.experiment_combo)
    assert panel.description.text() == render("experiment.matmul.description", "zh")
    assert panel.description.text().startswith("对 N×N 矩阵计算 C = A·B")
    first_label = panel.form.labels["sizes"]
    assert first_label.text() == "矩阵规模 N："
    assert "要运行的矩阵规模" in first_label.toolTip()
    i18n.set_language("en")
    assert matmul.TITLE in combo_texts(panel.experiment_combo)
    assert panel.description.text() == matmul.DESCRIPTION
    assert first_label.text() == "Matrix sizes N:"


def test_the_devices_panel_gives_the_no_gpu_reason_in_chinese(qtbot, services, device_reports):
    panel = DevicesPanel(services)
    qtbot.addWidget(panel)
    services.devices.refresh()
    qtbot.waitUntil(lambda: services.devices.report is not None)
    assert device_reports.reason in panel.banner.text()
    i18n.set_language("zh")
    expected = devices.explain(device_reports.no_gpu.cuda, "zh")
    assert CJK.search(expected) and "12.9" in expected
    assert expected in panel.banner.text()
    assert device_reports.reason not in panel.banner.text()


def test_the_status_bar_tooltip_explains_the_missing_gpu_in_chinese(window, device_reports):
    window.set_language("zh")
    assert window.device_label.toolTip() == devices.explain(device_reports.no_gpu.cuda, "zh")


def test_engine_text_picks_the_kernel_catalogue_chinese(qapp):
    spec = kernels.get("reduce_shuffle")
    assert i18n.engine_text(spec, "title") == spec.title == "Reduction: warp shuffles"
    i18n.set_language("zh")
    assert i18n.engine_text(spec, "title") == "归约：线程束洗牌"
    assert i18n.engine_text(spec, "lesson") == render("kernel.lesson.reduction", "zh")
    assert i18n.engine_text(spec, "lesson").startswith("同样的求和有三种写法")
    assert i18n.engine_text(matmul, "TITLE") == "矩阵乘法：CPU 与 GPU"
    assert i18n.engine_text(kernels.get("vector_add"), "lesson") == ""  # not part of a lab: no lesson


def test_a_keyed_message_renders_in_the_interface_language_and_plain_english_stays_readable(qapp):
    from gpulab.catalogue import Note, msg, plain

    note = Note(msg("note.no-gpu", reason=msg("device.reason.no-device")))
    assert i18n.engine_message(note) == "No GPU series: The NVIDIA driver is loaded but finds no CUDA-capable device."
    i18n.set_language("zh")
    assert i18n.engine_message(note) == "没有 GPU 曲线：NVIDIA 驱动已加载，但没有找到支持 CUDA 的设备。"
    assert i18n.engine_message(note.message) == i18n.engine_message(note)
    assert i18n.engine_message(plain("An old report's sentence.")) == "An old report's sentence."
    old_report_note = "Copies do not overlap with each other or with kernels."  # a gpulab.result/1 note
    assert i18n.engine_message(old_report_note) == old_report_note  # shown as it is: no matching of English
    assert i18n.engine_message(Note(msg("model.assumption.no-copy-overlap"))) == "拷贝之间、拷贝与核函数之间都不重叠。"


def test_cpu_vs_gpu_notes_series_and_race_are_chinese_and_switch_back(qtbot, services):
    panel = CpuVsGpuPanel(services)
    qtbot.addWidget(panel)
    panel.show()
    i18n.set_language("zh")
    job = panel.run_sweep(matmul.Params(sizes=(16, 32), repeats=1))
    qtbot.waitUntil(lambda: job.is_over, timeout=20_000)
    assert "交叉点" in panel.notes.text() and "Crossover" not in panel.notes.text()
    assert "CPU numpy（1 个线程）" in legend_texts(panel)
    from ui.widgets.badge import kind_label

    # "Modelled" is said once: by the lane's kind tag (in Chinese), not again in its name.
    assert any(lane.kind == "modelled" and "（模型）" not in lane.label for lane in panel.race.lanes)
    assert kind_label("modelled") == "模型估算"
    assert panel.status.text() == "完成。"
    i18n.set_language("en")
    assert "Crossover" in panel.notes.text()
    assert "CPU numpy (1 thread)" in legend_texts(panel)
    assert "CPU numpy (1 thread)" in panel.series  # the engine's names stay the keys


def legend_texts(panel) -> list[str]:
    from PySide6.QtWidgets import QLabel

    return [label.text() for label in panel.legend_box.findChildren(QLabel)]


def test_the_monitor_reason_is_chinese(qtbot):
    from gpulab.monitor import Sampler
    from ui.widgets.monitor import MonitorStrip

    strip = MonitorStrip(Sampler(hz=20))
    qtbot.addWidget(strip)
    if strip.gpu_source.available:
        pytest.skip("NVML works here: no reason is shown")
    i18n.set_language("zh")
    assert strip.reason.text().startswith("已隐藏 GPU 计数器：")
    assert CJK.search(strip.reason.text().removeprefix("已隐藏 GPU 计数器："))
    assert "Not Found" not in strip.reason.text()  # NVML's own English stays out of the Chinese reason


def test_an_emulated_lab_shows_chinese_notes_axes_and_legend(qtbot, services):
    panel = ExperimentsPanel(services)
    qtbot.addWidget(panel)
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("reduction"))
    panel.editors["n"].setText("128")
    panel.editors["block"].setText("64")
    i18n.set_language("zh")
    assert panel.placeholder.text().startswith("按“运行”")
    job = panel.run_experiment()
    qtbot.waitUntil(lambda: job.is_over, timeout=20_000)
    assert job.state == "done"
    assert panel.placeholder.isHidden()
    assert "每个仿真输出都与核函数的 numpy 参考结果一致。" in panel.notes.toPlainText()
    assert panel.plot.getPlotItem().getAxis("bottom").labelText.startswith("变体（0 = 交错寻址")
    assert "分支效率（仿真）" in panel.legend.text()
    i18n.set_language("en")
    assert "Every emulated output matched" in panel.notes.toPlainText()


def test_a_parameter_mistake_is_explained_in_chinese(qtbot, services):
    panel = ExperimentsPanel(services)
    qtbot.addWidget(panel)
    panel.experiment_combo.setCurrentIndex(panel.experiment_combo.findData("reduction"))
    i18n.set_language("zh")
    panel.editors["repeats"].setText("many")
    with qtbot.waitSignal(services.notifier.message, timeout=1000) as signal:
        assert panel.run_experiment() is None
    assert signal.args[0] == "warning"
    assert "重复次数：应为整数，实际为 'many'" in signal.args[1]  # the field's label, not the script's key
