"""One training step of a small MLP, as the GPU would run it: its kernels, copies and host calls.

The step (forward, MSE loss, backward, Adam) is a list of kernels (:func:`step_kernels`) whose
run times come from the lab models already in :mod:`gpulab.model`: a GEMM at the rate the
precision lab's GEMM model gives (:func:`gpulab.model.workloads.gemm_share` of the peak, times the
share of SMs its tiles fill, through :func:`gpulab.model.roofline.kernel_time`); an element-wise
kernel at the achievable memory bandwidth (the same ``kernel_time``: memory-bound), never shorter
than the shortest kernel the launch lab measured. The copies come from the transfer model
(:func:`gpulab.model.transfer.transfer_time`, pinned or pageable), the launch costs from the
launch model (:func:`gpulab.model.launch.costs_for`).

:func:`simulate` lays the step out on a time line, the way a PyTorch step runs:

* without prefetch the host loads the batch, copies it from pageable memory (the host waits), then
  launches every kernel; with prefetch a loader thread prepares the next batch and copies it from
  pinned memory on a copy stream while this step computes;
* kernels launched one by one start when both their launch call has returned (the host issues one
  every ``issue_s``) and the kernel before has ended plus the GPU's gap; replayed from a CUDA
  Graph, one launch queues them all and each node costs ``graph_node_s`` (the launch model's
  async and graph formulas, with kernels of different lengths);
* the step ends by reading the loss back: a 4-byte copy the host waits for (``loss.item()``). Into
  pageable memory the copy call itself blocks; with prefetch the loop owns pinned memory and the
  loss lands in a pinned buffer (the call returns, the synchronise waits). The copy's time is the
  transfer model's latency either way; only the kind of host memory differs.

The result is a list of :class:`TraceEvent` (what a Kineto trace of the step would hold) and the
step's :class:`Breakdown` of the GPU's time: data wait, H2D, compute, launch gaps, idle.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from gpulab.catalogue import Note, msg
from gpulab.model.estimate import merge_assumptions
from gpulab.model.launch import LaunchCosts, costs_for
from gpulab.model.roofline import kernel_time, memory_share
from gpulab.model.transfer import transfer_time
from gpulab.model.workloads import GEMM_TILE, gemm_share
from gpulab.specs import GpuSpec

SWITCHES = ("prefetch", "fusion", "mixed_precision", "cuda_graphs")
"""The remedies the explainer names, in the order the ladder adds them."""

PARTS = ("data_wait", "h2d", "compute", "launch_gaps", "idle")
"""The parts of a step's GPU time, in the order they are stacked."""

LOSS_BYTES = 4  # the loss read back each step (one float32)
DATA_LOADER_RANGE = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
"""The main thread's wait for a batch, as PyTorch's profiler names it (the doctor's data-loading range)."""
LOADER_WORK = "loader worker: prepare next batch"
"""A loader thread's work: not a wait of the main thread, so named apart from :data:`DATA_LOADER_RANGE`."""


@dataclass(frozen=True)
class Mlp:
    """The model: ``layers`` linear layers of ``hidden`` x ``hidden`` (ReLU between them) on a batch
    of ``batch`` rows of ``hidden`` features, MSE loss, Adam."""

    batch: int
    hidden: int
    layers: int

    @property
    def parameters(self) -> int:
        return self.layers * (self.hidden * self.hidden + self.hidden)

    @property
    def batch_bytes(self) -> int:
        """The float32 inputs and targets of one batch, as copied to the GPU."""
        return 2 * self.batch * self.hidden * 4

    @property
    def flops(self) -> float:
        """Matmul FLOPs of one step: forward, input gradient (not for the first layer), weight gradient."""
        one = 2.0 * self.batch * self.hidden * self.hidden
        return one * (3 * self.layers - 1)


@dataclass(frozen=True)
class Setup:
    """Which switches are on, and the low-precision type mixed precision uses."""

    prefetch: bool = False
    fusion: bool = False
    mixed_precision: bool = False
    cuda_graphs: bool = False
    low_dtype: str = "bf16"

    @property
    def switches(self) -> tuple[str, ...]:
        return tuple(name for name in SWITCHES if getattr(self, name))


@dataclass(frozen=True)
class Kernel:
    """One kernel of the step: its name (as a profiler names it), run time, phase and whether it is a GEMM."""

    name: str
    seconds: float
    phase: str
    gemm: bool = False


