"""The scheduler's policies on small cases worked by hand (hours as units, no failures unless given)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpulab.model.scheduling.cluster import ClusterSpec, place_anywhere, place_topology, placement_speed
from gpulab.model.scheduling.jobs import Job
from gpulab.model.scheduling.sim import Config, policy, simulate

H = 3600.0


def job(i: int, gpus: int, hours: float, at: float = 0.0, **kw) -> Job:
    return Job(i, at * H, gpus, hours * H, **kw)


def run_all(spec: ClusterSpec, jobs: list[Job], name: str, failures=(), gang: bool = True, **kw):
    return simulate(Config(spec, policy(name, gang), 100 * H, restart_s=kw.pop("restart_s", 0.0), **kw), jobs, failures)


def starts(outcome) -> list[float]:
    return [state.first_start_s / H for state in outcome.states]


TWO_NODES = ClusterSpec(nodes=2, gpus_per_node=4, nodes_per_rack=2)


def test_fifo_head_blocks_a_job_that_would_fit():
    # 8 GPUs; job 0 takes 6 for 2 h; job 1 wants 4 (only 2 free) and blocks job 2 (1 GPU) under FIFO.
    jobs = [job(0, 6, 2), job(1, 4, 1, at=0.1), job(2, 1, 1, at=0.2)]
    assert starts(run_all(TWO_NODES, jobs, "fifo")) == pytest.approx([0, 2, 2])
    # first-fit lets job 2 go past the head at once
    assert starts(run_all(TWO_NODES, jobs, "first-fit")) == pytest.approx([0, 2, 0.2])


def test_first_fit_can_starve_a_big_job_behind_small_ones():
    jobs = [job(0, 4, 2), job(1, 8, 1, at=0.1), job(2, 4, 2, at=1.0)]
    # first-fit: job 2 takes the free half at 1 h, so job 1 waits for both small ones: 3 h
    assert starts(run_all(TWO_NODES, jobs, "first-fit")) == pytest.approx([0, 3, 1])
    # EASY backfill: job 1 holds a reservation at 2 h; job 2 (2 h long) would end at 3 h and overlap it
    assert starts(run_all(TWO_NODES, jobs, "backfill")) == pytest.approx([0, 2, 3])


def test_easy_backfill_starts_a_short_job_that_ends_before_the_reservation():
    # job 1 (8 GPUs) reserved at 2 h; job 2 (4 GPUs, 1.5 h) fits in the free half and ends at 1.6 h < 2 h.
    jobs = [job(0, 4, 2), job(1, 8, 1, at=0.1), job(2, 4, 1.5, at=0.1)]
    outcome = run_all(TWO_NODES, jobs, "backfill")
    assert starts(outcome) == pytest.approx([0, 2, 0.1])
    assert outcome.states[1].first_start_s == pytest.approx(2 * H)  # the head was not delayed


def test_backfill_never_delays_the_head_jobs_reservation():
    # A long small job must not backfill onto GPUs the head job has reserved.
    spec = ClusterSpec(nodes=3, gpus_per_node=4, nodes_per_rack=3)
    jobs = [job(0, 8, 2), job(1, 12, 1, at=0.1), job(2, 4, 5, at=0.2)]
    outcome = run_all(spec, jobs, "backfill")
    # 4 GPUs free, but the head needs all 12 at 2 h: job 2 (5 h) would hold 4 of them past 2 h.
    assert starts(outcome) == pytest.approx([0, 2, 3])


def test_topology_packing_keeps_a_tensor_parallel_group_inside_a_node():
    free = np.array([2, 4, 4, 4])
    spec = ClusterSpec(nodes=4, gpus_per_node=4, nodes_per_rack=2)
    anywhere = place_anywhere(free, 4)
    assert anywhere is not None and anywhere[0].tolist() == [0, 1] and anywhere[1].tolist() == [2, 2]
    assert placement_speed(anywhere, 4, spec, 0.5) == 0.5  # the TP group of 4 straddles nodes 0 and 1
    packed = place_topology(free, 4, spec)
    assert packed is not None and packed[0].tolist() == [1] and placement_speed(packed, 4, spec, 0.5) == 1.0
    # a job smaller than a node goes where it fits most tightly
    assert place_topology(np.array([4, 3, 2, 4]), 2, spec)[0].tolist() == [2]
    # a two-node job takes whole nodes of one rack when a rack has them
    two = place_topology(np.array([4, 1, 4, 4]), 8, spec)
    assert two[0].tolist() == [2, 3]


def test_topology_packing_fragments_a_cluster_that_counting_would_use():
    # 3 GPUs free on each of two nodes: a 4-GPU job fits by count but not on one node.
    spec = ClusterSpec(nodes=2, gpus_per_node=4, nodes_per_rack=2)
    jobs = [job(0, 1, 3), job(1, 1, 3), job(2, 4, 1, at=0.1, tp=4)]
    anywhere = run_all(spec, jobs, "first-fit")
    packed = run_all(spec, jobs, "topology")
    # first-fit put jobs 0 and 1 on node 0, so node 1 is whole; topology best fit does too: job 2 starts
    assert starts(anywhere)[2] == pytest.approx(0.1) and starts(packed)[2] == pytest.approx(0.1)
    spread = [job(0, 3, 3, tp=3), job(1, 3, 3, tp=3), job(2, 2, 1, at=0.1, tp=2)]
    by_count, by_node = run_all(spec, spread, "first-fit"), run_all(spec, spread, "topology")
    # counting: job 1 straddles the nodes (1 + 2 GPUs, its TP group slowed), so node 1 keeps 2 for job 2
    speed = {run.job: run.speed for run in by_count.runs}
    assert speed[1] < 1 and speed[0] == 1 and starts(by_count)[2] == pytest.approx(0.1)
    assert {run.job: run.speed for run in by_node.runs}[1] == 1
    assert starts(by_node)[2] == pytest.approx(3)  # waits for a node with 2 free: the free GPUs are stranded
    assert by_node.lost_gpu_s["stranded"] == pytest.approx(2 * (3 - 0.1) * H)


def test_gang_scheduling_is_all_or_nothing_and_without_it_two_half_placed_jobs_deadlock():
    spec = ClusterSpec(nodes=1, gpus_per_node=8, nodes_per_rack=1)
    jobs = [job(0, 4, 1), job(1, 6, 1, at=0.1), job(2, 6, 1, at=0.2)]
    gang = run_all(spec, jobs, "first-fit")
    assert starts(gang) == pytest.approx([0, 1, 2])
    loose = run_all(spec, jobs, "first-fit", gang=False)
    # job 1 holds the 4 free GPUs from 0.1 h; at 1 h it takes 2 more and starts; job 2 takes the other 2
    # and holds them idle until job 1 ends at 2 h.
    assert starts(loose)[:2] == pytest.approx([0, 1])
    assert starts(loose)[2] == pytest.approx(2)
    assert loose.lost_gpu_s["held"] == pytest.approx((4 * 0.9 + 2 * 1.0) * H)
    assert gang.lost_gpu_s["held"] == 0


def test_priority_preempts_the_youngest_lower_priority_job():
    spec = ClusterSpec(nodes=1, gpus_per_node=8, nodes_per_rack=1)
    jobs = [job(0, 4, 5, priority=0), job(1, 4, 5, at=1, priority=0), job(2, 8, 1, at=2, priority=1)]
    outcome = run_all(spec, jobs, "priority")
    reasons = [(run.job, run.reason) for run in outcome.runs]
    assert (0, "preempted") in reasons and (1, "preempted") in reasons
    assert starts(outcome)[2] == pytest.approx(2)
    # no checkpoints: both restart from nothing, losing 2 h and 1 h of 4 GPUs
    assert outcome.lost_gpu_s["preemption"] == pytest.approx((2 + 1) * 4 * H)


def test_a_failure_requeues_the_job_from_its_last_checkpoint_losing_exactly_the_work_since():
    spec = ClusterSpec(nodes=2, gpus_per_node=4, nodes_per_rack=2)
    # 10 h of work on both nodes, a checkpoint every hour of computing (writes free), node 1 fails at 3.5 h
    jobs = [job(0, 8, 10, tp=4, checkpoint_interval_s=H, checkpoint_write_s=0.0)]
    outcome = run_all(spec, jobs, "fifo", failures=[(3.5 * H, 1)], restart_s=0.25 * H, repair_s=2 * H)
    first, second = outcome.runs
    assert first.reason == "failure" and first.progress1_s == pytest.approx(3 * H)
    assert outcome.lost_gpu_s["failure"] == pytest.approx(0.5 * 8 * H)  # half an hour of 8 GPUs
    # the node is back at 5.5 h; the job restarts there, 15 min to restart, 7 h of work left
    assert second.start_s == pytest.approx(5.5 * H) and second.reason == "done"
    assert outcome.states[0].finish_s == pytest.approx((5.5 + 0.25 + 7) * H)
    assert outcome.failures == [(3.5 * H, 1, (0,))]


def test_checkpoint_writes_cost_time_and_a_kill_during_a_write_loses_it():
    spec = ClusterSpec(nodes=1, gpus_per_node=4, nodes_per_rack=1)
    jobs = [job(0, 4, 3, checkpoint_interval_s=H, checkpoint_write_s=0.5 * H)]
    clean = run_all(spec, jobs, "fifo")
    assert clean.states[0].finish_s == pytest.approx(4 * H)  # 3 h of work and two writes of half an hour
    assert clean.lost_gpu_s["checkpoint"] == pytest.approx(2 * 0.5 * 4 * H)
    struck = run_all(spec, jobs, "fifo", failures=[(1.25 * H, 0)], repair_s=0.0)
    # killed during the first write (1 h to 1.5 h): nothing saved, 1.25 h of 4 GPUs lost
    assert struck.runs[0].progress1_s == 0 and struck.lost_gpu_s["failure"] == pytest.approx(1.25 * 4 * H)


def test_policy_names_are_checked():
    with pytest.raises(ValueError):
        policy("round-robin")
    assert math.isinf(Job(0, 0, 1, 1.0).checkpoint_interval_s)
