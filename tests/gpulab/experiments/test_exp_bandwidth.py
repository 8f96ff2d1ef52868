"""The memory-wall lab: byte accounting, the CPU forms, the sweep at tiny sizes, ceilings, clamping, GPU faults."""

from dataclasses import replace

import numpy as np
import pytest

from gpulab import experiments, hostmem, simt
from gpulab.catalogue import msg
from gpulab.cuda import cuda_status
from gpulab.experiments import Context, ParamError, bandwidth, drive
from gpulab.lab.sweep import SweepSeries
from gpulab.measure import flagged
from gpulab.model import memory_share
from gpulab.results import Point, Provenance
from gpulab.specs import load_specs
from gpulab.threads import cpu_threads

TINY = bandwidth.Params(working_sets=(4096, 16384), operations=bandwidth.OPERATIONS, forms=bandwidth.FORMS,
                        seconds_per_point=0.001)  # fmt: skip


@pytest.fixture(scope="module")
def result():
    return drive(bandwidth.run(TINY, Context()))


@pytest.mark.parametrize(("operation", "arrays"), [("copy", 2), ("mul", 2), ("add", 3), ("triad", 3), ("dot", 2)])
def test_bytes_follow_babelstreams_hand_counts(operation, arrays):
    assert bandwidth.bytes_moved(operation, 1000) == arrays * 1000 * 8
    assert bandwidth.bytes_moved(operation, 1000, itemsize=4) == arrays * 1000 * 4


def test_a_working_set_is_the_bytes_of_every_array_the_operation_touches():
    assert bandwidth.elements("copy", 1 << 20) == (1 << 20) // 16
    assert bandwidth.elements("triad", 4096) == 170  # 3 arrays of 170 doubles: 4080 bytes
    assert bandwidth.elements("add", 8) == 1  # never an empty array


@pytest.mark.parametrize("n", [1, 7, 512, 100_003])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_array_of_a_working_set_starts_on_a_page_and_holds_its_value(n, dtype):
    array = hostmem.page_aligned_full(n, 0.25, dtype)
    assert array.ctypes.data % hostmem.PAGE_BYTES == 0
    assert array.shape == (n,) and array.dtype == dtype and array.flags.writeable
    assert np.all(array == np.array(0.25, dtype))


def test_the_arrays_an_operation_shares_between_forms_all_start_on_pages():
    for operation in bandwidth.OPERATIONS:
        arrays = bandwidth.Arrays(256 << 10).of(operation)
        assert sorted(arrays) == sorted(bandwidth.USES[operation])
        for name, array in arrays.items():
            assert array.ctypes.data % hostmem.PAGE_BYTES == 0, (operation, name)
            assert np.all(array == bandwidth.START[name])


@pytest.mark.parametrize("form", bandwidth.FORMS)
def test_every_cpu_form_computes_what_babelstream_computes(form):
    s = bandwidth.SCALAR
    expected = {"copy": ("c", lambda v: v["a"]), "mul": ("b", lambda v: s * v["c"]),
                "add": ("c", lambda v: v["a"] + v["b"]), "triad": ("a", lambda v: v["b"] + s * v["c"])}  # fmt: skip
    for op, (target, compute) in expected.items():
        values = bandwidth.Arrays(4096).of(op)
        assert sorted(values) == sorted(bandwidth.USES[op])  # only the arrays the operation touches
        values["c"][:] = np.arange(len(values["c"]))  # so that every operation has something to show
        want = compute({k: v.copy() for k, v in values.items()})
        returned = bandwidth.FORM_CALLS[form](op, values)()
        got = returned if form == "numpy" else values[target]  # as written, the result is a new array
        assert np.allclose(got, want), (form, op)
    dot = bandwidth.Arrays(4096).of("dot")
    assert float(bandwidth.FORM_CALLS[form]("dot", dot)()) == pytest.approx(0.1 * 0.2 * len(dot["a"]))


def test_the_sweep_measures_every_form_of_every_operation_at_every_working_set(result):
    keys = {s.key: s for s in result.series}
    for op in bandwidth.OPERATIONS:
        for form in bandwidth.FORMS:
            series = keys[f"cpu-{form}-{op}"]
            assert series.role == "cpu" and series.provenance.kind == "measured"
            assert [p.x for p in series.points] == [4096, 16384]
            assert series.provenance.details["code"] == bandwidth.FORM_WRITTEN[form][op]
    if not cuda_status().available:
        assert all(s.role != "gpu" for s in result.series)


def test_one_modelled_curve_stands_for_every_operation_triads_when_asked_for(result):
    models = [s for s in result.series if s.role == "model"]
    assert [s.key for s in models] == ["model-triad"] and models[0].provenance.kind == "modelled"
    plan = bandwidth.plan(replace(TINY, operations=("dot", "copy")), Context())
    assert [line.key for line in plan.lines if line.role == "model"] == ["model-copy"]