@dataclass(frozen=True)
class TraceEvent:
    """One event of the step's trace: ``cat`` as Kineto writes it (kernel, gpu_memcpy,
    cuda_runtime, user_annotation), ``lane`` its thread or stream, times in seconds."""

    name: str
    cat: str
    lane: str
    start_s: float
    dur_s: float
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def end_s(self) -> float:
        return self.start_s + self.dur_s


@dataclass(frozen=True)
class StepCosts:
    """What one step costs before it is laid out: kernels, copies, launches, host data loading."""

    kernels: tuple[Kernel, ...]
    h2d_s: float
    readback_s: float
    costs: LaunchCosts
    data_s: float
    assumptions: tuple[Note, ...] = ()
    readback_pinned: bool = False


# ---------------------------------------------------------------- kernel times from the lab models


def _tile_fill(spec: GpuSpec, rows: int, columns: int) -> float:
    """The share of the SMs a rows x columns GEMM output keeps busy over its waves of
    :data:`GEMM_TILE` tiles (the matmul model's tile and wave quantisation, for a rectangle)."""
    tiles = math.ceil(rows / GEMM_TILE) * math.ceil(columns / GEMM_TILE)
    waves = math.ceil(tiles / spec.sm_count)
    return tiles / (waves * spec.sm_count)


def gemm_seconds(spec: GpuSpec, m: int, n: int, k: int, dtype: str, costs: LaunchCosts) -> float:
    """An m x n x k GEMM: fp32 on CUDA cores, a 16-bit type on tensor cores, at the GEMM model's share
    of the peak times the tile fill; its operands cross DRAM once."""
    tensor = dtype != "fp32"
    size = 4 if dtype == "fp32" else 2
    share = gemm_share(spec, dtype, tensor).share * _tile_fill(spec, m, n)
    estimate = kernel_time(spec, 2.0 * m * n * k, float(size * (m * k + k * n + m * n)), dtype,
                           use_tensor_cores=tensor, efficiency=share, launch_overhead_s=0.0)  # fmt: skip
    return max(estimate.seconds, costs.kernel_min_s)


def elementwise_seconds(spec: GpuSpec, nbytes: float, costs: LaunchCosts) -> float:
    """An element-wise or reduction kernel moving ``nbytes``: memory-bound at the achievable bandwidth,
    never shorter than the shortest kernel."""
    estimate = kernel_time(spec, nbytes / 4, nbytes, "fp32", use_tensor_cores=False, launch_overhead_s=0.0)
    return max(estimate.seconds, costs.kernel_min_s)


# ---------------------------------------------------------------- the step's kernels


class _Kernels:
    """Collects the step's kernels, pricing each with the GPU's models."""

    def __init__(self, spec: GpuSpec, costs: LaunchCosts) -> None:
        self.spec, self.costs = spec, costs
        self.found: list[Kernel] = []

    def gemm(self, name: str, m: int, n: int, k: int, dtype: str, phase: str) -> None:
        self.found.append(Kernel(name, gemm_seconds(self.spec, m, n, k, dtype, self.costs), phase, gemm=True))

    def memory(self, name: str, nbytes: float, phase: str) -> None:
        self.found.append(Kernel(name, elementwise_seconds(self.spec, nbytes, self.costs), phase))


def _gemm_name(dtype: str) -> str:
    return "ampere_sgemm_128x64_nn" if dtype == "fp32" else f"sm80_xmma_gemm_{dtype}_tensorop_128x128"


