"""The streams lab on a real GPU: each configuration run with CUDA events around every copy and kernel.

Host buffers are pinned (``cupyx.empty_pinned``) or plain numpy arrays (pageable); copies are
``ndarray.set(..., stream=)`` and ``ndarray.get(stream=, out=, blocking=False)``; kernels launch
inside ``with stream:`` (the current stream), or on ``cupy.cuda.Stream.null`` (the legacy default
stream) for the default-stream configuration. Every op is bracketed by two events recorded on its
stream; times are measured from an origin event on the null stream, after a device synchronize.

An event recorded before a copy fires when its *stream* reaches it, which may be before the copy
engine is free: two copies in one direction run one after the other, so a copy's start is taken
as the later of its start event and the end of the previous copy in that direction. Durations
shown are those ends minus those starts; the total (first start to last end) needs no correction.

The kernel's rounds are calibrated on this GPU, so that "kernel time ÷ copy time" means the same
here as in the model: one chunk's copy in and the kernel at two round counts are timed first.

The lab hands over the job (:class:`Job`: chunks, streams, sizes, its kernel, the repeats) and
the ways to run it (anything with the three flags of :class:`Way`); each comes back with its
measured ops (:class:`MeasuredRun`), from which the lab builds its timeline and diagnosis.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np

from gpulab import cuda
from gpulab.catalogue import Message, Note, msg
from gpulab.kernels import KernelSpec
from gpulab.lab.base import Context, ExperimentError
from gpulab.model import streams as model
from gpulab.results import Provenance
from gpulab.timeline import TimelineOp, span_seconds

BLOCK = model.THREADS_PER_BLOCK
WARMUP_RUNS = 1
MEMORY_USE = 0.8  # of the free device memory, at most, for the chunks
CALIBRATION_ROUNDS = 256


@dataclass(frozen=True)
class Job:
    """What the lab asks for: ``chunks`` chunks of ``chunk_bytes`` over up to ``streams`` streams, its
    kernel lasting ``kernel_to_copy`` times a chunk's copy in, each way run ``repeats`` times."""

    chunks: int
    streams: int
    chunk_bytes: int
    kernel_to_copy: float
    kernel: KernelSpec
    repeats: int


class Way(Protocol):
    """One way to run the job, as the lab describes it (its configurations have these flags)."""

    @property
    def many_streams(self) -> bool: ...

    @property
    def pageable(self) -> bool: ...

    @property
    def kernels_on_default(self) -> bool: ...


W = TypeVar("W", bound=Way)


@dataclass(frozen=True)
class MeasuredRun:
    """A way's median run: its ops, the host's seconds per call in it and in the first way (the cost
    of a call: later, pageable ways also wait for copies), the SM share of one kernel, the copy
    engines, and the facts the lab shows with it."""

    ops: tuple[TimelineOp, ...]
    host_call_s: float
    issue_s: float
    sm_share: float
    copy_engines: int
    facts: dict[str, Any]


def provenance(device: int) -> Provenance:
    details = {"timing": "CUDA events around every copy and kernel; the run with the median total of the repeats",
               "copy_starts": "later of the start event and the previous copy's end in the same direction"}
    return Provenance("measured", cuda.device_name(device), details)


@dataclass
class Buffers:
    """Device chunks in and out, and the host chunks: pinned and pageable."""

    device_in: Any
    device_out: Any
    pinned_in: list[Any]
    pinned_out: list[Any]
    pageable_in: list[np.ndarray]
    pageable_out: list[np.ndarray]

    @classmethod
    def allocate(cls, cupy: Any, chunks: int, elements: int) -> Buffers:
        import cupyx

        rng = np.random.default_rng(0)
        pageable_in = [rng.standard_normal(elements, dtype=np.float32) for _ in range(chunks)]
        pinned_in = [cupyx.empty_pinned(elements, np.float32) for _ in range(chunks)]
        for pinned, source in zip(pinned_in, pageable_in, strict=True):
            pinned[...] = source
        return cls(cupy.empty((chunks, elements), np.float32), cupy.empty((chunks, elements), np.float32),
                   pinned_in, [cupyx.empty_pinned(elements, np.float32) for _ in range(chunks)],
                   pageable_in, [np.empty(elements, np.float32) for _ in range(chunks)])  # fmt: skip


