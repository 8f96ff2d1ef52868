import json

import pytest

from gpulab import results
from gpulab.results import Point, Provenance, Result, ResultFormatError, Series


def sample_result() -> Result:
    prov = Provenance("measured", "Test CPU", {"blas": "openblas"})
    series = Series("cpu", prov, "n", "", "bandwidth", "GB/s").with_point(
        Point(1024, 12.5, 0.5, {"seconds": 1e-6})
    ).with_point(Point(2048, 13.0))
    return Result("vector-add", {"sizes": [1024, 2048]}, (series,), ("a note",))


def test_result_survives_a_json_round_trip_unchanged():
    original = sample_result()
    loaded = results.loads(original.to_json())
    assert loaded == original
    assert loaded.series[0].points[1].spread is None


def test_json_document_has_the_documented_schema_fields():
    doc = json.loads(sample_result().to_json())
    assert doc["schema"] == "gpulab.result/1"
    assert set(doc) == {"schema", "experiment", "params", "created", "host", "series", "notes"}
    assert set(doc["series"][0]) == {"name", "role", "provenance", "x_label", "x_unit", "y_label", "y_unit", "points"}
    assert set(doc["series"][0]["points"][0]) == {"x", "y", "spread", "extra"}


def test_unknown_provenance_kind_is_refused():
    with pytest.raises(ValueError, match="provenance kind"):
        Provenance("guessed", "x")


def test_replayed_result_keeps_the_original_kind_in_details():
    replayed = sample_result().as_replayed()
    prov = replayed.series[0].provenance
    assert prov.kind == "replayed"
    assert prov.details["original_kind"] == "measured"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(schema="other.thing/1"), "not a gpulab result"),
        (lambda d: d.update(schema="gpulab.result/9"), "not supported"),
        (lambda d: d.pop("series"), "series: missing"),
        (lambda d: d["series"][0]["points"][0].update(y="fast"), r"series\[0\]\.points\[0\]\.y: expected a number"),
        (lambda d: d["series"][0]["provenance"].update(kind="guessed"), r"series\[0\]\.provenance\.kind"),
        (lambda d: d.update(notes="x"), r"notes: expected a list"),
        (lambda d: d["series"][0].update(role="teacher"), r"series\[0\]\.role: must be one of cpu, gpu, model"),
    ],
)
def test_malformed_documents_give_an_error_naming_the_problem(mutate, message):
    doc = json.loads(sample_result().to_json())
    mutate(doc)
    with pytest.raises(ResultFormatError, match=message):
        results.loads(json.dumps(doc), "report.json")


def test_a_foreign_json_file_is_named_in_the_error(tmp_path):
    path = tmp_path / "package.json"
    path.write_text('["not", "an", "object"]')
    with pytest.raises(ResultFormatError, match=r"package.json.*expected an object"):
        results.load(path)


def test_a_binary_or_broken_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "photo.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(ResultFormatError, match=r"photo\.png"):
        results.load(path)
    text = tmp_path / "half.json"
    text.write_text('{"schema": ')
    with pytest.raises(ResultFormatError, match="not valid JSON"):
        results.load(text)


def test_save_and_load_through_a_file(tmp_path):
    path = tmp_path / "r.json"
    original = sample_result()
    original.save(path)
    assert results.load(path) == original


def test_a_series_role_survives_a_json_round_trip():
    series = Series("numpy", Provenance("measured", "Test CPU"), "n", "", "bandwidth", "GB/s", role="cpu")
    loaded = results.loads(Result("vector-add", {}, (series,)).to_json())
    assert loaded.series[0].role == "cpu"


@pytest.mark.parametrize(
    ("name", "kind", "role"),
    [("CPU (numpy)", "measured", "cpu"), ("GPU (CUDA kernel)", "measured", "gpu"),
     ("H100 (model)", "modelled", "model"), ("branch efficiency (emulated)", "emulated", "emulated")],
)
def test_a_file_written_before_roles_still_loads_with_a_role_from_its_provenance(name, kind, role):
    series = Series(name, Provenance(kind, "x"), "n", "", "y", "")
    doc = json.loads(Result("vector-add", {}, (series,)).to_json())
    del doc["series"][0]["role"]
    loaded = results.loads(json.dumps(doc))
    assert loaded.series[0].role == role
    assert results.loads(Result("vector-add", {}, (series,)).as_replayed().to_json()).series[0].role == role


def test_an_unknown_role_is_refused():
    with pytest.raises(ValueError, match="series role must be one of cpu, gpu, model, emulated"):
        Series("s", Provenance("measured", "x"), "n", "", "y", "", role="teacher")
