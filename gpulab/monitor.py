"""A live monitor: a background thread samples CPU and GPU counters into a ring buffer.

:class:`Sampler` wakes ``hz`` times a second, reads per-core CPU utilization (psutil) and,
where NVML works, each GPU's utilization, memory, SM clock, power, temperature and PCIe
traffic, and stores one immutable :class:`Snapshot`. Readers (a GUI timer, a script) call
:meth:`Sampler.latest` or :meth:`Sampler.history` from any thread.

NVML's "GPU utilization" is the share of the last sample period during which *a kernel was
running*; it says nothing about how many SMs that kernel kept busy.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpulab import nvml
from gpulab.catalogue import Message, msg, render

__all__ = [
    "GPU_UTILIZATION_MEANING",
    "GPU_UTILIZATION_MESSAGE",
    "GpuSample",
    "Sampler",
    "Snapshot",
    "Source",
    "nvml_source",
    "read_cpu_percent",
]

GPU_UTILIZATION_MESSAGE = msg("monitor.gpu-utilization-meaning")
"""What NVML's GPU utilization means (and does not): render it in the reader's language."""
GPU_UTILIZATION_MEANING = render(GPU_UTILIZATION_MESSAGE)


@dataclass(frozen=True)
class GpuSample:
    """One GPU's counters at one moment; ``None`` where the GPU does not report a figure."""

    index: int
    name: str
    utilization_pct: float | None = None
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    sm_clock_mhz: float | None = None
    power_w: float | None = None
    temperature_c: float | None = None
    pcie_tx_bytes_s: float | None = None
    pcie_rx_bytes_s: float | None = None


@dataclass(frozen=True)
class Snapshot:
    """Everything sampled at one moment. ``time_s`` is ``time.monotonic()``."""

    time_s: float
    cpu_percent: tuple[float, ...]
    gpus: tuple[GpuSample, ...] | None = None


@dataclass(frozen=True)
class Source:
    """A counter source and whether this machine has it; ``reason`` says why not (in English),
    ``reason_message`` is the keyed message (``monitor.reason.*``) it was rendered from."""

    name: str
    available: bool
    reason: str = ""
    reason_message: Message | None = None


def _missing(name: str, reason: Message) -> Source:
    """An unavailable source with its reason as a message and in English."""
    return Source(name, False, render(reason), reason)


# ----------------------------------------------------------------- CPU


def read_cpu_percent() -> tuple[float, ...]:
    """Per-core utilization in percent since the previous call (psutil; the first call primes it)."""
    import psutil

    return tuple(float(v) for v in psutil.cpu_percent(interval=None, percpu=True))


def cpu_source() -> Source:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return _missing("cpu", msg("monitor.reason.no-psutil"))
    return Source("cpu", True)


# ----------------------------------------------------------------- NVML


# What each of gpulab.nvml's reason codes means to a reader of the monitor.
_REASON_KEYS = {nvml.NO_PYNVML: "monitor.reason.no-pynvml", nvml.NO_DRIVER: "monitor.reason.no-driver",
                nvml.INIT_FAILED: "monitor.reason.nvml-init"}  # fmt: skip


def _nvml_init() -> tuple[Any | None, Message | None]:
    """The initialised pynvml module (:mod:`gpulab.nvml`), or None and the reason as a message."""
    state = nvml.opened()
    if state.module is not None:
        return state.module, None
    key = _REASON_KEYS.get(state.reason, "monitor.reason.nvml-init")
    if key != "monitor.reason.nvml-init":
        return None, msg(key)  # NVML's own words add nothing to "no driver" ("... Not Found")
    return None, msg(key, detail=state.detail or "?")


def nvml_source() -> Source:
    """Whether NVML works here (it needs the NVIDIA driver) and at least one GPU is listed."""
    nv, reason = _nvml_init()
    if nv is None:
        return _missing("nvml", reason or msg("monitor.reason.nvml-init", detail="?"))
    try:
        count = int(nv.nvmlDeviceGetCount())
    except Exception as exc:
        return _missing("nvml", msg("monitor.reason.nvml-count", detail=str(exc)))
    if count == 0:
        return _missing("nvml", msg("monitor.reason.no-gpu"))
    return Source("nvml", True)


def _kb_per_s(value: Any) -> float | None:
    return None if value is None else float(value) * 1024


