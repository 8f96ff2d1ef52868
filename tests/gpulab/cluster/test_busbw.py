"""busbw factors and message sizes against nccl-tests' table, and the checked rank inputs."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab.cluster import busbw, patterns

# nccl-tests, src/*.cu, *GetBw: busbw / algbw, and S in units of count × 4 bytes (n = ranks).
TABLE = {
    "allreduce": (lambda n: 2 * (n - 1) / n, lambda n: 1),
    "allgather": (lambda n: (n - 1) / n, lambda n: n),
    "reducescatter": (lambda n: (n - 1) / n, lambda n: n),
    "alltoall": (lambda n: (n - 1) / n, lambda n: n),
    "broadcast": (lambda n: 1.0, lambda n: 1),
    "reduce": (lambda n: 1.0, lambda n: 1),
}


@pytest.mark.parametrize("collective", busbw.COLLECTIVES)
@pytest.mark.parametrize("ranks", [1, 2, 3, 8, 16384])
def test_bus_factors_and_message_sizes_follow_the_nccl_tests_table(collective, ranks):
    factor, chunks = TABLE[collective]
    assert busbw.bus_factor(collective, ranks) == pytest.approx(factor(ranks))
    plan = busbw.layout(collective, 1 << 20, ranks)
    assert plan.message_bytes == plan.count * 4 * chunks(ranks)


def test_allgather_and_reducescatter_count_the_whole_buffer_of_n_chunks():
    gather = busbw.layout("allgather", 1 << 20, 4)
    scatter = busbw.layout("reducescatter", 1 << 20, 4)
    assert (gather.count, gather.send_elements, gather.recv_elements) == (65536, 65536, 262144)
    assert (scatter.send_elements, scatter.recv_elements, scatter.message_bytes) == (262144, 65536, 1 << 20)


def test_algbw_is_s_over_t_and_busbw_applies_the_factor():
    assert busbw.algbw_gb_s(2e9, 2.0) == pytest.approx(1.0)
    assert busbw.busbw_gb_s("allreduce", 2e9, 2.0, 4) == pytest.approx(1.5)
    assert busbw.busbw_gb_s("broadcast", 2e9, 2.0, 4) == pytest.approx(1.0)


def test_tiny_messages_round_up_to_one_element_per_chunk():
    assert busbw.layout("allgather", 8, 4).message_bytes == 16
    assert busbw.layout("allreduce", 8, 4).message_bytes == 8
    assert busbw.layout("allreduce", 6, 2).count == 1


def test_unknown_collectives_and_rank_counts_are_refused():
    with pytest.raises(ValueError, match="allreduce"):
        busbw.bus_factor("allsum", 2)
    with pytest.raises(ValueError, match="at least 1"):
        busbw.layout("allreduce", 8, 0)


def _simulated(collective: str, ranks: int, count_bytes: int) -> list[np.ndarray]:
    """What each rank receives, computed with numpy the way the collective defines it."""
    plan = busbw.layout(collective, count_bytes, ranks)
    sends = [patterns.send_buffer(np, plan, r) for r in range(ranks)]
    c = plan.count
    if collective == "allreduce":
        return [sum(sends) for _ in range(ranks)]
    if collective == "broadcast":
        return [sends[0].copy() for _ in range(ranks)]
    if collective == "reduce":
        return [sum(sends) if r == 0 else np.zeros(c, np.float32) for r in range(ranks)]
    if collective == "allgather":
        return [np.concatenate(sends) for _ in range(ranks)]
    if collective == "reducescatter":
        return [sum(sends)[r * c:(r + 1) * c] for r in range(ranks)]
    return [np.concatenate([sends[j][r * c:(r + 1) * c] for j in range(ranks)]) for r in range(ranks)]


@pytest.mark.parametrize("collective", busbw.COLLECTIVES)
def test_the_check_finds_no_wrong_element_in_a_correct_result_and_counts_each_wrong_one(collective):
    ranks = 3
    plan = busbw.layout(collective, 240, ranks)
    received = _simulated(collective, ranks, 240)
    assert [patterns.numpy_wrong(plan, r, received[r]) for r in range(ranks)] == [0, 0, 0]
    spoiled = received[0].copy()
    spoiled[:2] += 1
    assert patterns.numpy_wrong(plan, 0, spoiled) == 2
