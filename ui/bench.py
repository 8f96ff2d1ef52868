"""``gpulab bench ui``: how smoothly the warp visualizer animates, measured offscreen.

For each warp count (32 and 1024 by default) the lane grid is sized to 1920 x 1080 and
redrawn with a new lane-state matrix every frame, as fast as the event loop allows, while
an emulation runs in the job runner (the panel's real set-up). Printed: frames per second
and the worst event-loop stall, i.e. the longest gap between ticks of a 5 ms QTimer
heartbeat. A last row steps the whole warp panel (code line, lane grid, memory view,
timeline) through a real emulated kernel.

Targets: >= 30 frames/s at 32 warps, smooth (>= 30 frames/s with the downsampled overview)
at 1024 warps, and no stall above 50 ms. It lives on the front-end side and reaches the
command line through the ``gpulab.bench`` entry point (see gpulab/frontend.py).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

TARGET_FPS = 30.0
TARGET_STALL_MS = 50.0
HEARTBEAT_MS = 5
BACKGROUND_KERNEL = "matmul_tiled"


@dataclass(frozen=True)
class Row:
    what: str
    warps: int
    frames: int
    fps: float
    worst_stall_ms: float
    emulations_done: int
    gui_cpu_ms_per_frame: float = 0.0  # GUI-thread CPU time per frame: what an idle core would need

    @property
    def ok(self) -> bool:
        if self.frames == 0:  # the idle baseline: only its stall counts
            return self.worst_stall_ms <= TARGET_STALL_MS
        return self.fps >= TARGET_FPS and self.worst_stall_ms <= TARGET_STALL_MS


def state_frames(warps: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """Lane-state matrices that change every frame (a moving divergence pattern)."""
    from gpulab.experiments import warp as ws

    rng = np.random.default_rng(seed)
    states = list(ws.LANE_STATES)
    return [rng.choice(states, size=(warps, ws.WARP)).astype(np.uint8) for _ in range(count)]


def background_emulation(ctx: Any) -> Any:
    """A job that emulates a tiled matmul again and again until cancelled, the way the warp
    panel does: in the emulator child process, the job's thread only waiting for it."""
    from gpulab import kernels, simt
    from gpulab.experiments import Progress
    from gpulab.experiments import warp as ws
    from gpulab.results import Result

    spec = kernels.get(BACKGROUND_KERNEL)
    preset = spec.presets[1] if len(spec.presets) > 1 else spec.presets[0]
    process = ws.EmulatorProcess()
    done = 0
    try:
        while not ctx.cancelled:
            request = ws.SessionRequest(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))
            try:
                process.run(request, ctx.cancel_event)
            except simt.Cancelled:
                break
            done += 1
            yield Progress(0.0, f"{done} emulations")
    finally:
        process.stop()
    return Result("bench-ui-background", {"emulations": done}, ())


class Heartbeat:
    """Measures the longest gap between ticks of a fast QTimer: the worst event-loop stall."""

    def __init__(self, qt: Any) -> None:
        self.timer = qt.QTimer()
        self.timer.setTimerType(qt.Qt.TimerType.PreciseTimer)
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.worst = 0.0

    def start(self) -> None:
        self.last, self.worst = time.perf_counter(), 0.0
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def stop(self) -> float:
        self._tick()
        self.timer.stop()
        return self.worst


def animate(qt: Any, app: Any, viewport: Any, draw: Callable[[int], None], frames: int) -> tuple[float, float, float]:
    """Show ``frames`` frames from the event loop; (frames/s, worst stall s, GUI CPU s per frame).

    ``draw(i)`` changes what is shown and asks for a repaint; the next frame is drawn only
    after ``viewport`` has really painted (counted by an event filter), so every frame counts.
    """
    painted = _PaintCounter(qt, viewport)
    heartbeat = Heartbeat(qt)
    state: dict[str, Any] = {"drawn": 0, "end": 0.0}
    frame_timer = qt.QTimer()
    frame_timer.setInterval(0)

    def frame() -> None:
        if painted.count < state["drawn"]:
            return  # the last frame is not on screen yet
        if state["drawn"] >= frames:
            frame_timer.stop()
            state["end"] = time.perf_counter()
            return
        draw(state["drawn"])
        state["drawn"] += 1

    frame_timer.timeout.connect(frame)
    app.processEvents()
    painted.count = 0
    heartbeat.start()
    start, cpu_start = time.perf_counter(), time.thread_time()
    frame_timer.start()
    while frame_timer.isActive():
        app.processEvents(qt.QEventLoop.ProcessEventsFlag.AllEvents, 50)
    cpu = time.thread_time() - cpu_start
    worst = heartbeat.stop()
    viewport.removeEventFilter(painted.filter)
    return frames / max(state["end"] - start, 1e-9), worst, cpu / frames


class _PaintCounter:
    """Counts paint events of one widget."""

    def __init__(self, qt: Any, widget: Any) -> None:
        self.count = 0
        counter = self

        class Filter(qt.QObject):
            def eventFilter(self, _obj: Any, event: Any) -> bool:
                if event.type() == qt.QEvent.Type.Paint:
                    counter.count += 1
                return False

        self.filter = Filter()
        widget.installEventFilter(self.filter)


