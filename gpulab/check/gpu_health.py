"""GPU health checks from NVML: ECC errors, memory repairs, throttling and the PCIe link under load.

Each check gives one row per GPU (device ``gpu0``, ``gpu1``, ...; only ``--device N`` when given),
read through the device layer (:mod:`gpulab.check.device`), never NVML directly, so a test double
can inject every fault. The rules and their sources are in ``resources/check/thresholds.toml``
(``[gpu.*]``):

- ECC: an uncorrectable error since the driver loaded fails; corrected errors above a limit warn;
  a GPU without ECC counters (consumer GPUs) is a skip that says so.
- Memory repairs: a pending row remap or retired page warns (a reset applies it); a failed row
  remap fails.
- Throttling: a thermal or hardware slowdown or a power brake *under load* warns; ``idle``, the
  power cap and application clocks are how a healthy GPU runs.
- PCIe: the link is sampled under load; below its maximum there fails. An idle link that
  downshifted is normal and the pass says so.

No usable GPU gives one skip row for all of them (a failure with ``--require-gpu``). A query
that raises, or a load that cannot start, is a failed row for that GPU naming the error. All GPUs
are loaded together, once per run, and only those whose NVML reports clock events or the link.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpulab.catalogue import Message, msg, plain

from .device import THROTTLE_BITS, GpuHealth, GpuView, device_layer
from .model import Row, Verdict
from .registry import Context, register, threshold
from .software import cuda_status


@dataclass
class Sampled:
    """What one GPU said: one health sample at rest, samples under load, or the error that stopped it."""

    idle: GpuHealth | None = None
    loaded: list[GpuHealth] = field(default_factory=list)
    error: str = ""


Judge = Callable[[GpuView, Sampled], Row]


def device_name(gpu: GpuView) -> str:
    return f"gpu{gpu.index}"


def nvidia_smi_id(gpu: GpuView) -> str:
    """What ``nvidia-smi -i`` should be given: the PCI bus id, since nvidia-smi numbers GPUs in
    NVML's (PCI) order and CUDA, by default, fastest first: index 0 may be two different GPUs."""
    return gpu.pci_bus_id or str(gpu.index)


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


# ------------------------------------------------------------------ which GPUs, or why none


def targets(ctx: Context) -> tuple[list[GpuView], list[Row]]:
    """The GPUs to check, or no GPUs and the rows that say why (given once per run, not per check)."""
    layer = device_layer(ctx)
    status = cuda_status(ctx)
    if not status.available:
        return [], _once(ctx, _no_gpu_row(ctx, status))
    gpus = list(layer.gpus())
    if not gpus:  # a probe that found GPUs the layer cannot list: say so rather than print nothing
        return [], _once(ctx, _no_gpu_row(ctx, status))
    if ctx.device_index is None:
        return gpus, []
    chosen = [gpu for gpu in gpus if gpu.index == ctx.device_index]
    if chosen:
        return chosen, []
    found = ", ".join(str(gpu.index) for gpu in gpus) or "-"
    row = Row("gpu", Verdict.FAIL, msg("check.gpu.no-such-device", index=ctx.device_index, found=found),
              msg("check.gpu.action.pick-device"), device="gpu")
    return [], _once(ctx, row)


def _once(ctx: Context, row: Row) -> list[Row]:
    # Four GPU checks on a laptop would otherwise print the same "no GPU" four times.
    if ctx.shared.get("gpu.unavailable-said"):
        return []
    ctx.shared["gpu.unavailable-said"] = True
    return [row]


def _no_gpu_row(ctx: Context, status: Any) -> Row:
    why = status.reason_message or plain(status.reason)
    if ctx.require_gpu:
        return Row("gpu", Verdict.FAIL, msg("check.gpu.unavailable-required", why=why),
                   msg("check.action.see-reason"), device="gpu", facts={"reason_code": status.reason_code})
    return Row("gpu", Verdict.SKIP, msg("check.gpu.unavailable", why=why), device="gpu",
               facts={"reason_code": status.reason_code})


# ------------------------------------------------------------------ sampling


def idle_sample(ctx: Context, gpu: GpuView) -> Sampled:
    """One health sample at rest, once per GPU and run (the ECC and repair checks share it)."""
    cache = ctx.shared.setdefault("gpu.idle", {})
    if gpu.index not in cache:
        try:
            cache[gpu.index] = Sampled(idle=gpu.health())
        except Exception as exc:  # a driver that errors, a GPU that fell off the bus
            cache[gpu.index] = Sampled(error=error_text(exc))
    return cache[gpu.index]


