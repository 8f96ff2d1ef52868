"""The smoke test's launch targets, read from a run document: events and wall clock within 20% per
queued launch at the largest K, and a graph replay cheaper per kernel than plain launches for K >= 100."""

from __future__ import annotations

import pytest

from gpulab.bench import gpu_smoke
from gpulab.results import Point, Provenance, Result, Series


def _series(key: str, points: list[Point]) -> Series:
    return Series(key, Provenance("measured", "NVIDIA H200"), "K", "", "time per step", "µs", points=tuple(points),
                  role="gpu", key=key)  # fmt: skip


def _plain_point(k: int, events_us: float, wall_us: float) -> Point:
    return Point(k, events_us, None, {"us_per_kernel_events": events_us, "us_per_kernel_wall": wall_us})


def _write(tmp_path, plain: list[Point], graph: list[Point]):
    result = Result("launch", {}, (_series("gpu-async", plain), _series("gpu-graph", graph)))
    path = tmp_path / "run-launch.json"
    result.save(path)
    return path


def _targets(path):
    return {name: (status, detail) for name, status, detail in gpu_smoke.launch_targets(path)}


@pytest.mark.parametrize(("wall_us", "status", "words"), [
    (5.5, "ok", "5 us per launch from events, 5.5 us from the wall clock (10% apart; target <= 20%: met)"),
    (6.5, "failed", "(30% apart; target <= 20%: NOT met)"),
])  # fmt: skip
def test_events_and_wall_clock_are_compared_at_the_largest_k(tmp_path, wall_us, status, words):
    plain = [_plain_point(1, 20.0, 40.0), _plain_point(10000, 5.0, wall_us)]  # K=1 is far apart: not the target's K
    got = _targets(_write(tmp_path, plain, []))["launch: events vs wall clock"]
    assert got[0] == status and words in got[1] and got[1].startswith("K=10000")


def test_a_graph_must_beat_plain_launches_at_every_k_from_100(tmp_path):
    plain = [_plain_point(k, 5.0, 5.1) for k in (1, 100, 10000)]
    cheaper = [Point(1, 9.0), Point(100, 1.2), Point(10000, 0.9)]  # at K=1 a graph may cost more: not counted
    status, detail = _targets(_write(tmp_path, plain, cheaper))["launch: graph replay < plain launches, K >= 100"]
    assert status == "ok" and "K=100: graph 1.2 vs plain 5 us per kernel; K=10000: graph 0.9" in detail
    dearer = [Point(100, 1.2), Point(10000, 6.0)]
    status, detail = _targets(_write(tmp_path, plain, dearer))["launch: graph replay < plain launches, K >= 100"]
    assert status == "failed" and detail.endswith("(NOT met)")


def test_a_missing_run_fails_both_launch_targets(tmp_path):
    targets = gpu_smoke.launch_targets(tmp_path / "absent.json")
    assert [status for _name, status, _detail in targets] == ["failed", "failed"]


def test_the_launch_targets_come_from_the_default_sweep_under_the_run_steps_60_seconds(tmp_path, monkeypatch):
    commands = []
    smoke = gpu_smoke.Smoke(tmp_path, total_s=60)
    monkeypatch.setattr(smoke, "run", lambda title, command, timeout_s, log: commands.append((command, timeout_s)))
    gpu_smoke._launch_steps(smoke, ["gpulab"])
    command, timeout_s = commands[0]
    assert command[:2] == ["gpulab", "run"] and "launch" in command and "--set" not in command  # the default K
    assert timeout_s == gpu_smoke.STEP_TIMEOUT_S["run"] == 60.0
