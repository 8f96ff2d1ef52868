"""Operator fusion, "one wok, more dishes": y = (a + b)·c, or a longer elementwise chain, as one
pass per operator and as one fused pass, size by size.

Every series is credited with the bytes the formula itself must move (inputs read once, y
written once: 16 bytes per element for (a+b)·c), so its y is an *effective* GB/s: a version
that moves more (the unfused ones write each intermediate out and read it back, 24 bytes per
element) or launches more kernels shows fewer GB/s for the same work. Each point's ``extra``
says what it really moved (``bytes_moved``), how many launches (GPU) or passes over the arrays
(CPU) it took, and the FLOPs.

- CPU, measured: numpy as written (a temporary per operator), numpy with ``out=`` (one pass
  per operator, no allocation), numexpr (one blocked pass: the intermediates stay in cache;
  one thread, as numpy's ufuncs, so the gain is fusion's alone).
- GPU, measured with CUDA events (:mod:`gpulab.experiments.fusion.gpu`): CuPy as written,
  ``cupy.ElementwiseKernel``, ``cupy.fuse``, and the hand-written ``.cu`` kernels unfused and fused.
- Without a usable GPU, the chosen GPU modelled unfused and fused: bytes moved / achievable
  bandwidth (the share of the spec sheet a published streaming benchmark reached on that GPU,
  :func:`gpulab.model.memory_share`) plus one assumed launch overhead per kernel
  (:func:`gpulab.model.kernel_time`).
- Emulated: the ``.cu`` kernels counted exactly by the SIMT emulator (launches, global bytes
  from 32-byte sectors, instructions). These two series carry no time: a lab panel shows
  them as a table, not on the GB/s chart, and no partial point is yielded for them.

    >>> from gpulab.experiments import Context, drive, fusion
    >>> result = drive(fusion.run(fusion.Params(sizes=(1 << 16,)), Context()))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg, render
from gpulab.experiments.fusion import gpu
from gpulab.experiments.fusion.chains import (
    BLOCK,
    EMULATED_N,
    KERNELS,
    Chain,
    EmulatedCounts,
    chain_named,
    emulate_chain,
)
from gpulab.lab.base import (
    CheckedParams,
    Context,
    ExperimentError,
    ExperimentGen,
    Progress,
    param,
    params_to_dict,
    powers_of_two,
    random_normal,
)
from gpulab.lab.declare import Lab
from gpulab.lab.sweep import (
    Axes,
    OnError,
    Stopped,
    Sweep,
    SweepSeries,
    Swept,
    gpu_bandwidth_ceiling_of,
    gpu_details,
    numpy_cpu_provenance,
    sweep_points,
)
from gpulab.measure import (
    RepeatPolicy,
    clean_points,
    flagged_headline,
    modelled_point,
    noisy_notes,
    rate_point,
    size_text,
    time_cpu_calls,
    time_gpu_stages,
    with_ceiling,
)
from gpulab.results import Point, Provenance, Result, Series, merge_notes
from gpulab.threads import cpu_threads, numexpr_threads

__all__ = ["KERNELS", "Params", "run"]

TITLE = render("experiment.fusion.title")
DESCRIPTION = render("experiment.fusion.description")
EMULATOR_DEVICE = "SIMT emulator (gpulab)"
CPU_BLOCK = 1 << 16
"""Elements per block of the hand-fused numpy form: 256 KiB per float32 slice, so a block's
intermediate stays in cache (L2, or L3 where L2 is smaller) between operators, and a call per
block and operator costs little next to the block's work."""
HOST_MEMORY_SHARE = 0.5
"""A size runs on the CPU only if its arrays take at most this share of the memory free now."""

X_LABEL = Note(msg("axis.elements"))
AXES = Axes(msg("axis.elements"), "", msg("axis.fusion.effective-bandwidth"), "GB/s")
SIZE_PRESETS = (
    ("standard", powers_of_two(10, 24, 2)),
    ("quick", powers_of_two(10, 20, 2)),
    ("large", powers_of_two(10, 26, 2)),
)


@dataclass(frozen=True)
class Params(CheckedParams):
    sizes: tuple[int, ...] = param(powers_of_two(10, 24, 2), min=32, max=1 << 28, presets=SIZE_PRESETS)
    chain: Literal["(a+b)*c", "((a+b)*c-d)*0.5"] = param("(a+b)*c")
    repeats: int = param(5, min=1, max=1000)
    model_gpu: str = param("h100-sxm")


