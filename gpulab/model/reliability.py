"""Failures at scale: interruptions a day, the checkpoint interval of Young and Daly, and goodput.

A synchronous training job stops whenever any one of its N GPUs (or their hosts, links, switches)
fails, so with a per-GPU failure rate λ (failures per GPU-year, a GPU's share of everything
that can stop the job) the job is interrupted ``N·λ / 365.25`` times a day and its mean time
between failures is ``M = 1 / (N·λ)``.

Checkpointing every τ seconds, each write taking δ seconds, and R seconds to restart after a
failure, a job wastes about ``δ/τ`` writing and ``(R + τ/2)/M`` redoing lost work and restarting
(first order, τ ≪ M). The interval that wastes least is Young's ``τ = √(2·δ·M)`` (Young 1974,
"A first order approximation to the optimum checkpoint interval"); Daly 2006 ("A higher order
estimate of the optimum checkpoint interval for restart dumps") refines it. Goodput is the share
of wall time that advances training: ``1 - waste``.

The Llama 3 preset (:data:`LLAMA3`) holds Meta's figures (§3.3.4 of "The Llama 3 Herd of
Models", 2024): 466 job interruptions in a 54-day snapshot on up to 16,384 H100 GPUs, 419 of
them unexpected. Its per-GPU rate counts all 466: a planned stop (maintenance, a configuration
change) also halts the job and costs a restart. Its checkpoint write is the model state over the
storage fabric's sustained rate (§3.3.1: 2 TB/s), about 3 s; the paper reports "higher than 90%
effective training time".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "CHECKPOINT_BYTES_PER_PARAMETER",
    "DAYS_PER_YEAR",
    "LLAMA3",
    "LLAMA3_CHECKPOINT_SECONDS",
    "LLAMA3_FAILURES_PER_GPU_YEAR",
    "LLAMA3_STORAGE_BYTES_PER_S",
    "PaperCase",
    "daly_interval_seconds",
    "goodput_fraction",
    "interruptions_per_day",
    "mtbf_seconds",
    "young_interval_seconds",
]

DAYS_PER_YEAR = 365.25
SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class PaperCase:
    """A published record of interruptions: GPUs, days observed, interruptions and how many were unexpected."""

    gpus: int
    days: float
    interruptions: int
    unexpected: int
    gpu_key: str

    @property
    def interruptions_per_day(self) -> float:
        return self.interruptions / self.days

    @property
    def unexpected_per_day(self) -> float:
        return self.unexpected / self.days

    @property
    def interruptions_per_gpu_year(self) -> float:
        """All interruptions per GPU-year: ``interruptions / (gpus · days / 365.25)``."""
        return self.interruptions / (self.gpus * self.days / DAYS_PER_YEAR)

    @property
    def unexpected_per_gpu_year(self) -> float:
        """Unexpected interruptions per GPU-year: ``unexpected / (gpus · days / 365.25)``."""
        return self.unexpected / (self.gpus * self.days / DAYS_PER_YEAR)


LLAMA3 = PaperCase(gpus=16384, days=54, interruptions=466, unexpected=419, gpu_key="h100-sxm")
"""Meta, "The Llama 3 Herd of Models" (2024), §3.3.4: 466 interruptions (47 planned, 419 unexpected)
in a 54-day snapshot of Llama 3 405B pre-training on up to 16,384 H100 GPUs."""

LLAMA3_FAILURES_PER_GPU_YEAR = round(LLAMA3.interruptions_per_gpu_year, 2)
"""0.19: the paper's interruptions per GPU-year, planned and unexpected (0.192), rounded to two decimals."""

CHECKPOINT_BYTES_PER_PARAMETER = 14
"""What a checkpoint saves per parameter with mixed-precision Adam: 2 bytes of bf16 weights and 12 of
fp32 optimizer state (master weights, momentum, variance; ZeRO paper §3.1); gradients are not saved."""

LLAMA3_STORAGE_BYTES_PER_S = 2e12
"""Llama 3's checkpoint storage (Tectonic): "a sustainable throughput of 2 TB/s and a peak throughput of
7 TB/s" (§3.3.1)."""

LLAMA3_CHECKPOINT_SECONDS = 405e9 * CHECKPOINT_BYTES_PER_PARAMETER / LLAMA3_STORAGE_BYTES_PER_S
"""2.8 s: Llama 3 405B's model state (5.7 TB) written at the storage fabric's sustained 2 TB/s."""


def interruptions_per_day(gpus: int, failures_per_gpu_year: float) -> float:
    """Expected job interruptions a day: ``gpus · rate / 365.25``."""
    if gpus < 0 or failures_per_gpu_year < 0:
        raise ValueError("GPU count and failure rate cannot be negative")
    return gpus * failures_per_gpu_year / DAYS_PER_YEAR


def mtbf_seconds(gpus: int, failures_per_gpu_year: float) -> float:
    """The job's mean time between interruptions, seconds (infinite when nothing fails)."""
    per_day = interruptions_per_day(gpus, failures_per_gpu_year)
    return SECONDS_PER_DAY / per_day if per_day > 0 else math.inf


def young_interval_seconds(checkpoint_seconds: float, mtbf_s: float) -> float:
    """Young's optimum checkpoint interval ``√(2·δ·M)``."""
    if checkpoint_seconds <= 0 or mtbf_s <= 0:
        raise ValueError("checkpoint time and MTBF must be positive")
    return math.sqrt(2 * checkpoint_seconds * mtbf_s)


def daly_interval_seconds(checkpoint_seconds: float, mtbf_s: float) -> float:
    """Daly's higher-order optimum: ``√(2δM)·(1 + ⅓·√(δ/2M) + (δ/2M)/9) - δ`` while δ < 2M, else M."""
    delta = checkpoint_seconds
    if delta >= 2 * mtbf_s:
        return mtbf_s
    ratio = delta / (2 * mtbf_s)
    return young_interval_seconds(delta, mtbf_s) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - delta


def goodput_fraction(interval_s: float, checkpoint_seconds: float, restart_seconds: float, mtbf_s: float) -> float:
    """Share of wall time that advances training: ``1 - δ/τ - (R + τ/2)/M``, kept within 0..1."""
    if interval_s <= 0:
        raise ValueError("the checkpoint interval must be positive")
    waste = checkpoint_seconds / interval_s
    if math.isfinite(mtbf_s):
        waste += (restart_seconds + interval_s / 2) / mtbf_s
    return min(1.0, max(0.0, 1.0 - waste))


@dataclass(frozen=True)
class Reliability:
    """What a job of ``gpus`` GPUs can expect: interruptions a day, MTBF, the best interval and its goodput."""

    gpus: int
    interruptions_per_day: float
    mtbf_s: float
    interval_s: float
    goodput: float


def reliability(gpus: int, failures_per_gpu_year: float, checkpoint_seconds: float,
                restart_seconds: float) -> Reliability:  # fmt: skip
    """Interruptions, MTBF, Young's interval and the goodput at that interval for a job of ``gpus`` GPUs."""
    mtbf = mtbf_seconds(gpus, failures_per_gpu_year)
    interval = young_interval_seconds(checkpoint_seconds, mtbf) if math.isfinite(mtbf) else math.inf
    goodput = goodput_fraction(interval, checkpoint_seconds, restart_seconds, mtbf) if math.isfinite(mtbf) else 1.0
    return Reliability(gpus, interruptions_per_day(gpus, failures_per_gpu_year), mtbf, interval, goodput)
