"""Shared measuring helpers for the CPU-vs-GPU labs: adaptive repeats, points, crossover.

CPU work is timed with ``time.perf_counter`` around a synchronous call; GPU work is timed
with CUDA events (see :mod:`gpulab.cuda`). Either way one call gives one sample, and a
point is the median of its samples with their interquartile range as spread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gpulab.catalogue import Message, Note, msg
from gpulab.results import Point, Result, Series


def size_text(n: float) -> str:
    """A size as the lab writes it everywhere: 1024 -> '1024', 65536 -> '2^16' (large powers of
    two read better as powers; notes, axes and lists all use this one form)."""
    n = int(n)
    if n >= 1 << 14 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def median_and_iqr(samples: list[float]) -> tuple[float, float | None]:
    """Median of repeats and their interquartile range (None for a single sample)."""
    arr = np.asarray(samples, dtype=float)
    median = float(np.median(arr))
    if arr.size < 2:
        return median, None
    q1, q3 = np.percentile(arr, [25, 75])
    return median, float(q3 - q1)


MIN_SECONDS_PER_POINT = 0.2
"""Keep repeating a cheap call until this much time is spent, so tiny sizes get many samples."""

MAX_SECONDS_PER_POINT = 2.0
"""Stop repeating an expensive call once this much time is spent (at least one sample)."""

MAX_SAMPLES = 2000
"""Never take more samples than this for one point."""

NOISY_SPREAD = 0.25
"""A point is noisy when the interquartile range of its repeats exceeds this fraction of their median."""

BUSY_FRACTION = 0.25
"""A point is noisy when other processes kept this fraction of the machine's cores busy while it was timed."""

WARMUP_SECONDS = 0.02
"""Untimed calls go on at least this long (a thread pool wakes, caches fill) before the first sample."""


class Samples(list[float]):
    """Seconds per call, with ``busy``: the fraction of all cores that *other* processes used while
    they were taken (psutil; None where it cannot be read)."""

    busy: float | None = None


