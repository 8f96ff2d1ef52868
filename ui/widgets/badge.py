"""The provenance badge: says whether the numbers shown are measured, emulated, modelled
or replayed, in a colour AND a word, legible on every theme (it paints its own background).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QLabel, QWidget

# (background, text) pairs with a contrast ratio of at least 4.5:1.
BADGE_COLOURS: dict[str, tuple[str, str]] = {
    "measured": ("#1b7f3b", "#ffffff"),
    "emulated": ("#1f5fbf", "#ffffff"),
    "modelled": ("#f2c12e", "#000000"),
    "replayed": ("#6f42c1", "#ffffff"),
    "none": ("#d9d9d9", "#1a1a1a"),
}


def weakest_kind(kinds: Iterable[str]) -> str:
    """The kind a mixed view must be labelled with: a modelled number is never 'measured'."""
    present = set(kinds)
    for kind in ("replayed", "modelled", "emulated", "measured"):
        if kind in present:
            return kind
    return ""


def kind_label(kind: str) -> str:
    """The badge word for a provenance kind, translated."""
    labels = {
        "measured": QCoreApplication.translate("ProvenanceBadge", "MEASURED"),
        "emulated": QCoreApplication.translate("ProvenanceBadge", "EMULATED"),
        "modelled": QCoreApplication.translate("ProvenanceBadge", "MODELLED"),
        "replayed": QCoreApplication.translate("ProvenanceBadge", "REPLAYED"),
    }
    return labels.get(kind, QCoreApplication.translate("ProvenanceBadge", "NO DATA"))


def kind_explanation(kind: str) -> str:
    """What a provenance kind promises, for the badge's tooltip."""
    tips = {
        "measured": QCoreApplication.translate("ProvenanceBadge", "Measured: timed on real hardware in this run."),
        "emulated": QCoreApplication.translate(
            "ProvenanceBadge",
            "Emulated: executed exactly by the SIMT emulator. Results are exact; no time is claimed.",
        ),
        "modelled": QCoreApplication.translate(
            "ProvenanceBadge",
            "Modelled: computed from a spec sheet and a stated formula, not measured.",
        ),
        "replayed": QCoreApplication.translate(
            "ProvenanceBadge", "Replayed: a saved report from another machine or run."
        ),
    }
    return tips.get(kind, QCoreApplication.translate("ProvenanceBadge", "Nothing measured or computed yet."))


class ProvenanceBadge(QLabel):
    """A coloured pill with the provenance word; ``set_kind('')`` shows 'no data'."""

    def __init__(self, kind: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("provenanceBadge")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.kind = ""
        self.set_kind(kind)

    def set_kind(self, kind: str) -> None:
        self.kind = kind if kind in BADGE_COLOURS and kind != "none" else ""  # a colour for each kind a result has
        background, foreground = BADGE_COLOURS[self.kind or "none"]
        self.setStyleSheet(
            f"QLabel#provenanceBadge {{ background: {background}; color: {foreground};"
            " border: 1px solid #00000055; border-radius: 6px; padding: 1px 8px;"
            " font-weight: bold; }"
        )
        self.retranslate()

    def retranslate(self) -> None:
        self.setText(kind_label(self.kind))
        self.setToolTip(kind_explanation(self.kind))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
