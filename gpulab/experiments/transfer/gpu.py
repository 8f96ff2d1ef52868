"""The machine side of the transfer lab: the PCIe link as NVML reads it, how much memory a copy
may use, and host-device copies through CuPy timed with CUDA events.

Nothing here raises for a missing NVML or spec entry: a link that cannot be read is a
:class:`LinkReading` whose ``link`` is None. :class:`CupyCopies` needs a usable GPU.

CuPy calls used (CuPy >= 13, as documented): ``cupyx.empty_pinned(shape, dtype)`` for page-locked
host memory; ``ndarray.set(host)`` copies host to device on the current stream (asynchronous
for pinned memory; the driver stages pageable memory itself); ``ndarray.get(out=host,
blocking=False)`` copies device to host on the current stream; ``Device(i).mem_info`` gives
(free, total) device bytes. Times come from CUDA events around the copies
(:func:`gpulab.measure.time_gpu_stages`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import cuda, devices
from gpulab.devices import NvmlInfo
from gpulab.measure import RepeatPolicy, time_gpu_stages
from gpulab.model.transfer import PcieLink, pcie_gb_s_per_direction

HOST_SHARE = 0.5
"""At most this share of the host's available memory goes to the copy buffers (pinned memory
cannot be swapped out, so taking most of it would starve the rest of the machine)."""

DEVICE_SHARE = 0.5
"""At most this share of the GPU's free memory goes to the one device buffer."""


@dataclass(frozen=True)
class LinkReading:
    """The PCIe link of one GPU: its generation and width now and at most (None: not read),
    and where the figures come from (``nvml``, ``spec`` for the spec table, ``none``)."""

    gen_current: int | None = None
    gen_max: int | None = None
    width_current: int | None = None
    width_max: int | None = None
    source: str = "none"

    @property
    def link(self) -> PcieLink | None:
        """The link at its maximum, which a copy trains it up to; None if unknown or not modelled."""
        if self.gen_max is None or self.width_max is None:
            return None
        try:
            pcie_gb_s_per_direction(self.gen_max, self.width_max)  # a generation or width the model lacks
        except ValueError:
            return None
        return PcieLink(self.gen_max, self.width_max)

    @property
    def downshifted(self) -> bool:
        """True when NVML says the link runs below its maximum generation or width right now."""
        return _below(self.gen_current, self.gen_max) or _below(self.width_current, self.width_max)

    @property
    def current_label(self) -> str:
        """``"Gen1 x16"``: the link as it runs now ("?" where NVML did not say)."""
        gen = "?" if self.gen_current is None else self.gen_current
        width = "?" if self.width_current is None else self.width_current
        return f"Gen{gen} x{width}"

    def details(self) -> dict[str, Any]:
        """Provenance details: the link as read, and its theoretical rate."""
        link = self.link
        return {"pcie_source": self.source, "pcie_gen_current": self.gen_current, "pcie_gen_max": self.gen_max,
                "pcie_width_current": self.width_current, "pcie_width_max": self.width_max,
                "link": link.label if link else None,
                "link_gb_s_per_direction": link.gb_s_per_direction if link else None}  # fmt: skip


def _below(now: int | None, most: int | None) -> bool:
    return now is not None and most is not None and now < most


def link_from_nvml(info: NvmlInfo | None) -> LinkReading:
    """The link NVML reported (``info`` from :func:`gpulab.devices.nvml_info`; None: no NVML)."""
    if info is None:
        return LinkReading()
    return LinkReading(info.pcie_gen_current, info.pcie_gen_max, info.pcie_width_current, info.pcie_width_max,
                       "nvml" if info.pcie_gen_max is not None else "none")  # fmt: skip


def link_from_spec(device_name: str) -> LinkReading:
    """The link of the named GPU's spec-table entry (what its board is built for), or an unknown link."""
    from gpulab.specs import load_specs

    try:
        spec = load_specs().match(device_name)
    except Exception:  # a broken spec file: the link is simply unknown
        spec = None
    if spec is None:
        return LinkReading()
    return LinkReading(gen_max=spec.pcie_gen, width_max=spec.pcie_lanes, source="spec")


def read_link(device_index: int) -> LinkReading:
    """The link of CUDA device ``device_index`` read from NVML now (it changes as the link idles),
    else from the spec table; never raises."""
    gpu = next((g for g in cuda.cuda_status().devices if g.index == device_index), None)
    if gpu is None:
        return LinkReading()
    reading = link_from_nvml(devices.nvml_info(gpu.pci_bus_id))
    if reading.link is None:
        return link_from_spec(gpu.name)
    return reading


