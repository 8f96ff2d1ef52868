"""The shared size sweep on a made-up series set: points, crossover notes, cancellation, and its
policies (a failure stops a series or a group, optional points, the per-size release, remeasuring)."""

import threading
from dataclasses import dataclass

import pytest

from gpulab.lab.base import Cancelled, Context, ParamError, PartialPoint, Progress, drive
from gpulab.lab.sweep import (
    Axes,
    OnError,
    Remeasure,
    Sweep,
    SweepSeries,
    WhatIfCopied,
    drop_from_previous,
    run_sweep,
    sweep_points,
)
from gpulab.measure import flagged
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


# ------------------------------------------------------------------ policies


def rated(size, y, **extra):
    return Point(size, y, None, {"seconds": 1e-6, **extra})


ILLEGAL_ADDRESS = RuntimeError("cudaErrorIllegalAddress")


def failing_at(failing_size, log=None, error=ILLEGAL_ADDRESS):
    def make(size, _operands):
        if log is not None:
            log.append(size)
        if size >= failing_size:
            raise error
        return rated(size, 1.0)

    return make


def policy_sweep(series, **options):
    return Sweep("toy", ToyParams(), AXES, series, unit="n", **options)


def steady(key, role="cpu", **policies):
    return SweepSeries(key, role, Provenance("measured", "Toy"), lambda size, _ops: rated(size, 1.0), key, **policies)


SIZES = (1, 2, 3, 4)


def test_a_series_failing_at_size_3_keeps_sizes_1_and_2_and_the_other_series_go_on_with_a_note():
    log = []
    note = lambda stopped: f"{stopped.label} stopped at n={stopped.size}: {stopped.error}"  # noqa: E731
    flaky = SweepSeries("flaky", "gpu", Provenance("measured", "Toy GPU"), failing_at(3, log), "flaky",
                        on_error=OnError(note=note))  # fmt: skip
    result = drive(run_sweep(policy_sweep([steady("cpu"), flaky]), SIZES))
    assert [p.x for p in result.get_series("flaky").points] == [1, 2]
    assert [p.x for p in result.get_series("cpu").points] == [1, 2, 3, 4]
    assert log == [1, 2, 3]  # not asked again after it failed
    assert result.notes[0] == "flaky stopped at n=3: RuntimeError: cudaErrorIllegalAddress"


def test_a_failure_stops_every_series_of_its_group_and_only_those():
    log_a, log_b = [], []
    gpu = OnError(group="gpu")
    first = SweepSeries("a", "gpu", Provenance("measured", "G"), failing_at(2, log_a), "a", on_error=gpu)
    second = SweepSeries("b", "gpu", Provenance("measured", "G"), failing_at(99, log_b), "b", on_error=gpu)
    alone = steady("cpu", on_error=OnError())
    swept = drive_swept(policy_sweep([first, second, alone]), SIZES)
    assert log_a == [1, 2] and log_b == [1]  # b never got size 2: its group had stopped
    assert [p.x for p in swept.series["b"].points] == [1]
    assert len(swept.series["cpu"].points) == 4
    assert [(s.group, s.key, s.size) for s in swept.stopped] == [("gpu", "a", 2)]
    assert swept.stopped_in("gpu").error.startswith("RuntimeError") and swept.stopped_in("cpu") is None


def drive_swept(sweep, sizes, events=None):
    gen = sweep_points(sweep, sizes)
    try:
        while True:
            event = next(gen)
            if events is not None:
                events.append(event)
    except StopIteration as stop:
        return stop.value


@pytest.mark.parametrize("error", [MemoryError("host"), Cancelled("cancelled"), ParamError("bad")])
def test_fatal_errors_cancelling_and_parameter_errors_end_the_run_whatever_the_policy(error):
    series = SweepSeries("s", "cpu", Provenance("measured", "T"), failing_at(2, error=error), "s",
                         on_error=OnError(fatal=(MemoryError,)))  # fmt: skip
    with pytest.raises(type(error)):
        drive(run_sweep(policy_sweep([series]), SIZES))


