"""The Trace doctor page: ``gpulab trace`` in the window. Where did the GPU's time go, and why?

Open trace… reads a PyTorch Profiler / Kineto trace (.json, .json.gz), an Nsight Systems SQLite
export or a saved lab result with timelines on the job queue (a large trace takes seconds, never
on this thread) and diagnoses it there; several files (one per rank of a distributed run) are read
as one run, a rank each. A file it cannot read is said in one line, Cancel stops a reading, and
either way the trace shown before stays (:mod:`ui.panels.trace_open`). The page shows the
timeline of the chosen rank and profiler step (zoomable: only the window on screen is fetched from
the trace, its longest operations when there are too many to draw; lanes by their short names
with a key when their whole names would be cut), the shares of each rank as stacked bars, and the
findings in words with their evidence and a button to the lab that teaches each. A saved
``gpulab trace --json`` diagnosis opens here as replayed (File → Open result… sends it here too);
Export… writes the diagnosis as the same result, or the timeline as a picture.
"""

from __future__ import annotations

import heapq
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from ui import i18n
from ui.jobs import Job
from ui.panels.base import Panel
from ui.panels.trace_findings import FindingsList
from ui.panels.trace_open import Opened, TraceOpener, file_names
from ui.panels.trace_view import (
    SharesBars,
    TraceTimeline,
    percent,
    rank_title,
    segment_title,
    segments_of,
    short_name,
)
from ui.services import Services
from ui.widgets.badge import ProvenanceBadge
from ui.widgets.eliding_combo import ElidingComboBox
from ui.widgets.export import ExportButton, caption_of, export_picture, save_export
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.timeline import time_text

if TYPE_CHECKING:
    from gpulab.results import Result
    from gpulab.trace import Diagnosis, Event

MAX_RANKS_TOGETHER = 4  # more ranks than this: the timeline starts on the first rank alone
MAX_OPS = 2000  # operations drawn at once (3000 took a third of a second to paint); zoom in for the rest
SPLIT = 0.58  # of the width, for the timeline  # operations drawn at once; more are fetched only by zooming in
FORMAT_NAMES = {"kineto": "PyTorch Profiler / Kineto JSON", "nsys": "Nsight Systems SQLite", "gpulab": "gpulab"}


def _format_name(fmt: str) -> str:
    """A trace format's name; several files of different formats: each ("kineto+nsys")."""
    return " + ".join(FORMAT_NAMES.get(part, part) for part in fmt.split("+"))


