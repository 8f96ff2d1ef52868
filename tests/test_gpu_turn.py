"""tests/gpu_turn.py: two processes never hold the GPU's turn at once."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from tests.gpu_turn import fcntl, gpu_turn


def _hold(path: str, log: str, name: str) -> None:
    from pathlib import Path

    with gpu_turn(Path(path)):
        with open(log, "a") as out:
            out.write(f"{name} in {time.monotonic()}\n")
        time.sleep(0.3)  # long enough for the other process to try and wait
        with open(log, "a") as out:
            out.write(f"{name} out {time.monotonic()}\n")


@pytest.mark.skipif(fcntl is None, reason="no fcntl here (Windows): GPU tests share the GPU")
def test_two_processes_take_turns(tmp_path):
    lock, log = tmp_path / "gpu.lock", tmp_path / "log"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_hold, args=(str(lock), str(log), name)) for name in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    events = [line.split()[:2] for line in log.read_text().splitlines()]
    # in, out, in, out: the second holder came in only after the first went out
    assert [what for _name, what in events] == ["in", "out", "in", "out"]
    assert events[0][0] == events[1][0] and events[2][0] == events[3][0] != events[0][0]
