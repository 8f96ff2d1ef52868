"""The memory wall: BabelStream's five operations over working sets from 4 KiB to 1 GiB.

copy ``c = a``, mul ``b = s·c``, add ``c = a + b``, triad ``a = b + s·c`` and dot ``sum(a·b)``
on float64 arrays. GB/s counts the bytes each operation must read plus write, as BabelStream
does: 2 arrays for copy, mul and dot, 3 for add and triad. The x axis is the working set,
the bytes of all the arrays one operation touches, so the curve falls as the arrays leave
each cache (marked on the axis where the OS says their sizes) and land on DRAM: the memory wall.

CPU series are measured with ``perf_counter``, each point the fastest of its repeats (STREAM's
rule: other work only slows a call), in up to four forms: ``numpy`` as people write
it (``b + s*c`` makes temporaries), ``numpy-out`` (``out=`` passes, no temporaries, still one
pass per operator), ``fused`` (numexpr: one blocked, threaded pass; ``np.dot`` for dot) and
``compiled`` (a loop compiled by Numba, :mod:`gpulab.compiled`: one pass through registers, as a
GPU kernel runs; the CPU's real DRAM rate, which block passes miss by 10-30% on many CPUs).
With a GPU the kernels of ``kernels/stream.cu`` are timed with CUDA events; a modelled GPU
from the spec table is always drawn, labelled modelled: its bytes move at the *achievable*
bandwidth (the share of the spec sheet a published streaming benchmark reached on it,
:func:`gpulab.model.memory_share`), under the spec sheet's figure drawn as its ceiling. Each point carries
``percent_of_peak``: of the spec bandwidth for a GPU, and for the CPU of the best triad this
run measured out of cache (working set >= 4x the last-level cache), the STREAM rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gpulab import cuda, hostmem, kernels
from gpulab.catalogue import Message, msg, render
from gpulab.hostmem import page_aligned_full
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, Progress, param, params_to_dict, powers_of_two
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import (
    Axes,
    OnError,
    Remeasure,
    Stopped,
    Sweep,
    SweepSeries,
    Swept,
    drop_from_previous,
    gpu_bandwidth_ceiling_of,
    gpu_details,
    sweep_points,
)
from gpulab.measure import (
    Ceiling,
    RepeatPolicy,
    best_rate_point,
    clean_points,
    flagged_headline,
    noisy_notes,
    rate_point,
    time_cpu_calls,
    time_gpu_stages,
    with_ceiling,
)
from gpulab.results import Point, Provenance, Result, Series, host_summary, merge_notes
from gpulab.threads import cpu_threads

TITLE = render("experiment.bandwidth.title")
DESCRIPTION = render("experiment.bandwidth.description")

OPERATIONS = ("copy", "mul", "add", "triad", "dot")
ARRAYS = {"copy": 2, "mul": 2, "add": 3, "triad": 3, "dot": 2}
"""Arrays each operation reads or writes once (BabelStream's byte counts)."""
FLOPS = {"copy": 0, "mul": 1, "add": 1, "triad": 2, "dot": 2}
FORMS = ("numpy", "numpy-out", "fused", "compiled")
ITEMSIZE = 8  # float64, BabelStream's default
SCALAR = 0.4  # BabelStream's scalar; any value moves the same bytes
START = {"a": 0.1, "b": 0.2, "c": 0.0}  # BabelStream's starting values
USES = {"copy": "ac", "mul": "bc", "add": "abc", "triad": "abc", "dot": "ab"}
"""The arrays each operation reads or writes (only these are made: memory and time)."""
BLOCK = 256
DRAM_FACTOR = 4
"""STREAM's rule: a working set of at least 4x the last-level cache measures DRAM, not a cache."""
HOST_MEMORY_SHARE = 0.5
"""Largest working set, as a share of the memory available: the arrays plus numpy's temporaries
(up to another working set for ``b + s*c``) must fit without swapping."""
GPU_MEMORY_SHARE = 0.8
MAX_INT = 2**31 - 1  # the kernels take n as a C int

WORKING_SETS = (
    ("standard", powers_of_two(12, 30)),
    ("quick", powers_of_two(12, 28, 2)),
    ("full", powers_of_two(12, 32)),
)


@dataclass(frozen=True)
class Params(CheckedParams):
    working_sets: tuple[int, ...] = param(powers_of_two(12, 30), unit="B", min=1 << 12, max=1 << 36,
                                          power_of_two=True, presets=WORKING_SETS)  # fmt: skip
    # Several names each, typed in one line (a form row each: the lab's form must fit a projector).
    # Triad alone by default (STREAM's headline): its three CPU forms and the model already fill
    # a legend on a projector; the other operations are one word away.
    operations: tuple[str, ...] = param(("triad",), choices=OPERATIONS)
    forms: tuple[str, ...] = param(("numpy", "fused", "compiled"), choices=FORMS)
    seconds_per_point: float = param(0.1, unit="s", min=0.001, max=10.0)
    model_gpu: str = param("h100-sxm")


# ----------------------------------------------------------------- byte accounting


def elements(operation: str, working_set_bytes: int) -> int:
    """Elements per array so the arrays ``operation`` touches fill ``working_set_bytes`` (at least 1)."""
    return max(1, working_set_bytes // (ARRAYS[operation] * ITEMSIZE))


def bytes_moved(operation: str, n: int, itemsize: int = ITEMSIZE) -> int:
    """Bytes read plus written by one call on arrays of ``n`` elements (BabelStream's counts)."""
    return ARRAYS[operation] * n * itemsize


# ----------------------------------------------------------------- CPU forms


class Arrays:
    """The float64 arrays of one working set, made when an operation first asks for them and
    shared by every form of that operation (each operation has its own ``n``)."""

    def __init__(self, working_set_bytes: int) -> None:
        self.working_set_bytes = working_set_bytes
        self._made: dict[str, dict[str, np.ndarray]] = {}

    def of(self, operation: str) -> dict[str, np.ndarray]:
        if operation not in self._made:
            self._made.clear()  # one operation's arrays at a time: the memory budget counts one set
            n = elements(operation, self.working_set_bytes)
            self._made[operation] = {name: page_aligned_full(n, START[name]) for name in USES[operation]}
        return self._made[operation]


Call = Callable[[], Any]
_ABSENT = np.empty(0)  # stands for an array the operation does not touch (and its call never reads)


def _abc(v: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return v.get("a", _ABSENT), v.get("b", _ABSENT), v.get("c", _ABSENT)



def _numpy_call(op: str, v: dict[str, np.ndarray]) -> Call:
    """The operation as people write it: every operator makes a new array."""
    (a, b, c), s = _abc(v), SCALAR
    calls: dict[str, Call] = {
        "copy": lambda: a.copy(),
        "mul": lambda: s * c,
        "add": lambda: a + b,
        "triad": lambda: b + s * c,
        "dot": lambda: (a * b).sum(),
    }
    return calls[op]


def _numpy_out_call(op: str, v: dict[str, np.ndarray]) -> Call:
    """numpy with ``out=``: no new arrays, but still one pass over memory per operator."""
    (a, b, c), s = _abc(v), SCALAR
    scratch = np.empty_like(a) if op == "dot" else a

    def triad() -> None:
        np.multiply(c, s, out=a)
        np.add(a, b, out=a)

    calls: dict[str, Call] = {
        "copy": lambda: np.copyto(c, a),
        "mul": lambda: np.multiply(c, s, out=b),
        "add": lambda: np.add(a, b, out=c),
        "triad": triad,
        "dot": lambda: np.multiply(a, b, out=scratch).sum(),
    }
    return calls[op]


FUSED_EXPRESSIONS = {"copy": ("a", "c"), "mul": ("s * c", "b"), "add": ("a + b", "c"), "triad": ("b + s * c", "a")}


def _fused_call(op: str, v: dict[str, np.ndarray]) -> Call:
    """One pass: numexpr evaluates the expression block by block on its threads; dot is
    ``np.dot`` (the BLAS ddot), already one pass. The expression is checked and compiled once
    here (``validate``); the timed call re-runs it (``re_evaluate``: a few microseconds instead
    of a dozen, which matters for the small working sets). Make the call just before timing it:
    numexpr remembers one expression per thread."""
    if op == "dot":
        a, b = v["a"], v["b"]
        return lambda: np.dot(a, b)
    import numexpr

    expression, target = FUSED_EXPRESSIONS[op]
    names = {**v, "s": np.float64(SCALAR)}
    error = numexpr.validate(expression, local_dict=names, out=v[target])
    if error is not None:
        raise error
    return lambda: numexpr.re_evaluate(local_dict=names)


def _compiled_call(op: str, v: dict[str, np.ndarray]) -> Call:
    """One pass compiled to machine code (Numba), on the project's thread count; set here
    because Numba keeps the count per calling thread, and this runs on the timing thread."""
    from gpulab import compiled

    compiled.set_threads(cpu_threads())
    return compiled.call(op, v, SCALAR)


FORM_LABELS = {"numpy": "series.bandwidth.cpu-numpy", "numpy-out": "series.bandwidth.cpu-numpy-out",
               "fused": "series.bandwidth.cpu-fused", "compiled": "series.bandwidth.cpu-compiled"}  # fmt: skip
FORM_CALLS = {"numpy": _numpy_call, "numpy-out": _numpy_out_call, "fused": _fused_call, "compiled": _compiled_call}
FORM_WRITTEN = {
    "numpy": {"copy": "a.copy()", "mul": "s * c", "add": "a + b", "triad": "b + s * c", "dot": "(a * b).sum()"},
    "numpy-out": {"copy": "np.copyto(c, a)", "mul": "np.multiply(c, s, out=b)", "add": "np.add(a, b, out=c)",
                  "triad": "np.multiply(c, s, out=a); np.add(a, b, out=a)",
                  "dot": "np.multiply(a, b, out=t).sum()"},
    "fused": {"copy": "numexpr 'a' -> c", "mul": "numexpr 's * c' -> b", "add": "numexpr 'a + b' -> c",
              "triad": "numexpr 'b + s * c' -> a", "dot": "np.dot(a, b) (BLAS)"},
    "compiled": {"copy": "for i in prange(n): c[i] = a[i]", "mul": "for i in prange(n): b[i] = s * c[i]",
                 "add": "for i in prange(n): c[i] = a[i] + b[i]", "triad": "for i in prange(n): a[i] = b[i] + s * c[i]",
                 "dot": "for i in prange(n): total += a[i] * b[i]"},
}  # fmt: skip


def _set_numexpr_threads() -> dict[str, Any]:
    """Give numexpr the project's thread count; return what the provenance records."""
    import numexpr

    threads = cpu_threads()
    numexpr.set_num_threads(threads)
    return {"numexpr": numexpr.__version__, "numexpr_threads": threads}


# ----------------------------------------------------------------- series


AXES = Axes(msg("axis.working-set"), "B", msg("axis.bandwidth"), "GB/s")


def _cpu_provenance(form: str, op: str, extra: dict[str, Any]) -> Provenance:
    from gpulab.devices import describe_cpu

    cpu = describe_cpu()
    details = {"form": form, "operation": op, "code": FORM_WRITTEN[form][op], "numpy": np.__version__,
               "blas": cpu.blas[0].vendor if cpu.blas else "unknown",
               "timing": "perf_counter around one call, best of repeats (STREAM's rule)", **extra}  # fmt: skip
    return Provenance("measured", cpu.model, details)


IMPLAUSIBLE_DROP = 20
"""A CPU rate under 1/20 of the same series' rate at the working set before cannot be the memory
wall (a CPU's fall from its last cache to DRAM is 3-10x): a call that waited for a core, as on a
busy machine or beside the window's drawing. Such a point is measured again."""
REMEASURES = 2
CPU_REMEASURE = Remeasure(drop_from_previous(IMPLAUSIBLE_DROP), times=REMEASURES)


def _cpu_error_note(stopped: Stopped) -> Message:
    return msg("note.bandwidth.cpu-error", series=stopped.label, size=hostmem.bytes_text(stopped.size),
               error=stopped.error)  # fmt: skip


CPU_STOPS = OnError(fatal=(MemoryError,), note=_cpu_error_note)
"""A CPU form that fails (Numba failing to compile, numexpr refusing) stops alone, keeping what it
measured; running out of host memory is not one form's fault: the run stops and says so."""


def _cpu_line(form: str, op: str, policy: RepeatPolicy, ctx: Context, extra: dict[str, Any]) -> SweepSeries:
    def make(working_set: int, arrays: Arrays) -> Point:
        values = arrays.of(op)
        n = len(next(iter(values.values())))
        samples = time_cpu_calls(FORM_CALLS[form](op, values), policy, ctx.check_cancelled)
        return best_rate_point(working_set, bytes_moved(op, n), samples, n=n,
                               working_set_bytes=ARRAYS[op] * n * ITEMSIZE)  # fmt: skip

    label = msg(FORM_LABELS[form], op=op)
    return SweepSeries(label, "cpu", _cpu_provenance(form, op, extra), make, f"cpu-{form}-{op}",
                       on_error=CPU_STOPS, remeasure=CPU_REMEASURE)  # fmt: skip


class GpuState:
    """What the GPU series share: the device, its free memory, and the working sets too large for it."""

    def __init__(self, device: int) -> None:
        self.device = device
        self.skipped: list[int] = []
        self.free_bytes: int | None = None

    def fits(self, working_set: int, n: int) -> bool:
        if self.free_bytes is None:
            cupy = cuda.require_cupy()
            with cupy.cuda.Device(self.device):
                cupy.get_default_memory_pool().free_all_blocks()  # blocks CuPy keeps cached are free to us
                self.free_bytes = int(cupy.cuda.runtime.memGetInfo()[0])  # cudaMemGetInfo: (free, total)
        return n <= MAX_INT and working_set <= GPU_MEMORY_SHARE * self.free_bytes


def _gpu_launch(cupy: Any, op: str, n: int, device: int) -> Call:
    """One launch of the ``stream_<op>`` kernel on fresh device arrays of ``n`` float64."""
    spec = kernels_by_operation()[op]
    kernel = cuda.get_kernel(spec.source, spec.entry, device)
    made = {name: cupy.full(n, START[name], dtype=cupy.float64) for name in USES[op]}
    a, b, c = made.get("a"), made.get("b"), made.get("c")
    grid, block = kernels.grid_1d(n, BLOCK)
    size, s = np.int32(n), np.float64(SCALAR)
    if op == "dot":
        sms = int(cupy.cuda.Device(device).attributes["MultiProcessorCount"])
        grid = (min(grid[0], 8 * sms), 1, 1)  # enough blocks to fill the GPU; each thread strides on
        total = cupy.zeros(1, dtype=cupy.float64)
        return lambda: kernel(grid, block, (a, b, total, size))
    args = {"copy": (a, c, size), "mul": (b, c, s, size), "add": (a, b, c, size), "triad": (a, b, c, s, size)}[op]
    return lambda: kernel(grid, block, args)


def _gpu_error_note(stopped: Stopped) -> Message:
    return msg("note.bandwidth.gpu-error", size=hostmem.bytes_text(stopped.size), error=stopped.error)


GPU_STOPS = OnError(group="gpu", note=_gpu_error_note)
"""Out of memory, an illegal address, a driver failure: every GPU line stops, keeping what it measured."""


def _gpu_line(op: str, policy: RepeatPolicy, ctx: Context, state: GpuState) -> SweepSeries:
    ceiling = gpu_bandwidth_ceiling_of(state.device)

    def make(working_set: int, _arrays: Arrays) -> Point | None:
        n = elements(op, working_set)
        if not state.fits(ARRAYS[op] * n * ITEMSIZE, n):
            state.skipped.append(working_set)
            return None
        cupy = cuda.require_cupy()
        with cupy.cuda.Device(state.device):
            samples = time_gpu_stages([("kernel", _gpu_launch(cupy, op, n, state.device))], policy,
                                      ctx.check_cancelled)  # fmt: skip
        return with_ceiling(rate_point(working_set, bytes_moved(op, n), samples["total"], n=n), ceiling)

    details = gpu_details(ceiling, timing="CUDA events after warm-up, median of repeats",
                          kernel=f"stream_{op}", operation=op)  # fmt: skip
    provenance = Provenance("measured", cuda.device_name(state.device), details)
    return SweepSeries(msg("series.bandwidth.gpu", op=op), "gpu", provenance, make, f"gpu-{op}", on_error=GPU_STOPS)


def model_point(op: str, spec: Any, working_set: int) -> Point:
    """The modelled GPU's point of ``op`` at ``working_set`` bytes: the bytes BabelStream counts
    over one kernel's modelled time (:func:`gpulab.model.kernel_time`: the bytes at the achievable
    bandwidth, plus the launch overhead), against the spec sheet's bandwidth as its ceiling. Any
    working set prices (a validation row's need not be a power of two)."""
    from gpulab.model import kernel_time

    n = elements(op, working_set)
    dtype = "fp64" if spec.peak_flops("fp64") else "fp32"  # the FLOPs never set the time; the bytes do
    estimate = kernel_time(spec, FLOPS[op] * n, bytes_moved(op, n), dtype, use_tensor_cores=False)
    facts = {"kind": "modelled", "seconds": estimate.seconds, "repeats": 0, "n": n, "bound": estimate.bound}
    point = Point(working_set, bytes_moved(op, n) / estimate.seconds / 1e9, None, facts)
    return with_ceiling(point, spec_ceiling(spec))


def spec_ceiling(spec: Any) -> Ceiling:
    """The modelled GPU's ceiling: its spec sheet's bandwidth, which the modelled curve stays under."""
    return Ceiling(spec.memory_bandwidth_gb_s, f"{spec.name} spec sheet, memory bandwidth")


def _model_line(op: str, spec: Any) -> SweepSeries:
    from gpulab.model import memory_share

    ceiling, share = spec_ceiling(spec), memory_share(spec)

    def make(working_set: int, _arrays: Arrays) -> Point:
        return model_point(op, spec, working_set)

    details = {"formula": f"time = {ARRAYS[op]}·8·n bytes / achievable bandwidth + launch overhead; achievable "
                          "bandwidth = share a published streaming benchmark reached × spec-sheet bandwidth",
               "spec_key": spec.key, "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s, **share.details(),
               "l2_cache_mb": spec.l2_cache_mb, "ceiling": ceiling.value, "ceiling_source": ceiling.source}  # fmt: skip
    label = msg("series.bandwidth.model", gpu=spec.name.removeprefix("NVIDIA "), op=op)  # short for the legend
    return SweepSeries(label, "model", Provenance("modelled", spec.name, details), make, f"model-{op}")


def kernels_by_operation() -> dict[str, kernels.KernelSpec]:
    return {spec.entry.removeprefix("stream_"): spec for spec in KERNELS}


# ----------------------------------------------------------------- the sweep


@dataclass
class Plan:
    params: Params
    lines: list[SweepSeries]
    working_sets: tuple[int, ...]
    notes: list[Message] = field(default_factory=list)
    gpu: GpuState | None = None
    host: hostmem.HostMemory | None = None
    model_notes: list[Message] = field(default_factory=list)
    """What the modelled GPU's curve rests on (its achievable bandwidth and the source), said last."""


def clamp_to_memory(working_sets: Sequence[int], available_bytes: int | None) -> tuple[tuple[int, ...], list[int]]:
    """(working sets that fit in :data:`HOST_MEMORY_SHARE` of ``available_bytes``, those left out)."""
    if available_bytes is None:
        return tuple(working_sets), []
    limit = HOST_MEMORY_SHARE * available_bytes / 2  # the arrays, and numpy's temporaries as large again
    kept = tuple(w for w in working_sets if w <= limit)
    return kept, [w for w in working_sets if w > limit]


def plan(params: Params, ctx: Context, available_bytes: int | None = None) -> Plan:
    """The lines to draw and the working sets to run, with the notes on what was left out."""
    from gpulab.lab.base import resolve_model_gpu
    from gpulab.model import memory_share

    spec = resolve_model_gpu(params.model_gpu)
    ordered = sorted(set(params.working_sets))
    available = hostmem.available_memory_bytes() if available_bytes is None else available_bytes
    kept, dropped = clamp_to_memory(ordered, available)
    result = Plan(params, [], kept, host=hostmem.host_memory())
    if dropped:
        result.notes.append(msg("note.bandwidth.clamped", sizes=[hostmem.bytes_text(w) for w in dropped],
                                available=hostmem.bytes_text(available or 0)))  # fmt: skip
    policy = RepeatPolicy(repeats=3, min_seconds=params.seconds_per_point, max_seconds=params.seconds_per_point)
    ops = [op for op in OPERATIONS if op in params.operations]
    facts = {form: _form_facts(form) for form in _forms_here(params.forms, result.notes)}
    result.lines += [_cpu_line(form, op, policy, ctx, extra) for op in ops for form, extra in facts.items()]
    status = cuda.cuda_status()
    if status.available:
        result.gpu = GpuState(ctx.device_index or 0)
        result.lines += [_gpu_line(op, policy, ctx, result.gpu) for op in ops]
    else:
        result.notes.append(msg("note.no-gpu", reason=status.reason_message or status.reason))
    # One modelled curve: bytes / spec bandwidth is the same curve for every operation, so a second
    # would only crowd the legend. Triad's, STREAM's headline, when it was asked for.
    result.lines.append(_model_line("triad" if "triad" in ops else ops[0], spec))
    result.model_notes.append(memory_share(spec).lab_note)
    return result


def _forms_here(forms: Sequence[str], notes: list[Message]) -> list[str]:
    """The asked-for forms this machine can run, in the order of :data:`FORMS`; a form left
    out (Numba missing) gets a note instead of failing the run."""
    from gpulab import compiled

    kept = [form for form in FORMS if form in forms]
    error = compiled.import_error() if "compiled" in kept else None
    if error is not None:
        kept.remove("compiled")
        notes.append(msg("note.bandwidth.no-compiled", error=error))
    return kept


def _form_facts(form: str) -> dict[str, Any]:
    """What a form's provenance records beyond the code: its library and thread count."""
    if form == "fused":
        return _set_numexpr_threads()
    if form == "compiled":
        from gpulab import compiled

        return {"numba": compiled.version(), "threads": cpu_threads(),
                "one_thread_below_elements_per_thread": compiled.PARALLEL_FROM_PER_THREAD}  # fmt: skip
    return {}


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Every line at every working set, smallest first, each point yielded as it is measured."""
    return (yield from measure(plan(params, ctx)))


def measure(the_plan: Plan) -> ExperimentGen:
    """The plan's lines at its working sets, through the one sweep (each working set's arrays made
    once, when an operation first asks); the result with its ceilings and notes."""
    sweep = Sweep("bandwidth", the_plan.params, AXES, the_plan.lines, unit="W", operands=Arrays, progress=_progress)
    swept = yield from sweep_points(sweep, the_plan.working_sets)
    yield Progress(1.0, msg("progress.done"))
    return _result(the_plan, swept)


def _progress(line: SweepSeries, working_set: int) -> Message:
    return msg("progress.bandwidth", series=line.label, size=hostmem.bytes_text(working_set))


# ----------------------------------------------------------------- ceilings and notes


def cpu_ceiling(series: Sequence[Series], last_level_bytes: int | None) -> tuple[Ceiling, bool] | None:
    """The CPU's ceiling: the best triad of this run measured out of cache (working set >=
    :data:`DRAM_FACTOR` x the last-level cache), else the best triad at any working set; without a
    triad, the best CPU rate. Only clean points count (a flagged one is drawn hollow and is no
    ceiling). Returns (ceiling, whether it is out of cache) or None (no clean CPU points)."""
    cpu = [s for s in series if s.role == "cpu" and clean_points(s)]
    triads = [s for s in cpu if s.key.endswith("-triad")] or cpu
    points = [p for s in triads for p in clean_points(s)]
    if not points:
        return None
    what = "triad" if any(s.key.endswith("-triad") for s in triads) else "rate"
    dram = [p for p in points if last_level_bytes and p.x >= DRAM_FACTOR * last_level_bytes]
    best = max(dram or points, key=lambda p: p.y)
    where = f"working set >= {DRAM_FACTOR}x the last-level cache (DRAM)" if dram else "any working set"
    return Ceiling(best.y, f"best CPU {what} measured in this run, {where}"), bool(dram)


def _with_cpu_ceiling(series: Series, ceiling: Ceiling, dram_gb_s: float | None) -> Series:
    points = []
    for point in series.points:
        point = with_ceiling(point, ceiling)
        if dram_gb_s:
            point = replace(point, extra={**point.extra, "percent_of_dram_theoretical": 100.0 * point.y / dram_gb_s})
        points.append(point)
    details = {**series.provenance.details, "ceiling": ceiling.value, "ceiling_source": ceiling.source}
    return replace(series, points=tuple(points), provenance=replace(series.provenance, details=details))


def _result(the_plan: Plan, swept: Swept) -> Result:
    host = the_plan.host or hostmem.host_memory()
    series = list(swept.series.values())
    found = cpu_ceiling(series, host.last_level_bytes)
    if found is not None:
        series = [_with_cpu_ceiling(s, found[0], host.dram_theoretical_gb_s) if s.role == "cpu" else s
                  for s in series]  # fmt: skip
    # The caches and the DRAM rate travel with the machine's description, so a saved result
    # marks the caches of the machine it was measured on, wherever it is opened.
    result = Result("bandwidth", params_to_dict(the_plan.params), tuple(series),
                    host={**host_summary(), "memory": host.as_dict()})  # fmt: skip
    # The lesson first, then the noise.
    headline = flagged_headline(series)
    notes = merge_notes([headline] if headline else [], _notes(the_plan, swept, host, found), noisy_notes(result, "W"))
    return replace(result, notes=tuple(notes))


def _notes(the_plan: Plan, swept: Swept, host: hostmem.HostMemory, found: tuple[Ceiling, bool] | None,
           ) -> list[Message]:  # fmt: skip
    notes = list(the_plan.notes)
    gpu_stop = swept.stopped_in("gpu")
    notes += [gpu_stop.note] if gpu_stop is not None and gpu_stop.note is not None else []
    gpu = the_plan.gpu
    if gpu is not None and gpu.skipped:
        sizes = sorted({hostmem.bytes_text(w) for w in gpu.skipped})
        notes.append(msg("note.bandwidth.gpu-clamped", sizes=sizes))
    notes += [s.note for s in swept.stopped if s.group != "gpu" and s.note is not None]  # the CPU forms that failed
    notes.append(msg("note.bandwidth.bytes"))
    if the_plan.params.forms:
        notes.append(msg("note.bandwidth.best"))
    if "numpy" in the_plan.params.forms or "fused" in the_plan.params.forms:
        notes.append(msg("note.bandwidth.forms"))
    forms_run = {line.provenance.details["form"] for line in the_plan.lines if line.role == "cpu"}
    if {"compiled", "fused"} <= forms_run:
        notes.append(msg("note.bandwidth.compiled"))
    if the_plan.working_sets and the_plan.working_sets[0] < 1 << 16 and the_plan.params.forms:
        notes.append(msg("note.bandwidth.overhead"))
    notes.append(_cache_note(host))
    if found is not None:
        key = "note.bandwidth.cpu-ceiling" if found[1] else "note.bandwidth.cpu-ceiling-in-cache"
        notes.append(msg(key, gb_s=f"{found[0].value:.1f}", factor=DRAM_FACTOR))
    elif any(s.points for s in swept.series.values() if s.role == "cpu"):
        notes.append(msg("note.bandwidth.cpu-ceiling-flagged"))
    dram = host.dram_theoretical_gb_s
    notes.append(msg("note.bandwidth.dram", gb_s=f"{dram:.1f}") if dram else msg("note.bandwidth.no-dram"))
    return notes + the_plan.model_notes


def _cache_note(host: hostmem.HostMemory) -> Message:
    if not host.caches:
        return msg("note.bandwidth.no-caches")
    sizes = [f"{c.name} {hostmem.bytes_text(c.size_bytes)}" for c in host.caches]
    return msg("note.bandwidth.caches", caches=sizes, source=host.caches_source)


# ----------------------------------------------------------------- kernels


def _make_args(op: str) -> Callable[[Any, np.random.Generator], list[Any]]:
    def make(sizes: Any, rng: np.random.Generator) -> list[Any]:
        n = sizes["n"]
        a, b, c = (rng.standard_normal(n) for _ in range(3))
        s, size = np.float64(SCALAR), np.int32(n)
        return {"copy": [a, np.zeros(n), size], "mul": [np.zeros(n), c, s, size], "add": [a, b, np.zeros(n), size],
                "triad": [np.zeros(n), b, c, s, size], "dot": [a, b, np.zeros(1), size]}[op]  # fmt: skip

    return make


REFERENCES: dict[str, Callable[[list[Any]], dict[int, np.ndarray]]] = {
    "copy": lambda args: {1: args[0].copy()},
    "mul": lambda args: {0: args[2] * args[1]},
    "add": lambda args: {2: args[0] + args[1]},
    "triad": lambda args: {0: args[1] + args[3] * args[2]},
    "dot": lambda args: {2: np.array([np.dot(args[0], args[1])])},
}


def _kernel(op: str) -> kernels.KernelSpec:
    presets = (kernels.preset_1d("tiny", 300, 256), kernels.preset_1d("small", 4096),
               kernels.preset_1d("large", 1 << 20))  # fmt: skip
    return kernels.KernelSpec(file="stream.cu", entry=f"stream_{op}", presets=presets, make_args=_make_args(op),
                              reference=REFERENCES[op], rtol=1e-9, atol=1e-9)  # fmt: skip


KERNELS = tuple(_kernel(op) for op in OPERATIONS)


LAB = Lab("bandwidth", section="memory", order=10, page="bandwidth",
          quick=("working_sets=quick", "seconds_per_point=0.01"), kernels=KERNELS)
