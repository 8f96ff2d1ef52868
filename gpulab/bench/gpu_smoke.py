"""``gpulab bench gpu-smoke [OUTDIR]`` (or ``tools/gpu-smoke.sh``): the GPU paths, run once on a real GPU.

One prepared run for a person with an NVIDIA GPU; everything lands under one output folder
(default ``gpu-smoke-YYYYmmdd-HHMMSS``):

* ``info.json``                  ``gpulab info --json``
* ``pytest-gpu.log``, ``.xml``   ``pytest -m gpu`` and its JUnit report
* ``run-NAME.json``, ``.log``    every experiment at small sizes, ``--json``
* ``compare.json``               the emulator against the GPU for every catalogue kernel
* ``summary.txt``                the one-screen summary printed at the end

Each step runs in its own process under a timeout, and the whole run under ``--total-s``
(default 450 s, so it ends within 8 minutes on one H100-class GPU). Without a usable GPU it
records ``info.json``, says why there is no GPU, skips the GPU steps and ends with its
"no GPU" summary (exit 0). Exit 1 when a GPU step failed or timed out. Later labs add their
steps to :data:`SMALL_RUNS` (and their kernels to the catalogue, which the comparison reads).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# Small sizes for each experiment's GPU run (a few seconds each on a GPU).
SMALL_RUNS: dict[str, list[str]] = {
    "vector-add": ["sizes=1024,262144", "repeats=3"],
    "matmul": ["sizes=64,256", "repeats=2"],
    "divergence": ["n=256", "kways=2,4", "gpu_n=65536", "repeats=3"],
    "coalescing": ["n=1024", "strides=1,32", "gpu_n=65536", "repeats=3"],
    "bank-conflicts": ["side=32", "strides=1,32", "gpu_side=256", "repeats=3"],
    "reduction": ["n=1024", "gpu_n=65536", "repeats=3"],
    "saxpy": ["sizes=1024,262144", "repeats=3"],
    "fusion": ["sizes=1024,1048576", "chain=((a+b)*c-d)*0.5", "repeats=3"],
}

STEP_TIMEOUT_S = {"info": 60.0, "pytest": 240.0, "run": 60.0, "compare": 120.0}


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
    import numpy as np

    from gpulab import cuda, experiments, kernels, simt

    cupy = cuda.require_cupy()
    rows = []
    for entry, spec in sorted(experiments.kernel_catalogue().items()):
        preset = next((p for p in spec.presets if p.name == "small"), min(spec.presets, key=lambda p: p.threads))
        row: dict[str, object] = {"kernel": entry, "preset": preset.name}
        start = time.perf_counter()
        try:
            device_args = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in spec.build_args(preset)]
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


def gpu_status() -> tuple[bool, str]:
    from gpulab import cuda

    status = cuda.cuda_status()
    return status.available, status.reason


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
    if available:
        smoke.run("pytest -m gpu", [python, "-m", "pytest", "-m", "gpu", "-q", "-p", "no:cacheprovider",
                                    f"--junitxml={out / 'pytest-gpu.xml'}"],
                  STEP_TIMEOUT_S["pytest"], "pytest-gpu.log")
        for name, assignments in SMALL_RUNS.items():
            sets = [item for a in assignments for item in ("--set", a)]
            smoke.run(f"run {name}", [*gpulab, "run", name, "--quiet", *sets, "--json",
                                      str(out / f"run-{name}.json")], STEP_TIMEOUT_S["run"], f"run-{name}.log")
        smoke.run("emulator vs GPU", [python, "-m", "gpulab.bench.gpu_smoke", "--compare-into",
                                      str(out / "compare.json")], STEP_TIMEOUT_S["compare"], "compare.log")
    summary = _summary(smoke.steps, available, reason, out)
    (out / "summary.txt").write_text(summary + "\n", encoding="utf-8")
    print(summary)
    return 0 if all(s.status in ("ok", "skipped") for s in smoke.steps) or not available else 1


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
