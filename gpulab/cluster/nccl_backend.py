"""The NCCL backend: CuPy's ``cupy.cuda.nccl`` communicators, timed with CUDA events.

On one machine (:func:`run_local`) one process drives every local GPU: ``NcclCommunicator.initAll``
makes one communicator per GPU and each collective is issued for all of them inside one
``groupStart``/``groupEnd``. Across nodes (:class:`RankNcclMeasurer`, run by
:mod:`gpulab.cluster.rank_main` under mpirun or srun) each MPI rank drives one GPU, rank 0 makes
NCCL's unique id and MPI broadcasts it. Either way each call is timed by a pair of CUDA events on
every rank's stream, the call's time is the slowest rank's, and the point is the median of repeats
after a warm-up; the last call's result is checked on every GPU (:mod:`gpulab.cluster.patterns`).
AlltoAll is n sends and n receives in one group (NCCL has no AlltoAll call of its own).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import numpy as np

from gpulab import cuda
from gpulab.catalogue import Message, msg
from gpulab.cluster import busbw, patterns
from gpulab.cluster.report import Collector, fit_sizes
from gpulab.cluster.timing import point_fields, repeats_for
from gpulab.lab.base import ExperimentError, Progress, params_to_dict

NCCL_INSTALL_HINT = "pip install -e '.[cuda12]' (NCCL comes with CuPy's wheels or: pip install nvidia-nccl-cu12)"


def nccl_status() -> tuple[int, Message | None]:
    """(CUDA devices here, why NCCL cannot run across them or None)."""
    status = cuda.cuda_status()
    if not status.available:
        return 0, msg("collectives.reason.no-gpu", reason=status.reason_message or status.reason)
    gpus = len(status.devices)
    if gpus < 2:
        return gpus, msg("collectives.reason.one-gpu", gpus=gpus)
    try:
        from cupy.cuda import nccl  # noqa: F401 - only whether it imports
    except ImportError:
        return gpus, msg("collectives.reason.no-nccl", command=NCCL_INSTALL_HINT)
    return gpus, None


def nccl_call(comm: Any, plan: busbw.Layout, send: Any, recv: Any, stream_ptr: int) -> None:
    """Issue one ``plan.collective`` on ``comm`` (float32 sum) on the stream ``stream_ptr``."""
    from cupy.cuda import nccl

    f32, total, count = nccl.NCCL_FLOAT32, nccl.NCCL_SUM, plan.count
    kind = plan.collective
    if kind == "allreduce":
        comm.allReduce(send.data.ptr, recv.data.ptr, count, f32, total, stream_ptr)
    elif kind == "allgather":
        comm.allGather(send.data.ptr, recv.data.ptr, count, f32, stream_ptr)
    elif kind == "reducescatter":
        comm.reduceScatter(send.data.ptr, recv.data.ptr, count, f32, total, stream_ptr)
    elif kind == "broadcast":  # in place: recv starts as the send buffer
        comm.broadcast(recv.data.ptr, recv.data.ptr, count, f32, patterns.ROOT, stream_ptr)
    elif kind == "reduce":
        comm.reduce(send.data.ptr, recv.data.ptr, count, f32, total, patterns.ROOT, stream_ptr)
    else:  # alltoall: chunk p goes to rank p, chunk p of recv comes from rank p
        chunk = count * busbw.ELEMENT_BYTES
        nccl.groupStart()
        for peer in range(plan.ranks):
            comm.send(send.data.ptr + peer * chunk, count, f32, peer, stream_ptr)
            comm.recv(recv.data.ptr + peer * chunk, count, f32, peer, stream_ptr)
        nccl.groupEnd()


def _buffers(cupy: Any, plan: busbw.Layout, rank: int) -> tuple[Any, Any]:
    send = patterns.send_buffer(cupy, plan, rank)
    recv = send.copy() if plan.collective == "broadcast" else cupy.zeros(plan.recv_elements, dtype=cupy.float32)
    return send, recv


def _gpu_name(cupy: Any, device: int) -> str:
    name = cupy.cuda.runtime.getDeviceProperties(device)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


# ------------------------------------------------------------------ one process, every local GPU


class LocalGroup:
    """One communicator, stream and pair of buffers per local GPU."""

    def __init__(self, ranks: int) -> None:
        from cupy.cuda import nccl

        self.cupy = cuda.require_cupy()
        self.ranks = ranks
        self.comms = nccl.NcclCommunicator.initAll(list(range(ranks)))
        self.streams = []
        for device in range(ranks):
            with self.cupy.cuda.Device(device):
                self.streams.append(self.cupy.cuda.Stream(non_blocking=True))

    def call(self, plan: busbw.Layout, buffers: list[tuple[Any, Any]]) -> None:
        from cupy.cuda import nccl

        nccl.groupStart()
        for device in range(self.ranks):
            with self.cupy.cuda.Device(device):
                nccl_call(self.comms[device], plan, *buffers[device], self.streams[device].ptr)
        nccl.groupEnd()

    def timed_call(self, plan: busbw.Layout, buffers: list[tuple[Any, Any]]) -> float:
        """Seconds of one call: CUDA events on every GPU's stream, the slowest GPU's time."""
        cp = self.cupy
        events = []
        for device in range(self.ranks):
            with cp.cuda.Device(device):
                start, end = cp.cuda.Event(), cp.cuda.Event()
                start.record(self.streams[device])
                events.append((start, end))
        self.call(plan, buffers)
        for device, (_start, end) in enumerate(events):
            with cp.cuda.Device(device):
                end.record(self.streams[device])
        seconds = []
        for device, (start, end) in enumerate(events):
            with cp.cuda.Device(device):
                end.synchronize()
                seconds.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
        return max(seconds)

    def measure(self, plan: busbw.Layout, budget_seconds: float) -> dict[str, Any]:
        buffers = []
        for device in range(self.ranks):
            with self.cupy.cuda.Device(device):
                buffers.append(_buffers(self.cupy, plan, device))
        self.timed_call(plan, buffers)  # warm-up: NCCL sets up its channels on the first call of a size
        repeats = repeats_for(self.timed_call(plan, buffers), budget_seconds)
        samples = np.array([self.timed_call(plan, buffers) for _ in range(repeats)])
        wrong = 0
        for device in range(self.ranks):
            with self.cupy.cuda.Device(device):
                wrong += patterns.wrong_elements(self.cupy, plan, device, buffers[device][1])
        return point_fields(plan, samples, wrong)

    def hello(self) -> dict[str, Any]:
        from cupy.cuda import nccl

        return {"event": "hello", "ranks": self.ranks, "hosts": [socket.gethostname()] * self.ranks,
                "backend": "nccl", "nccl": str(nccl.get_version()),
                "devices": [_gpu_name(self.cupy, d) for d in range(self.ranks)]}  # fmt: skip


def free_gpu_bytes(cupy: Any, ranks: int) -> int:
    """The least free memory of the GPUs taking part."""
    free = []
    for device in range(ranks):
        with cupy.cuda.Device(device):
            free.append(int(cupy.cuda.runtime.memGetInfo()[0]))
    return min(free)


def run_local(params: Any, ctx: Any, notes: list[Message]) -> Any:
    """The NCCL lab on this machine's first ``params.ranks`` GPUs (a generator returning the Result)."""
    group = LocalGroup(params.ranks)
    sizes, size_notes = fit_sizes(params, free_gpu_bytes(group.cupy, params.ranks) * params.ranks)
    if not sizes:
        raise ExperimentError(size_notes[0])
    collector = Collector("nccl", params_to_dict(params))
    collector.add(group.hello())
    total, failure = len(sizes) * len(params.collectives), []
    try:
        for collective in params.collectives:
            for size in sizes:
                ctx.check_cancelled()
                fields = group.measure(busbw.layout(collective, size, params.ranks), params.seconds_per_point)
                yield Progress(collector.points / total, msg("progress.collectives.point",
                                                             collective=busbw.display_name(collective),
                                                             size=size))  # fmt: skip
                partial = collector.add({"event": "point", **fields})
                if partial is not None:
                    yield partial
    except Exception as exc:  # a CUDA or NCCL error mid-sweep: keep the points so far
        if not collector.points or isinstance(exc, ExperimentError):
            raise
        failure = [msg("collectives.error.failed", reason=f"{type(exc).__name__}: {exc}", stderr="-",
                       points=collector.points)]  # fmt: skip
    yield Progress(1.0, msg("progress.done"))
    return collector.result([*notes, *size_notes, *failure])


