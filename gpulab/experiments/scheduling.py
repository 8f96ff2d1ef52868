"""Scheduling & failures: a cluster of jobs under a scheduler, struck by failures, all modelled.

A seeded discrete-event simulation (:mod:`gpulab.model.scheduling`): a job mix arrives at a cluster
of nodes (the rail-optimised DGX H100 preset, racks of one scalable unit); a policy places the jobs;
failures at the scaling lab's per-GPU rate (Llama 3's by default) take nodes down and kill the gangs
on them, which restart from their last checkpoint (Daly's interval per job by default). Series
(all ``modelled``, role ``model``):

- ``utilisation``: x hours, y % of the GPUs running jobs; ``extra``: held, down, blocked, stranded
  and idle shares;
- ``queue-wait``: x hours, y mean hours waited by the jobs that started in that hour;
- ``fragmentation``: x hours, y GPUs free while no waiting job can use them;
- ``goodput``: x job, y % of the job's GPU-hours that advanced its training; ``extra``: its size,
  class, arrival, first start, finish, runs, wait, checkpoint interval;
- ``lost``: x cause (1, 2, ...), y GPU-hours lost to it; ``extra``: the cause;
- ``runs``: x start, y end (hours) of every run of every job; ``extra``: job, node ranges, GPUs,
  how it ended, speed, checkpoint interval and write, restart (the Gantt chart);
- ``failures``: x hours, y node; ``extra``: the jobs killed and when the node came back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpulab.catalogue import Message, Note, msg, render
from gpulab.lab.base import CheckedParams, Context, ExperimentGen, Progress, choice_text, param, params_to_dict
from gpulab.lab.declare import Lab
from gpulab.model import reliability
from gpulab.model.scheduling import cluster, jobs, sim
from gpulab.results import Point, Provenance, Result, Series

TITLE = render("experiment.scheduling.title")
DESCRIPTION = render("experiment.scheduling.description")
HOUR = 3600.0
MAX_GPUS = 16384
TP_SPLIT_SPEED = round(cluster.tp_across_nodes_speed(), 2)
"""0.59: the default speed of a split tensor-parallel group (assumed; :data:`cluster.TP_COMM_SHARE`)."""
CAUSE_KEYS = {"failure": "scheduling.cause.failure", "preemption": "scheduling.cause.preemption",
              "restart": "scheduling.cause.restart", "checkpoint": "scheduling.cause.checkpoint",
              "slowdown": "scheduling.cause.slowdown", "held": "scheduling.cause.held", "down": "scheduling.cause.down",
              "blocked": "scheduling.cause.blocked", "stranded": "scheduling.cause.stranded"}  # fmt: skip


@dataclass(frozen=True)
class Params(CheckedParams):
    gpus: int = param(MAX_GPUS, min=8, max=MAX_GPUS, multiple_of=8)
    mix: str = param("mixed", choices=tuple(jobs.MIXES))
    load: float = param(0.9, min=0.05, max=3.0)
    hours: float = param(168.0, unit="h", min=1.0, max=24 * 60.0)
    policy: str = param("topology", choices=sim.POLICIES)
    gang: bool = param(True)
    failures_per_gpu_year: float = param(reliability.LLAMA3_FAILURES_PER_GPU_YEAR, min=0.0, max=100.0)
    checkpoint_minutes: float = param(0.0, unit="min", min=0.0, max=10080.0)  # 0: Daly's interval for each job
    checkpoint_seconds: float = param(60.0, unit="s", min=0.0, max=3600.0)
    restart_seconds: float = param(300.0, unit="s", min=0.0, max=86400.0)
    repair_hours: float = param(2.0, unit="h", min=0.0, max=240.0)
    # Assumed, not measured (the notes and the JSON say so): the speed of a job whose tensor-parallel
    # group straddles nodes, 0.59 by default from an assumed 10% of the step in TP all-reduces moved
    # from NVLink to a NIC (cluster.tp_across_nodes_speed); and of a job spanning racks, 0.97.
    tp_split_speed: float = param(TP_SPLIT_SPEED, min=0.05, max=1.0)
    rack_span_speed: float = param(cluster.RACK_SPAN_SPEED, min=0.05, max=1.0)
    seed: int = param(1, min=0, max=2**31 - 1)


def simulate(params: Params, tick: Any = None) -> sim.Outcome:
    """The seeded simulation of ``params`` (the same params give the same outcome)."""
    spec = cluster.preset_cluster(params.gpus)
    horizon = params.hours * HOUR
    mix = jobs.generate(params.mix, spec.gpus, spec.gpus_per_node, horizon, params.load, params.seed)
    mix = jobs.with_checkpoints(mix, params.failures_per_gpu_year, params.checkpoint_seconds,
                                params.checkpoint_minutes * 60)  # fmt: skip
    failures = sim.failure_times(spec, params.failures_per_gpu_year, horizon, params.seed)
    config = sim.Config(spec, sim.policy(params.policy, params.gang), horizon, params.restart_seconds,
                        params.repair_hours * HOUR, params.tp_split_speed, params.rack_span_speed)  # fmt: skip
    return sim.simulate(config, mix, failures, tick)


# ---------------------------------------------------------------- series


def _number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def hourly(outcome: sim.Outcome, bins: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Bin centres (hours) and each timeline column's time-average over each bin."""
    table = outcome.timeline
    times = table[:, 0]
    edges = np.linspace(0, outcome.config.horizon_s, bins + 1)
    averages = {}
    for i, name in enumerate(sim.TIMELINE_COLUMNS[1:], start=1):
        values = table[:, i]
        integral = np.concatenate(([0.0], np.cumsum(values[:-1] * np.diff(times))))  # ∫ of the step function
        at_edges = np.interp(edges, times, integral) + 0.0
        # np.interp is linear between rows, exact for a step held from each row to the next
        averages[name] = np.diff(at_edges) / np.diff(edges)
    return (edges[:-1] + edges[1:]) / 2 / HOUR, averages


