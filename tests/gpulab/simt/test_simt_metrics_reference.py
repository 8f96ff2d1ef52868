"""The vectorized sector and bank arithmetic agrees with a plain per-warp reference."""

import numpy as np
import pytest

from gpulab.simt import metrics


def _reference_sectors(lanes, addresses):
    per_warp = {}
    for lane, addr in zip(lanes.tolist(), addresses.tolist(), strict=True):
        per_warp.setdefault(lane // 32, set()).add(addr // 32)
    return len(per_warp), sum(len(s) for s in per_warp.values())


def _reference_wavefronts(lanes, addresses, itemsize):
    per_warp = {}
    for lane, addr in zip(lanes.tolist(), addresses.tolist(), strict=True):
        words = per_warp.setdefault(lane // 32, set())
        for w in range(max(1, itemsize // 4)):
            words.add(addr // 4 + w)
    total = 0
    for words in per_warp.values():
        banks = {}
        for word in words:
            banks[word % 32] = banks.get(word % 32, 0) + 1
        total += max(banks.values())
    return len(per_warp), total


def _cases():
    rng = np.random.default_rng(7)
    for case in range(60):
        nwarps = int(rng.integers(1, 9))
        periodic = case % 2 == 0
        if periodic:  # the same active positions and relative pattern in every warp
            pos = np.flatnonzero(rng.random(32) < rng.random()) if case % 4 else np.arange(32)
            if len(pos) == 0:
                pos = np.array([3])
            lanes = (np.arange(nwarps)[:, None] * 32 + pos[None, :]).reshape(-1)
            stride = int(rng.choice([0, 1, 2, 4, 8, 33, 128]))
            rel = pos * stride * 4
            base = rng.integers(0, 1000, nwarps) * 128 if case % 3 else np.zeros(nwarps, int)
            addresses = (base[:, None] + rel[None, :]).reshape(-1)
        else:
            lanes = np.flatnonzero(rng.random(nwarps * 32) < 0.6)
            if len(lanes) == 0:
                lanes = np.array([0])
            addresses = rng.integers(0, 4096, len(lanes)) * 4
        yield lanes.astype(np.int64), (addresses + 0x7F00_0000_0000).astype(np.int64)


@pytest.mark.parametrize("lanes, addresses", list(_cases()))
def test_sector_and_wavefront_counts_match_the_reference(lanes, addresses):
    assert metrics.global_transactions(lanes, addresses) == _reference_sectors(lanes, addresses)
    for itemsize in (4, 8):
        aligned = addresses - addresses % itemsize
        assert metrics.shared_transactions(lanes, aligned, itemsize) == \
            _reference_wavefronts(lanes, aligned, itemsize)


def test_uniform_rows_recognizes_periodic_partial_warps_only():
    lanes = np.array([0, 4, 8, 32, 36, 40], dtype=np.int64)
    addresses = np.array([100, 116, 132, 900, 916, 932], dtype=np.int64)
    rows = metrics.uniform_rows(lanes, addresses)
    assert rows is not None and rows.shape == (2, 3)
    assert metrics.uniform_rows(lanes, addresses + np.array([0, 0, 0, 0, 0, 4])) is None
    assert metrics.uniform_rows(np.array([0, 4, 8, 32, 36, 44]), addresses) is None
