"""Fleet mode without a launcher: the fabric read from a fake sysfs, the cross-node AllReduce's verdicts,
a node that did not report named as a failure, the merged report's node × device table and sources in
the text report and on the HTML page (in both languages)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulab.catalogue import msg, render
from gpulab.check import fleet
from gpulab.check.fabric import Link, fastest_link
from gpulab.check.html import render_html
from gpulab.check.model import CheckReport, Row, Verdict
from gpulab.check.registry import Context
from gpulab.check.run import check_report
from gpulab.commands.check import format_report
from tests.gpulab.check.fakes import FakeLayer, fault

IB_200 = Link("infiniband", "mlx5_0/1", 200.0)


# ---------------------------------------------------------------------- the fabric
def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")


def test_the_fastest_active_infiniband_port_is_the_nodes_fabric(tmp_path):
    ports = tmp_path / "class" / "infiniband"
    for hca, rate, state in (("mlx5_0", "400 Gb/sec (4X NDR)", "1: DOWN"),
                             ("mlx5_1", "200 Gb/sec (4X HDR)", "4: ACTIVE"),
                             ("mlx5_2", "100 Gb/sec (4X EDR)", "4: ACTIVE")):
        _write(ports / hca / "ports" / "1" / "rate", rate)
        _write(ports / hca / "ports" / "1" / "state", state)
        _write(ports / hca / "ports" / "1" / "link_layer", "InfiniBand")
    assert fastest_link(tmp_path) == Link("infiniband", "mlx5_1/1", 200.0)  # the 400 Gb/s port is down


def test_without_infiniband_a_physical_nics_speed_is_the_fabric_and_virtual_ones_are_unknown(tmp_path):
    net = tmp_path / "class" / "net"
    for name, speed, physical in (("eth0", "25000", True), ("eth1", "-1", True), ("docker0", "10000", False)):
        _write(net / name / "speed", speed)
        _write(net / name / "operstate", "up")
        if physical:
            (net / name / "device").mkdir()
    assert fastest_link(tmp_path) == Link("ethernet", "eth0", 25.0)
    (net / "eth0" / "operstate").write_text("down\n", encoding="utf-8")
    assert fastest_link(tmp_path) is None  # a VM's virtio NIC says -1: the fabric is unknown


# ---------------------------------------------------------------------- the cross-node AllReduce
def _members(hosts: list[str], link: Link | None = IB_200) -> list[fleet.Member]:
    return [fleet.Member(rank, host, host, True, link) for rank, host in enumerate(hosts)]


def _point(busbw_gb_s: float, wrong: int = 0) -> dict:
    return {"busbw_gb_s": busbw_gb_s, "algbw_gb_s": busbw_gb_s * 0.75, "message_bytes": 1 << 24, "seconds": 0.01,
            "busbw_iqr": 0.1, "repeats": 12, "wrong": wrong}


@pytest.mark.parametrize("busbw, hosts, link, verdict, words", [
    (20.0, ["n1", "n2"], IB_200, Verdict.PASS, "80% of the 200 Gb/s infiniband link"),
    (5.0, ["n1", "n2"], IB_200, Verdict.WARN, "TCP instead of InfiniBand"),
    (20.0, ["n1", "n2"], None, Verdict.SKIP, "fabric's speed is not known on n1, n2"),
    (20.0, ["vm", "vm"], IB_200, Verdict.SKIP, "all on one host"),
])
def test_the_allreduce_is_judged_against_the_slowest_nodes_link_or_skipped_saying_why(busbw, hosts, link, verdict,
                                                                                      words):
    row = fleet.allreduce_row(_point(busbw), _members(hosts, link), each_rank_a_node=False)
    assert row.verdict is verdict and row.value == busbw and row.unit == "GB/s"
    assert words in render(row.reason)
    if verdict in (Verdict.PASS, Verdict.WARN):
        assert row.threshold == 10.0 and row.source == "fleet.allreduce"  # 40 % of 25 GB/s, cited
    else:
        assert row.threshold is None  # no invented threshold


def test_wrong_sums_between_nodes_fail_and_one_node_has_nothing_to_measure():
    row = fleet.allreduce_row(_point(20.0, wrong=7), _members(["n1", "n2"]), False)
    assert row.verdict is Verdict.FAIL and "7 wrong elements" in render(row.reason)
    alone = fleet.allreduce_row(None, _members(["n1"]), False)
    assert alone.verdict is Verdict.SKIP and alone.value is None


# ---------------------------------------------------------------------- a node that does not report
class _Comm:
    """Rank 0's view of MPI: reports that arrive after some polls (or never)."""

    def __init__(self, arriving: dict[int, tuple[int, dict]]) -> None:
        self.arriving, self.polls = arriving, 0

    def Get_rank(self) -> int:
        return 0

    def Iprobe(self, source: int, tag: int) -> bool:
        self.polls += 1
        after, _document = self.arriving.get(source, (10**9, {}))
        return tag == fleet.REPORT_TAG and self.polls >= after

    def recv(self, source: int, tag: int) -> dict:
        return self.arriving[source][1]


