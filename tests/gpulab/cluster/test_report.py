"""The collectives report: a point whose repeats disagree is flagged and the report leads with it."""

from gpulab.catalogue import render
from gpulab.cluster.report import Collector, point_of
from gpulab.measure import is_clean


def _event(seconds: float, seconds_iqr: float) -> dict:
    return {"event": "point", "collective": "allreduce", "message_bytes": 1 << 20, "count": 1 << 18, "ranks": 2,
            "seconds": seconds, "seconds_iqr": seconds_iqr, "algbw_gb_s": 1.0, "busbw_gb_s": 1.0,
            "busbw_iqr": 0.1, "repeats": 5, "wrong": 0}  # fmt: skip


def test_a_point_whose_repeats_disagree_is_flagged_and_one_that_agrees_is_clean():
    assert is_clean(point_of(_event(1e-3, 1e-5)))
    noisy = point_of(_event(1e-3, 9e-4))  # the middle half of the repeats spans 90% of the median
    assert not is_clean(noisy) and "spread" in noisy.extra["noise"]


def test_a_report_with_a_flagged_point_leads_with_the_headline_that_no_claim_rests_on_it():
    collector = Collector("mpi", {"ranks": 2})
    collector.add(_event(1e-3, 1e-5))
    collector.add({**_event(2e-3, 1.5e-3), "message_bytes": 1 << 21})
    result = collector.result()
    assert "1 of 2 points" in render(result.notes[0])
