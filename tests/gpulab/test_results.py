import json
import re

import pytest

from gpulab import results
from gpulab.catalogue import Message, Note, msg, render
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
    assert doc["schema"] == "gpulab.result/2"
    assert set(doc) == {"schema", "experiment", "params", "created", "host", "series", "notes"}
    assert set(doc["series"][0]) == {
        "name", "role", "key", "label", "provenance", "x_label", "x_label_message", "x_unit", "y_label",
        "y_label_message", "y_unit", "points"}
    assert set(doc["series"][0]["points"][0]) == {"x", "y", "spread", "extra"}
    assert doc["notes"] == [{"key": "", "args": {"text": "a note"}, "text": "a note"}]


def keyed_result() -> Result:
    prov = Provenance("measured", "Test CPU")
    series = Series("CPU numpy (1 thread)", prov, "n", "", "throughput", "GFLOP/s", key="cpu-numpy-1-thread",
                    label=msg("series.cpu-numpy-1-thread"))
    note = msg("note.crossover.faster", gpu=msg("series.gpu-cublas"), kind=msg("provenance.measured"),
               cpu=msg("series.cpu-numpy-1-thread"), unit="N", size=256)
    english = "GPU times count the multiply only: the matrices are already on the GPU."
    return Result("matmul", {}, (series,), (note, english))


def test_a_note_keeps_its_key_and_arguments_and_rerenders_in_chinese_after_a_round_trip():
    original = keyed_result()
    loaded = results.loads(original.to_json())
    note = loaded.notes[0]
    assert isinstance(note, Note) and note.message.key == "note.crossover.faster"
    assert note.startswith("Crossover: GPU cuBLAS (cupy.matmul) (measured)")
    zh = render(note.message, "zh")
    assert zh == "交叉点：从 N=256 起，GPU cuBLAS（cupy.matmul）（实测）比 CPU numpy（1 个线程）快。"
    assert loaded == original
    assert [n.message for n in loaded.notes] == [n.message for n in original.notes]


def test_the_json_note_stores_key_arguments_and_the_rendered_english():
    doc = json.loads(keyed_result().to_json())
    note = doc["notes"][0]
    assert note["key"] == "note.crossover.faster"
    assert note["args"]["gpu"] == {"key": "series.gpu-cublas", "args": {}}
    assert note["args"]["size"] == 256
    assert note["text"].startswith("Crossover: GPU cuBLAS")


def test_a_series_keeps_its_stable_key_and_label_message():
    loaded = results.loads(keyed_result().to_json()).series[0]
    assert loaded.key == "cpu-numpy-1-thread"
    assert loaded.label == msg("series.cpu-numpy-1-thread")
    assert render(loaded.label, "zh") == "CPU numpy（1 个线程）"
    assert results.loads(keyed_result().to_json()).get_series("cpu-numpy-1-thread") is not None


def test_a_series_without_a_key_is_keyed_by_its_name():
    assert sample_result().series[0].key == "cpu"


def test_a_schema_1_document_still_loads_with_plain_english_notes_shown_as_they_are():
    doc = json.loads(sample_result().to_json())
    doc["schema"] = "gpulab.result/1"
    doc["notes"] = ["Crossover: an old sentence."]
    for series in doc["series"]:
        del series["key"], series["label"]
    loaded = results.loads(json.dumps(doc))
    note = loaded.notes[0]
    assert note == "Crossover: an old sentence." and note.message.key == ""
    assert render(note.message, "zh") == "Crossover: an old sentence."
    assert loaded.series[0].key == "cpu" and loaded.series[0].label is None


def test_a_schema_1_note_that_is_not_a_string_is_refused():
    doc = json.loads(sample_result().to_json())
    doc["schema"] = "gpulab.result/1"
    doc["notes"] = [{"key": "x"}]
    with pytest.raises(ResultFormatError, match=r"notes\[0\]: expected a string"):
        results.loads(json.dumps(doc))


def test_a_note_whose_key_this_gpulab_does_not_know_shows_the_stored_english():
    doc = json.loads(sample_result().to_json())
    doc["notes"] = [{"key": "note.from-a-newer-gpulab", "args": {}, "text": "A newer sentence."}]
    note = results.loads(json.dumps(doc)).notes[0]
    assert note == "A newer sentence."
    assert note.message.key == "note.from-a-newer-gpulab"
    from gpulab import catalogue

    old = catalogue.set_strict(False)
    try:
        assert render(note.message, "zh") == "A newer sentence."
    finally:
        catalogue.set_strict(old)


def test_merge_notes_drops_a_sentence_given_twice_as_a_message_and_as_english():
    twice = results.merge_notes([msg("model.assumption.no-copy-overlap")],
                                ["Copies do not overlap with each other or with kernels.", Message("", {"text": "x"})])
    assert [str(n) for n in twice] == ["Copies do not overlap with each other or with kernels.", "x"]
    assert twice[0].message.key == "model.assumption.no-copy-overlap"


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
        (lambda d: d.update(notes=["plain"]), r"notes\[0\]: expected an object"),
        (lambda d: d["notes"][0].pop("text"), r"notes\[0\]\.text: missing"),
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


