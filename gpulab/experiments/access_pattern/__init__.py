"""Access patterns: how many 32-byte sectors one warp's load needs, and what that costs in GB/s.

A warp's load is served in 32-byte sectors. 32 neighbouring floats fill exactly 4 sectors;
a stride, a random gather, a misaligned start or a field read out of an array of structs make
the warp fetch more sectors for the same useful bytes, and float64 doubles the bytes a warp
wants. Per case, exact from the emulator: sectors per request, bytes fetched and bytes used
per request of the pattern's load, load efficiency. From those, a modelled GB/s (a spec
sheet's bandwidth × useful / fetched bytes of the whole kernel) and, on a GPU, the measured
GB/s of the same kernel (useful bytes over its CUDA-event time).

This lab was called ``coalescing``; that name still runs it and still opens its results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab import kernels
from gpulab.catalogue import msg, render, to_json
from gpulab.experiments.access_pattern.cases import with_bandwidth
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, param, params_to_dict, resolve_model_gpu
from gpulab.lab.declare import Lab
from gpulab.lab.emulated import EmulatedRun, LabPlan, LoadSite, MetricSeries, Variant, metric, run_variants
from gpulab.simt.metrics import SECTOR_BYTES

# English, for scripts and the command line; a front end renders experiment.access-pattern.* itself.
TITLE = render("experiment.access-pattern.title")
DESCRIPTION = render("experiment.access-pattern.description")

FLOAT_BYTES = 4
PATTERN_BUFFER = "in"
FIELD = 1  # the AoS/SoA cases read field 1 of each record (the y of x, y, z, w)
MAX_N = 1 << 16


# ------------------------------------------------------------- the lab's own kernels


def _f64_args(sizes: Mapping[str, int], rng: np.random.Generator) -> kernels.Args:
    n, stride = sizes["n"], sizes["stride"]
    return [rng.standard_normal(n * stride), np.zeros(n, np.float64), np.int32(stride), np.int32(n)]


def _f64_ref(args: kernels.Args) -> dict[int, np.ndarray]:
    stride, n = int(args[2]), int(args[3])
    return {1: args[0][: n * stride : stride].copy()}


def _records_args(sizes: Mapping[str, int], rng: np.random.Generator) -> kernels.Args:
    n, fields = sizes["n"], sizes["fields"]
    return [kernels.random_f32(rng, n * fields), np.zeros(n, np.float32), np.int32(fields),
            np.int32(sizes["field"]), np.int32(n)]  # fmt: skip


def _aos_ref(args: kernels.Args) -> dict[int, np.ndarray]:
    fields, field, n = int(args[2]), int(args[3]), int(args[4])
    return {1: args[0].reshape(n, fields)[:, field].copy()}


def _soa_ref(args: kernels.Args) -> dict[int, np.ndarray]:
    fields, field, n = int(args[2]), int(args[3]), int(args[4])
    return {1: args[0].reshape(fields, n)[field].copy()}


def _presets(**sizes: int) -> tuple[kernels.LaunchPreset, ...]:
    return (kernels.lab_preset("tiny", 64, 64, **sizes), kernels.lab_preset("small", 4096, 256, **sizes),
            kernels.lab_preset("large", 1 << 20, 256, **sizes))  # fmt: skip


def _kernel(file: str, presets: tuple[kernels.LaunchPreset, ...], make_args: kernels.ArgMaker,
            reference: kernels.Reference) -> kernels.KernelSpec:  # fmt: skip
    return kernels.KernelSpec(file=file, entry=file.removesuffix(".cu"), presets=presets, make_args=make_args,
                              reference=reference, tags=("coalescing",), lesson_key="kernel.lesson.coalescing")


KERNELS = (
    _kernel("load_strided_f64.cu", (*_presets(stride=2), *(kernels.lab_preset(f"stride={s}", 64, 64, stride=s)
                                                           for s in (1, 4))), _f64_args, _f64_ref),
    _kernel("load_aos.cu", _presets(fields=4, field=FIELD), _records_args, _aos_ref),
    _kernel("load_soa.cu", _presets(fields=4, field=FIELD), _records_args, _soa_ref),
)


# ------------------------------------------------------------- what is counted


def _lane_bytes(sites: tuple[LoadSite, ...]) -> tuple[int, int]:
    """(bytes the lanes asked for, bytes of the sectors fetched) over ``sites``."""
    return sum(s.bytes_used for s in sites), sum(s.sectors for s in sites) * SECTOR_BYTES


def load_efficiency(run: EmulatedRun) -> float:
    """Useful bytes / fetched bytes of every global load of the kernel, in %."""
    used, fetched = _lane_bytes(run.load_sites)
    return 100.0 * used / fetched if fetched else 0.0


def pattern_site(run: EmulatedRun) -> LoadSite | None:
    """The load of the access pattern itself: the one from ``in`` (a gather also loads its indices)."""
    return next((site for site in run.load_sites if site.buffer == PATTERN_BUFFER), None)


def pattern_load_sectors(run: EmulatedRun) -> float:
    """Sectors per request of the load from ``in`` alone (the gather without its index load)."""
    site = pattern_site(run)
    return site.sectors_per_request if site else float(run.metrics["gld_transactions_per_request"])


def bytes_fetched_per_request(run: EmulatedRun) -> float:
    site = pattern_site(run)
    return SECTOR_BYTES * site.sectors_per_request if site else 0.0


def bytes_used_per_request(run: EmulatedRun) -> float:
    site = pattern_site(run)
    return site.bytes_used / site.requests if site and site.requests else 0.0


def kernel_traffic(run: EmulatedRun) -> dict[str, int]:
    """Bytes used and fetched by every global load and store of the emulated launch (n elements)."""
    loads, stores = _lane_bytes(run.load_sites), _lane_bytes(run.store_sites)
    return {"elements": run.preset.sizes["n"], "used_bytes": loads[0] + stores[0],
            "fetched_bytes": loads[1] + stores[1]}  # fmt: skip


def request_of(site: LoadSite | None) -> dict[str, Any] | None:
    """One warp's request at ``site`` as plain data: enough to draw it again (see access_cases)."""
    step = site.first if site is not None else None
    if step is None or step.addresses is None:
        return None
    return {"buffer": site.buffer if site else "", "itemsize": step.itemsize, "addresses": list(step.addresses),
            "sectors": list(step.sectors), "lines": list(step.lines), "line": step.line}  # fmt: skip


