"""The Xid check: kernel-log lines matched to GPUs by PCI address and judged by NVIDIA's catalogue."""

from __future__ import annotations

import subprocess

import pytest

from gpulab.catalogue import render
from gpulab.check import xid
from gpulab.check.model import Verdict
from tests.gpulab.check.fakes import FakeGpu, FakeLayer
from tests.gpulab.check.test_gpu_health import run

# FakeGpu(i) sits at PCI 0000:(0x18 + i):00.0; NVML writes the domain with eight digits.
GPU0 = "[ 269.51] NVRM: Xid (PCI:0000:18:00): {code}, pid=1896, name=python, Channel 00000008"
GPU1_OLD_STYLE = "NVRM: Xid (0000:19:00.0): {code}, C 00000005 SC 00000007"


def xid_rows(*lines, gpus=2):
    report = run(FakeLayer(*(FakeGpu(i) for i in range(gpus)), kernel_log=list(lines)), ["gpu.xid"])
    return {row.device: row for row in report.rows}, report


def test_a_clean_log_passes_every_gpu_and_counts_nothing():
    rows, report = xid_rows("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15")
    assert {d: (r.verdict, r.value) for d, r in rows.items()} == {"gpu0": (Verdict.PASS, 0.0),
                                                                  "gpu1": (Verdict.PASS, 0.0)}
    assert report.exit_code() == 0


def test_a_gpu_that_fell_off_the_bus_fails_and_only_that_gpu():
    rows, report = xid_rows(GPU0.format(code=79), GPU0.format(code=79), GPU1_OLD_STYLE.format(code=13))
    assert rows["gpu0"].verdict is Verdict.FAIL and rows["gpu0"].value == 2
    assert "Xid 79 ×2 (GPU has fallen off the bus)" in render(rows["gpu0"].reason)
    assert "Drain the node" in render(rows["gpu0"].action) and "已从总线上掉线" in render(rows["gpu0"].reason, "zh")
    # Xid 13 is usually a program's out-of-range access: listed, and the GPU passes.
    assert rows["gpu1"].verdict is Verdict.PASS and "Xid 13 ×1" in render(rows["gpu1"].reason)
    assert report.exit_code() == 1


@pytest.mark.parametrize(("code", "verdict"), [(63, Verdict.WARN), (94, Verdict.WARN), (48, Verdict.FAIL),
                                               (95, Verdict.FAIL), (31, Verdict.PASS), (4242, Verdict.WARN)])
def test_each_kind_of_xid_gets_its_verdict(code, verdict):
    rows, _ = xid_rows(GPU0.format(code=code), gpus=1)
    assert rows["gpu0"].verdict is verdict
    assert rows["gpu0"].facts["xid_counts"] == {str(code): 1}


def test_an_unknown_code_says_to_look_it_up_and_a_reset_code_names_the_gpu_to_reset():
    rows, _ = xid_rows(GPU0.format(code=4242), gpus=1)
    assert "look it up in NVIDIA's Xid catalog" in render(rows["gpu0"].reason)
    assert "nvidia-smi -r -i 0000:18:00.0" in render(rows["gpu0"].action)


def test_lines_for_a_gpu_not_checked_here_are_not_blamed_on_another():
    rows, _ = xid_rows("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", gpus=2)
    assert all(row.verdict is Verdict.PASS for row in rows.values())


def test_an_unreadable_kernel_log_is_a_skip_that_says_how_to_read_it_never_a_pass():
    layer = FakeLayer(FakeGpu(0), kernel_log=xid.KernelLogUnavailable(
        "dmesg: read kernel buffer failed: Operation not permitted"))
    (row,) = run(layer, ["gpu.xid"]).rows
    assert row.verdict is Verdict.SKIP
    assert "Operation not permitted" in render(row.reason) and "sudo dmesg | grep Xid" in render(row.reason)


def test_without_a_gpu_the_check_adds_nothing_to_the_single_no_gpu_row():
    report = run(FakeLayer(), ["gpu.ecc", "gpu.xid"])
    assert [(row.check, row.verdict) for row in report.rows] == [("gpu", Verdict.SKIP)]


def test_pci_addresses_from_nvml_and_from_the_log_name_the_same_gpu():
    assert xid.pci_key("00000000:18:00.0") == xid.pci_key("0000:18:00") == (0, 0x18, 0)
    assert xid.pci_key("not an address") is None and xid.pci_key(None) is None


def test_every_listed_code_has_a_name_in_both_languages():
    for code in xid.classes():
        assert render(xid._name(code)) != render(xid._name(code), "zh")


def test_the_real_reader_returns_nvrm_lines_or_says_why_not(monkeypatch):
    calls = []

    def fake_run(command, **kwargs):
        calls.append(command[0])
        if command[0] == "dmesg":
            refused = "dmesg: read kernel buffer failed: Operation not permitted"
            return subprocess.CompletedProcess(command, 1, "", refused)
        journal = "kernel: usb 1-1: new device\nkernel: " + GPU0.format(code=79)
        return subprocess.CompletedProcess(command, 0, journal, "")

    monkeypatch.setattr(xid.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(xid.subprocess, "run", fake_run)
    lines = xid.read_kernel_log()
    assert calls == ["dmesg", "journalctl"] and len(lines) == 1 and xid.parse(lines) == [((0, 0x18, 0), 79)]
    monkeypatch.setattr(xid.shutil, "which", lambda name: None)
    with pytest.raises(xid.KernelLogUnavailable, match="dmesg: not installed; journalctl: not installed"):
        xid.read_kernel_log()
