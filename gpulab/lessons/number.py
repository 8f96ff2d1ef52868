"""The one big number of a page, read from a run's :class:`~gpulab.results.Result`, never typed in.

``big_number(page, result)`` follows the page's :class:`~gpulab.lessons.model.NumberSpec`: the
first of its candidate series the run has, one point's field (or a statistic over the points),
divided by a second pick for a ratio, times a scale. It keeps what the number is (its label
message and unit) and where it comes from (the series' provenance: measured, emulated, modelled
or replayed, with the machine and date of a replayed run) so the front end can show the badge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpulab.catalogue import Message, msg
from gpulab.lessons.model import NumberSpec, Page, Pick
from gpulab.lessons.validate import NUMBER_LABEL_PREFIX
from gpulab.results import Point, Result, Series


class MissingNumber(ValueError):
    """The run has no number where the page looks for it (a series, a point or a field is missing);
    the message names the page, what it wanted and what the run has."""


@dataclass(frozen=True)
class BigNumber:
    """A page's big number: ``value`` in ``unit``, what it is (``label``), and where it comes from.

    ``kind`` is the provenance kind of the series it was read from (for a ratio, the weaker of
    the two: modelled over measured), ``device`` what that series ran on (``per_device``: what the
    ratio's divisor ran on). A number from a
    recorded result has ``kind == "replayed"`` and ``original_kind`` the kind it had there,
    ``machine`` and ``date`` (the recording's host name and creation time)."""

    value: float
    unit: str
    label: Message
    digits: int
    kind: str
    device: str
    per_device: str = ""
    original_kind: str = ""
    machine: str = ""
    date: str = ""

    @property
    def replayed(self) -> bool:
        return self.kind == "replayed"

    def text(self) -> str:
        """The value as it is shown: ``"42.5"``, ``"1,234"``; the unit is shown beside it, not in it."""
        return f"{self.value:,.{self.digits}f}"


_WEAKNESS = ("measured", "emulated", "modelled", "replayed")


def big_number(page: Page, result: Result) -> BigNumber:
    """The page's big number from ``result`` (a run of its preset, or its recording replayed)."""
    spec = page.number
    if spec is None:
        raise MissingNumber(f'page "{page.id}" has no big number (its lab is still to come)')
    series, value = _picked(page, result, spec.pick, "pick")
    kinds, per_device = [series.provenance.kind], ""
    if spec.per is not None:
        per_series, per_value = _picked(page, result, spec.per, "per")
        if per_value == 0:
            raise MissingNumber(f'page "{page.id}": number.per is 0 in series {per_series.key!r}: no ratio')
        value /= per_value
        kinds.append(per_series.provenance.kind)
        per_device = per_series.provenance.device
    kind = max(kinds, key=_WEAKNESS.index)
    details = series.provenance.details
    return BigNumber(
        value=value * spec.scale,
        unit=_unit(spec, series),
        label=msg(NUMBER_LABEL_PREFIX + spec.label),
        digits=spec.digits,
        kind=kind,
        device=series.provenance.device,
        per_device=per_device,
        original_kind=str(details.get("original_kind", "")) if kind == "replayed" else "",
        machine=str(result.host.get("hostname", "")) if kind == "replayed" else "",
        date=result.created if kind == "replayed" else "",
    )


def _unit(spec: NumberSpec, series: Series) -> str:
    if spec.unit:
        return spec.unit
    return "×" if spec.per is not None else series.y_unit


def _picked(page: Page, result: Result, pick: Pick, name: str) -> tuple[Series, float]:
    where = f'page "{page.id}": number.{name}'
    series = next((s for key in pick.series if (s := result.get_series(key)) is not None), None)
    if series is None:
        have = ", ".join(s.key for s in result.series) or "none"
        raise MissingNumber(f"{where}: the run of {result.experiment} has no series {' or '.join(pick.series)} "
                            f"(it has {have})")  # fmt: skip
    points = series.points
    if pick.at is not None:
        points = tuple(p for p in series.points if math.isclose(p.x, pick.at, rel_tol=1e-9))
        if not points:
            xs = ", ".join(f"{p.x:g}" for p in series.points) or "none"
            raise MissingNumber(f"{where}: series {series.key!r} has no point at x={pick.at:g} (its x: {xs})")
    values = [_field(p, pick.field) for p in points]
    found = [v for v in values if v is not None and math.isfinite(v)]
    if not found:
        raise MissingNumber(f"{where}: series {series.key!r} has no number {pick.field!r} in its points")
    return series, _stat(found, pick.stat if pick.at is None else "first")


def _field(point: Point, name: str) -> float | None:
    if name in ("x", "y"):
        return float(getattr(point, name))
    value = point.extra.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _stat(values: list[float], stat: str) -> float:
    if stat == "min":
        return min(values)
    if stat == "first":
        return values[0]
    if stat == "last":
        return values[-1]
    if stat == "mean":
        return sum(values) / len(values)
    return max(values)
