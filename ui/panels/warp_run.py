"""The warp visualizer's run state: emulating, current, edited, failed or cancelled.

An emulation that fails, is cancelled, or whose source has been edited since leaves the
lanes, metrics and memory views of the previous good run on screen: they are greyed out and
the status line says they are the previous run, so nobody reads them as the result of the
code now in the editor. Emulator errors come back as the job's value, not as a failure: the
panel shows them at their line, and the window-wide error banner (which would outlive the
next run and a language switch) is kept for what the panel cannot show itself.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QGraphicsOpacityEffect, QWidget

from gpulab import kernels, simt
from gpulab.experiments import Context, Progress
from gpulab.experiments import warp as ws
from ui import i18n
from ui.panels import warp_texts as texts
from ui.panels.warp_options import ConstantsError

translate = QCoreApplication.translate  # lupdate finds translate("WarpPanel", ...) calls

RUNNING, CURRENT, EDITED, FAILED, CANCELLED = "running", "current", "edited", "failed", "cancelled"
STALE_OPACITY = 0.35


@dataclass(frozen=True)
class Failed:
    """An emulator error, returned as the job's value (a worker treats a returned exception as raised)."""

    error: BaseException


def emulation(
    spec: kernels.KernelSpec,
    preset: kernels.LaunchPreset,
    source: str,
    block: int,
    ctx: Context,
    max_seconds: float,
    shared_mem: int | None = None,
    *,
    fmad: bool = True,
    constants: dict[str, list[float]] | None = None,
) -> Generator[Progress, None, ws.WarpSession | Failed]:
    """:func:`ws.emulate`, returning the emulator's error (shown at its line) instead of raising it."""
    try:
        run = ws.emulate(spec, preset, source, block, ctx, max_seconds, shared_mem, fmad=fmad, constants=constants)
        return (yield from run)
    except (simt.SimtError, ws.SessionError) as exc:  # a cancel arrives as experiments' Cancelled
        return Failed(exc)


class RunState:
    """Which run the views show, and the status line that says so (re-worded on a language change)."""

    def __init__(self, stale_views: list[QWidget]) -> None:
        self.state = CURRENT
        self.error: BaseException | None = None
        self.progress: object = ""
        self.drawn = False  # the views show some run (greyed when it is not the current one)
        self.stale_views = stale_views

    @property
    def stale(self) -> bool:
        return self.state != CURRENT

    def set(self, state: str, error: BaseException | None = None) -> None:
        self.state, self.error = state, error
        if state != RUNNING:
            self.progress = ""
        for widget in self.stale_views:
            set_stale = getattr(widget, "set_stale", None)
            if set_stale is not None:  # it greys itself (the lane grid: an effect misses its plot)
                set_stale(self.stale and self.drawn)
            elif self.stale and self.drawn:
                effect = QGraphicsOpacityEffect(widget)
                effect.setOpacity(STALE_OPACITY)
                widget.setGraphicsEffect(effect)
            else:
                widget.setGraphicsEffect(None)  # type: ignore[arg-type]

    def error_line(self) -> int | None:
        return texts.error_text(self.error)[0] if self.error is not None else None

    def text(self, session: ws.WarpSession | None) -> str:
        """The status line for the state, in the interface language."""
        previous = (
            " " + translate("WarpPanel", "The greyed lanes and metrics are from the previous run.")
            if self.drawn and self.stale
            else ""
        )
        if self.state == RUNNING:
            now = i18n.engine_message(self.progress) if self.progress else translate("WarpPanel", "Emulating…")
            return now + previous
        if self.state == EDITED:
            return translate("WarpPanel", "Edited — not run yet (Run or Ctrl+Return emulates it).") + previous
        if self.state == CANCELLED:
            return translate("WarpPanel", "Emulation cancelled.") + previous
        if self.state == FAILED and self.error is not None:
            return self.error_message() + previous
        return texts.status_text(session) if session is not None else ""

    def error_message(self) -> str:
        if self.error is None:
            return ""
        if isinstance(self.error, ConstantsError):  # the constants field: worded in the language shown now
            return self.error.message()
        if isinstance(self.error, (simt.SimtError, ws.SessionError)):
            return texts.error_text(self.error)[1]
        from ui.jobs import plain_error

        return plain_error(self.error)