def test_the_modelled_curve_moves_bytes_at_the_achievable_rate_under_the_spec_sheets_ceiling(result):
    spec = load_specs().get("h100-sxm")
    share = memory_share(spec)
    model = result.get_series("model-triad")
    assert model.provenance.details["ceiling"] == spec.memory_bandwidth_gb_s  # the spec sheet's line stays
    assert model.provenance.details["achievable_gb_s"] == share.gb_s < spec.memory_bandwidth_gb_s
    big = bandwidth.model_point("triad", spec, 1 << 34)  # where the launch is lost in the bytes
    assert big.y == pytest.approx(share.gb_s, rel=0.01) and big.extra["percent_of_peak"] < 100 * share.share
    note = next(n for n in result.notes if n.startswith("The modelled NVIDIA H100"))
    assert f"{share.gb_s:.0f} GB/s" in note and share.percent in note and share.source in note


def test_every_point_credits_its_operations_bytes_and_shows_its_percent_of_a_ceiling(result):
    for series in result.series:
        op = series.key.rsplit("-", 1)[1]
        for point in series.points:
            n = point.extra["n"]
            assert n == bandwidth.elements(op, int(point.x))
            seconds = point.extra["best_seconds"] if series.role == "cpu" else point.extra["seconds"]
            assert point.y == pytest.approx(bandwidth.bytes_moved(op, n) / seconds / 1e9)
            if series.role == "cpu":  # STREAM's rule: the fastest repeat, the median beside it
                assert point.extra["statistic"] == "best of repeats" and point.y >= point.extra["median"]
            assert point.extra["percent_of_peak"] > 0, series.key
        assert series.provenance.details["ceiling"] > 0


def test_the_fused_form_records_numexprs_thread_count(result):
    fused = result.get_series("cpu-fused-triad")
    assert fused.provenance.details["numexpr_threads"] == cpu_threads() >= 1


def test_the_compiled_form_records_numbas_version_and_its_thread_count(result):
    compiled = result.get_series("cpu-compiled-triad")
    assert compiled.provenance.details["numba"] and compiled.provenance.details["threads"] >= 1
    assert "prange" in compiled.provenance.details["code"]
    assert any("reads each element into a register once" in note for note in result.notes)  # beside numexpr


def test_without_numba_the_compiled_form_is_left_out_with_a_note_and_the_others_run(monkeypatch):
    from gpulab import compiled

    monkeypatch.setattr(compiled, "import_error", lambda: "ModuleNotFoundError: No module named 'numba'")
    params = replace(TINY, working_sets=(4096,), operations=("triad",), forms=("fused", "compiled"))
    result = drive(bandwidth.run(params, Context()))
    assert [s.key for s in result.series if s.role == "cpu"] == ["cpu-fused-triad"]
    assert any("compiled form was left out" in note and "No module named 'numba'" in note for note in result.notes)
    assert not any("reads each element into a register once" in note for note in result.notes)


def test_a_form_that_fails_mid_sweep_stops_alone_and_the_note_says_where_and_why(monkeypatch):
    from gpulab import compiled

    real = compiled.call

    def fails_from_16_kib(operation, arrays, scalar):
        if len(next(iter(arrays.values()))) > 200:
            raise RuntimeError("LoweringError: Numba could not compile the loop")
        return real(operation, arrays, scalar)

    monkeypatch.setattr(compiled, "call", fails_from_16_kib)
    params = replace(TINY, working_sets=(4096, 16384, 65536), operations=("triad",), forms=("fused", "compiled"))
    result = drive(bandwidth.run(params, Context()))
    assert [p.x for p in result.get_series("cpu-compiled-triad").points] == [4096]
    assert len(result.get_series("cpu-fused-triad").points) == 3  # the other form went on
    assert any("CPU compiled triad (Numba loop) failed at working set 16 KiB" in note and "LoweringError" in note
               for note in result.notes)  # fmt: skip


def _stalled_at_64_kib(monkeypatch, stalls: int) -> None:
    """The numpy form as it is, except that its first ``stalls`` measurements at 64 KiB wait 5 ms
    in every call: a core taken by something else, thousands of times the real time."""
    import time

    real, left = bandwidth.FORM_CALLS["numpy"], [stalls]

    def numpy_call(op, values):
        call = real(op, values)
        if len(values["a"]) != bandwidth.elements(op, 65536) or left[0] == 0:
            return call
        left[0] -= 1
        return lambda: (time.sleep(0.005), call())

    monkeypatch.setitem(bandwidth.FORM_CALLS, "numpy", numpy_call)


