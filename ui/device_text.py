"""The words for this machine's devices that the window shows before any panel is built:
the status bar's one line (:func:`device_summary`) and the reason CUDA is or is not usable.

Kept apart from the devices panel so that the main window's first paint does not import the
panel, its monitor strip and their libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from gpulab.devices import CudaStatus, DeviceReport

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls


def short_reason(cuda: CudaStatus) -> str:
    """A few translated words for why CUDA is (not) usable, from the reason code."""
    reasons = {
        "ok": translate("DevicesPanel", "GPU ready"),
        "no-cupy": translate("DevicesPanel", "CuPy is not installed"),
        "cupy-broken": translate("DevicesPanel", "CuPy is installed but broken"),
        "no-driver": translate("DevicesPanel", "no NVIDIA driver"),
        "old-driver": translate("DevicesPanel", "the NVIDIA driver is too old"),
        "no-device": translate("DevicesPanel", "no CUDA device found"),
    }
    return reasons.get(cuda.reason_code, translate("DevicesPanel", "CUDA could not start"))


def device_summary(report: DeviceReport | None) -> str:
    """One line for the status bar: the GPU's name, or 'CPU only — <reason>'."""
    if report is None:
        return translate("DevicesPanel", "Checking devices…")
    cuda = report.cuda
    if cuda.available and cuda.devices:
        names = ", ".join(gpu.name for gpu in cuda.devices)
        return translate("DevicesPanel", "GPU: %1").replace("%1", names)
    text = translate("DevicesPanel", "CPU only — %1")
    return text.replace("%1", short_reason(cuda))
