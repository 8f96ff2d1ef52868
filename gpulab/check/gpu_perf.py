"""GPU performance checks: each GPU's rates against what healthy hardware of its model measured.

One row per GPU (``gpu0``, ``gpu1``, ...; only ``--device N`` when given), measured through the
device layer (:mod:`gpulab.check.device`, which runs the labs' own measuring code), so a test
double can inject a slow GPU, an allocation failure or throttling:

- ``gpu.triad``: device memory bandwidth, the memory-wall lab's STREAM triad kernel.
- ``gpu.h2d`` / ``gpu.d2h``: pinned copies over PCIe (the transfer lab's), against the link as
  trained times the share of it a published copy reached on that generation.
- ``gpu.launch``: launch latency of a tiny kernel, each launch waited for (µs, lower is better;
  not a rate, so the outlier rule leaves it alone).
- ``gpu.matmul``: cuBLAS TFLOP/s, one row per GPU and dtype (``facts["dtype"]``; the outlier
  rule groups by it).
- ``gpu.p2p``: GPU i copies to GPU i+1 (a ring, one row per GPU); ``gpu.nccl``: NCCL AllReduce
  busbw across the GPUs. With one GPU each is one skip that says so.

The healthy figures are read where the project keeps them with their sources (the spec table's
published efficiencies, ``resources/validation/*.toml``); the verdict rule is ``[gpu.perf]`` in
``resources/check/thresholds.toml``. A model without a published figure is measured, reported
and skipped, never held to an invented number. Clocks, throttle reasons and temperature are
sampled between the timed repeats and kept in the row's facts; a slow result that coincided with
thermal or hardware throttling says so and points at the cooling.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from gpulab.catalogue import Message, msg

from .device import GpuHealth, GpuView, NotMeasurable, device_layer
from .gpu_health import Sampled, device_name, error_text, gpu_row, idle_sample, judged, peak, targets
from .model import Row, Verdict
from .registry import Context, register, threshold

RULE = "gpu.perf"
MATMUL_DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp64")
# An 8-GPU H100 SXM board is an HGX/DGX H100: every pair talks over NVSwitch, as in the published run.
P2P_LAYOUTS = {("h100-sxm", 8): "dgx-h100"}


@dataclass(frozen=True)
class Healthy:
    """What healthy hardware of this model measured, and where that figure comes from."""

    value: float
    basis: str  # the publication (and how the figure was derived from it), kept in the row's facts


Reference = Healthy | Message  # the healthy figure, or why there is none


def _plan(ctx: Context) -> dict[str, Any]:
    return dict(threshold(f"{RULE}.{'full' if ctx.full else 'quick'}"))


def _policy(plan: dict[str, Any]) -> Any:
    from gpulab.measure import RepeatPolicy

    return RepeatPolicy(repeats=int(plan["repeats"]), min_seconds=float(plan["min_seconds"]),
                        max_seconds=float(plan["max_seconds"]))


# ------------------------------------------------------------------ health samples while measuring


class Watch:
    """health() samples of one GPU taken between the timed repeats of its measurement (``tick``)."""

    def __init__(self, ctx: Context, gpu: GpuView) -> None:
        self.ctx, self.gpu = ctx, gpu
        self.samples: list[GpuHealth] = []
        self.error = ""
        self.cancelled: BaseException | None = None
        self._last: float | None = None
        self._interval_s = float(threshold(RULE)["sample_interval_s"])

    def tick(self) -> None:
        if self.ctx.check_cancelled is not None:
            try:
                self.ctx.check_cancelled()
            except BaseException as exc:  # kept, so the check re-raises it rather than failing a row with it
                self.cancelled = exc
                raise
        now = time.monotonic()
        if self._last is not None and now - self._last < self._interval_s:
            return
        self._last = now
        try:
            self.samples.append(self.gpu.health())
        except Exception as exc:  # the measurement is what is judged; a failed sample is only noted
            self.error = error_text(exc)

    def harmful(self) -> list[str]:
        """The thermal or hardware slowdowns seen while measuring (gpu.throttle's list)."""
        seen = frozenset().union(*(s.throttle_reasons for s in self.samples if s.throttle_reasons is not None))
        return sorted(seen & frozenset(threshold("gpu.throttle")["warn_reasons"]))

    def facts(self) -> dict[str, Any]:
        clocks = [s.sm_clock_mhz for s in self.samples if s.sm_clock_mhz is not None]
        reasons = set().union(*(s.throttle_reasons for s in self.samples if s.throttle_reasons is not None))
        found: dict[str, Any] = {"health_samples": len(self.samples),
                                 "sm_clock_mhz_min": min(clocks) if clocks else None,
                                 "sm_clock_mhz_max": max(clocks) if clocks else None,
                                 "throttle_reasons": sorted(reasons),
                                 "temperature_c_max": peak(self.samples, "temperature_c"),
                                 "power_w_max": peak(self.samples, "power_w")}
        if self.error:
            found["health_error"] = self.error
        return found


# ------------------------------------------------------------------ the verdict


def judge(check_id: str, gpu: GpuView, what: Message, value: float, unit: str, healthy: Reference, watch: Watch,
          action: str, lower_is_better: bool = False, facts: dict[str, Any] | None = None) -> Row:
    """The row of one measurement against its healthy figure ([gpu.perf]'s rule), or a skip that
    reports the value when there is no figure."""
    facts = {**(facts or {}), **watch.facts()}
    if not isinstance(healthy, Healthy):
        return gpu_row(check_id, gpu, Verdict.SKIP, msg("check.gpu.perf.unjudged", what=what, value=_num(value),
                                                      unit=unit, why=healthy),
                    value=value, unit=unit, source=RULE, facts=facts)
    rule = threshold(RULE)
    warn, fail = float(rule["warn_below_share"]), float(rule["fail_below_share"])
    share = healthy.value / value if lower_is_better else value / healthy.value  # 1 = as healthy, less = worse
    verdict = Verdict.PASS if share >= warn else Verdict.WARN if share >= fail else Verdict.FAIL
    facts.update(healthy=round(healthy.value, 6), healthy_source=healthy.basis, share_of_healthy=round(share, 4))
    fields: dict[str, Any] = {"value": value, "unit": unit, "source": RULE, "facts": facts,
                              "threshold": round(healthy.value / warn if lower_is_better else healthy.value * warn, 6),
                              "comparison": "<=" if lower_is_better else ">="}
    shown = {"what": what, "value": _num(value), "unit": unit, "healthy": _num(healthy.value), "model": gpu.name,
             **({"times": f"{1 / share:.1f}"} if lower_is_better else {"percent": f"{share:.0%}"})}
    if verdict is Verdict.PASS:
        key = "check.gpu.perf.latency-ok" if lower_is_better else "check.gpu.perf.ok"
        return gpu_row(check_id, gpu, verdict, msg(key, **shown), **fields)
    throttled = watch.harmful()
    during: Message | str = ""
    if throttled:
        during = msg("check.gpu.perf.throttled", reasons=", ".join(throttled),
                     temperature=_num(facts["temperature_c_max"]))
        action = "check.gpu.perf.action.throttled"
    key = "check.gpu.perf.latency-slow" if lower_is_better else "check.gpu.perf.slow"
    return gpu_row(check_id, gpu, verdict, msg(key, **shown, during=during),
                   action=msg(action, gpu=gpu.pci_bus_id or gpu.index), **fields)


def _num(value: float | None) -> str:
    return "?" if value is None else f"{value:.3g}" if value < 100 else f"{value:.0f}"


# ------------------------------------------------------------------ running a measurement per GPU

Measure = Callable[[GpuView, Watch], Row]


def _measured(check_id: str, gpu: GpuView, measure: Measure, ctx: Context, facts: dict[str, Any]) -> Row:
    """``measure``'s row, a skip when the GPU cannot make it, or a failure naming what went wrong
    (out of memory, a driver error): a measurement that did not finish never passes."""
    watch = Watch(ctx, gpu)

    def run(view: GpuView, _sampled: Sampled) -> Row:
        try:
            return measure(view, watch)
        except NotMeasurable as why:
            return gpu_row(check_id, view, Verdict.SKIP, msg("check.gpu.perf.unsupported", why=why.message),
                           source=RULE, facts=watch.facts())

    row = judged(check_id, run, gpu, idle_sample(ctx, gpu))
    if watch.cancelled is not None:
        raise watch.cancelled
    return dataclasses.replace(row, facts={**row.facts, **facts}) if facts else row


def _each_gpu(ctx: Context, check_id: str, measure: Callable[[Context, GpuView], Measure]
              ) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg(f"check.{check_id}.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    return [_measured(check_id, gpu, measure(ctx, gpu), ctx, {}) for gpu in gpus]


# ------------------------------------------------------------------ healthy figures


def _spec(name: str) -> Any:
    from gpulab.specs import shipped_specs

    try:
        return shipped_specs().match(name)
    except Exception:  # a broken spec file: no figure, and the row says the model is unknown
        return None


def _unknown(gpu: GpuView) -> Message:
    return msg("check.gpu.perf.why.unknown-model", model=gpu.name)


def _no_figure(gpu: GpuView) -> Message:
    return msg("check.gpu.perf.why.no-figure", model=gpu.name)


def _published(model: str, wanted: Callable[[dict[str, Any]], bool]) -> Any:
    """The validation row of ``model`` whose config ``wanted`` accepts (the largest message first), or None."""
    from gpulab.published import builtin_rows

    rows = [r for r in builtin_rows() if r.model == model and r.published is not None and r.published.low is not None
            and wanted(dict(r.config))]
    return max(rows, key=lambda r: r.config.get("bytes", r.config.get("message_bytes", 0)), default=None)


def _row_basis(row: Any) -> str:
    return f"{row.file} {row.id}: {row.source.title if row.source else '?'} ({row.locator})"


def healthy_triad(gpu: GpuView) -> Reference:
    spec = _spec(gpu.name)
    if spec is None:
        return _unknown(gpu)
    if spec.memory_efficiency is None:
        return _no_figure(gpu)
    basis = (f"gpus.toml {spec.key}: memory_efficiency {spec.memory_efficiency} x {spec.memory_bandwidth_gb_s:g} GB/s; "
             f"{spec.source_for('memory_efficiency').title}")
    return Healthy(spec.memory_efficiency * spec.memory_bandwidth_gb_s, basis)


def healthy_matmul(gpu: GpuView, dtype: str) -> Reference:
    from gpulab.model.dtypes import peak_for
    from gpulab.model.workloads import gemm_share

    spec = _spec(gpu.name)
    if spec is None:
        return _unknown(gpu)
    try:
        share = gemm_share(spec, dtype)
        _key, tflops, _note = peak_for(spec, dtype, use_tensor_cores=True)
    except Exception:  # a dtype the spec table has no rate for on this GPU
        return _no_figure(gpu)
    if share.origin != "measured":  # only this model's own published GEMM, never one borrowed from another
        return _no_figure(gpu)
    basis = (f"gpus.toml {spec.key}: gemm_efficiency.{dtype} {share.share} x {tflops:g} TFLOP/s; "
             f"{spec.source_for(f'gemm_efficiency.{dtype}').title}")
    return Healthy(share.share * tflops, basis)


def healthy_copy(gpu: GpuView, direction: str, reading: Any) -> Reference:
    """The link as trained (``reading.link``: its maximum generation and width) x the share of a
    Gen-N x16 link a published pinned copy reached (this direction's row, else the generation's h2d)."""
    from gpulab.model.transfer import pcie_gb_s_per_direction

    link = reading.link
    if link is None:
        return msg("check.gpu.perf.why.no-link")

    def copy_row(way: str) -> Any:
        return _published("copy-gb-s", lambda c: c.get("gen") == link.gen and c.get("direction") == way
                          and c.get("pinned") is True and not c.get("both"))

    row = copy_row(direction) or copy_row("h2d")
    if row is None:
        return msg("check.gpu.perf.why.no-link-figure", gen=link.gen)
    share = row.published.low / pcie_gb_s_per_direction(link.gen, 16)
    basis = f"{link.label} {link.gb_s_per_direction:g} GB/s x {share:.3f}; {_row_basis(row)}"
    return Healthy(link.gb_s_per_direction * share, basis)


def healthy_launch(gpu: GpuView) -> Reference:
    spec = _spec(gpu.name)
    if spec is None:
        return _unknown(gpu)
    row = _published("launch-us-per-kernel", lambda c: c.get("gpu") == spec.key and c.get("way") == "sync"
                     and c.get("kernel_us") == 0)
    return _no_figure(gpu) if row is None else Healthy(row.published.low, _row_basis(row))


def healthy_p2p(gpu: GpuView, gpus: int) -> Reference:
    spec = _spec(gpu.name)
    if spec is None:
        return _unknown(gpu)
    layout = P2P_LAYOUTS.get((spec.key, gpus))
    row = _published("p2p-pair-gb-s", lambda c: c.get("layout") == layout) if layout else None
    return _no_figure(gpu) if row is None else Healthy(row.published.low, _row_basis(row))


def healthy_allreduce(gpu: GpuView, gpus: int) -> Reference:
    spec = _spec(gpu.name)
    if spec is None:
        return _unknown(gpu)
    row = _published("allreduce-busbw", lambda c: c.get("gpu") == spec.key and c.get("gpus") == gpus
                     and c.get("algorithm") == "ring" and "nics" not in c)
    return _no_figure(gpu) if row is None else Healthy(row.published.low, _row_basis(row))


# ------------------------------------------------------------------ one GPU at a time


def _triad(ctx: Context, gpu: GpuView) -> Measure:
    plan = _plan(ctx)

    def measure(view: GpuView, watch: Watch) -> Row:
        value = view.triad_gb_s(int(plan["triad_array_bytes"]), _policy(plan), watch.tick)
        return judge("gpu.triad", view, msg("check.gpu.perf.what.triad"), value, "GB/s", healthy_triad(view), watch,
                     "check.gpu.perf.action.memory", facts={"array_bytes": int(plan["triad_array_bytes"])})
    return measure


@register("gpu.triad")
def check_triad(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _each_gpu(ctx, "gpu.triad", _triad))


def _copy(direction: str) -> Callable[[Context, GpuView], Measure]:
    check_id = f"gpu.{direction}"

    def plan_for(ctx: Context, gpu: GpuView) -> Measure:
        plan = _plan(ctx)

        def measure(view: GpuView, watch: Watch) -> Row:
            reading = view.link()
            n_bytes = int(plan["copy_bytes"])
            value = view.copy_gb_s(direction, n_bytes, _policy(plan), watch.tick)
            link = reading.link
            facts = {"bytes": n_bytes, "link": link.label if link else None, "link_source": reading.source,
                     "pcie_gen_during": peak(watch.samples, "pcie_gen_current"),
                     "pcie_width_during": peak(watch.samples, "pcie_width_current")}
            return judge(check_id, view, msg(f"check.gpu.perf.what.{direction}"), value, "GB/s",
                         healthy_copy(view, direction, reading), watch, "check.gpu.perf.action.link", facts=facts)
        return measure
    return plan_for


@register("gpu.h2d")
def check_h2d(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _each_gpu(ctx, "gpu.h2d", _copy("h2d")))


@register("gpu.d2h")
def check_d2h(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _each_gpu(ctx, "gpu.d2h", _copy("d2h")))


def _launch(ctx: Context, gpu: GpuView) -> Measure:
    plan = _plan(ctx)

    def measure(view: GpuView, watch: Watch) -> Row:
        value = view.launch_us(int(plan["launches"]), _policy(plan), watch.tick)
        return judge("gpu.launch", view, msg("check.gpu.perf.what.launch"), value, "µs", healthy_launch(view), watch,
                     "check.gpu.perf.action.launch", lower_is_better=True, facts={"launches": int(plan["launches"])})
    return measure


@register("gpu.launch")
def check_launch(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _each_gpu(ctx, "gpu.launch", _launch))


def matmul_dtypes(gpu: GpuView) -> tuple[str, ...]:
    """The dtypes measured on ``gpu``: FP64 only where it runs at a quarter of FP32 or better
    (data-centre parts; consumer parts run it at 1/32-1/64, where a rate says nothing of health)."""
    spec = _spec(gpu.name)
    fast_fp64 = spec is not None and (spec.peak_tflops.get("fp64") or 0) >= (spec.peak_tflops.get("fp32") or 0) / 4
    return MATMUL_DTYPES if fast_fp64 else tuple(d for d in MATMUL_DTYPES if d != "fp64")


@register("gpu.matmul")
def check_matmul(ctx: Context) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg("check.gpu.matmul.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    plan = _plan(ctx)
    n = int(plan["matmul_n"])
    rows = []
    for gpu in gpus:
        for dtype in matmul_dtypes(gpu):
            def measure(view: GpuView, watch: Watch, dtype: str = dtype) -> Row:
                value = view.matmul_tflops(dtype, n, _policy(plan), watch.tick)
                return judge("gpu.matmul", view, msg("check.gpu.perf.what.matmul", dtype=dtype.upper()), value,
                             "TFLOP/s", healthy_matmul(view, dtype), watch, "check.gpu.perf.action.compute")
            rows.append(_measured("gpu.matmul", gpu, measure, ctx, {"dtype": dtype, "n": n}))
    return rows


# ------------------------------------------------------------------ between GPUs


def _one_gpu(check_id: str, gpus: Sequence[GpuView]) -> list[Row]:
    return [Row(check_id, Verdict.SKIP, msg("check.gpu.perf.one-gpu", count=len(gpus)), device=device_name(gpus[0]),
                source=RULE, facts={"model": gpus[0].name, "gpus": len(gpus)})]


@register("gpu.p2p")
def check_p2p(ctx: Context) -> Generator[Message, None, list[Row]]:
    """GPU i copies to GPU i+1 (the last to the first): every GPU sends once and receives once."""
    yield msg("check.progress.looking", what=msg("check.gpu.p2p.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    if len(gpus) < 2:
        return _one_gpu("gpu.p2p", gpus)
    plan, layer = _plan(ctx), device_layer(ctx)
    rows = []
    for src, dst in zip(gpus, [*gpus[1:], gpus[0]], strict=True):
        def measure(view: GpuView, watch: Watch, dst: GpuView = dst) -> Row:
            value = layer.p2p_gb_s(view.index, dst.index, int(plan["p2p_bytes"]), _policy(plan), watch.tick)
            return judge("gpu.p2p", view, msg("check.gpu.perf.what.p2p", src=view.index, dst=dst.index), value,
                         "GB/s", healthy_p2p(view, len(gpus)), watch, "check.gpu.perf.action.interconnect")
        facts = {"peer": device_name(dst), "bytes": int(plan["p2p_bytes"])}
        rows.append(_measured("gpu.p2p", src, measure, ctx, facts))
    return rows


@register("gpu.nccl")
def check_nccl(ctx: Context) -> Generator[Message, None, list[Row]]:
    """NCCL AllReduce across this host's GPUs: one row for the group (device gpu0-N), judged
    against a published busbw of as many GPUs of this model."""
    yield msg("check.progress.looking", what=msg("check.gpu.nccl.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    if len(gpus) < 2:
        return _one_gpu("gpu.nccl", gpus)
    layer = device_layer(ctx)
    first = gpus[0]
    if not layer.nccl_available():
        # software.nccl already fails for this and says what to install; here it is only "not measured".
        from gpulab.cluster.nccl_backend import NCCL_INSTALL_HINT

        return [Row("gpu.nccl", Verdict.WARN, msg("check.gpu.perf.not-measured",
                                                  why=msg("collectives.reason.no-nccl", command=NCCL_INSTALL_HINT)),
                    msg("check.action.install-nccl", command=NCCL_INSTALL_HINT), device=_group_name(gpus),
                    source=RULE, facts={"model": _group_model(gpus), "gpus": len(gpus)})]
    plan = _plan(ctx)

    def measure(view: GpuView, watch: Watch) -> Row:
        value = layer.allreduce_busbw_gb_s([g.index for g in gpus], int(plan["allreduce_bytes"]), _policy(plan),
                                           watch.tick)
        healthy = healthy_allreduce(view, len(gpus)) if _group_model(gpus) == view.name else _no_figure(view)
        return judge("gpu.nccl", view, msg("check.gpu.perf.what.nccl", count=len(gpus)), value, "GB/s", healthy,
                     watch, "check.gpu.perf.action.interconnect")

    row = _measured("gpu.nccl", first, measure, ctx, {"gpus": len(gpus), "bytes": int(plan["allreduce_bytes"]),
                                                      "model": _group_model(gpus)})
    return [dataclasses.replace(row, device=_group_name(gpus))]


def _group_name(gpus: Sequence[GpuView]) -> str:
    return f"{device_name(gpus[0])}-{gpus[-1].index}"


def _group_model(gpus: Sequence[GpuView]) -> str:
    names = {gpu.name for gpu in gpus}
    return gpus[0].name if len(names) == 1 else "mixed: " + ", ".join(sorted(names))