def _loaded(ctx: Context, gpus: Sequence[GpuView]) -> Generator[Message, None, dict[int, Sampled]]:
    """Samples of every GPU under load, once per run: all GPUs are loaded together (a power brake
    or a weak power supply shows only then), warmed up, then sampled a few times."""
    cache = ctx.shared.setdefault("gpu.loaded", {})
    todo = [gpu for gpu in gpus if gpu.index not in cache]
    if todo:
        yield msg("check.gpu.progress.load", count=len(todo))
        cache.update(_sample_under_load(ctx, todo))
    return {gpu.index: cache[gpu.index] for gpu in gpus}


def _sample_under_load(ctx: Context, gpus: Sequence[GpuView]) -> dict[int, Sampled]:
    plan = threshold("gpu.load")
    warmup_s = float(plan["warmup_full_s"] if ctx.full else plan["warmup_quick_s"])
    count, interval_s = int(plan["samples"]), float(plan["interval_s"])
    layer = device_layer(ctx)
    found = {gpu.index: _from_idle(idle_sample(ctx, gpu)) for gpu in gpus}
    worth = [gpu for gpu in gpus if _worth_loading(found[gpu.index])]
    if not worth:
        return found
    running = _start_loads(worth, warmup_s + count * interval_s + 5.0, found)
    try:
        layer.sleep(warmup_s)
        for _ in range(count):
            if ctx.check_cancelled is not None:
                ctx.check_cancelled()
            for gpu, _load in running:
                _sample_one(gpu, found[gpu.index])
            layer.sleep(interval_s)
    finally:
        _stop_loads(running, found)
    return found


def _from_idle(idle: Sampled) -> Sampled:
    # A GPU that failed at rest fails under load too, with the same error (never a skip).
    return Sampled(idle=idle.idle, error=idle.error)


def _worth_loading(sampled: Sampled) -> bool:
    """Whether NVML reports what a load would show (clock events or the link); without NVML a load
    only burns seconds before two skips."""
    idle = sampled.idle
    return not sampled.error and idle is not None and (idle.throttle_reasons is not None
                                                       or idle.pcie_gen_max is not None)


def _start_loads(gpus: Sequence[GpuView], seconds: float, found: dict[int, Sampled]) -> list[tuple[GpuView, Any]]:
    running = []
    for gpu in gpus:
        load = gpu.under_load(seconds)
        try:
            load.__enter__()
        except Exception as exc:  # no CuPy, out of memory: this GPU cannot be judged under load
            found[gpu.index].error = error_text(exc)
            continue
        running.append((gpu, load))
    return running


def _sample_one(gpu: GpuView, into: Sampled) -> None:
    if into.error:
        return
    try:
        into.loaded.append(gpu.health())
    except Exception as exc:
        into.error = error_text(exc)


def _stop_loads(running: list[tuple[GpuView, Any]], found: dict[int, Sampled]) -> None:
    for gpu, load in running:
        try:
            load.__exit__(None, None, None)
        except Exception as exc:  # the load died midway: its samples are not a load's
            found[gpu.index].error = found[gpu.index].error or error_text(exc)


# ------------------------------------------------------------------ running a judge per GPU


def _per_gpu(ctx: Context, check_id: str, judge: Judge, under_load: bool) -> Generator[Message, None, list[Row]]:
    yield msg("check.progress.looking", what=msg(f"check.{check_id}.title"))
    gpus, unavailable = targets(ctx)
    if not gpus:
        return unavailable
    samples = (yield from _loaded(ctx, gpus)) if under_load else {gpu.index: idle_sample(ctx, gpu) for gpu in gpus}
    return [judged(check_id, judge, gpu, samples[gpu.index]) for gpu in gpus]


def judged(check_id: str, judge: Judge, gpu: GpuView, sampled: Sampled) -> Row:
    """The judge's row, or a failed row naming the error: a GPU that did not answer never passes."""
    if not sampled.error:
        try:
            return judge(gpu, sampled)
        except Exception as exc:  # strange data the judge did not foresee
            sampled = Sampled(error=error_text(exc))
    return Row(check_id, Verdict.FAIL, msg("check.gpu.broken", index=gpu.index, error=sampled.error),
               msg("check.gpu.action.broken", gpu=nvidia_smi_id(gpu)), device=device_name(gpu),
               facts={"model": gpu.name, "error": sampled.error})


def gpu_row(check_id: str, gpu: GpuView, verdict: Verdict, reason: Message, **fields: Any) -> Row:
    facts = {"model": gpu.name, "pci_bus_id": gpu.pci_bus_id, **fields.pop("facts", {})}
    return Row(check_id, verdict, reason, device=device_name(gpu), facts=facts, **fields)