STALL_SWEEP = replace(TINY, working_sets=(16384, 65536), operations=("triad",), forms=("numpy",))


def test_a_rate_that_collapses_from_one_working_set_to_the_next_is_measured_again(monkeypatch):
    _stalled_at_64_kib(monkeypatch, stalls=1)
    first, second = drive(bandwidth.run(STALL_SWEEP, Context())).get_series("cpu-numpy-triad").points
    assert second.extra["remeasured"] == 1
    assert "implausible" not in second.extra.get("noise", ())  # (a busy CI machine may flag it busy)
    assert second.y * bandwidth.IMPLAUSIBLE_DROP > first.y  # the second measurement is the one shown


def test_a_rate_that_stays_collapsed_is_kept_and_flagged_implausible_with_a_note(monkeypatch):
    _stalled_at_64_kib(monkeypatch, stalls=1 + bandwidth.REMEASURES)
    result = drive(bandwidth.run(STALL_SWEEP, Context()))
    first, second = result.get_series("cpu-numpy-triad").points
    assert second.extra["remeasured"] == bandwidth.REMEASURES
    assert second.extra["noisy"] and "implausible" in second.extra["noise"]
    assert second.y * bandwidth.IMPLAUSIBLE_DROP < first.y  # shown as measured, not hidden
    assert any("CPU numpy triad" in note and "implausible" in note for note in result.notes)


def test_the_notes_name_the_byte_counts_the_caches_and_the_cpu_ceiling(result):
    text = " ".join(result.notes)
    assert "copy, mul and dot 2 arrays, add and triad 3" in text
    assert "CPU ceiling" in text and "no working set reached 4x" in text  # 16 KiB is inside every cache
    assert result.host["memory"]["caches_source"] in ("sysfs", "sysconf", "not available")
    assert result.host["hostname"]  # beside the usual description of the machine


def test_the_cpu_ceiling_is_the_best_triad_out_of_cache_when_one_was_measured():
    def series(key, points):
        return experiments.bandwidth.Series(key, Provenance("measured", "cpu"), "x", "B", "y", "GB/s",
                                            tuple(Point(x, y) for x, y in points), role="cpu", key=key)  # fmt: skip

    fast_cache = series("cpu-numpy-triad", [(1 << 20, 90.0), (1 << 28, 20.0)])
    fused = series("cpu-fused-triad", [(1 << 20, 30.0), (1 << 28, 25.0)])
    copy = series("cpu-numpy-copy", [(1 << 28, 99.0)])
    ceiling, out_of_cache = bandwidth.cpu_ceiling([fast_cache, fused, copy], last_level_bytes=32 << 20)
    assert (ceiling.value, out_of_cache) == (25.0, True)
    ceiling, out_of_cache = bandwidth.cpu_ceiling([fast_cache, fused], last_level_bytes=1 << 30)
    assert (ceiling.value, out_of_cache) == (90.0, False)
    assert bandwidth.cpu_ceiling([copy], last_level_bytes=None)[0].value == 99.0  # no triad: the best rate


def test_working_sets_beyond_free_memory_are_left_out_with_a_note():
    kept, dropped = bandwidth.clamp_to_memory([1 << 12, 1 << 20, 1 << 30], available_bytes=8 << 20)
    assert kept == (1 << 12, 1 << 20) and dropped == [1 << 30]
    plan = bandwidth.plan(replace(TINY, working_sets=(4096, 1 << 30)), Context(), available_bytes=8 << 20)
    assert plan.working_sets == (4096,)
    assert any(note.key == "note.bandwidth.clamped" and "1 GiB" in note.args["sizes"] for note in plan.notes)


def test_a_working_set_beyond_the_gpus_free_memory_or_a_c_int_does_not_fit():
    state = bandwidth.GpuState(0)
    state.free_bytes = 10 << 30  # known already: no device is asked
    assert state.fits(1 << 30, 1 << 26)
    assert not state.fits(9 << 30, 1 << 26)  # over 80% of what is free
    assert not state.fits(1 << 30, 1 << 31)  # n must fit the kernels' int


def test_a_gpu_error_mid_sweep_keeps_the_points_so_far_and_says_what_happened():
    plan = bandwidth.plan(replace(TINY, operations=("triad",), forms=("numpy-out",)), Context())
    calls = []

    def flaky(working_set, _arrays):
        calls.append(working_set)
        if working_set > 4096:
            raise RuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
        return Point(working_set, 1000.0, None, {"n": bandwidth.elements("triad", working_set), "seconds": 1e-6})

    plan.gpu = bandwidth.GpuState(0)
    plan.lines.append(SweepSeries(msg("series.bandwidth.gpu", op="triad"), "gpu", Provenance("measured", "fake GPU"),
                                  flaky, "gpu-triad", on_error=bandwidth.GPU_STOPS))  # fmt: skip
    plan.working_sets = (4096, 16384, 65536)
    result = drive(bandwidth.measure(plan))
    assert [p.x for p in result.get_series("gpu-triad").points] == [4096]
    assert calls == [4096, 16384]  # stopped after the error
    assert len(result.get_series("cpu-numpy-out-triad").points) == 3  # the CPU went on
    assert any("GPU error at working set 16 KiB" in note and "illegal memory access" in note for note in result.notes)


