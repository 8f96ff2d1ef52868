"""Where the warp visualizer stands: the session, the timeline step and the followed warp."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from gpulab.experiments import warp as ws


class WarpCursor(QObject):
    """The session being stepped, the current timeline step and the selected warp row.

    Every view of the panel draws from here; the signals fire only on a real change, and
    steps and rows are clamped to the session, so a view never sees a position outside it.
    """

    session_changed = Signal(object)  # the new WarpSession, or None
    step_changed = Signal(int)  # the timeline step now shown
    row_changed = Signal(int)  # the warp row now followed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session: ws.WarpSession | None = None
        self.step = 0
        self.row = 0

    @property
    def steps(self) -> int:
        """Timeline steps of the session (0 without one)."""
        return len(self.session) if self.session is not None else 0

    def set_session(self, session: ws.WarpSession | None) -> None:
        """Show ``session`` (None: forget the old one) from its first step and first warp."""
        self.session, self.step, self.row = session, 0, 0
        self.session_changed.emit(session)

    def set_step(self, g: int) -> bool:
        """Go to timeline step ``g``, clamped to the session; True if the step changed."""
        if self.steps == 0:
            return False
        g = max(0, min(int(g), self.steps - 1))
        if g == self.step:
            return False
        self.step = g
        self.step_changed.emit(g)
        return True

    def move(self, delta: int) -> bool:
        """Step ``delta`` timeline steps forward (negative: back)."""
        return self.set_step(self.step + delta)

    def go_to_last(self) -> bool:
        return self.set_step(self.steps - 1)

    def select_row(self, row: int) -> bool:
        """Follow warp ``row`` of the traced block, clamped; True if the row changed."""
        if self.session is None:
            return False
        row = max(0, min(int(row), self.session.rows - 1))
        if row == self.row:
            return False
        self.row = row
        self.row_changed.emit(row)
        return True

    def next_divergence(self) -> int | None:
        """The next step where a branch splits a warp (None: none after this one)."""
        return self.session.next_divergence(self.step) if self.session is not None else None

    def next_memory(self) -> int | None:
        """The next load, store or atomic (None: none after this one)."""
        return self.session.next_memory(self.step) if self.session is not None else None

    def own_step(self) -> int:
        """The followed warp's own step index at the current timeline step (its last one so far)."""
        if self.session is None:
            return 0
        own = int((self.session.step_at[: self.step + 1, self.row] >= 0).sum()) - 1
        return max(own, 0)
