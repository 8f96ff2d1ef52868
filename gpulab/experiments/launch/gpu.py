"""The launch lab on a CUDA device, through CuPy: K launches of a tiny kernel (queued, or each
waited for), one fused launch doing the same K steps, and the K launches captured once as a
CUDA Graph and replayed.

Every sample is timed twice: with a pair of CUDA events around the work on the stream, and
with the wall clock from just before the first launch to the end event's completion. For
plain launches of a tiny kernel the CPU, not the GPU, sets the pace, so the two should agree;
the lab records both and says how far apart they are.

Stream capture (``Stream.begin_capture``/``end_capture``, which return a ``cupy.cuda.Graph``
to ``launch`` on a stream) is refused on the legacy default stream, so all the work runs on a
stream of its own. Nothing is allocated while a capture is open: the array and the kernels
exist before it begins, and the kernel has run once (its module is loaded) beforehand.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpulab import cuda, kernels
from gpulab.measure import RepeatPolicy

BLOCK = 256
STEP = np.float32(1.0)  # the constant each step adds; 1.0 keeps every value an exact float32 for long


@dataclass
class Timing:
    """Seconds of each repeat of K steps: from CUDA events and from the wall clock; for a graph
    also the seconds its capture and instantiation took (once, not in the repeats)."""

    events_seconds: list[float] = field(default_factory=list)
    wall_seconds: list[float] = field(default_factory=list)
    build_seconds: float | None = None


class LaunchBench:
    """A tiny float32 array on one device, the two kernels, and a stream of its own."""

    def __init__(self, device_index: int, n: int, step_source: str, fused_source: str) -> None:
        self.cupy = cuda.require_cupy()
        self.n = n
        self.device = self.cupy.cuda.Device(device_index)
        self.grid, self.block = kernels.grid_1d(n, BLOCK)
        with self.device:
            self.stream = self.cupy.cuda.Stream(non_blocking=True)  # capture is refused on the legacy stream
            with self.stream:  # zeroed on the lab's stream: a non-blocking stream does not wait for the null one
                self.array = self.cupy.zeros(n, dtype=self.cupy.float32)
            self.stream.synchronize()
            self.step_kernel = cuda.get_kernel(step_source, "tiny_add", device_index)
            self.fused_kernel = cuda.get_kernel(fused_source, "tiny_add_fused", device_index)

    def launch_step(self) -> None:
        """One tiny_add launch on the current stream."""
        self.step_kernel(self.grid, self.block, (np.int32(self.n), STEP, self.array))

    def launch_fused(self, k: int) -> None:
        """One tiny_add_fused launch doing K steps."""
        self.fused_kernel(self.grid, self.block, (np.int32(self.n), np.int32(k), STEP, self.array))

    def time(self, way: str, k: int, policy: RepeatPolicy, check_cancelled: Callable[[], None]) -> Timing:
        """Repeats of K steps done ``way`` (async, sync, graph or fused) until ``policy`` has enough."""
        with self.device, self.stream:
            if way == "graph":
                return self._time_graph(k, policy, check_cancelled)
            return self._time(self._enqueue(way, k), policy, check_cancelled)

    def _enqueue(self, way: str, k: int) -> Callable[[], None]:
        if way == "fused":
            return lambda: self.launch_fused(k)
        if way == "sync":

            def each_waited() -> None:
                for _ in range(k):
                    self.launch_step()
                    self.stream.synchronize()

            return each_waited

        def queued() -> None:
            for _ in range(k):
                self.launch_step()

        return queued

    def _time_graph(self, k: int, policy: RepeatPolicy, check_cancelled: Callable[[], None]) -> Timing:
        self.launch_step()  # the module is loaded before the capture begins
        self.stream.synchronize()
        began = time.perf_counter()
        graph = self.capture(k)
        build_seconds = time.perf_counter() - began
        timing = self._time(lambda: graph.launch(self.stream), policy, check_cancelled)
        timing.build_seconds = build_seconds
        return timing

    def capture(self, k: int) -> Any:
        """K tiny_add launches captured on the lab's stream: a ``cupy.cuda.Graph``, instantiated."""
        self.stream.begin_capture()
        try:
            for _ in range(k):
                self.launch_step()
        finally:
            graph = self.stream.end_capture()  # always ends the capture, so the stream stays usable
        return graph

    def _time(self, enqueue: Callable[[], None], policy: RepeatPolicy, check_cancelled: Callable[[], None],
              warmup: int = 1) -> Timing:  # fmt: skip
        for _ in range(warmup):
            enqueue()
        self.stream.synchronize()
        timing = Timing()
        spent = 0.0
        while policy.wants_more(len(timing.events_seconds), spent):
            check_cancelled()
            events_s, wall_s = self._sample(enqueue)
            timing.events_seconds.append(events_s)
            timing.wall_seconds.append(wall_s)
            spent += wall_s
        return timing

    def _sample(self, enqueue: Callable[[], None]) -> tuple[float, float]:
        """(event seconds, wall seconds) of one repeat, started on an idle stream."""
        events = self.cupy.cuda
        start, end = events.Event(), events.Event()
        self.stream.synchronize()
        began = time.perf_counter()
        start.record(self.stream)
        enqueue()
        end.record(self.stream)
        end.synchronize()
        wall = time.perf_counter() - began
        return events.get_elapsed_time(start, end) / 1e3, wall

    def values(self) -> np.ndarray:
        """The array as it is now, on the host (for checks)."""
        with self.device:
            self.stream.synchronize()
            return self.cupy.asnumpy(self.array)

    def reset(self) -> None:
        """Zero the array again."""
        with self.device, self.stream:
            self.array.fill(0)
            self.stream.synchronize()
