"""The streams lab: one job in chunks, run four ways, each drawn as a timeline with its diagnosis.

Right of the form: a table of the configurations (total time, speedup over one stream; click a
row to see it), the chosen configuration's timeline (rows per stream or per engine, one time
scale for all configurations of a kind so the shorter ones visibly shrink), and the diagnosis
line under it: why copies and kernels overlap, or what stops them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpulab.catalogue import Message, Note, from_json
from gpulab.measure import is_clean
from gpulab.results import Point, Result
from gpulab.timeline import TimelineOp, ops_of
from ui import i18n
from ui.jobs import Job
from ui.panels.lab_panel import LabPanel
from ui.theme import BOX_COLOURS, current_theme
from ui.widgets.export import Caption
from ui.widgets.flow_layout import WrapLabel
from ui.widgets.timeline import TimelineChart, time_text


class Entry:
    """One configuration in the table: its display name (a Note carrying its label), point, provenance
    kind (how it is drawn) and device."""

    def __init__(self, name: str, point: Point, kind: str, device: str = "") -> None:
        self.name, self.point, self.kind, self.device = name, point, kind, device

    @property
    def ops(self) -> tuple[TimelineOp, ...]:
        return ops_of(self.point.extra)

    @property
    def message(self) -> Message | None:
        return self.name.message if isinstance(self.name, Note) and self.name.message.key else None

    def title(self) -> str:
        """The configuration alone ("4 streams, pinned"): its group names the GPU and the kind."""
        message = self.message
        if message is not None and "config" in message.args:
            return i18n.engine_message(message.args["config"])
        return i18n.engine_message(self.name)

    def gpu(self) -> str:
        message = self.message
        return str(message.args.get("gpu", self.device)) if message is not None else self.device

    def diagnosis(self) -> list[Message]:
        return [from_json(line) for line in self.point.extra.get("diagnosis", ())]


def _drawn_kind(series_kind: str, details: Any) -> str:
    """How a series' timeline is drawn: a replayed result keeps the look of what it was (hatched if modelled)."""
    return str(details.get("original_kind", "measured")) if series_kind == "replayed" else series_kind


