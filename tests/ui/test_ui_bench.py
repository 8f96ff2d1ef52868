"""``gpulab bench ui``: it animates the lane grid offscreen and reports frames/s and stalls."""

from __future__ import annotations

import json

from ui import bench


def test_bench_ui_reports_frame_rate_stall_and_gui_cpu_for_each_warp_count(capsys):
    code = bench.main(["--frames", "12", "--warps", "32,1024", "--size", "640x480", "--no-panel", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert [row["what"] for row in rows] == ["idle event loop", "lane grid", "lane grid"]
    assert rows[0]["frames"] == 0 and rows[0]["worst_stall_ms"] > 0
    rows = rows[1:]
    assert [row["warps"] for row in rows] == [32, 1024]
    for row in rows:
        assert row["frames"] == 12 and row["fps"] > 0
        assert row["worst_stall_ms"] >= bench.HEARTBEAT_MS * 0.5
        assert 0 < row["gui_cpu_ms_per_frame"] < 1000
    assert code in (0, 1)


def test_bench_ui_is_registered_as_a_gpulab_bench():
    from gpulab.commands.bench import BENCHES, bench_names

    assert "ui" in bench_names() and "ui" not in BENCHES  # declared by the front end, not the engine


def test_the_bench_table_names_its_targets_when_a_row_misses_them():
    slow = bench.Row("lane grid", 32, 10, 12.0, 80.0, 0, 20.0)
    fast = bench.Row("lane grid", 1024, 10, 60.0, 20.0, 3, 9.0)
    text = bench.format_rows([slow, fast], (1920, 1080))
    assert "MISSES target (>= 30 frames/s, <= 50 ms)" in text.splitlines()[2]
    assert text.splitlines()[3].endswith("ok")