def test_without_a_policy_an_error_ends_the_run():
    series = SweepSeries("s", "cpu", Provenance("measured", "T"), failing_at(2), "s")
    with pytest.raises(RuntimeError):
        drive(run_sweep(policy_sweep([series]), SIZES))


def test_a_series_with_no_point_at_a_size_yields_nothing_there_and_the_sweep_goes_on():
    def even_only(size, _ops):
        return rated(size, 1.0) if size % 2 == 0 else None

    events = []
    series = SweepSeries("even", "gpu", Provenance("measured", "G"), even_only, "even")
    result = drive(run_sweep(policy_sweep([series, steady("cpu")]), SIZES), events.append)
    assert [p.x for p in result.get_series("even").points] == [2, 4]
    assert [e.point.x for e in events if isinstance(e, PartialPoint) and e.series == "even"] == [2, 4]


def test_the_release_hook_runs_once_per_size_after_every_series_and_when_the_run_stops_early():
    log = []

    def make(size, operands):
        log.append(("point", size, operands))
        if size == 3:
            raise RuntimeError("boom")
        return rated(size, 1.0)

    sweep = policy_sweep([SweepSeries("s", "cpu", Provenance("measured", "T"), make, "s"), steady("t")],
                         operands=lambda size: f"buffers {size}",
                         release=lambda size, operands: log.append(("release", size, operands)))  # fmt: skip
    with pytest.raises(RuntimeError):
        drive(run_sweep(sweep, SIZES))
    assert log == [("point", 1, "buffers 1"), ("release", 1, "buffers 1"), ("point", 2, "buffers 2"),
                   ("release", 2, "buffers 2"), ("point", 3, "buffers 3"), ("release", 3, "buffers 3")]  # fmt: skip


def stalled(ys_by_size):
    """A maker giving, at each size, the listed ys one call after another."""
    left = {size: list(ys) for size, ys in ys_by_size.items()}

    def make(size, _ops):
        return rated(size, left[size].pop(0))

    return make


def test_an_implausible_point_is_measured_again_and_the_better_one_is_shown():
    make = stalled({1: [100.0], 2: [1.0, 3.0, 90.0]})  # 1.0 is a hundredth of the size before: load
    series = SweepSeries("s", "cpu", Provenance("measured", "T"), make, "s",
                         remeasure=Remeasure(drop_from_previous(20), times=2))  # fmt: skip
    result = drive(run_sweep(policy_sweep([series]), (1, 2)))
    second = result.get_series("s").points[1]
    assert second.y == 90.0 and second.extra["remeasured"] == 2
    assert not second.extra.get("noisy")
    assert not any("implausible" in note for note in result.notes)


def test_a_point_that_stays_implausible_is_kept_flagged_and_said_in_the_noise_note():
    make = stalled({1: [100.0], 2: [1.0, 2.0, 3.0], 4: [3.5]})
    series = SweepSeries("stalled CPU", "cpu", Provenance("measured", "T"), make, "s",
                         remeasure=Remeasure(drop_from_previous(20), times=2))  # fmt: skip
    result = drive(run_sweep(policy_sweep([series]), (1, 2, 4)))
    _first, second, third = result.get_series("s").points
    assert second.y == 3.0 and second.extra["remeasured"] == 2
    assert second.extra["noisy"] and "implausible" in second.extra["noise"]
    assert second.extra["implausible"] == "drop-from-previous-size"
    assert "remeasured" not in third.extra  # checked against the flagged point before it, which it does not fall from
    assert any("stalled CPU" in note and "implausible" in note for note in result.notes)


def test_a_plausible_point_is_measured_once():
    calls = []

    def make(size, _ops):
        calls.append(size)
        return rated(size, 10.0)

    series = SweepSeries("s", "cpu", Provenance("measured", "T"), make, "s",
                         remeasure=Remeasure(drop_from_previous(20)))  # fmt: skip
    drive(run_sweep(policy_sweep([series]), SIZES))
    assert calls == list(SIZES)


