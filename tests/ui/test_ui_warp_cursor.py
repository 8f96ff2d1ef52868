"""The warp cursor: the session, the step and the followed warp, clamped, with signals on change."""

from __future__ import annotations

import pytest

from gpulab import kernels
from gpulab.experiments import warp as ws
from ui.panels.warp_cursor import WarpCursor


@pytest.fixture(scope="module")
def session() -> ws.WarpSession:
    spec = kernels.get("divergence_even_odd")
    preset = spec.presets[0]
    return ws.run_session(spec.source, spec.entry, preset.grid, preset.block, spec.build_args(preset))


@pytest.fixture
def cursor(qapp, session) -> WarpCursor:
    model = WarpCursor()
    model.set_session(session)
    return model


def recorded(signal) -> list:
    seen: list = []
    signal.connect(seen.append)
    return seen


def test_a_new_session_starts_at_its_first_step_and_first_warp_and_is_announced(qapp, session):
    model = WarpCursor()
    announced = recorded(model.session_changed)
    model.set_session(session)
    assert announced == [session]
    assert (model.step, model.row, model.steps) == (0, 0, len(session))


def test_changing_the_step_fires_step_changed_once_with_the_new_step(cursor):
    steps = recorded(cursor.step_changed)
    assert cursor.set_step(3) is True
    assert cursor.move(1) is True
    assert steps == [3, 4] and cursor.step == 4


def test_the_same_step_again_fires_nothing(cursor):
    cursor.set_step(2)
    steps = recorded(cursor.step_changed)
    assert cursor.set_step(2) is False
    assert steps == []


def test_steps_are_clamped_to_the_session_at_both_ends(cursor, session):
    steps = recorded(cursor.step_changed)
    cursor.set_step(10_000)
    assert cursor.step == len(session) - 1
    cursor.set_step(-5)
    assert cursor.step == 0
    assert steps == [len(session) - 1, 0]
    assert cursor.move(-1) is False and cursor.step == 0


def test_going_to_the_last_step_lands_on_the_sessions_last_step(cursor, session):
    cursor.go_to_last()
    assert cursor.step == len(session) - 1


def test_rows_are_clamped_to_the_traced_warps_and_announced_on_change(cursor, session):
    rows = recorded(cursor.row_changed)
    cursor.select_row(99)
    assert cursor.row == session.rows - 1
    assert cursor.select_row(session.rows - 1) is False
    cursor.select_row(-1)
    assert rows == [session.rows - 1, 0] and cursor.row == 0


def test_without_a_session_nothing_moves_and_nothing_fires(qapp):
    model = WarpCursor()
    steps, rows = recorded(model.step_changed), recorded(model.row_changed)
    assert model.set_step(3) is False and model.select_row(1) is False
    assert model.next_divergence() is None and model.next_memory() is None
    assert (model.step, model.row, model.own_step()) == (0, 0, 0)
    assert steps == [] and rows == []


def test_forgetting_the_session_resets_the_position(cursor):
    cursor.set_step(4)
    cursor.set_session(None)
    assert (cursor.session, cursor.step, cursor.row, cursor.steps) == (None, 0, 0, 0)


def test_the_next_divergence_is_the_sessions_next_split_after_the_step(cursor, session):
    assert cursor.next_divergence() == session.next_divergence(0)
    cursor.set_step(session.next_divergence(0))
    assert cursor.next_divergence() == session.next_divergence(cursor.step)


def test_the_own_step_counts_the_followed_warps_steps_so_far(cursor, session):
    cursor.set_step(len(session) - 1)
    assert cursor.own_step() == len(session.steps[0]) - 1