# ------------------------------------------------------------------ ECC


def judge_ecc(gpu: GpuView, sampled: Sampled) -> Row:
    health = sampled.idle or GpuHealth()
    uncorrected, corrected = health.ecc_uncorrected_volatile, health.ecc_corrected_volatile
    allowed = int(threshold("gpu.ecc")["fail_above_uncorrected"])
    limit = int(threshold("gpu.ecc_corrected")["warn_above"])
    facts = {"ecc_uncorrected_volatile": uncorrected, "ecc_corrected_volatile": corrected}
    if uncorrected is not None and uncorrected > allowed:
        return gpu_row("gpu.ecc", gpu, Verdict.FAIL, msg("check.gpu.ecc.uncorrected", count=uncorrected),
                       action=msg("check.gpu.ecc.action-uncorrected"), value=float(uncorrected), unit="errors",
                       threshold=float(allowed), comparison="<=", source="gpu.ecc", facts=facts)
    if corrected is not None and corrected > limit:
        return gpu_row("gpu.ecc", gpu, Verdict.WARN, msg("check.gpu.ecc.corrected", count=corrected, limit=limit),
                       action=msg("check.gpu.ecc.action-corrected"), value=float(corrected), unit="errors",
                       threshold=float(limit), comparison="<=", source="gpu.ecc_corrected", facts=facts)
    if uncorrected is None:  # no ECC memory (consumer GPUs), ECC off, or no NVML
        return gpu_row("gpu.ecc", gpu, Verdict.SKIP, msg("check.gpu.ecc.unsupported"), source="gpu.ecc", facts=facts)
    return gpu_row("gpu.ecc", gpu, Verdict.PASS,
                   msg("check.gpu.ecc.ok", corrected="?" if corrected is None else corrected, limit=limit),
                   value=float(uncorrected), unit="errors", threshold=float(allowed), comparison="<=", source="gpu.ecc",
                   facts=facts)


@register("gpu.ecc")
def check_ecc(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _per_gpu(ctx, "gpu.ecc", judge_ecc, under_load=False))


# ------------------------------------------------------------------ retired pages and row remapping


def judge_remap(gpu: GpuView, sampled: Sampled) -> Row:
    health = sampled.idle or GpuHealth()
    facts = {"retired_pages_pending": health.retired_pages_pending,
             "remapped_rows_pending": health.remapped_rows_pending,
             "remapped_rows_failure": health.remapped_rows_failure}
    if health.remapped_rows_failure:
        return gpu_row("gpu.remap", gpu, Verdict.FAIL, msg("check.gpu.remap.failure"),
                       action=msg("check.gpu.remap.action-failure"), source="gpu.remap", facts=facts)
    pending = [msg(key) for key, flag in (("check.gpu.remap.what-rows", health.remapped_rows_pending),
                                          ("check.gpu.remap.what-pages", health.retired_pages_pending)) if flag]
    if pending:
        return gpu_row("gpu.remap", gpu, Verdict.WARN, msg("check.gpu.remap.pending", what=pending),
                       action=msg("check.gpu.remap.action-pending", gpu=nvidia_smi_id(gpu)), source="gpu.remap",
                       facts=facts)
    if all(flag is None for flag in facts.values()):  # consumer GPUs have neither mechanism
        return gpu_row("gpu.remap", gpu, Verdict.SKIP, msg("check.gpu.remap.unsupported"), source="gpu.remap",
                       facts=facts)
    return gpu_row("gpu.remap", gpu, Verdict.PASS, msg("check.gpu.remap.ok"), source="gpu.remap", facts=facts)


@register("gpu.remap")
def check_remap(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _per_gpu(ctx, "gpu.remap", judge_remap, under_load=False))


# ------------------------------------------------------------------ throttling under load


def peak(samples: Sequence[GpuHealth], name: str) -> Any:
    """The largest reading of ``name`` across ``samples`` (an int stays an int), None if none."""
    values = [getattr(s, name) for s in samples if getattr(s, name) is not None]
    return max(values) if values else None


def throttle_names(reasons: frozenset[str] | set[str]) -> list[Message]:
    """The clock-event reasons as translated names (nvidia-smi's label beside each, so a reader can
    match them with ``nvidia-smi -q -d PERFORMANCE``); a bit NVML added later stays as its code."""
    known = set(THROTTLE_BITS.values())
    return [msg(f"check.gpu.throttle.reason.{name}") if name in known else plain(name) for name in sorted(reasons)]


def _shown(value: float | None) -> str:
    return "?" if value is None else f"{value:.0f}"


