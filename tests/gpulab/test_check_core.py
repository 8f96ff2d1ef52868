"""gpulab check's core: verdicts, exit codes, the CUDA probe's reasons as actions, the CPU rules,
and the command as a sysadmin runs it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from gpulab import cli
from gpulab.catalogue import msg, render
from gpulab.check import cpu
from gpulab.check.model import CheckReport, Row, Verdict
from gpulab.check.registry import CHECKS, Context, register
from gpulab.check.run import load_checks, run_checks
from gpulab.devices import CudaStatus

CORE_CHECKS = ("software.cuda", "software.nvrtc", "software.mpi", "software.nccl", "cpu.blas", "cpu.triad")


def _main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _report(ctx: Context, only) -> CheckReport:
    progress = run_checks(ctx, only)
    said = []
    try:
        while True:
            said.append(next(progress))
    except StopIteration as done:
        report = done.value
    assert said, "a check says what it is doing while it runs"
    return report


@dataclass
class _Layer:
    """Just enough of a device layer to hand the CUDA check a probe result."""

    cuda: CudaStatus

    def status(self) -> CudaStatus:
        return self.cuda


def _status(code: str, available: bool = False) -> CudaStatus:
    return CudaStatus(available, f"reason {code}", code)


# ---------------------------------------------------------------------- the command
def test_a_cpu_only_machine_gets_a_report_of_every_core_check_and_exit_code_0(tmp_path, capsys):
    path = tmp_path / "check.json"
    code, out, _err = _main(["check", "--json", str(path)], capsys)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == "gpulab.check/1" and data["exit_code"] == code
    assert {row["check"] for row in data["rows"]} >= set(CORE_CHECKS)
    assert all(row["verdict"] in ("pass", "warn", "skip") for row in data["rows"]), data["rows"]
    assert code == 0 and "Exit code 0." in out
    blas = next(row for row in data["rows"] if row["check"] == "cpu.blas")
    assert blas["value"] > 0 and blas["unit"] == "GFLOP/s"  # measured, whatever the verdict
    assert "cpu_clock_mhz_max" in blas["facts"]  # the clocks were sampled while it ran (None where the OS hides them)
    report = CheckReport.from_json(data)
    assert [r.check for r in report.rows] == [row["check"] for row in data["rows"]]


def test_require_gpu_on_a_machine_without_one_fails_with_exit_code_1(capsys):
    code, out, _err = _main(["check", "--require-gpu", "--only", "software.cuda"], capsys)
    assert code == 1
    assert out.startswith("FAIL") and "Exit code 1." in out


@pytest.mark.parametrize("argv, words", [
    (["check", "--device", "x"], "expected a GPU index"),
    (["check", "--only", "no.such.check"], "unknown check 'no.such.check'"),
    (["check", "--quick", "--full"], "not allowed with"),
])
def test_usage_errors_exit_2_and_name_the_problem(argv, words, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    assert words in capsys.readouterr().err


def test_an_unwritable_json_path_is_refused_before_anything_runs(capsys):
    code, _out, err = _main(["check", "--json", "/proc/gpulab-check.json"], capsys)
    assert code == 2 and "--json /proc/gpulab-check.json" in err


def test_the_report_reads_in_chinese(capsys):
    code, out, _err = _main(["check", "--only", "software.nvrtc,software.mpi", "--lang", "zh"], capsys)
    assert code == 0 and "NVRTC 已把一个测试核函数编译为 PTX" in out


# ---------------------------------------------------------------------- verdicts
@pytest.mark.parametrize("code, verdict, action", [
    ("ok", Verdict.PASS, None),
    ("no-cupy", Verdict.SKIP, None),
    ("no-driver", Verdict.SKIP, "check.action.install-driver"),
    ("old-driver", Verdict.FAIL, "check.action.update-driver"),
    ("no-device", Verdict.FAIL, "check.action.no-device"),
    ("cupy-broken", Verdict.FAIL, "check.action.reinstall-cupy"),
])
def test_each_cuda_probe_reason_has_its_verdict_and_action(code, verdict, action):
    report = _report(Context(devices=_Layer(_status(code, code == "ok"))), ["software.cuda"])
    (row,) = report.rows
    assert row.verdict is verdict
    assert (row.action.key if row.action else None) == action
    assert report.exit_code() == (1 if verdict is Verdict.FAIL else 0)


def test_require_gpu_turns_a_missing_driver_into_a_failure():
    report = _report(Context(require_gpu=True, devices=_Layer(_status("no-driver"))), ["software.cuda"])
    assert report.rows[0].verdict is Verdict.FAIL and report.exit_code() == 1


def test_a_check_that_raises_is_a_failed_row_naming_the_error_and_the_run_goes_on():
    @register("test.raises")
    def raising_check(ctx):
        yield msg("check.progress.looking", what="x")
        raise MemoryError("allocation failed mid-check")

    try:
        report = _report(Context(), ["test.raises", "software.nvrtc"])
    finally:
        del CHECKS["test.raises"]
    rows = {row.check: row for row in report.rows}
    broken = rows["test.raises"]
    assert broken.verdict is Verdict.FAIL and "MemoryError: allocation failed mid-check" in render(broken.reason)
    assert rows["software.nvrtc"].verdict is not Verdict.FAIL  # the run went on past it
    assert report.exit_code() == 1


@pytest.mark.parametrize("value, expected, noise, verdict", [
    (100.0, 300.0, [], Verdict.PASS),  # 33 % of the peak: over the 30 % floor
    (50.0, 300.0, [], Verdict.WARN),  # 17 %: far below what a healthy machine does
    (50.0, 300.0, ["busy"], Verdict.WARN),  # noisy: no verdict on the hardware
    (50.0, None, [], Verdict.SKIP),  # no expectation: the value is kept, no verdict
])
def test_a_cpu_rate_is_judged_against_this_cpus_expectation(value, expected, noise, verdict):
    row = cpu.judge_rate("cpu.blas", value, expected, noise, "GFLOP/s", "cpu.blas", {})
    assert row.verdict is verdict and row.value == value
    if noise:
        assert row.source == "cpu.noise" and row.action is not None and row.action.key == "check.action.rerun-idle"
    if verdict is Verdict.WARN and not noise:
        assert row.threshold == 90.0 and row.comparison == ">="
    assert render(row.reason, "zh") != render(row.reason)


def test_cpu_clocks_are_sampled_during_a_timed_block_and_none_where_the_os_does_not_tell(monkeypatch, qtbot):
    import psutil

    given = []

    def reading():
        given.append(None)
        return SimpleNamespace(current=[2400.0, 1200.0, 3000.0][min(len(given), 3) - 1], min=0.0, max=0.0)

    monkeypatch.setattr(psutil, "cpu_freq", reading)
    with cpu.sampled_clocks(interval_s=0.001) as clocks:
        qtbot.waitUntil(lambda: len(given) >= 3, timeout=10_000)  # the block runs while the thread samples
    assert clocks["cpu_clock_mhz_min"] == 1200.0 and clocks["cpu_clock_mhz_max"] == 3000.0
    assert clocks["cpu_clock_samples"] == len(given)
    monkeypatch.setattr(psutil, "cpu_freq", lambda: None)
    with cpu.sampled_clocks(interval_s=0.001) as clocks:
        pass
    assert clocks == {"cpu_clock_mhz_min": None, "cpu_clock_mhz_max": None, "cpu_clock_samples": 0}


def test_the_fma_peak_follows_the_vector_extensions():
    assert cpu.fma_flop_per_cycle({"avx512f", "avx2", "fma"}) == 64
    assert cpu.fma_flop_per_cycle({"avx2", "fma", "sse2"}) == 32
    assert cpu.fma_flop_per_cycle({"sse2"}) == 8
    assert cpu.fma_flop_per_cycle(set()) is None
    assert cpu.expected_gflop_s(2, 2500.0, {"avx512f"}) == 320.0
    assert cpu.expected_gflop_s(2, None, {"avx512f"}) is None


def test_a_report_survives_json_and_counts_its_verdicts():
    rows = [Row("a", Verdict.PASS, msg("check.action.rerun-idle")),
            Row("b", Verdict.FAIL, msg("check.action.rerun-idle"), msg("check.action.report-bug"), 1.5, "GB/s",
                2.0, ">=", "cpu.triad", "gpu1", "node7", 3, {"clock_mhz": 1410})]
    report = CheckReport(rows, "full", {"host": "node7"}, {"gpulab": "0"}, "2026-12-04T05:00:00+00:00", 1.0)
    again = CheckReport.from_json(json.loads(json.dumps(report.to_json())))
    assert again.rows == rows and again.exit_code() == 1
    assert again.counts()[Verdict.FAIL] == 1 and again.counts()[Verdict.PASS] == 1
    with pytest.raises(ValueError, match="not a gpulab check report"):
        CheckReport.from_json({"schema": "gpulab.result/2"})


def test_every_registered_check_has_a_title_in_both_languages():
    for check_id in load_checks():
        title = msg(f"check.{check_id}.title")
        assert render(title) != render(title, "zh"), check_id


# ---------------------------------------------------------------------- the HTML page
def _html_report() -> CheckReport:
    rows = [Row("cpu.blas", Verdict.PASS, msg("check.reason.within-expected", value="158.0", unit="GFLOP/s",
                                              share="48%", expected="332"), value=158.0, unit="GFLOP/s",
                threshold=99.7, comparison=">=", source="cpu.blas", host="node<1>"),
            Row("software.cuda", Verdict.FAIL, msg("check.reason.crashed", error="<script>alert(1)</script>"),
                msg("check.action.update-driver"), device="host", host="node<1>")]
    return CheckReport(rows, "quick", {"host": "node<1>"}, {"gpulab": "0.1.0"}, "2026-12-04T05:00:00+00:00", 2.5)


@pytest.mark.parametrize("lang, words", [("en", ["FAIL", "Exit code 1", "Agner Fog"]),
                                         ("zh", ["失败", "退出码 1", "Agner Fog"])])
def test_the_html_page_is_self_contained_escaped_and_in_the_chosen_language(lang, words):
    from gpulab.check.html import render_html

    page = render_html(_html_report(), lang)
    assert all(word in page for word in words)
    assert "<script>" not in page and "&lt;script&gt;" in page and "node&lt;1&gt;" in page
    assert "http://" not in page.replace("https://www.agner.org", "").replace("https://www.cs.virginia.edu", "")
    assert "<link" not in page and "src=" not in page  # nothing fetched from anywhere


def test_the_html_page_renders_in_a_headless_browser(tmp_path):
    import shutil
    import subprocess

    from gpulab.check.html import render_html

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium renders the report headless)")
    page = tmp_path / "check.html"
    page.write_text(render_html(_html_report(), "zh"), encoding="utf-8")
    shot = tmp_path / "check.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                    "--window-size=1024,768", page.as_uri()], capture_output=True, timeout=120, check=False)
    assert shot.exists() and shot.stat().st_size > 5_000  # a painted page, not an empty one


def test_nccl_is_only_looked_for_with_two_gpus():
    report = _report(Context(devices=_Layer(_status("no-cupy"))), ["software.nccl"])
    assert report.rows[0].verdict is Verdict.SKIP and "NCCL needs two or more" in render(report.rows[0].reason)


# ---------------------------------------------------------------------- fleet mode
def test_the_nodes_reports_merge_into_one_whose_rows_name_host_and_rank():
    from gpulab.check.fleet import merge

    def node(host: str, rank: int, verdict: Verdict) -> dict:
        row = Row("cpu.triad", verdict, msg("check.action.rerun-idle"), value=30.0, unit="GB/s", host=host, rank=rank)
        return CheckReport([row], "quick", {"host": host}, {"gpulab": "0"}, "2026-12-04T05:00:00+00:00", 1.0).to_json()

    report = merge([node("n1", 0, Verdict.PASS), None, node("n2", 2, Verdict.FAIL)])
    assert [(r.host, r.rank) for r in report.rows] == [("n1", 0), ("n2", 2)]
    assert set(report.machine["nodes"]) == {"n1", "n2"}
    assert report.exit_code() == 1  # one node failed: the fleet failed


def _mpiexec():
    from gpulab.cluster.mpi_backend import find_launcher, launch_env

    launcher = find_launcher()
    if launcher is None:
        pytest.skip("no mpiexec here (pip install -e '.[mpi]' brings Open MPI)")
    return launcher, launch_env()


@pytest.mark.parametrize("extra, code", [(["--only", "software.nvrtc,software.mpi"], 0),
                                         (["--only", "software.cuda", "--require-gpu"], 1)])
def test_under_mpiexec_each_node_checks_once_and_every_rank_exits_with_the_fleets_code(tmp_path, extra, code):
    import subprocess
    import sys

    launcher, env = _mpiexec()
    out = tmp_path / "fleet.json"
    done = subprocess.run([launcher, "-n", "3", "--oversubscribe", sys.executable, "-m", "gpulab.cli", "check",
                           *extra, "--json", str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == code, done.stderr[-2000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {row["rank"] for row in data["rows"]} == {0}  # three ranks of one node: its first checks it
    assert len(data["machine"]["nodes"]) == 1 and data["exit_code"] == code
    assert done.stdout.count("Exit code") == 1  # rank 0 alone prints the report


def test_a_unit_that_is_a_word_reads_in_the_chosen_language_and_a_symbol_stays():
    errors = Row("gpu.ecc", Verdict.FAIL, msg("check.gpu.ecc.ok", corrected=0, limit=100), value=2.0, unit="errors",
                 threshold=0.0, comparison="<=")
    rate = Row("cpu.triad", Verdict.PASS, msg("check.cpu.blas.title"), value=37.0, unit="GB/s")
    assert errors.value_text() == "2 errors (<= 0)" and errors.value_text("zh") == "2 个错误 (<= 0)"
    assert rate.value_text("zh") == rate.value_text() == "37 GB/s"


def test_a_row_measured_per_data_type_names_its_type_in_its_title_and_an_unknown_check_keeps_its_id():
    fp16 = Row("gpu.matmul", Verdict.PASS, msg("check.cpu.blas.title"), facts={"dtype": "fp16"})
    newer = Row("gpu.future", Verdict.PASS, msg("check.cpu.blas.title"))
    assert fp16.title() == "GPU matrix multiply (cuBLAS) by data type · FP16"
    assert fp16.title("zh").endswith(" · FP16") and fp16.title("zh") != fp16.title()
    assert newer.title() == "gpu.future"


def test_the_html_plot_draws_sibling_devices_on_one_scale_so_the_slow_one_is_short():
    from gpulab.check.html import render_html

    def triad(device: str, value: float) -> Row:
        return Row("gpu.triad", Verdict.PASS, msg("check.cpu.blas.title"), value=value, unit="GB/s", threshold=2400.0,
                   comparison=">=", device=device, facts={"model": "H100"})

    page = render_html(CheckReport([triad("gpu0", 3000.0), triad("gpu1", 1500.0)], "quick"))
    widths = [float(w) for w in re.findall(r'<rect x="0" y="3" width="([0-9.]+)"', page)]
    assert len(widths) == 2 and widths[1] == pytest.approx(widths[0] / 2, rel=0.01)
