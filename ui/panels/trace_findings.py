"""The trace page's findings, in words: each one's sentence, what to do, its evidence (the
numbers and the longest events that show it) and a button to the lab that teaches it.

It reads findings as ``gpulab trace --json`` writes them (``Finding.to_json()``: the message and
the advice as catalogue JSON), so a live diagnosis and a replayed file read alike, and a
language switch rewrites every line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from gpulab.catalogue import from_json, msg
from ui import i18n
from ui.widgets.timeline import time_text

translate = QCoreApplication.translate
MAX_SHOWN = 30  # a 64-rank trace may have hundreds; the export keeps them all
EVENTS_SHOWN = 3
LONGEST_NAME = 90  # characters of an event's name shown (a templated PyTorch kernel's runs to hundreds)
BREAK_AFTER = ("_", "::", ",", "<", ">", "(", "/", "·")  # where a long name may wrap: it has no spaces


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def evidence_value(key: str, value: Any) -> str | None:
    """One evidence number as a reader takes it (ns as a time, a share as a percentage); None to leave out."""
    if key == "reason":  # a catalogue key: the sentence already says the reason
        return None
    if isinstance(value, bool) or value is None:
        return str(value)
    if key.endswith("_ns") and isinstance(value, (int, float)):
        return time_text(value / 1e9)
    if "share" in key and isinstance(value, float):
        return f"{100 * value:.1f}%"
    if key.endswith("_us") and isinstance(value, (int, float)):
        return time_text(value / 1e6)
    if isinstance(value, list):
        names = [str(item.get("name", "")) if isinstance(item, Mapping) else str(item) for item in value]
        return ", ".join(n for n in names if n)[:160] or None
    if isinstance(value, Mapping):
        return None
    return str(value)


def evidence_text(evidence: Mapping[str, Any]) -> str:
    """``share 67.0% · exposed copy 2.67 ms · …``: the evidence's fields, named as in the JSON."""
    parts = []
    for key, value in evidence.items():
        shown = evidence_value(key, value)
        if shown is not None:
            name = key.removesuffix("_ns").removesuffix("_us").replace("_", " ")
            parts.append(f"{name} {shown}")
    return " · ".join(parts)


def breakable(text: str) -> str:
    """``text`` with a zero-width space after each of BREAK_AFTER, so a long name with no spaces
    (``ncclDevKernel_AllReduce_Sum_f32_RING_LL``) wraps in a narrow column instead of widening it."""
    for mark in BREAK_AFTER:
        text = text.replace(mark, mark + "\u200b")
    return text


def short_event_name(name: str) -> str:
    """A name of at most LONGEST_NAME characters, cut in the middle (its start and end tell kernels apart)."""
    if len(name) <= LONGEST_NAME:
        return name
    half = (LONGEST_NAME - 1) // 2
    return name[:half] + "…" + name[-half:]


def events_text(events: Sequence[Mapping[str, Any]]) -> str:
    """The longest events that show a finding: ``name (lane, 12.3 µs)``."""
    shown = [f"{short_event_name(str(e.get('name', '?')))} ({e.get('lane', '?')}, "
             f"{time_text(float(e.get('dur_ns', 0)) / 1e9)})" for e in list(events)[:EVENTS_SHOWN]]  # fmt: skip
    return "; ".join(shown)


def lab_title(lab: str) -> str:
    """A lab's page title ("Streams"), from the catalogue; the registry name if it has none."""
    from gpulab import catalogue

    key = f"experiment.{lab}.page"
    return i18n.engine_message(msg(key)) if catalogue.has(key) else lab


