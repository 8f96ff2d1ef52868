"""What an experiment is, and how one is run.

An experiment is a module with a ``Params`` dataclass, a ``TITLE``, a ``DESCRIPTION`` and a
generator ``run(params, ctx)``; how such a run is driven and what it yields lives in
:mod:`gpulab.lab.run` (re-exported here). This module is about parameters: declaring them,
checking them, reading them from text.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from gpulab import catalogue
from gpulab.catalogue import Message, msg
from gpulab.lab.declare import registry
from gpulab.lab.run import (  # re-exported: a lab imports its whole platform from here
    Cancelled,
    Context,
    Event,
    ExperimentError,
    ExperimentGen,
    ParamError,
    PartialPoint,
    Progress,
    drive,
)
from gpulab.specs import load_specs

__all__ = ["Cancelled", "CheckedParams", "Context", "Event", "ExperimentError", "ExperimentGen", "ParamError",
           "ParamSpec", "PartialPoint", "Progress", "choice_text", "choices", "convert_param", "drive",
           "field_spec", "param", "param_key", "param_text", "params_from_strings", "params_to_dict",
           "powers_of_two", "presets", "random_normal", "resolve_model_gpu", "validate_params"]

# ----------------------------------------------------------------- parameters


@dataclass(frozen=True)
class ParamSpec:
    """What a Params field declares beyond its type: its unit, limits, choices and presets.

    For a ``tuple[X, ...]`` field the limits and choices hold for every element, and the tuple
    must not be empty. ``presets`` are named values for a sweep (``("standard", (64, 128))``);
    the first one is the preset a front end shows first (selected by default). ``needs_gpu``:
    the field only means something with a usable GPU (a front end greys it out without one).
    """

    unit: str = ""
    min: float | None = None
    max: float | None = None
    multiple_of: int | None = None
    power_of_two: bool = False
    choices: tuple[Any, ...] = ()
    presets: tuple[tuple[str, Any], ...] = ()
    needs_gpu: bool = False


def param(
    default: Any, *, key: str = "", unit: str = "", min: float | None = None, max: float | None = None,
    multiple_of: int | None = None, power_of_two: bool = False, choices: tuple[Any, ...] = (),
    presets: tuple[tuple[str, Any], ...] = (), needs_gpu: bool = False,
) -> Any:  # fmt: skip
    """A Params field with its :class:`ParamSpec` (``field.metadata['spec']``); :func:`validate_params`
    checks the declared limits.

    Its label and help live in the text catalogue under :func:`param_key`:
    ``experiment.<registry name>.param.<field>.label`` (and ``.help``, optional), the registry
    name found from the module that defines the Params. ``key`` replaces that prefix for a
    Params outside the registry (``key="mylab.param.count"`` -> ``mylab.param.count.label``).
    """
    spec = ParamSpec(unit, min, max, multiple_of, power_of_two, tuple(choices), tuple(presets), needs_gpu)
    return field(default=default, metadata={"spec": spec, "key": key})


def param_key(params_type: type, name: str) -> str | None:
    """The catalogue prefix of field ``name``'s texts (``experiment.matmul.param.sizes``): its
    declared ``key``, else derived from the registry name of the Params' module; None if neither."""
    found = next((f for f in dataclasses.fields(params_type) if f.name == name), None)
    declared = found.metadata.get("key") if found is not None else None
    if declared:
        return str(declared)
    experiment = next((n for n, e in registry().items() if e.module == params_type.__module__), None)
    return f"experiment.{experiment}.param.{name}" if experiment is not None else None


def param_text(params_type: type, name: str, what: str = "label") -> Message | None:
    """Field ``name``'s ``label`` or ``help`` message, or None when the catalogue has none."""
    prefix = param_key(params_type, name)
    key = f"{prefix}.{what}" if prefix else ""
    return msg(key) if key and catalogue.has(key) else None


