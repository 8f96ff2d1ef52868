"""Noisy and implausible points: flagged in ``point.extra``, re-measured, and said in the notes."""

import pytest

from gpulab.catalogue import render
from gpulab.experiments import Context, drive, matmul
from gpulab.measure import (
    RepeatPolicy,
    Samples,
    best_rate_point,
    best_series,
    clean_points,
    flagged,
    flagged_headline,
    is_clean,
    rate_point,
    size_text,
    time_cpu_calls,
)
from gpulab.results import Point, Provenance, Result, Series


def test_a_point_whose_repeats_disagree_widely_is_flagged_noisy_with_the_reason():
    point = rate_point(128, 1e9, [0.01, 0.01, 0.02, 0.04, 0.05])
    assert point.extra["noisy"] is True
    assert "spread" in point.extra["noise"]


def test_a_point_whose_repeats_agree_on_a_quiet_machine_is_not_flagged():
    samples = Samples([0.010, 0.0101, 0.0100, 0.0102, 0.0100])
    samples.busy = 0.0
    point = rate_point(128, 1e9, samples)
    assert "noisy" not in point.extra
    assert point.extra["machine_busy"] == 0.0


def test_a_point_timed_while_other_programs_kept_the_machine_busy_is_flagged_busy():
    samples = Samples([0.010] * 5)
    samples.busy = 0.8
    point = rate_point(128, 1e9, samples)
    assert point.extra["noisy"] is True and point.extra["noise"] == ["busy"]


def test_a_best_of_repeats_point_takes_the_fastest_sample_and_keeps_the_medians_noise_flag():
    point = best_rate_point(128, 1e9, [0.01, 0.01, 0.02, 0.04, 0.05])
    assert point.y == pytest.approx(100.0)  # 1 GB in the fastest 10 ms
    assert point.extra["median"] == pytest.approx(50.0) and point.extra["best_seconds"] == 0.01
    assert point.extra["seconds"] == 0.02 and point.extra["noisy"] is True  # still says its repeats disagree


def test_cpu_timing_says_how_busy_the_rest_of_the_machine_was():
    samples = time_cpu_calls(lambda: sum(range(100)), RepeatPolicy(repeats=3, min_seconds=0.01))
    assert samples.busy is None or 0.0 <= samples.busy <= 1.0


def test_cpu_timing_warms_a_cheap_call_for_a_while_before_the_first_sample():
    calls = []
    time_cpu_calls(lambda: calls.append(1), RepeatPolicy(repeats=1, min_seconds=0.0), warmup=1)
    assert len(calls) > 2  # more than the one warm-up call and the one sample


def test_large_powers_of_two_are_written_as_powers_and_small_sizes_as_numbers():
    assert size_text(65536) == "2^16"
    assert size_text(1024) == "1024"
    assert size_text(65535) == "65535"


@pytest.fixture
def starved_all_threads(monkeypatch):
    """All-threads BLAS calls a hundred times slower than one thread (a starved thread pool)."""
    real = matmul._cpu_samples
    calls = {"all": 0}

    def fake(a, b, policy, ctx, threads):
        samples = real(a, b, policy, ctx, threads)
        if threads is None:
            calls["all"] += 1
            return Samples([s * 100 for s in samples])
        return samples

    monkeypatch.setattr(matmul, "_cpu_samples", fake)
    return calls


def test_all_threads_much_slower_than_one_thread_is_measured_again_then_flagged(starved_all_threads):
    params = matmul.Params(sizes=(32,), repeats=2)
    result = drive(matmul.run(params, Context()))
    threads = next(s for s in result.series if s.key == "cpu-numpy-all-threads")
    if threads.points[0].extra["threads"] == 1:
        pytest.skip("a BLAS with one thread has no all-threads series to check")
    point = threads.points[0]
    assert starved_all_threads["all"] == 1 + matmul.REMEASURES
    assert point.extra["remeasured"] == matmul.REMEASURES
    assert point.extra["implausible"] == "slower-than-one-thread"
    assert point.extra["noisy"] is True and "implausible" in point.extra["noise"]
    noisy = [note for note in result.notes if note.message.key == "note.noisy" and threads.name in note.text]
    assert len(noisy) == 1  # (other series may be flagged too: this machine is shared)
    assert "N=32" in noisy[0].text and "implausible" in noisy[0].text
    assert "有噪声" in render(noisy[0].message, "zh")


def test_a_rate_that_collapses_from_one_size_to_the_next_is_implausible():
    before, after = Point(64, 100.0), Point(128, 10.0)
    assert matmul.implausible(after, before, None) == "drop-from-previous-size"
    assert matmul.implausible(Point(128, 90.0), before, None) is None
    assert matmul.implausible(Point(128, 0.2), None, Point(128, 100.0)) == "slower-than-one-thread"


def test_a_modelled_gpu_is_called_modelled_once_in_its_crossover_note():
    result = drive(matmul.run(matmul.Params(sizes=(16, 32), repeats=1), Context()))
    notes = [n.text for n in result.notes if n.message.key.startswith("note.crossover")]
    model = [text for text in notes if "H100" in text]
    assert model and all("(model)" not in text for text in model), model
    assert all("(modelled)" in text for text in model)


def test_crossover_notes_write_a_large_power_of_two_as_the_panel_does():
    from gpulab.catalogue import msg

    text = render(msg("note.crossover.faster", gpu="G", kind="measured", cpu="C", unit="n", size=size_text(1 << 16)))
    assert "n=2^16" in text


def test_a_point_flagged_noisy_or_implausible_is_not_clean_and_clean_points_leave_it_out():
    clean = Point(1, 10.0, None, {})
    noisy = flagged(Point(2, 0.01, None, {}), ["busy"])
    odd = Point(4, 9.0, None, {"implausible": "drop-from-previous-size"})
    assert is_clean(clean) and not is_clean(noisy) and not is_clean(odd)
    assert clean_points([clean, noisy, odd]) == (clean,)


def test_the_best_cpu_series_is_chosen_by_its_largest_clean_point():
    # "spiky" reads fastest at its largest size only through a flagged point; at its clean ones it is slower.
    spiky = Series("spiky", Provenance("measured", "C"), "n", "", "rate", "GB/s", role="cpu",
                   points=(Point(1, 5.0, None, {}), flagged(Point(2, 500.0, None, {}), ["spread"])))  # fmt: skip
    steady = Series("steady", Provenance("measured", "C"), "n", "", "rate", "GB/s", role="cpu",
                    points=(Point(1, 8.0, None, {}), Point(2, 9.0, None, {})))  # fmt: skip
    result = Result("toy", {}, (spiky, steady))
    assert best_series(result, ["spiky", "steady"]) == "steady"
    assert flagged_headline([spiky, steady]) is not None
    assert flagged_headline([steady]) is None
