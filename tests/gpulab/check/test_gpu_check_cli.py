"""`gpulab check` with the real device layer on a machine without a usable GPU: the GPU checks give one
skip row saying why, and --require-gpu turns it into a failure with exit code 1."""

from __future__ import annotations

import json

import pytest

from gpulab import cli
from gpulab.catalogue import msg, render
from gpulab.check import device
from gpulab.devices import CudaStatus

GPU_ONLY = "gpu.ecc,gpu.remap,gpu.throttle,gpu.pcie"


@pytest.fixture(autouse=True)
def no_driver(monkeypatch):
    reason = msg("device.reason.no-driver", runtime="12.9")
    status = CudaStatus(False, render(reason), "no-driver", (), "13.6.0", "12.9", None, reason)
    monkeypatch.setattr(device, "probe_cuda", lambda: status)


def test_without_a_gpu_the_gpu_checks_are_one_skip_and_exit_0(capsys):
    assert cli.main(["check", "--only", GPU_ONLY, "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(row["check"], row["verdict"], row["device"]) for row in report["rows"]] == [("gpu", "skip", "gpu")]
    assert "No NVIDIA driver is installed" in report["rows"][0]["reason"]["text"]


def test_without_a_gpu_require_gpu_fails_with_exit_code_1(capsys):
    assert cli.main(["check", "--only", GPU_ONLY, "--require-gpu", "--lang", "zh"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("失败  GPU 检查 [gpu]") and "退出码 1。" in out  # the verdict takes 5 columns, as in English
