"""Latency, and how a GPU hides it: the CPU latency ladder, the SM latency-hiding model and the
occupancy calculator (``gpulab run latency``); its page is ``ui/panels/latency.py``.

* ``CPU latency ladder`` (measured): ns per dependent load against the working set
  (:mod:`gpulab.latency.ladder`), with the cache levels' latencies in ns and cycles as notes.
* ``GPU latency ladder`` (measured, only with a GPU and CuPy): cycles per dependent load of
  ``kernels/pointer_chase.cu`` over the same chains (:mod:`gpulab.latency.gpu_chase`); its largest
  working set gives the SM model's latency. Without a GPU the published table is used (modelled).
* ``loads per cycle`` and ``issue utilisation`` (modelled) against resident warps, for one lab
  kernel's instruction stream recorded by the emulator (:mod:`gpulab.latency.sm`), with the warp
  count Little's law gives for the saturation point, and the CPU-core contrast.
* The occupancy calculator's answer for that kernel at ``threads`` per block on ``arch``, with the
  registers NVRTC's compile gives when NVRTC is installed (:mod:`gpulab.occupancy`).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

import numpy as np

from gpulab import hostmem
from gpulab.catalogue import Message, msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, param, params_to_dict
from gpulab.lab.declare import Lab
from gpulab.lab.run import Progress
from gpulab.latency import gpu_levels, ladder, sm
from gpulab.occupancy import known_archs, occupancy
from gpulab.results import Point, Provenance, Result, Series

TITLE = render("experiment.latency.title")
DESCRIPTION = render("experiment.latency.description")
KERNELS = ("vector_add", "load_coalesced", "matmul_tiled", "reduce_shuffle")


@dataclass(frozen=True)
class Params(CheckedParams):
    """``max_working_set`` bounds the CPU ladder (from 4 KiB, doubling); ``loads`` per rung;
    ``kernel`` is the lab kernel whose warp-0 stream the SM model replays; ``arch`` the SM's
    architecture; ``latency`` the load latency in cycles (0: the published DRAM figure for ``arch``);
    ``requests_per_cycle`` the memory pipe's rate; ``max_warps`` the sweep's end; ``cycles`` per run."""

    max_working_set: int = param(1 << 30, min=1 << 13, max=1 << 31, power_of_two=True)
    loads: int = param(1 << 20, min=1 << 10, max=1 << 26)
    kernel: str = param("vector_add", choices=KERNELS)
    arch: str = param("sm_75", choices=known_archs())
    latency: int = param(0, min=0, max=10_000)
    requests_per_cycle: float = param(0.05, min=0.001, max=4.0)
    threads: int = param(256, min=32, max=1024, multiple_of=32)
    max_warps: int = param(64, min=1, max=256)
    cycles: int = param(8000, min=1000, max=200_000)


GPU_SIZES = (16 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20)  # L1-sized to well past any L2


def _latency_cycles(params: Params, measured_dram: float | None = None) -> tuple[int, str]:
    """The load latency and where it comes from: given, measured on this GPU (the chase's largest
    working set), or the published figure for ``arch``."""
    if params.latency:
        return params.latency, "given"
    if measured_dram is not None:
        return round(measured_dram), "measured: pointer_chase.cu on this GPU"
    levels = gpu_levels.levels(params.arch)
    if levels is None:
        return 0, ""
    return levels.dram_mid_cycles, levels.source_url


def _ladder_series(params: Params, ctx: Context) -> Generator[Progress, None, tuple[Series, list[ladder.Rung]]]:
    sizes = tuple(s for s in ladder.DEFAULT_SIZES if s <= params.max_working_set)
    points = []
    rungs = []
    generator = ladder.ladder(sizes, params.loads)
    for index, _size in enumerate(sizes):
        ctx.check_cancelled()
        rung = next(generator)
        rungs.append(rung)
        points.append(Point(rung.working_set_bytes, rung.ns_per_load, extra={
            "cycles_per_load": rung.cycles_per_load, "call_overhead_ns": rung.call_overhead_ns,
            "spread": rung.spread, "loads": rung.loads}))  # fmt: skip
        yield Progress(0.6 * (index + 1) / len(sizes), msg("progress.latency.ladder", size=rung.working_set_bytes))
    prov = Provenance("measured", "CPU", {"chase": ladder.CHASE_FORM, "page_aware": True,
                                          "page_group": ladder.PAGE_GROUP, "cpu_mhz": ladder.cpu_clock_mhz()})
    series = Series(render("series.latency.cpu-ladder"), prov, "working set", "B", "latency per load", "ns",
                    tuple(points), key="cpu-ladder", label=msg("series.latency.cpu-ladder"))
    return series, rungs


def _gpu_series() -> tuple[Series, float] | None:
    """The GPU chase over :data:`GPU_SIZES` when a GPU and CuPy are here (measured), else None (the
    lab then uses the published table, modelled)."""
    from gpulab import cuda
    from gpulab.latency import gpu_chase

    if not cuda.gpu_available():
        return None
    rungs = gpu_chase.ladder_on_gpu(GPU_SIZES)
    prov = Provenance("measured", cuda.device_name(), {"kernel": gpu_chase.KERNEL_FILE, "loads": rungs[0].loads,
                                                       "clock": "clock64 (SM cycles)"})
    series = Series(render("series.latency.gpu-ladder"), prov, "working set", "B", "latency per load", "cycles",
                    tuple(Point(r.working_set_bytes, r.cycles_per_load) for r in rungs), key="gpu-ladder",
                    label=msg("series.latency.gpu-ladder"))  # fmt: skip
    return series, rungs[-1].cycles_per_load


def _level_notes(rungs: list[ladder.Rung]) -> list[Message]:
    caches, _source = hostmem.cpu_caches()
    named = [(f"L{c.level}", c.size_bytes) for c in caches if c.kind in ("Data", "Unified")]
    chosen = ladder.level_latencies(rungs, named)
    hidden = set(ladder.hidden_levels(chosen))
    edges = ladder.jumps(rungs)
    notes = []
    for name, rung in chosen:
        cycles = f"{rung.cycles_per_load:.0f}" if rung.cycles_per_load is not None else "?"
        if name in hidden:
            # Naming a DRAM-slow rung after the cache would teach a wrong L3 latency: say the cache
            # the system lists did not show, and where the ladder's last edge really was.
            listed = dict(named)[name]
            edge = max((e for e in edges if e <= listed), default=None)
            notes.append(msg("note.latency.level-hidden", level=name, listed=hostmem.bytes_text(listed),
                             ns=f"{rung.ns_per_load:.1f}", size=hostmem.bytes_text(rung.working_set_bytes),
                             edge=hostmem.bytes_text(edge) if edge is not None else "?"))  # fmt: skip
            continue
        notes.append(msg("note.latency.level", level=name, ns=f"{rung.ns_per_load:.1f}", cycles=cycles,
                         size=hostmem.bytes_text(rung.working_set_bytes)))
    return notes


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Measure the CPU ladder, run the SM model over warp counts, and size the kernel's occupancy."""
    yield Progress(0.0, msg("progress.latency.ladder", size=4096))
    cpu_series, rungs = yield from _ladder_series(params, ctx)
    notes = _level_notes(rungs)
    series = [cpu_series]
    gpu = None if params.latency else _gpu_series()
    if gpu is not None:
        series.append(gpu[0])
    latency, latency_source = _latency_cycles(params, gpu[1] if gpu else None)
    if latency:
        stream = sm.emulated_stream(params.kernel)
        config = sm.SmConfig(schedulers=4, latency=latency, requests_per_cycle=params.requests_per_cycle)
        counts = sorted({1, 2, *range(4, params.max_warps + 1, 4), params.max_warps})
        runs = []
        for index, result in enumerate(sm.sweep(stream, counts, config, params.cycles)):
            ctx.check_cancelled()
            runs.append(result)
            yield Progress(0.6 + 0.4 * (index + 1) / len(counts), msg("progress.latency.model", warps=result.warps))
        model = Provenance("modelled", f"SM model ({params.arch})", {
            "latency_cycles": latency, "latency_source": latency_source, "unvalidated": gpu is None,
            "requests_per_cycle": params.requests_per_cycle, "schedulers": 4,
            "stream": f"emulated: warp 0 of {params.kernel}"})  # fmt: skip
        series.append(Series(render("series.latency.throughput"), model, "resident warps", "warps",
                             "loads per cycle", "1/cycle", tuple(Point(r.warps, r.loads_per_cycle) for r in runs),
                             key="throughput", label=msg("series.latency.throughput")))  # fmt: skip
        series.append(Series(render("series.latency.utilisation"), model, "resident warps", "warps",
                             "issue slots used", "%", tuple(Point(r.warps, 100 * r.utilisation(4)) for r in runs),
                             key="utilisation", label=msg("series.latency.utilisation")))  # fmt: skip
        notes.append(_saturation_note(stream, config, runs, params))
        cpu = sm.cpu_contrast(stream, latency, params.cycles)
        notes.append(msg("note.latency.cpu-contrast", rate=f"{cpu.loads_per_cycle:.4f}",
                         best=f"{max(r.loads_per_cycle for r in runs):.4f}"))
    else:
        notes.append(msg("note.latency.no-published", arch=params.arch))
    notes.append(_occupancy_note(params))
    return Result("latency", params_to_dict(params), tuple(series), tuple(notes))


