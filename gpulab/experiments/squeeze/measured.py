"""The squeeze lab's step measured on a CUDA device, through CuPy.

One step of the lab's MLP (forward, MSE loss, backward, Adam) per configuration, every buffer
allocated before anything is timed, every kernel writing into a buffer it is given (matmuls
through ``cupy.matmul(a, b, out=...)``, element-wise work through ``cupy.ElementwiseKernel``
called with its outputs), so the step allocates nothing while it runs or is captured. The
switches change the step as they do in the model:

* **prefetch**: the batch's host buffers are pinned (``cupyx.empty_pinned``) and the loss lands
  in a pinned buffer; without it they are ordinary (pageable) numpy arrays;
* **fusion**: the element-wise work of a layer, of the loss and of Adam per tensor is one kernel
  (one ``ElementwiseKernel`` doing what several did), instead of one kernel per operator;
* **mixed precision**: the matmuls run in float16 on float16 copies of the float32 master
  weights. CuPy has no bfloat16 (cupy/cupy#7527), so mixed precision here is FP16 whatever the
  lab's ``precision`` says, and a note says so;
* **CUDA Graphs**: the step's kernels are captured (``Stream.begin_capture`` / ``end_capture``
  on a non-blocking stream; capture is refused on the legacy default stream) and replayed with
  ``Graph.launch``. CuPy refuses cuBLAS calls while a stream captures ("calling cuBLAS API during
  stream capture is currently unsupported", cupy/cupy#6290; seen with CuPy 14.2 on an H200), so
  each run of element-wise kernels between two matmuls is one graph and the matmuls are launched
  between the graphs: fewer launches, not one.

Each phase is timed with a pair of CUDA events (``cupy.cuda.Event``, ``record(stream)``,
``synchronize()``, ``cupy.cuda.get_elapsed_time`` in milliseconds): the batch copy (pinned or
pageable), the step's kernels as the configuration issues them (one by one, or its graphs), the
kernels' own time, and the loss read back. The kernels' own time is each kernel between two
events, all of them queued behind a kernel that holds the GPU until the host has queued the
rest (:data:`HOLD_SOURCE`), so the GPU runs them back to back and no launch gap falls inside a
pair; the issued span minus that is the launch gaps. The data wait is the CPU loader's,
measured by the caller.

A capture that grows the memory pool (``cupy.get_default_memory_pool().total_bytes()``) or
fails, and an out-of-memory error, raise :class:`MeasureError`; the lab then models that
configuration and says why. Nothing here runs without a usable GPU: the caller passes the cupy
module (or, in tests, a fake of the few calls used here).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab.experiments.squeeze.step import (
    COMPUTE,
    COPY,
    DATA_LOADER_RANGE,
    LOADER,
    LOADER_WORK,
    LOSS_BYTES,
    MAIN,
    Mlp,
    Setup,
    TraceEvent,
)

REPEATS = 5  # event-timed repeats of each phase; the median is kept
HOLD_LEAST_S, HOLD_MOST_S = 1e-3, 0.2  # how long the GPU is held while the host queues the timed kernels

# Busy on one thread until ``ns`` nanoseconds of the GPU's global timer have passed. What the host
# queues behind it meanwhile then runs back to back, without the GPU waiting for a launch.
HOLD_SOURCE = r"""
extern "C" __global__ void hold_gpu(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
"""
WARMUP = 2  # untimed runs first: kernels compiled and loaded, cuBLAS handle made, before any capture
ADAM = (0.9, 0.999, 1e-3, 1e-8)  # beta1, beta2, learning rate, eps (values do not change the timing)


class MeasureError(RuntimeError):
    """The measured step could not run: ``stage`` says where (allocate, capture, run)."""

    def __init__(self, stage: str, error: str) -> None:
        super().__init__(f"{stage}: {error}")
        self.stage, self.error = stage, error


@dataclass(frozen=True)
class Phases:
    """One configuration's measured phases, seconds each (medians of :data:`REPEATS`).

    ``span_s``: the step's kernels as the configuration issues them (event-timed from before the
    first launch to after the last kernel); ``replay_s``: the kernels' own GPU time (each between
    two events, run back to back behind a held GPU, summed); ``eager_s``: the kernels launched one
    by one (the span itself when the configuration does not use graphs); ``readback_s``: the loss
    copied back and waited for; ``launches``: the launches the configuration makes a step (the
    kernels, or its graphs and the matmuls between them). ``data_s`` is the CPU loader's time for
    one batch (measured apart)."""

    data_s: float
    h2d_s: float
    span_s: float
    replay_s: float
    readback_s: float
    kernels: int
    eager_s: float = 0.0
    launches: int = 0

    @property
    def eager_gaps_s(self) -> float:
        """The kernels launched one by one minus their own time: the launch gaps without graphs."""
        return max(self.eager_s - self.replay_s, 0.0)

    @property
    def launch_gaps_s(self) -> float:
        """The span minus the kernels' own time: the GPU waiting for the host's next launch (never negative)."""
        return max(self.span_s - self.replay_s, 0.0)


# ---------------------------------------------------------------- laying the measured phases out in time


def measured_events(phases: Phases, setup: Setup, batch_bytes: int, workers: int = 1,
                    ) -> tuple[list[TraceEvent], float]:  # fmt: skip
    """The measured phases as a step's events, laid out as :func:`~gpulab.experiments.squeeze.step.simulate`
    lays out the model's, and the step's seconds.

    The kernels are one block (their measured replay time), after the launch gaps (the span minus
    the replay): the block is the phases' total, not each kernel's time. Without prefetch the host
    loads the batch, copies it (pageable) and then launches; with prefetch a loader thread prepares
    the next batch (``workers`` share it) and copies it (pinned) on a copy stream meanwhile."""
    events: list[TraceEvent] = []
    gpu_begin = 0.0
    if not setup.prefetch:
        events.append(TraceEvent(DATA_LOADER_RANGE, "user_annotation", MAIN, 0.0, phases.data_s))
        events.append(TraceEvent("cudaMemcpyAsync", "cuda_runtime", MAIN, phases.data_s, phases.h2d_s))
        events.append(TraceEvent("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", COMPUTE, phases.data_s,
                                 phases.h2d_s, {"bytes": batch_bytes}))  # fmt: skip
        gpu_begin = phases.data_s + phases.h2d_s
    launch = "cudaGraphLaunch" if setup.cuda_graphs else "cudaLaunchKernel"
    gaps = phases.launch_gaps_s
    events.append(TraceEvent(launch, "cuda_runtime", MAIN, gpu_begin, gaps, {"correlation": 1}))
    kernels_at = gpu_begin + gaps
    events.append(TraceEvent(f"{phases.kernels} kernels (measured, as one block)", "kernel", COMPUTE, kernels_at,
                             phases.replay_s, {"correlation": 1, "kernels": phases.kernels}))  # fmt: skip
    readback_at = kernels_at + phases.replay_s
    kind = "Pinned" if setup.prefetch else "Pageable"
    events.append(TraceEvent(f"Memcpy DtoH (Device -> {kind})", "gpu_memcpy", COMPUTE, readback_at,
                             phases.readback_s, {"bytes": LOSS_BYTES}))  # fmt: skip
    events.append(TraceEvent("cudaStreamSynchronize", "cuda_runtime", MAIN, readback_at, phases.readback_s))
    gpu_done = readback_at + phases.readback_s
    end = gpu_done
    if setup.prefetch:
        load_s = phases.data_s / max(workers, 1)
        events.append(TraceEvent(LOADER_WORK, "user_annotation", LOADER, 0.0, load_s))
        events.append(TraceEvent("Memcpy HtoD (Pinned -> Device)", "gpu_memcpy", COPY, load_s, phases.h2d_s,
                                 {"bytes": batch_bytes}))  # fmt: skip
        ready = load_s + phases.h2d_s
        if ready > gpu_done:  # the main thread waits for the next batch
            events.append(TraceEvent(DATA_LOADER_RANGE, "user_annotation", MAIN, gpu_done, ready - gpu_done))
        end = max(gpu_done, ready)
    events.append(TraceEvent("ProfilerStep#1", "user_annotation", MAIN, 0.0, end))
    return sorted(events, key=lambda e: (e.start_s, e.lane)), end


# ---------------------------------------------------------------- the step on the device

class _Op:
    """One kernel of the step: its name (for the count) and the call that enqueues it."""

    def __init__(self, name: str, call: Callable[[], Any]) -> None:
        self.name, self.call = name, call


class StepGraph:
    """The step as CUDA Graphs of its element-wise runs, its matmuls launched between them (CuPy
    cannot capture a cuBLAS call); ``parts`` are graphs and matmul ops, in the step's order."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts

    @property
    def launches(self) -> int:
        return len(self.parts)

    def launch(self, stream: Any) -> None:
        for part in self.parts:
            if isinstance(part, _Op):
                part.call()  # on the current stream: the caller's ``with stream``
            else:
                part.launch(stream)


