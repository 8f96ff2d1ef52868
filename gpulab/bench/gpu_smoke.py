"""``gpulab bench gpu-smoke [OUTDIR]`` (or ``tools/gpu-smoke.sh``): the GPU paths, run once on a real GPU.

One prepared run for a person with an NVIDIA GPU; everything lands under one output folder
(default ``gpu-smoke-YYYYmmdd-HHMMSS``):

* ``info.json``                  ``gpulab info --json``
* ``pytest-gpu.log``, ``.xml``   ``pytest -m gpu`` and its JUnit report
* ``run-NAME.json``, ``.log``    every lab's quick run (its declared ``LAB.quick``), ``--json``
* ``bench-memory.log``           ``gpulab bench memory``: the STREAM triad against the spec bandwidth
* ``run-transfer-full.json``     the transfer lab's full sweep, 4 KiB ... 1 GiB (its target: < 60 s;
                                 and pinned host-to-GPU at 256 MiB >= 80% of the link, read from it)
* ``run-launch-full.json``       the launch lab's default sweep, K = 1 ... 10,000 (its target: < 60 s, the run
                                 step's timeout); read for two more targets: per-launch cost from events and
                                 from the wall clock within 20%, and a graph replay cheaper per kernel for K >= 100
* ``compare.json``               the emulator against the GPU for every catalogue kernel
* ``summary.txt``                the one-screen summary printed at the end

Each step runs in its own process under a timeout, and the whole run under ``--total-s``
(default 450 s, so it ends within 8 minutes on one H100-class GPU). Without a usable GPU it
records ``info.json``, says why there is no GPU, skips the GPU steps and ends with its
"no GPU" summary (exit 0). Exit 1 when a GPU step failed or timed out. A new lab is in it by its
declaration: its quick run, and its kernels in the catalogue, which the comparison reads.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gpulab.lab import declare


def small_runs() -> dict[str, list[str]]:
    """Each lab's GPU run at small sizes: its declared quick run (``LAB.quick``), a few seconds on a GPU."""
    return {name: list(entry.lab.quick) for name, entry in declare.registry().items()}


STREAMS_TARGET_SPEEDUP = 1.5  # measured, 4 streams with pinned memory vs 1 stream, balanced copy and kernel

# The launch lab's targets, read from run-launch-full.json: at the largest K the per-launch cost of queued launches
# from CUDA events and from the wall clock agree within this fraction; a graph replay costs less per kernel
# than plain launches from this K up.
LAUNCH_AGREEMENT = 0.20
LAUNCH_GRAPH_FROM_K = 100

# The transfer lab's targets: pinned host-to-GPU copies of 256 MiB reach this share of the link's
# theoretical rate, and its full sweep (4 KiB ... 1 GiB, every power of two) ends within the step's timeout.
TRANSFER_TARGET_PERCENT = 80.0
TRANSFER_FULL_SWEEP = ["sizes=" + ",".join(str(1 << e) for e in range(12, 31))]

STEP_TIMEOUT_S = {"info": 60.0, "pytest": 240.0, "run": 60.0, "compare": 120.0, "transfer-full": 60.0,
                  "bench": 90.0, "check": 330.0}


@dataclass
class Step:
    name: str
    status: str  # ok | failed | timeout | skipped
    seconds: float
    detail: str = ""


class Smoke:
    def __init__(self, out: Path, total_s: float) -> None:
        self.out = out
        self.deadline = time.monotonic() + total_s
        self.steps: list[Step] = []

    def run(self, name: str, argv: list[str], timeout_s: float, log: str) -> Step:
        """Run one step as a subprocess, its output in ``log``, under the smaller of its timeout
        and what is left of the total."""
        left = self.deadline - time.monotonic()
        if left < 5:
            step = Step(name, "skipped", 0.0, "the total time budget is spent")
            self.steps.append(step)
            return step
        limit = min(timeout_s, left)
        start = time.monotonic()
        with open(self.out / log, "w", encoding="utf-8") as handle:
            try:
                done = subprocess.run(argv, stdout=handle, stderr=subprocess.STDOUT, timeout=limit,
                                      stdin=subprocess.DEVNULL)
                status = "ok" if done.returncode == 0 else "failed"
                detail = "" if status == "ok" else f"exit {done.returncode}; see {log}"
            except subprocess.TimeoutExpired:
                status, detail = "timeout", f"stopped after {limit:.0f} s; see {log}"
        step = Step(name, status, time.monotonic() - start, detail)
        if status == "failed":
            last = _last_line(self.out / log)
            step.detail = f"{step.detail}: {last}" if last else step.detail
        self.steps.append(step)
        return step


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:120] if lines else ""


