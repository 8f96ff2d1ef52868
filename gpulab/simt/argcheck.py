"""Whether a number fits a C type before it reaches a kernel (no silent wrap, no inf in an int).

Used by ``gpulab emulate`` for scalar arguments (checked against the kernel's parameter types) and for array
initial values and sizes. Each check returns None when the value is fine, else the reason in
words (``"4294967296 is outside int's range -2147483648 to 2147483647"``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import SimtError


class ArgumentError(SimtError):
    """An ``--arg`` does not fit its parameter (a usage error: ``gpulab emulate`` exits 2)."""


def range_text(dtype: Any) -> str:
    """The values a numeric dtype holds, in words."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return "0 or 1"
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return f"{info.min} to {info.max}"
    finfo = np.finfo(dt)
    return f"-{float(finfo.max):.6g} to {float(finfo.max):.6g} (or inf, nan)"


def value_problem(value: Any, dtype: Any, type_name: str = "") -> str | None:
    """Why ``value`` (a Python or numpy number) cannot be converted to ``dtype`` exactly enough:
    an integer type takes finite values inside its range (a fraction is truncated, as C does);
    a floating type takes any number whose magnitude is below its largest finite value (or an
    explicit inf/nan). None when it fits."""
    dt = np.dtype(dtype)
    name = type_name or dt.name
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, np.ndarray):
        return None  # arrays are checked by the array binder
    if not isinstance(value, (int, float, np.integer, np.floating)):
        return None  # other objects are left to numpy's conversion and its error
    if dt.kind == "b":
        return None if value in (0, 1) else f"{value!r} is not a {name} (0 or 1)"
    if dt.kind in "iu":
        shown = repr(float(value)) if isinstance(value, (float, np.floating)) else str(int(value))
        if isinstance(value, (float, np.floating)):
            if not math.isfinite(float(value)):
                return f"{shown} is not a whole number, so {name} cannot hold it"
            value = int(value)
        info = np.iinfo(dt)
        if not info.min <= int(value) <= info.max:
            return f"{shown} is outside {name}'s range {range_text(dt)}"
        return None
    if dt.kind == "f":
        as_float = float(value) if not isinstance(value, int) or abs(value) < 2**1024 else math.inf
        if math.isfinite(as_float) and abs(as_float) > float(np.finfo(dt).max):
            return f"{value!r} is outside {name}'s range {range_text(dt)}"
        if isinstance(value, int) and not math.isfinite(as_float):
            return f"{value!r} is outside {name}'s range {range_text(dt)}"
    return None
