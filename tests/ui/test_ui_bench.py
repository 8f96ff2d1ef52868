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


# ------------------------------------------------------------ gpulab bench startup


def test_bench_startup_times_both_windows_in_fresh_processes_and_keeps_their_screenshots(capsys, tmp_path):
    from ui import bench_startup

    code = bench_startup.main(["--repeats", "1", "--out", str(tmp_path), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [start["kind"] for start in report["starts"]] == ["bare", "gpulab"]  # alternating, bare first
    for start in report["starts"]:
        assert 0 < start["first_paint_s"] <= start["done_s"]
        assert start["screenshot_bytes"] == (tmp_path / f"{start['kind']}-0.png").stat().st_size > 1000
    gpulab, bare = report["gpulab_median_s"], report["bare_median_s"]
    assert report["ratio"] == gpulab / bare
    assert code == (0 if report["ratio"] <= bench_startup.TARGET_RATIO else 1)


def test_bench_startup_is_registered_as_a_gpulab_bench():
    from gpulab.commands.bench import BENCHES, bench_names

    assert "startup" in bench_names() and "startup" not in BENCHES


def test_the_startup_summary_gives_both_medians_and_names_the_target_when_missed():
    from ui.bench_startup import Start, format_summary, summarise

    starts = [Start("bare", t, t + 0.2, 5000) for t in (1.0, 0.8, 1.2)]
    starts += [Start("gpulab", t, t + 0.5, 9000) for t in (2.0, 3.0, 2.5)]
    summary = summarise(starts)
    assert (summary.bare_median_s, summary.gpulab_median_s, summary.ratio) == (1.0, 2.5, 2.5)
    assert (summary.bare_spread_s, summary.gpulab_spread_s) == (1.2 - 0.8, 1.0)
    text = format_summary(summary, starts)
    assert "ratio of first paints: 2.50x  MISSES target (<= 1.2x)" in text
    bare_row, gpulab_row = text.splitlines()[2:4]
    assert bare_row.startswith("bare PySide6 + pyqtgraph") and bare_row.split()[-6:-2] == ["1.00", "s", "0.40", "s"]
    assert gpulab_row.startswith("gpulab --screenshot") and gpulab_row.split()[-6:-2] == ["2.50", "s", "1.00", "s"]
    fast = summarise([Start("bare", 1.0, 1.2, 1), Start("gpulab", 1.1, 1.5, 1)])
    assert format_summary(fast, starts).endswith("1.10x  ok")
