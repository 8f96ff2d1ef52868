"""Outliers: one device far below its identical siblings fails, even if it cleared its own threshold.

An absolute threshold is loose on purpose (it must hold for every healthy board of a model, in
every slot and room), so a GPU that runs 30 % slower than the seven beside it can still pass it.
Its siblings are the better reference. The rule, applied to the finished rows of a run
(gpulab's own, in ``resources/check/thresholds.toml`` under ``[outliers]``):

- Siblings are rows of the same check with the same unit, on devices of the same model
  (``facts["model"]``) and, where a check measures several, the same dtype (``facts["dtype"]``:
  a GPU's FP16 matmul is no sibling of its FP64 one), on this host or, in fleet mode, on others.
- Only measured rates are compared (a unit per second: GB/s, TFLOP/s, ...), where higher is
  better; a temperature or a latency is not a rate, and a PCIe generation is judged by its own
  rule.
- A row is compared with the median of its siblings (all the other rows in its group, so with
  two devices the other one is the reference). At or below ``below_share_of_median`` of that median it
  becomes a failure that names the median and the siblings; its own verdict and reason are kept
  in ``facts["before_outlier"]``. A row that already failed stays as it is.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence

from gpulab.catalogue import msg, to_json

from .model import Row, Verdict
from .registry import threshold

SOURCE = "outliers"


def comparable(row: Row) -> bool:
    """A row the rule can compare: a positive measured rate on a device of a known model."""
    value = row.value
    return (value is not None and math.isfinite(value) and value > 0 and row.unit.endswith("/s")
            and bool(row.facts.get("model")))


def _groups(rows: Sequence[Row]) -> list[list[int]]:
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    for i, row in enumerate(rows):
        if comparable(row):
            key = (row.check, row.unit, str(row.facts["model"]), str(row.facts.get("dtype", "")))
            groups.setdefault(key, []).append(i)
    return [members for members in groups.values() if len(members) >= 2]


def _where(row: Row, hosts: set[str]) -> str:
    # Name the host only when the siblings span several (fleet mode).
    return f"{row.host}:{row.device}" if len(hosts) > 1 else row.device


def apply_outliers(rows: Sequence[Row]) -> list[Row]:
    """``rows`` with every row at or below ``below_share_of_median`` of its siblings' median turned into a
    failure (see the module's rule)."""
    share = float(threshold(SOURCE)["below_share_of_median"])
    judged = list(rows)
    for members in _groups(rows):
        hosts = {rows[i].host for i in members}
        for i in members:
            siblings = [rows[j] for j in members if j != i]
            median = statistics.median(s.value for s in siblings if s.value is not None)
            row = rows[i]
            if row.verdict is not Verdict.FAIL and row.value is not None and _behind(row.value, median, share):
                judged[i] = _outlier(row, median, share, [_where(s, hosts) for s in siblings])
    return judged


def _behind(value: float, median: float, share: float) -> bool:
    # At or below the share (rounded, so "30 % behind" is behind despite 0.7 x 3000 in binary).
    return round(value / median, 9) <= share


def _outlier(row: Row, median: float, share: float, siblings: list[str]) -> Row:
    before = {"verdict": row.verdict.value, "reason": to_json(row.reason), "threshold": row.threshold,
              "comparison": row.comparison, "source": row.source}
    value = row.value or 0.0
    # The row's own reason stays in front (it names what was measured: "FP16 matmul", "copy from
    # GPU 1 to GPU 2"), and the comparison follows it.
    reason = msg("check.outlier.reason", was=row.reason, value=f"{value:.4g}", unit=row.unit,
                 share=f"{value / median:.0%}", median=f"{median:.4g}", siblings=", ".join(siblings))
    return dataclasses.replace(row, verdict=Verdict.FAIL, reason=reason, action=msg("check.outlier.action"),
                               threshold=round(share * median, 6), comparison=">=", source=SOURCE,
                               facts={**row.facts, "before_outlier": before, "siblings_median": median})
