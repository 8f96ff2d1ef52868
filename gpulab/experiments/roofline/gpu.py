"""The roofline's measured GPU points: every counted kernel timed at the teaching size with CUDA events.

The lab hands over what to time (each kernel's catalogue entry and its launch at the size its
modelled point is for: same FLOPs and bytes) and how to turn a kernel's times into its point;
this module runs each kernel after warm-up, ``repeats`` times, on the local GPU and knows nothing
else of the lab. A kernel whose arguments would not fit in free GPU memory is skipped with a
note; a GPU error keeps the points so far and says where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

import numpy as np

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg
from gpulab.kernels import KernelSpec, LaunchPreset
from gpulab.lab.base import Context, Event, PartialPoint, Progress
from gpulab.results import Point, Provenance
from gpulab.specs import GpuSpec, load_specs

MEMORY_HEADROOM = 0.8  # use at most this share of the free GPU memory for one kernel's arguments


@dataclass(frozen=True)
class Launch:
    """One kernel to time: the catalogue's kernel and its launch at the teaching size."""

    kernel: KernelSpec
    preset: LaunchPreset

    @property
    def entry(self) -> str:
        return self.kernel.entry


@dataclass(frozen=True)
class LocalGpu:
    """The GPU the points are measured on: its device index, name and spec-table entry (None when
    the table does not know it, so there is no roof to place the points under)."""

    device: int
    name: str
    spec: GpuSpec | None


@dataclass
class Timed:
    """The measured points, in launch order (a skipped or failed kernel has none), and notes."""

    points: list[Point] = field(default_factory=list)
    notes: list[Message] = field(default_factory=list)


def local_gpu(ctx: Context) -> LocalGpu:
    """The context's GPU and what the spec table knows of it."""
    device = ctx.device_index or 0
    name = cuda.device_name(device)
    return LocalGpu(device, name, load_specs().match(name))


def _time_kernel(launch: Launch, repeats: int, device: int) -> list[float] | None:
    """CUDA-event seconds per launch, or None when the arguments would not fit in free memory."""
    cupy = cuda.require_cupy()
    spec, preset = launch.kernel, launch.preset
    fn = cuda.get_kernel(spec.source, spec.entry, device)
    with cupy.cuda.Device(device):
        args = spec.build_args(preset)
        needed = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        free_bytes, _total = cupy.cuda.runtime.memGetInfo()
        if needed > MEMORY_HEADROOM * free_bytes:
            return None
        device_args = tuple(cuda.to_device(args))  # a view (d_in + RADIUS) stays a pointer into its array
        return cuda.time_with_events(
            lambda: fn(preset.grid, preset.block, device_args, shared_mem=preset.shared_mem), repeats)


def provenance(gpu: LocalGpu) -> Provenance:
    """How the points were measured, on which GPU, and whose roof they sit under."""
    status = cuda.cuda_status()
    return Provenance("measured", gpu.name, {
        "timing": "CUDA events after warm-up, median of repeats", "cupy": status.cupy_version,
        "cuda_runtime": status.cuda_runtime_version, "cuda_driver": status.cuda_driver_version,
        "roof": f"{gpu.spec.name} spec sheet" if gpu.spec is not None else "this GPU is not in the spec table"})


def measure(launches: Sequence[Launch], repeats: int, gpu: LocalGpu, ctx: Context,
            point_of: Callable[[int, list[float]], Point]) -> Generator[Event, None, Timed]:  # fmt: skip
    """Time every launch on ``gpu``; ``point_of(index, seconds)`` makes launch ``index``'s point from
    its seconds per launch (the lab places it), yielded as it comes."""
    label = Note(msg("series.roofline.kernels-gpu"))
    where = provenance(gpu)
    timed = Timed(notes=[] if gpu.spec is not None else [msg("note.roofline.gpu-not-in-table", gpu=gpu.name)])
    too_big: list[str] = []
    for index, launch in enumerate(launches):
        yield Progress(0.7 + 0.3 * index / max(1, len(launches)), msg("progress.timing", variant=launch.entry))
        ctx.check_cancelled()
        try:
            seconds = _time_kernel(launch, repeats, gpu.device)
        except Exception as exc:  # a GPU error: keep what was measured, say where it stopped
            error = str(exc).strip() or type(exc).__name__
            timed.notes.append(msg("note.roofline.gpu-error", name=launch.entry, error=error))
            break
        if seconds is None:
            too_big.append(launch.entry)
            continue
        timed.points.append(point_of(index, seconds))
        yield PartialPoint(label, timed.points[-1], where)
    if too_big:
        timed.notes.append(msg("note.roofline.too-big", names=too_big))
    return timed