class NvmlReader:
    """Reads every GPU's counters through NVML; handles are looked up once."""

    def __init__(self, nv: Any) -> None:
        self.nv = nv
        count = int(nv.nvmlDeviceGetCount())
        self.handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        self.names = [nvml.text(self._ask("nvmlDeviceGetName", h)) or f"GPU {i}" for i, h in enumerate(self.handles)]

    def _ask(self, name: str, *args: Any) -> Any:
        return nvml.query(name, *args, module=self.nv)  # a counter a GPU does not support reads as None

    def _constant(self, name: str, default: int) -> int:
        return nvml.constant(name, default, module=self.nv)

    def read(self) -> tuple[GpuSample, ...]:
        return tuple(self._one(i, h) for i, h in enumerate(self.handles))

    def _pcie_bytes_s(self, handle: Any, counter: str, default: int) -> float | None:
        return _kb_per_s(self._ask("nvmlDeviceGetPcieThroughput", handle, self._constant(counter, default)))

    def _one(self, index: int, handle: Any) -> GpuSample:
        util = self._ask("nvmlDeviceGetUtilizationRates", handle)
        memory = self._ask("nvmlDeviceGetMemoryInfo", handle)
        power_mw = self._ask("nvmlDeviceGetPowerUsage", handle)
        return GpuSample(
            index=index,
            name=self.names[index],
            utilization_pct=float(util.gpu) if util is not None else None,
            memory_used_bytes=int(memory.used) if memory is not None else None,
            memory_total_bytes=int(memory.total) if memory is not None else None,
            sm_clock_mhz=self._ask("nvmlDeviceGetClockInfo", handle, self._constant("NVML_CLOCK_SM", 1)),
            power_w=power_mw / 1000 if power_mw is not None else None,
            temperature_c=self._ask("nvmlDeviceGetTemperature", handle, self._constant("NVML_TEMPERATURE_GPU", 0)),
            pcie_tx_bytes_s=self._pcie_bytes_s(handle, "NVML_PCIE_UTIL_TX_BYTES", 0),
            pcie_rx_bytes_s=self._pcie_bytes_s(handle, "NVML_PCIE_UTIL_RX_BYTES", 1),
        )


# ----------------------------------------------------------------- the sampler


class Sampler:
    """Samples at ``hz`` on a background thread into a ring of ``capacity`` snapshots.

    ``read_cpu`` and ``read_gpus`` may be replaced (tests, replays); by default they are psutil
    and NVML, and a GPU reader is used only when :func:`nvml_source` says NVML works.
    """

    def __init__(
        self,
        hz: float = 4.0,
        capacity: int = 240,
        read_cpu: Callable[[], tuple[float, ...]] | None = None,
        read_gpus: Callable[[], tuple[GpuSample, ...]] | None = None,
        use_nvml: bool = True,
    ) -> None:
        if not hz > 0:
            raise ValueError(f"hz must be positive, got {hz!r}")
        self.period_s = 1.0 / hz
        self._ring: deque[Snapshot] = deque(maxlen=capacity)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._cpu_source = cpu_source()
        self._read_cpu = read_cpu or (read_cpu_percent if self._cpu_source.available else (lambda: ()))
        self._gpu_source = _missing("nvml", msg("monitor.reason.switched-off"))
        self._read_gpus = read_gpus
        if read_gpus is not None:
            self._gpu_source = Source("nvml", True)
        elif use_nvml:
            self._gpu_source = nvml_source()

    def sources(self) -> tuple[Source, ...]:
        """Each counter source with whether it is available and, if not, why."""
        return (self._cpu_source, self._gpu_source)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start sampling (a no-op if already running)."""
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="gpulab-monitor", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop sampling and wait for the thread to end."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout_s)

    def latest(self) -> Snapshot | None:
        with self._lock:
            return self._ring[-1] if self._ring else None

    def history(self) -> tuple[Snapshot, ...]:
        """All snapshots in the ring, oldest first."""
        with self._lock:
            return tuple(self._ring)

    def sample_once(self) -> Snapshot:
        """Take one snapshot now and store it (the thread calls this every period)."""
        gpus = self._read_gpus() if self._read_gpus is not None else None
        snapshot = Snapshot(time.monotonic(), tuple(self._read_cpu()), gpus)
        with self._lock:
            self._ring.append(snapshot)
        return snapshot

    def _loop(self) -> None:
        if self._read_gpus is None and self._gpu_source.available:
            self._read_gpus = self._open_nvml()
        self._read_cpu()  # psutil's first reading is meaningless; it starts the interval
        next_due = time.monotonic() + self.period_s
        while not self._stop.wait(max(0.0, next_due - time.monotonic())):
            self.sample_once()
            next_due = max(next_due + self.period_s, time.monotonic())

    def _open_nvml(self) -> Callable[[], tuple[GpuSample, ...]] | None:
        nv, reason = _nvml_init()
        if nv is None:
            self._gpu_source = _missing("nvml", reason or msg("monitor.reason.nvml-init", detail="?"))
            return None
        return NvmlReader(nv).read