def compare_kernels(out_file: Path) -> int:
    """Every catalogue kernel at its small preset: emulator and GPU outputs compared (run in a subprocess)."""
    from gpulab import cuda, experiments, kernels, simt

    cupy = cuda.require_cupy()
    rows = []
    for entry, spec in sorted(experiments.kernel_catalogue().items()):
        preset = next((p for p in spec.presets if p.name == "small"), min(spec.presets, key=lambda p: p.threads))
        row: dict[str, object] = {"kernel": entry, "preset": preset.name}
        start = time.perf_counter()
        try:
            device_args = cuda.to_device(spec.build_args(preset))
            cuda.get_kernel(spec.source, spec.entry)(preset.grid, preset.block, tuple(device_args),
                                                     shared_mem=preset.shared_mem)
            cupy.cuda.get_current_stream().synchronize()
            if spec.gpu_only:
                row["status"] = "gpu only (ran, not compared)"
            else:
                emulated = spec.build_args(preset)
                simt.launch(spec.source, spec.entry, preset.grid, preset.block, emulated,
                            shared_mem=preset.shared_mem)
                mismatched = [index for index in spec.expected(emulated)
                              if not kernels.outputs_match(cupy.asnumpy(device_args[index]), emulated[index],
                                                           spec.rtol, spec.atol)]
                row["status"] = "match" if not mismatched else f"mismatch in arguments {mismatched}"
        except Exception as exc:  # one kernel's failure is recorded; the others still run
            row["status"] = f"error: {type(exc).__name__}: {str(exc)[:200]}"
        row["seconds"] = round(time.perf_counter() - start, 3)
        rows.append(row)
        print(f"{entry:<28} {row['status']}", flush=True)
    out_file.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    bad = [r for r in rows if not str(r["status"]).startswith(("match", "gpu only"))]
    print(f"{len(rows) - len(bad)}/{len(rows)} kernels agree")
    return 1 if bad else 0


def streams_overlap_step(path: Path) -> Step:
    """The streams lab's target, read from its run: measured 4-stream pinned speedup over 1 stream."""
    name = f"streams overlap >= {STREAMS_TARGET_SPEEDUP}x"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pinned = next(s for s in data["series"] if s["key"] == "pinned" and s["provenance"]["kind"] == "measured")
        speedup = float(pinned["points"][0]["extra"]["speedup"])
    except (OSError, ValueError, KeyError, IndexError, StopIteration) as exc:
        return Step(name, "failed", 0.0, f"no measured speedup in {path.name} ({type(exc).__name__})")
    status = "ok" if speedup >= STREAMS_TARGET_SPEEDUP else "failed"
    return Step(name, status, 0.0, f"4 streams, pinned: {speedup:.2f}x faster than 1 stream")


def gpu_status() -> tuple[bool, str]:
    from gpulab import cuda

    status = cuda.cuda_status()
    return status.available, status.reason


