"""Each finding of the vocabulary: a hand-built trace that has it is found with the right
evidence; a clean trace has none. Traces are Kineto JSON written as PyTorch Profiler writes it."""

from __future__ import annotations

import pytest

from gpulab.trace import FINDING_KEYS, diagnose, read_trace
from tests.gpulab.trace.builders import Kineto, busy_kernels

TINY = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >(int, float*)"
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
GEMM = "ampere_sgemm_128x64_nn"


def _diagnose(trace: Kineto, tmp_path, **kwargs):
    return diagnose(read_trace(trace.write(tmp_path / "trace.json")), **kwargs)


def _found(diagnosis, key):
    return next((f for f in diagnosis.findings if f.key == key), None)


def test_a_clean_trace_has_no_findings(tmp_path):
    trace = Kineto()
    end = busy_kernels(trace)
    trace.copy("h2d", "pinned", 10.0, 50.0, 1 << 20, stream=20)  # a prefetch under the kernels
    diagnosis = _diagnose(trace, tmp_path)
    assert diagnosis.findings == []
    shares = diagnosis.overall.shares()
    assert shares["compute_share"] == pytest.approx(2000 / (end - 1), rel=1e-3)
    assert sum(shares.values()) == pytest.approx(1.0)


def test_kernels_launched_late_are_launch_bound_and_the_late_launches_are_the_evidence(tmp_path):
    trace = Kineto()
    for i in range(30):  # 5 us kernels 20 us apart, each launched just before it starts: the host is the pace
        trace.kernel(GEMM, i * 25.0, 5.0)
    found = _found(_diagnose(trace, tmp_path), "launch_bound")
    assert found is not None and found.lab == "launch"
    assert found.evidence["share"] == pytest.approx(20 * 29 / (29 * 25 + 5), rel=1e-3)
    assert found.evidence["gaps"] == 29
    assert found.events and all(e["name"] == "cudaLaunchKernel" for e in found.events)


def test_a_swarm_of_tiny_kernels_is_small_kernels_but_not_launch_bound_when_queued_ahead(tmp_path):
    trace = Kineto()
    for i in range(100):
        trace.kernel(GEMM, i * 3.0, 2.5, launch_at=0.0)
    diagnosis = _diagnose(trace, tmp_path)
    found = _found(diagnosis, "small_kernels")
    assert found is not None and found.evidence["tiny_kernels"] == 100 and found.evidence["kernels"] == 100
    assert found.evidence["most_common"][0] == {"name": GEMM, "count": 100}
    assert _found(diagnosis, "launch_bound") is None


def test_long_kernels_are_not_small_kernels(tmp_path):
    trace = Kineto()
    busy_kernels(trace, dur=50.0)
    assert _found(_diagnose(trace, tmp_path), "small_kernels") is None


def test_a_large_pageable_copy_is_found_with_its_bytes_and_a_one_byte_readback_is_not(tmp_path):
    trace = Kineto()
    end = busy_kernels(trace)
    trace.copy("d2h", "pageable", end + 1, 2.0, 4, stream=7)  # loss.item(): pageable, four bytes
    assert _found(_diagnose(trace, tmp_path), "pageable_copies") is None
    trace.copy("h2d", "pageable", end + 10, 300.0, 8 << 20, stream=7)
    found = _found(_diagnose(trace, tmp_path), "pageable_copies")
    assert found is not None and found.lab == "transfer"
    assert found.evidence["bytes"] == (8 << 20) + 4 and found.evidence["copies"] == 2
    assert found.events[0]["memory"] == "pageable" and found.events[0]["bytes"] == 8 << 20


def test_copies_with_no_kernel_beside_them_are_on_the_critical_path(tmp_path):
    trace = Kineto()
    trace.copy("h2d", "pinned", 0.0, 300.0, 64 << 20, stream=7)
    busy_kernels(trace, start=301.0)
    found = _found(_diagnose(trace, tmp_path), "transfers_on_critical_path")
    assert found is not None and found.evidence["exposed_copy_ns"] == 300_000
    assert found.events[0]["direction"] == "h2d"


