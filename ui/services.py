"""What every panel may use: the notifier, the job runner and the device state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ui.jobs import JobRunner
from ui.notify import Notifier

if TYPE_CHECKING:
    from gpulab.devices import DeviceReport


def _probe_devices() -> DeviceReport:
    """This machine's device report (the device module is imported here, in the probe's worker,
    not before the window's first paint)."""
    from gpulab.devices import device_report

    return device_report()


class DeviceState(QObject):
    """The latest device report; ``refresh()`` probes again in a worker thread."""

    report_changed = Signal(object)  # DeviceReport
    probing_changed = Signal(bool)

    def __init__(self, runner: JobRunner, probe: Callable[[], DeviceReport] | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.probe = probe or _probe_devices
        self.report: DeviceReport | None = None
        self.probing = False

    def refresh(self) -> None:
        if self.probing:
            return
        self._set_probing(True)
        self.runner.run_task(self.probe, self._received, lambda _message: self._set_probing(False))

    def _received(self, report: DeviceReport) -> None:
        self.report = report
        self._set_probing(False)
        self.report_changed.emit(report)

    def _set_probing(self, probing: bool) -> None:
        self.probing = probing
        self.probing_changed.emit(probing)

    def device_keys(self) -> list[str]:
        """Queues a job may run on: the CPU, then every usable CUDA device."""
        cuda = self.report.cuda if self.report else None
        gpus = [f"cuda:{gpu.index}" for gpu in cuda.devices] if cuda and cuda.available else []
        return ["cpu", *gpus]


class Navigator(QObject):
    """Lets one panel send the user to another: a roofline point or an access-pattern case
    opens its kernel in the warp visualizer, the welcome page opens a lesson. The main window
    listens and switches panels."""

    kernel_requested = Signal(str, str)  # kernel entry, launch preset name ('' for the first)
    lab_requested = Signal(str)  # a lab's registry name: its page (a trace's finding names the lab that teaches it)
    lesson_requested = Signal(int, int)  # chapter number, 1-based page
    sm_view_requested = Signal(str)  # kernel entry: the latency page's SM view (latency hiding)

    def open_kernel(self, entry: str, preset: str = "") -> None:
        """Show kernel ``entry`` (at launch preset ``preset``) in the warp visualizer."""
        self.kernel_requested.emit(entry, preset)

    def open_lab(self, lab: str) -> None:
        """Show lab ``lab``'s page (the Run experiment page for a lab without its own)."""
        self.lab_requested.emit(lab)

    def open_lesson(self, chapter: int, page: int = 1) -> None:
        """Show page ``page`` (1-based) of lesson chapter ``chapter`` in the lesson viewer."""
        self.lesson_requested.emit(chapter, page)

    def open_sm_view(self, entry: str) -> None:
        """Show kernel ``entry``'s warps hiding memory latency on an SM (the latency page)."""
        self.sm_view_requested.emit(entry)


@dataclass
class Services:
    notifier: Notifier
    runner: JobRunner
    devices: DeviceState
    navigator: Navigator = field(default_factory=Navigator)

    @classmethod
    def create(cls, probe: Callable[[], DeviceReport] | None = None) -> Services:
        notifier = Notifier()
        runner = JobRunner(notifier)
        return cls(notifier, runner, DeviceState(runner, probe))
