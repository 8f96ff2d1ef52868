"""The Trace doctor page beside a lesson: the window's own page, opening its lab's sample trace.

A lesson page with ``lab = "trace-doctor"`` and ``panel = "trace"`` shows the real Trace doctor
page (:class:`~ui.panels.trace.TracePanel`). It has no form and no Run of a lab: this adapter gives
it what the lesson's lab host asks of a lab page. The page's preset (which sample, which profiler
step) is taken in; Run opens the sample through the page's own Open trace… (read and judged on the
job queue, as a person's own file is) and then picks the step in the page's own Step list; the
run's end is said, and its result is the lab's (:func:`gpulab.experiments.trace_doctor.result_of`,
what ``gpulab run trace-doctor`` returns for the same preset), from which the big number is read.
Presenter mode folds Open trace… away and shows the page's lines whole.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLayout, QVBoxLayout, QWidget

from gpulab.results import Result
from ui import i18n
from ui.panels.base import Panel
from ui.panels.trace import TracePanel
from ui.widgets.layout_parts import part_at

# The page's own cut of its lines (whole in presenter mode): at most this many lines, the rest on hover
WRAPPED_LINES = {"status": 2, "about": 3, "window_label": 2}


class TraceLessonLab(Panel):
    """The Trace doctor page with a lab's Run: ``take_preset(params)``, ``run_preset(params)``,
    ``run_ended(state)``, ``last_result``."""

    run_ended = Signal(str)  # "done", "failed" or "cancelled", as a lab page's run controls say it

    def __init__(self, trace: TracePanel, parent: QWidget | None = None) -> None:
        super().__init__(trace.services, parent)
        self.trace = trace
        self.params: Any = None
        self.last_result: Result | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(trace)
        self._compact()

    def _compact(self) -> None:
        """Beside a lesson: the badge on the Step row (the page's heading is the lesson's), no line
        about the file (the lesson's text says what the sample is and how it was made), and no empty
        Step and Rank lists before the sample is read (they would make the lab too wide for its column)."""
        trace = self.trace
        top, controls = part_at(trace.layout(), 0), part_at(trace.layout(), 1)  # not itemAt: see layout_parts
        assert isinstance(top, QLayout) and isinstance(controls, QLayout)
        top.removeWidget(trace.badge)
        controls.addWidget(trace.badge)
        trace.about.hide()
        for widget in (trace.step_label, trace.step_combo, trace.rank_label, trace.rank_combo):
            widget.hide()  # empty lists until the sample is read (then the page shows the ones with a choice)

    @property
    def job(self) -> Any:
        return self.trace.job

    def take_preset(self, params: Any) -> None:
        """The page's preset (or its try-this change): read when Run opens the sample."""
        self.params = params

    def run_preset(self, params: Any) -> None:
        """Open the preset's sample on the page's own Open trace…; its step is chosen once it is read."""
        from gpulab.experiments import trace_doctor

        self.params = params
        job = self.trace.open_trace(str(trace_doctor.sample_path(params)))
        if job is None:
            return
        self.last_result = None
        job.finished.connect(lambda _opened: self._opened())  # after the page has shown what it read
        job.failed.connect(lambda _exc: self.run_ended.emit("failed"))
        job.cancelled.connect(lambda: self.run_ended.emit("cancelled"))

    def _opened(self) -> None:
        from gpulab.experiments import trace_doctor

        combo, step = self.trace.step_combo, self.params.step
        index = 0 if not step else combo.findData(step)
        if self.trace.whole is None or index < 0:  # unreadable, or a step the sample does not have
            if index < 0:
                self.services.notifier.error(self.tr("The sample trace has no profiler step %1.").replace(
                    "%1", str(step)))  # fmt: skip
            self.run_ended.emit("failed")
            return
        combo.setCurrentIndex(index)  # the page judges that step, as a person's choice in the list would
        self._split()  # the window's words over the timeline are known only now
        self.last_result = trace_doctor.result_of(self.trace.diagnosis, self.params)
        self.run_ended.emit("done")

    # ------------------------------------------------------------ the split

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._split()

    def _split(self) -> None:
        """The shares and findings under the timeline, which keeps half the lesson's page: beside it,
        in a lesson's three fifths of the window, they left the timeline a third of the width, wrapped
        each finding a few words a line, and (at 1920x1080) cut the shares' bar under their key."""
        trace, splitter = self.trace, self.trace.splitter
        splitter.setOrientation(Qt.Orientation.Vertical)
        trace._split_by_user = True  # the page's own split shares the width: this one is the lesson's
        trace.chart.setMinimumHeight(self.page_height() // 2)  # never less, whatever the words above it take
        picture_px = trace.picture.minimumSizeHint().height()
        splitter.setSizes([picture_px, max(1, splitter.height() - picture_px)])

    def page_height(self) -> int:
        """The lesson's page height (its host sets this), of which the timeline gets half."""
        return self.height()

    # ------------------------------------------------------------ what the lesson's host asks of a lab page

    def pictures(self) -> list[QWidget]:
        return self.trace.pictures()

    def folded_settings(self) -> list[QWidget]:
        """Folded away with the settings (presenter mode): Open trace…, which the page's Run presses
        for the sample. The Step list stays: it says which step is judged."""
        return [self.trace.open_button]

    whole_lines = False  # presenter mode: the page's lines whole (a room sees no tooltips)

    def fit_to_view(self) -> None:
        for name, lines in WRAPPED_LINES.items():
            label = getattr(self.trace, name)
            label.set_lines(label.min_lines, None if self.whole_lines else lines)

    def show_result(self, result: Result) -> None:
        """A recorded run replayed: its saved diagnosis, as the page opens one."""
        self.last_result = result
        self.trace.show_result(result, i18n.localized("recording", "录制"))

    def shutdown(self) -> None:
        self.trace.shutdown()
