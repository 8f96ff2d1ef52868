"""The squeeze lab's measured step, without a GPU: a small fake of the CuPy calls it uses.

The fake keeps a clock that each kernel, copy, launch and graph replay moves by a known amount
(a kernel queued behind the holding kernel runs without the host's gap before it), so the phases
the step reads from its events are known exactly; it records every allocation and every host
synchronisation made while a stream is capturing (the step must make none), refuses a matmul
while capturing as CuPy does (cupy/cupy#6290), and it injects the failures a real GPU can give
(a refused capture, out of memory, an allocation inside the capture). The ``gpu``-marked tests
at the end run the real path; they skip without a GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gpulab.experiments import squeeze
from gpulab.experiments.squeeze import measured, step
from gpulab.experiments.squeeze.loader import LoaderTiming
from gpulab.experiments.squeeze.measured import MeasureError, Phases, StepOnDevice, measured_events
from gpulab.lab.base import Context, drive

KERNEL_S, GAP_S, GRAPH_LAUNCH_S = 10e-6, 4e-6, 3e-6  # each kernel, the host's gap before an eager one, a graph launch
PINNED_B_S, PAGEABLE_B_S = 20e9, 5e9  # H2D rates from pinned and pageable host memory
READBACK_S = 8e-6
SMALL = step.Mlp(64, 32, 3)
LOADING = LoaderTiming(2e-3, 1e-5, 5, ())


class FakeOutOfMemory(MemoryError):
    """cupy.cuda.memory.OutOfMemoryError is a MemoryError too."""


class FakeArray(np.ndarray):
    """A device array: numpy storage, ``set`` as ``cupy.ndarray.set`` (an H2D copy on a stream)."""

    fake: FakeCupy

    def set(self, arr: np.ndarray, stream: Any = None) -> None:
        self.fake.h2d(arr, stream)


class FakeCupy:
    """The CuPy surface the measured step uses, on a fake clock."""

    float16, float32 = np.float16, np.float32

    def __init__(self, fail: str = "", oom_after: int | None = None) -> None:
        self.now = 0.0
        self.fail, self.oom_after = fail, oom_after
        self.capturing: FakeStream | None = None
        self.pool_bytes = 0
        self.allocations = 0
        self.allocated_in_capture: list[tuple[int, ...]] = []
        self.synced_in_capture: list[str] = []
        self.launches: list[tuple[str, tuple[str, ...]]] = []  # (kernel, input dtypes), eager ones only
        self.graphs: list[FakeGraph] = []
        self.pinned_ids: set[int] = set()
        self.held = False  # the holding kernel runs: what is queued behind it runs back to back
        self.holds_ns: list[int] = []
        fake = self

        class Namespace:
            pass

        self.cuda: Any = Namespace()
        self.cuda.Stream = lambda non_blocking=False: FakeStream(fake, non_blocking)
        self.cuda.Event = lambda: FakeEvent(fake)
        self.cuda.get_elapsed_time = lambda start, end: (end.at - start.at) * 1e3  # milliseconds, as CuPy's

    # ------------------------------------------------------------ memory

    def _alloc(self, shape: tuple[int, ...], dtype: Any, value: float) -> FakeArray:
        if self.oom_after is not None and self.allocations >= self.oom_after:
            raise FakeOutOfMemory("Out of memory allocating 1,048,576 bytes")
        self.allocations += 1
        array = np.full(shape, value, dtype=dtype).view(FakeArray)
        array.fake = self
        self.pool_bytes += array.nbytes
        if self.capturing is not None:
            self.allocated_in_capture.append(shape)
        return array

    def zeros(self, shape: tuple[int, ...], dtype: Any = np.float32) -> FakeArray:
        return self._alloc(shape, dtype, 0)

    def ones(self, shape: tuple[int, ...], dtype: Any = np.float32) -> FakeArray:
        return self._alloc(shape, dtype, 1)

    def full(self, shape: tuple[int, ...], value: float, dtype: Any = np.float32) -> FakeArray:
        return self._alloc(shape, dtype, value)

    def empty_pinned(self, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
        array = np.empty(shape, dtype=dtype)
        self.pinned_ids.add(id(array))
        return array

    def get_default_memory_pool(self) -> Any:
        fake = self

        class Pool:
            def total_bytes(self) -> int:
                return fake.pool_bytes

        return Pool()

    # ------------------------------------------------------------ work

    def launch(self, name: str, inputs: tuple[Any, ...]) -> None:
        dtypes = tuple(str(a.dtype) for a in inputs if isinstance(a, np.ndarray))
        if self.capturing is not None:
            if self.fail == "alloc-in-capture":
                self.zeros((2,), np.float32)  # a temporary, as a kernel needing a copy would make
            self.capturing.captured.append(name)
            return
        self.launches.append((name, dtypes))
        self.now += KERNEL_S if self.held else GAP_S + KERNEL_S

    def matmul(self, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
        assert a.shape[1] == b.shape[0] and out.shape == (a.shape[0], b.shape[1]), "matmul shapes"
        assert a.dtype == b.dtype == out.dtype, "matmul in one precision"
        if self.capturing is not None:  # CuPy's own refusal, whatever the driver would allow
            raise NotImplementedError("calling cuBLAS API during stream capture is currently unsupported")
        self.launch("gemm", (a, b))
        return out

    def ElementwiseKernel(self, in_params: str, out_params: str, operation: str, name: str) -> Any:
        count = len(in_params.split(",")) + len(out_params.split(","))
        fake = self

        def call(*args: Any) -> None:
            assert len(args) == count, f"{name}: {len(args)} arguments for {count} parameters"
            fake.launch(name, args)

        return call

    def RawKernel(self, source: str, name: str) -> Any:
        assert name == "hold_gpu" and "globaltimer" in source
        fake = self

        def hold(grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...]) -> None:
            assert fake.capturing is None, "the GPU is held only for timing, never in a graph"
            fake.holds_ns.append(int(args[0]))
            fake.held = True

        return hold

    def h2d(self, arr: np.ndarray, stream: Any) -> None:
        if self.capturing is not None:
            self.synced_in_capture.append("h2d")
        rate = PINNED_B_S if id(arr) in self.pinned_ids else PAGEABLE_B_S
        self.now += arr.nbytes / rate

    def asnumpy(self, a: np.ndarray, stream: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        if self.capturing is not None:
            self.synced_in_capture.append("asnumpy")
        self.now += READBACK_S
        assert out is not None and out.shape == a.shape
        return out


class FakeStream:
    def __init__(self, fake: FakeCupy, non_blocking: bool) -> None:
        self.fake, self.non_blocking = fake, non_blocking
        self.captured: list[str] = []

    def __enter__(self) -> FakeStream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def begin_capture(self) -> None:
        if not self.non_blocking:
            raise RuntimeError("cannot capture on the default (legacy) stream")
        if self.fake.fail == "capture":
            raise RuntimeError("cudaErrorStreamCaptureUnsupported: operation not permitted when stream is capturing")
        self.fake.capturing, self.captured = self, []

    def end_capture(self) -> FakeGraph:
        self.fake.capturing = None
        graph = FakeGraph(self.fake, list(self.captured))
        self.fake.graphs.append(graph)
        return graph

    def synchronize(self) -> None:
        if self.fake.capturing is not None:
            self.fake.synced_in_capture.append("stream.synchronize")
        self.fake.held = False


class FakeGraph:
    def __init__(self, fake: FakeCupy, nodes: list[str]) -> None:
        self.fake, self.nodes = fake, nodes

    def launch(self, stream: Any = None) -> None:
        self.fake.now += GRAPH_LAUNCH_S + len(self.nodes) * KERNEL_S


class FakeEvent:
    def __init__(self, fake: FakeCupy) -> None:
        self.fake, self.at = fake, -1.0

    def record(self, stream: Any = None) -> None:
        self.at = self.fake.now

    def synchronize(self) -> None:
        if self.fake.capturing is not None:
            self.fake.synced_in_capture.append("event.synchronize")
        self.fake.held = False


def setups() -> list[step.Setup]:
    flags = [(p, f, m, g) for p in (False, True) for f in (False, True) for m in (False, True) for g in (False, True)]
    return [step.Setup(*flag) for flag in flags]


# ---------------------------------------------------------------- the step on the fake


@pytest.mark.parametrize("setup", setups(), ids=lambda s: "+".join(s.switches) or "baseline")
def test_nothing_is_allocated_or_synchronised_while_capturing(setup):
    fake = FakeCupy()
    device = StepOnDevice(fake, fake.empty_pinned, SMALL, setup)
    allocated = fake.allocations
    phases = device.phases(1e-3)
    assert fake.allocated_in_capture == [] and fake.synced_in_capture == []
    assert fake.allocations == allocated  # the timed runs allocate nothing either
    gemms = sum(op.name == "gemm" for op in device.ops)
    assert phases.kernels == len(device.ops) and gemms > 0
    if setup.cuda_graphs:  # the element-wise runs as graphs, the matmuls between them
        assert sum(len(graph.nodes) for graph in fake.graphs) + gemms == phases.kernels
        assert "gemm" not in {node for graph in fake.graphs for node in graph.nodes}
        assert phases.launches == len(fake.graphs) + gemms < phases.kernels
    else:  # nothing captured: the kernels are launched one by one
        assert fake.graphs == [] and phases.launches == phases.kernels


def test_the_phases_are_the_event_times_of_each_part():
    fake = FakeCupy()
    phases = StepOnDevice(fake, fake.empty_pinned, SMALL, step.Setup()).phases(1e-3)
    n = phases.kernels
    assert phases.h2d_s == pytest.approx(SMALL.batch_bytes / PAGEABLE_B_S)
    assert phases.span_s == pytest.approx(n * (GAP_S + KERNEL_S)) == pytest.approx(phases.eager_s)
    assert phases.replay_s == pytest.approx(n * KERNEL_S)  # behind the held GPU: no host gap inside
    assert phases.launch_gaps_s == pytest.approx(n * GAP_S)
    assert phases.readback_s == pytest.approx(READBACK_S)
    assert phases.data_s == 1e-3


def test_each_switch_changes_what_it_should():
    def run(**switches: bool) -> tuple[Phases, FakeCupy]:
        fake = FakeCupy()
        return StepOnDevice(fake, fake.empty_pinned, SMALL, step.Setup(**switches)).phases(1e-3), fake

    base, base_fake = run()
    prefetch, _ = run(prefetch=True)
    fused, _ = run(fusion=True)
    _mixed, mixed_fake = run(mixed_precision=True)
    graphs, _ = run(cuda_graphs=True)
    assert prefetch.h2d_s == pytest.approx(base.h2d_s * PAGEABLE_B_S / PINNED_B_S)  # pinned host buffers
    assert fused.kernels < base.kernels
    assert {d for name, dtypes in base_fake.launches if name == "gemm" for d in dtypes} == {"float32"}
    assert {d for name, dtypes in mixed_fake.launches if name == "gemm" for d in dtypes} == {"float16"}
    gemms = sum(op.name == "gemm" for op in StepOnDevice(FakeCupy(), np.empty, SMALL, step.Setup()).ops)
    pieces = graphs.launches - gemms  # the graphs of element-wise runs
    assert graphs.launch_gaps_s == pytest.approx(pieces * GRAPH_LAUNCH_S + gemms * GAP_S)
    assert 0 < graphs.launch_gaps_s < base.launch_gaps_s  # fewer launches, not none: the matmuls stay eager
    assert graphs.eager_gaps_s == pytest.approx(base.launch_gaps_s)


def test_a_refused_capture_raises_a_measure_error_naming_it():
    fake = FakeCupy(fail="capture")
    with pytest.raises(MeasureError) as caught:
        StepOnDevice(fake, fake.empty_pinned, SMALL, step.Setup(cuda_graphs=True)).phases(1e-3)
    assert caught.value.stage == "capture" and "StreamCaptureUnsupported" in str(caught.value)


def test_an_allocation_inside_the_capture_is_caught_by_the_pool_check():
    fake = FakeCupy(fail="alloc-in-capture")
    with pytest.raises(MeasureError) as caught:
        StepOnDevice(fake, fake.empty_pinned, SMALL, step.Setup(cuda_graphs=True)).phases(1e-3)
    assert caught.value.stage == "capture" and "memory pool grew" in str(caught.value)


def test_out_of_memory_while_allocating_is_a_measure_error():
    fake = FakeCupy(oom_after=3)
    with pytest.raises(MeasureError) as caught:
        StepOnDevice(fake, fake.empty_pinned, SMALL, step.Setup())
    assert caught.value.stage == "allocate" and "Out of memory" in str(caught.value)


# ---------------------------------------------------------------- the phases as a step


def test_measured_events_break_down_into_the_measured_phases():
    phases = Phases(data_s=1e-3, h2d_s=2e-4, span_s=5e-4, replay_s=3e-4, readback_s=5e-5, kernels=40, eager_s=5e-4)
    events, step_s = measured_events(phases, step.Setup(), 1000)
    parts = step.breakdown(events, step_s)
    assert step_s == pytest.approx(1e-3 + 2e-4 + 5e-4 + 5e-5)
    assert parts.as_dict() == pytest.approx({"data_wait": 1e-3, "h2d": 2e-4, "compute": 3e-4, "launch_gaps": 2e-4,
                                             "idle": 5e-5})  # fmt: skip


def test_prefetched_the_loader_hides_behind_the_gpu_or_sets_the_pace():
    fast = Phases(data_s=3e-4, h2d_s=1e-4, span_s=5e-4, replay_s=3e-4, readback_s=5e-5, kernels=40)
    events, step_s = measured_events(fast, step.Setup(prefetch=True), 1000, workers=1)  # copy under the kernels
    parts = step.breakdown(events, step_s)
    assert step_s == pytest.approx(5.5e-4) and parts.data_wait == 0 and parts.h2d == 0
    slow = Phases(data_s=2e-3, h2d_s=1e-4, span_s=5e-4, replay_s=3e-4, readback_s=5e-5, kernels=40)
    events, step_s = measured_events(slow, step.Setup(prefetch=True), 1000, workers=2)
    parts = step.breakdown(events, step_s)
    assert step_s == pytest.approx(1e-3 + 1e-4)  # the loader's share, then the copy
    assert parts.h2d == pytest.approx(1e-4) and parts.data_wait == pytest.approx(1.1e-3 - 5.5e-4 - 1e-4)
    assert sum(parts.as_dict().values()) == pytest.approx(step_s)


# ---------------------------------------------------------------- the lab with the fake as its GPU


def run_on(fake: FakeCupy, monkeypatch: pytest.MonkeyPatch, **params: Any):
    monkeypatch.setattr(squeeze, "measuring_backend", lambda: (fake, fake.empty_pinned))
    monkeypatch.setattr(squeeze.cuda, "device_name", lambda index=0: "Fake GPU 80GB")
    monkeypatch.setattr(squeeze, "time_loading", lambda *args, **kwargs: LOADING)
    return drive(squeeze.run(squeeze.Params(shape="small", **params), Context()))


def test_on_a_gpu_every_configuration_is_measured_and_labelled_so(monkeypatch):
    result = run_on(FakeCupy(), monkeypatch)
    assert {s.provenance.kind for s in result.series} == {"measured"}
    assert {s.provenance.device for s in result.series} == {"Fake GPU 80GB"}
    assert {p.extra["kind"] for s in result.series for p in s.points} == {"measured"}
    keys = [note.message.key for note in result.notes]
    assert "squeeze.note.measured" in keys and "squeeze.note.fp16-not-bf16" in keys  # bf16 chosen, FP16 run
    pieces = next(n for n in result.notes if n.message.key == "squeeze.note.graph-pieces")
    assert 0 < dict(pieces.message.args)["launches"] < dict(pieces.message.args)["kernels"]
    # The verdict and the loader's note say where the GPU's part came from: measured here, not modelled
    # (on an H200 they said "the modelled NVIDIA H200" and "the GPU's part is modelled").
    from gpulab.catalogue import render

    said = [render(n.message, lang) for n in result.notes for lang in ("en", "zh")
            if n.message.key.startswith("squeeze.verdict.") or n.message.key == "squeeze.note.loader"]
    assert said and all("Fake GPU 80GB" in text for text in said)
    assert not any("modelled" in text or "模型估算" in text or "建模" in text for text in said)
    assert "squeeze.assumption.kernels" not in keys  # no model behind a measured ladder
    assert any(key.startswith("squeeze.verdict.") for key in keys)
    for s in result.series:
        extra = s.points[0].extra
        assert sum(extra["parts"].values()) == pytest.approx(extra["seconds"])


def test_a_refused_capture_models_the_configurations_with_graphs_and_says_why(monkeypatch):
    result = run_on(FakeCupy(fail="capture"), monkeypatch)
    graphs = [s for s in result.series if "cuda_graphs" in s.points[0].extra["switches"]]
    assert graphs and {s.provenance.kind for s in graphs} == {"modelled"}  # never labelled measured
    assert {s.provenance.kind for s in result.series if s not in graphs} == {"measured"}  # no capture needed
    failures = [n for n in result.notes if n.message.key == "squeeze.note.measure-failed"]
    assert len(failures) == len(graphs)
    assert all("StreamCaptureUnsupported" in str(dict(n.message.args)["error"]) for n in failures)
    assert "squeeze.note.graph-pieces" not in [n.message.key for n in result.notes]


def test_the_kernels_own_time_is_taken_behind_a_held_gpu_longer_than_the_host_takes_to_queue():
    fake = FakeCupy()
    phases = StepOnDevice(fake, fake.empty_pinned, SMALL, step.Setup()).phases(1e-3)
    assert len(fake.holds_ns) == measured.REPEATS
    assert min(fake.holds_ns) >= max(2 * phases.eager_s, measured.HOLD_LEAST_S) * 1e9 * 0.999


def test_out_of_memory_on_one_configuration_models_that_one_only(monkeypatch):
    fake = FakeCupy()
    real = measured.StepOnDevice.__init__
    made: list[int] = []

    def second_runs_out(self: Any, cp: Any, pinned: Any, mlp: Any, setup: Any) -> None:
        made.append(1)
        if len(made) == 2:
            cp = FakeCupy(oom_after=0)
        real(self, cp, pinned, mlp, setup)

    monkeypatch.setattr(measured.StepOnDevice, "__init__", second_runs_out)
    result = run_on(fake, monkeypatch)
    kinds = [s.provenance.kind for s in result.series]
    assert kinds[1] == "modelled" and kinds.count("modelled") == 1
    assert result.series[1].points[0].extra["kind"] == "modelled"
    keys = [n.message.key for n in result.notes]
    assert "squeeze.note.mixed-kinds" in keys and "squeeze.note.measure-failed" in keys


# ---------------------------------------------------------------- the real path (skips without a GPU)


@pytest.mark.gpu
@pytest.mark.parametrize("setup", setups(), ids=lambda s: "+".join(s.switches) or "baseline")
def test_the_real_step_runs_and_captures_without_allocating(setup):
    from gpulab import cuda

    cp = cuda.require_cupy()
    import cupyx

    phases = StepOnDevice(cp, cupyx.empty_pinned, step.Mlp(256, 512, 4), setup).phases(1e-3)
    assert 0 < phases.replay_s and 0 < phases.span_s and 0 < phases.h2d_s and 0 <= phases.readback_s
    assert phases.kernels > 0


@pytest.mark.gpu
def test_a_real_run_is_measured_on_this_gpu():
    from gpulab import cuda

    result = drive(squeeze.run(squeeze.Params(shape="small"), Context()))
    assert {s.provenance.kind for s in result.series} == {"measured"}, [n.message for n in result.notes]
    assert {s.provenance.device for s in result.series} == {cuda.device_name()}


# ---------------------------------------------------------------- the holding kernel, compiled as the GPU will


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_holding_kernel_compiles_with_nvrtc_and_reads_the_global_timer(arch):
    from gpulab import nvrtc

    try:
        cubin, _ = nvrtc.compile_cubin(measured.HOLD_SOURCE, "hold_gpu.cu", arch)
        ptx = nvrtc.compile_ptx(measured.HOLD_SOURCE, "hold_gpu.cu", "compute_" + arch[3:])
    except nvrtc.NvrtcUnavailable as exc:
        pytest.skip(f"NVRTC is not installed: {exc}")
    assert cubin and "%globaltimer" in (ptx[0] if isinstance(ptx, tuple) else ptx)
