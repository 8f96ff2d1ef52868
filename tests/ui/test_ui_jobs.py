"""The job runner: off the GUI thread, one job at a time per device, cancellable, safe."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from gpulab.experiments import Cancelled, PartialPoint, Progress
from gpulab.results import Point, Provenance, Result, Series
from ui.jobs import CANCELLED, DONE, FAILED, JobRunner, plain_error
from ui.notify import ERROR, Notifier


def _result(name: str = "tiny") -> Result:
    return Result(name, {}, (Series("s", Provenance("emulated", "test"), "x", "", "y", ""),))


def tiny(ctx, steps: int = 3, delay_s: float = 0.0, log: list | None = None):
    thread = threading.get_ident()
    for i in range(steps):
        time.sleep(delay_s)
        if log is not None:
            log.append(thread)
        yield Progress((i + 1) / steps, f"step {i}")
        yield PartialPoint("s", Point(i, i * i))
    return _result()


@pytest.fixture
def runner(qapp):
    runner = JobRunner(Notifier())
    yield runner
    runner.shutdown()


def _wait_over(qtbot, *jobs, timeout=5000) -> None:
    qtbot.waitUntil(lambda: all(job.is_over for job in jobs), timeout=timeout)


def test_a_tiny_experiment_runs_to_completion_off_the_gui_thread(qtbot, runner):
    worker_threads: list[int] = []
    points, progress = [], []
    job = runner.submit("tiny", "cpu", lambda ctx: tiny(ctx, log=worker_threads))
    job.partial.connect(lambda series, point: points.append((series, point.x, point.y)))
    job.progress.connect(lambda fraction, message: progress.append(fraction))
    with qtbot.waitSignal(job.finished, timeout=5000) as finished:
        pass
    assert isinstance(finished.args[0], Result)
    assert job.state == DONE
    assert points == [("s", 0, 0), ("s", 1, 1), ("s", 2, 4)]
    assert progress[-1] == pytest.approx(1.0)
    assert worker_threads and threading.get_ident() not in worker_threads


def test_cancel_stops_a_running_job_between_yields_and_runs_its_finally(qtbot, runner):
    steps_done, closed = [], threading.Event()

    def endless(ctx):
        try:
            for i in range(10_000):
                time.sleep(0.01)
                steps_done.append(i)
                yield Progress(0.0, f"step {i}")
        finally:
            closed.set()
        return _result()

    job = runner.submit("endless", "cpu", endless)
    finished = []
    job.finished.connect(finished.append)
    with qtbot.waitSignal(job.progress, timeout=5000):
        pass
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
    assert job.state == CANCELLED
    assert closed.is_set()
    assert len(steps_done) < 10_000
    assert finished == []
    qtbot.waitUntil(runner.is_idle, timeout=2000)


def test_cancelling_a_queued_job_drops_it_before_it_starts(qtbot, runner):
    started = []

    def records_its_start(ctx):
        started.append(ctx)
        return (yield from tiny(ctx))

    first = runner.submit("first", "cpu", lambda ctx: tiny(ctx, steps=5, delay_s=0.02))
    second = runner.submit("second", "cpu", records_its_start)
    assert runner.pending("cpu") == 1
    with qtbot.waitSignal(second.cancelled, timeout=1000):
        second.cancel()
    _wait_over(qtbot, first)
    assert started == []
    assert first.state == DONE and second.state == CANCELLED


def test_an_experiment_raising_cancelled_counts_as_cancelled_not_failed(qtbot, runner):
    def gives_up(ctx):
        yield Progress(0.5, "half")
        raise Cancelled("cancelled")

    job = runner.submit("gives up", "cpu", gives_up)
    _wait_over(qtbot, job)
    assert job.state == CANCELLED
    assert runner.notifier.history == []


def test_an_exception_in_a_job_reaches_the_notification_sink_and_the_runner_goes_on(qtbot, runner):
    def broken(ctx):
        yield Progress(0.1, "about to fail")
        raise ValueError("the kernel exploded")

    messages = []
    runner.notifier.message.connect(lambda level, text: messages.append((level, text)))
    failures = []
    job = runner.submit("Broken lab", "cpu", broken)
    job.failed.connect(failures.append)
    _wait_over(qtbot, job)
    assert job.state == FAILED
    assert [plain_error(exc) for exc in failures] == ["the kernel exploded"]
    assert messages == [(ERROR, "Broken lab failed: the kernel exploded")]
    after = runner.submit("tiny", "cpu", tiny)
    _wait_over(qtbot, after)
    assert after.state == DONE


def test_a_value_that_is_not_a_result_arrives_in_finished_as_it_was_returned(qtbot, runner):
    session = object()  # e.g. a warp session with its traced steps

    def returns_a_session(ctx):
        yield Progress(1.0, "done")
        return session

    job = runner.submit("Session", "cpu", returns_a_session)
    with qtbot.waitSignal(job.finished, timeout=5000) as finished:
        pass
    assert finished.args[0] is session
    assert job.state == DONE
    assert runner.notifier.history == []


def test_a_job_submitted_expecting_a_result_that_returns_something_else_is_reported_as_failed(qtbot, runner):
    def no_result(ctx):
        yield Progress(1.0, "done")
        return 42

    job = runner.submit("No result", "cpu", no_result, Result)
    _wait_over(qtbot, job)
    assert job.state == FAILED
    assert "without a result" in runner.notifier.history[-1][1]


def test_failed_carries_the_exception_instance_the_job_raised(qtbot, runner):
    raised = KeyError("no such buffer")

    def broken(ctx):
        yield Progress(0.1, "about to fail")
        raise raised

    job = runner.submit("Broken", "cpu", broken)
    with qtbot.waitSignal(job.failed, timeout=5000) as failed:
        pass
    assert failed.args[0] is raised
    assert job.state == FAILED


def test_the_notifier_still_gets_one_plain_line_when_the_exception_has_several(qtbot, runner):
    def verbose(ctx):
        yield Progress(0.1, "about to fail")
        raise ValueError("the launch failed\n  at line 7\n  in kernel k")

    job = runner.submit("Verbose lab", "cpu", verbose)
    _wait_over(qtbot, job)
    assert job.state == FAILED
    assert runner.notifier.history[-1][1] == "Verbose lab failed: the launch failed"


def test_a_runtime_error_from_a_job_fails_it_with_that_exception_and_a_message(qtbot, runner):
    # CuPy's CUDA errors are RuntimeErrors, which superqt's GeneratorWorker takes for its own stop.
    raised = RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")

    def faulting(ctx):
        yield Progress(0.1, "launching")
        raise raised

    failures = []
    job = runner.submit("GPU lab", "cuda:0", faulting)
    job.failed.connect(failures.append)
    _wait_over(qtbot, job)
    assert job.state == FAILED
    assert len(failures) == 1 and failures[0] is raised
    assert runner.notifier.history[-1][1] == (
        "GPU lab failed: cudaErrorIllegalAddress: an illegal memory access was encountered"
    )
    after = runner.submit("tiny", "cuda:0", tiny)  # the device's queue goes on
    _wait_over(qtbot, after)
    assert after.state == DONE


def _overlaps(spans: list[tuple[float, float]]) -> bool:
    spans = sorted(spans)
    return any(later[0] < earlier[1] for earlier, later in itertools.pairwise(spans))


def test_jobs_on_the_same_device_never_overlap(qtbot, runner):
    spans: list[tuple[float, float]] = []

    def timed(ctx):
        start = time.perf_counter()
        yield from tiny(ctx, steps=3, delay_s=0.01)
        spans.append((start, time.perf_counter()))
        return _result()

    jobs = [runner.submit(f"job {i}", "cpu", timed) for i in range(4)]
    assert runner.busy_devices() == ["cpu"] and runner.pending("cpu") == 3
    _wait_over(qtbot, *jobs)
    assert [job.state for job in jobs] == [DONE] * 4
    assert len(spans) == 4 and not _overlaps(spans)


def test_jobs_on_different_devices_may_run_side_by_side(qtbot, runner):
    both_running = threading.Barrier(2, timeout=5)

    def meets_the_other(ctx):
        both_running.wait()  # deadlocks (and times out) if the devices were serialized
        yield Progress(1.0, "met")
        return _result()

    jobs = [runner.submit("a", "cpu", meets_the_other), runner.submit("b", "cuda:0", meets_the_other)]
    _wait_over(qtbot, *jobs)
    assert [job.state for job in jobs] == [DONE, DONE]


def test_the_context_names_the_cuda_device_of_the_queue(qtbot, runner):
    seen = []

    def record(ctx):
        seen.append(ctx.device_index)
        yield Progress(1.0, "")
        return _result()

    jobs = [runner.submit("gpu", "cuda:1", record), runner.submit("cpu", "cpu", record)]
    _wait_over(qtbot, *jobs)
    assert sorted(seen, key=str) == [1, None]


def test_shutdown_cancels_running_and_queued_jobs_and_waits_for_the_workers(qtbot, runner):
    def slow(ctx):
        for _ in range(1000):
            time.sleep(0.01)
            yield Progress(0.0, "")
        return _result()

    running = runner.submit("slow", "cpu", slow)
    queued = runner.submit("queued", "cpu", slow)
    with qtbot.waitSignal(running.progress, timeout=5000):
        pass
    assert runner.shutdown(timeout_ms=5000)
    assert running.state == CANCELLED and queued.state == CANCELLED
    late = runner.submit("late", "cpu", slow)
    assert late.state == CANCELLED
