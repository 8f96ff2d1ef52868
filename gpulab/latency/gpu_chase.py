"""The GPU pointer chase (measured): ``kernels/pointer_chase.cu`` run by CuPy, one thread walking
the CPU ladder's chain (:func:`gpulab.latency.ladder.build_chain`) in device memory.

Thin on purpose: the chain, the kernel and the check of the walk are shared with the CPU ladder
and the emulator test; this module only copies the chain to the GPU, launches the kernel twice
(the first pass warms the caches and the TLB, the second is timed by ``clock64()`` inside the
kernel) and divides the cycles by the loads. The loop's own increment and compare are counted in
the cycles (a few cycles per load, small beside any memory level's latency).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpulab.latency import ladder

KERNEL_FILE = "pointer_chase.cu"
ENTRY = "pointer_chase"


@dataclass(frozen=True)
class GpuRung:
    """One working set's measurement on the GPU, in SM cycles."""

    working_set_bytes: int
    cycles_per_load: float
    loads: int
    final_index: int  # where the walk stopped: equal to numpy's walk when the chase ran right


def source() -> str:
    from gpulab.paths import kernels_dir

    return (kernels_dir() / KERNEL_FILE).read_text()


def measure_rung(working_set_bytes: int, loads: int = 1 << 14, *, seed: int = 0, device_index: int = 0) -> GpuRung:
    """``loads`` dependent loads over one working set on the GPU (needs CuPy and a GPU)."""
    from gpulab import cuda

    cupy = cuda.require_cupy()
    chain = ladder.build_chain(working_set_bytes, seed)
    kernel = cuda.get_kernel(source(), ENTRY, device_index)
    with cupy.cuda.Device(device_index):
        device_chain = cupy.asarray(chain)
        sink = cupy.zeros(1, dtype=cupy.int64)
        cycles = cupy.zeros(1, dtype=cupy.int64)
        warm = min(len(chain) // (ladder.LINE_BYTES // ladder.SLOT), loads)  # one pass over every line
        for steps in (warm, loads):
            kernel((1,), (1,), (device_chain, np.int64(0), np.int64(steps), sink, cycles))
        cupy.cuda.Device(device_index).synchronize()
        total, final = int(cycles.get()[0]), int(sink.get()[0])
    return GpuRung(working_set_bytes, total / loads, loads, final)


def ladder_on_gpu(sizes: tuple[int, ...], loads: int = 1 << 14, device_index: int = 0) -> list[GpuRung]:
    """:func:`measure_rung` for each working set."""
    return [measure_rung(size, loads, device_index=device_index) for size in sizes]