def _series(key: str, label: Message, x_axis: str, x_unit: str, y_axis: str, y_unit: str,
            provenance: Provenance, points: list[Point]) -> Series:  # fmt: skip
    return Series(render(label), provenance, Note(msg(x_axis)), x_unit, Note(msg(y_axis)), y_unit, tuple(points),
                  role="model", key=key, label=label)  # fmt: skip


def build_series(outcome: sim.Outcome, provenance: Provenance) -> list[Series]:
    spec = outcome.config.cluster
    bins = max(1, min(400, round(outcome.config.horizon_s / HOUR)))
    hours, avg = hourly(outcome, bins)
    share = {name: np.clip(avg[name] / spec.gpus * 100, 0, 100)
             for name in ("busy", "held", "down", "blocked", "stranded", "idle")}
    utilisation = [Point(float(h), float(share["busy"][i]), extra={k: float(v[i]) for k, v in share.items()})
                   for i, h in enumerate(hours)]  # fmt: skip
    fragmentation = [Point(float(h), float(avg["stranded"][i]), extra={"queued_gpus": float(avg["queued_gpus"][i])})
                     for i, h in enumerate(hours)]  # fmt: skip
    series = [
        _series("utilisation", msg("series.scheduling.utilisation"), "axis.scheduling.hours", "h",
                "axis.scheduling.percent-busy", "%", provenance, utilisation),
        _series("queue-wait", msg("series.scheduling.queue-wait"), "axis.scheduling.hours", "h",
                "axis.scheduling.wait", "h", provenance, queue_wait(outcome, bins)),
        _series("fragmentation", msg("series.scheduling.fragmentation"), "axis.scheduling.hours", "h",
                "axis.scheduling.stranded", "GPUs", provenance, fragmentation),
        _series("goodput", msg("series.scheduling.goodput"), "axis.scheduling.job", "",
                "axis.scheduling.goodput", "%", provenance, goodput_points(outcome)),
        _series("lost", msg("series.scheduling.lost"), "axis.scheduling.cause", "",
                "axis.scheduling.gpu-hours", "GPU·h", provenance,
                [Point(i + 1, outcome.lost_gpu_s[c] / HOUR, extra={"cause": c})
                 for i, c in enumerate(sim.LOSS_CAUSES)]),
        _series("runs", msg("series.scheduling.runs"), "axis.scheduling.start", "h", "axis.scheduling.end", "h",
                provenance, run_points(outcome)),
        _series("failures", msg("series.scheduling.failures"), "axis.scheduling.hours", "h",
                "axis.scheduling.node", "", provenance,
                [Point(t / HOUR, node, extra={"jobs": list(killed), "back_h": (t + outcome.config.repair_s) / HOUR})
                 for t, node, killed in outcome.failures]),
    ]  # fmt: skip
    return series


