"""Every modelled figure against its published measurement (gpulab.validation, ``gpulab validate``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulab import catalogue, experiments, validation
from gpulab.cli import main
from gpulab.validation import Published, ValidationFormatError, check, load_rows
from gpulab.validation.evaluators import EVALUATORS

ROWS = load_rows()


def _row_file(tmp_path: Path, body: str, sources: str = "") -> Path:
    folder = tmp_path / "rows"
    folder.mkdir(exist_ok=True)
    head = sources or '[sources.s]\ntitle = "A paper"\nurl = "https://example.org"\n'
    (folder / "lab.toml").write_text(head + body, encoding="utf-8")
    return folder


# ------------------------------------------------------------------ the shipped rows


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_every_published_row_is_within_its_tolerance_of_the_model(row):
    found = check(row)
    assert found.status in ("pass", "unvalidated"), (
        f"{row.id}: model {found.model_value} {row.unit} vs published "
        f"{row.published.text() if row.published else '-'} {row.unit} (error {validation.error_text(found)}, "
        f"tolerance {row.tolerance:.0%}) {found.problem}"
    )


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_every_row_says_what_it_compares_in_both_languages_and_names_real_labs(row):
    key = f"validation.row.{row.id}"
    assert catalogue.has(key), f"{key} is missing from the text catalogue"
    assert not row.what_text, "a shipped row says what it compares in the catalogue, in both languages"
    english, chinese = catalogue.render(row.what, "en"), catalogue.render(row.what, "zh")
    assert english and chinese and english != chinese, f"{key} needs both English and Chinese"
    assert set(row.labs) <= set(experiments.names()), f"{row.id} names a lab that is not an experiment: {row.labs}"
    assert row.model in EVALUATORS


def test_every_published_row_cites_a_source_with_an_address_and_a_place_in_it():
    for row in ROWS:
        if row.published is not None:
            assert row.source is not None and row.source.url.startswith("https://"), row.id
            assert row.locator, f"{row.id}: say where in the source the figure is"


def test_every_gap_text_belongs_to_a_row():
    ids = {row.id for row in ROWS}
    orphans = [key for key in catalogue.keys() if key.startswith("validation.gap.")
               and key.removeprefix("validation.gap.") not in ids]  # fmt: skip
    assert not orphans


def test_the_labs_with_rows_include_the_cluster_and_execution_labs():
    assert {"collectives", "cluster-scaling", "launch", "transfer"} <= set(validation.labs())
    assert all(row for row in validation.rows_for("launch"))


# ------------------------------------------------------------------ judging a row


@pytest.mark.parametrize("published, value, error", [
    (Published(400, 400), 440, 0.10),
    (Published(400, 400), 340, -0.15),
    (Published(360, 370), 365, 0.0),
    (Published(360, 370), 407, 0.10),
    (Published(90, None), 95, 0.0),
    (Published(90, None), 81, -0.10),
    (Published(None, 80), 88, 0.10),
])  # fmt: skip
def test_the_error_is_measured_from_the_nearest_end_of_the_published_figure(published, value, error):
    assert published.error(value) == pytest.approx(error)


def test_a_row_outside_its_tolerance_fails_and_one_inside_passes(tmp_path):
    body = """
[[row]]
id = "inside"
labs = ["launch"]
model = "copy-gb-s"
config = {{ gen = 4, direction = "h2d", pinned = true }}
unit = "GB/s"
published = {inside}
tolerance = 0.05
source = "s"
locator = "Table 1"

[[row]]
id = "outside"
labs = ["launch"]
model = "copy-gb-s"
config = {{ gen = 4, direction = "h2d", pinned = true }}
unit = "GB/s"
published = {outside}
tolerance = 0.05
source = "s"
locator = "Table 1"
"""
    value = EVALUATORS["copy-gb-s"]({"gen": 4, "direction": "h2d", "pinned": True})
    rows = load_rows(_row_file(tmp_path, body.format(inside=value * 1.04, outside=value * 2)))
    assert [check(row).status for row in rows] == ["pass", "fail"]


def test_an_unknown_model_or_a_bad_configuration_is_a_verdict_not_a_crash(tmp_path):
    body = """
[[row]]
id = "no-such-model"
labs = ["launch"]
model = "warp-drive"
unit = "GB/s"
published = 1

tolerance = 0.1
source = "s"
locator = "p. 1"

[[row]]
id = "missing-config"
labs = ["launch"]
model = "copy-gb-s"
config = { direction = "h2d" }
unit = "GB/s"
published = 1
tolerance = 0.1
source = "s"
locator = "p. 1"
"""
    unknown, missing = (check(row) for row in load_rows(_row_file(tmp_path, body)))
    assert unknown.status == "error" and "warp-drive" in unknown.problem and "copy-gb-s" in unknown.problem
    assert missing.status == "error" and "gen" in missing.problem


def test_a_fitted_row_is_marked_so_in_the_check_the_json_and_the_printout(tmp_path, capsys):
    body = """
[[row]]
id = "set-from-this"
labs = ["transfer"]
model = "copy-gb-s"
config = { gen = 4, direction = "h2d", pinned = true }
unit = "GB/s"
published = [20, 30]
tolerance = 0.1
source = "s"
locator = "Table 2"
fitted = true
"""
    folder = _row_file(tmp_path, body)
    (row,) = load_rows(folder)
    assert row.fitted and validation.summary([check(row)])["fitted"] == 1
    main(["validate", "--rows", str(folder)])
    assert "fitted: the model's constants were set from this figure" in capsys.readouterr().out
    main(["validate", "--rows", str(folder), "--json", "-"])
    assert json.loads(capsys.readouterr().out)["checks"][0]["fitted"] is True


@pytest.mark.parametrize("bound, measured_over_model, status", [
    ("upper", 0.5, "pass"),   # the model is at or above the measurement: an upper bound holds
    ("upper", 2.0, "fail"),
    ("lower", 2.0, "pass"),
    ("lower", 0.5, "fail"),
])  # fmt: skip
def test_a_bound_row_passes_exactly_when_the_model_is_on_the_side_it_claims(tmp_path, capsys, bound,
                                                                            measured_over_model, status):  # fmt: skip
    value = EVALUATORS["copy-gb-s"]({"gen": 4, "direction": "h2d", "pinned": True})
    body = f"""
