"""Mixed precision: one matrix multiply C = A·B in FP64, FP32, TF32, FP16, BF16 and two FP8s.

For each number format the lab gives how fast the multiply runs and how wrong its result is:

- throughput (GFLOP/s = 2·N³ / seconds / 1e9) on a spec-sheet GPU (``modelled``, at N =
  ``gpu_size``, at the share of the peak a large cuBLAS GEMM reached in a published measurement,
  :func:`gpulab.model.gemm_share`; the peak is in each point's ``extra``), on a local GPU
  through cuBLAS (``measured`` with CUDA events, with its percentage
  of the spec-sheet peak for that format) and on this CPU through numpy (``measured``; numpy has
  FP64, FP32 and a slow FP16 with no BLAS behind it);
- the error ‖C − C_ref‖ / ‖C_ref‖ against A·B in FP64, computed on this CPU by rounding A and B
  to each format and summing as the tensor cores do (:mod:`gpulab.precision`); the same on any
  machine, so it is ``measured`` here even without a GPU.

x is the format's position in :data:`FORMAT_ORDER` (1 = FP64 … 7 = FP8 E5M2); each point names its
format in ``extra['dtype']`` and ``extra['label']``. Memory per format (A, B and C) is exact
arithmetic, not a model or a measurement: it is in every point's ``extra`` and in a note.

    >>> from gpulab.experiments import drive, precision
    >>> result = drive(precision.run(precision.Params(sizes=(64,)), precision.Context()))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gpulab import cuda
from gpulab import precision as formats
from gpulab.catalogue import Message, Note, msg, render
from gpulab.experiments.matmul import flops
from gpulab.lab.base import (
    CheckedParams,
    Context,
    ExperimentGen,
    ParamError,
    PartialPoint,
    Progress,
    param,
    params_to_dict,
    random_normal,
    resolve_model_gpu,
)
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import estimate_point, gpu_details, numpy_cpu_provenance
from gpulab.measure import (
    Ceiling,
    RepeatPolicy,
    flagged_headline,
    gpu_flops_ceiling,
    is_clean,
    noise_messages,
    rate_point,
    time_cpu_calls,
    time_gpu_stages,
    with_ceiling,
)
from gpulab.model import UnsupportedDtypeError, gemm_share, matmul_estimate, peak_for
from gpulab.results import Point, Provenance, Result, Series

__all__ = ["CPU_HALF_MAX_N", "FORMAT_ORDER", "Params", "footprint_bytes", "format_name", "position", "run"]

TITLE = render("experiment.precision.title")
DESCRIPTION = render("experiment.precision.description")

FORMAT_ORDER: tuple[str, ...] = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp8e5m2")
"""The formats in the order the lab draws them: x = 1 + index. ``fp8`` is FP8 E4M3."""

RATE_KEY = {"fp8e5m2": "fp8"}
"""The spec-table rate a format runs at, where it is not its own name: both FP8 encodings run at
the FP8 tensor-core rate."""

FORMAT_NAMES = {"fp8": "FP8 E4M3", "fp8e5m2": "FP8 E5M2"}
SHORT_NAMES = {"fp8": "FP8", "fp8e5m2": "E5M2"}  # a tick has the room of a short word: E4M3 is the FP8 of most uses

CPU_DTYPES = ("fp64", "fp32", "fp16")  # the ones numpy multiplies natively
CPU_HALF_MAX_N = 256
"""numpy's FP16 matmul is a generic loop without BLAS (hundreds of times slower than FP32 here):
it is timed only up to this size."""
EXTENDED_MAX_N = 256
"""FP64's own error needs a long-double reference, and numpy multiplies long doubles without BLAS:
that reference is made only up to this size."""
MAX_SIZE = 2048
GPU_MAX_SIZE = 32768
SIZE_PRESETS = (
    ("standard", (64, 128, 256, 512)),
    ("quick", (64, 128, 256)),
    ("large", (64, 256, 1024)),
    ("huge", (64, 256, 1024, 2048)),
)
NUMPY_DTYPES = {"fp64": np.float64, "fp32": np.float32, "fp16": np.float16}

_ROUNDING_NOTES = {
    "fp64": "note.precision.rounding.fp64",
    "fp32": "note.precision.rounding.fp32",
    "tf32": "note.precision.rounding.tf32",
    "fp16": "note.precision.rounding.fp16",
    "bf16": "note.precision.rounding.bf16",
    "fp8": "note.precision.rounding.fp8",
    "fp8e5m2": "note.precision.rounding.fp8e5m2",
}


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param(SIZE_PRESETS[0][1], min=8, max=MAX_SIZE, presets=SIZE_PRESETS)
    dtypes: tuple[str, ...] = param(FORMAT_ORDER)
    gpu_size: int = param(8192, min=256, max=GPU_MAX_SIZE)
    model_gpu: str = param("h100-sxm")
    repeats: int = param(3, min=1, max=100)

    def __post_init__(self) -> None:
        super().__post_init__()
        wanted = tuple(str(name).strip().lower() for name in self.dtypes)
        unknown = [name for name in wanted if name not in FORMAT_ORDER]
        if unknown or not wanted:
            rule = msg("param.rule.one-of", names=list(FORMAT_ORDER))
            text = repr(unknown[0] if unknown else "")
            raise ParamError(msg("param.error.every-must", key="dtypes", rule=rule, text=text))
        # One point per format, drawn in the lab's order whatever order they were typed in.
        object.__setattr__(self, "dtypes", tuple(name for name in FORMAT_ORDER if name in wanted))


def position(dtype: str) -> int:
    """The x of a format: 1 = FP64 … 7 = FP8 E5M2."""
    return FORMAT_ORDER.index(dtype) + 1


def format_name(dtype: str) -> str:
    """How the lab writes a format: 'fp16' -> 'FP16', 'fp8' -> 'FP8 E4M3'."""
    return FORMAT_NAMES.get(dtype, dtype.upper())


def short_name(dtype: str) -> str:
    """A format in a word, for a chart tick: 'fp16' -> 'FP16', 'fp8e5m2' -> 'E5M2'."""
    return SHORT_NAMES.get(dtype, dtype.upper())


def rate_dtype(dtype: str) -> str:
    """The spec-table dtype whose rate a format runs at ('fp8e5m2' -> 'fp8')."""
    return RATE_KEY.get(dtype, dtype)


def footprint_bytes(dtype: str, n: int) -> int:
    """Bytes of A, B and C, N×N each, stored in ``dtype`` (TF32 is stored as FP32)."""
    return 3 * n * n * formats.FORMATS[dtype].bytes_per_element


def _bytes_text(count: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            value = count / scale
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.2g} {unit}"
    return f"{count:.0f} B"


# ----------------------------------------------------------------- series

AXIS_X = msg("axis.precision.format", items=[msg("axis.variant-item", index=position(d), name=format_name(d))
                                             for d in FORMAT_ORDER])  # fmt: skip


def _series(key: str, label: Message, role: str, provenance: Provenance, y_label: Message, y_unit: str) -> Series:
    return Series(render(label), provenance, Note(AXIS_X), "", Note(y_label), y_unit, role=role, key=key, label=label)


def _format_extra(dtype: str, n: int) -> dict[str, Any]:
    """What every point of a format carries: its name, the size, and the memory of A, B and C."""
    return {"dtype": dtype, "label": format_name(dtype), "n": n,
            "bytes_per_element": formats.FORMATS[dtype].bytes_per_element,
            "footprint_bytes": footprint_bytes(dtype, n)}  # fmt: skip


@dataclass
class _Lab:
    """One run: the series as they fill, the notes found on the way, and the progress count."""

    params: Params
    ctx: Context
    series: dict[str, Series] = field(default_factory=dict)
    notes: list[Message | Note] = field(default_factory=list)
    steps_done: int = 0
    steps: int = 1

    def add(self, key: str, point: Point) -> PartialPoint:
        series = self.series[key] = self.series[key].with_point(point)
        return PartialPoint(Note(series.label) if series.label else series.name, point, series.provenance)

    def progress(self, message: Message) -> Progress:
        self.steps_done += 1
        return Progress(min(0.99, (self.steps_done - 1) / self.steps), message)


# ----------------------------------------------------------------- modelled GPU


def modelled_estimate(spec: Any, dtype: str, n: int) -> Any:
    """The lab's modelled multiply of one format: :func:`gpulab.model.matmul_estimate` at the rate
    the format runs at, with the achievable share of its peak (the validation rows call this)."""
    return matmul_estimate(spec, n, rate_dtype(dtype))


def cuda_core_rates(spec: Any) -> dict[str, tuple[float, Note | None]]:
    """FP16 and BF16 without tensor cores on ``spec``: TFLOP/s and the assumption behind it, by format
    (absent where the GPU has no such type)."""
    rates: dict[str, tuple[float, Note | None]] = {}
    for dtype in ("fp16", "bf16"):
        try:
            _key, tflops, note = peak_for(spec, dtype, use_tensor_cores=False)
        except UnsupportedDtypeError:
            continue
        rates[dtype] = (tflops, note)
    return rates


def _model(lab: _Lab) -> Iterator[PartialPoint | Progress]:
    spec = resolve_model_gpu(lab.params.model_gpu)
    n = lab.params.gpu_size
    details = {"formula": "time = max(2·N³ / (peak FLOP/s × GEMM share × tile fill), 3·N²·bytes per element / "
                          "memory bandwidth) + launch overhead",
               "spec_key": spec.key, "n": n, "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s,
               "tensor_cores": "fp64 on FP64 tensor cores where the GPU has them; fp32 on CUDA cores; "
                               "tf32, fp16, bf16 and both fp8 encodings on tensor cores",
               "gemm_share": "share of the peak a large cuBLAS GEMM reached in a published measurement "
                             "(resources/gpus.toml gemm_efficiency), else the lowest share published "
                             "for the type"}  # fmt: skip
    label = msg("series.model", gpu=spec.name)
    lab.series["model"] = _series("model", label, "model", Provenance("modelled", spec.name, details),
                                  msg("axis.throughput"), "GFLOP/s")  # fmt: skip
    assumptions: list[Note] = []
    vector = cuda_core_rates(spec)
    for dtype in lab.params.dtypes:
        try:
            estimate = modelled_estimate(spec, dtype, n)
        except UnsupportedDtypeError as exc:
            lab.notes.append(msg("note.precision.no-modelled-rate", dtype=format_name(dtype), reason=exc.message))
            continue
        ceiling = Ceiling(float(estimate.peak_tflops or 0.0) * 1e3, f"{spec.name} spec sheet")
        point = estimate_point(position(dtype), flops(n), estimate)
        extra = {**point.extra, **_format_extra(dtype, n), "peak_gflop_s": ceiling.value}
        if dtype in vector:
            extra["cuda_core_gflop_s"] = vector[dtype][0] * 1e3
        if gemm_share(spec, rate_dtype(dtype)).origin == "none":
            # No published share for this format: the point sits at the peak as an upper bound, and a
            # "percent of peak" of it would only restate that assumption (the legend's "up to 99%").
            yield lab.add("model", replace(point, extra={**extra, "upper_bound": True}))
            continue
        yield lab.add("model", with_ceiling(replace(point, extra=extra), ceiling))
        assumptions += [a for a in estimate.assumptions if a.message.key != "model.assumption.peak-rate"]
    lab.notes.extend(dict.fromkeys(assumptions))  # once each, in order
    lab.notes.extend(_cuda_core_notes(spec, vector, lab.params.dtypes))


def _cuda_core_notes(spec: Any, vector: dict[str, tuple[float, Note | None]], dtypes: tuple[str, ...]) -> list[Any]:
    """What FP16 and BF16 would run at on the CUDA cores, against FP32 there, and why."""
    fp32 = spec.peak_tflops.get("fp32")
    shown = [d for d in ("fp16", "bf16") if d in vector and d in dtypes]
    if not shown or not fp32:
        return []
    items = [msg("note.precision.cuda-core-item", dtype=format_name(d), number=f"{vector[d][0]:g}",
                 ratio=f"{vector[d][0] / fp32:.2g}") for d in shown]  # fmt: skip
    notes: list[Any] = [msg("note.precision.cuda-cores", gpu=spec.name, items=items, fp32=f"{fp32:g}")]
    return notes + [note for d in shown if (note := vector[d][1]) is not None]


# ----------------------------------------------------------------- measured GPU


class _NotMeasured(Exception):
    """A format the local GPU path cannot run; ``message`` says why, for a note."""

    def __init__(self, message: Message) -> None:
        super().__init__(render(message))
        self.message = message


def _storage_dtype(dtype: str) -> Any:
    if dtype == "bf16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return {"fp64": np.float64, "fp32": np.float32, "tf32": np.float32, "fp16": np.float16}[dtype]


@contextmanager
def tf32_matmuls(cupy: Any) -> Iterator[None]:
    """CuPy's float32 matmuls on TF32 tensor cores for the duration, then as before.

    The documented switch is the ``CUPY_TF32=1`` environment variable, but CuPy reads it once, at
    its first float32 matmul, into a per-dtype compute type; this sets that same compute type
    (``COMPUTE_TYPE_TF32``, what ``CUPY_TF32=1`` selects) and restores the one it found."""
    try:
        from cupy._core import _routines_linalg as linalg

        before = linalg.get_compute_type(np.float32)
        linalg.set_compute_type(np.float32, linalg.COMPUTE_TYPE_TF32)
    except (ImportError, AttributeError):
        raise _NotMeasured(msg("note.precision.gpu-no-tf32-switch")) from None
    try:
        yield
    finally:
        linalg.set_compute_type(np.float32, before)


def _check_gpu_format(cupy: Any, dtype: str, device: int) -> None:
    """Raise :class:`_NotMeasured` for a format this GPU or this CuPy cannot multiply."""
    if dtype in ("fp8", "fp8e5m2"):
        raise _NotMeasured(msg("note.precision.gpu-no-fp8", dtype=format_name(dtype)))
    capability = int(cupy.cuda.Device(device).compute_capability)
    if dtype in ("tf32", "bf16") and capability < 80:
        raise _NotMeasured(msg("note.precision.gpu-too-old", dtype=format_name(dtype),
                               capability=f"{capability // 10}.{capability % 10}"))  # fmt: skip


def _gpu_operands(cupy: Any, dtype: str, n: int) -> tuple[Any, Any, Any]:
    """A, B (standard normal, drawn on the GPU) and C in the format's storage type."""
    rng = cupy.random.default_rng(0)
    try:
        a = rng.standard_normal((n, n), dtype=np.float32).astype(_storage_dtype(dtype))
        b = rng.standard_normal((n, n), dtype=np.float32).astype(_storage_dtype(dtype))
    except (TypeError, ValueError, NotImplementedError):  # a CuPy without bfloat16 arrays
        raise _NotMeasured(msg("note.precision.gpu-no-bf16")) from None
    return a, b, cupy.empty_like(a)