def _saturation_note(stream: np.ndarray, config: sm.SmConfig, runs: list[sm.SmRun], params: Params) -> Message:
    """Little's law's warp count beside the model's saturation point, or, when the throughput was
    still climbing at ``max_warps``, that it did not saturate (the largest count is no saturation point)."""
    little = sm.littles_law_warps(stream, config)
    saturated = sm.levelled_off_warps(runs)
    if saturated is None:
        return msg("note.latency.not-saturated", warps=f"{little:.1f}", max_warps=params.max_warps,
                   latency=config.latency, rate=f"{sm.load_roof(stream, config.requests_per_cycle):.3g}")  # fmt: skip
    return msg("note.latency.littles-law", warps=f"{little:.1f}", saturated=saturated, latency=config.latency,
               rate=f"{sm.load_roof(stream, config.requests_per_cycle):.3g}")  # fmt: skip


def _occupancy_note(params: Params) -> Message:
    from gpulab import kernels

    try:
        from gpulab.occupancy import cubin

        resources, _log = cubin.compile_resources(kernels.get(params.kernel).source, params.kernel, params.arch)
        registers, shared, origin = resources.registers, resources.shared_bytes, "NVRTC"
    except Exception:  # no NVRTC here: say so instead of guessing registers
        return msg("note.latency.no-nvrtc", kernel=params.kernel)
    result = occupancy(params.arch, params.threads, registers, shared)
    return msg("note.latency.occupancy", kernel=params.kernel, arch=params.arch, registers=registers, origin=origin,
               threads=params.threads, blocks=result.blocks_per_sm, warps=result.warps_per_sm,
               percent=f"{100 * result.occupancy:.0f}", limiter=result.limiter)  # fmt: skip


LAB = Lab("latency", section="inside", order=50, page="latency",
          quick=("max_working_set=2^22", "loads=2^16", "max_warps=48", "cycles=4000"))
