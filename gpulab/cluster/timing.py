"""How long a collective takes, as both backends time it: repeats sized to a budget by a warm-up,
and the JSON fields of one point (median seconds, algbw, busbw, their spread, the wrong elements)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gpulab.cluster import busbw
from gpulab.measure import median_and_iqr

MIN_REPEATS = 3
MAX_REPEATS = 2000


def repeats_for(warmup_seconds: float, budget_seconds: float) -> int:
    """Repeats that fill the budget at the warm-up's pace, from MIN_REPEATS to MAX_REPEATS."""
    if warmup_seconds <= 0:
        return MAX_REPEATS
    return int(min(MAX_REPEATS, max(MIN_REPEATS, budget_seconds / warmup_seconds)))


def point_fields(plan: busbw.Layout, samples: np.ndarray, wrong: int) -> dict[str, Any]:
    """The JSON fields of one point: median seconds and their IQR, algbw, busbw (and its IQR), wrong."""
    seconds, seconds_iqr = median_and_iqr(list(samples))
    rates = [busbw.busbw_gb_s(plan.collective, plan.message_bytes, s, plan.ranks) for s in samples if s > 0]
    _rate, rate_iqr = median_and_iqr(rates) if rates else (0.0, None)
    return {"collective": plan.collective, "message_bytes": plan.message_bytes, "count": plan.count,
            "ranks": plan.ranks, "seconds": seconds, "seconds_iqr": seconds_iqr,
            "algbw_gb_s": busbw.algbw_gb_s(plan.message_bytes, seconds),
            "busbw_gb_s": busbw.busbw_gb_s(plan.collective, plan.message_bytes, seconds, plan.ranks),
            "busbw_iqr": rate_iqr, "repeats": int(samples.size), "wrong": int(wrong)}  # fmt: skip