class StepOnDevice:
    """The MLP's buffers on one device, its step as a list of kernels, and their event timing.

    ``cp`` is the cupy module, ``empty_pinned`` is ``cupyx.empty_pinned``; tests pass a fake of
    both. Everything is allocated in ``__init__``; :meth:`phases` allocates nothing on the device."""

    def __init__(self, cp: Any, empty_pinned: Callable[..., Any], mlp: Mlp, setup: Setup) -> None:
        self.cp, self.mlp, self.setup = cp, mlp, setup
        self.stream = cp.cuda.Stream(non_blocking=True)  # capture is refused on the legacy stream
        self.copy_stream = cp.cuda.Stream(non_blocking=True)
        try:
            with self.stream:
                self._allocate(empty_pinned)
            self.stream.synchronize()
        except MemoryError as exc:  # cupy.cuda.memory.OutOfMemoryError is a MemoryError
            raise MeasureError("allocate", f"{type(exc).__name__}: {exc}") from exc
        self._kernels: dict[tuple[str, ...], Any] = {}
        self.ops = self._ops()
        self._hold = cp.RawKernel(HOLD_SOURCE, "hold_gpu")

    # ------------------------------------------------------------ buffers

    def _allocate(self, empty_pinned: Callable[..., Any]) -> None:
        cp, m = self.cp, self.mlp
        low = cp.float16 if self.setup.mixed_precision else cp.float32
        rows, width = m.batch, m.hidden
        host = empty_pinned if self.setup.prefetch else np.empty
        self.host_in, self.host_target = host((rows, width), dtype=np.float32), host((rows, width), dtype=np.float32)
        self.host_loss = host((1, 1), dtype=np.float32)
        self.host_in[...] = 0.5
        self.host_target[...] = 0.25
        self.x = cp.zeros((rows, width), dtype=cp.float32)
        self.target = cp.zeros((rows, width), dtype=cp.float32)
        self.x_low = cp.zeros((rows, width), dtype=low)
        self.weights = [cp.full((width, width), 0.01, dtype=cp.float32) for _ in range(m.layers)]
        self.biases = [cp.zeros((1, width), dtype=cp.float32) for _ in range(m.layers)]
        self.weights_low = [cp.zeros((width, width), dtype=low) for _ in range(m.layers)]
        self.biases_low = [cp.zeros((1, width), dtype=low) for _ in range(m.layers)]
        self.z = [cp.zeros((rows, width), dtype=low) for _ in range(m.layers)]
        self.a = [cp.zeros((rows, width), dtype=low) for _ in range(m.layers)]
        self.dz = [cp.zeros((rows, width), dtype=low) for _ in range(m.layers)]
        self.da = cp.zeros((rows, width), dtype=low)
        self.grad_w_low = [cp.zeros((width, width), dtype=low) for _ in range(m.layers)]
        self.grad_b_low = [cp.zeros((1, width), dtype=low) for _ in range(m.layers)]
        self.state = [cp.zeros((4, width, width), dtype=cp.float32) for _ in range(m.layers)]  # grad, m, v, step
        self.state_b = [cp.zeros((4, 1, width), dtype=cp.float32) for _ in range(m.layers)]
        self.ones_rows = cp.ones((1, rows), dtype=low)
        self.ones_width = cp.ones((width, 2), dtype=low)  # two columns: a 1x1 product takes a path that allocates
        self.sq = cp.zeros((rows, width), dtype=low)
        self.loss_row = cp.zeros((1, width), dtype=low)
        self.loss = cp.zeros((1, 2), dtype=low)
        self.loss32 = cp.zeros((1, 1), dtype=cp.float32)

    # ------------------------------------------------------------ kernels

    def _kernel(self, inputs: str, outputs: str, body: str, name: str) -> Any:
        """An ``ElementwiseKernel``, one per source in this step (CuPy caches its compiled binary on disk)."""
        key = (inputs, outputs, body, name)
        if key not in self._kernels:
            self._kernels[key] = self.cp.ElementwiseKernel(inputs, outputs, body, name)
        return self._kernels[key]

    def _ew(self, name: str, inputs: str, outputs: str, body: str, *args: Any) -> _Op:
        kernel = self._kernel(inputs, outputs, body, name)
        return _Op(name, lambda: kernel(*args))

    def _mm(self, a: Any, b: Any, out: Any) -> _Op:
        return _Op("gemm", lambda: self.cp.matmul(a, b, out=out))

    def _ops(self) -> list[_Op]:
        fused, mixed = self.setup.fusion, self.setup.mixed_precision
        ops: list[_Op] = []
        count = self.mlp.layers
        if mixed:
            ops.append(self._ew("cast_input", "float32 x", "T y", "y = (T)x", self.x, self.x_low))
            for w, w_low, b, b_low in zip(self.weights, self.weights_low, self.biases, self.biases_low, strict=True):
                ops.append(self._ew("cast_weight", "float32 x", "T y", "y = (T)x", w, w_low))
                ops.append(self._ew("cast_bias", "float32 x", "T y", "y = (T)x", b, b_low))
        weights = self.weights_low if mixed else self.weights
        biases = self.biases_low if mixed else self.biases
        source = self.x_low if mixed else self.x
        for layer in range(count):
            inp = source if layer == 0 else self.a[layer - 1]
            ops.append(self._mm(inp, weights[layer], self.z[layer]))
            last = layer == count - 1
            if fused and not last:
                body = "T s = z + b; a = s > (T)0 ? s : (T)0"
                ops.append(self._ew("fused_bias_relu", "T z, T b", "T a", body, self.z[layer], biases[layer],
                                    self.a[layer]))  # fmt: skip
                continue
            ops.append(self._ew("add_bias", "T z, T b", "T a", "a = z + b", self.z[layer], biases[layer],
                                self.a[layer]))  # fmt: skip
            if not last:
                ops.append(self._ew("relu", "T x", "T y", "y = x > (T)0 ? x : (T)0", self.a[layer], self.a[layer]))
        out, grad = self.a[count - 1], self.dz[count - 1]
        scale = 2.0 / (self.mlp.batch * self.mlp.hidden)
        target = self.target
        if fused:
            ops.append(self._ew("fused_mse", "T y, float32 t, float32 s", "T sq, T g",
                                "float d = (float)y - t; sq = (T)(d * d); g = (T)(s * d)", out, target, scale,
                                self.sq, grad))  # fmt: skip
        else:
            ops.append(self._ew("mse_sub", "T y, float32 t", "T d", "d = (T)((float)y - t)", out, target, grad))
            ops.append(self._ew("mse_square", "T d", "T sq", "sq = d * d", grad, self.sq))
            ops.append(self._ew("mse_grad", "T d, float32 s", "T g", "g = (T)(s * (float)d)", grad, scale, grad))
        ops.append(self._mm(self.ones_rows, self.sq, self.loss_row))  # the loss summed with two small GEMMs:
        ops.append(self._mm(self.loss_row, self.ones_width, self.loss))  # no reduction's temporary buffer
        ops.append(self._ew("loss_to_float", "T x", "float32 y", "y = (float)x", self.loss[:, :1], self.loss32))
        for layer in reversed(range(count)):
            inp = source if layer == 0 else self.a[layer - 1]
            ops.append(self._mm(inp.T, self.dz[layer], self.grad_w_low[layer]))
            ops.append(self._mm(self.ones_rows, self.dz[layer], self.grad_b_low[layer]))
            if layer > 0:
                ops.append(self._mm(self.dz[layer], weights[layer].T, self.da))
                ops.append(self._ew("relu_backward", "T g, T a", "T d", "d = a > (T)0 ? g : (T)0", self.da,
                                    self.a[layer - 1], self.dz[layer - 1]))  # fmt: skip
        for layer in range(count):
            ops.extend(self._adam(self.weights[layer], self.grad_w_low[layer], self.state[layer]))
            ops.extend(self._adam(self.biases[layer], self.grad_b_low[layer], self.state_b[layer]))
        return ops

    def _adam(self, param: Any, grad_low: Any, state: Any) -> list[_Op]:
        """Adam on one fp32 tensor: one kernel fused, five (gradient cast, two moments, the step, the
        update) unfused; ``state`` holds the fp32 gradient, the moments and the step's denominator."""
        b1, b2, lr, eps = ADAM
        g, m, v, d = state[0], state[1], state[2], state[3]
        if self.setup.fusion:
            body = ("float gg = (float)g; m = b1 * m + (1 - b1) * gg; v = b2 * v + (1 - b2) * gg * gg; "
                    "p = p - lr * m / (sqrt(v) + eps)")  # fmt: skip
            return [self._ew("fused_adam", "T g, float32 b1, float32 b2, float32 lr, float32 eps",
                             "float32 p, float32 m, float32 v", body, grad_low, b1, b2, lr, eps, param, m, v)]
        return [self._ew("grad_to_float", "T x", "float32 y", "y = (float)x", grad_low, g),
                self._ew("adam_m", "float32 g, float32 b", "float32 m", "m = b * m + (1 - b) * g", g, b1, m),
                self._ew("adam_v", "float32 g, float32 b", "float32 v", "v = b * v + (1 - b) * g * g", g, b2, v),
                self._ew("adam_denominator", "float32 v, float32 eps", "float32 d", "d = sqrt(v) + eps", v, eps, d),
                self._ew("adam_update", "float32 m, float32 d, float32 lr", "float32 p", "p = p - lr * m / d",
                         m, d, lr, param)]  # fmt: skip

    # ------------------------------------------------------------ running and timing

    def enqueue(self) -> None:
        """Every kernel of the step, one by one, on the current stream."""
        for op in self.ops:
            op.call()

    def pieces(self) -> list[list[_Op]]:
        """The step's kernels cut at each matmul: a run of element-wise kernels, or one matmul."""
        pieces: list[list[_Op]] = []
        for op in self.ops:
            if op.name == "gemm" or not pieces or pieces[-1][0].name == "gemm":
                pieces.append([op])
            else:
                pieces[-1].append(op)
        return pieces

    def capture(self) -> StepGraph:
        """The step as graphs of its element-wise runs and the matmuls between them; MeasureError
        when a capture fails or made the memory pool grow (an allocation inside the capture)."""
        pool = self.cp.get_default_memory_pool()
        before = pool.total_bytes()
        parts = [piece[0] if piece[0].name == "gemm" else self._capture(piece) for piece in self.pieces()]
        grown = pool.total_bytes() - before
        if grown > 0:
            raise MeasureError("capture", f"the memory pool grew by {grown} bytes during the capture")
        return StepGraph(parts)

    def _capture(self, piece: list[_Op]) -> Any:
        with self.stream:
            try:
                self.stream.begin_capture()
            except Exception as exc:  # the driver's refusal, named in the note
                raise MeasureError("capture", f"{type(exc).__name__}: {exc}") from exc
            try:
                for op in piece:
                    op.call()
            except Exception as exc:
                raise MeasureError("capture", f"{type(exc).__name__}: {exc}") from exc
            finally:
                graph = self.stream.end_capture()  # always ends the capture, so the stream stays usable
        return graph

    def kernel_time(self, hold_s: float) -> float:
        """Seconds of the kernels' own GPU time: each between two events, all queued behind a kernel
        that holds the GPU for ``hold_s`` (longer than the host takes to queue them), so they run
        back to back and no wait for the host falls inside a pair."""
        pairs = []
        self._hold((1,), (1,), (np.uint64(int(hold_s * 1e9)),))
        for op in self.ops:
            start, end = self.cp.cuda.Event(), self.cp.cuda.Event()
            start.record(self.stream)
            op.call()
            end.record(self.stream)
            pairs.append((start, end))
        pairs[-1][1].synchronize()
        return sum(float(self.cp.cuda.get_elapsed_time(start, end)) for start, end in pairs) / 1e3

    def _events(self, work: Callable[[], Any], stream: Any) -> float:
        """Seconds of ``work`` on ``stream`` between two recorded events (the host waits on the end one)."""
        start, end = self.cp.cuda.Event(), self.cp.cuda.Event()
        start.record(stream)
        work()
        end.record(stream)
        end.synchronize()
        return float(self.cp.cuda.get_elapsed_time(start, end)) / 1e3

    def _copy_in(self, stream: Any) -> None:
        self.x.set(self.host_in, stream=stream)
        self.target.set(self.host_target, stream=stream)

    def _read_loss(self) -> None:
        self.cp.asnumpy(self.loss32, stream=self.stream, out=self.host_loss)
        self.stream.synchronize()

    def phases(self, data_s: float) -> Phases:
        """The step's phases, each the median of :data:`REPEATS` event-timed runs after :data:`WARMUP`."""
        try:
            with self.stream:
                for _ in range(WARMUP):
                    self._copy_in(self.stream)
                    self.enqueue()
                self.stream.synchronize()
                graph = self.capture() if self.setup.cuda_graphs else None
                issue = (lambda: graph.launch(self.stream)) if graph is not None else self.enqueue
                copy_stream = self.copy_stream if self.setup.prefetch else self.stream
                samples: dict[str, list[float]] = {"h2d": [], "span": [], "replay": [], "eager": [], "readback": []}
                for _ in range(REPEATS):
                    samples["h2d"].append(self._events(lambda: self._copy_in(copy_stream), copy_stream))
                    samples["span"].append(self._events(issue, self.stream))
                    samples["eager"].append(self._events(self.enqueue, self.stream))
                    # held for twice the eager span: the host queues the kernels, and their events, within it
                    hold_s = min(max(2 * samples["eager"][-1], HOLD_LEAST_S), HOLD_MOST_S)
                    samples["replay"].append(self.kernel_time(hold_s))
                    samples["readback"].append(self._events(self._read_loss, self.stream))
        except MeasureError:
            raise
        except Exception as exc:  # out of memory, a failed launch: named, never a crash
            raise MeasureError("run", f"{type(exc).__name__}: {exc}") from exc
        median = {key: float(np.median(values)) for key, values in samples.items()}
        if not all(math.isfinite(value) and value >= 0 for value in median.values()):
            raise MeasureError("run", f"an event time was not a finite duration: {median}")
        launches = graph.launches if graph is not None else len(self.ops)
        return Phases(data_s, median["h2d"], median["span"], median["replay"], median["readback"], len(self.ops),
                      median["eager"], launches)