# ------------------------------------------------------------------ memory


def free_host_bytes() -> int | None:
    """Host memory available to a new allocation (psutil), or None when it cannot be read."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:
        return None


def free_device_bytes(device_index: int) -> int | None:
    """Free memory of CUDA device ``device_index``, or None when it cannot be read."""
    try:
        cupy = cuda.require_cupy()
        free, _total = cupy.cuda.Device(device_index).mem_info
        return int(free)
    except Exception:
        return None


def buffer_limits(host_free: int | None, device_free: int | None, host_buffers: int) -> dict[str, int]:
    """The largest buffer each memory may give (``host``, ``device``), from free bytes and
    :data:`HOST_SHARE` / :data:`DEVICE_SHARE`; a memory whose free bytes are unknown is left out."""
    limits = {}
    if host_free is not None:
        limits["host"] = int(host_free * HOST_SHARE) // max(host_buffers, 1)
    if device_free is not None:
        limits["device"] = int(device_free * DEVICE_SHARE)
    return limits


# ------------------------------------------------------------------ copies


class CupyCopies:
    """One device buffer and one host buffer per memory kind (pinned: ``cupyx.empty_pinned``;
    pageable: plain numpy), each of ``max_bytes``, reused by every copy: a copy of n bytes
    moves the first n bytes. Allocating once keeps allocation out of the timed copies."""

    def __init__(self, device_index: int, max_bytes: int, kinds: tuple[str, ...]) -> None:
        cupy = cuda.require_cupy()
        import cupyx

        self.cupy = cupy
        self.device_index = device_index
        with cupy.cuda.Device(device_index):
            self.device_buffer = cupy.zeros(max_bytes, dtype=cupy.uint8)
        self.host: dict[str, np.ndarray] = {}
        if "pinned" in kinds:
            self.host["pinned"] = cupyx.empty_pinned(max_bytes, dtype=np.uint8)
            self.host["pinned"].fill(1)
        if "pageable" in kinds:
            self.host["pageable"] = np.ones(max_bytes, dtype=np.uint8)  # ones: every page touched, resident

    def copy_call(self, direction: str, kind: str, n_bytes: int) -> Callable[[], None]:
        """One copy of ``n_bytes`` in ``direction`` (h2d, d2h) from or to ``kind`` memory, on the current stream."""
        device, host = self.device_buffer[:n_bytes], self.host[kind][:n_bytes]
        if direction == "h2d":
            return lambda: device.set(host)
        return lambda: device.get(out=host, blocking=False)

    def time(self, call: Callable[[], None], policy: RepeatPolicy, check: Callable[[], None] | None) -> list[float]:
        """Seconds per ``call``, from CUDA events around it on device ``device_index``."""
        with self.cupy.cuda.Device(self.device_index):
            return time_gpu_stages([("copy", call)], policy, check)["total"]

    def round_trips_call(self, n_chunks: int, chunk_bytes: int) -> Callable[[], None]:
        """``n_chunks`` pinned chunks, each copied to the GPU and straight back (a round trip per chunk)."""
        pieces = [(self.device_buffer[i * chunk_bytes:(i + 1) * chunk_bytes],
                   self.host["pinned"][i * chunk_bytes:(i + 1) * chunk_bytes]) for i in range(n_chunks)]  # fmt: skip

        def call() -> None:
            for device, host in pieces:  # the views are made once: the loop times copies, not slicing
                device.set(host)
                device.get(out=host, blocking=False)

        return call

    def batched_call(self, n_chunks: int, chunk_bytes: int) -> Callable[[], None]:
        """All chunks as one copy to the GPU and one copy back."""
        to_gpu, from_gpu = self.copy_call("h2d", "pinned", n_chunks * chunk_bytes), self.copy_call(
            "d2h", "pinned", n_chunks * chunk_bytes)  # fmt: skip

        def call() -> None:
            to_gpu()
            from_gpu()

        return call

    def close(self) -> None:
        """Give the buffers back (CuPy keeps freed blocks in its pools until asked)."""
        self.host.clear()
        del self.device_buffer
        try:
            self.cupy.get_default_memory_pool().free_all_blocks()
            self.cupy.get_default_pinned_memory_pool().free_all_blocks()
        except Exception:  # a GPU in an error state: the process frees them on exit
            pass


def open_copies(device_index: int, max_bytes: int, kinds: tuple[str, ...]) -> CupyCopies:
    """The copy engine the lab uses (a test replaces this to fake a GPU)."""
    return CupyCopies(device_index, max_bytes, kinds)
