"""What an experiment is, and how one is run.

An experiment is a module with a ``Params`` dataclass, a ``TITLE``, a ``DESCRIPTION`` and a
generator ``run(params, ctx)`` that yields :class:`Progress` and :class:`PartialPoint` events
and *returns* a :class:`~gpulab.results.Result`. Whoever drives the generator may stop between
yields: cancelling closes the generator, so its ``finally`` blocks run.
"""

from __future__ import annotations

import dataclasses
import threading
import types
import typing
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from gpulab.results import Point, Provenance, Result


class ExperimentError(Exception):
    """An experiment could not run; the message says why in plain words."""


class ParamError(ExperimentError, ValueError):
    """A parameter value is unknown or cannot be converted to its type."""


class Cancelled(ExperimentError):
    """The run was cancelled before it finished."""


@dataclass(frozen=True)
class Progress:
    """How far a run has got (``fraction`` in [0, 1]) and what it is doing now."""

    fraction: float
    message: str = ""


@dataclass(frozen=True)
class PartialPoint:
    """A point that has just been measured, so curves can grow live.

    ``provenance`` (optional) says what kind of number it is, so a front end can style the
    curve (dashed for modelled) from its first point, before the Result arrives."""

    series: str
    point: Point
    provenance: Provenance | None = None


Event = Progress | PartialPoint
ExperimentGen = Generator[Event, None, Result]


@dataclass
class Context:
    """What a running experiment may use: a cancel flag and the device to run on."""

    cancel_event: threading.Event = field(default_factory=threading.Event)
    device_index: int | None = None

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def check_cancelled(self) -> None:
        """Raise Cancelled if someone asked this run to stop (for long inner loops)."""
        if self.cancel_event.is_set():
            raise Cancelled("cancelled")


def drive(
    gen: ExperimentGen,
    on_event: Callable[[Event], None] | None = None,
    cancel_event: threading.Event | None = None,
) -> Result:
    """Run an experiment generator to its end and return its Result.

    Between yields the generator is stopped (closed) if ``cancel_event`` is set, and
    :class:`Cancelled` is raised.
    """
    try:
        while True:
            if cancel_event is not None and cancel_event.is_set():
                gen.close()
                raise Cancelled("cancelled")
            event = next(gen)
            if on_event is not None:
                on_event(event)
    except StopIteration as stop:
        if not isinstance(stop.value, Result):
            raise ExperimentError("the experiment ended without a result") from None
        return stop.value


# ----------------------------------------------------------------- parameters


def param(default: Any, label: str, label_zh: str, help: str = "", help_zh: str = "") -> Any:
    """A Params field with its label and help in English and Chinese (``field.metadata``)."""
    metadata = {"label": label, "label_zh": label_zh, "help": help, "help_zh": help_zh}
    return field(default=default, metadata=metadata)


def params_from_strings(params_type: type, assignments: Mapping[str, str]) -> Any:
    """Build a Params dataclass from ``key=value`` strings, converting each to its field type."""
    fields = {f.name: f for f in dataclasses.fields(params_type)}
    hints = typing.get_type_hints(params_type)
    values: dict[str, Any] = {}
    for key, text in assignments.items():
        name = key.replace("-", "_")
        if name not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise ParamError(f"unknown parameter {key!r} (known: {known})")
        values[name] = convert_param(key, text, hints[name])
    try:
        return params_type(**values)
    except (TypeError, ValueError) as exc:
        raise ParamError(str(exc)) from None


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
            raise ParamError(f"{key}: expected one of {', '.join(map(str, args))}, got {text!r}")
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
        raise ParamError(f"{key}: expected true or false, got {text!r}")
    if hint is int:
        try:
            return _parse_int(text)
        except ValueError:
            raise ParamError(f"{key}: expected a whole number, got {text!r}") from None
    if hint is float:
        try:
            return float(text)
        except ValueError:
            raise ParamError(f"{key}: expected a number, got {text!r}") from None
    return text


def _parse_int(text: str) -> int:
    """Whole numbers, also written as powers of two (``2^20``) or ``1e6``."""
    text = text.strip().replace("_", "")
    if "^" in text:
        base, exp = text.split("^", 1)
        return int(base) ** int(exp)
    if "e" in text.lower() and not text.lower().startswith("0x"):
        value = float(text)
        if not value.is_integer():
            raise ValueError(text)
        return int(value)
    return int(text, 0)


def params_to_dict(params: Any) -> dict[str, Any]:
    """A Params dataclass as plain data (for a Result's ``params``)."""
    return dataclasses.asdict(params)


def median_and_iqr(samples: list[float]) -> tuple[float, float | None]:
    """Median of repeats and their interquartile range (None for a single sample)."""
    import numpy as np

    arr = np.asarray(samples, dtype=float)
    median = float(np.median(arr))
    if arr.size < 2:
        return median, None
    q1, q3 = np.percentile(arr, [25, 75])
    return median, float(q3 - q1)


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