def test_a_node_that_does_not_report_by_the_deadline_is_a_failure_naming_its_rank_and_host():
    members = _members(["n1", "n2", "n3"])
    collector = fleet.Collector(members)
    collector.add(0, _node_report("n1", 0).to_json())
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    comm = _Comm({1: (3, _node_report("n2", 1).to_json())})  # rank 2 never sends
    collector.wait(comm, deadline=5.0, clock=lambda: now[0], sleep=sleep)
    assert sorted(collector.documents) == [0, 1] and [m.rank for m in collector.missing()] == [2]
    assert now[0] >= 5.0  # it waited until the deadline, not forever
    report = fleet.fleet_report(collector, None, msg("check.fleet.node.timeout", seconds="5"), False)
    (missing,) = [r for r in report.rows if r.check == "fleet.node"]
    assert missing.verdict is Verdict.FAIL and (missing.rank, missing.host) == (2, "n3")
    assert "Rank 2 on n3 did not report: no report within 5 s" in render(missing.reason)
    assert "drain" in render(missing.action) and report.exit_code() == 1
    assert report.machine["fleet"]["reported"] == 2 and report.machine["fleet"]["nodes"] == 3


def test_the_test_hook_does_nothing_without_its_variable(monkeypatch):
    monkeypatch.delenv(fleet.TEST_FAULT_VARIABLE, raising=False)
    fleet.injected_fault_for_tests(2)  # returns: no fault asked for
    monkeypatch.setenv(fleet.TEST_FAULT_VARIABLE, "exit:1")
    fleet.injected_fault_for_tests(2)  # another rank's fault


# ---------------------------------------------------------------------- the merged report
def _node_report(host: str, rank: int, *gpus, blas: float = 150.0) -> CheckReport:
    """A node's report: the real GPU health checks on fake GPUs, and a CPU BLAS row."""
    ctx = Context(devices=FakeLayer(*gpus), host=host, rank=rank)
    report = check_report(ctx, ["software.cuda", "gpu.ecc", "gpu.pcie"] if gpus else ["software.nvrtc"])
    blas_row = Row("cpu.blas", Verdict.PASS, msg("check.reason.within-expected", value=f"{blas:g}", unit="GFLOP/s",
                                                 share="45%", expected="332"),
                   value=blas, unit="GFLOP/s", threshold=99.7, comparison=">=", source="cpu.blas", host=host,
                   rank=rank, facts={"model": "Xeon Gold 6430"})
    report.rows.append(blas_row)
    return report


def three_node_report() -> CheckReport:
    """Three nodes: n1 healthy, n2 with an uncorrectable ECC error on gpu1 and a CPU far behind the
    others (an outlier that cleared its own threshold), n3 that did not report."""
    members = [fleet.Member(0, "n1", "n1", True, IB_200), fleet.Member(1, "n1", "n1", False),
               fleet.Member(2, "n2", "n2", True, IB_200), fleet.Member(3, "n3", "n3", True, IB_200)]
    collector = fleet.Collector(members)
    collector.add(0, _node_report("n1", 0, fault(0), fault(1)).to_json())
    broken = fault(1, idle={"ecc_uncorrected_volatile": 2}, loaded={"ecc_uncorrected_volatile": 2})
    collector.add(2, _node_report("n2", 2, fault(0), broken, blas=100.0).to_json())
    return fleet.fleet_report(collector, _point(7.2), msg("check.fleet.node.timeout", seconds="300"), False)


