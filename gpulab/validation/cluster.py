"""Evaluators for the cluster labs: collectives across GPUs, the 3D-parallelism planner, failures, and
the topology lab's modelled copy matrix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpulab.experiments import cluster_scaling, p2p
from gpulab.model import cluster, parallelism, reliability
from gpulab.model.cluster_layout import node_topology, rail_fat_tree
from gpulab.validation.config import model_gpu


def allreduce_busbw_gb_s(config: Mapping[str, Any]) -> float:
    """nccl-tests' busbw of one AllReduce: ``gpus``, ``algorithm``, ``message_bytes`` on nodes of ``gpu``,
    optionally with ``nics`` NICs a node of ``nic_gbit`` Gb/s line rate (default: eight of 400 Gb/s)."""
    spec = model_gpu(config)
    n, size = int(config["gpus"]), float(config["message_bytes"])
    nic_gb_s = float(config.get("nic_gbit", 8 * cluster.IB_GB_S_PER_DIRECTION)) / 8
    fabric = cluster.fabric_for(spec, nic_gb_s, int(config.get("nics", cluster.NODE_NICS)))
    seconds = cluster.allreduce_seconds(str(config["algorithm"]), n, size, fabric)
    return cluster.bus_bandwidth_gb_s(n, size, seconds)


def _scaling_params(config: Mapping[str, Any]) -> Any:
    """The scaling lab's Params with the row's settings (everything else at the lab's defaults)."""
    fields = {key: value for key, value in config.items() if key != "gpu"}
    if "gpu" in config:
        fields["model_gpu"] = config["gpu"]
    return cluster_scaling.Params(**fields)


def _plan(config: Mapping[str, Any]) -> tuple[Any, parallelism.Plan]:
    """The plan the lab's table shows for the row's layout (DP, TP and PP all given)."""
    params = _scaling_params(config)
    figs = cluster_scaling.figures(params)
    if len(figs.plans) != 1:
        raise ValueError(f"the row must fix dp, tp and pp (the planner priced {len(figs.plans)} layouts)")
    return params, figs.plans[0]


def plan_tflops_per_gpu(config: Mapping[str, Any]) -> float:
    """Model FLOP a GPU does per second of the step, TFLOPS (``(6·P + 12·L·h·s)·tokens / (step · GPUs)``)."""
    params, plan = _plan(config)
    return parallelism.tflops_per_gpu(params.shape, plan)


def plan_memory_gb(config: Mapping[str, Any]) -> float:
    """Memory a GPU needs for the plan: weights, gradients, optimizer state and activations, GB."""
    return _plan(config)[1].memory.total / 1e9


def goodput_percent(config: Mapping[str, Any]) -> float:
    """Share of wall time that advances training at Young's checkpoint interval, %."""
    params = _scaling_params(config)
    found = reliability.reliability(params.gpus, params.failures_per_gpu_year, params.checkpoint_seconds,
                                    params.restart_seconds)  # fmt: skip
    return found.goodput * 100


def interruptions_per_day(config: Mapping[str, Any]) -> float:
    """Job interruptions a day on ``gpus`` GPUs at the lab's failure rate."""
    params = _scaling_params(config)
    return reliability.interruptions_per_day(params.gpus, params.failures_per_gpu_year)


def training_gpu_hours_millions(config: Mapping[str, Any]) -> float:
    """GPU-hours to train on ``tokens`` tokens at the plan's rate and goodput, millions."""
    tokens = float(config["tokens"])
    rest = {key: value for key, value in config.items() if key != "tokens"}
    params, plan = _plan(rest)
    flops_per_gpu_s = parallelism.tflops_per_gpu(params.shape, plan) * 1e12
    seconds = params.shape.flops_per_token * tokens / flops_per_gpu_s / (goodput_percent(rest) / 100)
    return seconds / 3600 / 1e6


def p2p_pair_gb_s(config: Mapping[str, Any]) -> float:
    """The topology lab's modelled copy rate from GPU ``src`` to GPU ``dst`` of the node ``layout``, GB/s."""
    layout, src, dst = str(config["layout"]), int(config["src"]), int(config["dst"])
    series = p2p.modelled_series(node_topology(layout), rail_fat_tree(layout, 1), 1 << 26)
    point = next((p for s in series if s.key == f"from-gpu-{src}" for p in s.points if p.x == dst), None)
    if point is None:
        raise ValueError(f"the {layout} node has no path from GPU {src} to GPU {dst}")
    return float(point.y)


EVALUATORS = {
    "allreduce-busbw": allreduce_busbw_gb_s,
    "plan-tflops-per-gpu": plan_tflops_per_gpu,
    "plan-memory-gb": plan_memory_gb,
    "goodput-percent": goodput_percent,
    "interruptions-per-day": interruptions_per_day,
    "training-gpu-hours": training_gpu_hours_millions,
    "p2p-pair-gb-s": p2p_pair_gb_s,
}