def step_kernels(spec: GpuSpec, mlp: Mlp, setup: Setup) -> tuple[Kernel, ...]:
    """Every kernel of one step, in launch order (forward, loss, backward, optimizer).

    Unfused, each element-wise operator is a kernel of its own (PyTorch's eager mode): bias add,
    ReLU, its backward, the bias gradient, four Adam kernels and a zero-fill per tensor. Fused, the
    bias and ReLU ride in one kernel, their backward in another, and Adam and the casts are one
    multi-tensor kernel each (``torch.compile``'s and ``fused=True``'s pattern)."""
    out = _Kernels(spec, costs_for(spec))
    dtype = setup.low_dtype if setup.mixed_precision else "fp32"
    act = 2 if setup.mixed_precision else 4  # bytes per activation
    rows, width, count = mlp.batch, mlp.hidden, mlp.layers
    a, w = rows * width, width * width
    if setup.mixed_precision:  # fp32 master weights cast to the low type
        if setup.fusion:
            out.memory("multi_tensor_apply_kernel<cast>", count * w * 6, "forward")
    for layer in range(count):
        if setup.mixed_precision and not setup.fusion:
            out.memory("unrolled_elementwise_kernel<copy_cast>", w * 6, "forward")
        out.gemm(_gemm_name(dtype), rows, width, width, dtype, "forward")
        last = layer == count - 1
        if setup.fusion:
            out.memory("fused_bias_relu" if not last else "fused_bias", 2 * a * act + width * act, "forward")
        else:
            out.memory("vectorized_elementwise_kernel<add_bias>", 2 * a * act + width * act, "forward")
            if not last:
                out.memory("vectorized_elementwise_kernel<relu>", 2 * a * act, "forward")
    if setup.fusion:
        out.memory("fused_mse_loss_forward_backward", 3 * a * act, "loss")
    else:
        out.memory("vectorized_elementwise_kernel<mse_sub_square>", 3 * a * act, "loss")
        out.memory("reduce_kernel<sum>", a * act, "loss")
        out.memory("vectorized_elementwise_kernel<mse_backward>", 3 * a * act, "loss")
    if setup.mixed_precision and setup.low_dtype == "fp16":  # GradScaler: the loss scaled up
        out.memory("vectorized_elementwise_kernel<scale_loss_grad>", 2 * a * act, "loss")
    for layer in reversed(range(count)):
        if setup.fusion:
            out.memory("fused_relu_backward_bias_grad", 3 * a * act + width * 4, "backward")
        else:
            if layer != count - 1:
                out.memory("vectorized_elementwise_kernel<threshold_backward>", 3 * a * act, "backward")
            out.memory("reduce_kernel<sum_bias_grad>", a * act + width * 4, "backward")
        out.gemm(_gemm_name(dtype), width, width, rows, dtype, "backward")  # weight gradient
        if layer > 0:
            out.gemm(_gemm_name(dtype), rows, width, width, dtype, "backward")  # input gradient
    _optimizer(out, mlp, setup)
    return tuple(out.found)


def _optimizer(out: _Kernels, mlp: Mlp, setup: Setup) -> None:
    """Adam on fp32 master weights (and GradScaler's unscale for fp16): per tensor, or one multi-tensor kernel."""
    tensors = [mlp.hidden * mlp.hidden, mlp.hidden] * mlp.layers
    unscale = setup.mixed_precision and setup.low_dtype == "fp16"
    if setup.fusion:
        if unscale:
            out.memory("multi_tensor_apply_kernel<unscale_inf_check>", mlp.parameters * 8, "optimizer")
        out.memory("multi_tensor_apply_kernel<FusedAdam>", mlp.parameters * 4 * 7, "optimizer")
        return  # gradients set to None, not zero-filled
    for n in tensors:
        if unscale:
            out.memory("vectorized_elementwise_kernel<unscale_inf_check>", n * 8, "optimizer")
        out.memory("vectorized_elementwise_kernel<exp_avg_lerp>", n * 12, "optimizer")
        out.memory("vectorized_elementwise_kernel<exp_avg_sq_addcmul>", n * 12, "optimizer")
        out.memory("vectorized_elementwise_kernel<sqrt_add_eps>", n * 8, "optimizer")
        out.memory("vectorized_elementwise_kernel<param_addcdiv>", n * 16, "optimizer")
    for n in tensors:
        out.memory("fill_kernel<zero_grad>", n * 4, "optimizer")


def step_costs(spec: GpuSpec, mlp: Mlp, setup: Setup, data_s: float) -> StepCosts:
    """The step's kernels, its batch copy (pinned with prefetch, else pageable), the loss read-back,
    the launch costs, and ``data_s``: the host's time to prepare one batch (measured by the caller)."""
    h2d = transfer_time(spec, mlp.batch_bytes, pinned=setup.prefetch, direction="h2d")
    readback = transfer_time(spec, LOSS_BYTES, pinned=setup.prefetch, direction="d2h")
    costs = costs_for(spec)
    kernels = step_kernels(spec, mlp, setup)
    assumptions = merge_assumptions(
        [Note(msg("squeeze.assumption.kernels", gemm=setup.low_dtype if setup.mixed_precision else "fp32",
                  bandwidth=f"{memory_share(spec).gb_s:.0f}", shortest=f"{costs.kernel_min_s * 1e6:.2g}"))],
        [Note(msg("squeeze.assumption.launch", issue=f"{costs.issue_s * 1e6:.2g}", gap=f"{costs.gap_s * 1e6:.2g}",
                  node=f"{costs.graph_node_s * 1e6:.2g}", gpu=costs.measured_on))],
        h2d.assumptions)  # fmt: skip
    return StepCosts(kernels, h2d.seconds, readback.seconds, costs, data_s, assumptions,
                     readback_pinned=setup.prefetch)


