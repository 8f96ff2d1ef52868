"""The shared size sweep on a made-up series set: points, crossover notes, cancellation."""

import threading
from dataclasses import dataclass

import pytest

from gpulab.lab.base import Cancelled, Context, PartialPoint, Progress, drive
from gpulab.lab.sweep import Axes, Sweep, SweepSeries, WhatIfCopied, run_sweep
from gpulab.results import Point, Provenance

AXES = Axes("size", "", "rate", "GB/s")


@dataclass(frozen=True)
class ToyParams:
    sizes: tuple[int, ...] = (1, 10, 100)

CPU_SECONDS = {1: 1e-6, 10: 1e-4, 100: 1e-2}
GPU_SECONDS = {1: 1e-5, 10: 1e-5, 100: 1e-5}  # slower at 1, faster from 10 up


def timed(seconds_by_size):
    def make(size, _operands):
        seconds = seconds_by_size[size]
        return Point(size, size / seconds / 1e9, None, {"seconds": seconds})

    return make


def fake_sweep(log=None, **options):
    gpu_maker = timed(GPU_SECONDS)

    def logged_gpu(size, operands):
        if log is not None:
            log.append((size, operands))
        return gpu_maker(size, operands)

    series = [
        # named so that a name-prefix rule would get the roles wrong: roles alone must decide
        SweepSeries("GPU-less host", "cpu", Provenance("measured", "Toy CPU"), timed(CPU_SECONDS)),
        SweepSeries("CPU-free card", "gpu", Provenance("measured", "Toy GPU"), logged_gpu),
    ]
    return Sweep("toy", ToyParams(), AXES, series, unit="n", **options)


def run_fake(**options):
    events = []
    result = drive(run_sweep(fake_sweep(**options), (1, 10, 100)), events.append)
    return events, result


def test_every_series_gets_one_point_per_size_with_its_role_and_the_shared_axes():
    events, result = run_fake()
    assert [s.name for s in result.series] == ["GPU-less host", "CPU-free card"]
    assert [s.role for s in result.series] == ["cpu", "gpu"]
    assert all([p.x for p in s.points] == [1, 10, 100] for s in result.series)
    assert {(s.x_label, s.y_unit) for s in result.series} == {("size", "GB/s")}
    partials = [e for e in events if isinstance(e, PartialPoint)]
    assert [e.series for e in partials[:2]] == ["GPU-less host", "CPU-free card"]
    assert partials[1].provenance.device == "Toy GPU"
    assert isinstance(events[-1], Progress) and str(events[-1].message) == "done"


def test_the_crossover_note_comes_first_and_the_note_groups_follow_in_order():
    _events, result = run_fake(note_groups=(["first group"], ["second group", "first group"]))
    assert result.notes == (
        "Crossover: CPU-free card (measured) is faster than GPU-less host from n=10 up.",
        "first group",
        "second group",
    )


def test_the_what_if_copied_note_follows_the_crossover_notes():
    _events, result = run_fake(what_if_copied=WhatIfCopied("Toy GPU", lambda size: 1e-3))
    assert result.notes[1] == (
        "With the PCIe copies counted, Toy GPU (modelled) would beat GPU-less host only from n=100 up.")


def test_operands_are_made_once_per_size_and_shared_and_progress_is_worded_by_the_sweep():
    log = []
    sweep = fake_sweep(log, operands=lambda size: ("inputs", size), progress=lambda s, size: f"{s.role} {size}")
    events = []
    drive(run_sweep(sweep, (1, 10)), events.append)
    assert log == [(1, ("inputs", 1)), (10, ("inputs", 10))]
    assert [str(e.message) for e in events if isinstance(e, Progress)] == ["cpu 1", "gpu 1", "cpu 10", "gpu 10", "done"]
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) and fractions[0] == 0 and fractions[-1] == 1


def test_cancelling_between_points_closes_the_sweep_before_the_next_point():
    log, cancel, seen = [], threading.Event(), []

    def on_event(event):
        if isinstance(event, PartialPoint):
            seen.append(event)
            cancel.set()

    gen = run_sweep(fake_sweep(log), (1, 10, 100))
    with pytest.raises(Cancelled):
        drive(gen, on_event, cancel)
    assert len(seen) == 1 and log == []  # the GPU series was never asked for a point
    assert gen.gi_frame is None  # closed, not left suspended


@pytest.mark.parametrize(
    ("name", "params"),
    [("matmul", {"sizes": (16,), "repeats": 1}), ("matmul", {"sizes": (16,), "repeats": 1, "dtype": "fp16"}),
     ("vector-add", {"sizes": (1024,), "repeats": 1}),
     ("divergence", {"n": 64, "block": 64, "kways": (2,)}),
     ("access-pattern", {"n": 64, "block": 64, "strides": (1,), "f64_strides": (1,)}),
     ("bank-conflicts", {"side": 32, "block": 64, "strides": (1,)}), ("reduction", {"n": 128, "block": 64})],
)
def test_every_series_of_every_experiment_states_a_role_that_fits_its_provenance(name, params):
    from gpulab import experiments

    module = experiments.get(name)
    result = drive(module.run(module.Params(**params), Context()))
    expected = {"modelled": {"model"}, "emulated": {"emulated"}, "measured": {"cpu", "gpu"}}
    assert result.series
    for series in result.series:
        assert series.role in expected[series.provenance.kind], series.name
    cpu_like = {s.name for s in result.series if s.name.startswith("CPU")}
    assert cpu_like == {s.name for s in result.series if s.role == "cpu"}