def queue_wait(outcome: sim.Outcome, bins: int) -> list[Point]:
    """Mean hours waited by the jobs whose first start fell in each bin (bins without a start: no point)."""
    starts = np.array([s.first_start_s for s in outcome.states])
    waits = np.array([s.wait_s for s in outcome.states])
    started = np.isfinite(starts)
    width = outcome.config.horizon_s / bins
    which = np.minimum((starts[started] // width).astype(int), bins - 1)
    count = np.bincount(which, minlength=bins)
    total = np.bincount(which, weights=waits[started], minlength=bins)
    return [Point((b + 0.5) * width / HOUR, total[b] / count[b] / HOUR, extra={"starts": int(count[b])})
            for b in range(bins) if count[b]]  # fmt: skip


def job_goodput(job: jobs.Job, state: sim.JobState) -> float | None:
    """Share of the GPU-hours a job held that advanced its work (None before it ran)."""
    return state.progress_s * job.gpus / state.gpu_s if state.gpu_s > 0 else None


def goodput_points(outcome: sim.Outcome) -> list[Point]:
    points = []
    for job, state in zip(outcome.jobs, outcome.states, strict=True):
        good = job_goodput(job, state)
        points.append(Point(job.id, good * 100 if good is not None else 0.0, extra={
            "kind": job.kind, "gpus": job.gpus, "tp": job.tp, "priority": job.priority,
            "arrival_h": job.arrival_s / HOUR, "work_h": job.work_s / HOUR,
            "first_start_h": _number(state.first_start_s / HOUR), "finish_h": _number(state.finish_s / HOUR),
            "wait_h": state.wait_s / HOUR, "runs": state.runs, "progress": state.progress_s / job.work_s,
            "interval_min": _number(job.checkpoint_interval_s / 60), "ran": good is not None}))  # fmt: skip
    return points


def run_points(outcome: sim.Outcome) -> list[Point]:
    ordered = sorted(outcome.runs, key=lambda run: (run.start_s, run.job))
    return [Point(run.start_s / HOUR, run.end_s / HOUR, extra={
        "job": run.job, "nodes": cluster.node_ranges(run.nodes), "gpus": run.gpus, "reason": run.reason,
        "speed": run.speed, "restart_s": run.restart_s, "checkpoints": run.checkpoints,
        "interval_s": _number(outcome.jobs[run.job].checkpoint_interval_s),
        "write_s": outcome.jobs[run.job].checkpoint_write_s}) for run in ordered]  # fmt: skip


# ---------------------------------------------------------------- summary and notes


@dataclass(frozen=True)
class Summary:
    utilisation: float  # share of GPU-time running jobs
    goodput: float  # share of the cluster's GPU-time that advanced some job's work
    mean_wait_h: float
    finished: int
    jobs: int
    failures: int
    lost_gpu_h: float  # every cause


def summary(outcome: sim.Outcome) -> Summary:
    spec, horizon = outcome.config.cluster, outcome.config.horizon_s
    table = outcome.timeline
    busy = float(np.sum(table[:-1, 1] * np.diff(table[:, 0])))
    useful = sum(state.progress_s * job.gpus for job, state in zip(outcome.jobs, outcome.states, strict=True))
    finished = sum(1 for state in outcome.states if math.isfinite(state.finish_s))
    waits = [state.wait_s for state in outcome.states]
    return Summary(busy / (spec.gpus * horizon), useful / (spec.gpus * horizon), float(np.mean(waits)) / HOUR if waits
                   else 0.0, finished, len(outcome.jobs), len(outcome.failures),
                   sum(outcome.lost_gpu_s.values()) / HOUR)  # fmt: skip


def all_notes(outcome: sim.Outcome, params: Params) -> tuple[Note, ...]:
    spec, s = outcome.config.cluster, summary(outcome)
    worst = max(sim.LOSS_CAUSES, key=lambda c: outcome.lost_gpu_s[c])
    notes = [
        msg("scheduling.note.summary", policy=choice_text(Params, "policy", params.policy) or params.policy,
            gpus=spec.gpus, nodes=spec.nodes, hours=f"{params.hours:g}",
            utilisation=f"{s.utilisation * 100:.0f}", goodput=f"{s.goodput * 100:.0f}", wait=f"{s.mean_wait_h:.1f}",
            finished=s.finished, jobs=s.jobs),
        msg("scheduling.note.lost", lost=f"{s.lost_gpu_h:,.0f}", cause=msg(CAUSE_KEYS[worst]),
            worst=f"{outcome.lost_gpu_s[worst] / HOUR:,.0f}"),
        msg("scheduling.note.failures", failures=s.failures, rate=f"{params.failures_per_gpu_year:g}",
            per_day=f"{reliability.interruptions_per_day(spec.gpus, params.failures_per_gpu_year):.1f}",
            llama=f"{reliability.LLAMA3.interruptions_per_day:.1f}"),
        msg("scheduling.note.assumptions", tp_speed=f"{outcome.config.tp_split_speed:.2f}",
            default=f"{TP_SPLIT_SPEED:.2f}", share=f"{cluster.TP_COMM_SHARE:.0%}",
            rack_speed=f"{outcome.config.rack_span_speed:.2f}", rack=spec.nodes_per_rack),
    ]  # fmt: skip
    return tuple(Note(n) for n in notes)


def assumed(params: Params) -> dict[str, dict[str, Any]]:
    """The speeds the run assumed, with the reason, for the result's JSON (its provenance)."""
    return {
        "tp_split_speed": {"value": params.tp_split_speed, "default": TP_SPLIT_SPEED, "measured": False,
                           "why": f"illustrative: {cluster.TP_COMM_SHARE:.0%} of a step assumed in tensor-parallel "
                                  "all-reduces, moved from NVLink to a NIC when the group straddles nodes"},
        "rack_span_speed": {"value": params.rack_span_speed, "default": cluster.RACK_SPAN_SPEED, "measured": False,
                            "why": "illustrative: a data-parallel ring crossing the spine, mostly hidden under "
                                   "the backward pass"},
    }  # fmt: skip


def run(params: Params, ctx: Context) -> ExperimentGen:
    """Simulate (seconds for a week of 16,384 GPUs) and return the series."""
    yield Progress(0.0, msg("progress.scheduling.simulating"))
    outcome = simulate(params, lambda share: ctx.check_cancelled())
    yield Progress(0.9, msg("progress.scheduling.series"))
    details = {"model": "discrete-event scheduler simulation", "seed": params.seed, "assumed": assumed(params)}
    provenance = Provenance("modelled", "DGX H100 cluster", details)
    series = build_series(outcome, provenance)
    yield Progress(1.0, msg("progress.done"))
    return Result("scheduling", params_to_dict(params), tuple(series), all_notes(outcome, params))


LAB = Lab("scheduling", section="cluster", order=50, page="scheduling", quick=("gpus=512", "hours=48"))
