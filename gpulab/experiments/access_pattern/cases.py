"""The access-pattern lab's bandwidth series and its case table (no Qt here).

:func:`with_bandwidth` wraps the lab's emulation run: from each variant's exact traffic (bytes
the lanes asked for vs bytes of the 32-byte sectors fetched, all global loads and stores) it
adds a modelled GB/s for a spec-table GPU (its achievable bandwidth, the share of the spec sheet a
published streaming benchmark reached, :func:`gpulab.model.memory_share`, times the useful share of
the bytes fetched) and, when the GPU timed the kernel, the measured
GB/s (useful bytes / median kernel time). :func:`cases` reads a finished (or opened) Result
back into one :class:`Case` per variant, and :func:`memory_step` turns a case's stored warp
request into the :class:`~gpulab.experiments.warp.MemoryStep` the memory view draws.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

from gpulab import experiments
from gpulab.catalogue import Message, Note, from_json, msg, plain, render
from gpulab.experiments.warp.memory import analyse_memory_step
from gpulab.lab.base import Event, ExperimentGen, PartialPoint
from gpulab.lab.emulated import GPU_TIME_SERIES, LabPlan, variant_axis_label
from gpulab.model import memory_share
from gpulab.results import Point, Provenance, Result, Series

SECTORS_IN_KEY = "sectors-per-request-in"
MODEL_KEY = "model-gb-s"
MEASURED_KEY = "measured-gb-s"
MODEL_FORMULA = ("GB/s = achievable memory bandwidth × useful bytes / fetched bytes; bytes of every global load "
                 "and store of the emulated launch, fetched in whole 32-byte sectors; achievable bandwidth = the "
                 "share of the spec sheet a published streaming benchmark reached × the spec sheet's")  # fmt: skip
MEASURED_BYTES = "bytes the kernel's lanes load and store (from the emulator, scaled to the GPU size) / median time"


# ------------------------------------------------------------- the bandwidth series


class _Bandwidth:
    """The modelled and measured GB/s series, filled as the emulation run's points go by."""

    def __init__(self, plan: LabPlan, spec: Any) -> None:
        self.spec, self.gpu_n = spec, plan.gpu_n
        self.share = memory_share(spec)
        self.x_label = variant_axis_label(plan.variants)
        self.traffic: dict[int, Mapping[str, int]] = {}
        details = {"formula": MODEL_FORMULA, "spec_key": spec.key, "memory_bandwidth_gb_s": spec.memory_bandwidth_gb_s,
                   "source": spec.source_for("memory_bandwidth_gb_s").title, **self.share.details()}  # fmt: skip
        label = msg("series.model-gb-s", gpu=spec.name)
        self.model = Series(render(label), Provenance("modelled", spec.name, details), self.x_label, "",
                            Note(msg("axis.useful-bandwidth")), "GB/s", role="model", key=MODEL_KEY, label=label)
        self.measured: Series | None = None

    def seen(self, event: Event) -> list[PartialPoint]:
        """The bandwidth points that ``event`` (an emulated case, or a GPU time) makes possible."""
        if not isinstance(event, PartialPoint):
            return []
        extra = event.point.extra
        if "traffic" in extra:
            self.traffic[int(event.point.x)] = extra["traffic"]
            return [self._model_point(event.point)]
        if event.provenance is not None and event.provenance.kind == "measured" and event.series == GPU_TIME_SERIES:
            return self._measured_point(event)
        return []

    def _model_point(self, emulated: Point) -> PartialPoint:
        traffic = emulated.extra["traffic"]
        point = Point(emulated.x, modelled_gb_s(self.share.gb_s, traffic), extra={
            "variant": emulated.extra["variant"], "useful_fraction": useful_fraction(traffic),
            "memory_bandwidth_gb_s": self.spec.memory_bandwidth_gb_s, "achievable_gb_s": self.share.gb_s,
            **traffic})  # fmt: skip
        self.model = self.model.with_point(point)
        return PartialPoint(Note(self.model.label or self.model.name), point, self.model.provenance)

    def _measured_point(self, timed: PartialPoint) -> list[PartialPoint]:
        traffic = self.traffic.get(int(timed.point.x))
        if traffic is None or timed.point.y <= 0:
            return []
        used_bytes = traffic["used_bytes"] * self.gpu_n / traffic["elements"]  # every element moves the same bytes
        gb_s = used_bytes / (timed.point.y * 1e-3) / 1e9
        point = Point(timed.point.x, gb_s, extra={**timed.point.extra, "used_bytes": used_bytes,
                                                  "kernel_ms": timed.point.y})  # fmt: skip
        if self.measured is None:
            self.measured = self._measured_series(timed.provenance)
        self.measured = self.measured.with_point(point)
        return [PartialPoint(Note(label_of(self.measured)), point, self.measured.provenance)]

    def _measured_series(self, timing: Provenance | None) -> Series:
        label = msg("series.measured-gb-s")
        details = {**(timing.details if timing else {}), "bytes": MEASURED_BYTES}
        return Series(render(label), Provenance("measured", timing.device if timing else "", details), self.x_label,
                      "", Note(msg("axis.useful-bandwidth")), "GB/s", role="gpu", key=MEASURED_KEY, label=label)

    def finish(self, result: Result) -> Result:
        extra = (self.model,) + ((self.measured,) if self.measured is not None else ())
        notes = (*result.notes, msg("note.access-pattern.model", gpu=self.spec.name,
                                    bandwidth=f"{self.share.gb_s:.0f}"), self.share.lab_note,
                 msg("note.access-pattern.cache"))  # fmt: skip
        return replace(result, series=(*result.series, *extra), notes=notes)