# ---------------------------------------------------------------- laying the step out in time


@dataclass
class _Layout:
    events: list[TraceEvent] = field(default_factory=list)
    correlation: int = 0

    def add(self, name: str, cat: str, lane: str, start_s: float, dur_s: float, **args: Any) -> TraceEvent:
        event = TraceEvent(name, cat, lane, start_s, dur_s, dict(args))
        self.events.append(event)
        return event

    def next_correlation(self) -> int:
        self.correlation += 1
        return self.correlation


MAIN, LOADER, COMPUTE, COPY = "thread main", "thread loader", "stream 7", "stream 13"


def _launch_kernels(layout: _Layout, step: StepCosts, begin_s: float, graphs: bool) -> float:
    """Launch the step's kernels from ``begin_s`` (one by one, or as one graph); the last kernel's end."""
    costs = step.costs
    if graphs:
        correlation = layout.next_correlation()
        layout.add("cudaGraphLaunch", "cuda_runtime", MAIN, begin_s, costs.graph_launch_s, correlation=correlation)
        end = begin_s + costs.graph_launch_s
        for kernel in step.kernels:
            start = end + costs.graph_node_s
            layout.add(kernel.name, "kernel", COMPUTE, start, kernel.seconds, correlation=correlation,
                       phase=kernel.phase)
            end = start + kernel.seconds
        return end
    host, end = begin_s, -math.inf
    for kernel in step.kernels:
        correlation = layout.next_correlation()
        layout.add("cudaLaunchKernel", "cuda_runtime", MAIN, host, costs.issue_s, correlation=correlation)
        host += costs.issue_s
        start = max(host, end + costs.gap_s)
        layout.add(kernel.name, "kernel", COMPUTE, start, kernel.seconds, correlation=correlation, phase=kernel.phase)
        end = start + kernel.seconds
    return end


def _read_loss(layout: _Layout, step: StepCosts, last_kernel_end_s: float, host_s: float) -> float:
    """The loss copied back and waited for (a synchronous tiny copy); the instant the host returns.

    Into pageable memory ``cudaMemcpyAsync`` blocks the host until the copy is done; into pinned
    memory it returns at once and ``cudaStreamSynchronize`` does the waiting."""
    start = max(last_kernel_end_s, host_s + step.costs.issue_s)
    copied = start + step.readback_s
    if step.readback_pinned:
        layout.add("cudaMemcpyAsync", "cuda_runtime", MAIN, host_s, step.costs.issue_s)
        name, wait_from = "Memcpy DtoH (Device -> Pinned)", host_s + step.costs.issue_s
    else:
        layout.add("cudaMemcpyAsync", "cuda_runtime", MAIN, host_s, copied - host_s)
        name, wait_from = "Memcpy DtoH (Device -> Pageable)", copied
    layout.add(name, "gpu_memcpy", COMPUTE, start, step.readback_s, bytes=LOSS_BYTES)
    done = copied + step.costs.sync_s
    layout.add("cudaStreamSynchronize", "cuda_runtime", MAIN, wait_from, done - wait_from)
    return done


def simulate(step: StepCosts, setup: Setup, batch_bytes: int, workers: int = 1) -> tuple[list[TraceEvent], float]:
    """The step's events and its length in seconds (steady state: one step among many).

    ``workers`` loader threads share the batch preparation when prefetching (perfect scaling, an
    assumption the lab states); without prefetch the main thread prepares the batch itself."""
    layout = _Layout()
    if setup.prefetch:
        return _simulate_prefetched(layout, step, setup, batch_bytes, workers)
    layout.add(DATA_LOADER_RANGE, "user_annotation", MAIN, 0.0, step.data_s)
    copy_at = step.data_s
    layout.add("cudaMemcpyAsync", "cuda_runtime", MAIN, copy_at, step.h2d_s)
    layout.add("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", COMPUTE, copy_at, step.h2d_s, bytes=batch_bytes)
    host_s = copy_at + step.h2d_s
    last = _launch_kernels(layout, step, host_s, setup.cuda_graphs)
    host_s = _host_after_launches(layout)
    end = _read_loss(layout, step, last, host_s)
    return _with_step(layout, end), end