def test_the_progress_fraction_runs_over_the_span_and_a_stopped_series_says_nothing_more():
    events = []
    flaky = SweepSeries("flaky", "gpu", Provenance("measured", "G"), failing_at(2), "flaky", on_error=OnError())
    drive_swept(policy_sweep([steady("cpu"), flaky], progress_span=(0.5, 0.9),
                             progress=lambda s, size: f"{s.key} {size}"), (1, 2, 3), events)  # fmt: skip
    progress = [e for e in events if isinstance(e, Progress)]
    assert [str(e.message) for e in progress] == ["cpu 1", "flaky 1", "cpu 2", "flaky 2", "cpu 3"]
    assert progress[0].fraction == 0.5 and all(0.5 <= e.fraction < 0.9 for e in progress)


def flagged_at(seconds_by_size, flagged_size):
    """A timed maker whose point at ``flagged_size`` is flagged noisy (timed on a busy machine)."""
    make = timed(seconds_by_size)

    def maker(size, operands):
        point = make(size, operands)
        return flagged(point, ["busy"]) if size == flagged_size else point

    return maker


def test_a_flagged_cpu_point_is_left_out_of_the_crossover_and_the_headline_says_so():
    # At n=10 the CPU point was timed under load, 1000x slower than it is: drawn as measured it would
    # make the GPU "faster from n=10"; the clean points say from n=100.
    loaded = {**CPU_SECONDS, 10: 1e-1}
    series = [SweepSeries("host", "cpu", Provenance("measured", "Toy CPU"), flagged_at(loaded, 10)),
              SweepSeries("card", "gpu", Provenance("measured", "Toy GPU"), timed(GPU_SECONDS))]  # fmt: skip
    result = drive(run_sweep(Sweep("toy", ToyParams(), AXES, series, unit="n"), (1, 10, 100)))
    assert "Crossover: card (measured) is faster than host from n=100 up." in result.notes
    assert result.notes[0].startswith("1 of 6 points (host)")
    assert "no crossover" in result.notes[0]


def test_a_run_with_only_clean_points_has_no_flagged_headline():
    _events, result = run_fake()
    assert result.notes[0].startswith("Crossover:")


def test_sizes_that_would_not_fit_in_memory_are_left_out_before_the_run_with_a_note():
    from gpulab.lab.sweep import MEMORY_SHARE, Axes, Sweep, sizes_that_fit

    sweep = Sweep("toy", None, Axes("n", "", "y", ""), [], unit="n", host_bytes=lambda n: 8 * n)
    free = 1 << 20
    fitting, notes = sizes_that_fit(sweep, [1024, 1 << 16, 1 << 20], free)
    assert fitting == [1024, 1 << 16] and 8 * (1 << 16) <= MEMORY_SHARE * free < 8 * (1 << 20)
    assert [note.key for note in notes] == ["note.sweep.sizes-left-out"] and notes[0].args["sizes"] == "2^20"


def test_a_sweep_where_no_size_fits_is_refused_naming_the_memory_it_needs():
    from gpulab.catalogue import render
    from gpulab.lab.sweep import Axes, Sweep, sizes_that_fit

    sweep = Sweep("toy", None, Axes("n", "", "y", ""), [], unit="n", host_bytes=lambda n: 16 * n)
    with pytest.raises(ParamError) as refused:
        sizes_that_fit(sweep, [1 << 30], 1 << 30)
    assert "16 GiB" in render(refused.value.message) and "1 GiB is free" in render(refused.value.message)
    assert sizes_that_fit(sweep, [1 << 30], None) == ([1 << 30], [])  # unknown free memory: no guess


def test_vector_add_refuses_two_billion_elements_before_allocating_them(monkeypatch):
    from gpulab import experiments, hostmem
    from gpulab.experiments import vector_add

    monkeypatch.setattr(hostmem, "available_memory_bytes", lambda: 16 << 30)
    params = experiments.params_from_strings(vector_add.Params, {"sizes": "2147483647"})
    with pytest.raises(ParamError, match="No size fits"):
        drive(vector_add.run(params, Context()))