def case_facts(run: EmulatedRun) -> dict[str, Any]:
    """What the case table and the memory view need of a variant, small and JSON-able."""
    return {"case": to_json(run.variant.text), "sizes": dict(run.preset.sizes),
            "traffic": kernel_traffic(run), "request": request_of(pattern_site(run))}  # fmt: skip


SECTORS_IN_KEY = "sectors-per-request-in"
SERIES = (
    MetricSeries("sectors-per-request", msg("series.sectors-per-request"),
                 msg("axis.sectors-per-load"), "sectors", metric("gld_transactions_per_request")),
    MetricSeries("load-efficiency", msg("series.load-efficiency"), msg("axis.load-efficiency"), "%", load_efficiency),
    MetricSeries(SECTORS_IN_KEY, msg("series.sectors-per-request-in"),
                 msg("axis.sectors-per-load-in"), "sectors", pattern_load_sectors, case_facts),
    MetricSeries("bytes-fetched-per-request", msg("series.bytes-fetched-per-request"),
                 msg("axis.bytes-per-request"), "B", bytes_fetched_per_request),
    MetricSeries("bytes-used-per-request", msg("series.bytes-used-per-request"),
                 msg("axis.bytes-per-request"), "B", bytes_used_per_request),
)  # fmt: skip


@dataclass(frozen=True)
class Params(CheckedParams):
    """``n`` loads (``block`` threads per block) are emulated, one per thread; ``strides``, ``offset``,
    ``f64_strides`` and ``struct_floats`` set the cases; ``gpu_n`` threads and ``repeats`` are for GPU
    timing; ``model_gpu`` is the spec-sheet GPU of the modelled GB/s."""

    n: int = param(4096, min=32, max=MAX_N, multiple_of=32)
    block: int = param(256, min=32, max=1024, multiple_of=32)
    strides: tuple[int, ...] = param((1, 2, 4, 8, 16, 32), unit="floats", min=1, max=1024)
    offset: int = param(1, unit="floats", min=0, max=1024)
    f64_strides: tuple[int, ...] = param((1, 2, 4), unit="doubles", min=1, max=1024)
    struct_floats: int = param(4, unit="floats", min=2, max=64)
    gpu_n: int = param(1 << 21, min=32, multiple_of=32)
    repeats: int = param(20, min=1)
    model_gpu: str = param("h100-sxm")


def variants(params: Params) -> tuple[Variant, ...]:
    """Coalesced, float32 strides, random gather, misaligned, float64 strides, AoS and SoA."""
    records = {"fields": params.struct_floats, "field": FIELD}
    return (
        Variant.of(msg("variant.coalesced"), "load_coalesced", params.block),
        *(Variant.of(msg("variant.stride", size=s), "load_strided", params.block, {"stride": s})
          for s in params.strides),
        Variant.of(msg("variant.random-gather"), "load_gather", params.block),
        Variant.of(msg("variant.misaligned", size=params.offset), "load_misaligned", params.block,
                   {"offset": params.offset}),
        *(Variant.of(msg("variant.stride-f64", size=s), "load_strided_f64", params.block, {"stride": s})
          for s in params.f64_strides),
        Variant.of(msg("variant.aos", size=params.struct_floats), "load_aos", params.block, records),
        Variant.of(msg("variant.soa", size=params.struct_floats), "load_soa", params.block, records),
    )  # fmt: skip


NOTES = (msg("note.coalescing.sectors"), msg("note.coalescing.gather"), msg("note.access-pattern.records"))


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Emulate every access pattern; model its GB/s; add GPU kernel times and GB/s when a GPU is usable."""
    spec = resolve_model_gpu(params.model_gpu)  # an unknown GPU fails before any emulation
    plan = LabPlan("access-pattern", params_to_dict(params), variants(params), SERIES, params.n, params.gpu_n,
                   params.repeats, NOTES, trace_loads=True)
    return (yield from with_bandwidth(run_variants(plan, ctx), plan, spec))


LAB = Lab("access-pattern", section="memory", order=20, page="access-pattern", aliases=("coalescing",),
          quick=("n=512", "repeats=3"), kernels=KERNELS)  # gpu_n stays 2^21: smaller, every case waits on latency alike