class TracePanel(Panel):
    """Open trace… / step / rank / Export…, the timeline, the shares and the findings."""

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(services, parent)
        self.whole: Diagnosis | None = None  # the whole trace's diagnosis (steps are cut from it)
        self.diagnosis: Diagnosis | None = None  # what is shown: the whole trace or one step
        self.summary: dict[str, Any] = {}  # the shown diagnosis as `gpulab trace --json` writes it
        self.last_result: Result | None = None
        self.path = ""  # the file shown
        self.replayed = False
        self._events: dict[int | None, list[Event]] = {}  # the chosen rank's events, by rank
        self._window_ns = (0, 0)  # the selection (a step, or the whole trace) on the trace's clock
        self._drawn = (0, 0)  # operations drawn, operations in view
        self._make_widgets()
        self._make_layout()
        self.retranslate()

    def _make_widgets(self) -> None:
        self.heading = QLabel()
        self.heading.setObjectName("panelHeading")
        self.heading.setWordWrap(True)
        self.badge = ProvenanceBadge()
        self.opener = TraceOpener(self.services, self)
        self.opener.has_trace = lambda: bool(self.summary)
        self.opener.opened.connect(self._opened)
        self.open_button, self.cancel_button = self.opener.open_button, self.opener.cancel_button
        self.busy, self.status = self.opener.busy, self.opener.status
        self.step_label, self.step_combo = QLabel(), QComboBox()
        self.rank_label, self.rank_combo = QLabel(), ElidingComboBox()
        # a lab's configuration names a GPU: the box shows it elided, the open list whole
        self.rank_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.rank_combo.setMinimumContentsLength(14)
        self.step_combo.currentIndexChanged.connect(lambda _i: self._step_chosen())
        self.rank_combo.currentIndexChanged.connect(lambda _i: self._rank_chosen())
        self.export_button = ExportButton()
        self.export_button.setEnabled(False)
        self.export_button.export_requested.connect(self.export)
        self.about = WrapLabel(min_lines=1, max_lines=3)  # the file, its format, its ranks, its provenance
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.window_label = WrapLabel(max_lines=2)
        self.chart = TraceTimeline()
        self.chart.view_changed.connect(lambda _a, _b: self._draw())
        self.chart.hovered.connect(self.chart.setToolTip)
        self.shares = SharesBars()
        self.findings = FindingsList()
        self.findings.lab_requested.connect(self.services.navigator.open_lab)
        self.findings.empty_text = lambda: self.tr("No findings: nothing here crosses a threshold.") if \
            self.summary else ""  # fmt: skip

    def _make_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        controls = QHBoxLayout()
        for widget in (self.open_button, self.cancel_button, self.step_label, self.step_combo, self.rank_label,
                       self.rank_combo):  # fmt: skip
            controls.addWidget(widget)
        controls.addStretch(1)
        controls.addWidget(self.export_button)
        self.picture = QWidget()  # what Export… draws: the window's words over the timeline
        left = QVBoxLayout(self.picture)
        left.setContentsMargins(0, 0, 0, 0)
        left.addWidget(self.window_label)
        left.addWidget(self.chart, 1)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.shares)
        column.addWidget(self.findings, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.picture)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self._split_by_user = False  # once the user drags the splitter, its split is theirs
        self.splitter.splitterMoved.connect(lambda *_args: setattr(self, "_split_by_user", True))
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(controls)
        layout.addWidget(self.busy)
        layout.addWidget(self.status)
        layout.addWidget(self.about)
        layout.addWidget(self.splitter, 1)

    def view_resized(self) -> None:
        self._split()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._split()

    def _split(self) -> None:
        """The timeline three fifths of the width, the shares and findings the rest (the splitter
        would otherwise share by its parts' size hints: long findings took the timeline's room)."""
        if not self._split_by_user:
            width = max(self.splitter.width(), self.shown_size().width())
            self.splitter.setSizes([round(width * SPLIT), round(width * (1 - SPLIT))])

    def pictures(self) -> list[QWidget]:
        return [self.chart]

    def page_height(self) -> int:
        return self.shown_size().height()

    def export_view(self) -> QWidget:
        return self.picture

    # ------------------------------------------------------------ opening

    @property
    def job(self) -> Job | None:
        return self.opener.job

    def open_trace(self, paths: list[str] | str | None = None) -> Job | None:
        """Read ``paths`` (or the files the dialog names: one per rank of a run) on the job queue;
        the page shows them when all are read and diagnosed."""
        return self.opener.open(paths)

    def _opened(self, opened: Opened) -> None:
        if opened.result is not None:
            self.show_result(opened.result, opened.paths[0])
        elif opened.diagnosis is not None:
            self.show_diagnosis(opened.diagnosis, ", ".join(opened.paths))

    # ------------------------------------------------------------ what is shown

    def show_diagnosis(self, diagnosis: Diagnosis, path: str = "") -> None:
        """A trace's diagnosis, whole (the step and rank selectors reset)."""
        self.whole = self.diagnosis = diagnosis
        self.path, self.replayed = path or diagnosis.trace.source, False
        self._events = {}
        trace = diagnosis.trace
        self.chart.rank_codes = {trace.rank_name(rank): f"R{rank}" for rank in trace.ranks}
        self.shares.codes = self.chart.rank_codes
        self._fill_combo(self.step_combo, [(self.tr("whole trace"), None)] + [
            (self.tr("step %1").replace("%1", str(n)), n) for n in sorted({s.number for s in trace.steps()})])
        self._fill_combo(self.rank_combo, [(self.tr("all ranks"), None)] + [(self._rank_item(r), r)
                                                                              for r in diagnosis.ranks])  # fmt: skip
        if len(diagnosis.ranks) > MAX_RANKS_TOGETHER:  # a cluster's every stream at once is no picture
            self.rank_combo.blockSignals(True)
            self.rank_combo.setCurrentIndex(1)
            self.rank_combo.blockSignals(False)
        self._show_diagnosis()

    def show_result(self, result: Result, path: str = "") -> None:
        """A saved ``gpulab trace --json`` diagnosis, replayed: its shares and findings (a saved
        diagnosis holds no events, so no timeline: open the trace itself for that)."""
        self.whole = self.diagnosis = None
        self.path, self.replayed = path or str(result.params.get("file", "")), True
        self.summary = dict(result.params.get("summary") or {})
        self.last_result = result
        self._events = {}
        self._fill_combo(self.step_combo, [])
        self._fill_combo(self.rank_combo, [])
        self.chart.set_bounds(0.0)
        self.chart.set_ops(())
        self._show_all()

    def _fill_combo(self, combo: QComboBox, items: list[tuple[str, int | None]]) -> None:
        combo.blockSignals(True)
        combo.clear()
        for text, data in items:
            combo.addItem(text, data)
        combo.blockSignals(False)
        shown = len(items) > 2  # "all" and one choice is no choice
        combo.setVisible(shown)
        (self.step_label if combo is self.step_combo else self.rank_label).setVisible(shown)

    def _step_chosen(self) -> None:
        from gpulab.trace import for_step

        if self.whole is not None:
            self.diagnosis = for_step(self.whole, self.step_combo.currentData())
            self._show_diagnosis()

    def _rank_chosen(self) -> None:
        if self.diagnosis is not None:
            self._select_window()
            self._show_all()

    def _show_diagnosis(self) -> None:
        from gpulab.trace import summary, to_result

        assert self.diagnosis is not None
        self.summary = summary(self.diagnosis)
        self.last_result = to_result(self.diagnosis)
        self._select_window()
        self._show_all()

    def _show_all(self) -> None:
        kind = "replayed" if self.replayed else self._kind()
        self.set_provenance(kind)
        self.export_button.setEnabled(self.last_result is not None)
        self.findings.set_findings(self.summary.get("findings", ()), lambda rank: short_name(self._rank_name(rank)))
        self._show_texts()

    def _kind(self) -> str:
        return self.diagnosis.trace.provenance if self.diagnosis is not None else ""

    def set_provenance(self, kind: str) -> None:
        super().set_provenance(kind)
        self.badge.set_kind(kind)

    def _rank_name(self, rank: int) -> str:
        return rank_title(str((self.summary.get("rank_names") or {}).get(str(rank), f"rank {rank}")))

    def _rank_item(self, rank: int) -> str:
        """A rank in the rank list: its name, and its file when several files were read as one."""
        assert self.diagnosis is not None
        trace = self.diagnosis.trace
        return rank_title(trace.rank_name(rank)) + (f" ({Path(trace.rank_files[rank]).name})"
                                                    if rank in trace.rank_files else "")  # fmt: skip

    # ------------------------------------------------------------ the timeline

    def _select_window(self) -> None:
        """The chosen step (or the whole trace) of the chosen rank (or all): the chart's whole range."""
        from gpulab.trace import step_window

        assert self.diagnosis is not None
        trace, rank, step = self.diagnosis.trace, self.rank_combo.currentData(), self.diagnosis.step
        if rank not in self._events:
            self._events = {rank: [e for e in trace.events if rank is None or e.rank == rank]}
        events = self._events[rank]
        window = step_window(trace, step, rank) or step_window(trace, step) if step is not None else None
        if window is None:
            window = (min((e.start_ns for e in events), default=0), max((e.end_ns for e in events), default=0))
        self._window_ns = window
        self.chart.set_bounds((window[1] - window[0]) / 1e9)
        self._draw()

    def _draw(self) -> None:
        """The operations in the chart's view, at most MAX_OPS of them (the longest)."""
        from gpulab.trace import Trace, timeline_ops

        if self.diagnosis is None:
            return
        trace = self.diagnosis.trace
        lo = self._window_ns[0] + round(self.chart.view_s[0] * 1e9)
        hi = self._window_ns[0] + round(self.chart.view_s[1] * 1e9)
        inside = [e for e in self._events.get(self.rank_combo.currentData(), []) if e.end_ns >= lo and e.start_ns <= hi]
        chosen = inside if len(inside) <= MAX_OPS else heapq.nlargest(MAX_OPS, inside, key=lambda e: e.dur_ns)
        shown = Trace(trace.source, trace.format, chosen, trace.rank_names)
        ops = timeline_ops(shown, None, (lo, hi), origin_ns=lo)
        self._drawn = (len(chosen), len(inside))
        self.chart.set_ops(ops, self._kind(), span_s=max(hi - lo, 1) / 1e9)
        self._show_window_text()

    # ------------------------------------------------------------ texts

    def _show_texts(self) -> None:
        self.about.setText(self._about_text())
        self.about.setToolTip(self.path)
        rows = [(self.tr("all ranks"), self.summary["overall"])] if len(self.summary.get("ranks", {})) > 1 else []
        rows += [(self._rank_name(int(r)), figures) for r, figures in self.summary.get("ranks", {}).items()]
        chosen = self.rank_combo.currentData()
        self.shares.set_rows(rows if self.summary else [], self._rank_name(chosen) if chosen is not None else "")
        for card in self.findings.cards:  # a rank's name, in the new language too
            card.where = short_name(self._rank_name(int(card.finding.get("rank", 0))))
        self.findings.retranslate()
        self._show_window_text()

    def _about_text(self) -> str:
        if not self.summary:
            return self.tr("Open a PyTorch Profiler trace (.json, .json.gz), an Nsight Systems SQLite export or a "
                           "saved lab result: this page shows where each GPU's time went, why it sat idle, and "
                           "which lab teaches the fix.")  # fmt: skip
        if self.replayed:
            params = self.last_result.params if self.last_result is not None else {}
            files = params.get("files") or [params.get("file", "?")]
            return (self.tr("Replayed from %1: the diagnosis of %2 (%3) saved with gpulab trace --json, shown as "
                            "saved. It holds no events: open the trace itself to see its timeline.")
                    .replace("%1", Path(self.path).name).replace("%2", file_names([str(f) for f in files]))
                    .replace("%3", _format_name(str(params.get("format", "?")))))  # fmt: skip
        assert self.diagnosis is not None
        trace = self.diagnosis.trace
        ranks, steps = str(len(self.diagnosis.ranks)), str(len({s.number for s in trace.steps()}))
        if trace.provenance == "modelled" and trace.format == "gpulab":
            text = self.tr("Modelled: %1 is a modelled run of a gpulab lab (its times computed from a spec sheet, "
                           "not measured); its %3 configurations are shown as ranks.")  # fmt: skip
        elif trace.provenance == "modelled":  # a lab's modelled run written as a profiler trace (squeeze)
            text = self.tr("Modelled: %1 (%2) is a gpulab lab's modelled run written as a profiler trace (its GPU "
                           "times computed from a spec sheet, not measured): %3 ranks, %4 profiler steps.")
        elif len(trace.files) > 1:  # the files are named once, each with its rank
            text = self.tr("Measured by the profiler that wrote these %6 files (%2), read as one run of %3 ranks: "
                           "%5; %4 profiler steps.")  # fmt: skip
        else:
            text = self.tr("Measured by the profiler that wrote %1 (%2): %3 ranks, %4 profiler steps.")
        return (text.replace("%1", file_names(trace.files)).replace("%2", _format_name(trace.format))
                .replace("%3", ranks).replace("%4", steps).replace("%5", self._rank_files_text())
                .replace("%6", str(len(trace.files))))  # fmt: skip

    def _rank_files_text(self) -> str:
        """Which file each rank came from ("rank 0: a.json, rank 1: b.json"), the first few."""
        assert self.diagnosis is not None
        trace = self.diagnosis.trace
        pairs = [f"{short_name(self._rank_name(r))}: {Path(trace.rank_files[r]).name}" for r in self.diagnosis.ranks
                 if r in trace.rank_files]  # fmt: skip
        shown = pairs[:MAX_RANKS_TOGETHER] + (["…"] if len(pairs) > MAX_RANKS_TOGETHER else [])
        return i18n.localized(", ", "，").join(shown)

    def _show_window_text(self) -> None:
        if self.diagnosis is None:
            self.window_label.setText("")
            self.chart.set_empty_text(self.tr("Open a trace: its timeline appears here.") if not self.replayed else
                                      self.tr("A saved diagnosis holds no timeline: open the trace file itself."))
            return
        a, b = self.chart.view_s
        step = self.diagnosis.step
        where = self.tr("step %1").replace("%1", str(step)) if step is not None else self.tr("the whole trace")
        text = self.tr("%1 to %2 of %3. Wheel: zoom; drag: move; double-click: all of it.")
        text = text.replace("%1", time_text(a, b - a)).replace("%2", time_text(b, b - a)).replace("%3", where)
        drawn, inside = self._drawn
        if drawn < inside:
            text += " " + self.tr("Drawn: the %1 longest of %2 operations here; zoom in to see the rest.")\
                .replace("%1", str(drawn)).replace("%2", str(inside))  # fmt: skip
        self.window_label.setText(text)
        self.chart.set_empty_text(self.tr("Nothing ran in this window."))

    def shares_text(self) -> str:
        """The overall shares in words (the exported picture's subtitle)."""
        overall = self.summary.get("overall")
        if not overall:
            return ""
        parts = [f"{segment_title(key)} {percent(share)}" for key, share in segments_of(overall) if share > 0]
        return i18n.localized(", ", "，").join(parts)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Trace doctor: where did the GPU's time go?"))
        self.step_label.setText(self.tr("Step:"))
        self.rank_label.setText(self.tr("Rank:"))
        for combo in (self.step_combo, self.rank_combo):
            if combo.count() and combo.itemData(0) is None:
                combo.setItemText(0, self.tr("whole trace") if combo is self.step_combo else self.tr("all ranks"))
        for index in range(1, self.step_combo.count()):
            self.step_combo.setItemText(index, self.tr("step %1").replace("%1", str(self.step_combo.itemData(index))))
        for index in range(1, self.rank_combo.count() if self.diagnosis is not None else 0):
            self.rank_combo.setItemText(index, self._rank_item(self.rank_combo.itemData(index)))
        self._show_texts()
        self.opener.retranslate()

    # ------------------------------------------------------------ export

    def export_title(self) -> str:
        return self.heading.text()

    def export(self, fmt: str, path: str) -> list[str]:
        """The timeline as a picture (png, svg) or the diagnosis as the `gpulab trace --json` result (csv, json)."""

        def pictures() -> list[Path]:
            subtitle = " ".join(t for t in (self.about.text(), self.shares_text(), self.window_label.text()) if t)
            return [export_picture(self.picture, caption_of(self.export_title(), self.last_result, None, subtitle),
                                   path, fmt)]  # fmt: skip

        return save_export(self.services.notifier, self.last_result, fmt, path, pictures,
                           self.tr("Open a trace first: there is nothing to export."))  # fmt: skip

    def shutdown(self) -> None:
        self.opener.shutdown()
