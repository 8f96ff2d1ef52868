"""Vector add c = a + b: the simplest memory-bound job, timed on the CPU and the GPU.

Bandwidth counts bytes read plus written (3 arrays x n x itemsize). CPU times are wall-clock
medians of numpy's ``add``; GPU times come from CUDA events around the catalogue kernel
``kernels/vector_add.cu``, after warm-up (optionally with the copies to and from the GPU).
A modelled series for a GPU from the spec table is always added, labelled ``modelled``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from gpulab import cuda, kernels
from gpulab.experiments.base import (
    CheckedParams,
    Context,
    ExperimentGen,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    powers_of_two,
    random_normal,
)
from gpulab.measure import (
    Ceiling,
    RepeatPolicy,
    ceiling_details,
    crossover_notes,
    gpu_bandwidth_ceiling,
    modelled_point,
    rate_point,
    stage_medians,
    time_cpu_calls,
    time_gpu_stages,
    what_if_copied_note,
    with_ceiling,
)
from gpulab.results import Point, Provenance, Result, Series, merge_notes

TITLE = "Vector add: CPU vs GPU bandwidth"
DESCRIPTION = "c[i] = a[i] + b[i] for growing n; GB/s counts bytes read plus written."
TITLE_ZH = "向量加法：CPU 与 GPU 的带宽"
DESCRIPTION_ZH = "n 逐步增大时计算 c[i] = a[i] + b[i]；GB/s 按读加写的字节数计算。"

CPU_SERIES = "CPU (numpy)"
GPU_SERIES = "GPU (CUDA kernel)"
# Sweeps a panel offers (the first is shown first); the Params default is a shorter sweep.
SIZE_PRESETS = (
    ("standard", powers_of_two(10, 24, 2)),
    ("quick", powers_of_two(10, 20, 2)),
    ("large", powers_of_two(10, 26, 2)),
)
FORMULA = (
    "time = max(n / peak FLOP/s, 3·n·4 bytes / memory bandwidth) + launch overhead"
    " [+ a and b copied in and c copied out over PCIe when transfers are included]"
)


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param((1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22), "sizes n", "规模 n",
                                   "Vector lengths to run, comma-separated (2^20 is allowed).",
                                   "要运行的向量长度，用逗号分隔（可以写 2^20）。", min=1, presets=SIZE_PRESETS)
    repeats: int = param(7, "repeats", "重复次数", "Timed calls per size; the median is kept.",
                         "每个规模计时的次数，取中位数。", min=1)
    include_transfers: bool = param(False, "include PCIe copies", "包括 PCIe 拷贝",
                                    "Count copying a and b to the GPU and c back.",
                                    "把 a、b 拷到 GPU 和把 c 拷回来的时间也算进去。")
    dtype: Literal["fp32"] = param("fp32", "data type", "数据类型")
    model_gpu: str = param("h100-sxm", "GPU to model", "建模的 GPU",
                           "Spec-table key of the GPU whose modelled curve is drawn.",
                           "画模型估算曲线所用 GPU 在规格表中的键名。")



def bytes_moved(n: int, itemsize: int = 4) -> int:
    """Two arrays read, one written."""
    return 3 * n * itemsize


def model_series_name(gpu_name: str) -> str:
    return f"{gpu_name} (model)"


def time_cpu(n: int, repeats: int, rng: np.random.Generator, ctx: Context | None = None) -> list[float]:
    """Seconds per ``np.add(a, b, out=c)`` call: at least ``repeats`` samples after one warm-up."""
    a = random_normal(rng, n)
    b = random_normal(rng, n)
    c = np.empty_like(a)
    check = ctx.check_cancelled if ctx is not None else None
    return time_cpu_calls(lambda: np.add(a, b, out=c), RepeatPolicy(repeats=repeats), check)


def time_gpu(
    n: int, repeats: int, rng: np.random.Generator, device: int, include_transfers: bool = False,
    ctx: Context | None = None,
) -> dict[str, list[float]]:  # fmt: skip
    """CUDA-event seconds per stage (``kernel``, and ``h2d``/``d2h`` with transfers), plus ``total``."""
    cupy = cuda.require_cupy()
    import cupyx

    spec = kernels.get("vector_add")
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    grid, block = kernels.grid_1d(n, 256)
    check = ctx.check_cancelled if ctx is not None else None
    policy = RepeatPolicy(repeats=repeats)
    with cupy.cuda.Device(device):
        a_host = random_normal(rng, n)
        b_host = random_normal(rng, n)
        a, b = cupy.asarray(a_host), cupy.asarray(b_host)
        c = cupy.empty_like(a)
        size = np.int32(n)

        def launch() -> None:
            kernel(grid, block, (a, b, c, size))

        if not include_transfers:
            return time_gpu_stages([("kernel", launch)], policy, check)
        a_pin, b_pin, c_pin = (cupyx.empty_like_pinned(a_host) for _ in range(3))
        a_pin[...], b_pin[...] = a_host, b_host

        def h2d() -> None:
            a.set(a_pin)
            b.set(b_pin)

        def d2h() -> None:
            cupy.asnumpy(c, out=c_pin, blocking=False)

        return time_gpu_stages([("h2d", h2d), ("kernel", launch), ("d2h", d2h)], policy, check)


def _series(name: str, provenance: Provenance) -> Series:
    return Series(name, provenance, "elements", "", "bandwidth", "GB/s")


def _cpu_provenance() -> Provenance:
    from gpulab.devices import describe_cpu

    cpu = describe_cpu()
    blas = cpu.blas[0].vendor if cpu.blas else "unknown"
    return Provenance(
        "measured",
        cpu.model,
        {
            "library": "numpy",
            "blas": blas,
            "numpy": np.__version__,
            "timing": "perf_counter around np.add, median of repeats",
        },
    )


def _gpu_provenance(device: int, include_transfers: bool, ceiling: Ceiling | None) -> Provenance:
    status = cuda.cuda_status()
    return Provenance(
        "measured",
        cuda.device_name(device),
        {
            "timing": "CUDA events after warm-up",
            "cupy": status.cupy_version,
            "cuda_runtime": status.cuda_runtime_version,
            "cuda_driver": status.cuda_driver_version,
            "include_transfers": include_transfers,
            "host_memory": "pinned",
            **ceiling_details(ceiling),
        },
    )


def _gpu_ceiling(device: int) -> Ceiling | None:
    derived = next((g.peak_bandwidth_gb_s for g in cuda.cuda_status().devices if g.index == device), None)
    return gpu_bandwidth_ceiling(cuda.device_name(device), derived)


def _model(params: Params) -> tuple[Series | None, Any, list[str]]:
    """The modelled series (empty), its spec, and notes; (None, None, [why]) if it cannot be made."""
    from gpulab.experiments.matmul import resolve_model_gpu
    from gpulab.model import vector_add_estimate

    spec = resolve_model_gpu(params.model_gpu)
    probe = vector_add_estimate(spec, 1 << 20, params.dtype, params.include_transfers)
    details = {
        "formula": FORMULA,
        "spec_key": spec.key,
        "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s,
        "include_transfers": params.include_transfers,
        "assumptions": list(probe.assumptions),
    }
    series = _series(model_series_name(spec.name), Provenance("modelled", spec.name, details))
    return series, spec, list(probe.assumptions)


def _model_estimate(spec: Any, n: int, params: Params, include_transfers: bool) -> Any:
    from gpulab.model import vector_add_estimate

    return vector_add_estimate(spec, n, params.dtype, include_transfers)


def _model_point(spec: Any, n: int, params: Params) -> Point:
    estimate = _model_estimate(spec, n, params, params.include_transfers)
    parts = {f"{part}_seconds": seconds for part, seconds in estimate.breakdown.items()}
    return modelled_point(n, bytes_moved(n), estimate.seconds, bound=estimate.bound, **parts)


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Time numpy and (when a GPU is usable) the CUDA kernel for each size; model the chosen GPU."""
    rng = np.random.default_rng(0)
    cpu_series = _series(CPU_SERIES, _cpu_provenance())
    status = cuda.cuda_status()
    device = ctx.device_index or 0
    ceiling = _gpu_ceiling(device) if status.available else None
    gpu_series = (
        _series(GPU_SERIES, _gpu_provenance(device, params.include_transfers, ceiling)) if status.available else None
    )
    notes: list[str] = [] if status.available else [f"No GPU series: {status.reason}"]
    model_series, spec, assumptions = _model(params)
    steps = len(params.sizes)
    for i, n in enumerate(params.sizes):
        yield Progress(i / steps, f"CPU n={n}")
        point = rate_point(n, bytes_moved(n), time_cpu(n, params.repeats, rng, ctx))
        cpu_series = cpu_series.with_point(point)
        yield PartialPoint(CPU_SERIES, point, cpu_series.provenance)
        if gpu_series is not None:
            yield Progress((i + 0.4) / steps, f"GPU n={n}")
            samples = time_gpu(n, params.repeats, rng, device, params.include_transfers, ctx)
            point = rate_point(n, bytes_moved(n), samples["total"], **stage_medians(samples))
            point = with_ceiling(point, ceiling)
            gpu_series = gpu_series.with_point(point)
            yield PartialPoint(GPU_SERIES, point, gpu_series.provenance)
        if model_series is not None:
            yield Progress((i + 0.8) / steps, f"model n={n}")
            point = _model_point(spec, n, params)
            model_series = model_series.with_point(point)
            yield PartialPoint(model_series.name, point, model_series.provenance)
    yield Progress(1.0, "done")
    series = tuple(s for s in (cpu_series, gpu_series, model_series) if s is not None)
    result = Result("vector-add", params_to_dict(params), series)
    gpu_names = [s.name for s in series[1:]]
    transfers = (
        "GPU times include copying a and b to the GPU and c back (pinned host memory)."
        if params.include_transfers
        else "GPU times count the kernel only: the arrays are already on the GPU."
    )
    notes += ["Bandwidth counts bytes read plus written: 3 x n x 4 bytes for float32.", transfers]
    crossings = crossover_notes(result, gpu_names, [CPU_SERIES], unit="n")
    if not params.include_transfers and model_series is not None:
        copied = {n: _model_estimate(spec, n, params, True).seconds for n in params.sizes}
        note = what_if_copied_note(result, [CPU_SERIES], spec.name, copied, unit="n")
        crossings += [note] if note else []
    all_notes = merge_notes(crossings, notes, assumptions)
    return Result("vector-add", params_to_dict(params), series, all_notes)
