"""How many CPU threads a measurement uses, decided in one place for every lab.

The project's convention: as many threads as the BLAS runs numpy's matmul on (threadpoolctl's
view), else every core. A lab that times numexpr beside numpy gives numexpr the same count, so
the two race on equal terms, and puts numexpr's own setting back afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from gpulab.devices import blas_info


def cpu_threads() -> int:
    """The thread count a CPU measurement gets: the BLAS's threads, else every core."""
    try:
        blas = blas_info()
    except Exception:  # no threadpoolctl view: fall back to the cores
        blas = ()
    return max((b.threads for b in blas), default=os.cpu_count() or 1)


@contextmanager
def numexpr_threads(threads: int | None = None) -> Iterator[int]:
    """numexpr on ``threads`` (default :func:`cpu_threads`) inside the block, as it was after it."""
    import numexpr  # a C extension and its thread pool: only for the labs that time it

    wanted = threads or cpu_threads()
    before = numexpr.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numexpr.set_num_threads(before)