def _gpu_count() -> int:
    from gpulab import cuda

    return len(cuda.cuda_status().devices)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpulab bench gpu-smoke", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir", nargs="?", help="output folder (created; default gpu-smoke-DATE-TIME)")
    parser.add_argument("--total-s", type=float, default=450.0, help="time budget of the whole run (default 450)")
    parser.add_argument("--no-gpu", action="store_true", help="behave as on a machine without a GPU")
    parser.add_argument("--compare-into", metavar="FILE", help=argparse.SUPPRESS)  # the comparison step
    args = parser.parse_args(argv)
    if args.compare_into:
        return compare_kernels(Path(args.compare_into))
    out = Path(args.outdir or time.strftime("gpu-smoke-%Y%m%d-%H%M%S"))
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        print(f"gpulab bench gpu-smoke: {out} exists and is not an empty folder; name a new one", file=sys.stderr)
        return 2
    try:
        out.mkdir(parents=False, exist_ok=True)
    except OSError as exc:
        print(f"gpulab bench gpu-smoke: cannot create {out} ({exc.strerror or exc})", file=sys.stderr)
        return 2
    smoke = Smoke(out, args.total_s)
    python = sys.executable
    gpulab = [python, "-m", "gpulab.cli"]
    smoke.run("gpulab info --json", [*gpulab, "info", "--json", str(out / "info.json")],
              STEP_TIMEOUT_S["info"], "info.log")
    available, reason = (False, "--no-gpu was given") if args.no_gpu else gpu_status()
    # the sanity check's full report, GPU or not (its exit code is the step's: 1 if a check failed)
    check_files = ["--json", str(out / "gpulab-check.json"), "--html", str(out / "gpulab-check.html")]
    smoke.run("gpulab check --full", [*gpulab, "check", "--full", *check_files], STEP_TIMEOUT_S["check"],
              "gpulab-check.log")
    if available:
        smoke.run("pytest -m gpu", [python, "-m", "pytest", "-m", "gpu", "-q", "-p", "no:cacheprovider",
                                    f"--junitxml={out / 'pytest-gpu.xml'}"],
                  STEP_TIMEOUT_S["pytest"], "pytest-gpu.log")
        for name, assignments in small_runs().items():
            sets = [item for a in assignments for item in ("--set", a)]
            smoke.run(f"run {name}", [*gpulab, "run", name, "--quiet", *sets, "--json",
                                      str(out / f"run-{name}.json")], STEP_TIMEOUT_S["run"], f"run-{name}.log")
        _transfer_steps(smoke, gpulab)
        _launch_steps(smoke, gpulab)
        smoke.run("bench memory (GPU triad vs spec)", [*gpulab, "bench", "memory", "--rounds", "2"],
                  STEP_TIMEOUT_S["bench"], "bench-memory.log")
        smoke.steps.append(streams_overlap_step(out / "run-streams.json"))
        if _gpu_count() >= 2:  # NCCL busbw against nccl-tests' all_reduce_perf (when it is on PATH)
            smoke.run("bench collectives (NCCL vs nccl-tests)", [*gpulab, "bench", "collectives", "--nccl-only"],
                      STEP_TIMEOUT_S["bench"], "bench-collectives.log")
        smoke.run("emulator vs GPU", [python, "-m", "gpulab.bench.gpu_smoke", "--compare-into",
                                      str(out / "compare.json")], STEP_TIMEOUT_S["compare"], "compare.log")
    summary = _summary(smoke.steps, available, reason, out)
    (out / "summary.txt").write_text(summary + "\n", encoding="utf-8")
    print(summary)
    return 0 if all(s.status in ("ok", "skipped") for s in smoke.steps) or not available else 1


def transfer_target(run_json: Path) -> tuple[str, str]:
    """(status, detail) of the transfer target from a ``run-transfer-full.json``: pinned host-to-GPU at
    256 MiB as a percentage of the link's theoretical rate, against :data:`TRANSFER_TARGET_PERCENT`."""
    try:
        document = json.loads(run_json.read_text(encoding="utf-8"))
        series = next(s for s in document["series"] if s.get("key") == "h2d-pinned")
        point = next(p for p in series["points"] if p["x"] == 1 << 28)
    except (OSError, ValueError, KeyError, StopIteration):
        return "failed", f"no pinned host-to-GPU point at 256 MiB in {run_json.name}"
    percent = point.get("extra", {}).get("percent_of_peak")
    link = series.get("provenance", {}).get("details", {}).get("link") or "link unknown"
    if percent is None:
        return "skipped", f"{point['y']:.1f} GB/s; no link rate to compare with ({link})"
    verdict = "met" if percent >= TRANSFER_TARGET_PERCENT else "NOT met"
    detail = f"{point['y']:.1f} GB/s = {percent:.0f}% of {link} (target >= {TRANSFER_TARGET_PERCENT:.0f}%: {verdict})"
    return ("ok" if verdict == "met" else "failed"), detail


def _transfer_steps(smoke: Smoke, gpulab: list[str]) -> None:
    """The transfer lab's two targets: a full sweep within 60 s, and in it 80% of the link at 256 MiB."""
    sets = [item for a in TRANSFER_FULL_SWEEP for item in ("--set", a)]
    smoke.run("transfer: full sweep < 60 s", [*gpulab, "run", "transfer", "--quiet", *sets, "--json",
                                               str(smoke.out / "run-transfer-full.json")],
              STEP_TIMEOUT_S["transfer-full"], "run-transfer-full.log")
    status, detail = transfer_target(smoke.out / "run-transfer-full.json")
    smoke.steps.append(Step("transfer: pinned H2D 256 MiB", status, 0.0, detail))