def _fitting_size(cupy: Any, n: int, dtype: str) -> int:
    """The largest size not over ``n`` whose A, B, C and one FP32 draw fit in 80% of the free memory."""
    free_bytes, _total = cupy.cuda.runtime.memGetInfo()
    need = lambda size: footprint_bytes(dtype, size) + 4 * size * size  # noqa: E731
    while n > 256 and need(n) > 0.8 * free_bytes:
        n //= 2
    return n


def _gpu_point(lab: _Lab, cupy: Any, dtype: str, device: int) -> Point:
    _check_gpu_format(cupy, dtype, device)
    n = _fitting_size(cupy, lab.params.gpu_size, dtype)
    if n != lab.params.gpu_size:
        lab.notes.append(msg("note.precision.gpu-size-clamped", dtype=format_name(dtype),
                             asked=lab.params.gpu_size, size=n))  # fmt: skip
    a, b, c = _gpu_operands(cupy, dtype, n)
    stages = [("kernel", lambda: cupy.matmul(a, b, out=c))]
    policy = RepeatPolicy(repeats=lab.params.repeats)
    if dtype == "tf32":
        with tf32_matmuls(cupy):
            samples = time_gpu_stages(stages, policy, lab.ctx.check_cancelled)
    else:
        samples = time_gpu_stages(stages, policy, lab.ctx.check_cancelled)
    point = rate_point(position(dtype), flops(n), samples["total"], **_format_extra(dtype, n))
    return with_ceiling(point, gpu_flops_ceiling(cuda.device_name(device), dtype))