def useful_fraction(traffic: Mapping[str, int]) -> float:
    """Useful bytes over fetched bytes of a kernel's traffic (0 when it fetched nothing)."""
    return traffic["used_bytes"] / traffic["fetched_bytes"] if traffic["fetched_bytes"] else 0.0


def modelled_gb_s(achievable_gb_s: float, traffic: Mapping[str, int]) -> float:
    """The useful GB/s the lab models for a kernel of this traffic: the achievable bandwidth spent
    on whole sectors, of which only the useful bytes count."""
    return achievable_gb_s * useful_fraction(traffic)


def label_of(series: Series) -> Message | str:
    return series.label if series.label is not None else series.name


def with_bandwidth(inner: ExperimentGen, plan: LabPlan, spec: Any) -> Generator[Event, None, Result]:
    """Pass ``inner``'s events on, each followed by the bandwidth points it allows; its Result
    comes back with the modelled (and measured) GB/s series and their notes."""
    bandwidth = _Bandwidth(plan, spec)
    try:
        while True:
            try:
                event = next(inner)
            except StopIteration as stop:
                return bandwidth.finish(stop.value)
            yield event
            yield from bandwidth.seen(event)
    finally:
        inner.close()  # a cancelled run closes the emulation run too


# ------------------------------------------------------------- reading a result back


@dataclass(frozen=True)
class Case:
    """One row of the case table. ``gb_s``/``gb_s_kind`` are the measured GB/s where the GPU
    timed the kernel, else the modelled one; ``request`` is one warp's load (None in old results)."""

    index: int
    label: Message
    kernel: str
    sizes: Mapping[str, int]
    sectors_per_request: float
    bytes_fetched_per_request: float | None
    bytes_used_per_request: float | None
    gb_s: float | None
    gb_s_kind: str
    request: Mapping[str, Any] | None

    @property
    def efficiency_percent(self) -> float | None:
        if not self.bytes_fetched_per_request or self.bytes_used_per_request is None:
            return None
        return 100.0 * self.bytes_used_per_request / self.bytes_fetched_per_request


def _by_index(result: Result, key: str) -> dict[int, Point]:
    series = result.get_series(key)
    return {int(p.x): p for p in series.points} if series is not None else {}


def _kind(result: Result, key: str) -> str:
    """A series' provenance kind, the original one for a replayed result."""
    series = result.get_series(key)
    if series is None:
        return ""
    prov = series.provenance
    return str(prov.details.get("original_kind", prov.kind)) if prov.kind == "replayed" else prov.kind


def cases(result: Result) -> list[Case]:
    """One :class:`Case` per variant of an access-pattern (or older coalescing) result."""
    sectors = _by_index(result, SECTORS_IN_KEY) or _by_index(result, "sectors-per-request")
    fetched, used = _by_index(result, "bytes-fetched-per-request"), _by_index(result, "bytes-used-per-request")
    measured, model = _by_index(result, MEASURED_KEY), _by_index(result, MODEL_KEY)
    rows = []
    for index, point in sorted(sectors.items()):
        rate, kind = (measured[index], _kind(result, MEASURED_KEY)) if index in measured else (
            (model[index], _kind(result, MODEL_KEY)) if index in model else (None, ""))  # fmt: skip
        extra = point.extra
        label = from_json(extra["case"]) if "case" in extra else plain(str(extra.get("variant", index)))
        rows.append(Case(index, label, str(extra.get("kernel", "")), dict(extra.get("sizes") or {}), point.y,
                         _y(fetched.get(index)), _y(used.get(index)), _y(rate), kind, extra.get("request")))
    return rows


def _y(point: Point | None) -> float | None:
    return None if point is None else point.y


def memory_step(case: Case, warp: int = 0) -> Any:
    """The :class:`~gpulab.experiments.warp.MemoryStep` of the case's stored warp request, or None."""
    request = case.request
    if not request:
        return None
    step = SimpleNamespace(kind="load", space="global", buffer=request["buffer"], bank_conflict_degree=0,
                           addresses=tuple(request["addresses"]), sectors=tuple(request["sectors"]),
                           lines=tuple(request["lines"]))  # fmt: skip
    return analyse_memory_step(step, warp, int(request["itemsize"]))




def preset_for(case: Case) -> str:
    """The name of the kernel's smallest launch preset with the case's own sizes (stride, offset,
    fields...), to open the case in the warp visualizer; the smallest preset when none matches."""
    spec = experiments.kernel(case.kernel)
    own = {k: v for k, v in case.sizes.items() if k not in ("n", "block")}
    matching = [p for p in spec.presets if {k: v for k, v in p.sizes.items() if k not in ("n", "block")} == own]
    return min(matching or spec.presets, key=lambda p: p.threads).name
