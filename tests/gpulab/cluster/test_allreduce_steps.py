"""Ring and tree AllReduce step by step: right sums on random data for every n, and the hand counts of bytes."""

from __future__ import annotations

import numpy as np
import pytest

from gpulab.cluster import allreduce_steps as ar

ALL_RANKS = range(2, 17)


def vectors(n: int, chunk_elements: int = 3, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + n).standard_normal((n, n * chunk_elements)).astype(np.float32)


@pytest.mark.parametrize("algorithm", ar.ALGORITHMS)
@pytest.mark.parametrize("n", ALL_RANKS)
def test_every_rank_ends_with_the_plain_sum_for_every_n(algorithm, n):
    data = vectors(n)
    run = ar.steps(algorithm, data)
    check = ar.verify(data, run[-1])
    assert check.ok and check.ranks_agree
    for buffer in run[-1].buffers:
        np.testing.assert_allclose(buffer, data.sum(axis=0), rtol=1e-5, atol=1e-5)
    assert all(mask == (1 << n) - 1 for row in run[-1].contributors for mask in row)


@pytest.mark.parametrize("algorithm", ar.ALGORITHMS)
def test_uneven_vectors_are_cut_into_unequal_chunks_and_still_summed(algorithm):
    data = np.random.default_rng(5).standard_normal((5, 13)).astype(np.float32)  # 13 values, 5 chunks
    assert [stop - start for start, stop in ar.chunk_bounds(13, 5)] == [3, 3, 3, 2, 2]
    assert ar.verify(data, ar.steps(algorithm, data)[-1]).ok


@pytest.mark.parametrize("n", ALL_RANKS)
def test_ring_takes_2_n_minus_1_steps_each_rank_sending_s_over_n_to_its_right_neighbour(n):
    data = vectors(n, chunk_elements=2)
    message_bytes = data.size // n * 4
    run = ar.steps("ring", data)
    assert len(run) - 1 == ar.step_count("ring", n) == 2 * (n - 1)
    phases = [step.phase for step in run[1:]]
    assert phases == ["reduce-scatter"] * (n - 1) + ["all-gather"] * (n - 1)
    for step in run[1:]:
        assert ar.link_bytes(step) == {(r, (r + 1) % n): message_bytes // n for r in range(n)}
    assert ar.bytes_sent_per_rank(run) == [2 * (n - 1) * message_bytes // n] * n
    assert ar.bytes_sent_per_rank(run)[0] / message_bytes == pytest.approx(ar.busbw_factor(n))


def test_ring_step_records_the_chunk_and_the_values_sent():
    data = vectors(4, chunk_elements=2)
    run = ar.steps("ring", data)
    first = run[1].transfers[0]
    assert (first.src, first.dst, first.chunks, first.bytes) == (0, 1, (0,), 8)
    np.testing.assert_array_equal(first.values, data[0, 0:2])
    # after step 1 rank 1's chunk 0 sums ranks 0 and 1; after reduce-scatter rank r owns chunk r+1
    assert run[1].contributors[1][0] == 0b11
    np.testing.assert_allclose(run[1].buffers[1][0:2], data[0, 0:2] + data[1, 0:2])
    owned = run[3].contributors
    assert [owned[r][(r + 1) % 4] for r in range(4)] == [0b1111] * 4


@pytest.mark.parametrize("n", [2, 3, 5, 6, 7, 8, 11, 16])
def test_tree_reduces_up_then_broadcasts_down_whole_vectors(n):
    data = vectors(n)
    message_bytes = data.shape[1] * 4
    run = ar.steps("tree", data)
    depth = ar.tree_depth(n)
    assert depth == int(np.floor(np.log2(n)))
    assert [s.phase for s in run[1:]] == ["reduce"] * depth + ["broadcast"] * depth
    for step in run[1:]:
        for t in step.transfers:
            assert t.bytes == message_bytes and t.chunks == tuple(range(n))
            parent = ar.tree_parent(t.src if step.phase == "reduce" else t.dst)
            assert parent == (t.dst if step.phase == "reduce" else t.src)
    # every rank but the root sends up once; every rank but the root receives once coming down
    links = ar.total_link_bytes(run)
    assert links == {
        **{(r, (r - 1) // 2): message_bytes for r in range(1, n)},
        **{((r - 1) // 2, r): message_bytes for r in range(1, n)},
    }


def test_the_link_model_makes_ring_busbw_the_link_rate_and_algbw_fall():
    link = 100e9
    previous = None
    for n in ALL_RANKS:
        data = vectors(n, chunk_elements=1)
        message_bytes = data.shape[1] * 4
        seconds = ar.model_seconds(ar.steps("ring", data), link)
        assert seconds == pytest.approx(ar.ring_seconds(message_bytes, n, link))
        algbw = ar.algbw(message_bytes, seconds)
        assert ar.busbw(algbw, n) == pytest.approx(link)
        assert algbw == pytest.approx(link * n / (2 * (n - 1)))
        assert previous is None or algbw <= previous
        previous = algbw


def test_a_step_survives_its_json_form():
    run = ar.steps("tree", vectors(6))
    for step in run:
        back = ar.step_from_json(ar.step_to_json(step))
        assert (back.index, back.phase, back.contributors) == (step.index, step.phase, step.contributors)
        assert all(np.array_equal(a, b) for a, b in zip(back.buffers, step.buffers, strict=True))
        assert [(t.src, t.dst, t.chunks, t.bytes) for t in back.transfers] == [
            (t.src, t.dst, t.chunks, t.bytes) for t in step.transfers
        ]
    with pytest.raises(ValueError, match="not a step record"):
        ar.step_from_json({"index": 1})


def test_bad_data_and_unknown_algorithms_are_refused():
    with pytest.raises(ValueError, match="ranks >= 2"):
        ar.steps("ring", np.zeros((1, 4), np.float32))
    with pytest.raises(ValueError, match="algorithm"):
        ar.steps("butterfly", vectors(4))