def _cpu_busy_seconds() -> tuple[float, float] | None:
    """(busy CPU-seconds of the whole machine, CPU-seconds of this process) so far; None without psutil."""
    try:
        import psutil

        total = psutil.cpu_times()
        own = psutil.Process().cpu_times()
    except Exception:  # no psutil, or a platform that does not say
        return None
    busy = sum(getattr(total, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq", "steal"))
    return busy, own.user + own.system


def _other_load(before: tuple[float, float] | None, wall: float) -> float | None:
    """The fraction of all cores other processes kept busy since ``before`` (over ``wall`` seconds)."""
    after = _cpu_busy_seconds()
    if before is None or after is None or wall <= 0:
        return None
    import os

    cores = os.cpu_count() or 1
    others = (after[0] - before[0]) - (after[1] - before[1])
    return max(0.0, min(1.0, others / (wall * cores)))


@dataclass(frozen=True)
class RepeatPolicy:
    """How many samples one point takes: at least ``repeats`` and ``min_seconds`` of work,
    but stop at ``max_samples`` or once ``max_seconds`` are spent."""

    repeats: int = 5
    min_seconds: float = MIN_SECONDS_PER_POINT
    max_seconds: float = MAX_SECONDS_PER_POINT
    max_samples: int = MAX_SAMPLES

    def wants_more(self, count: int, spent: float) -> bool:
        if count == 0:
            return True
        if count >= self.max_samples or spent >= self.max_seconds:
            return False
        return count < self.repeats or spent < self.min_seconds


def time_cpu_calls(
    fn: Callable[[], Any],
    policy: RepeatPolicy,
    check_cancelled: Callable[[], None] | None = None,
    warmup: int = 1,
) -> Samples:
    """Seconds per call of a synchronous ``fn`` (wall clock), after ``warmup`` untimed calls and at
    least :data:`WARMUP_SECONDS` of them (a BLAS thread pool that has just been resized or has
    fallen asleep needs more than one call to wake). ``samples.busy`` says how busy the rest of
    the machine was meanwhile."""
    clock = time.perf_counter
    start = clock()
    for count in range(max(warmup, 1) * 1000):
        if count >= warmup and clock() - start >= WARMUP_SECONDS:
            break
        fn()
    samples = Samples()
    spent = 0.0
    before, began = _cpu_busy_seconds(), clock()
    while policy.wants_more(len(samples), spent):
        if check_cancelled is not None:
            check_cancelled()
        start = clock()
        fn()
        seconds = clock() - start
        samples.append(seconds)
        spent += seconds
    samples.busy = _other_load(before, clock() - began)
    return samples


NOISE_REASONS = ("spread", "busy", "implausible")


def noise_reasons(seconds: float, seconds_iqr: float | None, busy: float | None) -> list[str]:
    """Why a measured point cannot be trusted as it stands: ``spread`` (its repeats disagree by more
    than :data:`NOISY_SPREAD` of their median) and ``busy`` (other processes used more than
    :data:`BUSY_FRACTION` of the cores meanwhile); [] for a clean point."""
    reasons = []
    if seconds_iqr is not None and seconds > 0 and seconds_iqr / seconds > NOISY_SPREAD:
        reasons.append("spread")
    if busy is not None and busy > BUSY_FRACTION:
        reasons.append("busy")
    return reasons


def rate_point(x: float, work: float, samples: list[float], **extra: Any) -> Point:
    """A point whose y is ``work / seconds / 1e9`` (GFLOP/s or GB/s): median over samples,
    spread = IQR of the per-sample rates; ``extra`` gets the median seconds, the count and
    ``kind='measured'`` (so a live view can style the curve before the Result arrives), and
    ``noisy`` with its ``noise`` reasons (see :func:`noise_reasons`) when the point is not clean."""
    rates = [work / s / 1e9 for s in samples if s > 0]
    if not rates:
        raise ValueError("every sample took zero seconds; the timer is too coarse for this size")
    y, spread = median_and_iqr(rates)
    seconds, seconds_iqr = median_and_iqr(samples)
    busy = getattr(samples, "busy", None)
    facts = {"kind": "measured", "seconds": seconds, "seconds_iqr": seconds_iqr, "repeats": len(samples), **extra}
    if busy is not None:
        facts["machine_busy"] = round(busy, 3)
    return flagged(Point(x=x, y=y, spread=spread, extra=facts), noise_reasons(seconds, seconds_iqr, busy))


def best_rate_point(x: float, work: float, samples: list[float], **extra: Any) -> Point:
    """:func:`rate_point` with y from the fastest sample, STREAM's and BabelStream's rule for
    bandwidth: anything else on the machine (another program, the lab's own window drawing on a
    core the loop's threads need) only ever makes a call slower. The median stays in ``extra``
    (``median``), and the spread and noise flags are the median's, so a disturbed point still says so."""
    point = rate_point(x, work, samples, **extra)
    fastest = min((s for s in samples if s > 0), default=point.extra["seconds"])
    facts = {**point.extra, "statistic": "best of repeats", "best_seconds": fastest, "median": point.y}
    return replace(point, y=work / fastest / 1e9, extra=facts)


def flagged(point: Point, reasons: list[str]) -> Point:
    """``point`` with ``extra['noisy'] = True`` and ``extra['noise']`` listing ``reasons`` (added to any it had)."""
    if not reasons:
        return point
    known = list(point.extra.get("noise", ()))
    noise = known + [reason for reason in reasons if reason not in known]
    return replace(point, extra={**point.extra, "noisy": True, "noise": noise})


def is_noisy(point: Point) -> bool:
    """Whether ``point`` was flagged (noisy or implausible): see :func:`is_clean`."""
    return not is_clean(point)


def is_clean(point: Point) -> bool:
    """Whether a claim may rest on ``point``: it is neither flagged noisy (spread, a busy machine)
    nor implausible. Every ratio, crossover, ceiling, "% of ceiling" and "x times faster" a lab
    states is computed from clean points only; flagged ones are drawn hollow and said so."""
    return not (point.extra.get("noisy") or point.extra.get("implausible"))


def clean_points(points: Series | Sequence[Point]) -> tuple[Point, ...]:
    """The clean points (see :func:`is_clean`) of a series or of a sequence of points, in order."""
    found = points.points if isinstance(points, Series) else points
    return tuple(p for p in found if is_clean(p))


def clean_series(series: Series) -> Series:
    """``series`` keeping only its clean points (for a claim computed over whole series)."""
    return replace(series, points=clean_points(series))


def flagged_count(series: Sequence[Series]) -> int:
    """How many points of ``series`` are flagged (not clean)."""
    return sum(1 for s in series for p in s.points if not is_clean(p))


def flagged_headline(series: Sequence[Series]) -> Note | None:
    """The headline a run whose comparison involves flagged points leads with: how many of the
    compared points were left out of its claims, and that they are drawn hollow; None when all are clean."""
    shown = [s for s in series if s.points]
    left_out = flagged_count(shown)
    if not left_out:
        return None
    total = sum(len(s.points) for s in shown)
    names = [_series_text(s) for s in shown if any(not is_clean(p) for p in s.points)]
    return Note(msg("note.flagged.headline", count=left_out, total=total, series=names))


def modelled_point(x: float, work: float, seconds: float, **extra: Any) -> Point:
    """A point from a model: one number, no spread, ``extra['kind'] == 'modelled'``."""
    facts = {"kind": "modelled", "seconds": seconds, "repeats": 0, **extra}
    return Point(x=x, y=work / seconds / 1e9, spread=None, extra=facts)


# ----------------------------------------------------------------- crossover


def _seconds_by_size(points: tuple[Point, ...]) -> Mapping[float, float]:
    """x -> median seconds; falls back to 1/y when a point has no seconds (same work per x)."""
    out: dict[float, float] = {}
    for p in points:
        seconds = p.extra.get("seconds")
        out[p.x] = float(seconds) if seconds else (1.0 / p.y if p.y > 0 else float("inf"))
    return out


def crossover(result: Result, gpu_series: str, cpu_series: str) -> int | None:
    """The smallest size from which the GPU series is faster than the CPU series at every
    size both measured cleanly (see :func:`is_clean`), or None if the GPU is not faster at the
    largest such size."""
    gpu, cpu = result.get_series(gpu_series), result.get_series(cpu_series)
    if gpu is None or cpu is None:
        return None
    # Flagged points are no evidence either way: the crossover is read from the clean ones.
    gpu_s, cpu_s = _seconds_by_size(clean_points(gpu)), _seconds_by_size(clean_points(cpu))
    sizes = sorted(set(gpu_s) & set(cpu_s))
    winner: float | None = None
    for x in reversed(sizes):
        if gpu_s[x] < cpu_s[x]:
            winner = x
        else:
            break
    return None if winner is None else int(winner)


def best_series(result: Result, names: list[str]) -> str | None:
    """Of ``names``, the series that is fastest at its largest cleanly measured size (the best CPU curve)."""
    best: tuple[float, str] | None = None
    for name in names:
        series = result.get_series(name)
        clean = clean_points(series) if series is not None else ()
        if not clean:
            continue
        largest = max(clean, key=lambda p: p.x)
        if best is None or largest.y > best[0]:
            best = (largest.y, name)
    return None if best is None else best[1]


def _series_text(series: Series) -> Message | str:
    """What names a series inside a sentence: its label message, else its (English) name. A
    modelled GPU's label is its bare name here: the sentence says "(modelled)" itself."""
    label = series.label
    if label is not None and label.key == "series.model" and "gpu" in label.args:
        return str(label.args["gpu"])
    return label if label is not None else series.name


def noise_messages(reasons: Iterable[str]) -> list[Message]:
    """The :func:`noise_reasons` codes (``spread``, ``busy``) as sentences with their bounds, in order."""
    args = {"spread": {"bound": round(NOISY_SPREAD * 100)}, "busy": {"busy": round(BUSY_FRACTION * 100)}}
    return [msg(f"note.noise.{reason}", **args.get(reason, {})) for reason in reasons]


def noisy_notes(result: Result, unit: str = "N") -> list[Note]:
    """One note per series with noisy points: which sizes, and why (see :func:`noise_reasons`)."""
    notes = []
    for series in result.series:
        noisy = [p for p in series.points if not is_clean(p)]
        if not noisy:
            continue
        reasons = sorted({str(r) for p in noisy for r in p.extra.get("noise", ())} & set(NOISE_REASONS))
        points = [f"{unit}={size_text(p.x)}" for p in noisy]
        notes.append(Note(msg("note.noisy", series=_series_text(series), points=points,
                              reasons=noise_messages(reasons))))
    return notes


def crossover_notes(result: Result, gpu_names: list[str], cpu_names: list[str], unit: str = "N") -> list[Note]:
    """One note per GPU series saying from which size it beats the best CPU series."""
    cpu = best_series(result, cpu_names)
    cpu_series = result.get_series(cpu) if cpu is not None else None
    if cpu is None or cpu_series is None:
        return _unclean_crossover_notes(result, gpu_names, cpu_names)
    notes = []
    for gpu in gpu_names:
        series = result.get_series(gpu)
        if series is None or not series.points:
            continue
        size = crossover(result, gpu, cpu)
        names = {"gpu": _series_text(series), "kind": msg(f"provenance.{series.provenance.kind}"),
                 "cpu": _series_text(cpu_series)}  # fmt: skip
        if not clean_points(series):
            notes.append(Note(msg("note.crossover.unclean", **names)))
        elif size is None:
            notes.append(Note(msg("note.crossover.never", **names)))
        else:
            notes.append(Note(msg("note.crossover.faster", **names, unit=unit, size=size_text(size))))
    return notes


def _unclean_crossover_notes(result: Result, gpu_names: list[str], cpu_names: list[str]) -> list[Note]:
    """Where every CPU point was flagged: no crossover is stated, and each GPU series' note says why."""
    measured_cpu = [s for s in map(result.get_series, cpu_names) if s is not None and s.points]
    if not measured_cpu:
        return []
    cpu = _series_text(measured_cpu[0]) if len(measured_cpu) == 1 else msg("note.crossover.the-cpu")
    notes = []
    for series in map(result.get_series, gpu_names):
        if series is not None and series.points:
            kind = msg(f"provenance.{series.provenance.kind}")
            notes.append(Note(msg("note.crossover.unclean", gpu=_series_text(series), kind=kind, cpu=cpu)))
    return notes


# ----------------------------------------------------------------- GPU stages


def time_gpu_stages(
    stages: list[tuple[str, Callable[[], Any]]],
    policy: RepeatPolicy,
    check_cancelled: Callable[[], None] | None = None,
    warmup: int = 2,
) -> dict[str, list[float]]:
    """Seconds of each stage of one GPU call (``h2d``, ``kernel``, ``d2h``...), per repeat.

    Stages are enqueued on the current stream with a CUDA event between each two, so one
    repeat gives one sample per stage and their sum (key ``"total"``). Warm-up calls first.
    """
    from gpulab.cuda import require_cupy

    cupy = require_cupy()
    stream = cupy.cuda.get_current_stream()
    for _ in range(warmup):
        for _name, fn in stages:
            fn()
    stream.synchronize()
    samples: dict[str, list[float]] = {name: [] for name, _fn in stages}
    samples["total"] = []
    spent = 0.0
    while policy.wants_more(len(samples["total"]), spent):
        if check_cancelled is not None:
            check_cancelled()
        events = [cupy.cuda.Event()]
        events[0].record()
        for _name, fn in stages:
            fn()
            events.append(cupy.cuda.Event())
            events[-1].record()
        events[-1].synchronize()
        total = 0.0
        for (name, _fn), start, end in zip(stages, events[:-1], events[1:], strict=True):
            seconds = cupy.cuda.get_elapsed_time(start, end) / 1e3
            samples[name].append(seconds)
            total += seconds
        samples["total"].append(total)
        spent += total
    return samples


def stage_medians(samples: dict[str, list[float]]) -> dict[str, float]:
    """Median seconds of each stage except the total (for a point's ``extra``)."""
    return {f"{name}_seconds": median_and_iqr(values)[0] for name, values in samples.items() if name != "total"}


def what_if_copied_note(
    result: Result, cpu_names: list[str], gpu_name: str, copied_seconds: Mapping[int, float], unit: str = "N"
) -> Note | None:
    """A note on where the modelled GPU would win if the copies over PCIe were counted.

    ``copied_seconds`` maps each size to the modelled time *with* copies; the sentence
    compares it with the best CPU series of ``result``. None without a CPU series.
    """
    cpu = best_series(result, cpu_names)
    cpu_series = result.get_series(cpu) if cpu is not None else None
    if cpu_series is None or not copied_seconds:
        return None
    points = tuple(Point(x, 1.0 / s, None, {"seconds": s}) for x, s in sorted(copied_seconds.items()))
    copied = replace(cpu_series, name="copied", key="copied", label=None, points=points)
    size = crossover(replace(result, series=(cpu_series, copied)), "copied", cpu_series.name)
    if size is None:
        return Note(msg("note.copied.never", gpu=gpu_name, cpu=_series_text(cpu_series)))
    return Note(msg("note.copied.from", gpu=gpu_name, cpu=_series_text(cpu_series), unit=unit, size=size_text(size)))


# ----------------------------------------------------------------- ceilings

# Which spec-sheet peak a GEMM of each dtype can reach through cuBLAS by default: fp32 runs
# on the CUDA cores (CuPy leaves TF32 off unless asked), fp64 and fp16 on tensor cores where
# the GPU has them; tf32, bf16 and fp8 exist only on tensor cores.
_GEMM_PEAK_KEYS = {"fp32": ("fp32",), "fp64": ("fp64_tensor", "fp64"), "fp16": ("fp16",), "tf32": ("tf32",),
                   "bf16": ("bf16",), "fp8": ("fp8",)}


@dataclass(frozen=True)
class Ceiling:
    """The best a device can do on a metric, in the series' y unit, and where that comes from."""

    value: float
    source: str


def gpu_flops_ceiling(device_name: str, dtype: str) -> Ceiling | None:
    """Spec-sheet peak GFLOP/s of a GEMM in ``dtype`` on the named GPU (None if not in the table)."""
    from gpulab.specs import load_specs

    spec = load_specs().match(device_name)
    for key in _GEMM_PEAK_KEYS.get(dtype, ()):
        peak = spec.peak_flops(key) if spec is not None else None
        if spec is not None and peak is not None:
            return Ceiling(peak / 1e9, f"{spec.name} spec sheet, {key} peak")
    return None


def gpu_bandwidth_ceiling(device_name: str, derived_gb_s: float | None) -> Ceiling | None:
    """Spec-sheet DRAM bandwidth of the named GPU, else the one derived from its clock and bus."""
    from gpulab.specs import load_specs

    spec = load_specs().match(device_name)
    if spec is not None:
        return Ceiling(spec.memory_bandwidth_gb_s, f"{spec.name} spec sheet, memory bandwidth")
    if derived_gb_s:
        return Ceiling(derived_gb_s, "memory clock x bus width reported by the driver")
    return None


def with_ceiling(point: Point, ceiling: Ceiling | None) -> Point:
    """``point`` with ``extra['percent_of_peak']`` (100 * y / ceiling) when a ceiling is known."""
    if ceiling is None or ceiling.value <= 0:
        return point
    return replace(point, extra={**point.extra, "percent_of_peak": 100.0 * point.y / ceiling.value})


def ceiling_details(ceiling: Ceiling | None) -> dict[str, Any]:
    """Provenance details naming the ceiling a series is compared with."""
    if ceiling is None:
        return {"ceiling": None, "ceiling_source": "this GPU is not in the spec table"}
    return {"ceiling": ceiling.value, "ceiling_source": ceiling.source}