def _launch_series(run_json: Path) -> dict[str, dict[float, dict]]:
    """The launch run's GPU points, by series key and K (empty when the file is missing or unreadable)."""
    try:
        document = json.loads(run_json.read_text(encoding="utf-8"))
        return {s["key"]: {p["x"]: p for p in s["points"]} for s in document["series"] if s.get("role") == "gpu"}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def launch_targets(run_json: Path) -> list[tuple[str, str, str]]:
    """(name, status, detail) of the launch lab's two targets, read from a ``run-launch-full.json``:
    events and wall clock agree within :data:`LAUNCH_AGREEMENT` per queued launch at the largest K,
    and a graph replay costs less per kernel than plain launches at every K >= :data:`LAUNCH_GRAPH_FROM_K`."""
    series = _launch_series(run_json)
    plain, graph = series.get("gpu-async", {}), series.get("gpu-graph", {})
    return [_agreement_target(plain, run_json.name), _graph_target(plain, graph, run_json.name)]


def _agreement_target(plain: dict[float, dict], name: str) -> tuple[str, str, str]:
    title = "launch: events vs wall clock"
    if not plain:
        return title, "failed", f"no queued-launch points in {name}"
    k = max(plain)
    extra = plain[k].get("extra", {})
    events, wall = extra.get("us_per_kernel_events"), extra.get("us_per_kernel_wall")
    if not events or not wall:
        return title, "failed", f"K={k:g}: no events or wall-clock figure in {name}"
    apart = abs(wall - events) / events
    verdict = "met" if apart <= LAUNCH_AGREEMENT else "NOT met"
    detail = (f"K={k:g}: {events:.3g} us per launch from events, {wall:.3g} us from the wall clock "
              f"({apart:.0%} apart; target <= {LAUNCH_AGREEMENT:.0%}: {verdict})")  # fmt: skip
    return title, ("ok" if verdict == "met" else "failed"), detail


def _graph_target(plain: dict[float, dict], graph: dict[float, dict], name: str) -> tuple[str, str, str]:
    title = f"launch: graph replay < plain launches, K >= {LAUNCH_GRAPH_FROM_K}"
    ks = sorted(k for k in set(plain) & set(graph) if k >= LAUNCH_GRAPH_FROM_K)
    if not ks:
        return title, "failed", f"no graph and plain points at K >= {LAUNCH_GRAPH_FROM_K} in {name}"
    pairs = [(k, graph[k]["y"], plain[k]["y"]) for k in ks]
    verdict = "met" if all(g < p for _k, g, p in pairs) else "NOT met"
    detail = "; ".join(f"K={k:g}: graph {g:.3g} vs plain {p:.3g} us per kernel" for k, g, p in pairs)
    return title, ("ok" if verdict == "met" else "failed"), f"{detail} ({verdict})"


def _launch_steps(smoke: Smoke, gpulab: list[str]) -> None:
    """The launch lab's default sweep (K = 1 ... 10,000, within the run step's 60 s) and its two measured
    targets, printed in the summary."""
    run_json = smoke.out / "run-launch-full.json"
    smoke.run("launch: default sweep < 60 s", [*gpulab, "run", "launch", "--quiet", "--json", str(run_json)],
              STEP_TIMEOUT_S["run"], "run-launch-full.log")
    for title, status, detail in launch_targets(run_json):
        smoke.steps.append(Step(title, status, 0.0, detail))


def _summary(steps: list[Step], available: bool, reason: str, out: Path) -> str:
    lines = [f"gpulab GPU smoke test -> {out}"]
    if not available:
        lines.append(f"no GPU: {reason}")
        lines.append("the GPU steps (pytest -m gpu, experiment runs, emulator vs GPU) were skipped")
    for step in steps:
        detail = f"  {step.detail}" if step.detail else ""
        lines.append(f"  {step.status:<8} {step.seconds:6.1f} s  {step.name}{detail}")
    total = sum(s.seconds for s in steps)
    bad = [s for s in steps if s.status in ("failed", "timeout")]
    verdict = "all steps passed" if not bad else f"{len(bad)} step(s) failed or timed out"
    lines.append(f"{len(steps)} steps in {total:.0f} s: {verdict}" + ("" if available else " (no GPU)"))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