def judge_throttle(gpu: GpuView, sampled: Sampled) -> Row:
    seen = [s.throttle_reasons for s in sampled.loaded if s.throttle_reasons is not None]
    if not seen:
        return gpu_row("gpu.throttle", gpu, Verdict.SKIP, msg("check.gpu.throttle.unsupported"), source="gpu.throttle")
    reasons = frozenset().union(*seen)
    harmful = reasons & frozenset(threshold("gpu.throttle")["warn_reasons"])
    temperature, power = peak(sampled.loaded, "temperature_c"), peak(sampled.loaded, "power_w")
    limit = peak(sampled.loaded, "power_limit_w")
    facts = {"throttle_reasons": sorted(reasons), "temperature_c_max": temperature, "power_w_max": power,
             "power_limit_w": limit, "sm_clock_mhz_max": peak(sampled.loaded, "sm_clock_mhz"),
             "sm_clock_max_mhz": peak(sampled.loaded, "sm_clock_max_mhz"),
             "utilization_gpu_percent_max": peak(sampled.loaded, "utilization_gpu_percent")}
    fields: dict[str, Any] = {"value": temperature, "unit": "°C" if temperature is not None else "",
                              "source": "gpu.throttle", "facts": facts}
    if harmful:
        return gpu_row("gpu.throttle", gpu, Verdict.WARN,
                       msg("check.gpu.throttle.slowed", reasons=throttle_names(harmful),
                           temperature=_shown(temperature), power=_shown(power), limit=_shown(limit)),
                    action=msg("check.gpu.throttle.action"), **fields)
    return gpu_row("gpu.throttle", gpu, Verdict.PASS,
                   msg("check.gpu.throttle.ok", reasons=throttle_names(reasons) or "-",
                       temperature=_shown(temperature), power=_shown(power)), **fields)


@register("gpu.throttle")
def check_throttle(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _per_gpu(ctx, "gpu.throttle", judge_throttle, under_load=True))


# ------------------------------------------------------------------ PCIe link under load


def judge_pcie(gpu: GpuView, sampled: Sampled) -> Row:
    # The best the link reached under load: it retrains upwards as load arrives, so one sample
    # at the maximum proves the link can run there.
    gen, width = peak(sampled.loaded, "pcie_gen_current"), peak(sampled.loaded, "pcie_width_current")
    gen_max, width_max = peak(sampled.loaded, "pcie_gen_max"), peak(sampled.loaded, "pcie_width_max")
    idle = sampled.idle or GpuHealth()
    facts = {"pcie_gen_current": gen, "pcie_gen_max": gen_max, "pcie_width_current": width,
             "pcie_width_max": width_max, "idle_pcie_gen": idle.pcie_gen_current,
             "idle_pcie_width": idle.pcie_width_current}
    if gen is None or gen_max is None:
        return gpu_row("gpu.pcie", gpu, Verdict.SKIP, msg("check.gpu.pcie.unsupported"), source="gpu.pcie", facts=facts)
    fields: dict[str, Any] = {"value": float(gen), "unit": "PCIe gen", "threshold": float(gen_max),
                              "comparison": ">=", "source": "gpu.pcie", "facts": facts}
    shown = {"gen": gen, "width": width or "?"}
    narrow = width is not None and width_max is not None and width < width_max
    if gen < gen_max or narrow:
        return gpu_row("gpu.pcie", gpu, Verdict.FAIL,
                       msg("check.gpu.pcie.downshifted", **shown, gen_max=gen_max, width_max=width_max or "?"),
                       action=msg("check.gpu.pcie.action"), **fields)
    if _downshifted(idle, gen, width):
        return gpu_row("gpu.pcie", gpu, Verdict.PASS,
                       msg("check.gpu.pcie.idle-downshift", **shown, idle_gen=idle.pcie_gen_current or "?",
                           idle_width=idle.pcie_width_current or "?"), **fields)
    return gpu_row("gpu.pcie", gpu, Verdict.PASS, msg("check.gpu.pcie.ok", **shown), **fields)


def _downshifted(idle: GpuHealth, gen: int, width: int | None) -> bool:
    """Whether the link ran slower at rest than under load (power saving, not a fault)."""
    slower = idle.pcie_gen_current is not None and idle.pcie_gen_current < gen
    narrower = idle.pcie_width_current is not None and width is not None and idle.pcie_width_current < width
    return slower or narrower


@register("gpu.pcie")
def check_pcie(ctx: Context) -> Generator[Message, None, list[Row]]:
    return (yield from _per_gpu(ctx, "gpu.pcie", judge_pcie, under_load=True))