@pytest.mark.parametrize(("assignment", "named"), [({"operations": "copy,scale"}, "operations"),
                                                   ({"forms": "numba"}, "forms"),
                                                   ({"working_sets": "1000"}, "working_sets"),
                                                   ({"working_sets": "1024"}, "working_sets"),
                                                   ({"seconds_per_point": "0"}, "seconds_per_point")])  # fmt: skip
def test_bad_parameters_name_the_field(assignment, named):
    with pytest.raises(ParamError, match=named):
        experiments.params_from_strings(bandwidth.Params, assignment)


def test_several_operations_and_forms_are_read_from_one_field():
    params = experiments.params_from_strings(bandwidth.Params, {"operations": "dot, add", "forms": "numpy-out"})
    assert params.operations == ("dot", "add") and params.forms == ("numpy-out",)


@pytest.mark.parametrize("op", bandwidth.OPERATIONS)
def test_each_stream_kernel_matches_numpy_in_the_emulator(op):
    spec = experiments.kernel(f"stream_{op}")
    preset = spec.preset("tiny")
    assert preset.grid[0] == 2  # the dot kernel's block sums meet in one atomicAdd
    args = spec.build_args(preset)
    expected = spec.expected(args)
    simt.launch(spec.source, spec.entry, preset.grid, preset.block, args)
    assert spec.matches(args, expected)


@pytest.mark.gpu
def test_on_a_gpu_every_kernel_is_timed_against_the_spec_bandwidth():
    params = replace(TINY, working_sets=(1 << 20, 1 << 28), forms=("numpy-out",), seconds_per_point=0.05)
    result = drive(bandwidth.run(params, Context()))
    for op in bandwidth.OPERATIONS:
        gpu = result.get_series(f"gpu-{op}")
        assert gpu.provenance.kind == "measured" and [p.x for p in gpu.points] == [1 << 20, 1 << 28]
        assert 0 < gpu.points[-1].extra["percent_of_peak"] <= 110


def test_the_command_line_prints_each_points_percent_of_its_ceiling(capsys):
    from gpulab import cli

    assert cli.main(["run", "bandwidth", "--quiet", "--set", "working_sets=4096,16384", "--set", "operations=triad",
                     "--set", "forms=numpy-out", "--set", "seconds_per_point=0.001"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "working set=16384  bandwidth=" in out and "% of peak)" in out


def test_a_saved_result_keeps_the_caches_of_the_machine_it_was_measured_on(result):
    import json

    from gpulab import results

    loaded = results.from_json_dict(json.loads(result.to_json()))
    assert loaded.host["memory"] == json.loads(json.dumps(result.host["memory"]))
    assert loaded.get_series("cpu-fused-triad").points[-1].extra["percent_of_peak"] > 0


def test_the_validation_rows_price_the_modelled_curve_as_the_lab_draws_it(result):
    from gpulab.validation.memory import stream_gb_s

    drawn = result.get_series("model-triad").points[-1]
    config = {"gpu": "h100-sxm", "operation": "triad", "working_set_bytes": int(drawn.x)}
    assert stream_gb_s(config) == pytest.approx(drawn.y)
    with pytest.raises(ValueError, match="operation must be one of copy, mul, add, triad, dot"):
        stream_gb_s({**config, "operation": "scale"})


def test_a_flagged_triad_point_is_no_ceiling_even_when_it_is_the_fastest():
    def series(key, points):
        return experiments.bandwidth.Series(key, Provenance("measured", "cpu"), "x", "B", "y", "GB/s",
                                            tuple(points), role="cpu", key=key)  # fmt: skip

    spike = flagged(Point(1 << 28, 400.0), ["spread"])  # a disturbed repeat, 16x the others
    triad = series("cpu-numpy-triad", [Point(1 << 27, 24.0), spike, Point(1 << 29, 22.0)])
    ceiling, out_of_cache = bandwidth.cpu_ceiling([triad], last_level_bytes=32 << 20)
    assert (ceiling.value, out_of_cache) == (24.0, True)
    assert bandwidth.cpu_ceiling([series("cpu-numpy-triad", [spike])], last_level_bytes=None) is None
