"""The occupancy calculator: architecture (or a spec-table GPU), threads per block, registers per
thread, shared memory per block and the carve-out in; resident blocks and warps per SM, the
occupancy, the binding limit and a bar per limit (the blocks it alone allows) out.

A lab kernel picked from the list fills registers and static shared memory from NVRTC's compile
for the chosen architecture, in the job runner's worker; without NVRTC a line says so.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QIntValidator
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from gpulab import experiments
from gpulab.catalogue import msg
from gpulab.occupancy import LIMITERS, Occupancy, OccupancyError, arch_limits, known_archs, occupancy
from gpulab.occupancy.calculator import UNLIMITED
from gpulab.specs import shipped_specs
from ui import i18n
from ui.jobs import JobRunner
from ui.panels import warp_texts
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.flow_layout import WrapLabel

translate = QCoreApplication.translate


def arch_choices() -> list[tuple[str, str]]:
    """(text, arch or spec id) for the combo: each architecture, then each spec-table GPU."""
    found = [(f"{arch} ({arch_limits(arch).name})", arch) for arch in known_archs()]
    specs = shipped_specs()
    for key in specs.keys():
        major, minor = specs[key].compute_capability
        if f"sm_{major}{minor}" in known_archs():
            found.append((f"{specs[key].name} (sm_{major}{minor})", key))
    return found


def compiled(entry: str, arch: str) -> dict[str, Any]:
    """Registers and static shared memory of ``entry`` compiled by NVRTC for ``arch`` (worker
    thread); ``{"error": ...}`` when NVRTC is missing or the kernel does not compile."""
    from gpulab.occupancy import cubin

    spec = experiments.kernel(entry)
    try:
        resources, _log = cubin.compile_resources(spec.source, spec.entry, arch)
    except Exception as exc:  # NVRTC not installed, or this arch not supported by it: said in a line
        return {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    return {"registers": resources.registers, "shared": resources.shared_bytes}


def limit_name(limit: str) -> str:
    return i18n.engine_message(msg(f"occupancy.limit.{limit}"))


class OccupancyView(QWidget):
    """The calculator's form, its answer and the bars of the four limits."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.result: Occupancy | None = None
        self.problem = ""
        self._asked: tuple[str, str] | None = None
        self.arch_label, self.threads_label, self.registers_label = QLabel(), QLabel(), QLabel()
        self.shared_label, self.carveout_label, self.kernel_label = QLabel(), QLabel(), QLabel()
        self.arch_combo = QComboBox()
        for text, key in arch_choices():
            self.arch_combo.addItem(text, key)
        self.arch_combo.setCurrentIndex(max(0, self.arch_combo.findData("sm_80")))
        self.threads_field, self.registers_field, self.shared_field = QLineEdit("256"), QLineEdit("32"), QLineEdit("0")
        for field, top in ((self.threads_field, 1024), (self.registers_field, 255), (self.shared_field, 1 << 20)):
            field.setValidator(QIntValidator(0, top, field))
        self.carveout_combo = QComboBox()
        self.kernel_combo = QComboBox()
        self.kernel_combo.addItem("", "")
        for spec in experiments.kernel_catalogue().values():
            if not spec.gpu_only:
                self.kernel_combo.addItem(warp_texts.kernel_title(spec), spec.entry)
        self.compile_line = WrapLabel(max_lines=3)
        self.answer = QLabel()
        self.answer.setObjectName("occupancyAnswer")
        self.answer.setWordWrap(True)
        self.limiter_line = QLabel()
        self.limiter_line.setWordWrap(True)
        self.badge = ProvenanceBadge("modelled")
        self.bars: dict[str, tuple[QLabel, QProgressBar]] = {name: (QLabel(), QProgressBar()) for name in LIMITERS}
        self._build_layout()
        self._fill_carveouts()
        self.arch_combo.currentIndexChanged.connect(self._arch_chosen)
        for field in (self.threads_field, self.registers_field, self.shared_field):
            field.textChanged.connect(lambda _t: self.calculate())
        self.carveout_combo.currentIndexChanged.connect(lambda _i: self.calculate())
        self.kernel_combo.currentIndexChanged.connect(lambda _i: self.compile_kernel())

    def _build_layout(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        for label, field in ((self.arch_label, self.arch_combo), (self.kernel_label, self.kernel_combo),
                             (self.threads_label, self.threads_field), (self.registers_label, self.registers_field),
                             (self.shared_label, self.shared_field), (self.carveout_label, self.carveout_combo)):
            form.addRow(label, field)  # fmt: skip
        bars = QGridLayout()
        for row, (_name, (label, bar)) in enumerate(self.bars.items()):
            bar.setTextVisible(True)
            bar.setAlignment(Qt.AlignmentFlag.AlignCenter)
            bars.addWidget(label, row, 0)
            bars.addWidget(bar, row, 1)
        bars.setColumnStretch(1, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignLeft)
        column.addLayout(form)
        column.addWidget(self.compile_line)
        column.addWidget(self.answer)
        column.addWidget(self.limiter_line)
        column.addLayout(bars)
        column.addStretch(1)

    # ------------------------------------------------------------ texts

    def retranslate(self) -> None:
        self.arch_label.setText(self.tr("Architecture or GPU:"))
        self.kernel_label.setText(self.tr("Lab kernel:"))
        self.kernel_combo.setItemText(0, self.tr("(none: type the numbers)"))
        for index in range(1, self.kernel_combo.count()):
            spec = experiments.kernel(self.kernel_combo.itemData(index))
            self.kernel_combo.setItemText(index, warp_texts.kernel_title(spec))
        self.kernel_combo.setToolTip(self.tr("Fills registers and static shared memory from NVRTC's compile"))
        self.threads_label.setText(self.tr("Threads per block:"))
        self.registers_label.setText(self.tr("Registers per thread:"))
        self.shared_label.setText(self.tr("Shared memory per block (bytes):"))
        self.carveout_label.setText(self.tr("Shared memory carve-out:"))
        self.carveout_combo.setItemText(0, self.tr("largest (the default)"))
        self.badge.setToolTip(self.tr("Modelled: the CUDA occupancy rules applied to the limits NVIDIA publishes, "
                                      "not measured on a GPU."))  # fmt: skip
        self.calculate()

    # ------------------------------------------------------------ the answer

    def arch(self) -> str:
        return str(self.arch_combo.currentData())

    def _arch_chosen(self, _index: int) -> None:
        self._fill_carveouts()
        if self.kernel_combo.currentData():
            self.compile_kernel()  # registers differ per architecture
        self.calculate()

    def _fill_carveouts(self) -> None:
        self.carveout_combo.blockSignals(True)
        self.carveout_combo.clear()
        self.carveout_combo.addItem(self.tr("largest (the default)"), None)
        for kib in arch_limits(self.arch()).carveout_kib:
            self.carveout_combo.addItem(f"{kib} KiB", kib)
        self.carveout_combo.blockSignals(False)

    def calculate(self) -> None:
        """The answer for the form as it stands; a field that is empty or out of range is named."""
        try:
            values = [int(field.text()) for field in (self.threads_field, self.registers_field, self.shared_field)]
        except ValueError:
            return self._show_problem(self.tr("Fill in every field with a whole number."))
        try:
            self.result = occupancy(self.arch(), *values, self.carveout_combo.currentData())
        except OccupancyError as exc:
            return self._show_problem(str(exc))
        self.problem = ""
        r = self.result
        text = self.tr("%1 blocks per SM · %2 of %3 warps · occupancy %4%")
        self.answer.setText("<b>" + text.replace("%1", str(r.blocks_per_sm)).replace("%2", str(r.warps_per_sm))
                            .replace("%3", str(r.max_warps_per_sm)).replace("%4", f"{100 * r.occupancy:.0f}")
                            + "</b>")  # fmt: skip
        names = ", ".join(limit_name(name) for name in r.limiters)
        self.limiter_line.setText(self.tr("Binding limit: %1").replace("%1", names))
        self._show_bars(r)
        return None

    def _show_problem(self, text: str) -> None:
        self.result, self.problem = None, text
        self.answer.setText(text)
        self.limiter_line.setText("")
        for label, bar in self.bars.values():
            label.setText("")
            bar.setValue(0)
            bar.setFormat("")

    def _show_bars(self, r: Occupancy) -> None:
        finite = [v for v in r.limits.values() if v < UNLIMITED]
        top = max([*finite, 1])
        for name, (label, bar) in self.bars.items():
            blocks = r.limits[name]
            binding = name in r.limiters
            label.setText(("<b>%s</b>" if binding else "%s") % limit_name(name))
            bar.setRange(0, top)
            if blocks >= UNLIMITED:
                bar.setValue(top)
                bar.setFormat(self.tr("not used: no limit"))
            else:
                bar.setValue(blocks)
                bar.setFormat(self.tr("%1 blocks").replace("%1", str(blocks)))
            bar.setToolTip(self.tr("The blocks per SM this limit alone allows"))

    # ------------------------------------------------------------ the kernel

    def choose_kernel(self, entry: str) -> None:
        index = self.kernel_combo.findData(entry)
        if index > 0:
            self.kernel_combo.setCurrentIndex(index)

    def compile_kernel(self) -> None:
        entry, arch = str(self.kernel_combo.currentData() or ""), self.arch().strip()
        if not entry:
            self.compile_line.setText("")
            return
        from gpulab.occupancy import resolve_arch

        target = resolve_arch(arch)
        asked = (entry, target)
        self._asked = asked
        self.compile_line.setText(self.tr("Compiling %1 with NVRTC for %2…").replace("%1", entry).replace("%2", target))
        self.runner.run_task(lambda: compiled(entry, target), lambda found: self._compiled(asked, found))

    def _compiled(self, asked: tuple[str, str], found: dict[str, Any]) -> None:
        if asked != self._asked:
            return
        entry, target = asked
        if "error" in found:
            text = self.tr("NVRTC could not compile %1 for %2 (%3): type the registers yourself.")
            self.compile_line.setText(text.replace("%1", entry).replace("%2", target).replace("%3", found["error"]))
            return
        self.registers_field.setText(str(found["registers"]))
        self.shared_field.setText(str(found["shared"]))
        text = self.tr("%1 compiled by NVRTC for %2: %3 registers per thread, %4 bytes of static shared memory.")
        self.compile_line.setText(text.replace("%1", entry).replace("%2", target).replace("%3", str(found["registers"]))
                                  .replace("%4", str(found["shared"])))  # fmt: skip
