"""The one door to NVML (nvidia-ml-py's ``pynvml``) for the device report, the monitor and the topology.

``pynvml`` is imported the first time something asks for NVML, never when this module is imported:
a lab that does not read counters does not pay for it, and a machine without it still starts.
``nvmlInit`` runs once for the whole process (under a lock, since the monitor's thread may be
first); :func:`close` calls ``nvmlShutdown`` and lets a later call start NVML again.

Nothing here raises. Missing ``pynvml``, a missing driver, a function an older ``pynvml`` lacks or a
query the GPU does not support all answer ``None``, the engine's "not available" (nvitop's ``NA``),
and :func:`opened` says in a reason code why NVML as a whole is not there.

Tests hand in a stand-in module with pynvml's functions by replacing :func:`library` (or
:func:`opened`, to give a reason too).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["INIT_FAILED", "NO_DRIVER", "NO_PYNVML", "Opened", "call", "close", "constant", "library", "opened",
           "query", "text"]

# The reason codes of :class:`Opened` (the monitor turns them into its monitor.reason.* messages).
NO_PYNVML, NO_DRIVER, INIT_FAILED = "no-pynvml", "no-driver", "init-failed"


@dataclass(frozen=True)
class Opened:
    """NVML after the first attempt to start it: the initialised module, or None with ``reason``
    (:data:`NO_PYNVML`, :data:`NO_DRIVER`, :data:`INIT_FAILED`) and NVML's own words in ``detail``."""

    module: Any | None
    reason: str = ""
    detail: str = ""
    initialised: bool = False  # True when nvmlInit ran here, so close() owes an nvmlShutdown


_lock = threading.Lock()
_state: Opened | None = None


def _start() -> Opened:
    try:
        import pynvml
    except ImportError:
        return Opened(None, NO_PYNVML)
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError and its subclasses, or a broken library's OSError
        detail = str(exc) or type(exc).__name__
        # pynvml raises NVMLError_LibraryNotFound when libnvidia-ml cannot be loaded: no driver here.
        missing = "LibraryNotFound" in type(exc).__name__ or "Library Not Found" in detail
        return Opened(None, NO_DRIVER if missing else INIT_FAILED, detail)
    atexit.register(close)  # NVML's own reference count wants one nvmlShutdown a successful nvmlInit
    return Opened(pynvml, initialised=True)


def opened() -> Opened:
    """NVML as this process has it, starting it on the first call (later calls reuse the answer)."""
    global _state
    with _lock:
        if _state is None:
            _state = _start()
        return _state


def library() -> Any | None:
    """The initialised ``pynvml`` module, or None without NVML (tests replace this with a stand-in)."""
    return opened().module


def close() -> None:
    """Shut NVML down if this module started it; the next call starts it afresh. Never raises."""
    global _state
    with _lock:
        state, _state = _state, None
    if state is not None and state.initialised:
        call(getattr(state.module, "nvmlShutdown", None))


def call(fn: Callable[..., Any] | None, *args: Any) -> Any:
    """``fn(*args)``, or None when ``fn`` is missing or fails (not supported, invalid, no permission)."""
    if fn is None:
        return None
    try:
        return fn(*args)
    except Exception:  # every NVMLError, and whatever a stand-in or a damaged driver raises
        return None


def query(name: str, *args: Any, module: Any | None = None) -> Any:
    """NVML's ``name(*args)`` on ``module`` (default: :func:`library`), or None (not available)."""
    nv = module if module is not None else library()
    return call(getattr(nv, name, None), *args) if nv is not None else None


def constant(name: str, default: int, module: Any | None = None) -> int:
    """A ``NVML_*`` constant of ``module`` (default: :func:`library`), or ``default`` where it lacks it."""
    nv = module if module is not None else library()
    value = getattr(nv, name, default)
    return value if isinstance(value, int) else default


def text(value: Any) -> str | None:
    """A string NVML returned (older pynvml versions return bytes), or None."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return str(value) if value is not None else None
