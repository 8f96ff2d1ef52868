"""Per-warp memory-transaction arithmetic, vectorized over all warps of one access.

Global memory: a request is one warp executing one load/store instruction with at least
one active lane; its transactions are the distinct 32-byte sectors its active lanes
touch. Shared memory: 32 banks of 4 bytes; a request takes as many wavefronts as the
largest number of *distinct* 4-byte words that map to any one bank (lanes reading the
same word are served by one broadcast).

Input everywhere: ``lanes`` = sorted global lane ids of the active lanes (warp = lane // 32)
and a parallel array of byte addresses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
_SENTINEL = np.iinfo(np.int64).max


def warp_rows(lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row number of each active lane in a compact (warps, 32) matrix, and the warp ids."""
    warps = lanes >> 5
    if len(warps) == 0:
        return warps, warps
    starts = np.empty(len(warps), dtype=bool)
    starts[0] = True
    np.not_equal(warps[1:], warps[:-1], out=starts[1:])
    rows = np.cumsum(starts) - 1
    return rows, warps[starts]


def lane_matrix(lanes: np.ndarray, values: np.ndarray, width: int = 1) -> np.ndarray:
    """(warps, 32*width) matrix of ``values`` (shape (n, width)), sentinel where inactive."""
    count = len(lanes)
    if count % 32 == 0 and count and lanes[0] % 32 == 0 and lanes[-1] - lanes[0] == count - 1:
        return values.reshape(count // 32, 32 * width)
    rows, warp_ids = warp_rows(lanes)
    n = len(warp_ids)
    values = values.reshape(len(lanes), width)
    if len(lanes) == n * 32:
        return values.reshape(n, 32 * width)
    mat = np.full((n, 32, width), _SENTINEL, dtype=np.int64)
    mat[rows, lanes & 31] = values
    return mat.reshape(n, 32 * width)


def _distinct_per_row(mat: np.ndarray) -> np.ndarray:
    srt = np.sort(mat, axis=1)
    new = srt[:, 1:] != srt[:, :-1]
    new &= srt[:, 1:] != _SENTINEL
    return (srt[:, 0] != _SENTINEL) + new.sum(axis=1)


_CHUNK_ROWS = 4096


def _rows_share_pattern(mat: np.ndarray) -> bool:
    """Is every row the first row plus a constant? (in chunks: small, reused temporaries;
    each chunk is compared with the first row moved to its rows' starts, two passes)"""
    first = mat[0] - mat[0, 0]
    for start in range(0, mat.shape[0], _CHUNK_ROWS):
        chunk = mat[start:start + _CHUNK_ROWS]
        if not (chunk == chunk[:, :1] + first).all():
            return False
    return True


_SECTOR_CACHE: dict[bytes, int] = {}


def _sectors_of_one_row(addresses: np.ndarray) -> int:
    """Distinct sectors of one warp's addresses, remembered by the pattern moved to the first
    sector (a move by whole sectors touches as many)."""
    base = int(addresses[0]) & ~(SECTOR_BYTES - 1)
    key = (addresses - base).tobytes()
    return _remembered(_SECTOR_CACHE, key, lambda: int(_distinct_per_row(addresses.reshape(1, -1) >> 5)[0]))


def sectors_per_warp(lanes: np.ndarray, addresses: np.ndarray) -> np.ndarray:
    """Distinct 32-byte sectors touched by each warp (one entry per warp with active lanes)."""
    return _distinct_per_row(lane_matrix(lanes, addresses >> 5))


def uniform_rows(lanes: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """``values`` as a (warps, k) matrix when every warp with active lanes has the same k
    active lane positions and the same relative value pattern (row = row 0 + constant);
    None otherwise. Then every warp costs the same, and one row tells the cost."""
    count = len(lanes)
    if count == 0:
        return None
    if count % 32 == 0 and lanes[0] % 32 == 0 and lanes[-1] - lanes[0] == count - 1:
        rows = values.reshape(count // 32, -1)  # whole warps, all lanes active
        return rows if _rows_share_pattern(rows) else None
    warps = lanes >> 5
    nrows = int(np.count_nonzero(warps[1:] != warps[:-1])) + 1
    if count % nrows:
        return None
    k = count // nrows
    by_warp = warps.reshape(nrows, k)
    if not np.array_equal(by_warp[:, 0], by_warp[:, -1]):
        return None
    positions = (lanes & 31).reshape(nrows, k)
    if nrows > 1 and not (np.all(positions[:, 0] == positions[0, 0])
                          and _rows_share_pattern(positions)):
        return None
    rows = values.reshape(nrows, -1)
    return rows if nrows == 1 or _rows_share_pattern(rows) else None


def global_transactions(lanes: np.ndarray, addresses: np.ndarray) -> tuple[int, int]:
    """(requests, sector transactions) of one global access by the given active lanes."""
    if len(lanes) == 0:
        return 0, 0
    rows = uniform_rows(lanes, addresses)
    if rows is not None:
        offsets = rows[:, 0] & (SECTOR_BYTES - 1)
        if np.all(offsets == offsets[0]):
            nrows = rows.shape[0]
            return nrows, nrows * _sectors_of_one_row(rows[0])
    mat = lane_matrix(lanes, addresses)
    sect = np.where(mat == _SENTINEL, _SENTINEL, mat >> 5)
    return mat.shape[0], int(_distinct_per_row(sect).sum())


def _words(offsets: np.ndarray, itemsize: int) -> tuple[np.ndarray, int]:
    """4-byte word numbers touched by each lane: shape (n, width)."""
    width = max(1, itemsize // 4)
    first = offsets >> 2
    if width == 1:
        return first.reshape(-1, 1), 1
    return first[:, None] + np.arange(width, dtype=np.int64)[None, :], width


_ONE_ROW_CACHE: dict[tuple[int, bytes], int] = {}
_CACHE_LIMIT = 4096  # patterns kept per cache (a loop repeats a few; a long run cannot grow it)


def _remembered(cache: dict, key: Any, compute: Callable[[], int]) -> int:
    """``cache[key]``, computed on first use; the cache is emptied when it grows past its limit."""
    found = cache.get(key)
    if found is None:
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        found = cache[key] = compute()
    return found


def _wavefronts_of_one_row(words: np.ndarray) -> int:
    """Wavefronts of one warp's words (one row): remembered by the words' pattern relative to
    the first, since a pattern moved by whole words has the same conflicts (the banks rotate)
    and a loop repeats a few patterns at moving addresses."""
    key = (words.shape[-1], (words - words.flat[0]).tobytes())
    return _remembered(_ONE_ROW_CACHE, key, lambda: int(_wavefronts_per_row(words.reshape(1, -1))[0]))


def _wavefronts_per_row(words: np.ndarray) -> np.ndarray:
    srt = np.sort(words, axis=1)
    first = np.ones(srt.shape, dtype=bool)
    first[:, 1:] = srt[:, 1:] != srt[:, :-1]
    first &= srt != _SENTINEL
    nrows = srt.shape[0]
    keys = (np.arange(nrows, dtype=np.int64)[:, None] * BANKS + (srt & (BANKS - 1)))[first]
    per_bank = np.bincount(keys, minlength=nrows * BANKS).reshape(nrows, BANKS)
    return per_bank.max(axis=1)


def shared_wavefronts_per_warp(lanes: np.ndarray, offsets: np.ndarray,
                               itemsize: int) -> np.ndarray:
    """Bank wavefronts of each warp with active lanes (``offsets`` relative to the window)."""
    words, width = _words(offsets, itemsize)
    return _wavefronts_per_row(lane_matrix(lanes, words, width))


def shared_transactions(lanes: np.ndarray, offsets: np.ndarray,
                        itemsize: int) -> tuple[int, int]:
    """(requests, wavefronts) of one shared-memory access by the given active lanes."""
    if len(lanes) == 0:
        return 0, 0
    if itemsize >= 4:
        # aligned accesses: equal byte patterns mean equal word patterns, and a bank
        # pattern shifted by whole words has the same conflicts (banks just rotate)
        rows = uniform_rows(lanes, offsets)
        if rows is not None:
            words, _ = _words(rows[0], itemsize)
            return rows.shape[0], rows.shape[0] * _wavefronts_of_one_row(words)
    words, width = _words(offsets, itemsize)
    mat = lane_matrix(lanes, words, width)
    return mat.shape[0], int(_wavefronts_per_row(mat).sum())
