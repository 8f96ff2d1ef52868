import threading
import time

import pytest

from gpulab.monitor import GPU_UTILIZATION_MEANING, GpuSample, Sampler, nvml_source


def wait_for(condition, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def test_sampler_produces_per_core_percentages_and_its_thread_ends_on_stop():
    sampler = Sampler(hz=20, use_nvml=False)
    sampler.start()
    try:
        wait_for(lambda: len(sampler.history()) >= 3)
    finally:
        sampler.stop()
    assert not sampler.running
    assert not any(t.name == "gpulab-monitor" for t in threading.enumerate())
    snapshot = sampler.latest()
    import psutil

    assert len(snapshot.cpu_percent) == psutil.cpu_count()
    assert all(0.0 <= v <= 100.0 for s in sampler.history() for v in s.cpu_percent)
    times = [s.time_s for s in sampler.history()]
    assert times == sorted(times)


def test_history_is_a_bounded_ring_keeping_the_newest():
    sampler = Sampler(hz=10, capacity=3, read_cpu=lambda: (1.0,), use_nvml=False)
    for _ in range(5):
        sampler.sample_once()
    assert len(sampler.history()) == 3
    assert sampler.latest() is sampler.history()[-1]


def test_an_injected_gpu_reader_fills_each_snapshot():
    gpu = GpuSample(0, "toy", utilization_pct=50.0, power_w=100.0)
    sampler = Sampler(read_cpu=lambda: (10.0, 20.0), read_gpus=lambda: (gpu,))
    assert sampler.sample_once().gpus == (gpu,)
    assert dict((s.name, s.available) for s in sampler.sources())["nvml"] is True


def test_stop_without_start_is_harmless_and_start_twice_keeps_one_thread():
    sampler = Sampler(hz=50, read_cpu=lambda: (0.0,), use_nvml=False)
    sampler.stop()
    sampler.start()
    sampler.start()
    try:
        assert sum(t.name == "gpulab-monitor" for t in threading.enumerate()) == 1
    finally:
        sampler.stop()


def test_a_zero_rate_is_refused():
    with pytest.raises(ValueError, match="hz"):
        Sampler(hz=0)


def test_without_a_driver_nvml_is_reported_unavailable_with_a_reason():
    from gpulab import nvml

    if nvml.library() is not None:
        pytest.skip("NVML works on this machine")
    source = nvml_source()
    assert not source.available and "NVML" in source.reason
    sampler = Sampler()
    assert dict((s.name, s.reason) for s in sampler.sources())["nvml"] == source.reason
    assert sampler.sample_once().gpus is None


def test_the_gpu_utilization_caveat_is_spelled_out():
    assert "kernel was running" in GPU_UTILIZATION_MEANING


@pytest.mark.gpu
def test_on_a_gpu_machine_nvml_fills_every_counter_it_supports():
    source = nvml_source()
    assert source.available, source.reason
    sampler = Sampler(hz=10)
    sampler.start()
    try:
        wait_for(lambda: any(s.gpus for s in sampler.history()))
    finally:
        sampler.stop()
    gpu = next(s for s in sampler.history() if s.gpus).gpus[0]
    assert gpu.name and gpu.memory_total_bytes and gpu.memory_total_bytes > 0
    assert gpu.utilization_pct is None or 0 <= gpu.utilization_pct <= 100
    assert gpu.sm_clock_mhz is None or gpu.sm_clock_mhz > 0