@pytest.mark.parametrize("text, words", [
    ("1e400", "too large for a double"),
    ("1" * 5001, "5001 digits"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"x": NaN}', "NaN is not a JSON number"),
])
def test_hostile_numbers_and_nesting_are_format_errors_naming_the_problem(text, words):
    with pytest.raises(ResultFormatError, match=words):
        results.loads(text, "hostile.json")


def test_a_result_file_over_the_size_limit_is_refused_with_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "MAX_RESULT_BYTES", 1024)
    path = tmp_path / "big.json"
    path.write_text(" " * 4096 + "{}", encoding="utf-8")
    with pytest.raises(ResultFormatError, match="too big for a result"):
        results.load(path)


def test_a_lone_surrogate_in_a_note_is_repaired_so_the_result_saves_again(tmp_path):
    result = Result(experiment="e", params={}, series=(), notes=("fine",))
    data = result.to_json_dict()
    text = json.dumps(data).replace('"fine"', '"bad \\ud800 note"')
    loaded = results.loads(text)
    assert "\ufffd" in str(loaded.notes[0])
    json.dumps(loaded.to_json_dict(), ensure_ascii=False).encode("utf-8")  # saves without error


def _saved(tmp_path, change):
    """A real saved result with one change made to its JSON (a hand-edited or hostile file)."""
    import json

    from gpulab.results import Point, Provenance, Result, Series

    series = Series("cpu", Provenance("measured", "test cpu"), "n", "", "GB/s", "GB/s",
                    (Point(1024, 5.0, extra={"seconds": 1e-6, "percent_of_peak": 12.0}),))  # fmt: skip
    path = tmp_path / "result.json"
    Result("saxpy", {}, (series,)).save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("seconds", "abc", "extra.seconds: expected a number, got str"),
    ("percent_of_peak", [1, 2], "extra.percent_of_peak: expected a number, got list"),
])  # fmt: skip
def test_a_point_fact_a_front_end_formats_as_a_number_must_be_one(tmp_path, key, value, problem):
    from gpulab.results import ResultFormatError, load

    path = _saved(tmp_path, lambda data: data["series"][0]["points"][0]["extra"].__setitem__(key, value))
    with pytest.raises(ResultFormatError, match=re.escape(problem)):
        load(path)


def test_an_integer_no_double_can_hold_is_refused_as_not_finite(tmp_path):
    from gpulab.results import ResultFormatError, load

    path = _saved(tmp_path, lambda data: None)
    path.write_text(path.read_text(encoding="utf-8").replace('"x": 1024', '"x": ' + "9" * 350), encoding="utf-8")
    with pytest.raises(ResultFormatError, match=r"points\[0\]\.x: must be finite"):
        load(path)


def test_control_characters_in_a_files_text_cannot_reach_a_terminal(tmp_path):
    from gpulab.results import load

    evil = "evil\x1b[2J\x1b]0;pwned\x07\nnote: fake line\u202e"
    path = _saved(tmp_path, lambda data: data["series"][0].__setitem__("name", evil))
    name = load(path).series[0].name
    assert name.startswith("evil") and "fake line" in name
    assert not [ch for ch in name if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or 0x202A <= ord(ch) <= 0x202E]


def test_a_named_pipe_is_refused_by_name_without_waiting_for_a_writer(tmp_path):
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    code = ("import sys; from gpulab.results import load\n"
            "try:\n    load(sys.argv[1])\nexcept Exception as e:\n    print(e)")  # a hang ends at the timeout
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60)
    assert "not a regular file" in done.stdout


def test_a_partial_result_says_so_in_its_file_and_loads_back_with_the_marker(tmp_path):
    marker = {"cause": "SIGTERM", "at": "2025-01-01T00:00:00+00:00", "host": "here", "points": 1,
              "last_point": {"series": "s", "x": 8.0}, "doing": "measuring 8 B"}
    series = Series("s", Provenance("measured", "cpu"), "x", "B", "y", "GB/s", (Point(8.0, 1.5),))
    Result("bandwidth", {}, (series,), partial=marker).save(tmp_path / "partial.json")
    loaded = results.load(tmp_path / "partial.json")
    assert dict(loaded.partial) == marker and loaded.series[0].points[0].y == 1.5
    assert results.replay(tmp_path / "partial.json").partial["cause"] == "SIGTERM"
    whole = Result("bandwidth", {}, (series,))
    assert whole.partial is None and "partial" not in whole.to_json_dict()


def test_a_labs_own_lesson_is_read_before_the_note_about_this_machines_missing_gpu():
    from gpulab.results import reading_order

    notes = results.merge_notes([msg("note.no-gpu", reason="no driver"), msg("note.saxpy.bytes")])
    ordered = reading_order(notes)
    assert [n.message.key for n in ordered] == ["note.saxpy.bytes", "note.no-gpu"]
    assert sorted(ordered) == sorted(notes)  # nothing lost
