"""Cross-check the trace doctor against Holistic Trace Analysis (HTA) on the same Kineto traces.

    python tools/trace_hta_crosscheck.py --hta-python /path/to/venv-with-HTA/bin/python TRACE.json.gz ...

HTA is not a dependency of gpulab: it runs in its own interpreter (a venv where
``pip install HolisticTraceAnalysis`` was done), through its public API only (TraceAnalysis:
get_temporal_breakdown, get_idle_time_breakdown, get_comm_comp_overlap). The traces are HTA's own
published samples (its repository's tests/data), used locally and never committed. Prints a
Markdown table: metric, HTA, gpulab over the whole trace, gpulab over the profiler steps (the
window HTA uses when the trace has steps).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HTA_SCRIPT = r"""
import json, sys, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
analysis = TraceAnalysis(trace_dir=sys.argv[1])
temporal = analysis.get_temporal_breakdown(visualize=False).to_dict("records")[0]
idle = analysis.get_idle_time_breakdown(visualize=False, show_idle_interval_stats=False)
idle = (idle[0] if isinstance(idle, tuple) else idle).groupby("idle_category")["idle_time"].sum().to_dict()
overlap = analysis.get_comm_comp_overlap(visualize=False).to_dict("records")[0]["comp_comm_overlap_pctg"]
print("HTA-JSON" + json.dumps({"temporal": temporal, "idle": idle, "overlap": overlap}, default=float))
"""


def run_hta(python: str, trace: Path) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(trace, Path(folder) / trace.name)
        done = subprocess.run([python, "-c", HTA_SCRIPT, folder], capture_output=True, text=True, timeout=600)
    line = next((row for row in done.stdout.splitlines() if row.startswith("HTA-JSON")), None)
    if line is None:
        raise SystemExit(f"HTA failed on {trace}: {done.stderr[-800:]}")
    return json.loads(line[len("HTA-JSON"):])


def run_gpulab(trace: Path) -> tuple[dict, dict]:
    from gpulab.trace import diagnose, read_trace
    from gpulab.trace.analysis import add_up

    diagnosis = diagnose(read_trace(trace))
    whole = diagnosis.overall.figures()
    steps = add_up(part for parts in diagnosis.per_step.values() for _step, part in parts)
    return whole, (steps.figures() if steps.window_ns else {})


def _pct(value: object) -> str:
    return "n/a" if value is None or value != value else f"{float(value):.1f} %"  # type: ignore[arg-type]


def table(trace: Path, hta: dict, whole: dict, steps: dict) -> str:
    temporal, idle = hta["temporal"], hta["idle"]
    idle_total = sum(idle.values()) or 1.0
    rows = [
        ("window (ms)", f"{temporal['kernel_time(us)'] / 1e3:.1f}", f"{whole['window_ns'] / 1e6:.1f}",
         f"{steps.get('window_ns', 0) / 1e6:.1f}"),
        ("compute share", _pct(temporal["compute_time_pctg"]), _pct(100 * whole["compute_share"]),
         _pct(100 * steps.get("compute_share", float("nan")))),
        ("non-compute share (HTA) = communication + memory (gpulab)", _pct(temporal["non_compute_time_pctg"]),
         _pct(100 * (whole["communication_share"] + whole["memory_share"])),
         _pct(100 * (steps.get("communication_share", float("nan")) + steps.get("memory_share", 0)))),
        ("idle share", _pct(temporal["idle_time_pctg"]), _pct(100 * whole["idle_share"]),
         _pct(100 * steps.get("idle_share", float("nan")))),
        ("comm overlapped with compute", _pct(hta["overlap"]), _pct(100 * whole["comm_overlap_share"])
         if whole["comm_overlap_share"] is not None else "n/a",
         _pct(100 * steps["comm_overlap_share"]) if steps.get("comm_overlap_share") is not None else "n/a"),
        ("idle: host wait (HTA, summed per stream) / waiting for CPU launch (gpulab, per GPU)",
         _pct(100 * idle.get("host_wait", 0) / idle_total),
         _pct(100 * whole["idle_breakdown_share"]["cpu_launch"] / (whole["idle_share"] or 1)),
         _pct(100 * steps["idle_breakdown_share"]["cpu_launch"] / (steps["idle_share"] or 1)) if steps else "n/a"),
    ]  # fmt: skip
    lines = [f"### {trace.name}", "", "| metric | HTA | gpulab (whole trace) | gpulab (profiler steps) |",
             "| --- | --- | --- | --- |"]  # fmt: skip
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hta-python", required=True, help="a Python interpreter with HolisticTraceAnalysis")
    parser.add_argument("traces", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for trace in args.traces:
        whole, steps = run_gpulab(trace)
        print(table(trace, run_hta(args.hta_python, trace), whole, steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
