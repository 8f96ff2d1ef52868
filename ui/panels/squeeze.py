"""The squeeze lab: one training step, a stacked bar per configuration from the baseline to all on.

Right of the form: one horizontal bar per configuration, stacked from its parts (data wait, H2D,
compute, launch gaps, idle), its name and GPU utilisation on the left axis; under it the colours'
key, the verdict on the explainer's claim in words, what the trace doctor finds gone bar by bar
(:mod:`ui.panels.squeeze_doctor`, run on a worker thread after each run), and the notes. The
switches are the form's checkboxes. "Export trace…" writes the configurations' steps as a Chrome trace, which opens in
the trace doctor and in Perfetto.
"""

from __future__ import annotations

import json
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from gpulab.catalogue import Message, Note, msg
from gpulab.results import Point, Result
from ui import i18n
from ui.jobs import Job
from ui.panels import squeeze_doctor
from ui.panels.lab_panel import LabPanel
from ui.widgets.flow_layout import FlowBox, WrapLabel

VERDICT_KEYS = ("squeeze.verdict.", "squeeze.why.")
PARTS = ("data_wait", "h2d", "compute", "launch_gaps", "idle")
PART_COLOURS = {"data_wait": "#d95f02", "h2d": "#7570b3", "compute": "#1b9e77", "launch_gaps": "#e7298a",
                "idle": "#9e9e9e"}  # fmt: skip


class Bar:
    """One configuration as drawn: its name (a Note carrying its label) and point."""

    def __init__(self, name: Any, point: Point) -> None:
        self.name, self.point = name, point

    def title(self) -> str:
        return i18n.engine_message(self.name)

    def parts_ms(self) -> dict[str, float]:
        parts = self.point.extra.get("parts") or {}
        return {part: float(parts.get(part, 0.0)) * 1e3 for part in PARTS}


