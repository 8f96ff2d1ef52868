"""Memory-step analysis: sectors needed vs fetched (global), banks hit (shared), element sizes."""

from __future__ import annotations

import pytest

from gpulab.experiments import warp as ws
from gpulab.simt.trace import TraceStep

FULL = 0xFFFF_FFFF


def stmt(line, mask=FULL, col=5, kind="stmt", **kw):
    return TraceStep(line, col, col + 3, kind, mask, **kw)


def global_step(addresses):
    used = [a for a in addresses if a is not None]
    return stmt(
        3,
        kind="load",
        mask=sum(1 << i for i, a in enumerate(addresses) if a is not None),
        addresses=tuple(addresses),
        space="global",
        buffer="a",
        sectors=tuple(sorted({a >> 5 for a in used})),
        lines=tuple(sorted({a >> 7 for a in used})),
    )


def test_a_coalesced_float_load_needs_and_fetches_four_sectors_of_one_line():
    base = 0x7F00_0000_0000
    m = ws.analyse_memory_step(global_step([base + 4 * i for i in range(32)]), 0, 4)
    assert (m.sectors_needed, m.sectors_fetched, len(m.lines)) == (4, 4, 1)
    assert m.efficiency == 1.0
    assert m.sector_of_lane[:9] == (0, 0, 0, 0, 0, 0, 0, 0, 1)


def test_a_stride_two_load_fetches_twice_the_sectors_it_needs():
    base = 0x7F00_0000_0000
    m = ws.analyse_memory_step(global_step([base + 8 * i for i in range(32)]), 0, 4)
    assert (m.sectors_needed, m.sectors_fetched, len(m.lines)) == (4, 8, 2)
    assert m.efficiency == pytest.approx(0.5)
    assert m.line_of_lane[15:17] == (0, 1)


def test_inactive_lanes_have_no_sector_and_do_not_count_as_needed():
    base = 0x7F00_0000_0000
    m = ws.analyse_memory_step(global_step([base + 4 * i if i % 2 == 0 else None for i in range(32)]), 0, 4)
    assert m.active_lanes == 16
    assert m.sector_of_lane[1] == -1
    assert m.sectors_needed == 2 and m.sectors_fetched == 4


def shared_step(addresses, degree):
    return stmt(3, kind="load", addresses=tuple(addresses), space="shared", buffer="tile", bank_conflict_degree=degree)


def test_a_column_read_of_a_32_wide_shared_tile_hits_one_bank_32_times():
    m = ws.analyse_memory_step(shared_step([0x0100_0000 + 128 * i for i in range(32)], 32), 0, 4)
    assert m.words_per_bank[0] == 32 and sum(m.words_per_bank) == 32
    assert m.conflict_degree == 32
    assert m.efficiency == pytest.approx(1 / 32)


def test_a_padded_tile_spreads_a_column_read_over_all_32_banks():
    m = ws.analyse_memory_step(shared_step([0x0100_0000 + 132 * i for i in range(32)], 1), 0, 4)
    assert m.words_per_bank == (1,) * 32
    assert sorted(m.bank_of_lane) == list(range(32))
    assert m.efficiency == 1.0


def test_lanes_reading_the_same_shared_word_are_one_broadcast_not_a_conflict():
    m = ws.analyse_memory_step(shared_step([0x0100_0000] * 32, 1), 0, 4)
    assert m.words_per_bank[0] == 1 and len(m.lanes_per_bank[0]) == 32


def test_buffer_itemsizes_reads_pointer_parameters_and_shared_arrays():
    source = """extern "C" __global__ void k(const float* __restrict__ a, double *b, int n) {
        __shared__ float tile[16][17];
        __shared__ unsigned long long acc[32];
    }"""
    assert ws.buffer_itemsizes(source) == {"a": 4, "b": 8, "tile": 4, "acc": 8}
