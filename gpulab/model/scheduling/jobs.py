"""Jobs and the seeded job mixes of the scheduler lab.

A job asks for ``gpus`` GPUs for ``work_s`` seconds of computing on a good placement; a training
job's tensor-parallel group is ``tp`` GPUs. It checkpoints every ``checkpoint_interval_s``
seconds of computing, a write taking ``checkpoint_write_s`` (blocking). By default the interval is
Daly's for the job's size (:func:`gpulab.model.reliability.daly_interval_seconds`, the scaling lab's
model), so an 8-GPU hour-long job never checkpoints and a 16k-GPU one does every few minutes.

A mix (:data:`MIXES`) is a share of the offered GPU-hours per class of job (large training runs,
medium runs, small jobs) and the classes' sizes and lengths; :func:`generate` draws jobs, seeded,
until each class has its share of ``load`` times the cluster's GPU-hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from gpulab.model import reliability

HOUR = 3600.0


@dataclass(frozen=True)
class Job:
    id: int
    arrival_s: float
    gpus: int
    work_s: float
    tp: int = 1
    priority: int = 0
    checkpoint_interval_s: float = math.inf
    checkpoint_write_s: float = 0.0
    kind: str = "small"

    def __post_init__(self) -> None:
        if self.gpus < 1 or self.work_s <= 0 or self.checkpoint_interval_s <= 0:
            raise ValueError(f"job {self.id}: needs GPUs, work and a positive checkpoint interval")


@dataclass(frozen=True)
class JobClass:
    """One class of a mix: its share of the offered GPU-hours, its sizes as shares of the cluster
    (``size_shares``) or in GPUs (``sizes``), its median length (lognormal, clipped), TP and priority."""

    kind: str
    gpu_hours_share: float
    sizes: tuple[int, ...] = ()
    size_shares: tuple[float, ...] = ()
    median_hours: float = 1.0
    sigma: float = 0.8
    hours_range: tuple[float, float] = (0.1, 12.0)
    tp: int = 8
    priority: int = 0
    arrive_within: float = 1.0  # share of the horizon over which the class's jobs arrive


MIXES: dict[str, tuple[JobClass, ...]] = {
    # A research cluster: a few big pre-training runs take most of it, medium fine-tunes and
    # experiments the rest, and many small jobs (notebooks, evaluations) fill what is left.
    "mixed": (
        JobClass("large", 0.58, size_shares=(1 / 16, 1 / 8, 1 / 4), median_hours=40, sigma=0.4,
                 hours_range=(12, 120), priority=2, arrive_within=0.6),
        JobClass("medium", 0.4, sizes=(64, 128, 256, 512, 1024), median_hours=6, sigma=0.7,
                 hours_range=(1, 48), priority=1),
        JobClass("small", 0.02, sizes=(1, 2, 4, 8, 8, 8), median_hours=1.5, sigma=0.9, hours_range=(0.1, 12)),
    ),
    # One run on seven eighths of the cluster (the rest: spares and small jobs), as for Llama 3.
    "one-big-run": (
        JobClass("large", 0.9, size_shares=(0.875,), median_hours=150, sigma=0.01, hours_range=(24, 1000),
                 priority=2, arrive_within=0.0),
        JobClass("small", 0.02, sizes=(1, 2, 4, 8, 8, 8), median_hours=1.5, sigma=0.9, hours_range=(0.1, 12)),
    ),
    # Many medium and small jobs, no big run: where packing and backfill matter most.
    "many-small": (
        JobClass("medium", 0.6, sizes=(16, 32, 64, 128, 256), median_hours=4, sigma=0.8, hours_range=(0.5, 24),
                 priority=1),
        JobClass("small", 0.4, sizes=(1, 2, 4, 8), median_hours=1.0, sigma=0.9, hours_range=(0.1, 8)),
    ),
}


def _sizes(job_class: JobClass, cluster_gpus: int, per_node: int) -> list[int]:
    if job_class.size_shares:
        whole = [max(per_node, int(cluster_gpus * s) // per_node * per_node) for s in job_class.size_shares]
    else:
        whole = list(job_class.sizes)
    return [min(size, cluster_gpus) for size in whole]


def generate(mix: str, cluster_gpus: int, per_node: int, horizon_s: float, load: float, seed: int) -> list[Job]:
    """Jobs of ``mix`` arriving over ``horizon_s``, offering ``load`` times the cluster's GPU-hours
    (each class its share); the same arguments give the same jobs."""
    rng = np.random.default_rng(seed)
    capacity = cluster_gpus * horizon_s
    drawn: list[tuple[float, int, float, JobClass]] = []
    for job_class in MIXES[mix]:
        budget = load * job_class.gpu_hours_share * capacity
        sizes = _sizes(job_class, cluster_gpus, per_node)
        low, high = (h * HOUR for h in job_class.hours_range)
        offered = 0.0
        while offered < budget:
            size = int(sizes[rng.integers(len(sizes))])
            seconds = float(np.clip(job_class.median_hours * HOUR * math.exp(job_class.sigma * rng.standard_normal()),
                                    low, high))  # fmt: skip
            if job_class.arrive_within <= 0:
                seconds = min(seconds, max(low, (budget - offered) / size))  # one run: the share, not more
            arrival = float(rng.uniform(0, job_class.arrive_within * horizon_s))
            drawn.append((arrival, size, seconds, job_class))
            offered += size * seconds
    drawn.sort(key=lambda row: row[0])
    return [Job(i, arrival, size, seconds, tp=min(job_class.tp, size), priority=job_class.priority,
                kind=job_class.kind) for i, (arrival, size, seconds, job_class) in enumerate(drawn)]  # fmt: skip


def with_checkpoints(jobs: list[Job], failures_per_gpu_year: float, write_s: float,
                     interval_s: float = 0.0) -> list[Job]:  # fmt: skip
    """The jobs checkpointing every ``interval_s`` (0: Daly's interval for each job's size and
    the failure rate), each write taking ``write_s``."""
    out = []
    for job in jobs:
        every = interval_s or daly_interval(job.gpus, failures_per_gpu_year, write_s)
        out.append(replace(job, checkpoint_interval_s=every, checkpoint_write_s=write_s if math.isfinite(every) else 0))
    return out


def daly_interval(gpus: int, failures_per_gpu_year: float, write_s: float) -> float:
    """Daly's checkpoint interval for a job of ``gpus`` GPUs (infinite when nothing fails or writes cost nothing)."""
    mtbf = reliability.mtbf_seconds(gpus, failures_per_gpu_year)
    if not math.isfinite(mtbf) or write_s <= 0:
        return math.inf
    return reliability.daly_interval_seconds(write_s, mtbf)