class SqueezePanel(LabPanel):
    """Squeeze a training step: stacked time bars, utilisation, the verdict, and the trace export."""

    EXPERIMENT = "squeeze"
    FORM_FIELDS = ("prefetch", "fusion", "mixed_precision", "cuda_graphs", "shape", "precision", "loader_workers",
                   "model_gpu")  # fmt: skip

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.bars: list[Bar] = []
        self.chart = pg.PlotWidget()
        self.chart.setMenuEnabled(False)
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.hideButtons()
        self.chart.showGrid(x=True, y=False, alpha=0.3)
        # One bar item per part, made once; each run only changes their data.
        self.stacks = {part: pg.BarGraphItem(x0=[], y=[], height=0.35, width=[], brush=PART_COLOURS[part],
                                             pen=pg.mkPen(None)) for part in PARTS}  # fmt: skip
        for item in self.stacks.values():
            self.chart.addItem(item)
        self.chart.getAxis("left").setStyle(showValues=False)  # each bar is named above it instead
        self.labels: list[pg.TextItem] = []
        # The colours' key: the unit and one label per part, each whole on its row (a wrapping
        # label broke a part's name, "计算", across two lines); the rows wrap between the parts.
        self.key = FlowBox(spacing=10, row_spacing=0)
        self.key_unit = QLabel()
        self.key_parts = {part: QLabel() for part in PARTS}
        for label in self.key_parts.values():
            label.setTextFormat(Qt.TextFormat.RichText)
        self.key.add(self.key_unit, *self.key_parts.values())
        self.verdict = WrapLabel(min_lines=2)  # the page's answer: whole unless a short page has no room
        self.verdict.setObjectName("squeezeVerdict")
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.doctor = WrapLabel(min_lines=0)
        self.doctor.setObjectName("squeezeDoctor")
        self.doctor.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.changes: list[squeeze_doctor.Change] = []
        self.diagnosing: Result | None = None  # the result whose steps the doctor is reading, if any
        self.trace_button = QPushButton()
        self.trace_button.setEnabled(False)
        self.trace_button.clicked.connect(self.export_trace_dialog)

    def make_view(self) -> QWidget:
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)  # the tick labels and the lines' own leading part them; a projector page needs every pixel
        column.addWidget(self.chart, 1)
        column.addWidget(self.key)
        column.addWidget(self.verdict)
        column.addWidget(self.doctor)
        column.addWidget(self.notes)
        hidden = self.plot_column()  # the points are drawn as the stacked bars instead
        hidden.hide()
        column.addWidget(hidden)
        return view

    def pictures(self) -> list[QWidget]:
        return [self.chart]

    def _build_layout(self) -> None:
        super()._build_layout()
        self.description.hide()
        self.export_button.parentWidget().layout().addWidget(self.trace_button)

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        self.trace_button.setText(self.tr("Export trace…"))
        tip = self.tr("The steps as a Chrome trace: open it in the trace doctor or in Perfetto.")
        self.trace_button.setToolTip(tip)
        self._axis_label()
        names = {part: i18n.engine_message(msg(f"squeeze.part.{part.replace('_', '-')}")) for part in PARTS}
        for part, label in self.key_parts.items():
            label.setText(f'<span style="color:{PART_COLOURS[part]}">■</span>&nbsp;{names[part]}')
        self.key_unit.setText(self.tr("ms per step:"))
        self._show_changes()
        self._draw()

    # ------------------------------------------------------------ the run's life

    def forget_run(self) -> None:
        super().forget_run()
        self.bars = []
        self.verdict.setText("")
        self.changes, self.diagnosing = [], None
        self._show_changes()
        self.trace_button.setEnabled(False)
        self._draw()

    def run_experiment(self) -> Job | None:
        job = super().run_experiment()
        if job is not None:
            job.partial.connect(self._partial)
        return job

    def _partial(self, name: Any, point: Point) -> None:
        self.bars.append(Bar(name, point))
        self._draw()

    def decorate(self, result: Result) -> None:
        self.bars = [Bar(Note(s.label) if s.label is not None else s.name, p) for s in result.series
                     for p in s.points if p.extra.get("parts")]  # fmt: skip
        self._draw()
        verdict = [note for note in result.notes if note.message.key.startswith(VERDICT_KEYS)]
        self.verdict.setText(" ".join(i18n.engine_message(note) for note in verdict))
        self.trace_button.setEnabled(any(p.extra.get("trace") for s in result.series for p in s.points))
        self.fit_to_view()  # the verdict's lines are known only now: the doctor's room follows them
        self._diagnose(result)

    # ------------------------------------------------------------ the trace doctor, bar by bar

    def _diagnose(self, result: Result) -> None:
        """The doctor reads every configuration's step on a worker (tens of ms for a ladder)."""
        if self.diagnosing is result or not any(p.extra.get("trace") for s in result.series for p in s.points):
            return
        self.diagnosing, self.changes = result, []
        self._show_changes()

        def received(changes: list[squeeze_doctor.Change]) -> None:
            if self.diagnosing is result:  # not a run the page has since forgotten
                self.changes = changes
                self._show_changes()

        self.services.runner.run_task(lambda: squeeze_doctor.diagnose_result(result), received)

    def _show_changes(self) -> None:
        if not self.changes:
            self.doctor.setText("")
            self.doctor.setVisible(False)
            return
        changes = self.changes
        if self.is_short():  # a projector's large type: what each rung of the ladder removes, no more
            changes = [change for change in changes if change.before is not None and change.ladder]
        lines: list[Message] = [] if self.is_short() else [msg("squeeze.doctor.heading")]
        lines += [change.message() for change in changes]
        self.doctor.setText("\n".join(i18n.engine_message(line) for line in lines))
        self.doctor.setVisible(self._doctor_fits())

    def _show_notes(self, result: Result) -> None:
        """The notes less the verdict, which has its own box above them."""
        kept = [note for note in result.notes if not note.message.key.startswith(VERDICT_KEYS)]
        self.notes.setText("\n".join(i18n.engine_message(note) for note in kept))
        self.notes.setVisible(bool(kept))

    def fit_to_view(self) -> None:
        super().fit_to_view()
        short = self.is_short()
        if short:  # the bars before the notes
            self.notes.set_lines(1)
        # Cut short with '…' (whole on hover) to the lines the half page beside the chart leaves it:
        # one on a projector; at 1024x768 its dozen lines pushed Export off the page.
        self._fit_verdict()
        left = self.page_height() - self.page_height() // 2 - self.key.minimumHeight() - self.verdict.minimumHeight()
        room_px = left - self.notes.minimumHeight() - self.doctor.lines_height(1)  # a line spare: the rest re-wraps
        self.doctor_room_px = room_px
        lines = 1
        while not short and self.doctor.lines_height(lines + 1) <= room_px:
            lines += 1
        self.doctor.set_lines(0, None if self.whole_lines else lines)
        self._axis_label()
        self._show_changes()

    whole_lines = False  # presenter mode (a lesson sets it): the verdict whole, the doctor whole or not at all
    doctor_room_px = 0  # the height the doctor's lines may take, see fit_to_view

    def _doctor_fits(self) -> bool:
        """Presenter mode: the doctor's lines whole in the room the verdict leaves them, or not shown
        (a room sees no tooltips, and half a list of findings would read as the whole of it)."""
        needed_px = self.doctor.needed_height(self.doctor.contentsRect().width())
        return not self.whole_lines or needed_px <= self.doctor_room_px + self.doctor.lines_height(1)

    def _fit_verdict(self) -> None:
        """The verdict whole where the half page beside the chart has room for it; on a short page a
        long verdict (why the claim is only partly reproduced) is cut to the lines there are, the whole
        on hover, so the page never grows past the window."""
        room_px = (self.page_height() - self.page_height() // 2 - self.key.minimumHeight()
                   - self.notes.minimumHeight() - self.doctor.lines_height(1))
        lines = 2
        while self.verdict.lines_height(lines + 1) <= room_px:
            lines += 1
        whole = lines > 12 or self.whole_lines  # a tall page has room for any verdict; a room sees no tooltips
        self.verdict.set_lines(2, None if whole else lines)

    def _axis_label(self) -> None:
        """The time axis named under the chart, but on a short page the key's "ms per step" says it."""
        if self.is_short():
            self.chart.getAxis("bottom").showLabel(False)
        else:
            self.chart.setLabel("bottom", self.tr("time per step (ms)"))

    # ------------------------------------------------------------ the bars

    def bar_label(self, bar: Bar) -> str:
        utilisation = float(bar.point.extra.get("utilisation", 0.0))
        return self.tr("%1 (GPU %2%)").replace("%1", bar.title()).replace("%2", f"{utilisation * 100:.0f}")

    def _draw(self) -> None:
        count = len(self.bars)
        rows = list(range(count))[::-1]  # the baseline on top
        left = [0.0] * count
        for part in PARTS:
            widths = [bar.parts_ms()[part] for bar in self.bars]
            self.stacks[part].setOpts(x0=list(left), y=[row - 0.2 for row in rows], width=widths, height=0.35)
            left = [a + b for a, b in zip(left, widths, strict=True)]
        self._label_bars(rows)
        if count:
            self.chart.setXRange(0, max(left) * 1.05 or 1.0, padding=0)
            self.chart.setYRange(-0.45, count - 0.5, padding=0)

    def _label_bars(self, rows: list[int]) -> None:
        """Each bar's name and utilisation just above it, from the left edge."""
        for label in self.labels:
            self.chart.removeItem(label)
        colour = self.palette().color(self.foregroundRole())
        self.labels = [pg.TextItem(self.bar_label(bar), color=colour, anchor=(0, 0)) for bar in self.bars]
        for label, row in zip(self.labels, rows, strict=True):
            label.setPos(0, row + 0.5)
            self.chart.addItem(label)

    def stacked_ms(self) -> list[float]:
        """Each bar's total length in ms, in bar order (what is drawn)."""
        return [sum(bar.parts_ms().values()) for bar in self.bars]

    # ------------------------------------------------------------ export

    def export_view(self) -> QWidget:
        return self.chart

    def export_trace_dialog(self) -> None:
        path, _filter = QFileDialog.getSaveFileName(self, self.tr("Export trace"), "squeeze-trace.json", "*.json")
        if path:
            self.export_trace(path)

    def export_trace(self, path: str) -> bool:
        """Write the last result's steps as a Chrome trace to ``path``; a failure is told, not raised."""
        from gpulab.experiments import squeeze

        if self.last_result is None:
            return False
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(squeeze.chrome_trace(self.last_result), handle)
        except (OSError, ValueError) as exc:
            self.services.notifier.error(self.tr("The trace cannot be written: %1").replace("%1", str(exc)))
            return False
        return True