def _gpu(lab: _Lab) -> Iterator[PartialPoint | Progress]:
    status = cuda.cuda_status()
    if not status.available:
        lab.notes.append(msg("note.no-measured-gpu", reason=status.reason_message or status.reason))
        return
    cupy = cuda.require_cupy()
    device = lab.ctx.device_index or 0
    name = cuda.device_name(device)
    details = gpu_details(None, method="cupy.matmul (cuBLAS); fp16 and bf16 sum in FP32 (CUBLAS_COMPUTE_32F)",
                          timing="CUDA events after warm-up, median of repeats")  # fmt: skip
    if gpu_flops_ceiling(name, "fp32") is not None:
        details["ceiling_source"] = "each format's spec-sheet peak for this GPU (fp64 on FP64 tensor cores if any)"
    provenance = Provenance("measured", name, details)
    lab.series["gpu-cublas"] = _series("gpu-cublas", msg("series.gpu-cublas"), "gpu", provenance,
                                       msg("axis.throughput"), "GFLOP/s")  # fmt: skip
    for dtype in lab.params.dtypes:
        yield lab.progress(msg("progress.precision.gpu", dtype=format_name(dtype)))
        try:
            with cupy.cuda.Device(device):
                point = _gpu_point(lab, cupy, dtype, device)
        except _NotMeasured as why:
            lab.notes.append(why.message)
            continue
        except cupy.cuda.memory.OutOfMemoryError:
            lab.notes.append(msg("note.precision.gpu-out-of-memory", dtype=format_name(dtype)))
            continue
        yield lab.add("gpu-cublas", point)
    if "tf32" in lab.params.dtypes:
        lab.notes.append(msg("note.precision.gpu-tf32-switch"))


