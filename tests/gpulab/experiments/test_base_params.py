"""Declared parameter limits: one validator, messages that name the field and its range, accessors."""

import dataclasses
from dataclasses import dataclass
from typing import Literal

import pytest

from gpulab import experiments
from gpulab.catalogue import render
from gpulab.lab.base import (
    CheckedParams,
    ParamError,
    ParamSpec,
    choices,
    field_spec,
    param,
    params_from_strings,
    presets,
    validate_params,
)


@dataclass(frozen=True)
class Toy(CheckedParams):
    count: int = param(4, min=1, max=10)
    block: int = param(64, min=32, max=1024, multiple_of=32)
    width: int = param(8, min=1, power_of_two=True)
    scale: float = param(0.5, unit="x", min=0.0, max=1.0)
    dtype: Literal["fp32", "fp64"] = param("fp32")
    mode: str = param("fast", choices=("fast", "exact"))
    sizes: tuple[int, ...] = param((2, 4), min=1, max=64,
                                   presets=(("standard", (2, 4)), ("quick", (2,))))
    free: int = 7  # no limits declared


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"count": 0}, "count: must be a whole number from 1 to 10, got 0"),
        ({"count": 11}, "count: must be a whole number from 1 to 10, got 11"),
        ({"block": 48}, "block: must be a multiple of 32 from 32 to 1024, got 48"),
        ({"width": 12}, "width: must be a power of two of at least 1, got 12"),
        ({"scale": 1.5}, "scale: must be a number from 0.0 to 1.0, got 1.5"),
        ({"dtype": "fp16"}, "dtype: must be one of fp32, fp64, got 'fp16'"),
        ({"mode": "slow"}, "mode: must be one of fast, exact, got 'slow'"),
        ({"sizes": ()}, "sizes: give at least one value"),
        ({"sizes": (2, 65)}, "sizes: every value must be a whole number from 1 to 64, got 65"),
    ],
)
def test_every_kind_of_limit_is_refused_with_the_field_and_its_range(values, message):
    with pytest.raises(ParamError) as caught:
        Toy(**values)
    assert str(caught.value) == message
    assert caught.value.message.key.startswith("param.error.")
    assert render(caught.value.message) == message
    assert render(caught.value.message, "zh") != message  # the same mistake, in Chinese


def test_values_on_the_limits_are_accepted_and_undeclared_fields_are_not_checked():
    Toy(count=10, block=1024, width=1, scale=0.0, dtype="fp64", mode="exact", sizes=(1, 64), free=-5)


def test_a_value_of_another_type_is_a_type_error_not_a_users_typo():
    with pytest.raises(TypeError):
        Toy(count="many")  # type: ignore[arg-type]


def test_validate_params_works_on_a_dataclass_without_the_mixin():
    @dataclass(frozen=True)
    class Plain:
        count: int = param(4, min=1)

    validate_params(Plain())
    with pytest.raises(ParamError, match="count: must be a whole number of at least 1, got 0"):
        validate_params(dataclasses.replace(Plain(), count=0))


def test_params_from_strings_reports_a_limit_as_a_param_error():
    with pytest.raises(ParamError, match="block: must be a multiple of 32"):
        params_from_strings(Toy, {"block": "40"})


def test_presets_and_choices_come_from_the_declaration_or_the_literal_type():
    assert presets(Toy, "sizes") == (("standard", (2, 4)), ("quick", (2,)))
    assert presets(Toy, "count") == ()
    assert choices(Toy, "dtype") == ("fp32", "fp64")
    assert choices(Toy, "mode") == ("fast", "exact")
    assert choices(Toy, "count") == ()
    assert field_spec(Toy, "scale") == ParamSpec(unit="x", min=0.0, max=1.0)
    with pytest.raises(ParamError, match="unknown parameter 'colour'"):
        field_spec(Toy, "colour")


def test_param_texts_are_found_in_the_catalogue_by_key():
    from gpulab.lab.base import param_key, param_text

    matmul = experiments.get("matmul")
    assert param_key(matmul.Params, "sizes") == "experiment.matmul.param.sizes"
    assert render(param_text(matmul.Params, "sizes", "label"), "zh") == "矩阵规模 N"
    assert param_text(matmul.Params, "dtype", "help") is None  # no help written: none shown
    assert param_key(Toy, "scale") is None and param_text(Toy, "scale") is None  # not a registered lab

    @dataclass(frozen=True)
    class Keyed:
        sizes: tuple[int, ...] = param((1,), key="experiment.matmul.param.sizes", min=1)

    assert param_key(Keyed, "sizes") == "experiment.matmul.param.sizes"
    assert render(param_text(Keyed, "sizes", "help")) == "Matrix sizes to run, comma-separated."


def test_matmul_sweeps_offer_the_panels_presets_and_its_data_types():
    matmul = experiments.get("matmul")
    assert [name for name, _sizes in presets(matmul.Params, "sizes")] == ["standard", "quick", "large", "huge"]
    assert presets(matmul.Params, "sizes")[0][1] == matmul.Params().sizes
    assert presets(matmul.Params, "sizes")[-1][1][-1] == 8192
    assert choices(matmul.Params, "dtype") == ("fp32", "fp64", "fp16")
    assert choices(experiments.get("vector-add").Params, "dtype") == ("fp32",)


@pytest.mark.parametrize("name", experiments.names())
def test_every_declared_preset_of_every_experiment_passes_its_own_limits(name):
    params_type = experiments.get(name).Params
    for f in dataclasses.fields(params_type):
        for _key, value in presets(params_type, f.name):
            params_type(**{f.name: value})
