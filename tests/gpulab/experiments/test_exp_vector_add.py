import pytest

from gpulab.cuda import cuda_status
from gpulab.experiments import Context, drive, vector_add
from gpulab.model import DEFAULT_LAUNCH_OVERHEAD_S, memory_share
from gpulab.results import Result
from gpulab.specs import load_specs


@pytest.fixture(scope="module")
def small_result() -> Result:
    return drive(vector_add.run(vector_add.Params(sizes=(1024, 1 << 16), repeats=3), Context()))


def model_of(result: Result):
    return next(s for s in result.series if s.provenance.kind == "modelled")


def test_cpu_series_keeps_its_name_and_reports_gb_per_s(small_result):
    cpu = small_result.get_series(vector_add.CPU_SERIES)
    assert cpu.provenance.kind == "measured" and cpu.y_unit == "GB/s"
    point = cpu.points[-1]
    assert point.y == pytest.approx(3 * 4 * (1 << 16) / point.extra["seconds"] / 1e9, rel=0.25)
    assert point.extra["repeats"] >= 3


def test_a_modelled_gpu_series_is_added_and_labelled_as_such(small_result):
    model = model_of(small_result)
    assert model.name == vector_add.model_series_name(model.provenance.device)
    assert model.provenance.details["spec_key"] == "h100-sxm"
    assert [p.x for p in model.points] == [1024, 1 << 16]
    assert any("Memory bandwidth is" in note for note in small_result.notes)


def test_the_modelled_add_moves_its_bytes_at_the_achievable_rate_and_the_notes_say_whose(small_result):
    share = memory_share(load_specs().get("h100-sxm"))
    model = model_of(small_result)
    assert model.provenance.details["achievable_gb_s"] == share.gb_s < model.provenance.details["memory_bandwidth_gb_s"]
    for point in model.points:
        n = point.x
        assert point.extra["seconds"] == pytest.approx(12 * n / (share.gb_s * 1e9) + DEFAULT_LAUNCH_OVERHEAD_S)
    note = next(n for n in small_result.notes if n.startswith("The modelled NVIDIA H100"))
    assert share.percent in note and share.source in note


@pytest.mark.skipif(cuda_status().available, reason="checks the no-GPU case")
def test_without_a_gpu_there_is_no_measured_gpu_series_and_the_notes_say_why(small_result):
    assert small_result.get_series(vector_add.GPU_SERIES) is None
    assert any(cuda_status().reason in note for note in small_result.notes)


def test_transfers_dominate_the_modelled_vector_add():
    result = drive(vector_add.run(vector_add.Params(sizes=(1 << 20,), repeats=1, include_transfers=True), Context()))
    point = model_of(result).points[0]
    copies = point.extra["h2d_seconds"] + point.extra["d2h_seconds"]
    assert copies > point.extra["kernel_seconds"] * 10  # PCIe is ~100x slower than HBM
    assert point.extra["bound"] == "transfer-bound"


def test_only_fp32_is_accepted():
    with pytest.raises(ValueError, match="fp32"):
        vector_add.Params(dtype="fp64")  # type: ignore[arg-type]


def test_with_a_gpu_faked_the_sweep_adds_a_measured_gpu_series_compared_with_its_ceiling(monkeypatch):
    from types import SimpleNamespace

    from gpulab import cuda

    gpu = SimpleNamespace(index=0, peak_bandwidth_gb_s=4800.0)
    status = SimpleNamespace(available=True, reason="", cupy_version="13", cuda_runtime_version="12",
                             cuda_driver_version="12", devices=[gpu])  # fmt: skip
    monkeypatch.setattr(cuda, "cuda_status", lambda: status)
    monkeypatch.setattr(cuda, "device_name", lambda index: "NVIDIA H200")
    monkeypatch.setattr(vector_add, "time_gpu", lambda n, repeats, *_rest: {"total": [1e-5] * repeats,
                                                                            "kernel": [1e-5] * repeats})
    result = drive(vector_add.run(vector_add.Params(sizes=(1024,), repeats=2), Context()))
    assert [s.role for s in result.series] == ["cpu", "gpu", "model"]
    measured = result.get_series(vector_add.GPU_SERIES)
    assert measured.provenance.details["ceiling"] > 0 and measured.points[0].extra["percent_of_peak"] > 0
    assert measured.points[0].extra["kernel_seconds"] == pytest.approx(1e-5)
    assert sum(note.startswith("Crossover:") for note in result.notes) == 2


def test_the_validation_rows_price_the_add_as_the_modelled_series_draws_it(small_result):
    from gpulab.validation.memory import vector_add_gb_s

    for point in model_of(small_result).points:
        assert vector_add_gb_s({"gpu": "h100-sxm", "n": int(point.x)}) == pytest.approx(point.y)