def test_the_merged_report_names_every_rows_rank_host_and_device_and_finds_outliers_across_nodes():
    report = three_node_report()
    data = json.loads(json.dumps(report.to_json()))
    assert data["schema"] == "gpulab.check/1" and data["exit_code"] == 1
    assert all({"rank", "host", "device"} <= set(row) for row in data["rows"])
    by = {(r.check, r.host, r.device): r for r in report.rows}
    assert by[("gpu.ecc", "n2", "gpu1")].verdict is Verdict.FAIL
    outlier = by[("cpu.blas", "n2", "cpu")]
    assert outlier.verdict is Verdict.FAIL and outlier.source == "outliers"  # 100 vs the median 150 of n1's
    assert by[("fleet.allreduce", "n1", "fabric")].verdict is Verdict.WARN  # 7.2 GB/s on 200 Gb/s: 29 %
    assert by[("fleet.node", "n3", "report")].rank == 3


def test_the_text_report_has_the_node_by_device_table_the_outliers_and_the_sources():
    text = format_report(three_node_report())
    table = text[text.index("Nodes × devices"):]
    lines = table.splitlines()
    assert lines[1].split() == ["Node", "report", "host", "cpu", "gpu0", "gpu1"]
    assert lines[2].split() == ["n1", "-", "PASS", "PASS", "PASS", "PASS"]
    assert lines[3].split() == ["n2", "-", "PASS", "FAIL*", "PASS", "FAIL"]
    assert lines[4].split() == ["n3", "FAIL", "-", "-", "-", "-"]
    assert "Outliers:" in table and "n2 cpu" in table
    assert "[rank 3 n3 report]" in text and "Rank 3 on n3 did not report" in text
    sources = text[text.index("Sources of the thresholds:"):]
    assert "[1]" in sources and "nccl-tests" in sources and "Agner Fog" in sources
    assert text.splitlines()[-1].endswith("Exit code 1.")


def test_the_chinese_text_report_lines_up_its_table():
    text = format_report(three_node_report(), "zh")
    lines = text[text.index("节点 × 设备"):].splitlines()
    assert lines[3].split() == ["n2", "-", "通过", "失败*", "通过", "失败"]
    # CJK words take two columns: the cells still start under their headers
    from gpulab.commands.check import _width

    head, row = lines[1], lines[3]
    assert _width(head[:head.index("gpu1")]) == _width(row[:row.rindex("失败")])


@pytest.mark.parametrize("lang, words", [
    ("en", ["Nodes and devices", "Measured rates against their thresholds", "Sources of the thresholds",
            "Logical cores", "gpulab version", "Nodes that reported", "rank 3 · n3 · report", "Outliers:"]),
    ("zh", ["节点与设备", "测得速率与阈值对比", "阈值依据", "逻辑核心数", "gpulab 版本", "已上报的节点数", "离群设备",
            "失败*", "进程 3 · n3 · report"]),
])
def test_the_html_page_has_the_table_the_plot_and_labelled_facts_in_the_chosen_language(lang, words):
    page = render_html(three_node_report(), lang)
    missing = [w for w in words if w not in page]
    assert not missing
    assert page.count("<svg") == len([r for r in three_node_report().rows if r.unit.endswith("/s")])
    assert "<script" not in page and "src=" not in page and "<link" not in page
    if lang == "zh":
        assert ">logical_cores<" not in page and ">gpulab<" not in page  # labels, not the JSON keys


def test_the_html_plot_marks_each_threshold():
    page = render_html(three_node_report())
    plot = page[page.index('<table class="plot">'):]
    plot = plot[:plot.index("</table>")]
    assert plot.count("<line ") == 3  # both BLAS rows and the AllReduce have thresholds
    assert "#cf222e" in plot  # the outlier's bar is red
