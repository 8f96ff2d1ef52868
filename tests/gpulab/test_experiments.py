import json
import subprocess
import sys
import threading
from dataclasses import dataclass

import pytest

from gpulab import experiments, results
from gpulab.lab.base import (
    Cancelled,
    Context,
    ParamError,
    PartialPoint,
    Progress,
    drive,
    params_from_strings,
)
from gpulab.results import Point, Provenance, Result, Series


@dataclass(frozen=True)
class FakeParams:
    count: int = 3
    scale: float = 1.0
    sizes: tuple[int, ...] = (1, 2)
    fast: bool = False
    label: str | None = None


def counting_run(params: FakeParams, ctx: Context, log: list[str]):
    series = Series("s", Provenance("modelled", "nothing"), "i", "", "v", "")
    try:
        for i in range(params.count):
            yield Progress(i / params.count)
            point = Point(i, i * params.scale)
            series = series.with_point(point)
            yield PartialPoint("s", point)
        return Result("fake", {}, (series,))
    finally:
        log.append("closed")


def test_params_convert_each_field_to_its_type():
    params = params_from_strings(
        FakeParams, {"count": "2^4", "scale": "0.5", "sizes": "1024, 4096", "fast": "yes", "label": "x"}
    )
    assert params == FakeParams(16, 0.5, (1024, 4096), True, "x")


@pytest.mark.parametrize(
    ("assignments", "message"),
    [({"colour": "red"}, "unknown parameter 'colour'"), ({"count": "many"}, "count: expected a whole number"),
     ({"fast": "maybe"}, "fast: expected true or false"), ({"scale": "big"}, "scale: expected a number")],
)
def test_bad_parameters_name_the_parameter(assignments, message):
    with pytest.raises(ParamError, match=message):
        params_from_strings(FakeParams, assignments)


def test_drive_runs_a_generator_to_its_result_and_reports_every_event():
    events, log = [], []
    result = drive(counting_run(FakeParams(count=3), Context(), log), events.append)
    assert [p.y for p in result.series[0].points] == [0, 1, 2]
    assert sum(isinstance(e, PartialPoint) for e in events) == 3
    assert log == ["closed"]


def test_cancelling_between_yields_closes_the_generator():
    cancel, log, seen = threading.Event(), [], []

    def on_event(event):
        seen.append(event)
        if len(seen) == 2:
            cancel.set()

    with pytest.raises(Cancelled):
        drive(counting_run(FakeParams(count=100), Context(cancel), log), on_event, cancel)
    assert len(seen) == 2
    assert log == ["closed"]


def test_vector_add_measures_the_cpu_and_explains_a_missing_gpu():
    module = experiments.get("vector-add")
    result = drive(module.run(module.Params(sizes=(256, 4096), repeats=2), Context()))
    cpu = result.get_series("CPU (numpy)")
    assert cpu is not None and cpu.provenance.kind == "measured"
    assert [p.x for p in cpu.points] == [256, 4096]
    assert all(p.y > 0 for p in cpu.points)
    from gpulab.cuda import cuda_status

    if not cuda_status().available:
        assert result.get_series("GPU (CUDA kernel)") is None
        assert any(cuda_status().reason in note for note in result.notes)


@pytest.mark.gpu
def test_vector_add_on_a_gpu_has_a_measured_gpu_series():
    module = experiments.get("vector-add")
    result = drive(module.run(module.Params(sizes=(1 << 20,), repeats=3), Context()))
    gpu = result.get_series("GPU (CUDA kernel)")
    assert gpu is not None and gpu.provenance.kind == "measured"
    assert gpu.points[0].y > 0


def test_unknown_experiment_lists_the_known_ones():
    with pytest.raises(experiments.ExperimentError, match="vector-add"):
        experiments.get("warp-drive")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpulab.cli", *args], capture_output=True, text=True, timeout=120)


def test_cli_run_prints_a_valid_result_document():
    proc = run_cli("run", "vector-add", "--set", "sizes=1024", "--set", "repeats=2", "--json", "-", "--quiet")
    assert proc.returncode == 0, proc.stderr
    result = results.from_json_dict(json.loads(proc.stdout))
    assert result.series[0].provenance.kind == "measured"


def test_cli_run_with_a_bad_parameter_says_which_and_fails():
    proc = run_cli("run", "vector-add", "--set", "repeats=lots")
    assert proc.returncode == 2
    assert "repeats: expected a whole number" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_list_names_every_registered_experiment():
    proc = run_cli("list")
    assert proc.returncode == 0
    for name in experiments.names():
        assert name in proc.stdout


def test_random_normal_is_reproducible_and_has_the_asked_dtype_and_shape():
    import numpy as np

    from gpulab.lab.base import random_normal

    a = random_normal(np.random.default_rng(1), (300, 700), "float32")
    b = random_normal(np.random.default_rng(1), (300, 700), "float32")
    assert a.shape == (300, 700) and a.dtype == np.float32
    assert np.array_equal(a, b)
    assert abs(float(a.mean())) < 0.02 and 0.97 < float(a.std()) < 1.03
    half = random_normal(np.random.default_rng(1), 1000, "float16")
    assert half.dtype == np.float16 and np.isfinite(half).all()


def test_bench_sweep_measures_a_run_and_reports_its_stalls():
    from gpulab.bench import sweep

    row = sweep.measure("vector-add", {"sizes": "1024,65536", "repeats": "2"})
    assert row["wall_s"] > 0
    assert 0 <= row["p99_ms"] <= row["worst_ms"]