@dataclass
class Operands:
    """The inputs of one size (float32, made once and shared by every series) and numpy's answer."""

    chain: Chain
    inputs: list[np.ndarray]
    _reference: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.inputs[0].size)

    @property
    def reference(self) -> np.ndarray:
        if self._reference is None:
            self._reference = np.asarray(self.chain.formula(*self.inputs), dtype=np.float32)
        return self._reference


def _facts(chain: Chain, n: int, fused: bool, count_key: str) -> dict[str, Any]:
    """What a point of one version says it did: bytes needed and moved, launches or passes, FLOPs."""
    return {"bytes_required": chain.bytes_fused(n),
            "bytes_moved": chain.bytes_fused(n) if fused else chain.bytes_unfused(n),
            count_key: 1 if fused else chain.launches_unfused, "flops": chain.flops_per_element * n}  # fmt: skip


# ------------------------------------------------------------- CPU


def _as_written(ops: Operands) -> Callable[[], Any]:
    chain, inputs = ops.chain, ops.inputs
    return lambda: chain.formula(*inputs)  # a new temporary for every operator


def _passes(ops: Operands, y: np.ndarray) -> list[tuple[Any, list[Any]]]:
    """The chain as ufunc calls, one per operator, each writing into ``y`` (the first reads a, b)."""
    rest = list(ops.inputs[2:])
    passes: list[tuple[Any, list[Any]]] = [(np.add, list(ops.inputs[:2]))]
    for step in ops.chain.steps[1:]:
        passes.append((getattr(np, step.ufunc), [y, rest.pop(0) if step.reads == 2 else np.float32(0.5)]))
    return passes


def _out_passes(ops: Operands) -> Callable[[], Any]:
    """One ufunc pass per operator over the whole arrays, into one scratch array: no allocation,
    but every intermediate still goes out to memory and comes back."""
    y = np.empty_like(ops.inputs[0])
    passes = _passes(ops, y)

    def call() -> None:
        for ufunc, operands in passes:
            ufunc(*operands, out=y)

    return call


def _blocked(ops: Operands) -> Callable[[], Any]:
    """The same ufunc calls, block by block: a block's intermediate stays in cache while every
    operator works on it, so memory sees each input once and y once (fusion by hand, one thread).
    The block views are cut once, before timing: the timed loop only calls ufuncs."""
    y = np.empty_like(ops.inputs[0])
    passes, n = _passes(ops, y), ops.n
    calls = []
    for start in range(0, n, CPU_BLOCK):
        piece = slice(start, min(start + CPU_BLOCK, n))
        for ufunc, operands in passes:
            calls.append((ufunc, [o[piece] if isinstance(o, np.ndarray) else o for o in operands], y[piece]))

    def call() -> None:
        for ufunc, operands, out in calls:
            ufunc(*operands, out=out)

    return call


def _numexpr(ops: Operands) -> Callable[[], Any]:
    import numexpr

    names = dict(zip(ops.chain.inputs, ops.inputs, strict=True))
    y = np.empty_like(ops.inputs[0])
    return lambda: numexpr.evaluate(ops.chain.numexpr, local_dict=names, out=y)


def _with_numexpr_threads(time_it: Callable[[], Point]) -> Point:
    """Time with numexpr on the project's CPU threads (:func:`gpulab.threads.cpu_threads`), then
    leave it as it was."""
    with numexpr_threads():
        return time_it()


CPU_FORMS: dict[str, tuple[Callable[[Operands], Callable[[], Any]], bool, str]] = {
    "cpu-numpy-as-written": (_as_written, False, "perf_counter around the formula on numpy arrays"),
    "cpu-numpy-out": (_out_passes, False, "perf_counter around one ufunc call with out= per operator"),
    "cpu-numpy-blocked": (_blocked, True, "perf_counter around the out= ufunc calls in blocks of 65536 elements"),
    "cpu-numexpr": (_numexpr, True, "perf_counter around numexpr.evaluate(..., out=y)"),
}