# ----------------------------------------------------------------- measured CPU


def _cpu_sizes(dtype: str, sizes: tuple[int, ...]) -> list[int]:
    if dtype != "fp16":
        return list(sizes)
    return [n for n in sizes if n <= CPU_HALF_MAX_N] or [min(CPU_HALF_MAX_N, min(sizes))]


def _cpu(lab: _Lab) -> Iterator[PartialPoint | Progress]:
    timing = "perf_counter around np.matmul(a, b, out=c), median of repeats"
    lab.series["cpu-numpy"] = _series("cpu-numpy", msg("series.cpu-numpy"), "cpu", numpy_cpu_provenance(timing),
                                      msg("axis.throughput"), "GFLOP/s")  # fmt: skip
    rng = np.random.default_rng(1)
    rates: dict[str, dict[int, float | None]] = {}
    for dtype in (d for d in lab.params.dtypes if d in CPU_DTYPES):
        by_size = []
        for n in _cpu_sizes(dtype, lab.params.sizes):
            yield lab.progress(msg("progress.precision.cpu", dtype=format_name(dtype), size=n))
            samples = _numpy_samples(rng, dtype, n, lab)
            by_size.append(rate_point(position(dtype), flops(n), samples, **_format_extra(dtype, n)))
        rates[dtype] = {int(p.extra["n"]): p.y if is_clean(p) else None for p in by_size}
        largest = by_size[-1]
        table = [{"n": p.extra["n"], "gflop_s": p.y, "seconds": p.extra["seconds"]} for p in by_size]
        yield lab.add("cpu-numpy", replace(largest, extra={**largest.extra, "by_size": table}))
    lab.notes.extend(_half_on_cpu_note(rates))