class StreamsPanel(LabPanel):
    """Stream overlap: the configuration table, the timeline chart and the diagnosis line."""

    EXPERIMENT = "streams"

    def _make_widgets(self) -> None:
        super()._make_widgets()
        self.entries: list[Entry] = []
        self._automatic: Entry | None = None  # the row chosen for the user, until they choose another
        self.rows_label = QLabel()
        self.rows_combo = QComboBox()
        self.rows_combo.addItem("", "lane")
        self.rows_combo.addItem("", "engine")
        self.rows_combo.currentIndexChanged.connect(lambda _i: self.chart.set_grouping(self.rows_combo.currentData()))
        self.table = QTreeWidget()
        self.table.setRootIsDecorated(False)
        self.table.setIndentation(self.fontMetrics().averageCharWidth() * 2)
        self.table.setColumnCount(3)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.header().setStretchLastSection(False)
        for column in (1, 2):
            self.table.header().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.currentItemChanged.connect(lambda *_items: self.show_chosen())
        self.chart = TimelineChart()
        self.chart.hovered.connect(self._hovered)
        self.diagnosis = WrapLabel(min_lines=2, max_lines=5)  # what ran together, then why
        self.diagnosis.setObjectName("diagnosisLine")
        self.diagnosis.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def make_view(self) -> QWidget:
        view = QWidget()
        column = QVBoxLayout(view)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table)
        column.addWidget(self.chart, 1)
        column.addWidget(self.diagnosis)
        column.addWidget(self.notes)
        hidden = self.plot_column()  # the points are drawn as the table and the timeline instead of a plot
        hidden.hide()
        column.addWidget(hidden)
        return view

    def pictures(self) -> list[QWidget]:
        return [self.chart]  # the timeline is this page's picture

    def _build_layout(self) -> None:
        super()._build_layout()
        self.description.hide()  # the heading says it (its tooltip too): the form needs the room in projector type
        # How the timeline's rows are drawn, under the form: above the table it cost the timeline
        # a line of a 1024x768 projector screen.
        at = self.controls_column.indexOf(self.form) + 1
        self.controls_column.insertWidget(at, self.rows_label)
        self.controls_column.insertWidget(at + 1, self.rows_combo)

    def retranslate(self) -> None:
        super().retranslate()
        self.heading.setToolTip(self.description.text())
        self.rows_label.setText(self.tr("Rows:"))
        self.rows_combo.setItemText(0, self.tr("one per stream"))
        self.rows_combo.setItemText(1, self.tr("one per engine"))
        self.table.setHeaderLabels([self.tr("Configuration"), self.tr("Total"), self.tr("Speedup")])
        self.chart.set_empty_text(self.tr("Press Run: each configuration's timeline appears here."))
        self._fill_table()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange) and hasattr(self, "chart"):
            self.show_chosen()  # the diagnosis box takes the new theme's colours

    def fit_to_view(self) -> None:
        super().fit_to_view()
        if self.is_short():  # the timeline before the notes
            self.notes.set_lines(2)

    # ------------------------------------------------------------ the run's life

    def forget_run(self) -> None:
        super().forget_run()
        self.entries = []
        self._fill_table()

    def run_experiment(self) -> Job | None:
        job = super().run_experiment()
        if job is not None:
            job.partial.connect(self._partial)
        return job

    def _partial(self, name: Any, point: Point) -> None:
        """A configuration as soon as it is known, so the table and timeline fill during the run."""
        self.entries.append(Entry(name, point, str(point.extra.get("kind", "measured"))))
        self._fill_table()

    def decorate(self, result: Result) -> None:
        """The finished (or opened) result's configurations, in the current language."""
        self.entries = [Entry(Note(s.label) if s.label is not None else s.name, p,
                              _drawn_kind(s.provenance.kind, s.provenance.details), s.provenance.device)
                        for s in result.series for p in s.points if p.extra.get("ops")]  # fmt: skip
        self._fill_table()

    # ------------------------------------------------------------ the table and the chart

    def group_title(self, entry: Entry) -> str:
        if entry.kind == "modelled":
            return self.tr("Modelled: %1").replace("%1", entry.gpu())
        return self.tr("Measured: %1").replace("%1", entry.gpu() or self.tr("this GPU"))

    def _fill_table(self) -> None:
        chosen = self.chosen()
        keep = self.entries.index(chosen) if chosen in self.entries and chosen is not self._automatic else None
        self.table.blockSignals(True)
        self.table.clear()
        groups: dict[str, QTreeWidgetItem] = {}
        for index, entry in enumerate(self.entries):
            group = self.group_title(entry)
            if group not in groups:
                groups[group] = QTreeWidgetItem([group])
                groups[group].setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not a configuration to choose
                self.table.addTopLevelItem(groups[group])
                groups[group].setFirstColumnSpanned(True)
            extra = entry.point.extra
            # A flagged configuration (its repeats disagree), or one timed against a flagged single
            # stream, states no speed-up: a dash, faded, and the reason on hover.
            claimed = is_clean(entry.point) and extra.get("speedup_claimed", True)
            speedup = f"{float(extra.get('speedup', 1.0)):.2f}×" if claimed else "—"
            item = QTreeWidgetItem([entry.title(), time_text(float(extra.get("seconds", 0.0))), speedup])
            item.setData(0, Qt.ItemDataRole.UserRole, index)
            item.setToolTip(0, f"{entry.title()} — {group}")
            if not claimed:
                faded = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
                for column in range(3):
                    item.setForeground(column, faded)
                    item.setToolTip(column, self.tr("Timed under noise (its repeats disagree): no speed-up is "
                                                    "stated for it."))  # fmt: skip
            for column in (1, 2):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            groups[group].addChild(item)
        self.table.expandAll()
        self.table.blockSignals(False)
        self._fit_table()
        if self.entries:
            self._automatic = None if keep is not None else self.entries[self._first_choice()]
            self.choose(keep if keep is not None else self._first_choice())
        self.show_chosen()

    def _first_choice(self) -> int:
        """The many-streams pinned configuration: the one where overlap works, shown first."""
        return next((i for i, e in enumerate(self.entries) if e.point.extra.get("configuration") == "pinned"), 0)

    def _fit_table(self) -> None:
        """Tall enough for every configuration and heading (up to ten rows), never taller; on a
        short screen it gives way down to two rows (it scrolls) so the timeline keeps half the page."""
        rows = max(1, min(len(self.entries) + len({self.group_title(e) for e in self.entries}), 10))
        row_h = self.table.sizeHintForRow(0) if self.entries else self.fontMetrics().height() + 6
        frame = self.table.header().sizeHint().height() + 2 * self.table.frameWidth()
        self.table.setMinimumHeight(frame + min(rows, 2) * row_h)
        self.table.setMaximumHeight(frame + rows * row_h)

    def _items(self) -> list[QTreeWidgetItem]:
        """The configuration rows, in entry order."""
        groups = [self.table.topLevelItem(i) for i in range(self.table.topLevelItemCount())]
        return [group.child(j) for group in groups for j in range(group.childCount())]

    def chosen(self) -> Entry | None:
        item = self.table.currentItem()
        index = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def choose(self, index: int) -> None:
        """Show configuration ``index`` (as a click on its row does)."""
        items = self._items()
        if 0 <= index < len(items):
            self.table.setCurrentItem(items[index])

    def row_rect(self, index: int) -> QRect:
        """Where configuration ``index``'s row is in the table's viewport (for a click)."""
        return self.table.visualItemRect(self._items()[index])

    def show_chosen(self) -> None:
        entry = self.chosen()
        if entry is None:
            self.chart.set_ops(())
            self.diagnosis.setText("")
            self.diagnosis.setStyleSheet("")
            return
        same_kind = [e for e in self.entries if e.kind == entry.kind]
        span = max(float(e.point.extra.get("seconds", 0.0)) for e in same_kind)
        self.chart.set_ops(entry.ops, entry.kind, span_s=span or None)
        self.show_diagnosis(entry.diagnosis())

    def show_diagnosis(self, messages: list[Message]) -> None:
        """The diagnosis in a green box when overlap works, an amber one when it does not."""
        works = bool(messages) and messages[0].key == "streams.diagnosis.overlapping"
        colours = BOX_COLOURS.get(current_theme().name, BOX_COLOURS["light"])
        state = "ok" if works else "warn"
        self.diagnosis.setStyleSheet(
            f"QLabel#diagnosisLine {{ background: {colours[state + '_bg']}; color: {colours['box_text']};"
            f" border: 1px solid {colours[state + '_border']}; border-radius: 4px; padding: 4px; }}")
        self.diagnosis.setText(" ".join(i18n.engine_message(m) for m in messages))

    def _hovered(self, text: str) -> None:
        self.chart.setToolTip(text)

    # ------------------------------------------------------------ export

    def export_view(self) -> QWidget:
        """The timeline is the picture (the plot stays hidden): the chosen configuration's streams."""
        return self.chart

    def export_caption(self, view: QWidget) -> Caption:
        caption = super().export_caption(view)
        return dataclasses.replace(caption, subtitle=self.diagnosis.text())  # what ran together, and why