def _cpu_series(key: str, params: Params, ctx: Context) -> SweepSeries:
    form, fused, timing = CPU_FORMS[key]

    def make(n: int, ops: Operands) -> Point:
        def time_it() -> Point:
            samples = time_cpu_calls(form(ops), RepeatPolicy(repeats=params.repeats), ctx.check_cancelled)
            return rate_point(n, ops.chain.bytes_fused(n), samples, **_facts(ops.chain, n, fused, "passes"))

        return _with_numexpr_threads(time_it) if key == "cpu-numexpr" else time_it()

    provenance = numpy_cpu_provenance(f"{timing}, median of repeats")
    if key != "cpu-numexpr":
        return SweepSeries(msg(f"series.fusion.{key}"), "cpu", provenance, make, key)
    import numexpr

    threads = cpu_threads()
    details = {**provenance.details, "library": "numexpr", "numexpr": numexpr.__version__, "threads": threads}
    provenance = Provenance("measured", provenance.device, details)
    return SweepSeries(msg("series.fusion.cpu-numexpr", threads=threads), "cpu", provenance, make, key)


def _has_numexpr() -> bool:
    try:
        import numexpr  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------- GPU

GPU_FORMS: dict[str, tuple[Callable[..., tuple[gpu.Call, gpu.Call]], bool, bool]] = {
    # key: (calls maker, fused?, takes the device index?)
    "gpu-cupy-ops": (gpu.cupy_ops, False, False),
    "gpu-elementwise": (gpu.elementwise, True, False),
    "gpu-fuse": (gpu.fused, True, False),
    "gpu-cu-unfused": (gpu.cu_unfused, False, True),
    "gpu-cu-fused": (gpu.cu_fused, True, True),
}


def _gpu_point(key: str, run: gpu.GpuRun, n: int, ops: Operands, params: Params, ctx: Context) -> Point:
    cupy = cuda.require_cupy()
    maker, fused, takes_device = GPU_FORMS[key]
    with cupy.cuda.Device(run.device):
        device_ops = run.operands(ops.chain, n, ops.inputs)
        extra = (run.device,) if takes_device else ()
        call, answer = maker(ops.chain, device_ops, *extra)
        samples = time_gpu_stages([("kernels", call)], RepeatPolicy(repeats=params.repeats), ctx.check_cancelled)
        gpu.check_result(answer(), ops.reference, key)
    return rate_point(n, ops.chain.bytes_fused(n), samples["total"], **_facts(ops.chain, n, fused, "launches"))


def _gpu_error_note(stopped: Stopped) -> Message:
    return msg("note.fusion.gpu-error", size=stopped.size, error=stopped.error)


GPU_STOPS = OnError(group="gpu", note=_gpu_error_note)
"""Out of memory, a driver or compile error, a wrong answer: every GPU series stops, the points so far stay."""


def _gpu_series(key: str, run: gpu.GpuRun, params: Params, ctx: Context) -> SweepSeries:
    ceiling = gpu_bandwidth_ceiling_of(run.device)

    def make(n: int, ops: Operands) -> Point | None:
        if not run.fits(ops.chain, n):
            if n not in run.skipped:
                run.skipped.append(n)
            return None
        return with_ceiling(_gpu_point(key, run, n, ops, params, ctx), ceiling)

    details = gpu_details(ceiling, timing="CUDA events around each call after warm-up, median of repeats")
    provenance = Provenance("measured", cuda.device_name(run.device), details)
    return SweepSeries(msg(f"series.fusion.{key}"), "gpu", provenance, make, key, on_error=GPU_STOPS)


# ------------------------------------------------------------- model

MODEL_LABELS = {"unfused": "series.fusion.model-unfused", "fused": "series.fusion.model-fused"}
EMULATED_LABELS = {"unfused": "series.fusion.emulated-unfused", "fused": "series.fusion.emulated-fused"}


def _model_series(chain: Chain, model_gpu: str, fused: bool) -> tuple[SweepSeries, tuple[Note, ...]]:
    from gpulab.lab.base import resolve_model_gpu
    from gpulab.model import kernel_time, memory_share

    spec = resolve_model_gpu(model_gpu)
    share = memory_share(spec)

    def estimates(n: int) -> list[Any]:
        if fused:
            return [kernel_time(spec, chain.flops_per_element * n, chain.bytes_fused(n), "fp32",
                                use_tensor_cores=False)]  # fmt: skip
        return [kernel_time(spec, n, 4 * n * (step.reads + 1), "fp32", use_tensor_cores=False) for step in chain.steps]

    def make(n: int, _ops: Operands) -> Point:
        parts = estimates(n)
        seconds = sum(e.seconds for e in parts)
        launch_s = sum(e.breakdown["launch"] for e in parts)
        return modelled_point(n, chain.bytes_fused(n), seconds, kernel_seconds=seconds - launch_s,
                              launch_seconds=launch_s, **_facts(chain, n, fused, "launches"))  # fmt: skip

    version = "fused" if fused else "unfused"
    details = {"formula": "time = sum over kernels of (bytes moved / achievable memory bandwidth + launch overhead)",
               "spec_key": spec.key, "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s,
               **share.details()}  # fmt: skip
    series = SweepSeries(msg(MODEL_LABELS[version], gpu=spec.name), "model",
                         Provenance("modelled", spec.name, details), make, f"model-{version}")  # fmt: skip
    return series, (*estimates(1 << 20)[0].assumptions, Note(share.lab_note))


