"""GPU tests take turns on the GPU, whichever test worker runs them.

pytest runs on every core (``-n auto``) and there is one GPU: on an H200, 16 workers sharing it
made a waited kernel launch read 1039-1874 µs instead of 11, so whatever a GPU test timed was the
other workers' load. pytest-xdist's ``--dist loadgroup`` would send them all to one worker, but with
pytest 9.2 it groups nothing (xdist 3.8 renames ``item._nodeid``; pytest 9.2 reads ``item._id``).
So each GPU test holds an exclusive lock on one file while it runs (set-up, call and tear-down):
the other workers' GPU tests wait their turn, the CPU tests go on beside it.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows has no fcntl: there the GPU tests share the GPU
    fcntl = None  # type: ignore[assignment]

LOCK_PATH = Path(tempfile.gettempdir()) / "gpulab-pytest-gpu.lock"


@contextlib.contextmanager
def gpu_turn(path: Path = LOCK_PATH) -> Iterator[None]:
    """Hold the GPU for this process until the block ends (waits for another holder first)."""
    if fcntl is None:
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
