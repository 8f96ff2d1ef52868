#!/usr/bin/env bash
# The GPU paths, run once on a machine with an NVIDIA GPU (see gpulab/bench/gpu_smoke.py):
#   tools/gpu-smoke.sh [OUTDIR]
# writes info.json, gpulab-check.json/.html, pytest-gpu.log/.xml, run-*.json, compare.json and summary.txt under OUTDIR,
# each step under a timeout, in under 8 minutes on one H100-class GPU. Without a GPU it ends
# with its "no GPU" summary. PYTHON selects the interpreter (default: .venv/bin/python, else python3).
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
exec "$PYTHON" -m gpulab.bench.gpu_smoke "$@"