class FindingCard(QFrame):
    """One finding: the words, and the button to its lab (``lab_requested`` carries the lab's name)."""

    lab_requested = Signal(str)

    def __init__(self, finding: Mapping[str, Any], where: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.finding, self.where = finding, where
        self.lab = str(finding.get("lab", ""))
        self.setObjectName("findingCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.lab_button = QPushButton()
        self.lab_button.setMinimumWidth(1)  # its words wrap to the card (_fit_button), never the card to them
        self.lab_button.clicked.connect(lambda: self.lab_requested.emit(self.lab))
        self.button_text = ""
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 4, 6, 4)
        column.setSpacing(2)
        column.addWidget(self.words)
        column.addWidget(self.lab_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.lab_button.setHidden(not self.lab)  # (after it has a parent: shown alone it would be a window)
        self.retranslate()

    def retranslate(self) -> None:
        found = self.finding
        message = i18n.engine_message(from_json(found["message"])) if found.get("message") else ""
        advice = i18n.engine_message(from_json(found["advice"])) if found.get("advice") else ""
        lines = [f"<b>{_escape(self.where)}</b> — {_escape(message)}", _escape(advice)]
        evidence = evidence_text(found.get("evidence") or {})
        if evidence:
            lines.append("<small>" + _escape(translate("TraceFindings", "Evidence: %1").replace(
                "%1", breakable(evidence))) + "</small>")  # fmt: skip
        events = events_text(found.get("events") or ())
        if events:
            lines.append("<small>" + _escape(translate("TraceFindings", "Longest: %1").replace(
                "%1", breakable(events))) + "</small>")  # fmt: skip
        self.words.setText("<br>".join(lines))
        self.button_text = translate("TraceFindings", "Open the %1 lab").replace("%1", lab_title(self.lab))
        self._fit_button()

    def _fit_button(self) -> None:
        """The button's words on as many lines as the card's width needs: a lab's long name on a
        projector was wider than the findings column and pushed every card past its edge."""
        room = max(40, self.width() - 24)
        lines, metrics = [""], self.lab_button.fontMetrics()
        for word in self.button_text.split(" "):
            wider = f"{lines[-1]} {word}".strip()
            if lines[-1] and metrics.horizontalAdvance(wider) > room:
                lines.append(word)
            else:
                lines[-1] = wider
        self.lab_button.setText("\n".join(lines))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_button()


class FindingsList(QScrollArea):
    """The findings, each a :class:`FindingCard`, scrolling when there are many; ``lab_requested``
    says which lab's button was clicked."""

    lab_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cards: list[FindingCard] = []
        self.hidden = 0
        self.empty_text: Callable[[], str] = lambda: ""
        self.summary = QLabel()  # no findings, or how many are left out
        self.summary.setWordWrap(True)
        self._column_widget = QWidget()
        self._column = QVBoxLayout(self._column_widget)
        self._column.setContentsMargins(2, 2, 2, 2)
        self._column.addWidget(self.summary)
        self._column.addStretch(1)
        self.setWidget(self._column_widget)

    def set_findings(self, findings: Sequence[Mapping[str, Any]], where: Callable[[int], str]) -> None:
        """Show ``findings`` (``Finding.to_json()`` dictionaries); ``where(rank)`` names a finding's rank."""
        for card in self.cards:
            self._column.removeWidget(card)
            card.deleteLater()
        self.cards = []
        for found in list(findings)[:MAX_SHOWN]:
            card = FindingCard(found, where(int(found.get("rank", 0))))
            card.lab_requested.connect(self.lab_requested)
            self._column.insertWidget(self._column.count() - 2, card)
            card.show()  # on a page already on screen, a new child shows only when told
            self.cards.append(card)
        self.hidden = max(0, len(findings) - MAX_SHOWN)
        self.retranslate()

    def retranslate(self) -> None:
        for card in self.cards:
            card.retranslate()
        if self.hidden:
            self.summary.setText(translate("TraceFindings", "%1 more findings are in the exported result.")
                                 .replace("%1", str(self.hidden)))  # fmt: skip
        else:
            self.summary.setText("" if self.cards else self.empty_text())
        self.summary.setVisible(bool(self.summary.text()))