def modelled_point_at(chain_name: str, model_gpu: str, n: int, fused: bool) -> Point:
    """The modelled GPU's point of the fused or unfused ``chain_name`` at ``n`` elements, as the lab
    draws it (y: effective GB/s; ``extra['seconds']``: the whole version's time)."""
    chain = chain_named(chain_name)
    series, _assumptions = _model_series(chain, model_gpu, fused)
    point = series.make_point(n, Operands(chain, []))
    assert point is not None  # a model always prices a size
    return point


# ------------------------------------------------------------- emulated


def _emulated_series(counts: EmulatedCounts, chain: Chain) -> Series:
    """One version's exact counts as a one-point series (y: global bytes per element); its point
    also carries the hand count, so a table can set the two side by side."""
    hand = chain.bytes_fused(1) if counts.version == "fused" else chain.bytes_unfused(1)
    details = {"n": counts.n, "block": BLOCK, "bytes": "32-byte sectors loaded and stored x 32",
               "instructions": "warp instructions as the emulator counts them, all launches"}  # fmt: skip
    label = msg(EMULATED_LABELS[counts.version])
    point = Point(counts.n, counts.bytes_per_element, None, {**counts.as_extra(), "bytes_hand_count": hand})
    return Series(render(label), Provenance("emulated", EMULATOR_DEVICE, details), X_LABEL, "",
                  Note(msg("axis.fusion.global-bytes-per-element")), "B", (point,), role="emulated",
                  key=f"emulated-{counts.version}", label=label)  # fmt: skip


def _emulated_note(counts: EmulatedCounts) -> Message:
    return msg("note.fusion.emulated", series=msg(EMULATED_LABELS[counts.version]), n=size_text(counts.n),
               launches=counts.launches, bytes=f"{counts.bytes_per_element:g}",
               sectors=counts.gld_transactions + counts.gst_transactions,
               instructions=f"{counts.instructions_per_thread:g}")  # fmt: skip


# ------------------------------------------------------------- the run


def _fits_host(chain: Chain, n: int, available: int | None) -> bool:
    if available is None:
        return True
    return 4 * n * (len(chain.inputs) + 2 + len(chain.steps)) <= HOST_MEMORY_SHARE * available


def _available_host_bytes() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # no psutil: run what was asked
        return None


def _declared(
    params: Params, chain: Chain, ctx: Context, run: gpu.GpuRun | None
) -> tuple[list[SweepSeries], tuple[Note, ...]]:
    cpu_keys = [k for k in CPU_FORMS if k != "cpu-numexpr" or _has_numexpr()]
    series = [_cpu_series(key, params, ctx) for key in cpu_keys]
    if run is not None:
        return series + [_gpu_series(key, run, params, ctx) for key in GPU_FORMS], ()
    unfused, assumptions = _model_series(chain, params.model_gpu, fused=False)
    fused, _same = _model_series(chain, params.model_gpu, fused=True)
    return [*series, unfused, fused], assumptions


def _sweep(params: Params, chain: Chain, declared: list[SweepSeries], run: gpu.GpuRun | None) -> Sweep:
    """The sweep over the sizes: the inputs drawn once per size for every series (seed 0), the
    GPU's copies of them freed when the size is done."""
    rng = np.random.default_rng(0)

    def operands(n: int) -> Operands:
        return Operands(chain, [random_normal(rng, n) for _ in chain.inputs])

    def release(_n: int, _ops: Operands) -> None:
        if run is not None:
            run.release()

    def progress(series: SweepSeries, n: int) -> Message:
        return msg("progress.series-n", series=series.label, size=size_text(n))

    return Sweep("fusion", params, AXES, declared, unit="n", operands=operands, release=release, progress=progress,
                 progress_span=(0.05, 1.0))  # fmt: skip


def _time_of(series: Series | None, n: float) -> float | None:
    point = next((p for p in clean_points(series) if p.x == n), None) if series is not None else None
    return float(point.extra["seconds"]) if point is not None else None


