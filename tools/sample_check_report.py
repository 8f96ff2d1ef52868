"""Remake resources/check/sample-report.json, the labelled sample the Check page's screenshots open.

    python tools/sample_check_report.py

Its four GPUs are gpulab's test double (tests/gpulab/check/fakes.py) with faults injected on
purpose; its software and CPU rows are measured on the machine that runs this script. The report
says so in its machine note, so nobody reads it as a real server's.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpulab.check.registry import Context  # noqa: E402
from gpulab.check.run import check_report  # noqa: E402
from tests.gpulab.check.fakes import HEALTHY_IDLE, HEALTHY_LOADED, FakeLayer, perf_gpu  # noqa: E402

NOTE = ("A sample report, made by tools/sample_check_report.py for gpulab's screenshots and tests: its four GPUs "
        "are gpulab's test double (tests/gpulab/check/fakes.py) with faults injected on purpose (corrected ECC "
        "errors on gpu0; an uncorrectable ECC error and Xid 48 on gpu1; gpu2 30 % slower than its siblings; a "
        "Gen3 PCIe link on gpu3); its software and CPU rows were measured on the machine that made it.")


def sample_layer() -> FakeLayer:
    gpus = [perf_gpu(i) for i in range(4)]
    gpus[0].idle = dataclasses.replace(HEALTHY_IDLE, ecc_corrected_volatile=150)
    gpus[1].idle = dataclasses.replace(HEALTHY_IDLE, ecc_uncorrected_volatile=2)
    gpus[2].perf = dataclasses.replace(gpus[2].perf, scale=0.7)
    gpus[3].loaded = dataclasses.replace(HEALTHY_LOADED, pcie_gen_current=3)
    xid = "NVRM: Xid (PCI:0000:19:00): 48, pid=2211, name=python, An uncorrectable double bit error (DBE)"
    return FakeLayer(*gpus, kernel_log=[xid])


def main() -> int:
    report = check_report(Context(devices=sample_layer(), host="sample-node"))
    data = report.to_json()
    data["machine"] = {**data["machine"], "host": "sample-node", "note": NOTE}
    for row in data["rows"]:
        row["host"] = "sample-node"
    path = ROOT / "resources" / "check" / "sample-report.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}: {len(data['rows'])} rows, {data['summary']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