def _host_after_launches(layout: _Layout) -> float:
    return max(e.end_s for e in layout.events if e.lane == MAIN)


def _simulate_prefetched(layout: _Layout, step: StepCosts, setup: Setup, batch_bytes: int,
                         workers: int) -> tuple[list[TraceEvent], float]:  # fmt: skip
    """This step's batch is on the GPU already; the next one is prepared and copied meanwhile."""
    last = _launch_kernels(layout, step, 0.0, setup.cuda_graphs)
    gpu_done = _read_loss(layout, step, last, _host_after_launches(layout))
    load_s = step.data_s / max(workers, 1)
    layout.add(LOADER_WORK, "user_annotation", LOADER, 0.0, load_s)
    layout.add("cudaMemcpyAsync", "cuda_runtime", LOADER, load_s, step.costs.issue_s)
    copy_start = max(load_s + step.costs.issue_s, 0.0)
    layout.add("Memcpy HtoD (Pinned -> Device)", "gpu_memcpy", COPY, copy_start, step.h2d_s, bytes=batch_bytes)
    ready = copy_start + step.h2d_s
    end = max(gpu_done, ready)
    if ready > gpu_done:  # the main thread waits for the next batch: the loader sets the pace
        layout.add(DATA_LOADER_RANGE, "user_annotation", MAIN, gpu_done, ready - gpu_done)
    return _with_step(layout, end), end


def _with_step(layout: _Layout, end_s: float) -> list[TraceEvent]:
    layout.add("ProfilerStep#1", "user_annotation", MAIN, 0.0, end_s)
    return sorted(layout.events, key=lambda e: (e.start_s, e.lane))


# ---------------------------------------------------------------- the breakdown


@dataclass(frozen=True)
class Breakdown:
    """Seconds of each part of a step (:data:`PARTS`); they add up to ``step_s``."""

    data_wait: float
    h2d: float
    compute: float
    launch_gaps: float
    idle: float

    @property
    def step_s(self) -> float:
        return self.data_wait + self.h2d + self.compute + self.launch_gaps + self.idle

    @property
    def utilisation(self) -> float:
        """The share of the step in which a kernel runs (what nvidia-smi's GPU utilisation counts)."""
        return self.compute / self.step_s if self.step_s > 0 else 0.0

    def as_dict(self) -> dict[str, float]:
        return {part: getattr(self, part) for part in PARTS}


def _union(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for lo, hi in sorted(i for i in intervals if i[1] > i[0]):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def breakdown(events: Sequence[TraceEvent], step_s: float) -> Breakdown:
    """Where the GPU's time went in the step ``[0, step_s)``, instant by instant: **compute** while a
    kernel runs; else **H2D** while a host-to-GPU copy runs; else idle, blamed on **data wait**
    inside a data-loader range, on **launch gaps** between the first and the last kernel (the GPU
    waiting for the next launch or node), and on **idle** for the rest (the loss read-back and the
    synchronise)."""
    kernels = _union((e.start_s, e.end_s) for e in events if e.cat == "kernel")
    copies = _union((e.start_s, e.end_s) for e in events if e.cat == "gpu_memcpy" and "HtoD" in e.name)
    loading = _union((e.start_s, e.end_s) for e in events if e.name == DATA_LOADER_RANGE and e.lane == MAIN)
    edges = sorted({0.0, step_s, *[x for piece in kernels + copies + loading for x in piece]})
    launch_calls = ("cudaLaunchKernel", "cudaGraphLaunch")
    launches = [e.start_s for e in events if e.cat == "cuda_runtime" and e.name in launch_calls]
    first = min(launches, default=kernels[0][0] if kernels else 0.0)
    last = kernels[-1][1] if kernels else 0.0
    parts = dict.fromkeys(PARTS, 0.0)
    for lo, hi in pairwise(edges):
        if hi <= lo or lo >= step_s:
            continue
        hi = min(hi, step_s)
        middle = (lo + hi) / 2
        if any(a <= middle < b for a, b in kernels):
            parts["compute"] += hi - lo
        elif any(a <= middle < b for a, b in copies):
            parts["h2d"] += hi - lo
        elif any(a <= middle < b for a, b in loading):
            parts["data_wait"] += hi - lo
        elif first <= middle < last:
            parts["launch_gaps"] += hi - lo
        else:
            parts["idle"] += hi - lo
    return Breakdown(**parts)
