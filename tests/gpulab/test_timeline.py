"""Timelines: the op record, its JSON form, and a chart's rows and bars computed without pixels."""

from __future__ import annotations

import pytest

from gpulab.timeline import (
    TimelineOp,
    busy_seconds,
    layout,
    op_from_json,
    ops_from_json,
    ops_of,
    ops_to_json,
    overlap_seconds,
    row_keys,
    span_seconds,
)


def _op(name, lane, engine, start, duration, kind="", n_bytes=0):
    return TimelineOp(name, lane, engine, start, duration, n_bytes, kind or engine)


# Two streams: stream 1 copies in [0, 2) and computes [2, 5); stream 2 copies in [2, 4).
SYNTHETIC = (
    _op("H2D 0", "stream 1", "h2d", 0.0, 2.0, n_bytes=4096),
    _op("kernel 0", "stream 1", "compute", 2.0, 3.0, kind="kernel"),
    _op("H2D 1", "stream 2", "h2d", 2.0, 2.0, n_bytes=4096),
)


def test_an_op_survives_its_json_form_and_keeps_its_fields():
    data = ops_to_json(SYNTHETIC)
    assert data[0] == {"name": "H2D 0", "lane": "stream 1", "engine": "h2d", "start_s": 0.0, "duration_s": 2.0,
                       "bytes": 4096, "kind": "h2d"}
    assert ops_from_json(data) == SYNTHETIC
    assert ops_of({"ops": data}) == SYNTHETIC and ops_of({}) == ()


def test_a_malformed_op_names_what_is_wrong():
    with pytest.raises(ValueError, match="lacks 'lane'"):
        op_from_json({"name": "x", "engine": "h2d", "start_s": 0, "duration_s": 1})
    with pytest.raises(ValueError, match="malformed"):
        op_from_json({"name": "x", "lane": "s", "engine": "h2d", "start_s": "soon", "duration_s": 1})
    with pytest.raises(ValueError, match="duration"):
        TimelineOp("x", "s", "h2d", 0.0, -1.0)


def test_rows_are_lanes_or_engines_in_first_appearance_order_unless_an_order_is_given():
    assert row_keys(SYNTHETIC, "lane") == ["stream 1", "stream 2"]
    assert row_keys(SYNTHETIC, "engine") == ["h2d", "compute"]
    assert row_keys(SYNTHETIC, "engine", order=("d2h", "compute", "h2d")) == ["compute", "h2d"]


def test_layout_places_each_bar_in_its_row_as_fractions_of_the_time_axis():
    rows, bars = layout(SYNTHETIC, by="lane")
    assert rows == ["stream 1", "stream 2"]
    assert [(b.row, b.x0, b.x1) for b in bars] == [(0, 0.0, 0.4), (0, 0.4, 1.0), (1, 0.4, 0.8)]
    rows, bars = layout(SYNTHETIC, by="engine", order=("h2d", "compute"))
    assert [b.row for b in bars] == [0, 1, 0]


def test_a_shared_span_puts_two_timelines_on_one_scale():
    _rows, bars = layout(SYNTHETIC, by="lane", span_s=10.0)
    assert [(b.x0, b.x1) for b in bars] == [(0.0, 0.2), (0.2, 0.5), (0.2, 0.4)]
    assert layout((), by="lane") == ([], [])


def test_span_busy_time_and_overlap_of_engines():
    assert span_seconds(SYNTHETIC) == 5.0
    assert busy_seconds(SYNTHETIC, "h2d") == 4.0  # [0, 2) and [2, 4) touch, no double count
    assert busy_seconds(SYNTHETIC, "compute") == 3.0
    assert overlap_seconds(SYNTHETIC) == 2.0  # copy engine and SMs both busy in [2, 4)
    same_engine = (_op("a", "s1", "h2d", 0, 2), _op("b", "s2", "h2d", 1, 2))
    assert overlap_seconds(same_engine) == 0.0  # one engine twice is not overlap between engines
