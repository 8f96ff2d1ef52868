"""Evaluators for the scheduling & failures lab: the failures its simulation strikes a cluster with,
and the speeds it assumes for a poor placement (unvalidated: no published figure is set against them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulab.experiments import scheduling
from gpulab.model.scheduling import cluster, sim

SECONDS_PER_DAY = 86400.0


def failures_per_day(config: Mapping[str, Any]) -> float:
    """Failures a day the lab's seeded failure process strikes a cluster of ``gpus`` GPUs with over
    ``days`` days (``seed``; the lab's default rate unless ``failures_per_gpu_year``). Every one of them
    interrupts the jobs on its node; the simulation strikes exactly these (``sim.failure_times``)."""
    spec = cluster.preset_cluster(int(config["gpus"]))
    days = float(config["days"])
    rate = float(config.get("failures_per_gpu_year", scheduling.Params().failures_per_gpu_year))
    return len(sim.failure_times(spec, rate, days * SECONDS_PER_DAY, int(config.get("seed", 1)))) / days


def tp_split_speed(config: Mapping[str, Any]) -> float:
    """The lab's default speed of a job whose tensor-parallel group straddles nodes (assumed), ×."""
    return cluster.tp_across_nodes_speed(str(config.get("gpu", "h100-sxm")))


def rack_span_speed(config: Mapping[str, Any]) -> float:
    """The lab's default speed of a job whose data-parallel ring leaves its rack (assumed), ×."""
    return float(scheduling.Params().rack_span_speed)


EVALUATORS = {
    "scheduling-failures-per-day": failures_per_day,
    "scheduling-tp-split-speed": tp_split_speed,
    "scheduling-rack-span-speed": rack_span_speed,
}