# ------------------------------------------------------------------ one GPU per MPI rank (many nodes)


class RankNcclMeasurer:
    """This MPI rank's GPU in an NCCL communicator of every rank; NCCL's id comes from rank 0 over MPI."""

    def __init__(self, comm: Any) -> None:
        from cupy.cuda import nccl

        self.mpi = comm
        self.cupy = cuda.require_cupy()
        rank, size = comm.Get_rank(), comm.Get_size()
        self.device = rank % self.cupy.cuda.runtime.getDeviceCount()  # one rank per GPU of its node
        self.cupy.cuda.Device(self.device).use()
        unique_id = nccl.get_unique_id() if rank == 0 else None
        self.nccl = nccl.NcclCommunicator(size, comm.bcast(unique_id, root=0), rank)
        self.stream = self.cupy.cuda.Stream(non_blocking=True)

    def device_text(self) -> str:
        return _gpu_name(self.cupy, self.device)

    def _timed(self, call: Callable[[], None]) -> float:
        start, end = self.cupy.cuda.Event(), self.cupy.cuda.Event()
        self.mpi.Barrier()
        start.record(self.stream)
        call()
        end.record(self.stream)
        end.synchronize()
        return float(self.cupy.cuda.get_elapsed_time(start, end) / 1e3)

    def measure(self, plan: busbw.Layout, budget_seconds: float) -> dict[str, Any]:
        from mpi4py import MPI

        rank = self.mpi.Get_rank()
        send, recv = _buffers(self.cupy, plan, rank)

        def call() -> None:
            nccl_call(self.nccl, plan, send, recv, self.stream.ptr)

        self._timed(call)
        repeats = repeats_for(self.mpi.allreduce(self._timed(call), op=MPI.MAX), budget_seconds)
        samples = np.array([self._timed(call) for _ in range(repeats)])
        self.mpi.Allreduce(MPI.IN_PLACE, samples, op=MPI.MAX)
        wrong = self.mpi.allreduce(patterns.wrong_elements(self.cupy, plan, rank, recv), op=MPI.SUM)
        return point_fields(plan, samples, wrong)
