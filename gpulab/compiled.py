"""BabelStream's five operations as CPU loops compiled to machine code by Numba.

Each is one pass over memory, every element loaded into a register, worked on and stored once:
what a GPU kernel does, and what numexpr cannot do. numexpr fuses an expression block by block,
one pass per operator over a cache-sized block; ``b + s*c`` first streams ``c`` alone, then ``b``
alone. A CPU core keeps only so many memory requests in flight, and it keeps more of them busy
with three streams at once than with one, so on many CPUs the block passes stay 10-30% below
the compiled loop out of cache (``gpulab bench memory`` shows both, and a compiled two-pass
loop that lands where numexpr does: the gap is the memory system's, not Python's).

Numba is imported and the loops compiled when first asked for (about a second each, then
cached on disk), so importing gpulab stays fast and a machine without Numba loses only this form.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

OPERATIONS = ("copy", "mul", "add", "triad", "dot")


def import_error() -> str | None:
    """Why Numba cannot be imported here, as ``Type: message`` (None: it can)."""
    try:
        import numba  # noqa: F401
    except Exception as exc:  # ImportError, or a Numba built for another numpy
        return f"{type(exc).__name__}: {exc}"
    return None


def version() -> str:
    import numba

    return str(numba.__version__)


PARALLEL_FROM_PER_THREAD = 8192
"""Elements per thread below which a loop runs on the calling thread alone: waking the other
threads costs a few microseconds, more than a small loop takes (on a 2-core machine the parallel
loop overtakes the serial one at about 16,384 doubles per array), and every call would wait for
the slowest thread to be scheduled. OpenMP's ``if`` clause and numexpr make the same choice."""


def _sources() -> dict[str, Callable[..., Any]]:
    """The five loops as plain Python, written as a C programmer would (``prange`` splits the
    index range between the threads, one contiguous piece each; compiled serially it is ``range``)."""
    from numba import prange

    def copy(a: np.ndarray, c: np.ndarray) -> None:  # pragma: no cover - compiled
        for i in prange(a.shape[0]):
            c[i] = a[i]

    def mul(b: np.ndarray, c: np.ndarray, s: float) -> None:  # pragma: no cover - compiled
        for i in prange(c.shape[0]):
            b[i] = s * c[i]

    def add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:  # pragma: no cover - compiled
        for i in prange(a.shape[0]):
            c[i] = a[i] + b[i]

    def triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, s: float) -> None:  # pragma: no cover - compiled
        for i in prange(a.shape[0]):
            a[i] = b[i] + s * c[i]

    def dot(a: np.ndarray, b: np.ndarray) -> float:  # pragma: no cover - compiled
        total = 0.0
        for i in prange(a.shape[0]):
            total += a[i] * b[i]
        return total

    return {"copy": copy, "mul": mul, "add": add, "triad": triad, "dot": dot}


@cache
def _loop(operation: str, parallel: bool) -> Callable[..., Any]:
    """One loop, compiled when first called. The parallel ones are cached on disk; the serial
    ones are not (Numba's cache would key both by the same source, and they compile in a blink)."""
    from numba import njit

    # The dot's sum may be reassociated: otherwise every add waits for the one before, and in
    # cache the dot would be bound by that chain instead of by the bytes (BLAS's ddot reorders too).
    fastmath = {"reassoc", "nsz"} if operation == "dot" else False
    source = _sources()[operation]
    try:
        return njit(parallel=parallel, cache=parallel, fastmath=fastmath)(source)
    except RuntimeError:  # "cannot cache function ...: no locator available": nowhere writable to cache
        return njit(parallel=parallel, fastmath=fastmath)(source)


def set_threads(threads: int) -> int:
    """Run the loops on ``threads`` threads (at most Numba's pool); returns the count used.
    Numba keeps the count per calling thread, so call this on the thread that times the loops."""
    import numba

    pool = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at import, untyped
    used = max(1, min(threads, pool))
    numba.set_num_threads(used)
    return used


def call(operation: str, arrays: dict[str, np.ndarray], scalar: float) -> Callable[[], Any]:
    """A no-argument call of ``operation`` on BabelStream's arrays ``a``, ``b``, ``c`` (those
    it uses), compiled and run once here so the timed calls time the loop alone. It runs on the
    threads :func:`set_threads` gave this thread, or on this thread alone for a small array
    (:data:`PARALLEL_FROM_PER_THREAD`)."""
    import numba

    n = len(next(iter(arrays.values())))
    loop = _loop(operation, parallel=n >= PARALLEL_FROM_PER_THREAD * numba.get_num_threads())
    s = float(scalar)
    a, b, c = arrays.get("a"), arrays.get("b"), arrays.get("c")
    calls: dict[str, Callable[[], Any]] = {
        "copy": lambda: loop(a, c),
        "mul": lambda: loop(b, c, s),
        "add": lambda: loop(a, b, c),
        "triad": lambda: loop(a, b, c, s),
        "dot": lambda: loop(a, b),
    }
    chosen = calls[operation]
    chosen()  # compiles (or loads the cached machine code) for these array types
    return chosen
