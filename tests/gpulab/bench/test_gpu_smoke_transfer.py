"""The smoke test's transfer target: pinned host-to-GPU at 256 MiB against 80% of the link, read from a run document."""

from __future__ import annotations

import json

import pytest

from gpulab.bench import gpu_smoke


def _document(percent, link="PCIe Gen5 x16", y=51.0):
    extra = {} if percent is None else {"percent_of_peak": percent}
    series = {"key": "h2d-pinned", "provenance": {"kind": "measured", "details": {"link": link}},
              "points": [{"x": 4096, "y": 0.5, "extra": {}}, {"x": 1 << 28, "y": y, "extra": extra}]}
    return {"schema": "gpulab.result/2", "series": [series]}


@pytest.mark.parametrize(("percent", "status", "words"), [
    (85.0, "ok", "85% of PCIe Gen5 x16 (target >= 80%: met)"),
    (62.0, "failed", "62% of PCIe Gen5 x16 (target >= 80%: NOT met)"),
    (None, "skipped", "no link rate to compare with"),
])  # fmt: skip
def test_the_transfer_target_is_read_from_the_run_document(tmp_path, percent, status, words):
    path = tmp_path / "run-transfer.json"
    path.write_text(json.dumps(_document(percent)), encoding="utf-8")
    got, detail = gpu_smoke.transfer_target(path)
    assert got == status and words in detail


def test_a_missing_or_short_run_fails_the_transfer_target(tmp_path):
    assert gpu_smoke.transfer_target(tmp_path / "absent.json")[0] == "failed"
    document = _document(90.0)
    document["series"][0]["points"].pop()
    (tmp_path / "short.json").write_text(json.dumps(document), encoding="utf-8")
    status, detail = gpu_smoke.transfer_target(tmp_path / "short.json")
    assert status == "failed" and "256 MiB" in detail


def test_the_full_sweep_step_runs_every_power_of_two_from_4_kib_to_1_gib():
    sizes = gpu_smoke.TRANSFER_FULL_SWEEP[0].removeprefix("sizes=").split(",")
    assert [int(s) for s in sizes] == [1 << e for e in range(12, 31)]
    assert gpu_smoke.STEP_TIMEOUT_S["transfer-full"] == 60.0