def bench_lane_grid(qt: Any, app: Any, warps: int, frames: int, size: tuple[int, int]) -> tuple[float, float, float]:
    from ui.widgets.lane_grid import LaneGrid

    grid = LaneGrid()
    grid.resize(*size)
    grid.show()
    matrices = state_frames(warps, 16)
    grid.set_states(matrices[0])
    app.processEvents()

    def draw(i: int) -> None:
        grid.set_states(matrices[i % len(matrices)])
        if warps > 32:
            grid.select_row((i * 7) % warps)

    result = animate(qt, app, grid.graphics.viewport(), draw, frames)
    grid.close()
    grid.deleteLater()
    return result


def idle_stall(qt: Any, app: Any, seconds: float) -> float:
    """Worst heartbeat gap with nothing drawn: what the machine itself (other processes) adds."""
    heartbeat = Heartbeat(qt)
    heartbeat.start()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents(qt.QEventLoop.ProcessEventsFlag.AllEvents, 50)
    return heartbeat.stop()


def bench_panel(qt: Any, app: Any, services: Any, frames: int, size: tuple[int, int]) -> tuple[float, float, float]:
    """Step the whole warp panel through an emulated kernel (cycling), repainting each step."""
    from ui.panels.warp import WarpPanel

    panel = WarpPanel(services)
    panel.resize(*size)
    panel.show()
    deadline = time.perf_counter() + 60
    while (panel.session is None or panel.timeline_tab.compare_session is None) and time.perf_counter() < deadline:
        app.processEvents(qt.QEventLoop.ProcessEventsFlag.AllEvents, 50)
    if panel.session is None:
        raise RuntimeError("the warp panel's emulation did not finish within 60 s")
    steps = len(panel.session)

    def draw(i: int) -> None:
        panel.set_cursor(i % steps)

    result = animate(qt, app, panel.lanes.graphics.viewport(), draw, frames)
    panel.shutdown_jobs()
    panel.close()
    panel.deleteLater()
    return result


def run(frames: int, warp_counts: Sequence[int], size: tuple[int, int], with_panel: bool = True) -> list[Row]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    qt = _QtNames(QtCore)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    from ui.services import Services
    from ui.theme import apply_theme

    apply_theme("light")
    services = Services.create()
    # Its own queue, so the panel's emulations (queue "cpu") are not stuck behind it.
    job = services.runner.submit("background emulation", "cpu:background", background_emulation)
    done = {"emulations": 0}
    job.progress.connect(lambda _fraction, message: done.update(emulations=int(message.split()[0])))
    rows = []
    try:
        # Measure the steady state: the emulator child has started and finished a run.
        deadline = time.perf_counter() + 60
        while done["emulations"] < 1 and time.perf_counter() < deadline:
            app.processEvents(qt.QEventLoop.ProcessEventsFlag.AllEvents, 50)
        rows.append(Row("idle event loop", 0, 0, 0.0, idle_stall(qt, app, 2.0) * 1e3, done["emulations"]))
        for warps in warp_counts:
            fps, stall, cpu = bench_lane_grid(qt, app, warps, frames, size)
            rows.append(Row("lane grid", warps, frames, fps, stall * 1e3, done["emulations"], cpu * 1e3))
        if with_panel:
            fps, stall, cpu = bench_panel(qt, app, services, frames, size)
            rows.append(Row("warp panel step", 2, frames, fps, stall * 1e3, done["emulations"], cpu * 1e3))
    finally:
        job.cancel()
        services.runner.shutdown()
    return rows


class _QtNames:
    """The few QtCore names the bench uses, bound once (Qt is imported lazily)."""

    def __init__(self, qtcore: Any) -> None:
        self.QTimer = qtcore.QTimer
        self.Qt = qtcore.Qt
        self.QEventLoop = qtcore.QEventLoop
        self.QObject = qtcore.QObject
        self.QEvent = qtcore.QEvent


def format_rows(rows: Sequence[Row], size: tuple[int, int]) -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"gpulab bench ui — offscreen, {size[0]}x{size[1]}, an emulation running in the job runner;"
        f" {os.cpu_count()} CPUs, load average {load} (other processes skew the figures)",
        f"{'what':<16} {'warps':>6} {'frames':>7} {'frames/s':>9} {'worst stall':>12} {'GUI CPU/frame':>14}  verdict",
    ]
    for row in rows:
        target = (
            f"<= {TARGET_STALL_MS:.0f} ms"
            if row.frames == 0
            else f">= {TARGET_FPS:.0f} frames/s, <= {TARGET_STALL_MS:.0f} ms"
        )
        verdict = "ok" if row.ok else f"MISSES target ({target})"
        lines.append(
            f"{row.what:<16} {row.warps:>6} {row.frames:>7} {row.fps:>9.1f} {row.worst_stall_ms:>9.1f} ms"
            f" {row.gui_cpu_ms_per_frame:>11.1f} ms  {verdict}"
        )
    return "\n".join(lines)


def parse_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench ui", description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300, help="frames per measurement (default 300)")
    parser.add_argument("--warps", default="32,1024", help="warp counts, comma-separated (default 32,1024)")
    parser.add_argument("--size", default="1920x1080", help="widget size WxH (default 1920x1080)")
    parser.add_argument("--no-panel", action="store_true", help="skip stepping the whole warp panel")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(list(argv) if argv is not None else None)
    size = parse_size(args.size)
    warps = [int(w) for w in args.warps.split(",") if w.strip()]
    rows = run(args.frames, warps, size, with_panel=not args.no_panel)
    if args.json:
        print(json.dumps([{**asdict(r), "ok": r.ok} for r in rows], indent=2))
    else:
        print(format_rows(rows, size))
    return 0 if all(r.ok for r in rows) else 1
