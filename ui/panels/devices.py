"""The Devices panel: this machine's GPU and CPU in plain words, why there is no GPU, and what
they are doing now (the live monitor fills the room the fields leave)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpulab.devices import BlasInfo, CpuInfo, CudaStatus, DeviceReport, GpuInfo
from ui import i18n
from ui.device_text import short_reason
from ui.panels.base import Panel
from ui.services import Services
from ui.widgets.layout_parts import widgets as layout_widgets
from ui.widgets.monitor import MonitorStrip

Rows = list[tuple[str, str]]
translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls


def _unknown() -> str:
    return translate("DevicesPanel", "not available")


def _number(value: float | int | None, unit: str = "", digits: int = 0) -> str:
    if value is None:
        return _unknown()
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def _bytes(value: int | None) -> str:
    if value is None:
        return _unknown()
    if value >= 1 << 30:
        return f"{value / (1 << 30):.1f} GiB"
    return f"{value / (1 << 20):.1f} MiB"


def _text(value: str | None) -> str:
    return value if value else _unknown()


def cuda_rows(cuda: CudaStatus) -> Rows:
    not_installed = translate("DevicesPanel", "not installed")
    return [
        (translate("DevicesPanel", "CuPy"), cuda.cupy_version or not_installed),
        (translate("DevicesPanel", "CUDA runtime"), _text(cuda.cuda_runtime_version)),
        (translate("DevicesPanel", "CUDA driver"), _text(cuda.cuda_driver_version)),
    ]


def _blas_text(blas: BlasInfo) -> str:
    threads = translate("DevicesPanel", "%1 threads").replace("%1", str(blas.threads))
    parts = [blas.vendor, blas.version or "", f"({blas.architecture})" if blas.architecture else ""]
    return f"{' '.join(p for p in parts if p)}, {threads}"


def cpu_rows(cpu: CpuInfo) -> Rows:
    cores = translate("DevicesPanel", "%1 physical, %2 logical")
    cores = cores.replace("%1", _number(cpu.physical_cores)).replace("%2", _number(cpu.logical_cores))
    blas = "; ".join(_blas_text(b) for b in cpu.blas) or _unknown()
    return [
        (translate("DevicesPanel", "Model"), cpu.model),
        (translate("DevicesPanel", "Cores"), cores),
        (translate("DevicesPanel", "Max clock"), _number(cpu.max_clock_mhz, "MHz")),
        (translate("DevicesPanel", "Memory"), _bytes(cpu.memory_total_bytes)),
        (translate("DevicesPanel", "BLAS (numpy)"), blas),
    ]


def gpu_rows(gpu: GpuInfo) -> Rows:
    rows = [
        (translate("DevicesPanel", "Compute capability"), gpu.compute_capability),
        (translate("DevicesPanel", "Streaming multiprocessors"), str(gpu.sm_count)),
        (translate("DevicesPanel", "Device memory"), _bytes(gpu.memory_total_bytes)),
        (translate("DevicesPanel", "SM clock"), _number(gpu.sm_clock_mhz, "MHz")),
        (translate("DevicesPanel", "Memory clock"), _number(gpu.memory_clock_mhz, "MHz")),
        (translate("DevicesPanel", "Memory bus"), _number(gpu.memory_bus_width_bits, "bit")),
        (translate("DevicesPanel", "L2 cache"), _bytes(gpu.l2_cache_bytes)),
        (translate("DevicesPanel", "Peak memory bandwidth"), _number(gpu.peak_bandwidth_gb_s, "GB/s", 1)),
        (translate("DevicesPanel", "PCI bus"), _text(gpu.pci_bus_id)),
    ]
    return rows + nvml_rows(gpu)


def nvml_rows(gpu: GpuInfo) -> Rows:
    nv = gpu.nvml
    if nv is None:
        return []
    link = f"Gen {nv.pcie_gen_current or '?'} x{nv.pcie_width_current or '?'}"
    link_max = f"Gen {nv.pcie_gen_max or '?'} x{nv.pcie_width_max or '?'}"
    return [
        (translate("DevicesPanel", "Driver"), _text(nv.driver_version)),
        (translate("DevicesPanel", "PCIe link (now / max)"), f"{link} / {link_max}"),
        (
            translate("DevicesPanel", "Power (now / limit)"),
            f"{_number(nv.power_draw_w, 'W')} / {_number(nv.power_limit_w, 'W')}",
        ),
        (translate("DevicesPanel", "Temperature"), _number(nv.temperature_c, "°C")),
    ]


def form_group(title: str, rows: Rows) -> QGroupBox:
    box = QGroupBox(title)
    form = QFormLayout(box)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
    for label, value in rows:
        field = QLabel(value)  # no word wrap: QFormLayout would clip wrapped labels to one line
        field.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(label + ":", field)
    return box


class DevicesPanel(Panel):
    """The device report as readable forms, side by side where the width allows, a Refresh
    button, and the live monitor below them."""

    def __init__(self, services: Services, parent: QWidget | None = None, monitor: MonitorStrip | None = None) -> None:
        super().__init__(services, parent)
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.banner = QLabel()
        self.banner.setObjectName("gpuBanner")
        self.banner.setWordWrap(True)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refresh_button = QPushButton()
        self.refresh_button.clicked.connect(services.devices.refresh)
        self.groups = QWidget()
        self.groups_layout = QBoxLayout(QBoxLayout.Direction.TopToBottom, self.groups)
        self.groups_layout.setAlignment(Qt.AlignmentFlag.AlignTop)  # side by side: tops level
        self.groups_layout.setContentsMargins(0, 0, 0, 0)  # in line with the banner; room for the monitor
        self.monitor = monitor or MonitorStrip()
        self.monitor.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._build_layout()
        services.devices.report_changed.connect(self.show_report)
        services.devices.probing_changed.connect(self._probing)
        self.retranslate()
        self.show_report(services.devices.report)

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.refresh_button)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setWidget(self.groups)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.banner)
        layout.addWidget(self.scroll)  # as tall as the forms, or scrolling when the monitor needs the room
        layout.addWidget(self.monitor, 1)  # the rest: what the machine is doing now

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Devices on this machine"))
        self.refresh_button.setText(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Probe the GPU and CPU again"))
        self.show_report(self.services.devices.report)

    def _probing(self, probing: bool) -> None:
        self.refresh_button.setEnabled(not probing)
        if probing and self.services.devices.report is None:
            self.banner.setText(self.tr("Checking devices…"))

    def show_report(self, report: DeviceReport | None) -> None:
        if report is None:
            self.banner.setText(self.tr("Checking devices…"))
            return
        self._show_banner(report.cuda)
        self._clear_groups()
        for title, rows in self._sections(report):
            group = form_group(title, rows)
            self.groups_layout.addWidget(group, 1, Qt.AlignmentFlag.AlignTop)
            group.show()  # now, not at the next event loop turn: the arrangement counts it
        self._arrange_groups()
        self.set_provenance("measured")

    def _arrange_groups(self) -> None:
        """The forms side by side when they fit the width (a wide screen), else one under another;
        the scroll area as tall as they are at most, so the monitor below gets the rest of the height."""
        widgets = layout_widgets(self.groups_layout)  # not itemAt: see layout_parts
        spacing = self.groups_layout.spacing()
        wanted = sum(w.sizeHint().width() + spacing for w in widgets)
        beside = bool(widgets) and wanted <= self.scroll.viewport().width()
        self.groups_layout.setDirection(
            QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom
        )
        content = self.groups_layout.sizeHint().height() + 2 * self.scroll.frameWidth()
        layout = self.layout()
        margins = layout.contentsMargins()
        banner = self.banner.heightForWidth(self.width() - margins.left() - margins.right())  # wrapped
        others = (self.refresh_button.sizeHint().height(), banner, self.monitor.minimumSizeHint().height())
        # The room under the window's view of the page, not under the page: a page grown past the
        # view would keep its height.
        room = self.shown_size().height() - sum(others) - 3 * layout.spacing() - margins.top() - margins.bottom()
        self.scroll.setMinimumHeight(max(0, min(content, room)))
        self.scroll.setMaximumHeight(content)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange_groups()

    def view_resized(self) -> None:
        self._arrange_groups()

    def _show_banner(self, cuda: CudaStatus) -> None:
        self.banner.setProperty("available", "true" if cuda.available else "false")
        self.banner.style().unpolish(self.banner)
        self.banner.style().polish(self.banner)
        if cuda.available:
            head = self.tr("GPU ready: %1 CUDA device(s).").replace("%1", str(len(cuda.devices)))
        else:
            head = self.tr("No usable GPU: %1.").replace("%1", short_reason(cuda))
        self.banner.setText(f"<b>{head}</b><br>{_escape(i18n.device_reason(cuda))}")

    def _sections(self, report: DeviceReport) -> list[tuple[str, Rows]]:
        gpus = [(f"GPU {gpu.index}: {gpu.name}", gpu_rows(gpu)) for gpu in report.cuda.devices]
        return [
            *gpus,
            (self.tr("CUDA software"), cuda_rows(report.cuda)),
            (self.tr("CPU"), cpu_rows(report.cpu)),
        ]

    def _clear_groups(self) -> None:
        while self.groups_layout.count():
            item = self.groups_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