def _numpy_samples(rng: np.random.Generator, dtype: str, n: int, lab: _Lab) -> list[float]:
    """Seconds per ``np.matmul(a, b, out=c)`` of two N×N matrices in ``dtype``."""
    a, b = random_normal(rng, (n, n), NUMPY_DTYPES[dtype]), random_normal(rng, (n, n), NUMPY_DTYPES[dtype])
    out = np.empty_like(a)
    return time_cpu_calls(lambda: np.matmul(a, b, out=out), RepeatPolicy(repeats=lab.params.repeats),
                          lab.ctx.check_cancelled)  # fmt: skip


def _half_on_cpu_note(rates: dict[str, dict[int, float | None]]) -> list[Message]:
    """How much slower numpy's FP16 matmul is than its FP32 one, at the largest size both measured
    cleanly (a flagged point, None here, is no evidence either way)."""
    half, single = rates.get("fp16", {}), rates.get("fp32", {})
    common = sorted(n for n in set(half) & set(single) if half[n] is not None and single[n] is not None)
    if not common or not half[common[-1]]:
        return [msg("note.precision.cpu-half-capped", cap=CPU_HALF_MAX_N)] if half else []
    fast, slow = single[common[-1]], half[common[-1]]
    assert fast is not None and slow is not None
    ratio = fast / slow
    return [msg("note.precision.cpu-half", ratio=f"{ratio:.0f}", size=common[-1], cap=CPU_HALF_MAX_N)]