PAIRS = (
    ("cpu-numpy-out", "cpu-numpy-blocked"),
    ("cpu-numpy-as-written", "cpu-numexpr"),
    ("gpu-cupy-ops", "gpu-cu-fused"),
    ("model-unfused", "model-fused"),
)
PAIRED = {key for pair in PAIRS for key in pair}  # the series the lab's gains compare


def gain_notes(result: Result) -> list[Message]:
    """For each unfused/fused pair that ran: at the largest size both measured cleanly, how many
    times as long the unfused version took (a flagged point is no evidence of a gain or a loss)."""
    notes = []
    for unfused_key, fused_key in PAIRS:
        unfused, fused = result.get_series(unfused_key), result.get_series(fused_key)
        common = (sorted({p.x for p in clean_points(unfused)} & {p.x for p in clean_points(fused)})
                  if unfused and fused else [])  # fmt: skip
        if not common or unfused is None or fused is None:
            continue
        slow, fast = _time_of(unfused, common[-1]), _time_of(fused, common[-1])
        if slow and fast:
            notes.append(msg("note.fusion.gain", size=size_text(common[-1]), unfused=unfused.label or unfused.name,
                             fused=fused.label or fused.name, ratio=f"{slow / fast:.2f}",
                             kind=msg(f"provenance.{fused.provenance.kind}")))  # fmt: skip
    return notes


def _setup_notes(chain: Chain, status: Any, run: gpu.GpuRun | None, dropped: list[int]) -> list[Message]:
    notes: list[Message] = []
    if run is None:
        notes.append(msg("note.no-gpu", reason=status.reason_message or status.reason))
    notes.append(msg("note.fusion.bytes", chain=chain.name, fused=chain.bytes_fused(1), inputs=len(chain.inputs),
                     unfused=chain.bytes_unfused(1), intermediates=chain.intermediates,
                     launches=chain.launches_unfused))  # fmt: skip
    if _has_numexpr():
        notes.append(msg("note.fusion.numexpr-threads", threads=cpu_threads()))
    else:
        notes.append(msg("note.fusion.no-numexpr"))
    if dropped:
        notes.append(msg("note.fusion.clamped", sizes=[size_text(n) for n in dropped]))
    return notes


def _gpu_notes(run: gpu.GpuRun | None, swept: Swept) -> list[Message]:
    if run is None:
        return []
    notes = swept.stopped_notes()
    if run.skipped:
        notes.append(msg("note.fusion.gpu-clamped", sizes=[size_text(n) for n in run.skipped]))
    return notes


def _gpu_run(ctx: Context) -> gpu.GpuRun | None:
    if not cuda.cuda_status().available:
        return None
    run = gpu.GpuRun(ctx.device_index or 0)
    run.start()
    return run


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Count the ``.cu`` versions in the emulator, then time (or model) every version at every size."""
    chain = chain_named(params.chain)
    available = _available_host_bytes()
    sizes = [n for n in params.sizes if _fits_host(chain, n, available)]
    dropped = [n for n in params.sizes if n not in sizes]
    if not sizes:
        raise ExperimentError(msg("note.fusion.clamped", sizes=[size_text(n) for n in dropped]))
    gpu_run = _gpu_run(ctx)
    declared, assumptions = _declared(params, chain, ctx, gpu_run)
    yield Progress(0.0, msg("progress.fusion.emulating", n=size_text(EMULATED_N)))
    counts = emulate_chain(chain, cancel=ctx.cancel_event)
    swept = yield from sweep_points(_sweep(params, chain, declared, gpu_run), sizes)
    yield Progress(1.0, msg("progress.done"))
    emulated = tuple(_emulated_series(c, chain) for c in counts)
    result = Result("fusion", params_to_dict(params), (*swept.series.values(), *emulated))
    headline = flagged_headline([s for s in result.series if s.key in PAIRED])
    notes = merge_notes([headline] if headline else [], _setup_notes(chain, cuda.cuda_status(), gpu_run, dropped),
                        gain_notes(result),
                        [_emulated_note(c) for c in counts], _gpu_notes(gpu_run, swept), noisy_notes(result, "n"),
                        assumptions)  # fmt: skip
    return Result(result.experiment, result.params, result.series, notes)


LAB = Lab("fusion", section="execution", order=30, page="fusion",
          quick=("sizes=1024,1048576", "chain=((a+b)*c-d)*0.5", "repeats=3"), kernels=KERNELS)
