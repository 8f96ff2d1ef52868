"""The roofline's measured GPU points: every counted kernel timed at the teaching size with CUDA events.

Each kernel runs on the local GPU at the size its modelled point is for (same FLOPs and
bytes), after warm-up, ``repeats`` times; the median time places it under that GPU's own
roof from the spec table (no roof, and so no bound or percentage, for a GPU the table does
not know). A kernel whose arguments would not fit in free GPU memory is skipped with a note;
a GPU error keeps the points so far and says where it stopped.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg
from gpulab.lab.base import Context, Event, PartialPoint, Progress
from gpulab.results import Point, Provenance, Series

MEMORY_HEADROOM = 0.8  # use at most this share of the free GPU memory for one kernel's arguments


@dataclass
class Measured:
    """The measured series, the local GPU's roof (when it is not the modelled one) and notes."""

    series: Series
    roofs: list[tuple[str, Series]] = field(default_factory=list)
    notes: list[Message] = field(default_factory=list)


def _time_kernel(entry: str, preset: Any, repeats: int, device: int) -> list[float] | None:
    """CUDA-event seconds per launch, or None when the arguments would not fit in free memory."""
    from gpulab.experiments import kernel

    cupy = cuda.require_cupy()
    spec = kernel(entry)
    fn = cuda.get_kernel(spec.source, spec.entry, device)
    with cupy.cuda.Device(device):
        args = spec.build_args(preset)
        needed = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        free_bytes, _total = cupy.cuda.runtime.memGetInfo()
        if needed > MEMORY_HEADROOM * free_bytes:
            return None
        device_args = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        return cuda.time_with_events(
            lambda: fn(preset.grid, preset.block, device_args, shared_mem=preset.shared_mem), repeats)


def _provenance(name: str, spec: Any) -> Provenance:
    status = cuda.cuda_status()
    return Provenance("measured", name, {
        "timing": "CUDA events after warm-up, median of repeats", "cupy": status.cupy_version,
        "cuda_runtime": status.cuda_runtime_version, "cuda_driver": status.cuda_driver_version,
        "roof": f"{spec.name} spec sheet" if spec is not None else "this GPU is not in the spec table"})


def _local_roof(spec: Any, model_key: str) -> list[tuple[str, Series]]:
    """The local GPU's roof series, unless it is the modelled GPU's (drawn already)."""
    from gpulab.experiments.roofline import CHART_X_RANGE, _series, gpu_roof, roof_points

    if spec is None or spec.key == model_key:
        return []
    label = msg("series.roofline.gpu-roof", gpu=spec.name)
    provenance = Provenance("modelled", spec.name, {"source": "spec sheet (resources/gpus.toml)",
                                                    "peak": "fp32 CUDA cores", "spec_key": spec.key})
    return [("gpu-local-roof", _series(label, "gpu-local-roof", "gpu", provenance,
                                       roof_points(gpu_roof(spec), CHART_X_RANGE)))]


def measure(placed: list[Any], params: Any, ctx: Context) -> Generator[Event, None, Measured]:
    """Time every placed kernel on GPU ``ctx.device_index`` and place it under that GPU's roof."""
    from gpulab.experiments.roofline import _series, gpu_roof, kernel_point, teaching_preset
    from gpulab.lab.base import resolve_model_gpu
    from gpulab.specs import load_specs

    device = ctx.device_index or 0
    name = cuda.device_name(device)
    spec = load_specs().match(name)
    roof = gpu_roof(spec) if spec is not None else None
    label = msg("series.roofline.kernels-gpu")
    provenance = _provenance(name, spec)
    points: list[Point] = []
    notes: list[Message] = [] if spec is not None else [msg("note.roofline.gpu-not-in-table", gpu=name)]
    too_big: list[str] = []
    for index, item in enumerate(placed):
        yield Progress(0.7 + 0.3 * index / max(1, len(placed)), msg("progress.timing", variant=item.entry))
        ctx.check_cancelled()
        try:
            seconds = _time_kernel(item.entry, teaching_preset(item), params.repeats, device)
        except Exception as exc:  # a GPU error: keep what was measured, say where it stopped
            error = str(exc).strip() or type(exc).__name__
            notes.append(msg("note.roofline.gpu-error", name=item.entry, error=error))
            break
        if seconds is None:
            too_big.append(item.entry)
            continue
        median = float(np.median(seconds))
        points.append(kernel_point(item, median, roof, params.traffic, repeats=len(seconds),
                                   seconds_iqr=float(np.subtract(*np.percentile(seconds, [75, 25])))))
        yield PartialPoint(Note(label), points[-1], provenance)
    if too_big:
        notes.append(msg("note.roofline.too-big", names=too_big))
    series = _series(label, "kernels-gpu", "gpu", provenance, tuple(points))
    return Measured(series, _local_roof(spec, resolve_model_gpu(params.model_gpu).key), notes)
