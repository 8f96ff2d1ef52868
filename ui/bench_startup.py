"""``gpulab bench startup``: how long gpulab takes to first paint, beside a bare PySide6 + pyqtgraph window.

Each start runs in a fresh Python process, as a person starting the program would: the clock
starts just before the process is spawned and stops at the first paint event of a widget in its
window. Both then save a screenshot of the painted window, so each start is checked to have
drawn something. The bare window is a QMainWindow holding one pyqtgraph plot with a curve;
gpulab's start is ``gpulab --screenshot`` (its command line, entry point, settings, theme,
language and first panel), with no saved settings, as on a first start. The two kinds
alternate, so a busy moment of the machine falls on both alike. Printed: each kind's median
and spread, and the ratio of the medians. Target: gpulab's first paint at most 1.2 times the
bare window's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TARGET_RATIO = 1.2
KINDS = ("bare", "gpulab")
WINDOW_SIZE = (1024, 768)
CHILD_TIMEOUT_S = 120.0
FIRST_PAINT = "first-paint-epoch-s"  # the line a child prints: the wall-clock time of its first paint


@dataclass(frozen=True)
class Start:
    """One start of one kind: seconds from spawn to the first paint, and to the saved screenshot."""

    kind: str
    first_paint_s: float
    done_s: float
    screenshot_bytes: int


@dataclass(frozen=True)
class Summary:
    bare_median_s: float
    gpulab_median_s: float
    bare_spread_s: float
    gpulab_spread_s: float
    repeats: int

    @property
    def ratio(self) -> float:
        return self.gpulab_median_s / self.bare_median_s

    @property
    def ok(self) -> bool:
        return self.ratio <= TARGET_RATIO


# ------------------------------------------------------------ the parent: spawn, time, compare


def child_environment(settings_dir: str) -> dict[str, str]:
    """The children's environment: offscreen Qt unless told otherwise, and throwaway settings."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["GPULAB_BENCH_SETTINGS"] = settings_dir
    return env


def start_once(kind: str, screenshot: Path, env: dict[str, str]) -> Start:
    """Spawn one start of ``kind`` and time it from just before the spawn."""
    command = [sys.executable, "-m", "ui.bench_startup", "--child", kind, "--screenshot", str(screenshot)]
    spawned = time.time()  # wall clock: the child reports its paint on the same clock
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=CHILD_TIMEOUT_S, check=False)
    done = time.time()
    painted = [line for line in proc.stdout.splitlines() if line.startswith(FIRST_PAINT)]
    if proc.returncode != 0 or not painted or not screenshot.is_file():
        tail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise RuntimeError(f"the {kind} start failed: {tail}")
    first_paint = float(painted[-1].split()[1])
    return Start(kind, first_paint - spawned, done - spawned, screenshot.stat().st_size)


def run(repeats: int, out_dir: Path) -> list[Start]:
    """``repeats`` starts of each kind, alternating (bare, gpulab, bare, ...)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    starts = []
    with tempfile.TemporaryDirectory(prefix="gpulab-bench-settings-") as settings_dir:
        env = child_environment(settings_dir)
        for i in range(repeats):
            for kind in KINDS:
                starts.append(start_once(kind, out_dir / f"{kind}-{i}.png", env))
    return starts


def summarise(starts: Sequence[Start]) -> Summary:
    def times(kind: str) -> list[float]:
        return [s.first_paint_s for s in starts if s.kind == kind]

    def spread(values: list[float]) -> float:
        return max(values) - min(values)

    bare, gpulab = times("bare"), times("gpulab")
    return Summary(statistics.median(bare), statistics.median(gpulab), spread(bare), spread(gpulab), len(bare))


def format_summary(summary: Summary, starts: Sequence[Start]) -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    verdict = "ok" if summary.ok else f"MISSES target (<= {TARGET_RATIO:.1f}x)"
    done = {kind: statistics.median([s.done_s for s in starts if s.kind == kind]) for kind in KINDS}
    return "\n".join([
        f"gpulab bench startup — {summary.repeats} fresh starts of each, alternating, "
        f"{WINDOW_SIZE[0]}x{WINDOW_SIZE[1]}, QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', 'offscreen')};"
        f" {os.cpu_count()} CPUs, load average {load} (other processes skew the figures)",
        f"{'start':<36} {'first paint (median)':>21} {'spread':>9} {'screenshot saved':>17}",
        f"{'bare PySide6 + pyqtgraph window':<36} {summary.bare_median_s:>19.2f} s"
        f" {summary.bare_spread_s:>7.2f} s {done['bare']:>15.2f} s",
        f"{'gpulab --screenshot':<36} {summary.gpulab_median_s:>19.2f} s"
        f" {summary.gpulab_spread_s:>7.2f} s {done['gpulab']:>15.2f} s",
        f"ratio of first paints: {summary.ratio:.2f}x  {verdict}",
    ])  # fmt: skip


# ------------------------------------------------------------ the children: start, paint, save


def _watch_first_paint(app: Any) -> Any:
    """Print the wall-clock time of the first paint event any widget receives (a window fully
    covered by its children gets none itself); the watcher returned says (``seen``) whether it has come."""
    from PySide6.QtCore import QEvent, QObject

    class FirstPaint(QObject):
        seen = False

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if not self.seen and event.type() == QEvent.Type.Paint and watched.isWidgetType():
                self.seen = True
                print(FIRST_PAINT, repr(time.time()), flush=True)
            return False

    watcher = FirstPaint(app)
    app.installEventFilter(watcher)
    return watcher


def _throwaway_settings() -> None:
    from PySide6.QtCore import QSettings

    folder = os.environ.get("GPULAB_BENCH_SETTINGS")
    if folder:
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)


def bare_child(screenshot: str) -> int:
    """A bare PySide6 + pyqtgraph window: shown, painted once, saved."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv[:1])
    watcher = _watch_first_paint(app)
    window = QMainWindow()
    plot = pg.PlotWidget()
    plot.plot([1, 4, 9, 16, 25])
    window.setCentralWidget(plot)
    window.resize(*WINDOW_SIZE)
    window.show()
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while not watcher.seen and time.monotonic() < deadline:  # a paint from the event loop, as gpulab waits for
        app.processEvents()
        time.sleep(0.001)
    saved = window.grab().toImage().save(screenshot, "PNG")
    window.close()
    return 0 if watcher.seen and saved else 1


def gpulab_child(screenshot: str) -> int:
    """``gpulab --screenshot`` through its command line, with no saved settings."""
    from gpulab import cli
    from ui.app import get_app

    app = get_app()  # the one the command line would make; made first so the watch sees every paint
    _throwaway_settings()
    _watch_first_paint(app)
    size = f"{WINDOW_SIZE[0]}x{WINDOW_SIZE[1]}"
    return cli.main(["--screenshot", screenshot, "--screenshot-size", size, "--lang", "en", "--theme", "light"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench startup", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="starts of each kind (default 5)")
    parser.add_argument("--out", metavar="DIR", help="keep the screenshots here (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print every start and the summary as JSON")
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--screenshot", help=argparse.SUPPRESS)
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.child:
        return (bare_child if args.child == "bare" else gpulab_child)(args.screenshot)
    with tempfile.TemporaryDirectory(prefix="gpulab-bench-startup-") as scratch:
        starts = run(max(1, args.repeats), Path(args.out or scratch))
    summary = summarise(starts)
    if args.json:
        report = {"starts": [asdict(s) for s in starts], **asdict(summary), "ratio": summary.ratio, "ok": summary.ok}
        print(json.dumps(report, indent=2))
    else:
        print(format_summary(summary, starts))
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