def choice_text(params_type: type, name: str, value: Any) -> Message | None:
    """The words for one choice of field ``name`` (``...param.<name>.choice.<value>``), or None
    where the value is its own word (fp32). A dot in the value is written ``_`` in the key: a
    key's parts are split at dots ("gpt-1.3b" -> ``choice.gpt-1_3b``)."""
    return param_text(params_type, name, f"choice.{str(value).replace('.', '_')}")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(params_type: type) -> dict[str, Any]:
    """Field types of a Params class, resolved once (annotations are strings under PEP 563)."""
    if params_type not in _HINTS:
        _HINTS[params_type] = typing.get_type_hints(params_type)
    return _HINTS[params_type]


def _value_type(hint: Any) -> tuple[Any, bool]:
    """(type of one value, whether the field is a tuple of them); ``X | None`` counts as X."""
    if typing.get_origin(hint) in (Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    if typing.get_origin(hint) is tuple:
        return (typing.get_args(hint) or (Any,))[0], True
    return hint, False


def field_spec(params_type: type, name: str) -> ParamSpec:
    """The :class:`ParamSpec` of field ``name``, with choices filled in from a ``Literal`` type."""
    found = next((f for f in dataclasses.fields(params_type) if f.name == name), None)
    if found is None:
        known = [f.name for f in dataclasses.fields(params_type)]
        raise ParamError(msg("param.error.unknown", key=repr(name), names=known or "none"))
    spec = found.metadata.get("spec") or ParamSpec()
    value_type, _is_tuple = _value_type(_hints(params_type)[name])
    if not spec.choices and typing.get_origin(value_type) is typing.Literal:
        spec = dataclasses.replace(spec, choices=typing.get_args(value_type))
    return spec


def presets(params_type: type, name: str) -> tuple[tuple[str, Any], ...]:
    """The named presets of field ``name`` (the first is the default); () if it has none."""
    return field_spec(params_type, name).presets


def choices(params_type: type, name: str) -> tuple[Any, ...]:
    """The values field ``name`` may take (declared or from its ``Literal`` type); () if any."""
    return field_spec(params_type, name).choices


class CheckedParams:
    """Mixin for a Params dataclass: its ``__post_init__`` runs :func:`validate_params`.

    A Params with cross-field checks overrides ``__post_init__`` and calls ``super()`` first."""

    def __post_init__(self) -> None:
        validate_params(self)


def validate_params(params: Any) -> None:
    """Check every field of a Params dataclass against its :class:`ParamSpec`.

    Raises :class:`ParamError` naming the field and what it allows, e.g. ``sizes: every value
    must be a whole number from 1 to 8192, got 9000``; TypeError for a value of another type
    altogether (a programming error, not a user's typo: strings are converted before this)."""
    for f in dataclasses.fields(params):
        spec = field_spec(type(params), f.name)
        value_type, is_tuple = _value_type(_hints(type(params))[f.name])
        value = getattr(params, f.name)
        if value is None or spec == ParamSpec(unit=spec.unit, needs_gpu=spec.needs_gpu):
            continue  # nothing declared (a unit is no limit), or an optional field left out
        if not is_tuple:
            _check_value(f.name, spec, value_type, value, "param.error.must")
            continue
        if not isinstance(value, tuple):
            raise TypeError(f"{f.name}: expected a tuple, got {type(value).__name__}")
        if not value:
            raise ParamError(msg("param.error.empty", key=f.name))
        for item in value:
            _check_value(f.name, spec, value_type, item, "param.error.every-must")


def _check_value(name: str, spec: ParamSpec, value_type: Any, value: Any, must: str) -> None:
    """``must`` is the error's key: ``param.error.must`` or ``param.error.every-must``."""
    if spec.choices:
        if value not in spec.choices:
            raise ParamError(msg(must, key=name, rule=_rule(spec, value_type), text=repr(value)))
        return
    whole = value_type is int
    if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
        raise TypeError(f"{name}: expected {'a whole number' if whole else 'a number'}, got {value!r}")
    if whole and spec.max is None and value > INT_CEILING:
        spec = dataclasses.replace(spec, max=INT_CEILING)  # no declared ceiling: a C int's
    if not whole and not math.isfinite(value):
        raise ParamError(msg(must, key=name, rule=_rule(spec, value_type), text=repr(value)))
    if not _within(spec, value):
        raise ParamError(msg(must, key=name, rule=_rule(spec, value_type), text=repr(value)))


# The largest whole-number parameter when a field declares no maximum: the kernels take their
# sizes as C ints, so a bigger value would wrap on the way in.
INT_CEILING = 2**31 - 1

# A written power (``2^k``) is refused before it is computed when k exceeds this.
MAX_EXPONENT = 62


def _within(spec: ParamSpec, value: float) -> bool:
    if spec.min is not None and value < spec.min:
        return False
    if spec.max is not None and value > spec.max:
        return False
    if spec.multiple_of and value % spec.multiple_of:
        return False
    return not spec.power_of_two or (value > 0 and int(value) & (int(value) - 1) == 0)


def _rule(spec: ParamSpec, value_type: Any) -> Message:
    """What a field allows, in words: 'a power of two from 32 to 256', 'one of fp32, fp64'."""
    if spec.choices:
        return msg("param.rule.one-of", names=[str(choice) for choice in spec.choices])
    if spec.power_of_two:
        noun = msg("param.rule.power-of-two")
    elif spec.multiple_of:
        noun = msg("param.rule.multiple", step=spec.multiple_of)
    else:
        noun = msg("param.rule.whole-number") if value_type is int else msg("param.rule.number")
    if spec.min is not None and spec.max is not None:
        return msg("param.rule.range", what=noun, lowest=spec.min, highest=spec.max)
    if spec.min is not None:
        return msg("param.rule.at-least", what=noun, lowest=spec.min)
    return msg("param.rule.at-most", what=noun, highest=spec.max) if spec.max is not None else noun


def params_from_strings(params_type: type, assignments: Mapping[str, str]) -> Any:
    """Build a Params dataclass from ``key=value`` strings, converting each to its field type.

    A field with named presets also takes a preset's name (``sizes=quick``): a lab's quick run
    and a script can name a sweep instead of spelling it out."""
    fields = {f.name: f for f in dataclasses.fields(params_type)}
    hints = typing.get_type_hints(params_type)
    values: dict[str, Any] = {}
    for key, text in assignments.items():
        name = key.replace("-", "_")
        if name not in fields:
            raise ParamError(msg("param.error.unknown", key=repr(key), names=sorted(fields) or "none"))
        named = dict(presets(params_type, name))
        if text.strip() in named:
            values[name] = named[text.strip()]
            continue
        try:
            values[name] = convert_param(key, text, hints[name])
        except ParamError as exc:
            raise _with_rule(exc, params_type, name, hints[name]) from None
        _value, is_tuple = _value_type(hints[name])
        if is_tuple and values[name] == ():
            raise ParamError(msg("param.error.empty", key=key))
    try:
        return params_type(**values)
    except ParamError:
        raise
    except (TypeError, ValueError) as exc:
        raise ParamError(str(exc)) from None


def _with_rule(exc: ParamError, params_type: type, name: str, hint: Any) -> ParamError:
    """A conversion error that also says what the field allows, when it declares limits."""
    spec = field_spec(params_type, name)
    value_type, _is_tuple = _value_type(hint)
    if spec.choices or (spec == ParamSpec(unit=spec.unit, needs_gpu=spec.needs_gpu) and value_type not in (int, float)):
        return exc
    if value_type is int and spec.max is None:
        spec = dataclasses.replace(spec, max=INT_CEILING)
    if spec == ParamSpec(unit=spec.unit, needs_gpu=spec.needs_gpu) and value_type is float:
        return exc
    return ParamError(msg("param.error.allowed", error=exc.message, rule=_rule(spec, value_type)))


def convert_param(key: str, text: str, hint: Any) -> Any:
    """Convert one string to ``hint`` (bool, int, float, str, Literal, tuple[X, ...], X | None)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType) and type(None) in args:
        if text.lower() in ("none", ""):
            return None
        inner = [a for a in args if a is not type(None)]
        return convert_param(key, text, inner[0])
    if origin is typing.Literal:
        if text not in args:
            raise ParamError(msg("param.error.choice", key=key, names=[str(a) for a in args], text=repr(text)))
        return text
    if origin is tuple:
        item = args[0] if args else str
        parts = [p.strip() for p in text.split(",") if p.strip()]
        return tuple(convert_param(key, p, item) for p in parts)
    return _convert_scalar(key, text, hint)


def _convert_scalar(key: str, text: str, hint: Any) -> Any:
    if hint is bool:
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ParamError(msg("param.error.bool", key=key, text=repr(text)))
    if hint is int:
        try:
            return _parse_int(text)
        except _PowerError as exc:
            raise ParamError(msg(exc.key, key=key, text=repr(text), limit=MAX_EXPONENT)) from None
        except (ValueError, OverflowError):
            raise ParamError(msg("param.error.int", key=key, text=repr(text))) from None
    if hint is float:
        try:
            value = float(_parse_int(text)) if "^" in text else float(text)
            if not math.isfinite(value):
                raise ValueError(text)
            return value
        except _PowerError as exc:
            raise ParamError(msg(exc.key, key=key, text=repr(text), limit=MAX_EXPONENT)) from None
        except (ValueError, OverflowError):
            raise ParamError(msg("param.error.number", key=key, text=repr(text))) from None
    return text


class _PowerError(ValueError):
    """A written power that is not a whole number (``2^-1``) or too big to compute (``2^99999``)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _parse_int(text: str) -> int:
    """Whole numbers, also written as powers of two (``2^20``) or ``1e6``."""
    text = text.strip().replace("_", "")
    if len(text) > 40:
        raise ValueError(text)  # no whole number a parameter takes is written with more digits
    if "^" in text:
        base_text, exp_text = text.split("^", 1)
        base, exp = int(base_text), int(exp_text)
        if exp < 0:
            raise _PowerError("param.error.negative-power")
        if abs(base) > 1 and exp > MAX_EXPONENT:
            raise _PowerError("param.error.big-power")  # refused before computing it
        return base**exp
    if "e" in text.lower() and not text.lower().startswith("0x"):
        value = float(text)
        if not value.is_integer():
            raise ValueError(text)
        return int(value)
    return int(text, 0)


def powers_of_two(first: int, last: int, step: int = 1) -> tuple[int, ...]:
    """2^first, 2^(first+step), ... 2^last: the sizes of a sweep preset."""
    return tuple(1 << e for e in range(first, last + 1, step))


def params_to_dict(params: Any) -> dict[str, Any]:
    """A Params dataclass as plain data (for a Result's ``params``)."""
    return dataclasses.asdict(params)


# Elements generated per numpy call: numpy holds the GIL while it draws random numbers, so
# a big array drawn in one call would freeze the lab window for a quarter of a second.
_RANDOM_CHUNK = 1 << 17


def random_normal(rng: Any, shape: int | tuple[int, ...], dtype: Any = "float32") -> Any:
    """Standard-normal samples in ``dtype``, drawn in chunks so other threads keep running."""
    import numpy as np

    out = np.empty(shape, dtype=dtype)
    flat = out.reshape(-1)
    draw_dtype = dtype if np.dtype(dtype) in (np.float32, np.float64) else np.float32
    for start in range(0, flat.size, _RANDOM_CHUNK):
        stop = min(start + _RANDOM_CHUNK, flat.size)
        flat[start:stop] = rng.standard_normal(stop - start, dtype=draw_dtype)
    return out


# ----------------------------------------------------------------- the GPU a model is for


def resolve_model_gpu(key_or_name: str) -> Any:
    """The spec-table entry for a key (``h100-sxm``) or a device name; ExperimentError if unknown."""
    table = load_specs()
    spec = table.get(key_or_name) or table.match(key_or_name)
    if spec is None:
        raise ExperimentError(msg("param.error.model-gpu-unknown", key=repr(key_or_name), names=list(table.keys())))
    return spec