# ----------------------------------------------------------------- error against FP64


@dataclass
class _Operands:
    """A and B of one size (FP64, standard normal) with the references and |A|·|B|, made once."""

    a: np.ndarray
    b: np.ndarray
    reference: np.ndarray
    scale: np.ndarray
    extended: np.ndarray | None = None


def _operands_maker() -> Callable[[int], _Operands]:
    made: dict[int, _Operands] = {}
    rng = np.random.default_rng(0)

    def operands(n: int) -> _Operands:
        if n not in made:
            a, b = random_normal(rng, (n, n), np.float64), random_normal(rng, (n, n), np.float64)
            made[n] = _Operands(a, b, formats.reference_matmul(a, b), np.abs(a) @ np.abs(b))
        return made[n]

    return operands


def _error_sizes(dtype: str, sizes: tuple[int, ...]) -> list[int]:
    if dtype != "fp64":
        return list(sizes)
    if not formats.extended_reference_available():
        return []
    return [n for n in sizes if n <= EXTENDED_MAX_N] or [EXTENDED_MAX_N]  # never a long-double product past it


def _error_point(dtype: str, n: int, ops: _Operands) -> formats.ProductError:
    reference = ops.reference
    if dtype == "fp64":
        if ops.extended is None:
            ops.extended = formats.reference_matmul(ops.a, ops.b, extended=True)
        reference = ops.extended
    return formats.product_error(ops.a, ops.b, dtype, reference, ops.scale)


def _error_provenance() -> Provenance:
    base = numpy_cpu_provenance("not timed: the error is computed from the results")
    import ml_dtypes

    details = {**base.details, "ml_dtypes": ml_dtypes.__version__, "what": (
        "A and B (FP64, standard normal) rounded to each format with numpy and ml_dtypes casts (round to nearest "
        "even); fp16, bf16, fp8 and tf32 products exact and summed in FP32 by numpy's float32 matmul, as tensor "
        "cores sum; fp32 and fp64 in their own format; C stored in the format's output type; compared with A·B in "
        "FP64 (long double for FP64 itself)"),
        "long_double_significand_bits": int(np.finfo(np.longdouble).nmant) + 1}  # fmt: skip
    return Provenance("emulated", base.device, details)  # computed exactly in software, not timed: not measured


