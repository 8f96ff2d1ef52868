"""``gpulab bench simt``: speed and memory of the SIMT emulator on reference workloads.

Each workload runs in a fresh Python process so that its peak RSS is its own. Printed per
workload: wall and CPU time of the first ``simt.launch`` in the process (metrics included;
compiling the source, cached per process, is reported separately), the wall time of a
second launch ("warm": steady state in a lab session), lane-statements per second
(``LaunchResult.lane_steps`` / wall time) and peak RSS. With ``--vs-numba`` the same
vector add and matmul N=128 also run in Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``)
side by side, in this interpreter or the one given by ``--numba-python``, and the speed
ratio is printed; it is taken on CPU time so that a busy machine does not skew it.

Targets on a 2-core laptop-class machine: vector add 2^20 <= 0.5 s; tiled matmul N=128
<= 1 s; N=512 <= 30 s and <= 2 GB RSS; >= 300x faster than Numba's simulator.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

VECTOR_ADD = """extern "C" __global__ void vector_add(const float* __restrict__ a,
    const float* __restrict__ b, float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""

MATMUL_TILED = """#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + tx, b_row = t * TILE + ty;
        As[ty][tx] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < N && col < N) C[row * N + col] = sum;
}
"""

EVEN_ODD = """extern "C" __global__ void divergence_even_odd(const unsigned int* in,
    unsigned int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int v = in[i];
        if (threadIdx.x % 2 == 0) { v = v * 3 + 1; v = v ^ (v >> 5); v = v + 12345; }
        else { v = v * 5 + 7; v = v ^ (v << 3); v = v - 999; }
        out[i] = v;
    }
}
"""

WORKLOADS = ("vector_add_2^20", "matmul_tiled_64", "matmul_tiled_128", "matmul_tiled_512",
             "even_odd_65536")


def _kernel_source(file: str, fallback: str) -> str:
    """The catalogue's ``kernels/FILE`` when present, else the inline copy."""
    try:
        from gpulab.paths import kernels_dir
        path = kernels_dir() / file
        if path.is_file():
            return path.read_text(encoding="utf-8")
    except (ImportError, FileNotFoundError):
        pass
    return fallback


def _setup(name: str) -> tuple[str, str, Any, Any, list[Any], Any]:
    """(source, kernel, grid, block, args, check) for a workload name."""
    import numpy as np
    rng = np.random.default_rng(0)
    if name.startswith("vector_add"):
        n = 1 << 20
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        c = np.zeros(n, np.float32)
        return (_kernel_source("vector_add.cu", VECTOR_ADD), "vector_add", n // 256, 256,
                [a, b, c, n], lambda: bool(np.array_equal(c, a + b)))
    if name.startswith("matmul_tiled"):
        n = int(name.rsplit("_", 1)[1])
        a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
        c = np.zeros((n, n), np.float32)
        return (_kernel_source("matmul_tiled.cu", MATMUL_TILED), "matmul_tiled",
                (n // 16, n // 16), (16, 16), [a, b, c, n],
                lambda: bool(np.allclose(c, a @ b, rtol=1e-4, atol=1e-3)))
    n = 65536
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    y = np.zeros(n, np.uint32)
    return (_kernel_source("divergence_even_odd.cu", EVEN_ODD), "divergence_even_odd",
            n // 256, 256, [x, y, n], lambda: bool(y.any()))


def run_one(name: str) -> dict[str, Any]:
    """Run one workload in this process; return its figures."""
    import resource
    import time

    from gpulab import simt
    from gpulab.simt import compile_source
    source, kernel, grid, block, args, check = _setup(name)
    start = time.perf_counter()
    compile_source(source)
    compiled = time.perf_counter()
    cpu = time.process_time()
    result = simt.launch(source, kernel, grid, block, args)
    wall = time.perf_counter() - compiled
    cpu = time.process_time() - cpu
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    correct = check()
    warm = None
    if wall < 2.0:  # steady state, as in a lab session: the second launch in the process
        again = time.perf_counter()
        simt.launch(source, kernel, grid, block, args)
        warm = time.perf_counter() - again
    return {"workload": name, "wall_s": wall, "cpu_s": cpu, "warm_wall_s": warm,
            "compile_s": compiled - start, "lane_steps": result.lane_steps,
            "lane_statements_per_s": result.lane_steps / wall if wall else 0.0,
            "peak_rss_mb": rss_mb, "correct": correct}


def _in_subprocess(code: str, env: dict[str, str] | None = None,
                   python: str | None = None) -> dict[str, Any]:
    proc = subprocess.run([python or sys.executable, "-c", code], capture_output=True,
                          text=True, env=env, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else
                f"exit code {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


NUMBA_CODE = """
import json, os, time, numpy as np
from numba import cuda
@cuda.jit
def vector_add(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]
@cuda.jit
def matmul_tiled(A, B, C, N):
    As = cuda.shared.array((16, 16), dtype=np.float32)
    Bs = cuda.shared.array((16, 16), dtype=np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row, col = cuda.blockIdx.y * 16 + ty, cuda.blockIdx.x * 16 + tx
    s = np.float32(0.0)
    for t in range(N // 16):
        As[ty, tx] = A[row, t * 16 + tx]
        Bs[ty, tx] = B[t * 16 + ty, col]
        cuda.syncthreads()
        for k in range(16):
            s += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    C[row, col] = s
name = os.environ["GPULAB_BENCH_WORKLOAD"]
rng = np.random.default_rng(0)
if name.startswith("vector_add"):
    n = 1 << 20
    a, b, c = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.zeros(n, np.float32)
    t0, c0 = time.perf_counter(), time.process_time(); vector_add[n // 256, 256](a, b, c, n)
else:
    n = int(name.rsplit("_", 1)[1])
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    c = np.zeros((n, n), np.float32)
    t0, c0 = time.perf_counter(), time.process_time()
    matmul_tiled[(n // 16, n // 16), (16, 16)](a, b, c, n)
print(json.dumps({"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}))
"""


def run(vs_numba: bool = False, sizes: Sequence[str] | None = None,
        in_process: bool = False, numba_python: str | None = None) -> list[dict[str, Any]]:
    """Run the workloads (``sizes``: a subset of WORKLOADS) and return one dict per row."""
    rows = []
    for name in sizes or WORKLOADS:
        if in_process:
            row = run_one(name)
        else:
            row = _in_subprocess("import json; from gpulab.bench.simt import run_one; "
                                 f"print(json.dumps(run_one({name!r})))")
            row.setdefault("workload", name)
        if vs_numba and name in ("vector_add_2^20", "matmul_tiled_128"):
            env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", GPULAB_BENCH_WORKLOAD=name)
            numba = _in_subprocess(NUMBA_CODE, env, numba_python)
            row["numba_sim_wall_s"] = numba.get("wall_s")
            row["numba_sim_cpu_s"] = numba.get("cpu_s")
            if numba.get("cpu_s") and row.get("cpu_s"):
                row["speedup_vs_numba"] = numba["cpu_s"] / row["cpu_s"]
        rows.append(row)
    return rows


def _format(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'workload':<20} {'wall s':>8} {'cpu s':>8} {'warm s':>8} {'compile s':>9} "
             f"{'lane-stmts/s':>14} {'peak RSS MB':>12} {'ok':>4} {'numba sim s':>12} "
             f"{'speedup':>9}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['workload']:<20} error: {r['error']}")
            continue
        numba = r.get("numba_sim_wall_s")
        speed = r.get("speedup_vs_numba")
        warm = r.get("warm_wall_s")
        lines.append(f"{r['workload']:<20} {r['wall_s']:>8.3f} {r['cpu_s']:>8.3f} "
                     f"{'' if warm is None else f'{warm:.3f}':>8} "
                     f"{r['compile_s']:>9.3f} {r['lane_statements_per_s']:>14.3e} "
                     f"{r['peak_rss_mb']:>12.0f} {'yes' if r['correct'] else 'NO':>4} "
                     f"{'' if numba is None else f'{numba:.1f}':>12} "
                     f"{'' if speed is None else f'{speed:.0f}x':>9}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gpulab bench simt``; prints a table, returns an exit code."""
    parser = argparse.ArgumentParser(prog="gpulab bench simt", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vs-numba", action="store_true",
                        help="also time Numba's CUDA simulator (slow: minutes)")
    parser.add_argument("--only", action="append", choices=WORKLOADS, help="run only these")
    parser.add_argument("--numba-python", metavar="PYTHON",
                        help="interpreter that has numba installed (default: this one)")
    parser.add_argument("--in-process", action="store_true",
                        help="run in this process (RSS is then cumulative)")
    parser.add_argument("--json", action="store_true", help="print rows as JSON")
    args = parser.parse_args(list(argv) if argv is not None else [])
    if args.vs_numba and not args.numba_python:
        try:
            import numba  # noqa: F401
        except ImportError:
            print("numba is not installed: --vs-numba skipped", file=sys.stderr)
            args.vs_numba = False
    rows = run(args.vs_numba, args.only, args.in_process, args.numba_python)
    print(json.dumps(rows, indent=2) if args.json else _format(rows))
    return 0 if all(r.get("correct") for r in rows) else 1
