"""The machine side of the topology lab: copies from one GPU to another through CuPy, timed with CUDA events.

CuPy calls used (as documented in CuPy's reference, ``cupy.cuda.runtime``):
``deviceCanAccessPeer(device, peerDevice)`` (1 when ``device`` may read and write ``peerDevice``'s
memory directly), ``deviceEnablePeerAccess(peerDevice)`` (from the current device; CUDA answers
``cudaErrorPeerAccessAlreadyEnabled`` the second time), and ``memcpyPeerAsync(dst, dstDevice, src,
srcDevice, size, stream)``, which copies straight over NVLink or PCIe when peer access is on and
through host memory otherwise. Buffers are ``cupy.empty`` under ``cupy.cuda.Device(i)``; the events
are recorded on a stream of the source GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpulab import cuda
from gpulab.measure import RepeatPolicy, Samples

PEER_ACCESS_ALREADY_ENABLED = 704  # cudaErrorPeerAccessAlreadyEnabled (CUDA runtime API, cudaError)
DEVICE_SHARE = 0.25
"""At most this share of a GPU's free memory goes to its copy buffer."""


def free_bytes(device: int) -> int | None:
    try:
        cupy = cuda.require_cupy()
        with cupy.cuda.Device(device):
            return int(cupy.cuda.Device(device).mem_info[0])
    except Exception:
        return None


class PeerCopies:
    """One buffer of ``nbytes`` on each GPU in ``devices``; :meth:`time` copies it from one GPU to another."""

    def __init__(self, devices: list[int], nbytes: int) -> None:
        self.cupy = cuda.require_cupy()
        self.nbytes = nbytes
        self.buffers: dict[int, Any] = {}
        self.streams: dict[int, Any] = {}
        for device in devices:
            with self.cupy.cuda.Device(device):
                self.buffers[device] = self.cupy.ones(nbytes, dtype=self.cupy.uint8)
                self.streams[device] = self.cupy.cuda.Stream(non_blocking=True)

    def enable_peer(self, src: int, dst: int) -> bool:
        """Turn on direct access both ways between ``src`` and ``dst`` where CUDA allows it; True if it is on."""
        runtime = self.cupy.cuda.runtime
        if not (runtime.deviceCanAccessPeer(src, dst) and runtime.deviceCanAccessPeer(dst, src)):
            return False
        for here, there in ((src, dst), (dst, src)):
            with self.cupy.cuda.Device(here):
                try:
                    runtime.deviceEnablePeerAccess(there)
                except self.cupy.cuda.runtime.CUDARuntimeError as exc:
                    if getattr(exc, "status", None) != PEER_ACCESS_ALREADY_ENABLED:
                        raise
        return True

    def time(self, src: int, dst: int, policy: RepeatPolicy, check_cancelled: Callable[[], None]) -> Samples:
        """Seconds of each copy from ``src`` to ``dst`` (CUDA events on ``src``'s stream, after warm-up)."""
        cupy, stream = self.cupy, self.streams[src]
        source, target = self.buffers[src], self.buffers[dst]

        def copy() -> None:
            cupy.cuda.runtime.memcpyPeerAsync(target.data.ptr, dst, source.data.ptr, src, self.nbytes, stream.ptr)

        samples = Samples()
        with cupy.cuda.Device(src):
            for _ in range(2):
                copy()
            stream.synchronize()
            spent = 0.0
            while policy.wants_more(len(samples), spent):
                check_cancelled()
                start, end = cupy.cuda.Event(), cupy.cuda.Event()
                start.record(stream)
                copy()
                end.record(stream)
                end.synchronize()
                seconds = cupy.cuda.get_elapsed_time(start, end) / 1e3
                samples.append(seconds)
                spent += seconds
        return samples

    def close(self) -> None:
        self.buffers.clear()
        self.streams.clear()


def open_copies(devices: list[int], nbytes: int) -> PeerCopies:
    return PeerCopies(devices, nbytes)