def _copy_in(device_chunk: Any, host_chunk: Any, stream: Any) -> None:
    device_chunk.set(host_chunk, stream=stream)


def _copy_out(device_chunk: Any, host_chunk: Any, stream: Any) -> None:
    try:
        device_chunk.get(stream=stream, out=host_chunk, blocking=False)
    except TypeError:  # a CuPy without ``blocking``: the documented pointer copy does the same
        device_chunk.data.copy_to_host_async(host_chunk.ctypes.data, host_chunk.nbytes, stream)


@dataclass(frozen=True)
class Step:
    """One op of a run: its name and kind, the stream it is issued to, its lane, bytes, and the call."""

    name: str
    kind: str
    stream: Any
    lane: str
    n_bytes: int
    call: Callable[[Any], None]


def _program(config: Way, job: Job, buffers: Buffers, launch: Callable[[int, Any], None],
             streams: list[Any], null: Any) -> list[Step]:  # fmt: skip
    used = streams[: 1 if not config.many_streams else job.streams]
    host_in = buffers.pageable_in if config.pageable else buffers.pinned_in
    host_out = buffers.pageable_out if config.pageable else buffers.pinned_out
    n_bytes = int(host_in[0].nbytes)
    steps = []
    for i in range(job.chunks):
        number = i % len(used)
        stream, lane = used[number], model.lane_name(number + 1)
        kernel_stream, kernel_lane = (null, model.lane_name(model.DEFAULT_STREAM)) if config.kernels_on_default \
            else (stream, lane)  # fmt: skip
        steps += [
            Step(f"H2D {i}", "h2d", stream, lane, n_bytes, partial(_copy_in, buffers.device_in[i], host_in[i])),
            Step(f"kernel {i}", "kernel", kernel_stream, kernel_lane, 0, partial(launch, i)),
            Step(f"D2H {i}", "d2h", stream, lane, n_bytes, partial(_copy_out, buffers.device_out[i], host_out[i])),
        ]
    return steps


def _run_once(cupy: Any, steps: list[Step], copy_engines: int) -> tuple[tuple[TimelineOp, ...], float]:
    """One run of the program: its ops (times from the origin event) and the host's seconds per call."""
    cupy.cuda.runtime.deviceSynchronize()
    origin = cupy.cuda.Event()
    origin.record(cupy.cuda.Stream.null)
    marks = []
    began = time.perf_counter()
    for step in steps:
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(step.stream)
        step.call(step.stream)
        end.record(step.stream)
        marks.append((step, start, end))
    host_s = (time.perf_counter() - began) / max(len(steps), 1)
    cupy.cuda.runtime.deviceSynchronize()

    def seconds(a: Any, b: Any) -> float:
        return max(0.0, cupy.cuda.get_elapsed_time(a, b) / 1e3)

    machine = model.Machine(copy_engines=copy_engines)
    ops = [TimelineOp(step.name, step.lane, model.engine_of(step.kind, machine), seconds(origin, start),
                      seconds(start, end), step.n_bytes, step.kind) for step, start, end in marks]  # fmt: skip
    return serialize_copies(ops), host_s


def serialize_copies(ops: list[TimelineOp]) -> tuple[TimelineOp, ...]:
    """Copies on one copy engine run one at a time: a copy starts no earlier than the previous one
    (by end time) on its engine ended. Kernels are left as measured."""
    fixed = {id(op): op for op in ops}
    for engine in {op.engine for op in ops if op.kind in ("h2d", "d2h")}:
        previous_end = 0.0
        for op in sorted((op for op in ops if op.engine == engine), key=lambda op: op.end_s):
            start = min(max(op.start_s, previous_end), op.end_s)
            fixed[id(op)] = replace(op, start_s=start, duration_s=op.end_s - start)
            previous_end = op.end_s
    return tuple(fixed[id(op)] for op in ops)