[[row]]
id = "a-bound"
labs = ["transfer"]
model = "copy-gb-s"
config = {{ gen = 4, direction = "h2d", pinned = true }}
unit = "GB/s"
published = {value * measured_over_model}
bound = "{bound}"
tolerance = 0.0
source = "s"
locator = "Fig. 1"
"""
    folder = _row_file(tmp_path, body)
    (row,) = load_rows(folder)
    assert check(row).status == status
    main(["validate", "--rows", str(folder)])
    claim = {"upper": "the model claims an upper bound", "lower": "the model claims a lower bound"}[bound]
    assert claim in capsys.readouterr().out


def test_a_row_without_a_published_figure_is_unvalidated_and_does_not_fail(tmp_path):
    body = """
[[row]]
id = "nothing-published"
what = "Gen3 pageable copies"
labs = ["transfer"]
model = "copy-gb-s"
config = { gen = 3, direction = "d2h", pinned = false }
unit = "GB/s"
"""
    (row,) = load_rows(_row_file(tmp_path, body))
    found = check(row)
    assert found.status == "unvalidated" and found.within and found.model_value > 0
    assert catalogue.render(row.what, "zh") == "Gen3 pageable copies"  # the user's own words, not a key


@pytest.mark.parametrize("body, problem", [
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\npublished = 3\ntolerance = 0.1\n',
     "needs its source"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\npublished = 3\ntolerance = 0.1\nsource = "t"\n',
     "not in this file's [sources]"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\npublished = "about 3"\ntolerance = 0.1\n',
     "published must be"),
    ('[[row]]\nid = "a b"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\n', "id must be"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\npublished = 3\nsource = "s"\n', "tolerance"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\ncolour = "red"\n', "unknown field(s) colour"),
    ('[[row]]\nid = "a"\nlabs = "x"\nmodel = "m"\nunit = "u"\n', "labs must be a list"),
    ("[[row]\n", "not valid TOML"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\nfitted = "yes"\n', "fitted must be true or false"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\nbound = "over"\n', "bound must be 'upper' or 'lower'"),
    ('[[row]]\nid = "a"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\npublished = ">= 3"\nbound = "upper"\ntolerance = 0.1\n'
     'source = "s"\n', "a bound row needs a published value"),
])  # fmt: skip
def test_a_malformed_row_is_refused_with_the_file_the_row_and_the_problem(tmp_path, body, problem):
    with pytest.raises(ValidationFormatError) as caught:
        load_rows(_row_file(tmp_path, body))
    assert problem in str(caught.value) and "lab.toml" in str(caught.value)


def test_a_row_id_used_in_two_files_is_refused(tmp_path):
    body = '[[row]]\nid = "twice"\nlabs = ["x"]\nmodel = "m"\nunit = "u"\n'
    folder = _row_file(tmp_path, body)
    (folder / "other.toml").write_text(body, encoding="utf-8")
    with pytest.raises(ValidationFormatError, match="'twice' is used in"):
        load_rows(folder)


# ------------------------------------------------------------------ gpulab validate


def test_gpulab_validate_prints_every_row_and_passes_on_the_shipped_rows(capsys):
    code = main(["validate"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert all(row.id in out for row in ROWS)
    assert f"{len(ROWS)} rows:" in out


def test_gpulab_validate_exits_1_when_a_row_is_outside_its_tolerance(tmp_path, capsys):
    body = """
[[row]]
id = "far-off"
labs = ["transfer"]
model = "copy-gb-s"
config = { gen = 4, direction = "h2d", pinned = true }
unit = "GB/s"
published = 1000
tolerance = 0.1
source = "s"
locator = "Fig. 2"
"""
    code = main(["validate", "--rows", str(_row_file(tmp_path, body))])
    out = capsys.readouterr().out
    assert code == 1
    assert "OUTSIDE" in out and "far-off" in out and "A paper, Fig. 2" in out


def test_gpulab_validate_writes_json_with_the_model_the_published_figure_and_the_verdict(capsys):
    code = main(["validate", "--lab", "launch", "--json", "-"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["schema"] == "gpulab.validation/1"
    launch_rows = validation.rows_for("launch")
    assert [c["id"] for c in data["checks"]] == [row.id for row in launch_rows]
    first = data["checks"][0]
    assert {"model_value", "published", "error", "tolerance", "status", "source", "url", "what"} <= set(first)
    assert data["summary"]["pass"] + data["summary"]["unvalidated"] == len(launch_rows)


def test_gpulab_validate_speaks_chinese_when_asked(capsys):
    main(["validate", "--lab", "launch", "--lang", "zh"])
    out = capsys.readouterr().out
    assert catalogue.render(validation.rows_for("launch")[0].what, "zh") in out


@pytest.mark.parametrize("argv, problem", [
    (["validate", "--lab", "no-such-lab"], "no rows for lab 'no-such-lab'"),
    (["validate", "--rows", "/no/such/folder"], "is not a folder of validation files"),
    (["validate", "--json", "/no/such/folder/out.json"], "--json"),
])  # fmt: skip
def test_gpulab_validate_refuses_bad_input_with_exit_2_and_one_line(argv, problem, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert problem in err and "Traceback" not in err