def test_a_copy_hidden_under_kernels_on_another_stream_is_neither_exposed_nor_unoverlapped(tmp_path):
    trace = Kineto()
    busy_kernels(trace)
    trace.copy("h2d", "pinned", 100.0, 300.0, 64 << 20, stream=20)
    diagnosis = _diagnose(trace, tmp_path)
    assert _found(diagnosis, "transfers_on_critical_path") is None and _found(diagnosis, "no_overlap") is None
    assert diagnosis.overall.figures()["copy_overlap_share"] == pytest.approx(297 / 300)  # three 1 us gaps


def test_the_gpu_idle_inside_the_data_loader_is_data_loading(tmp_path):
    trace = Kineto()
    end = busy_kernels(trace, count=5)
    trace.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", end, 400.0)
    busy_kernels(trace, start=end + 420.0, count=5)
    diagnosis = _diagnose(trace, tmp_path)
    found = _found(diagnosis, "data_loading")
    assert found is not None and found.lab == "transfer"
    assert found.evidence["idle_waiting_for_data_ns"] == 400_000
    assert found.events[0]["name"].startswith("enumerate(DataLoader)")


@pytest.mark.parametrize(("streams", "memory", "reason"), [
    ((7, 7), "pinned", "streams.diagnosis.one-stream"),
    ((7, 20), "pageable", "streams.diagnosis.pageable"),
])  # fmt: skip
def test_copies_and_kernels_that_never_overlap_say_why_in_the_streams_labs_words(tmp_path, streams, memory, reason):
    trace = Kineto()
    t = 0.0
    for _ in range(4):  # copy in, compute, copy in, compute: never together
        trace.copy("h2d", memory, t, 100.0, 16 << 20, stream=streams[1])
        busy_kernels(trace, start=t + 101, count=2, stream=streams[0])
        t += 101 + 202
    found = _found(_diagnose(trace, tmp_path), "no_overlap")
    assert found is not None and found.evidence["reason"] == reason
    assert found.message.args["reason"].key == reason


def test_collectives_after_the_compute_are_not_overlapped_and_under_it_they_are(tmp_path):
    trace = Kineto()
    end = busy_kernels(trace, count=10)
    trace.kernel(NCCL, end, 400.0, stream=40, launch_at=end - 300)
    found = _found(_diagnose(trace, tmp_path), "comm_not_overlapped")
    assert found is not None and found.evidence["overlapped_share"] == 0.0 and found.lab == "collectives"
    assert found.events[0]["name"] == NCCL
    hidden = Kineto()
    busy_kernels(hidden, count=10)
    hidden.kernel(NCCL, 100.0, 400.0, stream=40, launch_at=50.0)
    diagnosis = _diagnose(hidden, tmp_path)
    assert _found(diagnosis, "comm_not_overlapped") is None
    assert diagnosis.overall.figures()["comm_overlap_share"] == pytest.approx(396 / 400)  # four 1 us gaps


def test_element_wise_kernels_are_memory_bound_by_their_names_and_the_evidence_says_so(tmp_path):
    trace = Kineto()
    busy_kernels(trace, count=10, name=TINY, dur=80.0)
    busy_kernels(trace, start=1000.0, count=5, name=GEMM)
    found = _found(_diagnose(trace, tmp_path), "memory_bound")
    assert found is not None and found.evidence["inferred_from"] == "kernel names" and found.lab == "roofline"
    assert found.evidence["top"][0]["name"] == TINY
    gemm_only = Kineto()
    busy_kernels(gemm_only)
    assert _found(_diagnose(gemm_only, tmp_path), "memory_bound") is None


def test_idle_after_a_device_synchronize_is_a_sync_stall(tmp_path):
    trace = Kineto()
    t = 0.0
    for _ in range(5):
        end = busy_kernels(trace, start=t, count=3)
        trace.runtime("cudaDeviceSynchronize", end - 200, 205.0)  # returns 5 us after the GPU ran dry
        t = end + 100.0  # the next launch comes only after the host has been released
    diagnosis = _diagnose(trace, tmp_path)
    found = _found(diagnosis, "sync_stalls")
    assert found is not None and found.evidence["sync_calls"] == 5
    assert found.evidence["idle_after_sync_ns"] == 4 * 101_000
    assert found.events[0]["name"] == "cudaDeviceSynchronize"


def test_every_key_of_the_vocabulary_is_tested_above():
    source = open(__file__, encoding="utf-8").read()
    assert [key for key in FINDING_KEYS if f'"{key}"' not in source] == []