def _errors(lab: _Lab) -> Iterator[PartialPoint | Progress]:
    lab.series["error"] = _series("error", msg("series.precision.error"), "cpu", _error_provenance(),
                                  msg("axis.precision.error"), "")  # fmt: skip
    operands = _operands_maker()
    for dtype in lab.params.dtypes:
        found = []
        for n in _error_sizes(dtype, lab.params.sizes):
            yield lab.progress(msg("progress.precision.error", dtype=format_name(dtype), size=n))
            lab.ctx.check_cancelled()
            found.append(_error_point(dtype, n, operands(n)))
        if not found:
            lab.notes.append(msg("note.precision.no-fp64-error"))
            continue
        yield lab.add("error", _as_point(dtype, found))
        lab.notes.append(msg(_ROUNDING_NOTES[dtype], size=found[-1].n))


def _as_point(dtype: str, found: list[formats.ProductError]) -> Point:
    """The error at the largest size, with every size's figures in ``extra['by_size']``."""
    last = found[-1]
    table = [{"n": e.n, "normwise": e.normwise, "componentwise_median": e.componentwise_median,
              "componentwise_max": e.componentwise_max} for e in found]  # fmt: skip
    extra = {**_format_extra(dtype, last.n), "kind": "measured", "componentwise_median": last.componentwise_median,
             "componentwise_max": last.componentwise_max, "unit_roundoff": last.unit_roundoff,
             "significand_bits": formats.FORMATS[dtype].significand_bits, "by_size": table}  # fmt: skip
    return Point(position(dtype), last.normwise, None, extra)


# ----------------------------------------------------------------- the run


def _memory_note(params: Params) -> Message:
    n = params.gpu_size
    items = [msg("note.precision.memory-item", dtype=format_name(d), size=_bytes_text(footprint_bytes(d, n)))
             for d in params.dtypes]  # fmt: skip
    return msg("note.precision.memory", size=n, items=items)


def _noisy_notes(series: list[Series]) -> list[Message]:
    notes = []
    for s in series:
        noisy = [p for p in s.points if not is_clean(p)]
        if noisy and s.label is not None:
            reasons = sorted({str(r) for p in noisy for r in p.extra.get("noise", ()) if r in ("spread", "busy")})
            notes.append(msg("note.noisy", series=s.label, points=[str(p.extra["label"]) for p in noisy],
                             reasons=noise_messages(reasons)))
    return notes


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Model, time and emulate every chosen format; points arrive format by format."""
    lab = _Lab(params, ctx)
    cpu_steps = sum(len(_cpu_sizes(d, params.sizes)) for d in params.dtypes if d in CPU_DTYPES)
    error_steps = sum(len(_error_sizes(d, params.sizes)) for d in params.dtypes)
    gpu_steps = len(params.dtypes) if cuda.cuda_status().available else 0
    lab.steps = max(1, cpu_steps + error_steps + gpu_steps)
    yield Progress(0.0, msg("progress.precision.model"))
    yield from _model(lab)
    yield from _gpu(lab)
    yield from _cpu(lab)
    yield from _errors(lab)
    yield Progress(1.0, msg("progress.done"))
    series = [s for s in lab.series.values() if s.points]
    headline = flagged_headline(series)
    notes = [*([headline] if headline else []), msg("note.precision.rates", size=params.gpu_size),
             msg("note.precision.error"), _memory_note(params), *_noisy_notes(series), *lab.notes]  # fmt: skip
    return Result("precision", params_to_dict(params), tuple(series), tuple(notes))


LAB = Lab("precision", section="execution", order=40, page="precision",
          quick=("sizes=quick", "gpu_size=4096", "repeats=3"))