def _median_run(runs: list[tuple[tuple[TimelineOp, ...], float]]) -> tuple[tuple[TimelineOp, ...], float]:
    ordered = sorted(runs, key=lambda run: span_seconds(run[0]))
    return ordered[len(ordered) // 2]


def _event_seconds(cupy: Any, call: Callable[[], None], stream: Any, repeats: int = 3) -> float:
    samples = []
    for _ in range(repeats):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(stream)
        call()
        end.record(stream)
        end.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
    return float(np.median(samples))


def calibrate_rounds(cupy: Any, kernel: Any, buffers: Buffers, elements: int, kernel_to_copy: float,
                     stream: Any) -> int:  # fmt: skip
    """Rounds that make the kernel last ``kernel_to_copy`` times one pinned chunk's copy in, on this GPU."""
    grid = ((elements + BLOCK - 1) // BLOCK, 1, 1)

    def kernel_call(rounds: int) -> Callable[[], None]:
        def call() -> None:
            with stream:
                kernel(grid, (BLOCK, 1, 1), (buffers.device_in[0], buffers.device_out[0], np.int32(elements),
                                             np.int32(rounds)))  # fmt: skip
        return call

    copy_s = _event_seconds(cupy, lambda: buffers.device_in[0].set(buffers.pinned_in[0], stream=stream), stream)
    fixed_s = _event_seconds(cupy, kernel_call(0), stream)
    per_round_s = max((_event_seconds(cupy, kernel_call(CALIBRATION_ROUNDS), stream) - fixed_s) / CALIBRATION_ROUNDS,
                      1e-12)  # fmt: skip
    return int(min(max(round((kernel_to_copy * copy_s - fixed_s) / per_round_s), 0), 1 << 20))


def _chunks_that_fit(cupy: Any, job: Job, notes: list[Message | Note]) -> int:
    free_bytes, _total = cupy.cuda.runtime.memGetInfo()
    fit = int(MEMORY_USE * free_bytes // (2 * job.chunk_bytes))
    if fit >= job.chunks:
        return job.chunks
    if fit < 1:
        raise ExperimentError(msg("streams.error.no-memory", size=job.chunk_bytes))
    notes.append(msg("streams.note.clamped", chunks=job.chunks, fit=fit))
    return fit


def measured_runs(job: Job, ways: Sequence[W], ctx: Context, notes: list[Message | Note],
                  ) -> Iterator[tuple[W, MeasuredRun]]:  # fmt: skip
    """Each way measured on the context's GPU: the run with the median total of ``job.repeats``."""
    cupy = cuda.require_cupy()
    device = ctx.device_index or 0
    with cupy.cuda.Device(device):
        job = replace(job, chunks=_chunks_that_fit(cupy, job, notes))
        elements = max(1, job.chunk_bytes // model.BYTES_PER_ELEMENT)
        kernel = cuda.get_kernel(job.kernel.source, job.kernel.entry, device)
        buffers = Buffers.allocate(cupy, job.chunks, elements)
        streams = [cupy.cuda.Stream(non_blocking=False) for _ in range(job.streams)]
        rounds = calibrate_rounds(cupy, kernel, buffers, elements, job.kernel_to_copy, streams[0])
        properties = cupy.cuda.runtime.getDeviceProperties(device)
        engines = 2 if int(properties.get("asyncEngineCount", 2)) >= 2 else 1  # 1: both directions share one
        grid = ((elements + BLOCK - 1) // BLOCK, 1, 1)
        share = model.sm_share(elements, int(properties["multiProcessorCount"]),
                               int(properties.get("maxThreadsPerMultiProcessor", 2048)))

        def launch(i: int, stream: Any) -> None:
            with stream:
                kernel(grid, (BLOCK, 1, 1), (buffers.device_in[i], buffers.device_out[i], np.int32(elements),
                                             np.int32(rounds)))  # fmt: skip

        facts = {"rounds": rounds, "chunk_bytes": elements * model.BYTES_PER_ELEMENT, "sm_share": share,
                 "copy_engines": engines}  # fmt: skip
        issue_s: float | None = None
        for way in ways:
            ctx.check_cancelled()
            steps = _program(way, job, buffers, launch, streams, cupy.cuda.Stream.null)
            runs = [_run_once(cupy, steps, engines) for _ in range(WARMUP_RUNS + job.repeats)][WARMUP_RUNS:]
            ops, host_s = _median_run(runs)
            totals = [span_seconds(run_ops) for run_ops, _host in runs]  # their spread says how steady the GPU was
            # The host's cost per call, from the first (pinned, asynchronous) way: in a pageable one
            # the host also waits for every copy, which is not a cost of the call.
            issue_s = host_s if issue_s is None else issue_s
            yield way, MeasuredRun(ops, host_s, issue_s, share, engines,
                                   {**facts, "host_call_s": host_s, "repeat_totals_s": totals})  # fmt: skip
