"""Help → About: the versions of everything gpulab runs on, for bug reports and lab notes."""

from __future__ import annotations

import importlib.metadata
import platform

import numpy
import pyqtgraph
import PySide6
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

import gpulab
from gpulab.devices import DeviceReport


def cupy_version() -> str | None:
    """The installed CuPy wheel's version, found without importing CuPy (which is slow)."""
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name == "cupy" or name.startswith("cupy-cuda"):
            return f"{dist.version} ({name})"
    return None


def versions(report: DeviceReport | None, not_installed: str, missing: str) -> list[tuple[str, str]]:
    """(component, version) rows; ``missing`` stands for a version nobody could tell."""
    cuda = report.cuda if report else None
    return [
        ("gpulab", gpulab.__version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
        ("pyqtgraph", pyqtgraph.__version__),
        ("superqt", importlib.metadata.version("superqt")),  # its package would import all its widgets
        ("numpy", numpy.__version__),
        ("CuPy", cupy_version() or not_installed),
        ("CUDA runtime", (cuda.cuda_runtime_version if cuda else None) or missing),
        ("CUDA driver", (cuda.cuda_driver_version if cuda else None) or missing),
    ]


class AboutDialog(QDialog):
    def __init__(self, report: DeviceReport | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About gpulab"))
        intro = QLabel(
            self.tr(
                "gpulab shows, with real measurements, where a GPU's time goes. "
                "Every number is labelled measured, emulated, modelled or replayed."
            )
        )
        intro.setWordWrap(True)
        form = QFormLayout()
        for name, version in versions(report, self.tr("not installed"), self.tr("not available")):
            form.addRow(name + ":", QLabel(version))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
