"""Vector add c = a + b: the simplest memory-bound job, timed on the CPU and the GPU.

Bandwidth counts bytes read plus written (3 arrays x n x itemsize). CPU times are wall-clock
medians of numpy's ``add``; GPU times come from CUDA events around the catalogue kernel
``kernels/vector_add.cu``, after warm-up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gpulab import cuda, kernels
from gpulab.experiments.base import (
    Context,
    ExperimentGen,
    PartialPoint,
    Progress,
    median_and_iqr,
    params_to_dict,
)
from gpulab.results import Point, Provenance, Result, Series

TITLE = "Vector add: CPU vs GPU bandwidth"
DESCRIPTION = "c[i] = a[i] + b[i] for growing n; GB/s counts bytes read plus written."

CPU_SERIES = "CPU (numpy)"
GPU_SERIES = "GPU (CUDA kernel)"


@dataclass(frozen=True)
class Params:
    sizes: tuple[int, ...] = (1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22)
    repeats: int = 7

    def __post_init__(self) -> None:
        if not self.sizes or any(n < 1 for n in self.sizes):
            raise ValueError("sizes: every size must be a positive whole number")
        if self.repeats < 1:
            raise ValueError("repeats must be at least 1")


def bytes_moved(n: int, itemsize: int = 4) -> int:
    """Two arrays read, one written."""
    return 3 * n * itemsize


def time_cpu(n: int, repeats: int, rng: np.random.Generator) -> list[float]:
    """Seconds per ``np.add(a, b, out=c)`` call, one warm-up call first."""
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = np.empty_like(a)
    np.add(a, b, out=c)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        np.add(a, b, out=c)
        samples.append(time.perf_counter() - start)
    return samples


def time_gpu(n: int, repeats: int, rng: np.random.Generator, device: int) -> list[float]:
    """Seconds per launch of the catalogue kernel, from CUDA events."""
    cupy = cuda.require_cupy()
    spec = kernels.get("vector_add")
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    grid, block = kernels.grid_1d(n, 256)
    with cupy.cuda.Device(device):
        a = cupy.asarray(rng.standard_normal(n, dtype=np.float32))
        b = cupy.asarray(rng.standard_normal(n, dtype=np.float32))
        c = cupy.empty_like(a)
        return cuda.time_with_events(lambda: kernel(grid, block, (a, b, c, np.int32(n))), repeats)


def _point(n: int, samples: list[float]) -> Point:
    """Median bandwidth over the repeats, with the interquartile range of per-repeat GB/s."""
    gb = bytes_moved(n) / 1e9
    bandwidth, spread = median_and_iqr([gb / s for s in samples])
    seconds, _ = median_and_iqr(samples)
    return Point(x=n, y=bandwidth, spread=spread, extra={"seconds": seconds, "repeats": len(samples)})


def _empty_series(name: str, provenance: Provenance) -> Series:
    return Series(name, provenance, "elements", "", "bandwidth", "GB/s")


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Time numpy and (when a GPU is usable) the CUDA kernel for each size."""
    from gpulab.devices import describe_cpu

    rng = np.random.default_rng(0)
    cpu = describe_cpu()
    blas = cpu.blas[0].vendor if cpu.blas else "unknown"
    cpu_series = _empty_series(CPU_SERIES, Provenance("measured", cpu.model, {"library": "numpy", "blas": blas}))
    status = cuda.cuda_status()
    device = ctx.device_index or 0
    gpu_series = None
    notes: list[str] = []
    if status.available:
        gpu_series = _empty_series(GPU_SERIES, Provenance("measured", cuda.device_name(device), {
            "timing": "CUDA events after warm-up", "cupy": status.cupy_version,
            "cuda_runtime": status.cuda_runtime_version, "cuda_driver": status.cuda_driver_version}))
    else:
        notes.append(f"No GPU series: {status.reason}")
    steps = len(params.sizes)
    for i, n in enumerate(params.sizes):
        yield Progress(i / steps, f"CPU n={n}")
        point = _point(n, time_cpu(n, params.repeats, rng))
        cpu_series = cpu_series.with_point(point)
        yield PartialPoint(CPU_SERIES, point)
        if gpu_series is not None:
            yield Progress((i + 0.5) / steps, f"GPU n={n}")
            point = _point(n, time_gpu(n, params.repeats, rng, device))
            gpu_series = gpu_series.with_point(point)
            yield PartialPoint(GPU_SERIES, point)
    yield Progress(1.0, "done")
    series = (cpu_series,) if gpu_series is None else (cpu_series, gpu_series)
    notes.append("Bandwidth counts bytes read plus written: 3 x n x 4 bytes for float32.")
    return Result("vector-add", params_to_dict(params), series, tuple(notes))
